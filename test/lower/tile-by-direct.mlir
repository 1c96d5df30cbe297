// tile_by's direct lowering (lego-to-arith, lego-lower; docs/reference/semantics.md): the inner layout's own dims are the
// strides — (pm·BM + i)·K + pk·BK + k — never the tile counts M/BM, K/BK; and the identity shortcut passes
// the indices through with no division or remainder.
// RUN: lego-opt %s --lego-to-arith | FileCheck %s --check-prefixes=CHECK,ARITH
// RUN: lego-opt %s --lego-lower | FileCheck %s --check-prefixes=CHECK,LOWER

// Paper Table I: tile_by (order_by(row [M, K])) tile_dims [[M/BM, K/BK], [BM, BK]], all sizes symbolic
// (%arg4 = M, %arg5 = K, %arg6 = M/BM, %arg7 = K/BK, %arg8 = BM, %arg9 = BK). The tile counts are never used
// in the arithmetic (lego-to-arith's affine.linearize_index may name them as its outer bound, an assertion).
// CHECK-LABEL: func.func @table_one(
// CHECK-SAME: -> index {
// CHECK-NOT: divui
// CHECK-NOT: remui
// LOWER-NOT: %arg6
// LOWER-NOT: %arg7
// LOWER: %[[A:.*]] = arith.muli %arg0, %arg8 : index
// LOWER-NEXT: %[[B:.*]] = arith.addi %arg2, %[[A]] : index
// LOWER-NEXT: %[[D:.*]] = arith.muli %arg1, %arg9 : index
// LOWER-NEXT: %[[E:.*]] = arith.addi %arg3, %[[D]] : index
// LOWER-NEXT: %[[C:.*]] = arith.muli %[[B]], %arg5 : index
// LOWER-NEXT: %[[F:.*]] = arith.addi %[[E]], %[[C]] : index
// LOWER-NEXT: return %[[F]] : index
// ARITH: return
func.func @table_one(%pm: index, %pk: index, %i: index, %k: index, %m: index, %kk: index,
                     %mb: index, %kb: index, %bm: index, %bk: index) -> index {
  %r = lego.row [%m, %kk] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %t = lego.tile_by %o tile_dims [[%mb, %kb], [%bm, %bk]] : !lego.layout
  %f = lego.apply %t(%pm, %pk, %i, %k) : !lego.layout
  return %f : index
}

// Identity shortcut (the same SSA value %arg2 and equal literals): apply(O, i, j) = i·8 + j, no div/rem.
// CHECK-LABEL: func.func @identity_shortcut(
// CHECK-SAME: -> index {
// CHECK-NOT: divui
// CHECK-NOT: remui
// CHECK-NOT: delinearize
// CHECK-NOT: shrui
// CHECK-NOT: andi
// CHECK: return
func.func @identity_shortcut(%i: index, %j: index, %n: index) -> index {
  %r = lego.row [%n] : !lego.layout
  %c = lego.col [8] : !lego.layout
  %o = lego.order_by(%r, %c) : !lego.layout
  %t = lego.tile_by %o tile_dims [[%n], [8]] : !lego.layout
  %f = lego.apply %t(%i, %j) : !lego.layout
  return %f : index
}

// Twin: a different SSA value (%arg3) for the tile dim is not the shortcut: lego-to-arith splits the coordinate
// over the blocks' dims (lego-lower's simplifier then proves the split away: c = i·8 + j with j < 8).
// CHECK-LABEL: func.func @not_identity(
// ARITH: arith.divui
// CHECK: return
func.func @not_identity(%i: index, %j: index, %n: index, %m: index) -> index {
  %r = lego.row [%n] : !lego.layout
  %c = lego.col [8] : !lego.layout
  %o = lego.order_by(%r, %c) : !lego.layout
  %t = lego.tile_by %o tile_dims [[%m], [8]] : !lego.layout
  %f = lego.apply %t(%i, %j) : !lego.layout
  return %f : index
}
