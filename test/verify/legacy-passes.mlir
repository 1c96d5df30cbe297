// The published legacy verification passes: warnings on each lego.apply (coalescing, bank conflicts) or
// the "Inconsistent GenP" error (consistency); none of them fails (exit 0, the IR is printed unchanged).
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-verify-coalescing
// RUN: lego-opt %s --split-input-file --lego-verify-coalescing 2>/dev/null | FileCheck %s --check-prefix=IR
// warp-size=1: a one-lane warp is always coalesced, so no warning at all.
// RUN: lego-opt %s --split-input-file --lego-verify-coalescing='warp-size=1' 2>&1 >/dev/null | FileCheck %s --check-prefix=NONE --allow-empty
// NONE-NOT: warning
// Bad option values name the option (exit 1):
// RUN: not lego-opt %s --lego-verify-coalescing='warp-size=0' 2>&1 | FileCheck %s --check-prefix=BAD-WARP
// BAD-WARP: error: invalid value '0' for option 'warp-size' of 'lego-verify-coalescing': expected a positive integer
// RUN: not lego-opt %s --lego-verify-bank-conflicts='element-size=3' 2>&1 | FileCheck %s --check-prefix=BAD-ELEMENT
// BAD-ELEMENT: error: invalid value '3' for option 'element-size' of 'lego-verify-bank-conflicts': expected 1, 2, 4, 8 or 16
// RUN: not lego-opt %s --pass-pipeline='builtin.module(lego-verify-bank-conflicts{num-banks=0})' 2>&1 | FileCheck %s --check-prefix=BAD-BANKS
// BAD-BANKS: error: invalid value '0' for option 'num-banks' of 'lego-verify-bank-conflicts': expected a positive integer

// IR-LABEL: func.func @row_major
// IR: lego.apply
// Thread t reads row-major [?, 32] element (row, t): unit stride.
func.func @row_major(%tid: index {lego.thread_id}, %row: index, %m: index) -> index {
  %l = lego.row [%m, 32] : !lego.layout
  %a = lego.apply %l(%row, %tid) : !lego.layout
  return %a : index
}

// -----

// IR-LABEL: func.func @column_read
// IR: lego.apply
// Thread t reads row-major [32, 64] element (t, col): stride 64.
func.func @column_read(%tid: index {lego.thread_id}, %col: index) -> index {
  %l = lego.row [32, 64] : !lego.layout
  // expected-warning @below {{Layout may produce non-coalesced memory accesses (unit stride not guaranteed){{\n}}thread_id {{[0-9]+}} and {{[0-9]+}} access elements}}
  %a = lego.apply %l(%tid, %col) : !lego.layout
  return %a : index
}

// -----

// No thread-id argument: the applies are not checked.
func.func @no_thread_id(%i: index, %j: index) -> index {
  %l = lego.row [32, 64] : !lego.layout
  %a = lego.apply %l(%i, %j) : !lego.layout
  return %a : index
}
