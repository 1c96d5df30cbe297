// RUN: lego-opt %s --split-input-file --lego-generate-bounds-checks | FileCheck %s --check-prefix=GEN
// Idempotent: a second run adds nothing (GEN-NEXT would see a second assert).
// RUN: lego-opt %s --split-input-file --lego-generate-bounds-checks --lego-generate-bounds-checks | FileCheck %s --check-prefix=GEN
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-generate-bounds-checks --lego-external-smt-verifier='verbose=true'
// RUN: not lego-opt %s --split-input-file --lego-generate-bounds-checks --lego-external-smt-verifier -o /dev/null
// RUN: not lego-opt %s --split-input-file --lego-generate-bounds-checks --lego-external-smt-verifier 2>/dev/null | FileCheck %s --check-prefix=ERASE
// RUN: not lego-opt %s --split-input-file --lego-generate-bounds-checks --lego-external-smt-verifier='keep-unproved=true' 2>/dev/null | FileCheck %s --check-prefix=KEEP
// The layout-contract facts lego-to-arith{assume-bounds=true} states are no premises of the obligations
// (they restate them): the same proofs and refutations after lowering.
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-generate-bounds-checks --lego-to-arith='assume-bounds=true' --lego-external-smt-verifier='verbose=true'
// Bounds obligations of layout uses: generated before each apply / apply_inverse / load / store, then
// proved from the surrounding facts (loop bounds, lego.assume*) or refuted with a counterexample.

// GEN-LABEL: func.func @loop
// GEN: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// GEN: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// GEN-NEXT: lego.assert_apply_bounds %[[L:.*]](%[[I]], %[[J]]) : !lego.layout
// GEN-NEXT: lego.apply %[[L]](%[[I]], %[[J]]) : !lego.layout
func.func @loop(%m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // Nothing bounds %m · %n: the layout contract covers it (size-checks.mlir reports it with check-sizes=true).
  %l = lego.row [%m, %n] : !lego.layout
  scf.for %i = %c0 to %m step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      // expected-remark @below {{bounds proved (Z3}}
      %f = lego.apply %l(%i, %j) : !lego.layout
    }
  }
  return
}

// -----

// GEN-LABEL: func.func @assumed
// GEN: lego.assert_inv_bounds %{{.*}}(%{{.*}}) : !lego.layout
// GEN-NEXT: lego.apply_inverse
func.func @assumed(%x: index) -> (index, index) {
  %c24 = arith.constant 24 : index
  lego.assume_bounds %x ub : %c24
  %l = lego.col [4, 6] : !lego.layout
  // expected-remark @below {{bounds proved (Z3}}
  %i, %j = lego.apply_inverse %l(%x) : !lego.layout -> index, index
  return %i, %j : index, index
}

// -----

// Negative twin of @loop: the inner loop runs one step too far.
func.func @off_by_one(%m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n1 = arith.addi %n, %c1 : index
  %l = lego.row [%m, %n] : !lego.layout
  scf.for %i = %c0 to %m step %c1 {
    scf.for %j = %c0 to %n1 step %c1 {
      // expected-error @below {{Out-of-bounds access is possible (proven by Z3){{\n}}index 1 of the layout is {{[0-9]+}} but dim 1 is {{[0-9]+}}}}
      %f = lego.apply %l(%i, %j) : !lego.layout
    }
  }
  return
}

// -----

// Negative twin of @assumed: no fact about %x.
func.func @unassumed(%x: index) -> (index, index) {
  %l = lego.col [4, 6] : !lego.layout
  // expected-error @below {{Out-of-bounds flat index is possible (proven by Z3){{\n}}the apply_inverse input is {{[0-9]+}} but the layout has 24 elements (with %arg0 = {{[0-9]+}})}}
  %i, %j = lego.apply_inverse %l(%x) : !lego.layout -> index, index
  return %i, %j : index, index
}

// -----

// A view: the load's indices are checked against the cast_view's layout.
// GEN-LABEL: func.func @view
// GEN: lego.assert_apply_bounds
// GEN-NEXT: lego.load
func.func @view(%mem: memref<32xf32>, %t: index) -> f32 {
  %c8 = arith.constant 8 : index
  %r = arith.remui %t, %c8 : index
  %l = lego.row [8, 4] : !lego.layout
  %v = lego.cast_view %mem, %l : memref<32xf32>, !lego.layout -> !lego.view<f32>
  %c3 = arith.constant 3 : index
  // expected-remark @below {{bounds proved (Z3}}
  %x = lego.load %v[%r, %c3] : !lego.view<f32>, index, index
  return %x : f32
}

// -----

// An index the encoder does not understand: a warning; as published the assert is erased all the same
// (keep-unproved=true keeps it for a run-time check).
// ERASE-LABEL: func.func @opaque
// ERASE-NOT: lego.assert
// KEEP-LABEL: func.func @opaque
// KEEP: lego.assert_apply_bounds
// KEEP-NEXT: lego.apply
func.func @opaque(%mem: memref<4xindex>) -> index {
  %c0 = arith.constant 0 : index
  // expected-note @below {{in the slice of this value}}
  %i = memref.load %mem[%c0] : memref<4xindex>
  %l = lego.row [4] : !lego.layout
  // expected-warning @below {{cannot verify: unsupported op 'memref.load'; the bounds obligation is unverified}}
  %f = lego.apply %l(%i) : !lego.layout
  return %f : index
}
