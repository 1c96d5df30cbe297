// lego-normalization (docs/reference/lowering.md §1): row/col → reg_p, tile_by → identity shortcut or the normal form
// group_by [t](O, OB_mid, OB_fin), assume_bounds → signed cmpi + lego.assume; nothing else is folded.
// RUN: lego-opt %s --split-input-file --lego-normalization | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: lego-opt %s --split-input-file --lego-normalization > %t.once
// RUN: lego-opt %s --split-input-file --lego-normalization --lego-normalization > %t.twice
// RUN: diff %t.once %t.twice
// Also inside --pass-pipeline.
// RUN: lego-opt %s --split-input-file --pass-pipeline='builtin.module(lego-normalization)' | diff %t.once -
// The normalized layouts lower (values: the differential tests in passes/src/differential_tests.rs).
// RUN: lego-opt %s --split-input-file --lego-normalization --lego-to-arith | FileCheck %s --check-prefix=LOWERED
// LOWERED-NOT: lego.{{(row|col|reg_p|order_by|group_by|tile_by|apply|assume_bounds)}}

// row [n⃗] → reg_p perm [0, …, d-1]; col [n⃗] → reg_p perm [d-1, …, 0]; sizes stay literal or SSA as written.
// CHECK-LABEL: func.func @row_col
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[N:.*]]: index)
// CHECK-NEXT: %[[R:.*]] = lego.reg_p perm [0, 1] dims[4, %[[N]]] : !lego.layout
// CHECK-NEXT: %[[C:.*]] = lego.reg_p perm [2, 1, 0] dims[4, %[[N]], 2] : !lego.layout
// CHECK-NEXT: lego.apply %[[R]](%[[I]], %[[J]])
// CHECK-NEXT: lego.apply %[[C]](%[[I]], %[[J]], %[[I]])
func.func @row_col(%i: index, %j: index, %n: index) -> (index, index) {
  %r = lego.row [4, %n] : !lego.layout
  %c = lego.col [4, %n, 2] : !lego.layout
  %f = lego.apply %r(%i, %j) : !lego.layout
  %g = lego.apply %c(%i, %j, %i) : !lego.layout
  return %f, %g : index, index
}

// -----

// One block (d_o = 2, q_o = 1): σ_o = Σ(2, 1) = [0, 1], so OB_mid is the identity reg_p over dims(O) — emitted
// anyway; σ_t = Σ(2, 2) = [0, 2, 1, 3]. O itself is kept (its row became a reg_p).
// CHECK-LABEL: func.func @tile_by_one_block
// CHECK-NEXT: %[[P:.*]] = lego.reg_p perm [0, 1] dims[8, 12] : !lego.layout
// CHECK-NEXT: %[[O:.*]] = lego.order_by(%[[P]]) : !lego.layout
// CHECK-NEXT: %[[MID:.*]] = lego.reg_p perm [0, 1] dims[8, 12] : !lego.layout
// CHECK-NEXT: %[[OBMID:.*]] = lego.order_by(%[[MID]]) : !lego.layout
// CHECK-NEXT: %[[FIN:.*]] = lego.reg_p perm [0, 2, 1, 3] dims[2, 4, 4, 3] : !lego.layout
// CHECK-NEXT: %[[OBFIN:.*]] = lego.order_by(%[[FIN]]) : !lego.layout
// CHECK-NEXT: %[[G:.*]] = lego.group_by[2, 4, 4, 3] (%[[O]], %[[OBMID]], %[[OBFIN]]) : !lego.layout
// CHECK-NEXT: lego.apply %[[G]](
// CHECK-NOT: lego.tile_by
func.func @tile_by_one_block(%a: index, %b: index, %c: index, %d: index) -> index {
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2, 4], [4, 3]] : !lego.layout
  %f = lego.apply %t(%a, %b, %c, %d) : !lego.layout
  return %f : index
}

// -----

