// One expected-* line absorbs every diagnostic of its kind on its line whose text contains it (as in
// mlir-opt), but an expectation that matches nothing still fails, and absorbing is per kind.
// RUN: not lego-opt %s --split-input-file --verify-diagnostics --lego-verify 2>&1 >/dev/null | FileCheck %s

// Two warnings absorbed by the first expectation; the second matches nothing and is reported.
// CHECK-NOT: unexpected warning
// CHECK: verify-diagnostics-absorb.mlir:[[# @LINE + 5]]:6: error: expected warning "Layout may be fine" was not produced
func.func @absorbed_and_missing(%tid: index {lego.thread_id}) {
  %c2 = arith.constant 2 : index
  %addr = arith.muli %tid, %c2 : index
  // expected-warning @below {{Layout may}}
  // expected-warning @below {{Layout may be fine}}
  lego.check %addr {bank_conflict_free, coalescing}
  return
}

// -----

// An error expectation does not absorb warnings: a near miss, as in mlir-opt.
// CHECK: verify-diagnostics-absorb.mlir:[[# @LINE + 4]]:6: error: 'warning' diagnostic emitted when expecting a 'error'
func.func @wrong_kind(%tid: index {lego.thread_id}) {
  %c2 = arith.constant 2 : index
  %addr = arith.muli %tid, %c2 : index
  // expected-error @below {{Layout may}}
  lego.check %addr {coalescing}
  return
}
