// Copies of one function in a module (what a module of many layout uses holds): the simplifier plans the
// first copy and replays its rewrites on the others (passes/src/simplify/memo.rs). Each copy must come out as
// if planned alone, and a function that differs from a planned one only in a constant or in a fact must be
// planned on its own. With verify-rewrites=true the memo is off: the output is the same.
// RUN: lego-opt %s --lego-arith-simplification | FileCheck %s
// RUN: lego-opt %s --lego-arith-simplification='verify-rewrites=true' | FileCheck %s

// (6·q + r) mod 6 → r mod 6 (q, r < 1000), then r mod 6 stays.
// CHECK-LABEL: func.func @a1
// CHECK-SAME: (%[[Q:.*]]: index, %[[R:.*]]: index)
// CHECK: %[[C6:.*]] = arith.constant 6 : index
// CHECK: %[[M:.*]] = arith.remui %[[R]], %[[C6]] : index
// CHECK-NEXT: return %[[M]]
func.func @a1(%q: index, %r: index) -> index {
  %c6 = arith.constant 6 : index
  %c1000 = arith.constant 1000 : index
  lego.assume_bounds %q ub : %c1000
  lego.assume_bounds %r ub : %c1000
  %m = arith.muli %q, %c6 : index
  %s = arith.addi %m, %r : index
  %x = arith.remui %s, %c6 : index
  return %x : index
}

// The twin by a constant: (6·q + r) mod 7 has no rule (6 is no multiple of 7): unchanged.
// CHECK-LABEL: func.func @c1
// CHECK-SAME: (%[[Q:.*]]: index, %[[R:.*]]: index)
// CHECK: %[[M:.*]] = arith.muli %[[Q]], %{{.*}} : index
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[M]], %[[R]] : index
// CHECK-NEXT: %[[X:.*]] = arith.remui %[[S]], %{{.*}} : index
// CHECK-NEXT: return %[[X]]
func.func @c1(%q: index, %r: index) -> index {
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c1000 = arith.constant 1000 : index
  lego.assume_bounds %q ub : %c1000
  lego.assume_bounds %r ub : %c1000
  %m = arith.muli %q, %c6 : index
  %s = arith.addi %m, %r : index
  %x = arith.remui %s, %c7 : index
  return %x : index
}

// A copy of @a1.
// CHECK-LABEL: func.func @a2
// CHECK-SAME: (%[[Q:.*]]: index, %[[R:.*]]: index)
// CHECK: %[[C6:.*]] = arith.constant 6 : index
// CHECK: %[[M:.*]] = arith.remui %[[R]], %[[C6]] : index
// CHECK-NEXT: return %[[M]]
func.func @a2(%q: index, %r: index) -> index {
  %c6 = arith.constant 6 : index
  %c1000 = arith.constant 1000 : index
  lego.assume_bounds %q ub : %c1000
  lego.assume_bounds %r ub : %c1000
  %m = arith.muli %q, %c6 : index
  %s = arith.addi %m, %r : index
  %x = arith.remui %s, %c6 : index
  return %x : index
}

// The twin by a fact's constant (the same ops as @a1): r < 6 makes r mod 6 = r (rule 5) as well.
// CHECK-LABEL: func.func @b1
// CHECK-SAME: (%[[Q:.*]]: index, %[[R:.*]]: index)
// CHECK-NOT: arith.remui
// CHECK: return %[[R]]
func.func @b1(%q: index, %r: index) -> index {
  %c6 = arith.constant 6 : index
  %bound = arith.constant 6 : index
  lego.assume_bounds %q ub : %bound
  lego.assume_bounds %r ub : %bound
  %m = arith.muli %q, %c6 : index
  %s = arith.addi %m, %r : index
  %x = arith.remui %s, %c6 : index
  return %x : index
}

// A second copy of @a1, after the twins.
// CHECK-LABEL: func.func @a3
// CHECK-SAME: (%[[Q:.*]]: index, %[[R:.*]]: index)
// CHECK: %[[C6:.*]] = arith.constant 6 : index
// CHECK: %[[M:.*]] = arith.remui %[[R]], %[[C6]] : index
// CHECK-NEXT: return %[[M]]
func.func @a3(%q: index, %r: index) -> index {
  %c6 = arith.constant 6 : index
  %c1000 = arith.constant 1000 : index
  lego.assume_bounds %q ub : %c1000
  lego.assume_bounds %r ub : %c1000
  %m = arith.muli %q, %c6 : index
  %s = arith.addi %m, %r : index
  %x = arith.remui %s, %c6 : index
  return %x : index
}

// A copy of @b1.
// CHECK-LABEL: func.func @b2
// CHECK-SAME: (%[[Q:.*]]: index, %[[R:.*]]: index)
// CHECK-NOT: arith.remui
// CHECK: return %[[R]]
func.func @b2(%q: index, %r: index) -> index {
  %c6 = arith.constant 6 : index
  %bound = arith.constant 6 : index
  lego.assume_bounds %q ub : %bound
  lego.assume_bounds %r ub : %bound
  %m = arith.muli %q, %c6 : index
  %s = arith.addi %m, %r : index
  %x = arith.remui %s, %c6 : index
  return %x : index
}
