// Cross-root division sharing (lego-arith-simplification, passes/src/simplify/share.rs): a division by a
// constant that another root's division makes cheaper is derived from it, one division less each:
//   x div (e·2^k) → (x div e) div 2^k                      (unsigned division composes)
//   x div d → ((c·x + r) div e) div 2^k   for c·d = e·2^k   (0 ≤ r < c proved: then x = (c·x + r) div c)
// The twins, where the quotient of the divisors is no power of two (no saving), the remainder bound does not
// hold, or the other division is not available where the target is, stay as written. Every rewrite here is
// also proved by translation validation (verify-rewrites=true, no diagnostic expected).
// RUN: lego-opt %s --split-input-file --lego-arith-simplification | FileCheck %s --check-prefixes=CHECK,NOWRAP
// RUN: lego-opt %s --split-input-file --lego-arith-simplification='verify-rewrites=true' --verify-diagnostics | FileCheck %s --check-prefixes=CHECK,NOWRAP
// RUN: lego-opt %s --split-input-file --lego-arith-simplification='assume-no-wrap=false' | FileCheck %s --check-prefixes=CHECK,WRAP

// x div 12 = (x div 3) div 4, and x div 48 = (x div 3) div 16: x div 3 is computed once, before the roots
// that now use it (it was written after them).
// CHECK-LABEL: func.func @same_dividend
// CHECK-SAME: (%[[X:.*]]: index)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: %[[D3:.*]] = arith.divui %[[X]], %[[C3]] : index
// CHECK-NEXT: %[[D12:.*]] = arith.divui %[[D3]], %[[C4]] : index
// CHECK-NEXT: %[[D48:.*]] = arith.divui %[[D3]], %[[C16]] : index
// CHECK-NEXT: return %[[D12]], %[[D48]], %[[D3]] : index, index, index
func.func @same_dividend(%x: index) -> (index, index, index) {
  %c3 = arith.constant 3 : index
  %c12 = arith.constant 12 : index
  %c48 = arith.constant 48 : index
  %a = arith.divui %x, %c12 : index
  %b = arith.divui %x, %c48 : index
  %c = arith.divui %x, %c3 : index
  return %a, %b, %c : index, index, index
}

// -----

// Twin: 9 = 3·3 is no power of two times 3 (x div 9 = (x div 3) div 3 would still divide): unchanged.
// CHECK-LABEL: func.func @odd_factor
// CHECK-SAME: (%[[X:.*]]: index)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C9:.*]] = arith.constant 9 : index
// CHECK: %[[A:.*]] = arith.divui %[[X]], %[[C9]] : index
// CHECK-NEXT: %[[B:.*]] = arith.divui %[[X]], %[[C3]] : index
// CHECK-NEXT: return %[[A]], %[[B]] : index, index
func.func @odd_factor(%x: index) -> (index, index) {
  %c3 = arith.constant 3 : index
  %c9 = arith.constant 9 : index
  %a = arith.divui %x, %c9 : index
  %b = arith.divui %x, %c3 : index
  return %a, %b : index, index
}

// -----

// Twin: different dividends with no relation: unchanged.
// CHECK-LABEL: func.func @unrelated
// CHECK-SAME: (%[[X:.*]]: index, %[[Y:.*]]: index)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C12:.*]] = arith.constant 12 : index
// CHECK: %[[A:.*]] = arith.divui %[[X]], %[[C12]] : index
// CHECK-NEXT: %[[B:.*]] = arith.divui %[[Y]], %[[C3]] : index
// CHECK-NEXT: return %[[A]], %[[B]] : index, index
func.func @unrelated(%x: index, %y: index) -> (index, index) {
  %c3 = arith.constant 3 : index
  %c12 = arith.constant 12 : index
  %a = arith.divui %x, %c12 : index
  %b = arith.divui %y, %c3 : index
  return %a, %b : index, index
}

// -----

// f = 4·i + j with i < 6, j < 4 (paper Fig. 2's flattening over [6, 4]): i = f div 4, so i div 3 = f div 12 =
// (f div 6) div 2 — the division by 6 the other root needs anyway. f and f div 6 move before the root.
// CHECK-LABEL: func.func @mixed_radix_dividend
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index)
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK: lego.assume_bounds %[[J]] ub : %[[C4]]
// CHECK-NEXT: %[[I4:.*]] = arith.muli %[[I]], %[[C4]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[J]], %[[I4]] : index
// CHECK-NEXT: %[[F6:.*]] = arith.divui %[[F]], %[[C6]] : index
// CHECK-NEXT: %[[A:.*]] = arith.divui %[[F6]], %[[C2]] : index
// CHECK-NEXT: return %[[A]], %[[F6]] : index, index
func.func @mixed_radix_dividend(%i: index, %j: index) -> (index, index) {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  lego.assume_bounds %i ub : %c6
  lego.assume_bounds %j ub : %c4
  %a = arith.divui %i, %c3 : index
  %m = arith.muli %i, %c4 : index
  %f = arith.addi %j, %m : index
  %b = arith.divui %f, %c6 : index
  return %a, %b : index, index
}

