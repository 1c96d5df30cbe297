// A layout has at most 2^63 - 1 elements (docs/sizes.md), counted exactly: a product that wraps
// modulo 2^64 must not pass for a small one. The error is at the op that makes the count.
// RUN: lego-opt %s --split-input-file --verify-diagnostics
// The issue's inputs used to lower (to j + (i << 2), i << 3 + j, ...) with exit status 0:
// RUN: not lego-opt %s --split-input-file --lego-lower 2>&1 >/dev/null | FileCheck %s
// (the lines are checked by --verify-diagnostics above; here: located errors, exit status 1, in this order)
// CHECK: size-overflow.mlir:{{[0-9]+}}:8: error: 'lego.group_by' op has 18446744073709551620 elements, more than 2^63 - 1, the most a layout may have (its indices, strides and sizes must stay below 2^63, where signed and unsigned index arithmetic agree)

// group_by [2^62 + 1, 4]: 2^64 + 4 elements, 4 modulo 2^64 — which "matched" the object's 4.
func.func @group_by_wraps(%i: index, %j: index) -> index {
  %r = lego.row [4] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  // expected-error @below {{'lego.group_by' op has 18446744073709551620 elements, more than 2^63 - 1, the most a layout may have (its indices, strides and sizes must stay below 2^63, where signed and unsigned index arithmetic agree)}}
  %g = lego.group_by [4611686018427387905, 4](%o) : !lego.layout
  %f = lego.apply %g(%i, %j) : !lego.layout
  return %f : index
}

// -----

// CHECK: size-overflow.mlir:{{[0-9]+}}:8: error: 'lego.tile_by' op has 18446744073709551620 elements
func.func @tile_by_wraps(%i: index, %j: index) -> index {
  %r = lego.row [4] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  // expected-error @below {{'lego.tile_by' op has 18446744073709551620 elements, more than 2^63 - 1}}
  %t = lego.tile_by %o tile_dims [[4611686018427387905], [4]] : !lego.layout
  %f = lego.apply %t(%i, %j) : !lego.layout
  return %f : index
}

// -----

// 2^65 elements.
// CHECK: size-overflow.mlir:{{[0-9]+}}:8: error: 'lego.row' op has 36893488147419103232 elements, more than 2^63 - 1
func.func @row_2_65(%i: index, %j: index) -> index {
  // expected-error @below {{'lego.row' op has 36893488147419103232 elements, more than 2^63 - 1}}
  %r = lego.row [4611686018427387904, 8] : !lego.layout
  %f = lego.apply %r(%i, %j) : !lego.layout
  return %f : index
}

// -----

// 2^124 elements.
// CHECK: size-overflow.mlir:{{[0-9]+}}:8: error: 'lego.col' op has 21267647932558653966460912964485513216 elements
func.func @col_2_124(%i: index, %j: index) -> index {
  // expected-error @below {{'lego.col' op has 21267647932558653966460912964485513216 elements, more than 2^63 - 1}}
  %c = lego.col [4611686018427387904, 4611686018427387904] : !lego.layout
  %f = lego.apply %c(%i, %j) : !lego.layout
  return %f : index
}

// -----

// Just at the bound: 2^62 · 2 = 2^63 is one too many (it fits a u64, not an i64).
// CHECK: size-overflow.mlir:{{[0-9]+}}:8: error: 'lego.reg_p' op has 9223372036854775808 elements
func.func @reg_p_2_63() {
  // expected-error @below {{'lego.reg_p' op has 9223372036854775808 elements, more than 2^63 - 1}}
  %l = lego.reg_p perm [1, 0] dims [4611686018427387904, 2] : !lego.layout
  return
}

// -----

// A size defined by arith.constant counts like a literal.
// CHECK: size-overflow.mlir:{{[0-9]+}}:8: error: 'lego.gen_p' op has 9223372036854775808 elements
func.func @gen_p_constant_size() {
  %big = arith.constant 4611686018427387904 : index
  // expected-error @below {{'lego.gen_p' op has 9223372036854775808 elements, more than 2^63 - 1}}
  %l = lego.gen_p [%big, 2] apply (%i: index, %j: index) {
    %c2 = arith.constant 2 : index
    %x = arith.muli %i, %c2 : index
    %y = arith.addi %x, %j : index
    lego.yield %y : index
  } : !lego.layout
  return
}

// -----

// Parts that each fit but together do not: the order_by makes the count.
// CHECK: size-overflow.mlir:{{[0-9]+}}:8: error: 'lego.order_by' op has 9223372036854775808 elements
func.func @order_by_of_fitting_parts() {
  %a = lego.row [4611686018427387904] : !lego.layout
  %b = lego.row [2] : !lego.layout
  // expected-error @below {{'lego.order_by' op has 9223372036854775808 elements, more than 2^63 - 1}}
  %o = lego.order_by(%a, %b) : !lego.layout
  return
}

// -----

// A part that does not fit is reported at the part only.
// CHECK: size-overflow.mlir:{{[0-9]+}}:8: error: 'lego.row' op has 9223372036854775808 elements
func.func @order_by_of_a_part_too_large() {
  // expected-error @below {{'lego.row' op has 9223372036854775808 elements}}
  %a = lego.row [4611686018427387904, 2] : !lego.layout
  %o = lego.order_by(%a) : !lego.layout
  return
}

// -----

// A symbolic size is ≥ 1, so the known sizes already make too many: "at least".
// CHECK: size-overflow.mlir:{{[0-9]+}}:8: error: 'lego.row' op has at least 18446744073709551616 elements
func.func @symbolic_and_too_large(%n: index) {
  // expected-error @below {{'lego.row' op has at least 18446744073709551616 elements, more than 2^63 - 1}}
  %l = lego.row [%n, 4611686018427387904, 4] : !lego.layout
  return
}

// -----

// CHECK: size-overflow.mlir:{{[0-9]+}}:8: error: 'lego.expand_by' op has 9223372036854775808 elements
func.func @expand_by_volume() {
  %r = lego.row [4] : !lego.layout
  // expected-error @below {{'lego.expand_by' op has 9223372036854775808 elements, more than 2^63 - 1}}
  %e = lego.expand_by %r dims [3, 2] to [4611686018427387904, 2] : !lego.layout
  return
}
