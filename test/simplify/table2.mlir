// The seven rules of docs/reference/semantics.md's Table II, each firing when its side condition is proved from the range
// facts and left alone when it is not. Every rewrite is also proved equal to what it replaces
// (verify-rewrites=true: a rewrite Z3 cannot prove would be reported as an error and not applied).
// RUN: lego-opt %s --split-input-file --lego-arith-simplification='verify-rewrites=true' 2>&1 | FileCheck %s

// Rule 1: (d·q + r) mod d → r mod d, d ≠ 0, no wrap-around (q, r bounded).
// CHECK-LABEL: func.func @rule1_mod
// CHECK-SAME: (%[[Q:.*]]: index, %[[R:.*]]: index)
// CHECK: %[[C6:.*]] = arith.constant 6 : index
// CHECK: %[[M:.*]] = arith.remui %[[R]], %[[C6]] : index
// CHECK-NEXT: return %[[M]]
func.func @rule1_mod(%q: index, %r: index) -> index {
  %c6 = arith.constant 6 : index
  %c1000 = arith.constant 1000 : index
  lego.assume_bounds %q ub : %c1000
  lego.assume_bounds %r ub : %c1000
  %m = arith.muli %q, %c6 : index
  %s = arith.addi %m, %r : index
  %x = arith.remui %s, %c6 : index
  return %x : index
}

// -----

// Not fired: without bounds q·6 + r may wrap around 2^64, and then the remainder differs.
// CHECK-LABEL: func.func @rule1_mod_may_wrap
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK: arith.remui
func.func @rule1_mod_may_wrap(%q: index, %r: index) -> index {
  %c6 = arith.constant 6 : index
  %m = arith.muli %q, %c6 : index
  %s = arith.addi %m, %r : index
  %x = arith.remui %s, %c6 : index
  return %x : index
}

// -----

// A power-of-two modulus divides 2^64: the multiple drops out even when the sum may wrap.
// CHECK-LABEL: func.func @rule1_mod_power_of_two
// CHECK-SAME: (%[[Q:.*]]: index, %[[R:.*]]: index)
// CHECK-NOT: arith.muli
// CHECK: %[[M:.*]] = arith.remui %[[R]], %{{.*}} : index
// CHECK-NEXT: return %[[M]]
func.func @rule1_mod_power_of_two(%q: index, %r: index) -> index {
  %c8 = arith.constant 8 : index
  %c24 = arith.constant 24 : index
  %m = arith.muli %q, %c24 : index
  %s = arith.addi %m, %r : index
  %x = arith.remui %s, %c8 : index
  return %x : index
}

// -----

// Rule 1 with a symbolic modulus d ≥ 1. (Bounds are small so that the translation validation can decide it:
// Z3 struggles with bit-blasted division by a variable, small input boxes are enumerated instead.)
// CHECK-LABEL: func.func @rule1_mod_symbolic
// CHECK-SAME: (%[[Q:.*]]: index, %[[R:.*]]: index, %[[D:.*]]: index)
// CHECK-NOT: arith.muli
// CHECK: %[[M:.*]] = arith.remui %[[R]], %[[D]] : index
// CHECK-NEXT: return %[[M]]
func.func @rule1_mod_symbolic(%q: index, %r: index, %d: index) -> index {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  lego.assume_bounds %q ub : %c64
  lego.assume_bounds %r ub : %c64
  lego.assume_bounds %d lb : %c1 ub : %c16
  %m = arith.muli %d, %q : index
  %s = arith.addi %m, %r : index
  %x = arith.remui %s, %d : index
  return %x : index
}

// -----

// Rule 2: (d·q + r) div d → q when 0 ≤ r < d.
// CHECK-LABEL: func.func @rule2_div
// CHECK-SAME: (%[[Q:.*]]: index, %[[R:.*]]: index, %[[D:.*]]: index)
// CHECK-NOT: arith.divui
// CHECK: return %[[Q]]
func.func @rule2_div(%q: index, %r: index, %d: index) -> index {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  lego.assume_bounds %q ub : %c64
  lego.assume_bounds %d lb : %c1 ub : %c16
  lego.assume_bounds %r ub : %d
  %m = arith.muli %q, %d : index
  %s = arith.addi %m, %r : index
  %x = arith.divui %s, %d : index
  return %x : index
}

// -----

// Rule 2, second form: (d·q + r) div d → q + r div d when r may reach d (cheaper here: d·q + r is not
// needed otherwise).
// CHECK-LABEL: func.func @rule2_div_partial
// CHECK-SAME: (%[[Q:.*]]: index, %[[R:.*]]: index)
// CHECK-NOT: arith.muli
// CHECK: %[[D:.*]] = arith.divui %[[R]], %{{.*}} : index
// CHECK: %[[S:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: return %[[S]]
func.func @rule2_div_partial(%q: index, %r: index) -> index {
  %c6 = arith.constant 6 : index
  %c1000 = arith.constant 1000 : index
  lego.assume_bounds %q ub : %c1000
  lego.assume_bounds %r ub : %c1000
  %m = arith.muli %q, %c6 : index
  %s = arith.addi %m, %r : index
  %x = arith.divui %s, %c6 : index
  return %x : index
}

// -----

