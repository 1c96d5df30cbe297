// Twin of size-overflow.mlir: layouts of up to 2^63 - 1 elements verify and lower as before.
// RUN: lego-opt %s --verify-diagnostics --lego-lower | FileCheck %s

// 2^31 · 2^31 = 2^62 elements: apply(i, j) = i · 2^31 + j.
// CHECK-LABEL: func.func @row_2_62
// CHECK: %[[C31:.*]] = arith.constant 31 : index
// CHECK: %[[S:.*]] = arith.shli %arg0, %[[C31]] : index
// CHECK: %[[F:.*]] = arith.addi %arg1, %[[S]] : index
// CHECK: return %[[F]]
func.func @row_2_62(%i: index, %j: index) -> index {
  %r = lego.row [2147483648, 2147483648] : !lego.layout
  %f = lego.apply %r(%i, %j) : !lego.layout
  return %f : index
}

// Exactly 2^63 - 1 elements: the identity.
// CHECK-LABEL: func.func @row_max
// CHECK-NEXT: return %arg0
func.func @row_max(%i: index) -> index {
  %r = lego.row [9223372036854775807] : !lego.layout
  %f = lego.apply %r(%i) : !lego.layout
  return %f : index
}

// order_by(row [2^62], col [1]): 2^62 elements; apply(i, j) = i · 1 + j.
// CHECK-LABEL: func.func @order_by_2_62
// CHECK: %[[F:.*]] = arith.addi %arg0, %arg1 : index
// CHECK: return %[[F]]
func.func @order_by_2_62(%i: index, %j: index) -> index {
  %a = lego.row [4611686018427387904] : !lego.layout
  %b = lego.col [1] : !lego.layout
  %o = lego.order_by(%a, %b) : !lego.layout
  %f = lego.apply %o(%i, %j) : !lego.layout
  return %f : index
}

// group_by [2^62, 1] of a 2^62-element object: apply(i, j) = i + j.
// CHECK-LABEL: func.func @group_by_2_62
// CHECK: arith.addi
// CHECK: return
func.func @group_by_2_62(%i: index, %j: index) -> index {
  %r = lego.row [4611686018427387904] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %g = lego.group_by [4611686018427387904, 1](%o) : !lego.layout
  %f = lego.apply %g(%i, %j) : !lego.layout
  return %f : index
}

// Symbolic sizes are the run-time contract's (their product must stay below 2^63): accepted.
// CHECK-LABEL: func.func @symbolic
// CHECK: arith.muli %arg2, %arg1
func.func @symbolic(%n: index, %m: index, %i: index, %j: index) -> index {
  %r = lego.row [%n, %m] : !lego.layout
  %f = lego.apply %r(%i, %j) : !lego.layout
  return %f : index
}
