// lego-to-arith on `lego.apply`, one function per layout constructor: the flat index is built with
// affine.linearize_index / affine.delinearize_index (B / B⁻¹ of semantics.md) and arith; no lego op remains.
// RUN: lego-opt %s --lego-to-arith | FileCheck %s

// row [n⃗]: B(n⃗, i⃗). Literal sizes stay static in the basis, SSA sizes are operands.
// CHECK-LABEL: func.func @row
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[N:.*]]: index)
// CHECK-NEXT: %[[F:.*]] = affine.linearize_index disjoint [%[[I]], %[[J]]] by (4, %[[N]]) : index
// CHECK-NEXT: return %[[F]]
func.func @row(%i: index, %j: index, %n: index) -> index {
  %l = lego.row [4, %n] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// col [n⃗]: B(reversed n⃗, reversed i⃗).
// CHECK-LABEL: func.func @col
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[K:.*]]: index)
// CHECK-NEXT: %[[F:.*]] = affine.linearize_index disjoint [%[[K]], %[[J]], %[[I]]] by (2, 8, 4) : index
// CHECK-NEXT: return %[[F]]
func.func @col(%i: index, %j: index, %k: index) -> index {
  %l = lego.col [4, 8, 2] : !lego.layout
  %f = lego.apply %l(%i, %j, %k) : !lego.layout
  return %f : index
}

// reg_p perm σ dims n⃗: B(σ(n⃗), σ(i⃗)).
// CHECK-LABEL: func.func @reg_p
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[K:.*]]: index, %[[M:.*]]: index)
// CHECK-NEXT: %[[F:.*]] = affine.linearize_index disjoint [%[[J]], %[[K]], %[[I]]] by (%[[M]], 5, 3) : index
// CHECK-NEXT: return %[[F]]
func.func @reg_p(%i: index, %j: index, %k: index, %m: index) -> index {
  %l = lego.reg_p perm [1, 2, 0] dims [3, %m, 5] : !lego.layout
  %f = lego.apply %l(%i, %j, %k) : !lego.layout
  return %f : index
}

// gen_p: the apply region is inlined with its arguments bound to the indices.
// CHECK-LABEL: func.func @gen_p
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index)
// CHECK-NEXT: %[[C:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[R:.*]] = arith.subi %[[C]], %[[I]] : index
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[R]], %[[C]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[S]], %[[J]] : index
// CHECK-NEXT: return %[[F]]
func.func @gen_p(%i: index, %j: index) -> index {
  %l = lego.gen_p [4, 3] apply (%a: index, %b: index) {
    %c3 = arith.constant 3 : index
    %r = arith.subi %c3, %a : index
    %s = arith.muli %r, %c3 : index
    %f = arith.addi %s, %b : index
    lego.yield %f : index
  } : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// order_by(P1, P2): x = apply(P1, i⃗₁)·numel(P2) + apply(P2, i⃗₂). A symbolic numel is computed once, before
// the layout is built.
// CHECK-LABEL: func.func @order_by
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[K:.*]]: index, %[[N:.*]]: index)
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[NUMEL:.*]] = arith.muli %[[N]], %[[C2]] : index
// CHECK-NEXT: %[[P2:.*]] = affine.linearize_index disjoint [%[[K]], %[[J]]] by (2, %[[N]]) : index
// CHECK-NEXT: %[[F:.*]] = affine.linearize_index disjoint [%[[I]], %[[P2]]] by (3, %[[NUMEL]]) : index
// CHECK-NEXT: return %[[F]]
func.func @order_by(%i: index, %j: index, %k: index, %n: index) -> index {
  %a = lego.row [3] : !lego.layout
  %b = lego.col [%n, 2] : !lego.layout
  %l = lego.order_by(%a, %b) : !lego.layout
  %f = lego.apply %l(%i, %j, %k) : !lego.layout
  return %f : index
}

