// lego.swizzle's verifier rules and syntax errors (docs/ops/swizzle.md), each located at the op.
// RUN: lego-opt %s --split-input-file --verify-diagnostics

func.func @not_a_multiple_of_the_period() {
  // expected-error @+1 {{'lego.swizzle' op number of elements (1000) is not a multiple of 2^(bits + base + shift) = 2^(3 + 4 + 3) = 1024}}
  %s = lego.swizzle bits 3 base 4 shift 3 dims [1000] : !lego.layout
  return
}

// -----

// The element count is the product of all dims: 8 · 8 = 64, period 2^(2+2+3) = 128.
func.func @product_not_a_multiple() {
  // expected-error @+1 {{'lego.swizzle' op number of elements (64) is not a multiple of 2^(bits + base + shift) = 2^(2 + 2 + 3) = 128}}
  %s = lego.swizzle bits 2 base 2 shift 3 dims [8, 8] : !lego.layout
  return
}

// -----

// A size given by an arith.constant is known: 96 is not a multiple of 64.
func.func @constant_size() {
  %c96 = arith.constant 96 : index
  // expected-error @+1 {{'lego.swizzle' op number of elements (96) is not a multiple of 2^(bits + base + shift) = 2^(2 + 1 + 3) = 64}}
  %s = lego.swizzle bits 2 base 1 shift 3 dims [%c96] : !lego.layout
  return
}

// -----

func.func @overlapping_bit_ranges() {
  // expected-error @+1 {{'lego.swizzle' op Invalid swizzle (bits 3, base 0, shift 2): shift (2) must be at least bits (3), so that the XORed bit ranges do not overlap}}
  %s = lego.swizzle bits 3 base 0 shift 2 dims [64] : !lego.layout
  return
}

// -----

func.func @too_wide() {
  // expected-error @+1 {{'lego.swizzle' op Invalid swizzle (bits 20, base 20, shift 23): bits + base + shift must be at most 62}}
  %s = lego.swizzle bits 20 base 20 shift 23 dims [4] : !lego.layout
  return
}

// -----

func.func @negative_parameter() {
  // expected-error @+1 {{'lego.swizzle' op swizzle 'base' must be a non-negative integer, found -1}}
  %s = lego.swizzle bits 1 base -1 shift 1 dims [4] : !lego.layout
  return
}

// -----

func.func @zero_size() {
  // expected-error @+1 {{'lego.swizzle' op Dimension 0 must be strictly positive}}
  %s = lego.swizzle bits 1 base 0 shift 1 dims [4, 0] : !lego.layout
  return
}

// -----

func.func @no_dims() {
  // expected-error @+1 {{'lego.swizzle' op expected at least one dimension}}
  %s = lego.swizzle bits 1 base 0 shift 1 dims [] : !lego.layout
  return
}

// -----

func.func @index_count(%i: index) -> index {
  %s = lego.swizzle bits 1 base 0 shift 1 dims [4] : !lego.layout
  // expected-error @+1 {{'lego.apply' op number of indices (2) does not match layout rank (1)}}
  %f = lego.apply %s(%i, %i) : !lego.layout
  return %f : index
}

// -----

func.func @generic_form_needs_three_parameters() {
  // expected-error @+1 {{'lego.swizzle' op attribute 'swizzle' must be array<i64: bits, base, shift>}}
  %s = "lego.swizzle"() {static_dims = array<i64: 64>, swizzle = array<i64: 3, 3>} : () -> !lego.layout
  return
}

// -----

func.func @missing_keyword() {
  // expected-error @+1 {{expected 'base' after '3'}}
  %s = lego.swizzle bits 3 shift 3 dims [1024] : !lego.layout
  return
}

// -----

func.func @ssa_parameter(%b: index) {
  // expected-error @+1 {{expected integer literal after 'bits'}}
  %s = lego.swizzle bits %b base 0 shift 3 dims [64] : !lego.layout
  return
}
