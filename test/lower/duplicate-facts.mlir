// Two lego.assume of the same condition (a user's fact stated twice, as the Python package's TileBy
// divisibility inference and a user constraint can): CSE merges the conditions, and lego-lower's clean-up used
// to erase the merged condition twice (a double free, seen with valgrind and as heap corruption in a
// long-running embedder). The facts are consumed and the arithmetic is the tiled apply.
// RUN: lego-opt %s --lego-lower | FileCheck %s

// CHECK-LABEL: func.func @twice
// CHECK-SAME: (%[[BM:.*]]: index, %[[M:.*]]: index, %[[P:.*]]: index, %[[I:.*]]: index)
// CHECK-NOT: lego.
// CHECK: %[[MUL:.*]] = arith.muli %[[P]], %[[BM]] : index
// CHECK: %[[ADD:.*]] = arith.addi %[[I]], %[[MUL]] : index
// CHECK: return %[[ADD]]
func.func @twice(%bm: index, %m: index, %p: index, %i: index) -> index {
  %c0 = arith.constant 0 : index
  %r1 = arith.remui %m, %bm : index
  %f1 = arith.cmpi eq, %r1, %c0 : index
  lego.assume %f1
  %r2 = arith.remui %m, %bm : index
  %f2 = arith.cmpi eq, %r2, %c0 : index
  lego.assume %f2
  %row = lego.row [%m] : !lego.layout
  %order = lego.order_by(%row) : !lego.layout
  %blocks = arith.divui %m, %bm : index
  %tiled = lego.tile_by %order tile_dims [[%blocks], [%bm]] : !lego.layout
  %flat = lego.apply %tiled(%p, %i) : !lego.layout
  return %flat : index
}
