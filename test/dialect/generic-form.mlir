// --mlir-print-op-generic prints lego ops exactly as docs/generic-form.md says (gen_p regions end in
// smt.yield), and that generic text is accepted as input.
// RUN: lego-opt %s --mlir-print-op-generic | FileCheck %s
// RUN: lego-opt %s --mlir-print-op-generic | lego-opt --mlir-print-op-generic | FileCheck %s
// A generic top-level "builtin.module" is the module itself, as in mlir-opt: not wrapped in a second one.
// RUN: lego-opt %s --mlir-print-op-generic | lego-opt | FileCheck %s --check-prefix=MODULE
// MODULE: {{^}}module {
// MODULE-NEXT: {{^}}  func.func @f

func.func @f(%n: index, %m: memref<24xf32>) -> index {
  // CHECK: "lego.row"(%{{.*}}) {static_dims = array<i64: 4, -9223372036854775808>} : (index) -> !lego.layout
  %r = lego.row [4, %n] : !lego.layout
  // CHECK: "lego.reg_p"() {perm = array<i64: 1, 0>, static_dims = array<i64: 2, 2>} : () -> !lego.layout
  %p = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout
  // CHECK: "lego.order_by"(%{{.*}}, %{{.*}}) : (!lego.layout, !lego.layout) -> !lego.layout
  %o = lego.order_by(%p, %r) : !lego.layout
  // CHECK: "lego.group_by"(%{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1>, static_dims = array<i64: -9223372036854775808>} : (index, !lego.layout) -> !lego.layout
  %g = lego.group_by [%n](%o) : !lego.layout
  // CHECK: "lego.gen_p"() ({
  // CHECK-NEXT: ^bb0(%{{.*}}: index):
  // CHECK-NEXT: "smt.yield"(%{{.*}}) : (index) -> ()
  // CHECK-NEXT: }, {
  // CHECK-NEXT: }) {static_dims = array<i64: 4>} : () -> !lego.layout
  %q = lego.gen_p [4] apply (%i: index) {
    lego.yield %i : index
  } : !lego.layout
  // CHECK: "lego.tile_by"(%{{.*}}) {static_tile_dims = [array<i64: 2, 2>, array<i64: 1, 1>]} : (!lego.layout) -> !lego.layout
  %o2 = lego.order_by(%p) : !lego.layout
  %t = lego.tile_by %o2 tile_dims [[2, 2], [1, 1]] : !lego.layout
  // CHECK: "lego.apply"(%{{.*}}, %{{.*}}, %{{.*}}) : (!lego.layout, index, index) -> index
  %a = lego.apply %r(%n, %n) : !lego.layout
  // CHECK: "lego.apply_inverse"(%{{.*}}, %{{.*}}) : (!lego.layout, index) -> (index, index)
  %x, %y = lego.apply_inverse %r(%a) : !lego.layout -> index, index
  // CHECK: "lego.assume_bounds"(%{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 0, 1>} : (index, index) -> ()
  lego.assume_bounds %n ub : %a
  return %a : index
}
