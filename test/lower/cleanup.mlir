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
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[J]], %[[S]] : index
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

// docs/reference/lowering.md §0: the pass ends like MLIR's greedy driver. The gen_p body's own `4` and the function's
// `4` become one constant hoisted to the entry block (no %c4_0), `muli x, 1` folds away, and the unused
// `col` layout (a pure lego op) is erased. apply(row [4, 4], (i, j)) = j + i·4; the gen_p (j, i) ↦ j·4 + i.
// CHECK-LABEL: func.func @greedy_cleanup
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index)
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NOT: arith.constant
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[I]], %[[C4]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[J]], %[[S]] : index
// CHECK-NEXT: %[[T:.*]] = arith.muli %[[J]], %[[C4]] : index
// CHECK-NEXT: %[[H:.*]] = arith.addi %[[T]], %[[I]] : index
// CHECK-NEXT: return %[[F]], %[[H]]
func.func @greedy_cleanup(%i: index, %j: index) -> (index, index) {
  %c4 = arith.constant 4 : index
  %l = lego.row [%c4, 4] : !lego.layout
  %g = lego.gen_p [4, 4] apply (%a: index, %b: index) {
    %c4_0 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %m = arith.muli %a, %c4_0 : index
    %m1 = arith.muli %m, %c1 : index
    %s = arith.addi %m1, %b : index
    lego.yield %s : index
  } : !lego.layout
  %unused = lego.col [2, 2] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  %h = lego.apply %g(%j, %i) : !lego.layout
  return %f, %h : index, index
}
