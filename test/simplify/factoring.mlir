// Re-association, distributive factoring and the cost model (verify-rewrites on: each rewrite proved).
// RUN: lego-opt %s --split-input-file --lego-arith-simplification='verify-rewrites=true' 2>&1 | FileCheck %s

// a·c + b·c → (a + b)·c: one multiplication instead of two.
// CHECK-LABEL: func.func @factor
// CHECK-SAME: (%[[A:.*]]: index, %[[B:.*]]: index, %[[C:.*]]: index)
// CHECK: %[[S:.*]] = arith.addi
// CHECK: %[[M:.*]] = arith.muli %[[S]], %[[C]] : index
// CHECK-NEXT: return %[[M]]
func.func @factor(%a: index, %b: index, %c: index) -> index {
  %x = arith.muli %a, %c : index
  %y = arith.muli %c, %b : index
  %s = arith.addi %x, %y : index
  return %s : index
}

// -----

// Already minimal (three ops either way): left as written.
// CHECK-LABEL: func.func @minimal
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK: arith.addi
func.func @minimal(%a: index, %b: index, %c: index) -> index {
  %x = arith.muli %a, %c : index
  %s = arith.addi %x, %b : index
  %t = arith.addi %s, %c : index
  return %t : index
}

// -----

// Re-association exposes cancellation: (x + y) − x → y, (x·4 + y) − 4·x → y.
// CHECK-LABEL: func.func @cancel
// CHECK-SAME: (%[[X:.*]]: index, %[[Y:.*]]: index)
// CHECK-NEXT: return %[[Y]], %[[Y]]
func.func @cancel(%x: index, %y: index) -> (index, index) {
  %c4 = arith.constant 4 : index
  %s = arith.addi %x, %y : index
  %d = arith.subi %s, %x : index
  %m = arith.muli %x, %c4 : index
  %t = arith.addi %m, %y : index
  %n = arith.muli %c4, %x : index
  %e = arith.subi %t, %n : index
  return %d, %e : index, index
}

// -----

// Mixed radix: (4·i + j) div 12 → i div 3 when j < 4 (Table II rule 2 through the factor 4).
// CHECK-LABEL: func.func @mixed_radix
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index)
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[Q:.*]] = arith.divui %[[I]], %[[C3]] : index
// CHECK-NEXT: return %[[Q]]
func.func @mixed_radix(%i: index, %j: index) -> index {
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c12 = arith.constant 12 : index
  lego.assume_bounds %i ub : %c6
  lego.assume_bounds %j ub : %c4
  %m = arith.muli %i, %c4 : index
  %x = arith.addi %m, %j : index
  %q = arith.divui %x, %c12 : index
  return %q : index
}

// -----

// Constants: (x div 4) div 8 → x div 32, (x mod 24) mod 8 → x mod 8, folding.
// CHECK-LABEL: func.func @constants
// CHECK-SAME: (%[[X:.*]]: index)
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C7:.*]] = arith.constant 7 : index
// CHECK-DAG: %[[D:.*]] = arith.divui %[[X]], %[[C32]] : index
// CHECK-DAG: %[[R:.*]] = arith.remui %[[X]], %[[C8]] : index
// CHECK: return %[[D]], %[[R]], %[[C7]]
func.func @constants(%x: index) -> (index, index, index) {
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c24 = arith.constant 24 : index
  %c60 = arith.constant 60 : index
  %a = arith.divui %x, %c4 : index
  %b = arith.divui %a, %c8 : index
  %m = arith.remui %x, %c24 : index
  %n = arith.remui %m, %c8 : index
  %k = arith.divui %c60, %c8 : index
  return %b, %n, %k : index, index, index
}

// -----

// Strength-reduced input is read too: (x << 3 | …) — shifts and masks are multiplications, divisions and
// remainders by powers of two: ((i << 4) + j) >> 4 → i and & 15 → j for j < 16.
// CHECK-LABEL: func.func @shifts
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index)
// CHECK: return %[[I]], %[[J]]
func.func @shifts(%i: index, %j: index) -> (index, index) {
  %c4 = arith.constant 4 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  lego.assume_bounds %i ub : %c1024
  lego.assume_bounds %j ub : %c16
  %s = arith.shli %i, %c4 : index
  %x = arith.addi %s, %j : index
  %q = arith.shrui %x, %c4 : index
  %r = arith.andi %x, %c15 : index
  return %q, %r : index, index
}

// -----

// i64 values are simplified like index values; narrower integers are left alone (2·y − y has no MLIR
// folder, so the greedy clean-up keeps it too).
// CHECK-LABEL: func.func @integers
// CHECK-SAME: (%[[X:.*]]: i64, %[[Y:.*]]: i32)
// CHECK: %[[T:.*]] = arith.muli %[[Y]], %{{.*}} : i32
// CHECK: arith.subi %[[T]], %[[Y]] : i32
// CHECK: return %[[X]]
func.func @integers(%x: i64, %y: i32) -> (i64, i32) {
  %c2 = arith.constant 2 : i64
  %c2_i32 = arith.constant 2 : i32
  %s = arith.muli %x, %c2 : i64
  %d = arith.subi %s, %x : i64
  %t = arith.muli %y, %c2_i32 : i32
  %e = arith.subi %t, %y : i32
  return %d, %e : i64, i32
}
