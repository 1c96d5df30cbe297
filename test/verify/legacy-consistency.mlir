// lego-verify-consistency and lego-verify-genp-consistency (published legacy passes, identical): the
// published error once per gen_p whose inv does not invert apply, and — as published — the pass does not
// fail: exit 0 and the IR printed. A gen_p without inv is skipped silently.
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-verify-consistency
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-verify-genp-consistency
// RUN: lego-opt %s --split-input-file --lego-verify-consistency 2>&1 | FileCheck %s
// RUN: lego-opt %s --split-input-file --pass-pipeline='builtin.module(lego-verify-genp-consistency{timeout-ms=20000})' 2>&1 | FileCheck %s

// CHECK-NOT: error
// CHECK: legacy-consistency.mlir:36:8: error: Inconsistent GenP: apply and inv regions are not bijections.{{$}}
// CHECK-NOT: error
// CHECK: func.func @consistent
// CHECK: func.func @wrong_inverse
// CHECK: lego.gen_p
// CHECK: func.func @apply_only
func.func @consistent() -> !lego.layout {
  %l = lego.gen_p [2, 3] apply (%i: index, %j: index) {
    %c3 = arith.constant 3 : index
    %row = arith.muli %i, %c3 : index
    %f = arith.addi %row, %j : index
    lego.yield %f : index
  } inv (%x: index) {
    %c3 = arith.constant 3 : index
    %q = arith.divui %x, %c3 : index
    %r = arith.remui %x, %c3 : index
    lego.yield %q, %r : index, index
  } : !lego.layout
  return %l : !lego.layout
}

// -----

// The inverse uses radix 2 instead of 3: refuted in both directions, reported once.
func.func @wrong_inverse() -> !lego.layout {
  // expected-error @below {{Inconsistent GenP: apply and inv regions are not bijections.}}
  %l = lego.gen_p [2, 3] apply (%i: index, %j: index) {
    %c3 = arith.constant 3 : index
    %row = arith.muli %i, %c3 : index
    %f = arith.addi %row, %j : index
    lego.yield %f : index
  } inv (%x: index) {
    %c2 = arith.constant 2 : index
    %q = arith.divui %x, %c2 : index
    %r = arith.remui %x, %c2 : index
    lego.yield %q, %r : index, index
  } : !lego.layout
  return %l : !lego.layout
}

// -----

func.func @apply_only() -> !lego.layout {
  %l = lego.gen_p [4] apply (%i: index) {
    lego.yield %i : index
  } : !lego.layout
  return %l : !lego.layout
}
