// Bad input to lego-to-arith: located errors, exit status 1 (each chunk alone).
// RUN: not lego-opt %s --split-input-file --lego-to-arith 2>&1 >/dev/null | FileCheck %s --check-prefix=LOC
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-to-arith
// LOC: errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'lego.apply_inverse' op layout is not invertible

func.func @inverse_of_apply_only(%x: index) -> index {
  %l = lego.gen_p [8] apply (%i: index) {
    lego.yield %i : index
  } : !lego.layout
  %o = lego.order_by(%l) : !lego.layout
  // expected-error @+1 {{'lego.apply_inverse' op layout is not invertible: it is built from an apply-only lego.gen_p (no 'inv' region)}}
  %i = lego.apply_inverse %o(%x) : !lego.layout -> index
  return %i : index
}

// -----

// Not visible to the dialect verifier (the layout is a function argument): lowering finds it after
// rebuilding the layout in the callee.
func.func private @inverse(%l: !lego.layout, %x: index) -> index {
  // expected-error @+1 {{'lego.apply_inverse' op layout is not invertible: it is built from an apply-only lego.gen_p (no 'inv' region)}}
  %i = lego.apply_inverse %l(%x) : !lego.layout -> index
  return %i : index
}
func.func @caller(%x: index) -> index {
  %l = lego.gen_p [8] apply (%i: index) {
    lego.yield %i : index
  } : !lego.layout
  %i = func.call @inverse(%l, %x) : (!lego.layout, index) -> index
  return %i : index
}

// -----

func.func @tile_levels_do_not_multiply(%i: index) -> index {
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  // expected-error @+1 {{'lego.tile_by' op product of tile dims along dimension 0 (4) does not match input dimension (8)}}
  %t = lego.tile_by %o tile_dims [[2, 4], [2, 6]] : !lego.layout
  %f = lego.apply %t(%i, %i, %i, %i) : !lego.layout
  return %f : index
}

// -----

func.func @tile_total_does_not_match(%i: index) -> index {
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  // expected-error @+1 {{'lego.tile_by' op Total product of tile dims (72) does not match total product of input dims (96)}}
  %t = lego.tile_by %o tile_dims [[2, 4], [3, 3]] : !lego.layout
  %f = lego.apply %t(%i, %i, %i, %i) : !lego.layout
  return %f : index
}

// -----

func.func @view_of_wrong_element_type(%m: memref<32xf32>, %i: index) -> f16 {
  %l = lego.row [32] : !lego.layout
  // expected-error @+1 {{'lego.cast_view' op memref element type 'f32' does not match view element type 'f16'}}
  %v = lego.cast_view %m, %l : memref<32xf32>, !lego.layout -> !lego.view<f16>
  %x = lego.load %v[%i] : !lego.view<f16>, index
  return %x : f16
}

// -----

func.func @load_of_wrong_type(%m: memref<32xf32>, %i: index) -> f16 {
  %l = lego.row [32] : !lego.layout
  %v = lego.cast_view %m, %l : memref<32xf32>, !lego.layout -> !lego.view<f32>
  // expected-error @+1 {{'lego.load' op result type 'f16' does not match view element type 'f32'}}
  %x = "lego.load"(%v, %i) : (!lego.view<f32>, index) -> f16
  return %x : f16
}

// -----

func.func private @callee(%v: !lego.view<f32>, %i: index) -> f32 {
  %x = lego.load %v[%i, %i] : !lego.view<f32>, index, index
  return %x : f32
}
func.func @different_layouts(%m: memref<32xf32>, %i: index) -> f32 {
  %r = lego.row [4, 8] : !lego.layout
  %c = lego.col [4, 8] : !lego.layout
  %a = lego.cast_view %m, %r : memref<32xf32>, !lego.layout -> !lego.view<f32>
  %b = lego.cast_view %m, %c : memref<32xf32>, !lego.layout -> !lego.view<f32>
  %x = func.call @callee(%a, %i) : (!lego.view<f32>, index) -> f32
  // expected-error @+1 {{'func.call' op passes to @callee (argument #0) a layout whose structure or static attributes differ from the one passed at}}
  %y = func.call @callee(%b, %i) : (!lego.view<f32>, index) -> f32
  %s = arith.addf %x, %y : f32
  return %s : f32
}

// -----

func.func private @callee(%v: !lego.view<f32>, %i: index) -> f32 {
  %x = lego.load %v[%i] : !lego.view<f32>, index
  return %x : f32
}
func.func @different_memrefs(%m: memref<32xf32>, %n: memref<?xf32>, %i: index) -> f32 {
  %r = lego.row [32] : !lego.layout
  %a = lego.cast_view %m, %r : memref<32xf32>, !lego.layout -> !lego.view<f32>
  %b = lego.cast_view %n, %r : memref<?xf32>, !lego.layout -> !lego.view<f32>
  %x = func.call @callee(%a, %i) : (!lego.view<f32>, index) -> f32
  // expected-error @+1 {{'func.call' op passes to @callee (argument #0) a view of a 'memref<?xf32>' but the call at}}
  %y = func.call @callee(%b, %i) : (!lego.view<f32>, index) -> f32
  %s = arith.addf %x, %y : f32
  return %s : f32
}

// -----

// expected-error @+1 {{'func.func' op @no_callers takes a !lego.view / !lego.layout argument but has no func.call site in this module to take the layout from}}
func.func @no_callers(%v: !lego.view<f32>, %i: index) -> f32 {
  %x = lego.load %v[%i] : !lego.view<f32>, index
  return %x : f32
}

// -----

// expected-error @+1 {{'func.func' op @returns_view returns a '!lego.view<f32>': lego-to-arith can thread views and layouts into functions (as arguments) but not out of them}}
func.func @returns_view(%m: memref<8xf32>) -> !lego.view<f32> {
  %l = lego.row [8] : !lego.layout
  %v = lego.cast_view %m, %l : memref<8xf32>, !lego.layout -> !lego.view<f32>
  return %v : !lego.view<f32>
}

// -----

func.func @layout_through_loop(%n: index, %x: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l0 = lego.row [4, 8] : !lego.layout
  %l = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %l0) -> (!lego.layout) {
    // expected-error @+1 {{'lego.apply' op cannot be lowered: its layout is a block argument, not built by visible lego ops}}
    %g = lego.apply %acc(%x, %k) : !lego.layout
    scf.yield %acc : !lego.layout
  }
  // expected-error @+1 {{'lego.apply' op cannot be lowered: its layout is produced by 'scf.for', not a lego layout op}}
  %f = lego.apply %l(%x, %x) : !lego.layout
  return %f : index
}

// -----

func.func @view_through_if(%c: i1, %m: memref<8xf32>, %i: index) -> f32 {
  %l = lego.row [8] : !lego.layout
  %v = lego.cast_view %m, %l : memref<8xf32>, !lego.layout -> !lego.view<f32>
  %w = scf.if %c -> (!lego.view<f32>) {
    scf.yield %v : !lego.view<f32>
  } else {
    scf.yield %v : !lego.view<f32>
  }
  // expected-error @+1 {{'lego.load' op cannot be lowered: its view is not produced by a visible lego.cast_view}}
  %x = lego.load %w[%i] : !lego.view<f32>, index
  return %x : f32
}
