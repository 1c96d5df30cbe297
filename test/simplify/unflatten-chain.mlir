// An outermost-first unflatten chain (docs/reference/lowering.md §2: `divui f,S0; remui f,S0; divui r,S1; remui r,S1`)
// becomes the innermost-first one, whose quotients the results share:
//   (x mod (a·b)) div b → (x div b) mod a      (x mod (a·b)) mod b → x mod b
// for constant and symbolic products (b one factor of the modulus; a·b ≠ 0 because the program divides by it).
// The twins, where b does not divide the modulus, stay as written.
// RUN: lego-opt %s --split-input-file --lego-arith-simplification | FileCheck %s
// RUN: lego-opt %s --split-input-file --lego-arith-simplification='assume-no-wrap=false' | FileCheck %s --check-prefix=WRAP

// x = 12·q + 3·s + t (s < 4, t < 3): (x mod 12) div 3 = s = (x div 3) mod 4, (x mod 12) mod 3 = t = x mod 3;
// then, across the results, x div 12 = (x div 3) div 4 shares the division by 3 (test/simplify/share.mlir).
// CHECK-LABEL: func.func @chain_static
// CHECK-SAME: (%[[X:.*]]: index)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[D3:.*]] = arith.divui %[[X]], %[[C3]] : index
// CHECK-DAG: %[[Q0:.*]] = arith.divui %[[D3]], %[[C4]] : index
// CHECK-DAG: %[[Q1:.*]] = arith.remui %[[D3]], %[[C4]] : index
// CHECK-DAG: %[[R1:.*]] = arith.remui %[[X]], %[[C3]] : index
// CHECK: return %[[Q0]], %[[Q1]], %[[R1]] : index, index, index
func.func @chain_static(%x: index) -> (index, index, index) {
  %c3 = arith.constant 3 : index
  %c12 = arith.constant 12 : index
  %q0 = arith.divui %x, %c12 : index
  %r0 = arith.remui %x, %c12 : index
  %q1 = arith.divui %r0, %c3 : index
  %r1 = arith.remui %r0, %c3 : index
  return %q0, %q1, %r1 : index, index, index
}

// -----

// The same with sizes m, n: (x mod (m·n)) div n → (x div n) mod m, (x mod (m·n)) mod n → x mod n. Under
// wrap-around m·n may wrap (then it is not the product of the sizes): nothing is rewritten.
// CHECK-LABEL: func.func @chain_symbolic
// CHECK-SAME: (%[[X:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index)
// CHECK-DAG: %[[MN:.*]] = arith.muli %[[M]], %[[N]] : index
// CHECK-DAG: %[[Q0:.*]] = arith.divui %[[X]], %[[MN]] : index
// CHECK-DAG: %[[DN:.*]] = arith.divui %[[X]], %[[N]] : index
// CHECK-DAG: %[[Q1:.*]] = arith.remui %[[DN]], %[[M]] : index
// CHECK-DAG: %[[R1:.*]] = arith.remui %[[X]], %[[N]] : index
// CHECK-NOT: arith.remui %[[X]], %[[MN]]
// CHECK: return %[[Q0]], %[[Q1]], %[[R1]] : index, index, index
// WRAP-LABEL: func.func @chain_symbolic
// WRAP-SAME: (%[[X:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index)
// WRAP: %[[MN:.*]] = arith.muli %[[M]], %[[N]] : index
// WRAP-NEXT: %[[Q0:.*]] = arith.divui %[[X]], %[[MN]] : index
// WRAP-NEXT: %[[R0:.*]] = arith.remui %[[X]], %[[MN]] : index
// WRAP-NEXT: %[[Q1:.*]] = arith.divui %[[R0]], %[[N]] : index
// WRAP-NEXT: %[[R1:.*]] = arith.remui %[[R0]], %[[N]] : index
// WRAP-NEXT: return %[[Q0]], %[[Q1]], %[[R1]] : index, index, index
func.func @chain_symbolic(%x: index, %m: index, %n: index) -> (index, index, index) {
  %mn = arith.muli %m, %n : index
  %q0 = arith.divui %x, %mn : index
  %r0 = arith.remui %x, %mn : index
  %q1 = arith.divui %r0, %n : index
  %r1 = arith.remui %r0, %n : index
  return %q0, %q1, %r1 : index, index, index
}

// -----

// Twin: 5 does not divide 12, so (x mod 12) div 5 and (x mod 12) mod 5 stay.
// CHECK-LABEL: func.func @chain_not_dividing
// CHECK-SAME: (%[[X:.*]]: index)
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[C12:.*]] = arith.constant 12 : index
// CHECK: %[[R0:.*]] = arith.remui %[[X]], %[[C12]] : index
// CHECK-NEXT: %[[Q1:.*]] = arith.divui %[[R0]], %[[C5]] : index
// CHECK-NEXT: %[[R1:.*]] = arith.remui %[[R0]], %[[C5]] : index
// CHECK-NEXT: return %[[Q1]], %[[R1]] : index, index
func.func @chain_not_dividing(%x: index) -> (index, index) {
  %c5 = arith.constant 5 : index
  %c12 = arith.constant 12 : index
  %r0 = arith.remui %x, %c12 : index
  %q1 = arith.divui %r0, %c5 : index
  %r1 = arith.remui %r0, %c5 : index
  return %q1, %r1 : index, index
}

// -----

// Twin: the modulus m is no multiple of n (as a polynomial), so (x mod m) div n and (x mod m) mod n stay.
// CHECK-LABEL: func.func @chain_symbolic_not_dividing
// CHECK-SAME: (%[[X:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index)
// CHECK: %[[R0:.*]] = arith.remui %[[X]], %[[M]] : index
// CHECK-NEXT: %[[Q1:.*]] = arith.divui %[[R0]], %[[N]] : index
// CHECK-NEXT: %[[R1:.*]] = arith.remui %[[R0]], %[[N]] : index
// CHECK-NEXT: return %[[Q1]], %[[R1]] : index, index
func.func @chain_symbolic_not_dividing(%x: index, %m: index, %n: index) -> (index, index) {
  %r0 = arith.remui %x, %m : index
  %q1 = arith.divui %r0, %n : index
  %r1 = arith.remui %r0, %n : index
  return %q1, %r1 : index, index
}
