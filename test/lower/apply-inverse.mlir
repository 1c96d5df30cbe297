// lego-to-arith on `lego.apply_inverse`, one function per layout constructor (semantics.md `inv`).
// RUN: lego-opt %s --lego-to-arith | FileCheck %s

// row [n⃗]: B⁻¹(n⃗, x).
// CHECK-LABEL: func.func @row
// CHECK-SAME: (%[[X:.*]]: index, %[[N:.*]]: index)
// CHECK-NEXT: %[[U:.*]]:2 = affine.delinearize_index %[[X]] into (4, %[[N]]) : index, index
// CHECK-NEXT: return %[[U]]#0, %[[U]]#1
func.func @row(%x: index, %n: index) -> (index, index) {
  %l = lego.row [4, %n] : !lego.layout
  %i, %j = lego.apply_inverse %l(%x) : !lego.layout -> index, index
  return %i, %j : index, index
}

// col [n⃗]: B⁻¹ over the reversed sizes, results reversed.
// CHECK-LABEL: func.func @col
// CHECK-SAME: (%[[X:.*]]: index)
// CHECK-NEXT: %[[U:.*]]:3 = affine.delinearize_index %[[X]] into (2, 8, 4) : index, index, index
// CHECK-NEXT: return %[[U]]#2, %[[U]]#1, %[[U]]#0
func.func @col(%x: index) -> (index, index, index) {
  %l = lego.col [4, 8, 2] : !lego.layout
  %i:3 = lego.apply_inverse %l(%x) : !lego.layout -> (index, index, index)
  return %i#0, %i#1, %i#2 : index, index, index
}

// reg_p perm σ dims n⃗: phys = B⁻¹(σ(n⃗), x); result[σ_k] = phys[k].
// CHECK-LABEL: func.func @reg_p
// CHECK-SAME: (%[[X:.*]]: index, %[[M:.*]]: index)
// CHECK-NEXT: %[[U:.*]]:3 = affine.delinearize_index %[[X]] into (%[[M]], 5, 3) : index, index, index
// CHECK-NEXT: return %[[U]]#2, %[[U]]#0, %[[U]]#1
func.func @reg_p(%x: index, %m: index) -> (index, index, index) {
  %l = lego.reg_p perm [1, 2, 0] dims [3, %m, 5] : !lego.layout
  %i:3 = lego.apply_inverse %l(%x) : !lego.layout -> index, index, index
  return %i#0, %i#1, %i#2 : index, index, index
}

// gen_p: the inv region is inlined with its argument bound to the flat index.
// CHECK-LABEL: func.func @gen_p
// CHECK-SAME: (%[[X:.*]]: index)
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[Q:.*]] = arith.divui %[[X]], %[[C3]] : index
// CHECK-NEXT: %[[A:.*]] = arith.subi %[[C3]], %[[Q]] : index
// CHECK-NEXT: %[[B:.*]] = arith.remui %[[X]], %[[C3]] : index
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @gen_p(%x: index) -> (index, index) {
  %l = lego.gen_p [4, 3] apply (%a: index, %b: index) {
    %c3 = arith.constant 3 : index
    %r = arith.subi %c3, %a : index
    %s = arith.muli %r, %c3 : index
    %f = arith.addi %s, %b : index
    lego.yield %f : index
  } inv (%y: index) {
    %c3 = arith.constant 3 : index
    %q = arith.divui %y, %c3 : index
    %a = arith.subi %c3, %q : index
    %b = arith.remui %y, %c3 : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %i, %j = lego.apply_inverse %l(%x) : !lego.layout -> index, index
  return %i, %j : index, index
}

// order_by(P1, P2): (c1, c2) = B⁻¹([numel(P1), numel(P2)], x); then inv(P_k, c_k).
// CHECK-LABEL: func.func @order_by
// CHECK-SAME: (%[[X:.*]]: index, %[[N:.*]]: index)
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[NUMEL:.*]] = arith.muli %[[N]], %[[C2]] : index
// CHECK-NEXT: %[[P:.*]]:2 = affine.delinearize_index %[[X]] into (3, %[[NUMEL]]) : index, index
// CHECK-NEXT: %[[Q:.*]]:2 = affine.delinearize_index %[[P]]#1 into (2, %[[N]]) : index, index
// CHECK-NEXT: return %[[P]]#0, %[[Q]]#1, %[[Q]]#0
func.func @order_by(%x: index, %n: index) -> (index, index, index) {
  %a = lego.row [3] : !lego.layout
  %b = lego.col [%n, 2] : !lego.layout
  %l = lego.order_by(%a, %b) : !lego.layout
  %i:3 = lego.apply_inverse %l(%x) : !lego.layout -> index, index, index
  return %i#0, %i#1, %i#2 : index, index, index
}