// Two blocks of rank 2 (docs/reference/semantics.md example 43): dims(O) = [2, 4, 3, 2] block-major; σ_o = Σ(2, 2) =
// [0, 2, 1, 3] (its own inverse), σ_o(dims O) = [2, 3, 4, 2]; OB_fin: Σ(2, 2) over t = [3, 2, 2, 4].
// CHECK-LABEL: func.func @tile_by_two_blocks
// CHECK-NEXT: %[[R:.*]] = lego.reg_p perm [0, 1] dims[2, 4] : !lego.layout
// CHECK-NEXT: %[[C:.*]] = lego.reg_p perm [1, 0] dims[3, 2] : !lego.layout
// CHECK-NEXT: %[[O:.*]] = lego.order_by(%[[R]], %[[C]]) : !lego.layout
// CHECK-NEXT: %[[MID:.*]] = lego.reg_p perm [0, 2, 1, 3] dims[2, 3, 4, 2] : !lego.layout
// CHECK-NEXT: %[[OBMID:.*]] = lego.order_by(%[[MID]]) : !lego.layout
// CHECK-NEXT: %[[FIN:.*]] = lego.reg_p perm [0, 2, 1, 3] dims[3, 2, 2, 4] : !lego.layout
// CHECK-NEXT: %[[OBFIN:.*]] = lego.order_by(%[[FIN]]) : !lego.layout
// CHECK-NEXT: lego.group_by[3, 2, 2, 4] (%[[O]], %[[OBMID]], %[[OBFIN]]) : !lego.layout
func.func @tile_by_two_blocks(%a: index, %b: index, %c: index, %d: index) -> index {
  %r = lego.row [2, 4] : !lego.layout
  %s = lego.col [3, 2] : !lego.layout
  %o = lego.order_by(%r, %s) : !lego.layout
  %t = lego.tile_by %o tile_dims [[3, 2], [2, 4]] : !lego.layout
  %f = lego.apply %t(%a, %b, %c, %d) : !lego.layout
  return %f : index
}

// -----

// d_o = 1, two blocks, four levels (example 153): σ_o = Σ(1, 2) = [0, 1], σ_t = Σ(1, 4) = [0, 1, 2, 3].
// CHECK-LABEL: func.func @tile_by_rank_one
// CHECK: %[[MID:.*]] = lego.reg_p perm [0, 1] dims[10, 20] : !lego.layout
// CHECK: %[[FIN:.*]] = lego.reg_p perm [0, 1, 2, 3] dims[2, 5, 5, 4] : !lego.layout
// CHECK: lego.group_by[2, 5, 5, 4] (
func.func @tile_by_rank_one(%a: index, %b: index, %c: index, %d: index) -> index {
  %r = lego.row [10] : !lego.layout
  %s = lego.col [20] : !lego.layout
  %o = lego.order_by(%r, %s) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2], [5], [5], [4]] : !lego.layout
  %f = lego.apply %t(%a, %b, %c, %d) : !lego.layout
  return %f : index
}

// -----

// Identity shortcut: every tile dim is the same value as the block dim (the same SSA value %n, equal literals):
// the tile_by is replaced by its input order_by.
// CHECK-LABEL: func.func @identity_shortcut
// CHECK-SAME: %[[N:[^:]*]]: index)
// CHECK-NEXT: %[[R:.*]] = lego.reg_p perm [0, 1] dims[%[[N]], 1] : !lego.layout
// CHECK-NEXT: %[[S:.*]] = lego.reg_p perm [0, 1] dims[8, 2] : !lego.layout
// CHECK-NEXT: %[[O:.*]] = lego.order_by(%[[R]], %[[S]]) : !lego.layout
// CHECK-NEXT: lego.apply %[[O]](
// CHECK-NOT: lego.group_by
func.func @identity_shortcut(%a: index, %b: index, %c: index, %n: index) -> index {
  %r = lego.row [%n, 1] : !lego.layout
  %s = lego.row [8, 2] : !lego.layout
  %o = lego.order_by(%r, %s) : !lego.layout
  %t = lego.tile_by %o tile_dims [[%n, 1], [8, 2]] : !lego.layout
  %f = lego.apply %t(%a, %b, %c, %a) : !lego.layout
  return %f : index
}

// -----

// Twin: a different SSA value (%m, equal to %n or not) is not "the same value": the normal form is built.
// CHECK-LABEL: func.func @not_identity
// CHECK-SAME: %[[N:[^:]*]]: index, %[[M:[^:]*]]: index)
// CHECK: lego.reg_p perm [0, 1] dims[%[[N]], 8] : !lego.layout
// CHECK: lego.reg_p perm [0, 1] dims[%[[M]], 8] : !lego.layout
// CHECK: lego.group_by[%[[M]], 8] (
func.func @not_identity(%a: index, %b: index, %n: index, %m: index) -> index {
  %r = lego.row [%n] : !lego.layout
  %s = lego.row [8] : !lego.layout
  %o = lego.order_by(%r, %s) : !lego.layout
  %t = lego.tile_by %o tile_dims [[%m], [8]] : !lego.layout
  %f = lego.apply %t(%a, %b) : !lego.layout
  return %f : index
}

