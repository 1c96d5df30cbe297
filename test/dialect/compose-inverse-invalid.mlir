// lego.compose's size rule and lego.inverse's bijection rule (docs/ops/compose.md, docs/ops/inverse.md).
// RUN: lego-opt %s --split-input-file --verify-diagnostics

func.func @compose_sizes() {
  %a = lego.row [4, 4] : !lego.layout
  %b = lego.row [8] : !lego.layout
  // expected-error @+1 {{'lego.compose' op the inner layout (operand #1) maps to 8 positions but the outer layout (operand #0) has 16 elements}}
  %c = lego.compose %a, %b : !lego.layout
  return
}

// -----

// An expand_by inner layout maps onto Π n⃗ = 12 positions (not its 16 elements): composing with 16 fails ...
func.func @compose_partial_inner() {
  %a = lego.row [16] : !lego.layout
  %r = lego.row [4, 4] : !lego.layout
  %p = lego.expand_by %r dims [3, 4] to [4, 4] : !lego.layout
  // expected-error @+1 {{'lego.compose' op the inner layout (operand #1) maps to 12 positions but the outer layout (operand #0) has 16 elements}}
  %c = lego.compose %a, %p : !lego.layout
  return
}

// -----

// ... and its twin with 12 is accepted (no diagnostic expected).
func.func @compose_partial_inner_ok() {
  %a = lego.row [12] : !lego.layout
  %r = lego.row [4, 4] : !lego.layout
  %p = lego.expand_by %r dims [3, 4] to [4, 4] : !lego.layout
  %c = lego.compose %a, %p : !lego.layout
  return
}

// -----

func.func @inverse_of_apply_only() {
  %g = lego.gen_p [4] apply (%i: index) {
    lego.yield %i : index
  } : !lego.layout
  // expected-error @+1 {{'lego.inverse' op layout (operand #0) is not invertible: it is built from an apply-only lego.gen_p (no 'inv' region)}}
  %inv = lego.inverse %g : !lego.layout
  return
}

// -----

func.func @inverse_of_partial() {
  %r = lego.row [4, 4] : !lego.layout
  %p = lego.expand_by %r dims [3, 4] to [4, 4] : !lego.layout
  // expected-error @+1 {{'lego.inverse' op layout (operand #0) is not a bijection: its last stage is a lego.expand_by, whose padding positions have no element}}
  %inv = lego.inverse %p : !lego.layout
  return
}

// -----

func.func @inverse_rank(%x: index) -> index {
  %r = lego.row [4, 4] : !lego.layout
  %inv = lego.inverse %r : !lego.layout
  // expected-error @+1 {{'lego.apply' op number of indices (2) does not match layout rank (1)}}
  %f = lego.apply %inv(%x, %x) : !lego.layout
  return %f : index
}

// -----

func.func @compose_rank(%x: index) -> index {
  %a = lego.row [16] : !lego.layout
  %b = lego.row [4, 4] : !lego.layout
  %c = lego.compose %a, %b : !lego.layout
  // expected-error @+1 {{'lego.apply' op number of indices (1) does not match layout rank (2)}}
  %f = lego.apply %c(%x) : !lego.layout
  return %f : index
}

// -----

func.func @compose_syntax() {
  %a = lego.row [16] : !lego.layout
  // expected-error @+1 {{expected ',' after the outer layout}}
  %c = lego.compose %a %a : !lego.layout
  return
}
