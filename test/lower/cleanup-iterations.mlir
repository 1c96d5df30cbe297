// The §0 clean-up of lego-normalization and lego-to-arith (MLIR's greedy driver with no patterns) runs one
// iteration at a time and stops after one that created no op (passes/src/cleanup.rs, fold_greedily_or_once):
// a constant that a fold materializes lands before the folded op and only the next iteration hoists it to
// the top of the function, so that iteration must still run. Expected forms: a fold's constant first, the
// input's constants hoisted in the driver's order (the last one met first), dead ops and an unreachable
// block (several blocks: the whole driver runs; a module of its own, since one such region anywhere decides)
// gone.
// RUN: lego-opt %s --split-input-file --lego-normalization=fold=true | FileCheck %s --check-prefixes=CHECK,NORM
// RUN: lego-opt %s --split-input-file --lego-normalization | FileCheck %s --check-prefixes=CHECK,NORM
// RUN: lego-opt %s --split-input-file --lego-to-arith | FileCheck %s --check-prefixes=CHECK,ARITH

// remui %x, 1 folds to a new constant 0, which must end up above the addi.
// CHECK-LABEL: func.func @fold_creates_constant
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[S:.*]] = arith.addi %arg0, %arg0 : index
// CHECK-NEXT: return %[[S]], %[[C0]] : index, index
func.func @fold_creates_constant(%x: index) -> (index, index) {
  %c1 = arith.constant 1 : index
  %s = arith.addi %x, %x : index
  %e = arith.remui %x, %c1 : index
  return %s, %e : index, index
}

// Normalization folds nothing here: one iteration hoists the two constants (2 first) and stops.
// lego-to-arith computes row [4, 8] at (1, 2) = 1·8 + 2 = 10, a folded constant above the addi.
// CHECK-LABEL: func.func @layout_use
// NORM-NEXT: %[[C2:.*]] = arith.constant 2 : index
// NORM-NEXT: %[[C1:.*]] = arith.constant 1 : index
// NORM-NEXT: %[[L:.*]] = lego.reg_p perm [0, 1] dims[4, 8] : !lego.layout
// NORM-NEXT: %[[S:.*]] = arith.addi %arg0, %arg0 : index
// NORM-NEXT: %[[F:.*]] = lego.apply %[[L]](%[[C1]], %[[C2]]) : !lego.layout
// NORM-NEXT: return %[[S]], %[[F]] : index, index
// ARITH-NEXT: %[[C10:.*]] = arith.constant 10 : index
// ARITH-NEXT: %[[S:.*]] = arith.addi %arg0, %arg0 : index
// ARITH-NEXT: return %[[S]], %[[C10]] : index, index
func.func @layout_use(%x: index) -> (index, index) {
  %r = lego.row [4, 8] : !lego.layout
  %s = arith.addi %x, %x : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %f = lego.apply %r(%c1, %c2) : !lego.layout
  return %s, %f : index, index
}

// -----

// An unreachable block goes, and with it the only use of %a and then %a and its constant.
// CHECK-LABEL: func.func @unreachable_block
// CHECK-NEXT: return %arg0 : index
// CHECK-NEXT: }
func.func @unreachable_block(%x: index) -> index {
  %c3 = arith.constant 3 : index
  %a = arith.muli %x, %c3 : index
  return %x : index
^bb1:
  %b = arith.addi %a, %a : index
  return %b : index
}
