// RUN: lego-opt %s --split-input-file --lego-choose-smem-layout --lego-analyze-memory 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: lego-opt %s --split-input-file --lego-choose-smem-layout 2>/dev/null | FileCheck %s
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-choose-smem-layout
// RUN: lego-opt %s --split-input-file --lego-choose-smem-layout --lego-lower --verify-each=true -o /dev/null
// lego-choose-smem-layout on shared tiles accessed with vector.load/store of a flat workgroup memref, the index
// computed by `lego.apply %tile(i, j)` of a plain `lego.row [R, C]`: only candidates that keep every vector access
// one contiguous, equally aligned access are searched. Expected choices, degrees and candidate counts by hand.

// A 32×64 f16 tile, one warp. Lane l stores a vector<8xf16> (16 bytes) at row l div 8, halves 8·(l mod 8) …,
// and reads a vector<2xf16> (one word) at row l, halves 0 and 1. Original: a row is 64 halves = 32 words, so the
// column read puts all 32 lanes in bank 0: 32-way; the stores (phases of 8 lanes = one row) are conflict-free.
// Without the 16-byte stores, Swizzle<5, 1, 5> (bank bits of the flat index f, bits 1..5, XORed with the row,
// bits 6..10) or a 1-word padding would be conflict-free (the twin below), but both split the 8-half chunks: a
// swizzle must leave f's bits 0..2 alone (M ≥ 3) and a padding must be a multiple of 8 halves (4 words). With
// M ≥ 3 a swizzle changes only bank bits 3..5 of f: 8 banks for 32 rows, 4-way at best; a padding of 4k words
// makes the row stride 32 + 4k words, bank 4k·l mod 32: at most 8 banks, 4-way. The first 4-way candidate with
// no extra memory is Swizzle<3, 3, 3> (f bits 3..5 ^= row bits 0..2: rows l, l + 8, l + 16, l + 24 share a bank).
// Candidates: 1 original + 8 paddings (2, 4, …, 16 halves) + 125 swizzles ((B, M, S), S ≥ B, M + S + B ≤ 11 for
// 2048 = 2^11 elements); rejected: 75 swizzles with M < 3 and the 6 paddings of 2, 4, 6, 10, 12, 14 halves: 81,
// leaving 53. No single candidate being conflict-free, the pairs of swizzles are searched too: 1668 pairs (each
// target range meeting the bank bits [1, 6) of f, the lower range first, disjoint, neither reading the other's
// target), of which 184 have both M ≥ 3 (counted by enumerating that rule independently): 237 searched, 81 + 1484 =
// 1565 rejected. With M ≥ 3 only the 3 bank bits 3..5 of f can move: no pair beats 4-way either.
// REMARK: remark: lego-choose-smem-layout: 32×64 f16 tile, 2 accesses: chose XOR swizzle (B, M, S) = (3, 3, 3) on the flat index: 4-way bank conflict (was 32-way bank conflict), 0 extra bytes, 3 extra index ops; 237 candidates (original, paddings, XOR swizzles, pairs of XOR swizzles) ranked by degree, then extra memory, then index ops (1565 more rejected: they would split or misalign a vector access of 8 elements: XOR swizzles with 2^M < 8, paddings not a multiple of 8 elements); bijective (Z3)
// REMARK: remark: shared store of 16 bytes per lane: conflict-free
// REMARK: remark: shared load of 4 bytes per lane: 4-way bank conflict
// CHECK-LABEL: func.func @vector_store_rejects_splitting
// CHECK: workgroup(%{{.*}} : memref<2048xf16, #gpu.address_space<workgroup>>)
// CHECK: %[[S:.*]] = lego.swizzle bits 3 base 3 shift 3 dims[32, 64] : !lego.layout
// CHECK-NOT: lego.row[32, 64]
// CHECK: lego.apply %[[S]]
// CHECK: vector.store
// CHECK: lego.apply %[[S]]
// CHECK: vector.load
func.func @vector_store_rejects_splitting(%out: memref<1024xf16>) {
  %one = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%tile : memref<2048xf16, #gpu.address_space<workgroup>>) {
    // expected-remark @below {{chose XOR swizzle (B, M, S) = (3, 3, 3) on the flat index: 4-way bank conflict (was 32-way bank conflict)}}
    %plain = lego.row [32, 64] : !lego.layout
    %v = arith.constant dense<1.0> : vector<8xf16>
    %r = arith.divui %tx, %c8 : index
    %k = arith.remui %tx, %c8 : index
    %c = arith.muli %k, %c8 : index
    %s = lego.apply %plain(%r, %c) : !lego.layout
    vector.store %v, %tile[%s] {alignment = 16} : memref<2048xf16, #gpu.address_space<workgroup>>, vector<8xf16>
    gpu.barrier
    %a = lego.apply %plain(%tx, %c0) : !lego.layout
    %x = vector.load %tile[%a] {alignment = 4} : memref<2048xf16, #gpu.address_space<workgroup>>, vector<2xf16>
    gpu.terminator
  }
  return
}