// -----

// The same with i unbounded: 4·i + j is the program's own sum, so under assume-no-wrap it does not wrap and
// the rewrite holds (translation validation assumes the same of the source's sums: proved); under
// wrap-around 4·i may wrap (i = 2^62: f div 12 = 0, i div 3 ≠ 0), so it stays.
// CHECK-LABEL: func.func @mixed_radix_unbounded
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index)
// NOWRAP: lego.assume_bounds %[[J]]
// NOWRAP-NEXT: %[[I4:.*]] = arith.muli %[[I]], %{{.*}} : index
// NOWRAP-NEXT: %[[F:.*]] = arith.addi %[[J]], %[[I4]] : index
// NOWRAP-NEXT: %[[F6:.*]] = arith.divui %[[F]], %{{.*}} : index
// NOWRAP-NEXT: %[[A:.*]] = arith.divui %[[F6]], %{{.*}} : index
// NOWRAP-NEXT: return %[[A]], %[[F6]] : index, index
// WRAP: lego.assume_bounds %[[J]]
// WRAP-NEXT: %[[A:.*]] = arith.divui %[[I]], %{{.*}} : index
// WRAP-NEXT: %[[I4:.*]] = arith.muli %[[I]], %{{.*}} : index
// WRAP-NEXT: %[[F:.*]] = arith.addi %[[J]], %[[I4]] : index
// WRAP-NEXT: %[[B:.*]] = arith.divui %[[F]], %{{.*}} : index
// WRAP-NEXT: return %[[A]], %[[B]] : index, index
func.func @mixed_radix_unbounded(%i: index, %j: index) -> (index, index) {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  lego.assume_bounds %j ub : %c4
  %a = arith.divui %i, %c3 : index
  %m = arith.muli %i, %c4 : index
  %f = arith.addi %j, %m : index
  %b = arith.divui %f, %c6 : index
  return %a, %b : index, index
}

// -----

// Twin: j < 5 lets j reach 4, and then f = 4·i + j is no longer 4·(f div 4) + j (i = 2, j = 4: i div 3 = 0
// but f div 12 = 1): unchanged.
// CHECK-LABEL: func.func @mixed_radix_carry
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK: lego.assume_bounds %[[J]] ub : %[[C5]]
// CHECK-NEXT: %[[A:.*]] = arith.divui %[[I]], %[[C3]] : index
// CHECK-NEXT: %[[I4:.*]] = arith.muli %[[I]], %[[C4]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[J]], %[[I4]] : index
// CHECK-NEXT: %[[B:.*]] = arith.divui %[[F]], %[[C6]] : index
// CHECK-NEXT: return %[[A]], %[[B]] : index, index
func.func @mixed_radix_carry(%i: index, %j: index) -> (index, index) {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  lego.assume_bounds %j ub : %c5
  %a = arith.divui %i, %c3 : index
  %m = arith.muli %i, %c4 : index
  %f = arith.addi %j, %m : index
  %b = arith.divui %f, %c6 : index
  return %a, %b : index, index
}

// -----

// Twin: the division by 3 is inside a region the root is not in (it does not dominate it and cannot move
// out): unchanged.
// CHECK-LABEL: func.func @not_available
// CHECK-SAME: (%[[X:.*]]: index, %[[P:.*]]: i1)
// CHECK: %[[A:.*]] = arith.divui %[[X]], %{{.*}} : index
// CHECK: scf.if %[[P]]
// CHECK-NEXT: %[[B:.*]] = arith.divui %[[X]], %{{.*}} : index
// CHECK-NEXT: scf.yield %[[B]] : index
func.func @not_available(%x: index, %p: i1) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c12 = arith.constant 12 : index
  %a = arith.divui %x, %c12 : index
  %b = scf.if %p -> index {
    %d = arith.divui %x, %c3 : index
    scf.yield %d : index
  } else {
    scf.yield %c0 : index
  }
  return %a, %b : index, index
}
