// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-generate-bounds-checks --lego-lower --lego-external-smt-verifier='verbose=true'
// RUN: lego-opt %s --split-input-file --lego-generate-bounds-checks --lego-lower | FileCheck %s
// Without asserts, lego-lower consumes the facts as before (docs/reference/lowering.md §3): no lego op is left.
// RUN: lego-opt %s --split-input-file --lego-lower | FileCheck %s --check-prefix=PLAIN
// PLAIN-NOT: lego.
// The user's facts are the premises of the bounds obligations lego-generate-bounds-checks states, so
// lego-lower keeps them in a function that still holds an assert: the verifier after it proves what it
// proves before (bounds.mlir), and refutes only what is really out of bounds.

// By hand: %i < %N <= 10 and %j < 5, so (%i, %j) is inside row [10, 5].
// CHECK-LABEL: func.func @facts_survive
// CHECK-DAG: lego.assume_bounds %arg0 ub : %{{.*}}
// CHECK-DAG: lego.assume_bounds %arg1 lb : %{{.*}} ub : %arg0
// CHECK-DAG: lego.assume_bounds %arg2 lb : %{{.*}} ub : %{{.*}}
// CHECK: lego.assert_apply_bounds
func.func @facts_survive(%N: index, %i: index, %j: index) -> index {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %c10 = arith.constant 10 : index
  lego.assume_bounds %N ub : %c10
  lego.assume_bounds %i lb : %c0 ub : %N
  lego.assume_bounds %j lb : %c0 ub : %c5
  %l = lego.row [10, 5] : !lego.layout
  // expected-remark @below {{bounds proved (Z3}}
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// -----

// Twin: %j may reach 5 (ub 6), one past dim 1 — still refuted, with a counterexample inside the facts.
// CHECK-LABEL: func.func @really_out_of_bounds
func.func @really_out_of_bounds(%N: index, %i: index, %j: index) -> index {
  %c0 = arith.constant 0 : index
  %c6 = arith.constant 6 : index
  %c10 = arith.constant 10 : index
  lego.assume_bounds %N ub : %c10
  lego.assume_bounds %i lb : %c0 ub : %N
  lego.assume_bounds %j lb : %c0 ub : %c6
  %l = lego.row [10, 5] : !lego.layout
  // expected-error @below {{Out-of-bounds access is possible (proven by Z3){{\n}}index 1 of the layout is 5 but dim 1 is 5}}
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}
