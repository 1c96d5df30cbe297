// Symbolic sizes without a stated upper bound: the layout contract (a layout has at most 2^63 - 1
// elements, docs/sizes.md) covers their product, so by default lego-external-smt-verifier reports nothing
// for it, as the published verifier; check-sizes=true reports the size check it cannot prove.
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-generate-bounds-checks --lego-external-smt-verifier='verbose=true'
// RUN: lego-opt %s --split-input-file --lego-generate-bounds-checks --lego-external-smt-verifier 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: not lego-opt %s --split-input-file --lego-generate-bounds-checks --lego-external-smt-verifier='check-sizes=true' 2>&1 | FileCheck %s --check-prefix=STRICT
// Not proved, the size check is kept with keep-unproved=true (a run-time assertion after lowering).
// RUN: lego-opt %s --split-input-file --lego-generate-bounds-checks --lego-external-smt-verifier='keep-unproved=true' | FileCheck %s --check-prefix=KEEP

// DEFAULT-NOT: Size overflow
// DEFAULT-NOT: error
// By hand: %N = 2^62, %M = 2 multiply to 2^63, one past the bound, so the strict report is a true one.
// STRICT: error: Size overflow is possible (proven by Z3)
// STRICT-NEXT: the symbolic sizes can be {{[0-9]+}}, {{[0-9]+}}, and the sizes of this layout then multiply to more than 2^63 - 1
// KEEP-LABEL: func.func @genp
// KEEP: cf.assert %{{.*}}, "'lego.gen_p' sizes multiply to more than 2^63 - 1" {lego.size_check}
// KEEP: lego.gen_p
func.func @genp(%N: index, %M: index, %i: index, %j: index) -> index {
  %c0 = arith.constant 0 : index
  lego.assume_bounds %i lb : %c0 ub : %N
  lego.assume_bounds %j lb : %c0 ub : %M
  %l = lego.gen_p [%N, %M] apply (%a: index, %b: index) {
    %t = arith.muli %a, %M : index
    %f = arith.addi %t, %b : index
    lego.yield %f : index
  } : !lego.layout
  // expected-remark @below {{bounds proved (Z3}}
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// -----

// Twin with an upper bound on each size: proved either way (2^20 · 2^20 < 2^63), the check is erased.
// KEEP-LABEL: func.func @bounded
// KEEP-NOT: cf.assert
// KEEP: return
func.func @bounded(%N: index, %M: index, %i: index, %j: index) -> index {
  %c0 = arith.constant 0 : index
  %cap = arith.constant 1048576 : index
  lego.assume_bounds %N ub : %cap
  lego.assume_bounds %M ub : %cap
  lego.assume_bounds %i lb : %c0 ub : %N
  lego.assume_bounds %j lb : %c0 ub : %M
  // expected-remark @below {{sizes proved to multiply to at most 2^63 - 1}}
  %l = lego.gen_p [%N, %M] apply (%a: index, %b: index) {
    %t = arith.muli %a, %M : index
    %f = arith.addi %t, %b : index
    lego.yield %f : index
  } : !lego.layout
  // expected-remark @below {{bounds proved (Z3}}
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}
