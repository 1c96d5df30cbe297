// Found while making the layout walks iterative: in a graph region (here an unregistered op's) layout ops can
// name each other in a cycle; lego-normalization and lego-lower then overflowed the stack and lego-to-arith
// hung. The verifier rejects a cyclic layout, and every layout built from one, at parse time. Bound: 60 s.
// RUN: %outcome --timeout 60 --expect error -- lego-opt %s --allow-unregistered-dialect --lego-lower | FileCheck %s
// CHECK: outcome: error
"test.graph"() ({
  // CHECK: cyclic-layouts.mlir:[[@LINE+1]]:8: error: 'lego.order_by' op layout is defined in terms of itself (a cycle of layout ops)
  %a = "lego.order_by"(%b) : (!lego.layout) -> !lego.layout
  // CHECK: cyclic-layouts.mlir:[[@LINE+1]]:8: error: 'lego.order_by' op layout is defined in terms of itself
  %b = "lego.order_by"(%a) : (!lego.layout) -> !lego.layout
  // CHECK: cyclic-layouts.mlir:[[@LINE+1]]:8: error: 'lego.group_by' op layout is defined in terms of itself
  %c = "lego.group_by"(%c) {operandSegmentSizes = array<i32: 0, 1>, static_dims = array<i64: 4>} : (!lego.layout) -> !lego.layout
  %i = "test.index"() : () -> index
  // CHECK: cyclic-layouts.mlir:[[@LINE+1]]:8: error: 'lego.tile_by' op layout is defined in terms of itself
  %t = lego.tile_by %a tile_dims [[2]] : !lego.layout
  // A layout that does not depend on the cycle is fine.
  // CHECK-NOT: error
  %r = lego.row [4] : !lego.layout
  %x = lego.apply %b(%i) : !lego.layout
  %y = lego.apply %c(%i) : !lego.layout
  %z = lego.apply %t(%i) : !lego.layout
  %v = lego.apply %r(%i) : !lego.layout
  "test.use"(%x, %y, %z, %v) : (index, index, index, index) -> ()
}) : () -> ()
