// Unimproved code keeps its form (issue 25): what the simplifier does not improve stays as the program wrote
// it — the same ops in the same order, operands in their order — because users' FileCheck lines match it.
// Expected lines written by hand from the input below (verify-rewrites on: the rewrite that fires is proved).
// RUN: lego-opt %s --split-input-file --lego-arith-simplification='verify-rewrites=true' 2>&1 | FileCheck %s

// A mixed-radix identity that does not fire: (w div 4)·4 + y mod 4 divides w but takes the remainder of y.
// Nothing is cheaper: every op stays, in order (the muli after the unrelated remui, the addi operands
// `%m, %r` and `%k, %m4` as written, not in the simplifier's canonical order).
// CHECK-LABEL: func.func @does_not_fire
// CHECK-SAME: (%[[X:.*]]: index, %[[Y:.*]]: index, %[[W:.*]]: index) -> index {
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[C7:.*]] = arith.constant 7 : index
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[X]], %[[C7]] : index
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[Y]], %[[C4]] : index
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[M]], %[[R]] : index
// CHECK-NEXT: %[[Q:.*]] = arith.divui %[[W]], %[[C4]] : index
// CHECK-NEXT: %[[M4:.*]] = arith.muli %[[Q]], %[[C4]] : index
// CHECK-NEXT: %[[K:.*]] = arith.remui %[[Y]], %[[C4]] : index
// CHECK-NEXT: %[[ID:.*]] = arith.addi %[[K]], %[[M4]] : index
// CHECK-NEXT: %[[T:.*]] = arith.addi %[[ID]], %[[S]] : index
// CHECK-NEXT: return %[[T]] : index
func.func @does_not_fire(%x: index, %y: index, %w: index) -> index {
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %r = arith.remui %x, %c7 : index
  %m = arith.muli %y, %c4 : index
  %s = arith.addi %m, %r : index
  %q = arith.divui %w, %c4 : index
  %m4 = arith.muli %q, %c4 : index
  %k = arith.remui %y, %c4 : index
  %id = arith.addi %k, %m4 : index
  %t = arith.addi %id, %s : index
  return %t : index
}

// -----

// The twin: (w div 4)·4 + w mod 4 → w (Table II rule 7) fires, and the root `%s + id` becomes `%s + w`
// (three ops and a division fewer). The part that did not change, `%s = 4·y + x mod 7`, is left as written:
// the remui before the muli, `addi %m, %r`, and the new root keeps `%s` first. (Before issue 25 the whole root
// was rebuilt in canonical order: the muli moved before the remui.)
// CHECK-LABEL: func.func @fires
// CHECK-SAME: (%[[X:.*]]: index, %[[Y:.*]]: index, %[[W:.*]]: index) -> index {
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[C7:.*]] = arith.constant 7 : index
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[X]], %[[C7]] : index
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[Y]], %[[C4]] : index
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[M]], %[[R]] : index
// CHECK-NEXT: %[[T:.*]] = arith.addi %[[S]], %[[W]] : index
// CHECK-NEXT: return %[[T]] : index
func.func @fires(%x: index, %y: index, %w: index) -> index {
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %r = arith.remui %x, %c7 : index
  %m = arith.muli %y, %c4 : index
  %s = arith.addi %m, %r : index
  %q = arith.divui %w, %c4 : index
  %m4 = arith.muli %q, %c4 : index
  %k = arith.remui %w, %c4 : index
  %id = arith.addi %k, %m4 : index
  %t = arith.addi %s, %id : index
  return %t : index
}
