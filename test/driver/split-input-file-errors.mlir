// RUN: not lego-opt %s --split-input-file 2>&1 >/dev/null | FileCheck %s
// RUN: not lego-opt %s --split-input-file 2>/dev/null | FileCheck %s --check-prefix=OUT

// A failing chunk does not stop the others, and errors carry the line numbers of this file.

// CHECK: split-input-file-errors.mlir:[[# @LINE + 2]]:8: error: 'lego.row' op Dimension 0 must be strictly positive
func.func @bad() {
  %l = lego.row [4, 0] : !lego.layout
  return
}

// -----

// OUT-NOT: @bad
// OUT: func.func @good
// OUT-NOT: @also_bad
func.func @good() {
  return
}

// -----

// CHECK: split-input-file-errors.mlir:[[# @LINE + 2]]:8: error: 'lego.reg_p' op Invalid permutation: not a permutation of 0..1
func.func @also_bad() {
  %l = lego.reg_p perm [0, 0] dims [2, 2] : !lego.layout
  return
}
