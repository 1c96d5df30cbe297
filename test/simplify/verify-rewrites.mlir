// Translation validation: with verify-rewrites=true a rewrite that Z3 cannot prove equal under the facts is
// reported and not applied; without the option the same (correct) rewrite is made.
// RUN: lego-opt %s --lego-arith-simplification='verify-rewrites=true' --verify-diagnostics | FileCheck %s --check-prefix=VERIFY
// RUN: lego-opt %s --lego-arith-simplification | FileCheck %s --check-prefix=PLAIN

// (d·q + r) mod d → r mod d is right (its side conditions are proved from the bounds), but proving the
// rewritten value equal over 32-bit ranges needs bit-blasted division by a variable, beyond Z3 in the time
// given, and there are too many inputs to enumerate: reported (a warning), and the IR is left as it was.
// VERIFY-LABEL: func.func @unprovable
// VERIFY: arith.muli
// VERIFY: arith.remui
// PLAIN-LABEL: func.func @unprovable
// PLAIN-SAME: (%[[Q:.*]]: index, %[[R:.*]]: index, %[[D:.*]]: index)
// PLAIN-NOT: arith.muli
// PLAIN: arith.remui %[[R]], %[[D]]
func.func @unprovable(%q: index, %r: index, %d: index) -> index {
  %c1 = arith.constant 1 : index
  %big = arith.constant 4294967296 : index
  lego.assume_bounds %q ub : %big
  lego.assume_bounds %r ub : %big
  lego.assume_bounds %d lb : %c1 ub : %big
  %m = arith.muli %d, %q : index
  %s = arith.addi %m, %r : index
  // expected-warning@+1 {{lego-arith-simplification: could not prove the rewrite of this value}}
  %x = arith.remui %s, %d : index
  return %x : index
}

// Rule 7 with a symbolic divisor and no facts at all: Z3 proves it.
// VERIFY-LABEL: func.func @symbolic
// VERIFY-SAME: (%[[X:.*]]: index, %[[A:.*]]: index)
// VERIFY-NEXT: return %[[X]]
func.func @symbolic(%x: index, %a: index) -> index {
  %d = arith.divui %x, %a : index
  %m = arith.muli %a, %d : index
  %r = arith.remui %x, %a : index
  %s = arith.addi %m, %r : index
  return %s : index
}

// Constant divisors: the validation replaces x div 12, x mod 12 by q, r with x = 12·q + r, r < 12 (no
// division circuit), and proves it.
// VERIFY-LABEL: func.func @constant
// VERIFY-SAME: (%[[X:.*]]: index)
// VERIFY-NEXT: return %[[X]]
func.func @constant(%x: index) -> index {
  %c12 = arith.constant 12 : index
  %d = arith.divui %x, %c12 : index
  %m = arith.muli %d, %c12 : index
  %r = arith.remui %x, %c12 : index
  %s = arith.addi %r, %m : index
  return %s : index
}
