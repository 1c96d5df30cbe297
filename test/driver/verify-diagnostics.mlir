// RUN: lego-opt %s --split-input-file --verify-diagnostics
// Expected diagnostics in every designator form; the run passes only if each is produced.

func.func @plus_one() {
  // expected-error @+1 {{'lego.row' op Dimension 0 must be strictly positive}}
  %l = lego.row [0, 4] : !lego.layout
  return
}

// -----

func.func @same_line() {
  %l = lego.col [4, -5] : !lego.layout // expected-error {{Dimension -5 must be strictly positive}}
  return
}

// -----

func.func @below() {
  // expected-error @below {{Permutation rank 2 does not match dimensions rank 3}}
  %l = lego.reg_p perm [1, 0] dims [2, 3, 4] : !lego.layout
  return
}

// -----

func.func @regex(%i: index) {
  %l = lego.row [4, 8] : !lego.layout
  // expected-error @+1 {{number of indices ({{[0-9]+}}) does not match layout rank (2)}}
  %f = lego.apply %l(%i) : !lego.layout
  return
}

// -----

func.func @minus_one() {
  %l = lego.reg_p perm [2, 0, 0] dims [2, 3, 4] : !lego.layout
  // expected-error @-1 {{Invalid permutation: not a permutation of 0..2}}
  return
}
