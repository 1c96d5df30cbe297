// lego.swizzle (docs/ops/swizzle.md): custom form ⇄ generic form, printed spelling, round trip.
// RUN: lego-opt %s | FileCheck %s
// RUN: lego-opt %s | lego-opt | FileCheck %s
// RUN: lego-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: lego-opt %s --mlir-print-op-generic | lego-opt | FileCheck %s
// RUN: lego-opt %s > %t.1 && lego-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK-LABEL: func.func @alone
// CHECK: %[[S:.*]] = lego.swizzle bits 3 base 4 shift 3 dims[2048] : !lego.layout
// CHECK: lego.apply %[[S]](%{{.*}}) : !lego.layout
// GENERIC-LABEL: sym_name = "alone"
// GENERIC: "lego.swizzle"() {static_dims = array<i64: 2048>, swizzle = array<i64: 3, 4, 3>} : () -> !lego.layout
func.func @alone(%i: index) -> index {
  %s = lego.swizzle bits 3 base 4 shift 3 dims [2048] : !lego.layout
  %f = lego.apply %s(%i) : !lego.layout
  return %f : index
}

// Symbolic and literal sizes mixed, several dims, in a group_by and a tile_by chain; any spacing parses.
// CHECK-LABEL: func.func @pieces
// CHECK: %[[S:.*]] = lego.swizzle bits 2 base 0 shift 2 dims[%{{.*}}, 4] : !lego.layout
// CHECK: lego.group_by[4, 4] (%[[S]]) : !lego.layout
// CHECK: %[[T:.*]] = lego.swizzle bits 1 base 0 shift 1 dims[4, 4] : !lego.layout
// CHECK: %[[O:.*]] = lego.order_by(%[[T]]) : !lego.layout
// CHECK: lego.tile_by %[[O]] tile_dims {{\[\[}}2, 2], [2, 2]] : !lego.layout
// GENERIC-LABEL: sym_name = "pieces"
// GENERIC: "lego.swizzle"(%{{.*}}) {static_dims = array<i64: -9223372036854775808, 4>, swizzle = array<i64: 2, 0, 2>} : (index) -> !lego.layout
func.func @pieces(%n: index, %i: index, %j: index) -> (index, index) {
  %s = lego.swizzle bits 2 base 0 shift 2 dims[%n, 4] : !lego.layout
  %g = lego.group_by [4, 4](%s) : !lego.layout
  %a = lego.apply %g(%i, %j) : !lego.layout
  %t = lego.swizzle   bits 1   base 0 shift 1 dims  [4, 4] : !lego.layout
  %o = lego.order_by(%t) : !lego.layout
  %tiled = lego.tile_by %o tile_dims [[2, 2], [2, 2]] : !lego.layout
  %b = lego.apply %tiled(%i, %j, %i, %j) : !lego.layout
  return %a, %b : index, index
}
