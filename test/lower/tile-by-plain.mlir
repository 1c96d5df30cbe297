// lego.tile_by whose input is a plain row / col (not an order_by) is an order_by of that one block (semantics.md:
// d_o = its rank, q_o = 1), as in the published tool. Expected values by hand from semantics.md worked example 3:
// row [8, 12] tiled [[2, 4], [4, 3]]: apply(a, b, c, d) = (a·4 + c)·12 + b·3 + d; col [8, 12] tiled the same:
// apply(1, 2, 3, 1) = col[8,12](7, 7) = 7·8 + 7 = 63, and its inverse gives (1, 2, 3, 1) back.
// The twin (a group_by input, still refused) is in test/dialect/invalid.mlir.
// RUN: lego-opt %s --lego-lower | FileCheck %s

// CHECK-LABEL: func.func @row_input
// CHECK-DAG: %[[C12:.*]] = arith.constant 12 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[A4:.*]] = arith.shli %arg0, %[[C2]] : index
// CHECK: %[[R:.*]] = arith.addi %arg2, %[[A4]] : index
// CHECK: %[[B3:.*]] = arith.muli %arg1, %[[C3]] : index
// CHECK: %[[K:.*]] = arith.addi %arg3, %[[B3]] : index
// CHECK: %[[S:.*]] = arith.muli %[[R]], %[[C12]] : index
// CHECK: %[[F:.*]] = arith.addi %[[K]], %[[S]] : index
// CHECK: return %[[F]] : index
func.func @row_input(%a: index, %b: index, %c: index, %d: index) -> index {
  %r = lego.row [8, 12] : !lego.layout
  %t = lego.tile_by %r tile_dims [[2, 4], [4, 3]] : !lego.layout
  %f = lego.apply %t(%a, %b, %c, %d) : !lego.layout
  return %f : index
}

// CHECK-LABEL: func.func @col_input
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C63:.*]] = arith.constant 63 : index
// CHECK: return %[[C63]], %[[C1]], %[[C2]], %[[C3]], %[[C1]] : index, index, index, index, index
func.func @col_input() -> (index, index, index, index, index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c = lego.col [8, 12] : !lego.layout
  %t = lego.tile_by %c tile_dims [[2, 4], [4, 3]] : !lego.layout
  %f = lego.apply %t(%c1, %c2, %c3, %c1) : !lego.layout
  %i:4 = lego.apply_inverse %t(%f) : !lego.layout -> index, index, index, index
  return %f, %i#0, %i#1, %i#2, %i#3 : index, index, index, index, index
}
