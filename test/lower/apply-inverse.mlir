// lego-to-arith on `lego.apply_inverse`, one function per layout constructor (docs/reference/semantics.md `inv`), in the
// published op form (docs/reference/lowering.md §2): unflatten outermost first, divui before remui with per-level
// strides; order_by's inverse block by block, last to first, remui then divui (the outermost block keeps
// its remui). Expected lines derived by hand from §2.
// RUN: lego-opt %s --lego-to-arith | FileCheck %s

// row [4, n]: (x div n, x mod n).
// CHECK-LABEL: func.func @row
// CHECK-SAME: (%[[X:.*]]: index, %[[N:.*]]: index)
// CHECK-NEXT: %[[Q:.*]] = arith.divui %[[X]], %[[N]] : index
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[X]], %[[N]] : index
// CHECK-NEXT: return %[[Q]], %[[R]]
func.func @row(%x: index, %n: index) -> (index, index) {
  %l = lego.row [4, %n] : !lego.layout
  %i, %j = lego.apply_inverse %l(%x) : !lego.layout -> index, index
  return %i, %j : index, index
}

// col [4, 8, 2]: unflatten over the reversed sizes (2, 8, 4) — strides 32, 4 — results reversed.
// CHECK-LABEL: func.func @col
// CHECK-SAME: (%[[X:.*]]: index)
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[P0:.*]] = arith.divui %[[X]], %[[C32]] : index
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[X]], %[[C32]] : index
// CHECK-NEXT: %[[P1:.*]] = arith.divui %[[R]], %[[C4]] : index
// CHECK-NEXT: %[[P2:.*]] = arith.remui %[[R]], %[[C4]] : index
// CHECK-NEXT: return %[[P2]], %[[P1]], %[[P0]]
func.func @col(%x: index) -> (index, index, index) {
  %l = lego.col [4, 8, 2] : !lego.layout
  %i:3 = lego.apply_inverse %l(%x) : !lego.layout -> (index, index, index)
  return %i#0, %i#1, %i#2 : index, index, index
}

// reg_p perm [1, 2, 0] dims [3, m, 5]: phys = unflatten(x, (m, 5, 3)) — strides 15, 3 (m, the outermost
// size, is never used); result[σ_k] = phys[k].
// CHECK-LABEL: func.func @reg_p
// CHECK-SAME: (%[[X:.*]]: index, %[[M:.*]]: index)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C15:.*]] = arith.constant 15 : index
// CHECK: %[[P0:.*]] = arith.divui %[[X]], %[[C15]] : index
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[X]], %[[C15]] : index
// CHECK-NEXT: %[[P1:.*]] = arith.divui %[[R]], %[[C3]] : index
// CHECK-NEXT: %[[P2:.*]] = arith.remui %[[R]], %[[C3]] : index
// CHECK-NEXT: return %[[P2]], %[[P0]], %[[P1]]
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

// order_by(row [3], col [n, 2]): last block first: inner = x mod (n·2), f = x div (n·2), inv(col, inner) =
// (inner mod n, inner div n); then the outermost block: f mod 3 (its divui is dead and erased).
// CHECK-LABEL: func.func @order_by
// CHECK-SAME: (%[[X:.*]]: index, %[[N:.*]]: index)
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[NUMEL:.*]] = arith.muli %[[N]], %[[C2]] : index
// CHECK-NEXT: %[[INNER:.*]] = arith.remui %[[X]], %[[NUMEL]] : index
// CHECK-NEXT: %[[F:.*]] = arith.divui %[[X]], %[[NUMEL]] : index
// CHECK-NEXT: %[[Q:.*]] = arith.divui %[[INNER]], %[[N]] : index
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[INNER]], %[[N]] : index
// CHECK-NEXT: %[[OUTER:.*]] = arith.remui %[[F]], %[[C3]] : index
// CHECK-NEXT: return %[[OUTER]], %[[R]], %[[Q]]
func.func @order_by(%x: index, %n: index) -> (index, index, index) {
  %a = lego.row [3] : !lego.layout
  %b = lego.col [%n, 2] : !lego.layout
  %l = lego.order_by(%a, %b) : !lego.layout
  %i:3 = lego.apply_inverse %l(%x) : !lego.layout -> index, index, index
  return %i#0, %i#1, %i#2 : index, index, index
}

