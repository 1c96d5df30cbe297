// Finding 04: a lego op that did not start its line was not rewritten to the generic form, and MLIR's parser
// failed on it without a message (exit 1, nothing printed). MLIR allows several ops on a line; so do we.
// Bound: 60 s.
// RUN: %outcome --timeout 60 --expect ok -- lego-opt %s --allow-unregistered-dialect | FileCheck %s
// CHECK: outcome: ok
// CHECK-LABEL: func.func @f
// CHECK: %[[C:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[L0:.*]] = lego.row[4, 8] : !lego.layout
// CHECK-NEXT: %[[L1:.*]] = lego.order_by(%[[L0]]) : !lego.layout
// CHECK-NEXT: %[[A:.*]] = lego.apply %[[L1]](%[[C]], %[[C]]) : !lego.layout
// CHECK-NEXT: "test.op"() : () -> ()
// CHECK-NEXT: lego.assume_bounds %[[A]] ub : %[[C]]
func.func @f() -> index {
  %c = arith.constant 0 : index %l0 = lego.row [4, 8] : !lego.layout
  %l1 = lego.order_by(%l0) : !lego.layout %a = lego.apply %l1(%c, %c) : !lego.layout
  "test.op"() : () -> () lego.assume_bounds %a ub : %c
  return %a : index
}
