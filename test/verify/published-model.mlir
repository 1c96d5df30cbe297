// lego-verify's default: the published model and diagnostics. A refutation is a warning with the published
// sentence (our counterexample on the next line) and the pass succeeds; the checks are erased either way.
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-verify='verbose=true'
// RUN: lego-opt %s --split-input-file --lego-verify 2>/dev/null | FileCheck %s
// fail-on-violation=true: the same refutations are errors and the pass fails.
// RUN: not lego-opt %s --split-input-file --lego-verify='fail-on-violation=true' 2>&1 >/dev/null | FileCheck %s --check-prefix=FAIL
// A bad model name is an error naming the option:
// RUN: not lego-opt %s --lego-verify='model=fast' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: invalid value 'fast' for option 'model' of 'lego-verify': expected 'published' or 'strict'

// CHECK-NOT: lego.check
// FAIL-NOT: warning: Layout may
// FAIL: error: Layout may produce non-coalesced memory accesses (unit stride not guaranteed)
// FAIL: error: Layout may cause shared memory bank conflicts
// FAIL-NOT: warning: Layout may
// FAIL: warning: Coalescing check returned unknown
// FAIL: warning: Bank conflict check returned unknown

// Row-major warp access: consecutive threads read consecutive elements.
func.func @row_major(%tid: index {lego.thread_id}, %row: index) {
  %c64 = arith.constant 64 : index
  %base = arith.muli %row, %c64 : index
  %addr = arith.addi %base, %tid : index
  // expected-remark @below {{coalescing proved: consecutive threads access consecutive elements (any warp of 32 lanes)}}
  lego.check %addr {coalescing}
  return
}

// -----

// Shifted by one element: unit stride, so coalesced in the published model (our strict model also asks
// for an aligned run and refutes it: coalescing-errors.mlir @misaligned).
func.func @misaligned(%tid: index {lego.thread_id}, %row: index) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %base = arith.muli %row, %c64 : index
  %shifted = arith.addi %base, %c1 : index
  %addr = arith.addi %shifted, %tid : index
  // expected-remark @below {{coalescing proved}}
  lego.check %addr {coalescing}
  return
}

// -----

// Column-major: stride 64. thread_id 0 and 1 read elements %col and 64 + %col.
func.func @column_major(%tid: index {lego.thread_id}, %col: index) {
  %c64 = arith.constant 64 : index
  %base = arith.muli %tid, %c64 : index
  %addr = arith.addi %base, %col : index
  // expected-warning @below {{Layout may produce non-coalesced memory accesses (unit stride not guaranteed){{\n}}thread_id {{[0-9]+}} and {{[0-9]+}} access elements {{[0-9]+}} and {{[0-9]+}}: the stride is not 1 (with %arg1 = {{[0-9]+}})}}
  lego.check %addr {coalescing}
  return
}

// -----

// Bank = addr·E/4 mod B. Row-major 4-byte reads: 32 consecutive threads hit 32 different banks.
func.func @row_major_banks(%tid: index {lego.thread_id}, %row: index) {
  %c32 = arith.constant 32 : index
  %base = arith.muli %row, %c32 : index
  %addr = arith.addi %base, %tid : index
  // expected-remark @below {{bank_conflict_free proved: no two threads of a warp of 32 access different elements in the same bank (32 banks, 4-byte elements)}}
  lego.check %addr {bank_conflict_free}
  return
}

// -----

// 8-byte elements: bank = 2·addr mod 32, so threads t and t + 16 of a warp share a bank (our strict model
// serves this in two half-warp phases and proves it: bank-conflicts.mlir @doubles).
func.func @doubles(%tid: index {lego.thread_id}, %row: index) {
  %c32 = arith.constant 32 : index
  %base = arith.muli %row, %c32 : index
  %addr = arith.addi %base, %tid : index
  // expected-remark @below {{coalescing proved}}
  // expected-warning @below {{Layout may cause shared memory bank conflicts{{\n}}thread_id {{[0-9]+}} and {{[0-9]+}} (one warp of 32) access elements {{[0-9]+}} and {{[0-9]+}}, both in bank {{[0-9]+}} (32 banks, 8-byte elements)}}
  lego.check %addr {bank_conflict_free, coalescing, element_size = 8 : i64}
  return
}

// -----

// The padded 32 × 33 transpose tile: conflict-free for warps aligned to 32 threads (bank-conflicts.mlir,
// strict model), but a warp may start anywhere in the published model: threads 1 … 32 cross a tile row and
// thread 1 (tx 1, ty 0) and thread 32 (tx 0, ty 1) both hit bank 1.
func.func @padded_transpose(%tid: index {lego.thread_id}) {
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  lego.assume_bounds %tid ub : %c1024
  %tile = lego.row [32, 33] : !lego.layout
  %tx = arith.remui %tid, %c32 : index
  %ty = arith.divui %tid, %c32 : index
  %addr = lego.apply %tile(%tx, %ty) : !lego.layout
  // expected-warning @below {{Layout may cause shared memory bank conflicts}}
  lego.check %addr {bank_conflict_free}
  return
}

// -----

// Both properties refuted on one check: one expectation absorbs both warnings (as mlir-opt does).
func.func @stride_two(%tid: index {lego.thread_id}) {
  %c2 = arith.constant 2 : index
  %addr = arith.muli %tid, %c2 : index
  // expected-warning @below {{Layout may}}
  lego.check %addr {bank_conflict_free, coalescing}
  return
}

// -----

// Undecidable (the address is loaded from memory): the published "returned unknown" warnings, our reason on
// the next line; both absorbed by one expectation, and both notes by one.
func.func @loaded(%tid: index {lego.thread_id}, %table: memref<32xindex>) {
  // expected-note @below {{in the slice of this value}}
  %addr = memref.load %table[%tid] : memref<32xindex>
  // expected-warning @below {{check returned unknown{{\n}}cannot verify: unsupported op 'memref.load'}}
  lego.check %addr {bank_conflict_free, coalescing}
  return
}
