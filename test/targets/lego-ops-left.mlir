// What the target pipelines do with lego ops that lego-lower keeps: the user's lego.assume* facts serve the
// simplifier and are then removed (no target can lower them); undischarged bounds obligations
// (lego.assert_*) are an error naming the fix, instead of coming out inside lowered code.
// RUN: not lego-opt %s --split-input-file --lego-to-llvm 2>&1 | FileCheck %s
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-to-llvm -o /dev/null
// RUN: lego-opt %S/Inputs/gpu-facts.mlir --lego-to-nvvm='format=assembly' | FileCheck %s --check-prefix=GPU
// RUN: lego-opt %S/Inputs/gpu-facts.mlir --lego-lower | FileCheck %s --check-prefix=LOWER

// The fact i < 8 makes (i·8) div 8 = i; nothing of it remains in the LLVM dialect.
// CHECK-LABEL: llvm.func @facts
// CHECK-SAME: (%[[I:.*]]: i64)
// CHECK-NOT: lego.
// CHECK-NOT: llvm.udiv
// CHECK: llvm.return %[[I]] : i64
func.func @facts(%i: index) -> index {
  %c8 = arith.constant 8 : index
  lego.assume_bounds %i ub : %c8
  %m = arith.muli %i, %c8 : index
  %d = arith.divui %m, %c8 : index
  return %d : index
}

// -----

func.func @obligation(%i: index) -> index {
  %r = lego.row [8, 8] : !lego.layout
  %c0 = arith.constant 0 : index
  // expected-error @below {{'lego.assert_apply_bounds' op is a bounds obligation that 'lego-to-llvm' cannot compile: prove it with 'lego-external-smt-verifier' first}}
  lego.assert_apply_bounds %r(%i, %c0) : !lego.layout
  %f = lego.apply %r(%i, %c0) : !lego.layout
  return %f : index
}

// lego-lower consumes the user's fact too (docs/reference/lowering.md §3: no lego op is left).
// LOWER-NOT: lego.
// LOWER: gpu.launch
// LOWER-NOT: lego.
// The GPU pipeline removes it.
// GPU-NOT: lego.
// GPU: gpu.binary
