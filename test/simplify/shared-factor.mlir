// Shared-factor div/mod rules of lego-arith-simplification: x = q·s + r, y = k·s (s a product the divisor
// shares with a term of x, here 4·%s) gives x div y = q div k + ((q mod k)·s + r) div (k·s) and
// x mod y = ((q mod k)·s + r) mod (k·s), exact for r ≥ 0 without wrap-around; with 0 ≤ r < s the tails
// vanish. Neither a single atom (%s) nor a constant (4) of the divisor is such a factor here, so the
// mixed-radix rule alone leaves this as written.
// RUN: lego-opt %s --split-input-file --lego-arith-simplification | FileCheck %s
// (verify-rewrites=true cannot help here: Z3 gives up on the symbolic non-linear division; the values are
// checked by hand below.)

// Checked by hand, %i = 3, %j = 5, %s = 2 (%j < 4·%s = 8): x = 5 + 3·8 = 29, y = 16; 29 div 16 = 1 = 3 div 2 and
// 29 mod 16 = 13 = (3 mod 2)·8 + 5.
// CHECK-LABEL: func.func @shared_factor
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[S:.*]]: index)
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[Q:.*]] = arith.divui %[[I]], %[[C2]] : index
// CHECK-NEXT: %[[IM:.*]] = arith.remui %[[I]], %[[C2]] : index
// CHECK-NEXT: %[[T:.*]] = arith.muli %[[S]], %[[IM]] : index
// CHECK-NEXT: %[[T4:.*]] = arith.muli %[[T]], %[[C4]] : index
// CHECK-NEXT: %[[R:.*]] = arith.addi %[[T4]], %[[J]] : index
// CHECK-NEXT: return %[[Q]], %[[R]]
func.func @shared_factor(%i: index, %j: index, %s: index) -> (index, index) {
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %s4 = arith.muli %s, %c4 : index
  lego.assume_bounds %j ub : %s4
  %t = arith.muli %i, %s4 : index
  %x = arith.addi %j, %t : index
  %s8 = arith.muli %s, %c8 : index
  %q = arith.divui %x, %s8 : index
  %r = arith.remui %x, %s8 : index
  return %q, %r : index, index
}

// -----

// Twin: %j ≤ 4·%s (one more than above), so r < s is not provable and the tail does not vanish: %j = 4·%s
// carries into the next multiple of 8·%s — by hand, %i = 1, %s = 1, %j = 4: (4 + 4) div 8 = 1 but 1 div 2 = 0
// (the full form 1 div 2 + ((1 mod 2)·4 + 4) div 8 = 0 + 1 is exact, but not cheaper). Nothing fires: divui and
// remui of x by 8·%s stay.
// CHECK-LABEL: func.func @r_not_below_s
// CHECK: lego.assume_bounds
// CHECK: %[[X:.*]] = arith.addi
// CHECK: %[[Y:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[Q:.*]] = arith.divui %[[X]], %[[Y]] : index
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[X]], %[[Y]] : index
// CHECK-NEXT: return %[[Q]], %[[R]]
func.func @r_not_below_s(%i: index, %j: index, %s: index) -> (index, index) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %s4 = arith.muli %s, %c4 : index
  %s4p1 = arith.addi %s4, %c1 : index
  lego.assume_bounds %j ub : %s4p1
  %t = arith.muli %i, %s4 : index
  %x = arith.addi %j, %t : index
  %s8 = arith.muli %s, %c8 : index
  %q = arith.divui %x, %s8 : index
  %r = arith.remui %x, %s8 : index
  return %q, %r : index, index
}