// group_by [6, 4](O1, O2): objects first to last, x = flatten(inv(O, x), dims(O)); then unflatten(x, (6, 4)).
// O1 = reg_p perm [0, 2, 1] dims [2, 3, 4]: phys = (x div 12, (x mod 12) div 3, (x mod 12) mod 3) over
// (2, 4, 3), logical (p0, p2, p1), flattened over (2, 3, 4): p1 + p2·4 + p0·12. O2 = col [4, 6]:
// (y div 4, y mod 4) reversed, flattened over (4, 6): y div 4 + (y mod 4)·6. No shortcut: round trips stay.
// CHECK-LABEL: func.func @group_by
// CHECK-SAME: (%[[X:.*]]: index)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[C12:.*]] = arith.constant 12 : index
// CHECK: %[[P0:.*]] = arith.divui %[[X]], %[[C12]] : index
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[X]], %[[C12]] : index
// CHECK-NEXT: %[[P1:.*]] = arith.divui %[[R]], %[[C3]] : index
// CHECK-NEXT: %[[P2:.*]] = arith.remui %[[R]], %[[C3]] : index
// CHECK-NEXT: %[[S1:.*]] = arith.muli %[[P2]], %[[C4]] : index
// CHECK-NEXT: %[[A1:.*]] = arith.addi %[[P1]], %[[S1]] : index
// CHECK-NEXT: %[[S2:.*]] = arith.muli %[[P0]], %[[C12]] : index
// CHECK-NEXT: %[[Y:.*]] = arith.addi %[[A1]], %[[S2]] : index
// CHECK-NEXT: %[[Q0:.*]] = arith.divui %[[Y]], %[[C4]] : index
// CHECK-NEXT: %[[Q1:.*]] = arith.remui %[[Y]], %[[C4]] : index
// CHECK-NEXT: %[[S3:.*]] = arith.muli %[[Q1]], %[[C6]] : index
// CHECK-NEXT: %[[Z:.*]] = arith.addi %[[Q0]], %[[S3]] : index
// CHECK-NEXT: %[[I:.*]] = arith.divui %[[Z]], %[[C4]] : index
// CHECK-NEXT: %[[J:.*]] = arith.remui %[[Z]], %[[C4]] : index
// CHECK-NEXT: return %[[I]], %[[J]]
func.func @group_by(%x: index) -> (index, index) {
  %o1 = lego.reg_p perm [0, 2, 1] dims [2, 3, 4] : !lego.layout
  %o2 = lego.col [4, 6] : !lego.layout
  %l = lego.group_by [6, 4](%o1, %o2) : !lego.layout
  %i, %j = lego.apply_inverse %l(%x) : !lego.layout -> index, index
  return %i, %j : index, index
}

// tile_by (without normalization): c⃗ = inv(L, x) — L = order_by(row [8, 12]): its one block keeps its remui
// by 96 — then each c_k splits into its levels (2, bm) and (4, 3); the result is level-major.
// CHECK-LABEL: func.func @tile_by
// CHECK-SAME: (%[[X:.*]]: index, %[[BM:.*]]: index)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C12:.*]] = arith.constant 12 : index
// CHECK-DAG: %[[C96:.*]] = arith.constant 96 : index
// CHECK: %[[IN:.*]] = arith.remui %[[X]], %[[C96]] : index
// CHECK-NEXT: %[[C0:.*]] = arith.divui %[[IN]], %[[C12]] : index
// CHECK-NEXT: %[[C1:.*]] = arith.remui %[[IN]], %[[C12]] : index
// CHECK-NEXT: %[[A0:.*]] = arith.divui %[[C0]], %[[BM]] : index
// CHECK-NEXT: %[[B0:.*]] = arith.remui %[[C0]], %[[BM]] : index
// CHECK-NEXT: %[[A1:.*]] = arith.divui %[[C1]], %[[C3]] : index
// CHECK-NEXT: %[[B1:.*]] = arith.remui %[[C1]], %[[C3]] : index
// CHECK-NEXT: return %[[A0]], %[[A1]], %[[B0]], %[[B1]]
func.func @tile_by(%x: index, %bm: index) -> (index, index, index, index) {
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2, 4], [%bm, 3]] : !lego.layout
  %i:4 = lego.apply_inverse %t(%x) : !lego.layout -> index, index, index, index
  return %i#0, %i#1, %i#2, %i#3 : index, index, index, index
}

// expand_by L dims n⃗ to m⃗: inv(L, flatten(unflatten(x, n⃗), m⃗)).
// CHECK-LABEL: func.func @expand_by
// CHECK-SAME: (%[[X:.*]]: index)
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[J0:.*]] = arith.divui %[[X]], %[[C5]] : index
// CHECK-NEXT: %[[J1:.*]] = arith.remui %[[X]], %[[C5]] : index
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[J0]], %[[C8]] : index
// CHECK-NEXT: %[[Y:.*]] = arith.addi %[[J1]], %[[S]] : index
// CHECK-NEXT: %[[I:.*]] = arith.divui %[[Y]], %[[C8]] : index
// CHECK-NEXT: %[[J:.*]] = arith.remui %[[Y]], %[[C8]] : index
// CHECK-NEXT: return %[[I]], %[[J]]
func.func @expand_by(%x: index) -> (index, index) {
  %r = lego.row [4, 8] : !lego.layout
  %e = lego.expand_by %r dims [3, 5] to [4, 8] : !lego.layout
  %i, %j = lego.apply_inverse %e(%x) : !lego.layout -> index, index
  return %i, %j : index, index
}
