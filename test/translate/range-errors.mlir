// Each language's range and op limits (docs/translate.md, the language table): a located error naming the op
// and the language, exit status 1; the 64-bit languages take the same input.
// RUN: not lego-translate --lego-to-js %s --split-input-file --no-lower 2>&1 >/dev/null | FileCheck %s --check-prefix=CHECK-JS
// RUN: not lego-translate --lego-to-python %s --split-input-file --no-lower 2>&1 >/dev/null | FileCheck %s --check-prefix=CHECK-PY
// RUN: not lego-translate --lego-to-wgsl %s --split-input-file --no-lower 2>&1 >/dev/null | FileCheck %s --check-prefix=CHECK-WGSL
// RUN: not lego-translate --lego-to-fortran %s --split-input-file --no-lower 2>&1 >/dev/null | FileCheck %s --check-prefix=CHECK-F90
// RUN: not lego-translate --lego-to-c %s --split-input-file --no-lower 2>/dev/null | FileCheck %s --check-prefix=CHECK-C
// RUN: not lego-translate --lego-to-python %s --split-input-file --no-lower 2>/dev/null | FileCheck %s --check-prefix=CHECK-NAMES

func.func @beyond_2_53(%x: index) -> index {
  // CHECK-JS: range-errors.mlir:[[@LINE+1]]:8: error: 'arith.constant' 9007199254740993: does not fit JavaScript's Number exactly (integers below 2^53)
  %c = arith.constant 9007199254740993 : index
  %y = arith.addi %x, %c : index
  // CHECK-C: return x + 9007199254740993ull;
  return %y : index
}

// -----

func.func @truncating(%x: index, %y: index) -> index {
  // CHECK-PY: range-errors.mlir:[[@LINE+1]]:8: error: 'arith.divsi' cannot be expressed in Python: Python's // and % round toward minus infinity, not toward zero
  %q = arith.divsi %x, %y : index
  // CHECK-C: return (uint64_t)((int64_t)x / (int64_t)y);
  return %q : index
}

// -----

func.func @signed_compare(%x: index, %y: index) -> index {
  // CHECK-WGSL: range-errors.mlir:[[@LINE+1]]:8: error: 'arith.cmpi' cannot be expressed in WGSL: signed comparisons of the 32-bit unsigned index type are not exact
  %p = arith.cmpi slt, %x, %y : index
  %r = arith.select %p, %x, %y : index
  // CHECK-C: return ((int64_t)x < (int64_t)y) ? x : y;
  return %r : index
}

// -----

func.func @ceil_signed(%x: index, %y: index) -> index {
  // CHECK-F90: range-errors.mlir:[[@LINE+1]]:8: error: 'arith.ceildivsi' cannot be expressed in Fortran: signed ceil division has no intrinsic
  %q = arith.ceildivsi %x, %y : index
  return %q : index
}

// -----

// Names: a parameter that is a keyword of the language falls back to argN; a function name that is one is an error.
// CHECK-NAMES: def keyword_param(arg0, j):
func.func @keyword_param(%lambda: index, %j: index) -> index {
  %s = arith.addi %lambda, %j : index
  return %s : index
}

// -----

// CHECK-JS: range-errors.mlir:[[@LINE+1]]:1: error: function name @while is not a valid JavaScript identifier
func.func @while(%x: index) -> index {
  return %x : index
}