// Fired although d may be zero: division by zero is undefined (docs/reference/semantics.md), so d ≠ 0 wherever the program
// divides by d, and q·d + r < 64·16 + 16 does not wrap: (q·d + r) div d → q + r div d.
// CHECK-LABEL: func.func @rule2_div_maybe_zero
// CHECK-SAME: (%[[Q:.*]]: index, %[[R:.*]]: index, %[[D:.*]]: index)
// CHECK-NOT: arith.muli
// CHECK: %[[T:.*]] = arith.divui %[[R]], %[[D]] : index
// CHECK: %[[S:.*]] = arith.addi %[[Q]], %[[T]] : index
// CHECK: return %[[S]]
func.func @rule2_div_maybe_zero(%q: index, %r: index, %d: index) -> index {
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  lego.assume_bounds %q ub : %c64
  lego.assume_bounds %d ub : %c16
  lego.assume_bounds %r ub : %c16
  %m = arith.muli %q, %d : index
  %s = arith.addi %m, %r : index
  %x = arith.divui %s, %d : index
  return %x : index
}

// -----

// Rule 3: (x mod d) div d → 0 for d > 0.
// CHECK-LABEL: func.func @rule3
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NOT: arith.divui
// CHECK: return %[[Z]]
func.func @rule3(%x: index, %d: index) -> index {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  lego.assume_bounds %x ub : %c256
  lego.assume_bounds %d lb : %c1 ub : %c16
  %m = arith.remui %x, %d : index
  %q = arith.divui %m, %d : index
  return %q : index
}

// -----

// Fired on bare arguments: d may be 0, but division by zero is undefined, so x remui d < d wherever the
// program divides by d: (x mod d) div d → 0.
// CHECK-LABEL: func.func @rule3_maybe_zero
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NOT: arith.remui
// CHECK-NOT: arith.divui
// CHECK: return %[[Z]]
func.func @rule3_maybe_zero(%x: index, %d: index) -> index {
  %m = arith.remui %x, %d : index
  %q = arith.divui %m, %d : index
  return %q : index
}

// -----

// Rule 4: x div a → 0 for 0 ≤ x < a (a relational fact: x < a for a symbolic a).
// CHECK-LABEL: func.func @rule4
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NOT: arith.divui
// CHECK: return %[[Z]], %[[Z]]
func.func @rule4(%x: index, %a: index) -> (index, index) {
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  lego.assume_bounds %a ub : %c64
  lego.assume_bounds %x ub : %a
  %q = arith.divui %x, %a : index
  lego.assume_bounds %x ub : %c12
  %r = arith.divui %x, %c16 : index
  return %q, %r : index, index
}

// -----

// Not fired: x may reach a.
// CHECK-LABEL: func.func @rule4_unbounded
// CHECK: arith.divui
func.func @rule4_unbounded(%x: index, %a: index) -> index {
  %c1 = arith.constant 1 : index
  lego.assume_bounds %a lb : %c1
  %q = arith.divui %x, %a : index
  return %q : index
}

// -----

// Rule 5: x mod a → x for 0 ≤ x < a.
// CHECK-LABEL: func.func @rule5
// CHECK-SAME: (%[[X:.*]]: index, %[[A:.*]]: index)
// CHECK-NOT: arith.remui
// CHECK: return %[[X]]
func.func @rule5(%x: index, %a: index) -> index {
  %c64 = arith.constant 64 : index
  lego.assume_bounds %a ub : %c64
  %lt = arith.cmpi ult, %x, %a : index
  lego.assume %lt
  %r = arith.remui %x, %a : index
  return %r : index
}

// -----

// Not fired: the fact bounds x by 17, but the modulus is 16.
// CHECK-LABEL: func.func @rule5_out_of_range
// CHECK: arith.remui
func.func @rule5_out_of_range(%x: index) -> index {
  %c16 = arith.constant 16 : index
  %c17 = arith.constant 17 : index
  lego.assume_bounds %x ub : %c17
  %r = arith.remui %x, %c16 : index
  return %r : index
}

// -----

// Rule 6: (n + y) div 1 → n + y (no condition).
// CHECK-LABEL: func.func @rule6
// CHECK: %[[S:.*]] = arith.addi
// CHECK-NOT: arith.divui
// CHECK: return %[[S]]
func.func @rule6(%n: index, %y: index) -> index {
  %c1 = arith.constant 1 : index
  %s = arith.addi %n, %y : index
  %q = arith.divui %s, %c1 : index
  return %q : index
}

// -----

// Rule 7: a·(x div a) + x mod a → x, exact for every a (x urem 0 = x), so no fact is needed by the rule
// (verify-rewrites.mlir shows it without facts); the bounds here only let the validation enumerate.
// CHECK-LABEL: func.func @rule7
// CHECK-SAME: (%[[X:.*]]: index, %[[A:.*]]: index)
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: return %[[X]]
func.func @rule7(%x: index, %a: index) -> index {
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  lego.assume_bounds %x ub : %c256
  lego.assume_bounds %a ub : %c16
  %d = arith.divui %x, %a : index
  %m = arith.muli %a, %d : index
  %r = arith.remui %x, %a : index
  %s = arith.addi %m, %r : index
  return %s : index
}

// -----

// Not fired: the multiple is of a different divisor.
// CHECK-LABEL: func.func @rule7_mismatch
// CHECK: arith.divui
// CHECK: arith.remui
func.func @rule7_mismatch(%x: index, %a: index, %b: index) -> index {
  %d = arith.divui %x, %a : index
  %m = arith.muli %b, %d : index
  %r = arith.remui %x, %a : index
  %s = arith.addi %m, %r : index
  return %s : index
}