// -----

// Twin: the same column read, the tile written one word (vector<2xf16>) per lane, row by row. Only M ≥ 1 and
// even paddings are required (30 swizzles with M = 0 rejected, every padding is a whole number of words): the
// first conflict-free candidate with no extra memory is Swizzle<5, 1, 5> (bank bits 1..5 of f XORed with the
// row, bits 6..10; B < 5 leaves several rows on a bank; (5, 0, s) has M = 0). Stores: row r, word
// 32·r + (l ^ r mod 32): 32 banks.
// REMARK: remark: lego-choose-smem-layout: 32×64 f16 tile, 2 accesses: chose XOR swizzle (B, M, S) = (5, 1, 5) on the flat index: conflict-free (was 32-way bank conflict), 0 extra bytes, 3 extra index ops; 104 candidates (original, paddings, XOR swizzles) ranked by degree, then extra memory, then index ops (30 more rejected: they would split or misalign a vector access of 2 elements: XOR swizzles with 2^M < 2, paddings not a multiple of 2 elements); bijective (Z3)
// REMARK: remark: shared store of 4 bytes per lane: conflict-free
// REMARK: remark: shared load of 4 bytes per lane: conflict-free
// CHECK-LABEL: func.func @word_vectors
// CHECK: lego.swizzle bits 5 base 1 shift 5 dims[32, 64] : !lego.layout
func.func @word_vectors(%out: memref<1024xf16>) {
  %one = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%tile : memref<2048xf16, #gpu.address_space<workgroup>>) {
    // expected-remark @below {{chose XOR swizzle (B, M, S) = (5, 1, 5) on the flat index: conflict-free (was 32-way bank conflict)}}
    %plain = lego.row [32, 64] : !lego.layout
    %v = arith.constant dense<1.0> : vector<2xf16>
    %c = arith.muli %tx, %c2 : index
    scf.for %r = %c0 to %c32 step %one {
      %s = lego.apply %plain(%r, %c) : !lego.layout
      vector.store %v, %tile[%s] {alignment = 4} : memref<2048xf16, #gpu.address_space<workgroup>>, vector<2xf16>
    }
    gpu.barrier
    %a = lego.apply %plain(%tx, %c0) : !lego.layout
    %x = vector.load %tile[%a] {alignment = 4} : memref<2048xf16, #gpu.address_space<workgroup>>, vector<2xf16>
    gpu.terminator
  }
  return
}

// -----

// Kept: a vector<8xf16> at column 4·l (not a multiple of 8) would straddle two 8-half chunks, which a swizzle
// could tear apart; and a lego.apply whose index also feeds something else than the buffer's accesses.
// REMARK: remark: lego-choose-smem-layout: this shared buffer keeps its layout: its vector access at {{.*}}choose-smem-layout-vector.mlir:{{[0-9]+}}:{{[0-9]+}} may leave its row: its column index is not always a multiple of 8 with 8 elements left in the row of 64 (at warp = 0, lane = {{[0-9]+}})
// REMARK: remark: lego-choose-smem-layout: this shared buffer keeps its layout: the lego.apply at {{.*}}choose-smem-layout-vector.mlir:{{[0-9]+}}:{{[0-9]+}} is used by more than this buffer's accesses
// CHECK-LABEL: func.func @kept
// CHECK: lego.row[32, 64]
// CHECK: lego.row[32, 32]
// CHECK-NOT: lego.swizzle
func.func @kept(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%a : memref<2048xf16, #gpu.address_space<workgroup>>,
                       %b : memref<1024xf32, #gpu.address_space<workgroup>>) {
    // expected-remark @below {{keeps its layout: its vector access at}}
    %la = lego.row [32, 64] : !lego.layout
    %v = arith.constant dense<1.0> : vector<8xf16>
    %c = arith.muli %tx, %c4 : index
    %s = lego.apply %la(%c0, %c) : !lego.layout
    vector.store %v, %a[%s] {alignment = 8} : memref<2048xf16, #gpu.address_space<workgroup>>, vector<8xf16>
    // expected-remark @below {{keeps its layout: the lego.apply at}}
    %lb = lego.row [32, 32] : !lego.layout
    %t = lego.apply %lb(%tx, %c0) : !lego.layout
    %y = memref.load %b[%t] : memref<1024xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%t] : memref<1024xf32>
    gpu.terminator
  }
  return
}
