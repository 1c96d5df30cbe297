// After lego-to-arith no lego op remains except check / assume / assert ops (and the layouts that the
// assert ops refer to); dead layout ops and cast_views are erased, also ones that were never used.
// RUN: lego-opt %s --lego-to-arith | FileCheck %s

// CHECK-LABEL: func.func @dead_layouts
// CHECK-NOT: lego.
// CHECK: return
func.func @dead_layouts(%m: memref<8xf32>, %n: index) {
  %r = lego.row [2, %n] : !lego.layout
  %c = lego.col [4, 2] : !lego.layout
  %o = lego.order_by(%r, %c) : !lego.layout
  %g = lego.group_by [8](%c) : !lego.layout
  %v = lego.cast_view %m, %g : memref<8xf32>, !lego.layout -> !lego.view<f32>
  return
}

// CHECK-LABEL: func.func @kept_for_checks
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[TID:.*]]: index {lego.thread_id})
// CHECK: %[[L:.*]] = lego.row[4, 8] : !lego.layout
// CHECK-NEXT: lego.assert_apply_bounds %[[L]](%[[I]], %[[J]]) : !lego.layout
// CHECK-NEXT: %[[F:.*]] = affine.linearize_index disjoint [%[[I]], %[[J]]] by (4, 8) : index
// CHECK-NEXT: %[[C:.*]] = arith.cmpi ult, %[[F]], %{{.*}} : index
// CHECK-NEXT: lego.assume %[[C]]
// CHECK-NEXT: lego.assume_bounds %[[F]] lb : %{{.*}} ub : %{{.*}}
// CHECK-NEXT: lego.check %[[F]] {coalescing}
// CHECK-NEXT: return %[[F]]
func.func @kept_for_checks(%i: index, %j: index, %tid: index {lego.thread_id}) -> index {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %l = lego.row [4, 8] : !lego.layout
  lego.assert_apply_bounds %l(%i, %j) : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  %c = arith.cmpi ult, %f, %c32 : index
  lego.assume %c
  lego.assume_bounds %f lb : %c0 ub : %c32
  lego.check %f {coalescing}
  return %f : index
}
