// docs/reference/semantics.md's tile_by worked examples (153, 26414, 43, inverse (3, 0)) through every lowering path, with
// constant inputs: after canonicalization each function returns the reference's constants. (Each is also checked
// exhaustively as a bijection in crates/lego-algebra/src/tests.rs, and random multi-block tilings are checked
// pointwise by passes/src/differential_tests.rs.)
// RUN: lego-opt %s --lego-to-arith --canonicalize | FileCheck %s
// RUN: lego-opt %s --lego-normalization --lego-to-arith --canonicalize | FileCheck %s
// RUN: lego-opt %s --lego-lower | FileCheck %s

// order_by(row [10], col [20]) tiled [[2], [5], [5], [4]]: d = 1 (the first block's rank), two blocks.
// apply(1, 2, 3, 1): c = B([2,5,5,4], (1,2,3,1)) = 153; split over [10, 20] → (7, 13); 7·20 + 13 = 153.
// inverse(7) = (0, 0, 1, 3).
// CHECK-LABEL: func.func @two_blocks_rank_one
// CHECK-DAG: %[[C153:.*]] = arith.constant 153 : index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NOT: lego.
// CHECK: return %[[C153]], %[[C0]], %[[C0]], %[[C1]], %[[C3]] : index, index, index, index, index
func.func @two_blocks_rank_one() -> (index, index, index, index, index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %r = lego.row [10] : !lego.layout
  %c = lego.col [20] : !lego.layout
  %o = lego.order_by(%r, %c) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2], [5], [5], [4]] : !lego.layout
  %f = lego.apply %t(%c1, %c2, %c3, %c1) : !lego.layout
  %a, %b, %d, %e = lego.apply_inverse %t(%c7) : !lego.layout -> index, index, index, index
  return %f, %a, %b, %d, %e : index, index, index, index, index
}

// Identity shortcut: order_by(row [6,6,6], row [8,8,8]) tiled [[6,6,6], [8,8,8]]:
// apply(1,2,3,4,5,6) = row[6,6,6](1,2,3)·512 + row[8,8,8](4,5,6) = 51·512 + 302 = 26414.
// CHECK-LABEL: func.func @identity_shortcut
// CHECK: %[[V:.*]] = arith.constant 26414 : index
// CHECK-NOT: lego.
// CHECK: return %[[V]] : index
func.func @identity_shortcut() -> index {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %r = lego.row [6, 6, 6] : !lego.layout
  %s = lego.row [8, 8, 8] : !lego.layout
  %o = lego.order_by(%r, %s) : !lego.layout
  %t = lego.tile_by %o tile_dims [[6, 6, 6], [8, 8, 8]] : !lego.layout
  %f = lego.apply %t(%c1, %c2, %c3, %c4, %c5, %c6) : !lego.layout
  return %f : index
}

// Multi-block split: order_by(row [2,4], row [3,2]) tiled [[3,2], [2,4]]: apply(1,1,1,3): c = (3, 7);
// 3 over [2,3] → (1, 0); 7 over [4,2] → (3, 1); row[2,4](1,3)·6 + row[3,2](0,1) = 7·6 + 1 = 43;
// inverse(43) = (1, 1, 1, 3).
// CHECK-LABEL: func.func @multi_block_split
// CHECK-DAG: %[[C43:.*]] = arith.constant 43 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NOT: lego.
// CHECK: return %[[C43]], %[[C1]], %[[C1]], %[[C1]], %[[C3]] : index, index, index, index, index
func.func @multi_block_split() -> (index, index, index, index, index) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c43 = arith.constant 43 : index
  %r = lego.row [2, 4] : !lego.layout
  %s = lego.row [3, 2] : !lego.layout
  %o = lego.order_by(%r, %s) : !lego.layout
  %t = lego.tile_by %o tile_dims [[3, 2], [2, 4]] : !lego.layout
  %f = lego.apply %t(%c1, %c1, %c1, %c3) : !lego.layout
  %a, %b, %d, %e = lego.apply_inverse %t(%c43) : !lego.layout -> index, index, index, index
  return %f, %a, %b, %d, %e : index, index, index, index, index
}

// Triton's grouped program-id remap (GM = 2): order_by(col [2,1], col [2,3]) tiled [[4, 3]]:
// inverse(7) = (3, 0); apply(3, 0) = 7.
// CHECK-LABEL: func.func @triton_grouped_pid
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C7:.*]] = arith.constant 7 : index
// CHECK-NOT: lego.
// CHECK: return %[[C3]], %[[C0]], %[[C7]] : index, index, index
func.func @triton_grouped_pid() -> (index, index, index) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %a = lego.col [2, 1] : !lego.layout
  %b = lego.col [2, 3] : !lego.layout
  %o = lego.order_by(%a, %b) : !lego.layout
  %t = lego.tile_by %o tile_dims [[4, 3]] : !lego.layout
  %i, %j = lego.apply_inverse %t(%c7) : !lego.layout -> index, index
  %f = lego.apply %t(%c3, %c0) : !lego.layout
  return %i, %j, %f : index, index, index
}
