// Wrong operand counts and types in generic form are rejected by the IRDL definition, with locations.
// RUN: lego-opt %s --split-input-file --verify-diagnostics

func.func @no_layout() -> index {
  // expected-error @+1 {{op expects at least 1 operands, but got 0}}
  %f = "lego.apply"() : () -> index
  return %f : index
}

// -----

func.func @assume_wrong_type(%x: index) {
  // expected-error @+1 {{expected 'i1' but got 'index'}}
  "lego.assume"(%x) : (index) -> ()
  return
}

// -----

func.func @inverse_needs_flat(%l: !lego.layout) -> index {
  // expected-error @+1 {{op expects exactly 2 operands, but got 1}}
  %i = "lego.apply_inverse"(%l) : (!lego.layout) -> index
  return %i : index
}
