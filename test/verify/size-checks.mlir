// Size checks of symbolic sizes (docs/sizes.md): a layout has at most 2^63 - 1 elements. The verifier checks
// known sizes; for symbolic ones lego-generate-bounds-checks inserts, before the layout op, a division chain
// q = (((2^63 - 1) div K) div d1) ... div dk (K: the product of the known sizes) and cf.assert(0 < q), which
// cannot wrap itself; lego-external-smt-verifier proves or refutes it.
// RUN: lego-opt %s --split-input-file --lego-generate-bounds-checks | FileCheck %s --check-prefix=GEN
// Idempotent: a second run adds nothing.
// RUN: lego-opt %s --split-input-file --lego-generate-bounds-checks --lego-generate-bounds-checks | FileCheck %s --check-prefix=GEN
// The reports below are check-sizes=true's; by default the layout contract covers symbolic sizes and nothing
// is reported (size-contract.mlir).
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-generate-bounds-checks --lego-external-smt-verifier='verbose=true check-sizes=true'
// Proved checks are erased with their arithmetic (a refuted chunk prints nothing: the pass fails).
// RUN: not lego-opt %s --split-input-file --lego-generate-bounds-checks --lego-external-smt-verifier='check-sizes=true' 2>/dev/null | FileCheck %s --check-prefix=ERASE
// Unverified, the check stays and lowers to a run-time assertion.
// RUN: lego-opt %s --split-input-file --lego-generate-bounds-checks --lego-lower | FileCheck %s --check-prefix=LOWER

// row [%m, 4, %n]: K = 4, (2^63 - 1) div 4 = 2305843009213693951. Nothing bounds %m · %n: refuted, e.g.
// %m = 2^61, %n = 1 gives 2^63.
// GEN-LABEL: func.func @unbounded
// GEN-NEXT: %[[K:.*]] = arith.constant 2305843009213693951 : index
// GEN-NEXT: %[[Q0:.*]] = arith.divui %[[K]], %arg0 : index
// GEN-NEXT: %[[Q1:.*]] = arith.divui %[[Q0]], %arg1 : index
// GEN-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// GEN-NEXT: %[[OK:.*]] = arith.cmpi ult, %[[ZERO]], %[[Q1]] : index
// GEN-NEXT: cf.assert %[[OK]], "'lego.row' sizes multiply to more than 2^63 - 1" {lego.size_check}
// GEN-NEXT: = lego.row[%arg0, 4, %arg1]
// LOWER-LABEL: func.func @unbounded
// LOWER: arith.divui
// LOWER: cf.assert %{{.*}}, "'lego.row' sizes multiply to more than 2^63 - 1" {lego.size_check}
func.func @unbounded(%m: index, %n: index) -> index {
  // expected-error @below {{Size overflow is possible (proven by Z3){{\n}}the symbolic sizes can be {{[0-9]+}}, {{[0-9]+}}, and the sizes of this layout then multiply to more than 2^63 - 1}}
  %l = lego.row [%m, 4, %n] : !lego.layout
  %c0 = arith.constant 0 : index
  // expected-remark @below {{bounds proved (Z3}}
  %f = lego.apply %l(%c0, %c0, %c0) : !lego.layout
  return %f : index
}

// -----

// Twin: with %m, %n < 2^16 the sizes multiply to less than 2^34: proved, and the check is erased.
// GEN-LABEL: func.func @bounded
// GEN: cf.assert
// GEN-NEXT: = lego.row[%arg0, 4, %arg1]
// ERASE-LABEL: func.func @bounded
// ERASE-NOT: cf.assert
// ERASE-NOT: arith.divui
// ERASE: return
func.func @bounded(%m: index, %n: index, %i: index, %j: index) -> index {
  %c65536 = arith.constant 65536 : index
  lego.assume_bounds %m ub : %c65536
  lego.assume_bounds %n ub : %c65536
  // expected-remark @below {{sizes proved to multiply to at most 2^63 - 1 (Z3}}
  %l = lego.row [%m, 4, %n] : !lego.layout
  %c0 = arith.constant 0 : index
  // expected-remark @below {{bounds proved (Z3}}
  %f = lego.apply %l(%c0, %c0, %c0) : !lego.layout
  return %f : index
}

// -----

// Just at the bound: 2^61 · 4 = 2^63 elements is one too many (%m < 2^61 + 1 allows %m = 2^61); the twin
// below, %m < 2^61, fits exactly (at most (2^61 - 1) · 4 = 2^63 - 4).
func.func @at_the_bound(%m: index) -> index {
  %c = arith.constant 2305843009213693953 : index
  lego.assume_bounds %m ub : %c
  // expected-error @below {{Size overflow is possible (proven by Z3){{\n}}the symbolic sizes can be 2305843009213693952, and the sizes}}
  %l = lego.col [4, %m] : !lego.layout
  %c0 = arith.constant 0 : index
  // expected-remark @below {{bounds proved (Z3}}
  %f = lego.apply %l(%c0, %c0) : !lego.layout
  return %f : index
}

// -----

func.func @below_the_bound(%m: index) -> index {
  %c = arith.constant 2305843009213693952 : index
  lego.assume_bounds %m ub : %c
  // expected-remark @below {{sizes proved to multiply to at most 2^63 - 1 (Z3}}
  %l = lego.col [4, %m] : !lego.layout
  %c0 = arith.constant 0 : index
  // expected-remark @below {{bounds proved (Z3}}
  %f = lego.apply %l(%c0, %c0) : !lego.layout
  return %f : index
}

// -----

// Layouts whose sizes are all known get no check (the verifier counted them); an order_by of symbolic
// parts is checked as a whole as well as per part.
// GEN-LABEL: func.func @static_and_composite
// GEN-NEXT: = lego.row[4, 8]
// GEN: cf.assert %{{.*}}, "'lego.row' sizes
// GEN-NEXT: = lego.row[%arg0]
// GEN: cf.assert %{{.*}}, "'lego.order_by' sizes
// GEN-NEXT: = lego.order_by
func.func @static_and_composite(%m: index) -> index {
  %s = lego.row [4, 8] : !lego.layout
  %c1024 = arith.constant 1024 : index
  lego.assume_bounds %m ub : %c1024
  // expected-remark @below {{sizes proved}}
  %p = lego.row [%m] : !lego.layout
  // expected-remark @below {{sizes proved}}
  %o = lego.order_by(%s, %p) : !lego.layout
  %c0 = arith.constant 0 : index
  // expected-remark @below {{bounds proved (Z3}}
  %f = lego.apply %o(%c0, %c0, %c0) : !lego.layout
  return %f : index
}
