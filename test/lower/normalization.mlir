// lego-normalization: row/col/tile_by desugared into reg_p/order_by/group_by, identity pieces folded.
// RUN: lego-opt %s --lego-normalization | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: lego-opt %s --lego-normalization > %t.once
// RUN: lego-opt %s --lego-normalization --lego-normalization > %t.twice
// RUN: diff %t.once %t.twice
// Also inside --pass-pipeline.
// RUN: lego-opt %s --pass-pipeline='builtin.module(lego-normalization)' | diff %t.once -
// The normalized layouts lower to the same values (checked exhaustively by the differential test in
// passes/src/differential_tests.rs); here: no lego op is left after lowering.
// RUN: lego-opt %s --lego-normalization --lego-to-arith | FileCheck %s --check-prefix=LOWERED
// LOWERED-NOT: lego.

// row [n⃗] → reg_p perm [0, …, d-1]; col [n⃗] → reg_p perm [d-1, …, 0]; sizes stay literal or SSA as written.
// CHECK-LABEL: func.func @row_col
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[N:.*]]: index)
// CHECK-NEXT: %[[R:.*]] = lego.reg_p perm [0, 1] dims [4, %[[N]]] : !lego.layout
// CHECK-NEXT: %[[C:.*]] = lego.reg_p perm [2, 1, 0] dims [4, %[[N]], 2] : !lego.layout
// CHECK-NEXT: lego.apply %[[R]](%[[I]], %[[J]])
// CHECK-NEXT: lego.apply %[[C]](%[[I]], %[[J]], %[[I]])
func.func @row_col(%i: index, %j: index, %n: index) -> (index, index) {
  %r = lego.row [4, %n] : !lego.layout
  %c = lego.col [4, %n, 2] : !lego.layout
  %f = lego.apply %r(%i, %j) : !lego.layout
  %g = lego.apply %c(%i, %j, %i) : !lego.layout
  return %f, %g : index, index
}

// tile_by L tile_dims [a⃗, b⃗] → group_by [a⃗, b⃗](L, order_by(reg_p perm σ dims [a⃗, b⃗])), σ = [0, 2, 1, 3];
// here L = order_by(row [8, 12]) is the identity, so it is dropped, and the group's single object has the
// group's dims: what is left is the reg_p (apply(ti, tk, i, k) = B([2,4,4,3], (ti,i,tk,k))).
// CHECK-LABEL: func.func @tile_by
// CHECK-NEXT: %[[L:.*]] = lego.reg_p perm [0, 2, 1, 3] dims [2, 4, 4, 3] : !lego.layout
// CHECK-NEXT: lego.apply %[[L]](
// CHECK-NOT: lego.row
// CHECK-NOT: lego.order_by
// CHECK-NOT: lego.tile_by
func.func @tile_by(%a: index, %b: index, %c: index, %d: index) -> index {
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2, 4], [4, 3]] : !lego.layout
  %f = lego.apply %t(%a, %b, %c, %d) : !lego.layout
  return %f : index
}

// Three dims, two levels: σ = [0, 3, 1, 4, 2, 5]; the inner layout is kept as the last-applied object.
// CHECK-LABEL: func.func @tile_by_general
// CHECK-SAME: %[[M:[^:]*]]: index)
// CHECK-NEXT: %[[C:.*]] = lego.reg_p perm [1, 0] dims [8, %[[M]]] : !lego.layout
// CHECK-NEXT: %[[U:.*]] = lego.reg_p perm [0] dims [1] : !lego.layout
// CHECK-NEXT: %[[IN:.*]] = lego.order_by(%[[C]], %[[U]]) : !lego.layout
// CHECK-NEXT: %[[S:.*]] = lego.reg_p perm [0, 3, 1, 4, 2, 5] dims [2, 4, 1, 4, 3, 1] : !lego.layout
// CHECK-NEXT: %[[G:.*]] = lego.group_by [2, 4, 1, 4, 3, 1](%[[IN]], %[[S]]) : !lego.layout
// CHECK-NEXT: lego.apply %[[G]](
func.func @tile_by_general(%a: index, %b: index, %c: index, %d: index, %m: index) -> index {
  %r = lego.col [8, %m] : !lego.layout
  %p = lego.reg_p perm [0] dims [1] : !lego.layout
  %o = lego.order_by(%r, %p) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2, 4, 1], [4, 3, 1]] : !lego.layout
  %f = lego.apply %t(%a, %b, %c, %d, %a, %b) : !lego.layout
  return %f : index
}

// Folds: nested order_by flattened; identity objects (row) dropped from group_by; a group_by object that
// is itself a group_by spliced in; expand_by to the same dims removed.
// CHECK-LABEL: func.func @folds
// CHECK-NEXT: %[[P:.*]] = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout
// CHECK-NEXT: %[[Q:.*]] = lego.reg_p perm [1, 0] dims [3, 2] : !lego.layout
// CHECK-NEXT: %[[IN:.*]] = lego.order_by(%[[P]], %[[Q]]) : !lego.layout
// CHECK-NEXT: %[[NEST:.*]] = lego.order_by(%[[P]], %[[Q]], %[[P]]) : !lego.layout
// CHECK-NEXT: %[[G:.*]] = lego.group_by [6, 4](%[[IN]]) : !lego.layout
// CHECK-NEXT: lego.apply %[[G]](
// CHECK-NEXT: lego.apply %[[NEST]](
func.func @folds(%i: index, %j: index) -> index {
  %p = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout
  %q = lego.col [3, 2] : !lego.layout
  %inner = lego.order_by(%p, %q) : !lego.layout
  %nested = lego.order_by(%inner, %p) : !lego.layout
  %id = lego.row [6, 4] : !lego.layout
  %g1 = lego.group_by [24](%inner, %id) : !lego.layout
  %g2 = lego.group_by [6, 4](%g1) : !lego.layout
  %e = lego.expand_by %g2 dims [6, 4] to [6, 4] : !lego.layout
  %f = lego.apply %e(%i, %j) : !lego.layout
  %n = lego.apply %nested(%i, %j, %i, %j, %i, %j) : !lego.layout
  %s = arith.addi %f, %n : index
  return %s : index
}

// Unused layouts are erased (lowering-form.md §0: every unused pure lego op); expand_by with a real
// expansion and gen_p are already core ops.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: lego.reg_p
// CHECK-NOT: lego.row
// CHECK: %[[G:.*]] = lego.gen_p [4] apply
// CHECK: %[[E:.*]] = lego.expand_by %[[G]] dims [3] to [4] : !lego.layout
// CHECK-NEXT: lego.apply %[[E]](
func.func @kept(%i: index) -> index {
  %unused = lego.row [4] : !lego.layout
  %ad = lego.gen_p [4] apply (%a: index) {
    lego.yield %a : index
  } : !lego.layout
  %e = lego.expand_by %ad dims [3] to [4] : !lego.layout
  %f = lego.apply %e(%i) : !lego.layout
  return %f : index
}
