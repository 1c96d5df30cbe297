// A constant input outside the layout's domain (issue 20): lowering used to fold apply row [4, 8](9, 0) to 72
// silently. Now a warning at the use, once; an error where bounds checks were requested or the result feeds
// a lego.check (docs/sizes.md, "Constant inputs").
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-lower
// RUN: not lego-opt %s --split-input-file --lego-lower 2>&1 >/dev/null | FileCheck %s --check-prefix=ONCE
// Under bounds checks: errors, exit status 1.
// RUN: not lego-opt %s --split-input-file --lego-generate-bounds-checks --lego-lower 2>&1 >/dev/null | FileCheck %s --check-prefix=BOUNDS
// lego-verify judges a check whose address uses an out-of-range constant: an error at that use.
// RUN: not lego-opt %s --split-input-file --lego-verify 2>&1 >/dev/null | FileCheck %s --check-prefix=CHECK-OP

// Each warning is printed once (lego-lower runs several passes; gen_p inlining copies ops).
// ONCE: warning: 'lego.apply' op index 9 is outside dim 0 of size 4
// ONCE-NOT: index 9 is outside
// ONCE: warning: 'lego.apply_inverse' op flat index 40 is outside the layout's 32 elements
// ONCE-NOT: flat index 40
// ONCE: warning: 'lego.apply' op index 5 is outside dim 2 of size 4
// ONCE-NOT: index 5 is outside
// ONCE: warning: 'lego.load' op index 2 is outside dim 0 of size 2
// ONCE-NOT: index 2 is outside
// ONCE: warning: 'lego.apply' op index 7 is outside dim 1 of size 7
// ONCE-NOT: index 7 is outside
// ONCE: error: 'lego.apply' op index 4 is outside dim 0 of size 4

// BOUNDS: constant-index-outside.mlir:[[@LINE+6]]:8: error: 'lego.apply' op index 9 is outside dim 0 of size 4; bounds checks were requested for this use (lego-generate-bounds-checks)
func.func @apply_outside() -> index {
  %c9 = arith.constant 9 : index
  %c0 = arith.constant 0 : index
  %r = lego.row [4, 8] : !lego.layout
  // expected-warning @below {{'lego.apply' op index 9 is outside dim 0 of size 4; the result is unspecified}}
  %f = lego.apply %r(%c9, %c0) : !lego.layout
  return %f : index
}

// -----

// BOUNDS: error: 'lego.apply_inverse' op flat index 40 is outside the layout's 32 elements; bounds checks were requested
func.func @inverse_outside() -> (index, index) {
  %c40 = arith.constant 40 : index
  %r = lego.col [4, 8] : !lego.layout
  // expected-warning @below {{'lego.apply_inverse' op flat index 40 is outside the layout's 32 elements; the result is unspecified}}
  %i, %j = lego.apply_inverse %r(%c40) : !lego.layout -> index, index
  return %i, %j : index, index
}

// -----

// tile_by's logical dims are its tile sizes, level-major: dim 2 is the inner level's first, of size 4.
func.func @tile_by_outside(%i: index) -> index {
  %c5 = arith.constant 5 : index
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2, 3], [4, 4]] : !lego.layout
  // expected-warning @below {{'lego.apply' op index 5 is outside dim 2 of size 4; the result is unspecified}}
  %f = lego.apply %t(%i, %i, %c5, %i) : !lego.layout
  return %f : index
}

// -----

// Through a view: the load's indices against the layout's dims.
func.func @load_outside(%m: memref<14xf32>) -> f32 {
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %l = lego.row [2, 7] : !lego.layout
  %v = lego.cast_view %m, %l : memref<14xf32>, !lego.layout -> !lego.view<f32>
  // expected-warning @below {{'lego.load' op index 2 is outside dim 0 of size 2; the result is unspecified}}
  %x = lego.load %v[%c2, %c1] : !lego.view<f32>, index, index
  return %x : f32
}

// -----

// An apply inside a gen_p body, inlined at each of two uses: one warning.
func.func @inside_gen_p(%a: index, %b: index) -> (index, index) {
  %inner = lego.row [3, 7] : !lego.layout
  %g = lego.gen_p [3] apply (%i: index) {
    %c7 = arith.constant 7 : index
    // expected-warning @below {{'lego.apply' op index 7 is outside dim 1 of size 7; the result is unspecified}}
    %f = lego.apply %inner(%i, %c7) : !lego.layout
    lego.yield %f : index
  } : !lego.layout
  %x = lego.apply %g(%a) : !lego.layout
  %y = lego.apply %g(%b) : !lego.layout
  return %x, %y : index, index
}

// -----

// A constant inside the dims, and non-constant inputs: nothing to report (the twin).
func.func @inside(%i: index) -> (index, index, index) {
  %c3 = arith.constant 3 : index
  %c31 = arith.constant 31 : index
  %r = lego.row [4, 8] : !lego.layout
  %f = lego.apply %r(%c3, %i) : !lego.layout
  %a, %b = lego.apply_inverse %r(%c31) : !lego.layout -> index, index
  return %f, %a, %b : index, index, index
}

// -----

// A lego.check whose address uses the constant: an error from lowering and from lego-verify.
// CHECK-OP: constant-index-outside.mlir:[[@LINE+5]]:8: error: 'lego.apply' op index 4 is outside dim 0 of size 4; its result feeds a lego.check, which would be judged on an unspecified value
func.func @feeds_check(%tid: index {lego.thread_id}) {
  %c4 = arith.constant 4 : index
  %r = lego.row [4, 32] : !lego.layout
  // expected-error @below {{'lego.apply' op index 4 is outside dim 0 of size 4; its result feeds a lego.check, which would be judged on an unspecified value}}
  %f = lego.apply %r(%c4, %tid) : !lego.layout
  lego.check %f {coalescing}
  return
}