// group_by [g⃗](O1, O2): x = B(g⃗, i⃗), then the objects last to first: x = apply(O, B⁻¹(dims(O), x)).
// CHECK-LABEL: func.func @group_by
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index)
// CHECK-NEXT: %[[X:.*]] = affine.linearize_index disjoint [%[[I]], %[[J]]] by (6, 4) : index
// CHECK-NEXT: %[[U2:.*]]:2 = affine.delinearize_index %[[X]] into (4, 6) : index, index
// CHECK-NEXT: %[[X2:.*]] = affine.linearize_index disjoint [%[[U2]]#1, %[[U2]]#0] by (6, 4) : index
// CHECK-NEXT: %[[U1:.*]]:3 = affine.delinearize_index %[[X2]] into (2, 3, 4) : index, index, index
// CHECK-NEXT: %[[X1:.*]] = affine.linearize_index disjoint [%[[U1]]#0, %[[U1]]#2, %[[U1]]#1] by (2, 4, 3) : index
// CHECK-NEXT: return %[[X1]]
func.func @group_by(%i: index, %j: index) -> index {
  %o1 = lego.reg_p perm [0, 2, 1] dims [2, 3, 4] : !lego.layout
  %o2 = lego.col [4, 6] : !lego.layout
  %l = lego.group_by [6, 4](%o1, %o2) : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// tile_by L tile_dims [a⃗, b⃗]: c_k = B([a_k, b_k], [i¹_k, i²_k]), then apply(L, c⃗).
// CHECK-LABEL: func.func @tile_by
// CHECK-SAME: (%[[TI:.*]]: index, %[[TK:.*]]: index, %[[I:.*]]: index, %[[K:.*]]: index, %[[BM:.*]]: index)
// CHECK-NEXT: %[[C0:.*]] = affine.linearize_index disjoint [%[[TI]], %[[I]]] by (2, %[[BM]]) : index
// CHECK-NEXT: %[[C1:.*]] = affine.linearize_index disjoint [%[[TK]], %[[K]]] by (4, 3) : index
// CHECK-NEXT: %[[F:.*]] = affine.linearize_index disjoint [%[[C0]], %[[C1]]] by (8, 12) : index
// CHECK-NEXT: return %[[F]]
func.func @tile_by(%ti: index, %tk: index, %i: index, %k: index, %bm: index) -> index {
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2, 4], [%bm, 3]] : !lego.layout
  %f = lego.apply %t(%ti, %tk, %i, %k) : !lego.layout
  return %f : index
}

// expand_by L dims n⃗ to m⃗: x = apply(L, s⃗), j⃗ = B⁻¹(m⃗, x); B(n⃗, j⃗) if every j_k < n_k, else -1. The
// candidate B(n⃗, j⃗) carries no range assertion (no outer bound, no `disjoint`); dims equal to their
// expanded size need no comparison.
// CHECK-LABEL: func.func @expand_by
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index)
// CHECK-NEXT: %[[X:.*]] = affine.linearize_index disjoint [%[[I]], %[[J]]] by (4, 8) : index
// CHECK-NEXT: %[[U:.*]]:2 = affine.delinearize_index %[[X]] into (4, 8) : index, index
// CHECK-NEXT: %[[CAND:.*]] = affine.linearize_index [%[[U]]#0, %[[U]]#1] by (5) : index
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[IN0:.*]] = arith.cmpi ult, %[[U]]#0, %[[C3]] : index
// CHECK-NEXT: %[[C5:.*]] = arith.constant 5 : index
// CHECK-NEXT: %[[IN1:.*]] = arith.cmpi ult, %[[U]]#1, %[[C5]] : index
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[IN0]], %[[IN1]] : i1
// CHECK-NEXT: %[[NONE:.*]] = arith.constant -1 : index
// CHECK-NEXT: %[[F:.*]] = arith.select %[[IN]], %[[CAND]], %[[NONE]] : index
// CHECK-NEXT: return %[[F]]
func.func @expand_by(%i: index, %j: index) -> index {
  %r = lego.row [4, 8] : !lego.layout
  %e = lego.expand_by %r dims [3, 5] to [4, 8] : !lego.layout
  %f = lego.apply %e(%i, %j) : !lego.layout
  return %f : index
}

// A layout used several times (and inside scf.for): each use gets its own arithmetic, the layout ops go.
// CHECK-LABEL: func.func @reuse
// CHECK: scf.for
// CHECK: affine.linearize_index disjoint
// CHECK: affine.linearize_index disjoint
// CHECK-NOT: lego.
// CHECK: return
func.func @reuse(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l = lego.row [%n, 4] : !lego.layout
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %f = lego.apply %l(%i, %c1) : !lego.layout
    %g = lego.apply %l(%c0, %i) : !lego.layout
    %s = arith.addi %f, %g : index
    %t = arith.addi %acc, %s : index
    scf.yield %t : index
  }
  return %sum : index
}
