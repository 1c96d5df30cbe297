// --verify-diagnostics fails (exit 1) when an expected diagnostic is missing or an unexpected one appears.
// RUN: not lego-opt %s --split-input-file --verify-diagnostics 2>&1 | FileCheck %s

// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]:6: error: expected error "this is never reported" was not produced
func.func @missing() {
  // expected-error @+1 {{this is never reported}}
  %l = lego.row [4, 8] : !lego.layout
  return
}

// -----

// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]:8: error: unexpected error: 'lego.row' op Dimension 0 must be strictly positive
func.func @unexpected() {
  %l = lego.row [0, 8] : !lego.layout
  return
}
