// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-verify='model=strict verbose=true'
// The same verdicts after lowering to arith/affine:
// RUN: lego-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(lego-normalization, lego-to-arith, canonicalize, cse, lego-verify{model=strict verbose=true})'
// Our strict model (aligned warps, half-warp phases for 8-byte elements); published-model.mlir has the
// published one. Shared-memory transpose through a 32 × 32 f32 tile, 1024 threads: thread t is (tx, ty) = (t mod 32,
// t div 32) and reads the tile transposed, tile[tx][ty]. Each negative twin is right after its positive.

// Padded tile (row length 33): lane tx hits bank (33·tx + ty) mod 32 = (tx + ty) mod 32, all different.
func.func @padded_transpose(%tid: index {lego.thread_id}) {
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  lego.assume_bounds %tid ub : %c1024
  %tile = lego.row [32, 33] : !lego.layout
  %tx = arith.remui %tid, %c32 : index
  %ty = arith.divui %tid, %c32 : index
  %addr = lego.apply %tile(%tx, %ty) : !lego.layout
  // expected-remark @below {{bank_conflict_free proved: no two lanes of a warp phase access different 4-byte words in the same bank (32 banks, 4-byte elements)}}
  lego.check %addr {bank_conflict_free}
  return
}

// -----

// Unpadded tile (row length 32): every lane of a warp hits bank ty: a 32-way conflict.
func.func @unpadded_transpose(%tid: index {lego.thread_id}) {
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  lego.assume_bounds %tid ub : %c1024
  %tile = lego.row [32, 32] : !lego.layout
  %tx = arith.remui %tid, %c32 : index
  %ty = arith.divui %tid, %c32 : index
  %addr = lego.apply %tile(%tx, %ty) : !lego.layout
  // expected-warning @below {{Layout may cause shared memory bank conflicts{{\n}}lanes {{[0-9]+}} and {{[0-9]+}} (thread_id {{[0-9]+}} and {{[0-9]+}}) access elements {{[0-9]+}} and {{[0-9]+}} (4-byte words {{[0-9]+}} and {{[0-9]+}}), both in bank {{[0-9]+}}}}
  lego.check %addr {bank_conflict_free}
  return
}

// -----

// The same padded transpose after lowering (plain arith), with 16 banks and 16-lane warps.
func.func @padded_arith(%tid: index {lego.thread_id}) {
  %c16 = arith.constant 16 : index
  %c17 = arith.constant 17 : index
  %c256 = arith.constant 256 : index
  lego.assume_bounds %tid ub : %c256
  %tx = arith.remui %tid, %c16 : index
  %ty = arith.divui %tid, %c16 : index
  %row = arith.muli %tx, %c17 : index
  %addr = arith.addi %row, %ty : index
  // expected-remark @below {{bank_conflict_free proved}}
  lego.check %addr {bank_conflict_free, num_banks = 16 : i64, warp_size = 16 : i64}
  return
}

// -----

func.func @unpadded_arith(%tid: index {lego.thread_id}) {
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  lego.assume_bounds %tid ub : %c256
  %tx = arith.remui %tid, %c16 : index
  %ty = arith.divui %tid, %c16 : index
  %row = arith.muli %tx, %c16 : index
  %addr = arith.addi %row, %ty : index
  // expected-warning @below {{Layout may cause shared memory bank conflicts{{\n}}lanes}}
  lego.check %addr {bank_conflict_free, num_banks = 16 : i64, warp_size = 16 : i64}
  return
}

// -----

// Row-major reads of 8-byte elements: 32 lanes × 8 bytes span 64 words, but the request is served in two
// half-warp phases of 16 lanes (128 bytes each), so there is no conflict. Coalesced too.
func.func @doubles(%tid: index {lego.thread_id}, %row: index) {
  %c32 = arith.constant 32 : index
  %base = arith.muli %row, %c32 : index
  %addr = arith.addi %base, %tid : index
  // expected-remark @below {{bank_conflict_free proved}}
  // expected-remark @below {{coalescing proved: every warp's 32 lanes access one aligned run of 32 × 8 bytes, in lane order}}
  lego.check %addr {bank_conflict_free, coalescing, element_size = 8 : i64}
  return
}

// -----

// Stride-2 reads of 4-byte elements: lanes 0 and 16 hit bank 0 at different words.
func.func @stride_two(%tid: index {lego.thread_id}) {
  %c2 = arith.constant 2 : index
  %addr = arith.muli %tid, %c2 : index
  // expected-warning @below {{Layout may cause shared memory bank conflicts{{\n}}lanes}}
  lego.check %addr {bank_conflict_free}
  return
}
