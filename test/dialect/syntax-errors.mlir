// Malformed custom syntax: located errors from the assembly-format layer.
// RUN: lego-opt %s --split-input-file --verify-diagnostics

func.func @unknown_custom() {
  // expected-error @+1 {{custom op 'lego.frobnicate' is unknown}}
  %l = lego.frobnicate [4] : !lego.layout
  return
}

// -----

func.func @missing_bracket() {
  // expected-error @+1 {{expected '['}}
  %l = lego.row 4, 8] : !lego.layout
  return
}

// -----

func.func @ssa_perm(%p: index) {
  // expected-error @+1 {{'perm' entries must be integer literals}}
  %l = lego.reg_p perm [%p, 0] dims [2, 2] : !lego.layout
  return
}

// -----

func.func @yield_outside_gen_p(%i: index) {
  // expected-error @+1 {{'lego.yield' op expects parent op 'lego.gen_p'}}
  lego.yield %i : index
}