// group_by [g⃗](O1, O2): objects first to last, x = B(dims(O), inv(O, x)); then B⁻¹(g⃗, x).
// CHECK-LABEL: func.func @group_by
// CHECK-SAME: (%[[X:.*]]: index)
// CHECK-NEXT: %[[P1:.*]]:3 = affine.delinearize_index %[[X]] into (2, 4, 3) : index, index, index
// CHECK-NEXT: %[[X1:.*]] = affine.linearize_index disjoint [%[[P1]]#0, %[[P1]]#2, %[[P1]]#1] by (2, 3, 4) : index
// CHECK-NEXT: %[[P2:.*]]:2 = affine.delinearize_index %[[X1]] into (6, 4) : index, index
// CHECK-NEXT: %[[X2:.*]] = affine.linearize_index disjoint [%[[P2]]#1, %[[P2]]#0] by (4, 6) : index
// CHECK-NEXT: %[[R:.*]]:2 = affine.delinearize_index %[[X2]] into (6, 4) : index, index
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1
func.func @group_by(%x: index) -> (index, index) {
  %o1 = lego.reg_p perm [0, 2, 1] dims [2, 3, 4] : !lego.layout
  %o2 = lego.col [4, 6] : !lego.layout
  %l = lego.group_by [6, 4](%o1, %o2) : !lego.layout
  %i, %j = lego.apply_inverse %l(%x) : !lego.layout -> index, index
  return %i, %j : index, index
}

// tile_by: c⃗ = inv(L, x); each c_k splits into its levels; the result is level-major.
// CHECK-LABEL: func.func @tile_by
// CHECK-SAME: (%[[X:.*]]: index, %[[BM:.*]]: index)
// CHECK-NEXT: %[[C:.*]]:2 = affine.delinearize_index %[[X]] into (8, 12) : index, index
// CHECK-NEXT: %[[R0:.*]]:2 = affine.delinearize_index %[[C]]#0 into (2, %[[BM]]) : index, index
// CHECK-NEXT: %[[R1:.*]]:2 = affine.delinearize_index %[[C]]#1 into (4, 3) : index, index
// CHECK-NEXT: return %[[R0]]#0, %[[R1]]#0, %[[R0]]#1, %[[R1]]#1
func.func @tile_by(%x: index, %bm: index) -> (index, index, index, index) {
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2, 4], [%bm, 3]] : !lego.layout
  %i:4 = lego.apply_inverse %t(%x) : !lego.layout -> index, index, index, index
  return %i#0, %i#1, %i#2, %i#3 : index, index, index, index
}

// expand_by L dims n⃗ to m⃗: inv(L, B(m⃗, B⁻¹(n⃗, x))).
// CHECK-LABEL: func.func @expand_by
// CHECK-SAME: (%[[X:.*]]: index)
// CHECK-NEXT: %[[J:.*]]:2 = affine.delinearize_index %[[X]] into (3, 5) : index, index
// CHECK-NEXT: %[[Y:.*]] = affine.linearize_index disjoint [%[[J]]#0, %[[J]]#1] by (4, 8) : index
// CHECK-NEXT: %[[R:.*]]:2 = affine.delinearize_index %[[Y]] into (4, 8) : index, index
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1
func.func @expand_by(%x: index) -> (index, index) {
  %r = lego.row [4, 8] : !lego.layout
  %e = lego.expand_by %r dims [3, 5] to [4, 8] : !lego.layout
  %i, %j = lego.apply_inverse %e(%x) : !lego.layout -> index, index
  return %i, %j : index, index
}
