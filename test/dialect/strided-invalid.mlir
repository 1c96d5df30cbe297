// lego.strided's rules (docs/ops/strided.md): injective (a colliding pair of indices is named), sizes ≥ 1,
// strides ≥ 0, same structure of shape and stride, apply_inverse only when compact, memref of its extent.
// RUN: lego-opt %s --split-input-file --verify-diagnostics

func.func @collision() {
  // expected-error @+1 {{'lego.strided' op not injective: indices [0, 1] and [1, 0] both map to position 1}}
  %l = lego.strided shape [2, 2] stride [1, 1] : !lego.layout
  return
}

// -----

// Within one hierarchical mode (first leaf fastest): (2, 3):(1, 2) is compact; (2, 3):(1, 1) sends index 1 =
// digits (1, 0) and index 2 = digits (0, 1) both to 1.
func.func @collision_in_a_mode() {
  %ok = lego.strided shape [(2, 3)] stride [(1, 2)] : !lego.layout
  // expected-error @+1 {{'lego.strided' op not injective: indices [1] and [2] both map to position 1}}
  %l = lego.strided shape [(2, 3)] stride [(1, 1)] : !lego.layout
  return
}

// -----

func.func @zero_stride() {
  // expected-error @+1 {{'lego.strided' op not injective: indices [0] and [1] both map to position 0}}
  %l = lego.strided shape [4] stride [0] : !lego.layout
  return
}

// -----

func.func @zero_size() {
  // expected-error @+1 {{'lego.strided' op Dimension 0 must be strictly positive}}
  %l = lego.strided shape [4, 0] stride [1, 4] : !lego.layout
  return
}

// -----

func.func @negative_stride() {
  // expected-error @+1 {{'lego.strided' op stride -1 must be non-negative}}
  %l = lego.strided shape [4] stride [-1] : !lego.layout
  return
}

// -----

func.func @structure() {
  // expected-error @+1 {{'shape' and 'stride' must have the same structure (modes and their leaves)}}
  %l = lego.strided shape [(4, 2), 8] stride [1, 4] : !lego.layout
  return
}

// -----

func.func @ssa_size(%n: index) {
  // expected-error @+1 {{expected integer literal in 'shape' (strided sizes and strides are literals)}}
  %l = lego.strided shape [%n] stride [1] : !lego.layout
  return
}

// -----

func.func @padded_has_no_inverse(%x: index) -> (index, index) {
  %l = lego.strided shape [4, 8] stride [9, 1] : !lego.layout
  // expected-error @+1 {{'lego.apply_inverse' op layout is not invertible: it is built from a padded lego.strided (injective, but not onto its extent)}}
  %i, %j = lego.apply_inverse %l(%x) : !lego.layout -> index, index
  return %i, %j : index, index
}

// -----

func.func @padded_inverse_op() {
  %l = lego.strided shape [4, 8] stride [9, 1] : !lego.layout
  // expected-error @+1 {{'lego.inverse' op layout (operand #0) is not invertible: it is built from a padded lego.strided (injective, but not onto its extent)}}
  %i = lego.inverse %l : !lego.layout
  return
}

// -----

// The memref holds the extent 1 + 3·9 + 7 = 35, not the 32 elements.
func.func @padded_view_size(%m: memref<32xf32>) {
  %l = lego.strided shape [4, 8] stride [9, 1] : !lego.layout
  // expected-error @+1 {{'lego.cast_view' op MemRef total number of elements (32) does not match layout volume (35)}}
  %v = lego.cast_view %m, %l : memref<32xf32>, !lego.layout -> !lego.view<f32>
  return
}

// -----

func.func @generic_structure() {
  // expected-error @+1 {{'lego.strided' op attribute 'modes' must be the leaf count of each mode, adding up to the lengths of 'shape' and 'stride'}}
  %l = "lego.strided"() {modes = array<i64: 2>, shape = array<i64: 4>, stride = array<i64: 1>} : () -> !lego.layout
  return
}
