// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-verify='model=strict'
// RUN: not lego-opt %s --split-input-file --lego-verify='model=strict fail-on-violation=true' -o /dev/null
// The same verdicts after lowering to arith/affine:
// RUN: lego-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(lego-normalization, lego-to-arith, canonicalize, cse, lego-verify{model=strict})'
// Negative twins of coalescing.mlir, in our strict model (aligned warps and runs): accesses that are not
// coalesced are refuted with two lanes and their addresses — a warning with the published sentence, our
// counterexample on the next line (fail-on-violation=true makes it an error and fails the pass); what cannot
// be verified is the published "returned unknown" warning.

// Column-major warp access: thread t reads A[t][col] of a row-major [?, 64] array (stride 64).
func.func @column_major(%tid: index {lego.thread_id}, %col: index) {
  %c64 = arith.constant 64 : index
  %base = arith.muli %tid, %c64 : index
  %addr = arith.addi %base, %col : index
  // expected-warning @below {{Layout may produce non-coalesced memory accesses (unit stride not guaranteed){{\n}}lanes {{[0-9]+}} and {{[0-9]+}} of a warp (thread_id {{[0-9]+}} and {{[0-9]+}}) access elements {{[0-9]+}} and {{[0-9]+}}, not consecutive elements (with %arg1 = {{[0-9]+}})}}
  lego.check %addr {coalescing}
  return
}

// -----

// The same through a layout: col [64, %n] puts consecutive rows next to each other, so reading row %r
// across lanes (the lane is the column) strides by 64.
func.func @column_major_layout(%tid: index {lego.thread_id}, %r: index, %n: index) {
  %l = lego.col [64, %n] : !lego.layout
  %addr = lego.apply %l(%r, %tid) : !lego.layout
  // expected-warning @below {{Layout may produce non-coalesced memory accesses (unit stride not guaranteed){{\n}}lanes}}
  lego.check %addr {coalescing}
  return
}

// -----

// Consecutive but shifted by one element: the warp's run is not aligned.
func.func @misaligned(%tid: index {lego.thread_id}, %row: index) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %base = arith.muli %row, %c64 : index
  %shifted = arith.addi %base, %c1 : index
  %addr = arith.addi %shifted, %tid : index
  // expected-warning @below {{Layout may produce non-coalesced memory accesses (unit stride not guaranteed){{\n}}the warp of thread_id {{[0-9]+}}..{{[0-9]+}} starts at element {{[0-9]+}}, which is not a multiple of the warp size 32 (its 32 × 4 bytes are not one aligned run)}}
  lego.check %addr {coalescing}
  return
}

// -----

// A symbolic row length without the fact that it is a multiple of 32 (coalescing.mlir has the fact).
func.func @row_major_symbolic(%tid: index {lego.thread_id}, %row: index, %n: index) {
  %l = lego.row [1024, %n] : !lego.layout
  %addr = lego.apply %l(%row, %tid) : !lego.layout
  // expected-warning @below {{Layout may produce non-coalesced memory accesses (unit stride not guaranteed){{\n}}the warp of thread_id}}
  lego.check %addr {coalescing}
  return
}

// -----

// An address the encoder does not understand (loaded from memory): a warning, no claim either way.
func.func @loaded(%tid: index {lego.thread_id}, %table: memref<32xindex>) {
  // expected-note @below {{in the slice of this value}}
  %addr = memref.load %table[%tid] : memref<32xindex>
  // expected-warning @below {{Coalescing check returned unknown{{\n}}cannot verify: unsupported op 'memref.load'}}
  lego.check %addr {coalescing}
  return
}

// -----

// No thread id argument: the check is malformed (the dialect verifier rejects it, docs/reference/verifier.md).
func.func @no_thread_id(%i: index) {
  // expected-error @below {{'lego.check' op parent function must have a {lego.thread_id} argument}}
  lego.check %i {coalescing}
  return
}