// -----

// order_by / group_by stay as written (no flattening, no identity objects dropped); reg_p / gen_p untouched.
// CHECK-LABEL: func.func @no_folds
// CHECK-NEXT: %[[P:.*]] = lego.reg_p perm [1, 0] dims[2, 2] : !lego.layout
// CHECK-NEXT: %[[Q:.*]] = lego.reg_p perm [1, 0] dims[3, 2] : !lego.layout
// CHECK-NEXT: %[[IN:.*]] = lego.order_by(%[[P]], %[[Q]]) : !lego.layout
// CHECK-NEXT: %[[SINGLE:.*]] = lego.order_by(%[[IN]]) : !lego.layout
// CHECK-NEXT: %[[ID:.*]] = lego.reg_p perm [0, 1] dims[6, 4] : !lego.layout
// CHECK-NEXT: %[[G1:.*]] = lego.group_by[24] (%[[SINGLE]], %[[ID]]) : !lego.layout
// CHECK-NEXT: %[[G2:.*]] = lego.group_by[6, 4] (%[[G1]]) : !lego.layout
// CHECK-NEXT: lego.apply %[[G2]](
func.func @no_folds(%i: index, %j: index) -> index {
  %p = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout
  %q = lego.col [3, 2] : !lego.layout
  %inner = lego.order_by(%p, %q) : !lego.layout
  %single = lego.order_by(%inner) : !lego.layout
  %id = lego.row [6, 4] : !lego.layout
  %g1 = lego.group_by [24](%single, %id) : !lego.layout
  %g2 = lego.group_by [6, 4](%g1) : !lego.layout
  %f = lego.apply %g2(%i, %j) : !lego.layout
  return %f : index
}

// -----

// assume_bounds → signed cmpi + lego.assume per present part, lower bound first; the assume_bounds is erased.
// CHECK-LABEL: func.func @assume_bounds
// CHECK-SAME: (%[[V:[^:]*]]: index, %[[A:[^:]*]]: index, %[[B:[^:]*]]: index)
// CHECK-NEXT: %[[P:.*]] = arith.cmpi sge, %[[V]], %[[A]] : index
// CHECK-NEXT: lego.assume %[[P]]
// CHECK-NEXT: %[[Q:.*]] = arith.cmpi slt, %[[V]], %[[B]] : index
// CHECK-NEXT: lego.assume %[[Q]]
// CHECK-NEXT: %[[U:.*]] = arith.cmpi slt, %[[A]], %[[B]] : index
// CHECK-NEXT: lego.assume %[[U]]
// CHECK-NEXT: %[[L:.*]] = arith.cmpi sge, %[[B]], %[[V]] : index
// CHECK-NEXT: lego.assume %[[L]]
// CHECK-NEXT: return
// CHECK-NOT: lego.assume_bounds
func.func @assume_bounds(%v: index, %a: index, %b: index) {
  lego.assume_bounds %v lb : %a ub : %b
  lego.assume_bounds %a ub : %b
  lego.assume_bounds %b lb : %v
  return
}

// -----

// expand_by to the same dims is its input; a real expansion and gen_p are kept. Unused layout ops are erased
// (§0 cleanup).
// CHECK-LABEL: func.func @expand_and_dead
// CHECK-NEXT: %[[G:.*]] = lego.gen_p[4] apply
// CHECK: %[[E:.*]] = lego.expand_by %[[G]] dims [3] to [4] : !lego.layout
// CHECK-NEXT: lego.apply %[[E]](
// CHECK-NEXT: return
func.func @expand_and_dead(%i: index) -> index {
  %unused = lego.row [4] : !lego.layout
  %ad = lego.gen_p [4] apply (%a: index) {
    lego.yield %a : index
  } : !lego.layout
  %same = lego.expand_by %ad dims [4] to [4] : !lego.layout
  %e = lego.expand_by %same dims [3] to [4] : !lego.layout
  %f = lego.apply %e(%i) : !lego.layout
  return %f : index
}
