// RUN: lego-opt %s --split-input-file --lego-choose-smem-layout --lego-analyze-memory 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: lego-opt %s --split-input-file --lego-choose-smem-layout 2>/dev/null | FileCheck %s
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-choose-smem-layout
// RUN: lego-opt %s --split-input-file --lego-choose-smem-layout --lego-lower --verify-each=true -o /dev/null
// lego-choose-smem-layout on plain row-major shared tiles; the expected choices are checked by hand below, and
// lego-analyze-memory confirms the rewritten kernel's degrees.

// fp32 transpose through a 32×32 tile, 32×8 threads. Original: the column read (tx, r) is 32-way (bank r for
// every lane). Padding by 1 word and the swizzle (5, 0, 5) — word 32·i + (j ^ i), bank j ^ i — are both
// conflict-free for the row write and the column read; the swizzle needs no extra memory (padding: 32·4 = 128
// bytes), so it wins. No swizzle with fewer bits works: B < 5 leaves 2^(5−B) lanes on each bank. Twin of
// @transpose_f16_64: a single range is conflict-free here, so pairs of swizzles (twice the index ops) are not
// searched (104 candidates) and the single swizzle stays.
// REMARK: remark: lego-choose-smem-layout: 32×32 f32 tile, 2 accesses: chose XOR swizzle (B, M, S) = (5, 0, 5) on the flat index: conflict-free (was 32-way bank conflict), 0 extra bytes, 3 extra index ops; 104 candidates (original, paddings, XOR swizzles) ranked
// REMARK: remark: shared store of 4 bytes per lane: conflict-free
// REMARK: remark: shared load of 4 bytes per lane: conflict-free
// CHECK-LABEL: func.func @transpose
// CHECK: workgroup(%{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>)
// CHECK: lego.swizzle bits 5 base 0 shift 5 dims[32, 32] : !lego.layout
// CHECK-NOT: lego.row[32, 32]
// CHECK-NOT: lego.compose
func.func @transpose(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c8, %sz = %one)
             workgroup(%tile : memref<1024xf32, #gpu.address_space<workgroup>>) {
    %thread_rows = lego.row [4, 8] : !lego.layout
    %plain = lego.row [32, 32] : !lego.layout
    // expected-remark @below {{chose XOR swizzle (B, M, S) = (5, 0, 5) on the flat index: conflict-free (was 32-way bank conflict)}}
    %shared = lego.cast_view %tile, %plain : memref<1024xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
    %f = arith.constant 1.0 : f32
    scf.for %step = %c0 to %c4 step %one {
      %r = lego.apply %thread_rows(%step, %ty) : !lego.layout
      lego.store %f, %shared[%r, %tx] : f32, !lego.view<f32>, index, index
    }
    gpu.barrier
    scf.for %step = %c0 to %c4 step %one {
      %r = lego.apply %thread_rows(%step, %ty) : !lego.layout
      %x = lego.load %shared[%tx, %r] : !lego.view<f32>, index, index
    }
    gpu.terminator
  }
  return
}

// -----

// Two XOR swizzles where one is not enough: the fp16 64×64 tile of bench/gpu/smem/transpose-f16-64-plain.mlir,
// reduced to one store and one column read (8×16 threads; a row is 64 halves = 32 words; flat index f = 64·i + j,
// word f/2, bank = bits 1 … 5 of f). Store (ty, 8·tx): in a warp ty takes 4 values (f bits 6, 7) and tx 8 (f bits
// 3 … 5): banks 4·tx, 4 words each: 4-way. Column read (8·a, c), t = tx + 8·ty, a = t mod 8, c = t div 8: rows
// 8·a (f bits 9 … 11), c in 4 values (f bits 0, 1): banks c div 2, 8 words each: 8-way. The store needs f bits
// 6, 7 XORed onto bank bits (1, 2); the read needs f bits 9 … 11 onto bank bits other than bit 1 (3 … 5): no
// contiguous range does both — every single swizzle and padding leaves 2-way or worse (checked by enumerating
// them all; (4, 1, 6) is the first 2-way one). The pair (2, 1, 5) then (3, 3, 6): store banks (ty0, ty1, tx0,
// tx1, tx2) all 32 distinct; read f' = 512·a + 8·a + c, bank 4·a + c div 2: 16 distinct words in 16 banks.
// REMARK: remark: lego-choose-smem-layout: 64×64 f16 tile, 2 accesses: chose two XOR swizzles (B, M, S) = (2, 1, 5) and (3, 3, 6) on the flat index: conflict-free (was 8-way bank conflict), 0 extra bytes, 6 extra index ops; {{[0-9]+}} candidates (original, paddings, XOR swizzles, pairs of XOR swizzles) ranked by degree, then extra memory, then index ops; bijective (Z3); degree proved
// REMARK: remark: shared store of 2 bytes per lane: conflict-free
// REMARK: remark: shared load of 2 bytes per lane: conflict-free
// CHECK-LABEL: func.func @transpose_f16_64
// CHECK: workgroup(%{{.*}} : memref<4096xf16, #gpu.address_space<workgroup>>)
// CHECK: %[[LOW:.*]] = lego.swizzle bits 2 base 1 shift 5 dims[64, 64] : !lego.layout
// CHECK: %[[HIGH:.*]] = lego.swizzle bits 3 base 3 shift 6 dims[4096] : !lego.layout
// CHECK: %[[BOTH:.*]] = lego.compose %[[HIGH]], %[[LOW]] : !lego.layout
// CHECK: lego.cast_view %{{.*}}, %[[BOTH]]
func.func @transpose_f16_64(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c16, %sz = %one)
             workgroup(%tile : memref<4096xf16, #gpu.address_space<workgroup>>) {
    %plain = lego.row [64, 64] : !lego.layout
    // expected-remark @below {{chose two XOR swizzles (B, M, S) = (2, 1, 5) and (3, 3, 6) on the flat index: conflict-free (was 8-way bank conflict)}}
    %shared = lego.cast_view %tile, %plain : memref<4096xf16, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f16>
    %h = arith.constant 1.0 : f16
    %col8 = arith.muli %tx, %c8 : index
    lego.store %h, %shared[%ty, %col8] : f16, !lego.view<f16>, index, index
    gpu.barrier
    %t8 = arith.muli %ty, %c8 : index
    %t = arith.addi %tx, %t8 : index
    %a = arith.remui %t, %c8 : index
    %c = arith.divui %t, %c8 : index
    %r8 = arith.muli %a, %c8 : index
    %x = lego.load %shared[%r8, %c] : !lego.view<f16>, index, index
    gpu.terminator
  }
  return
}

// -----

// Padding wins where no swizzle can help: a 3×32 tile (96 = 2^5·3 elements, so swizzles only move bits [0, 5),
// inside a row). Lane tx reads element (tx mod 3, 0): 3 distinct words (0, 32, 64) in bank 0: 3-way. Padding by
// one word: words 0, 33, 66 in banks 0, 1, 2: conflict-free, for 3 × 4 = 12 extra bytes; the buffer grows to 99.
// REMARK: remark: lego-choose-smem-layout: 3×32 f32 tile, 1 accesses: chose padding of 1 word per row (lego.row [R, 33]): conflict-free (was 3-way bank conflict), 12 extra bytes, 0 extra index ops
// REMARK: remark: shared load of 4 bytes per lane: conflict-free
// CHECK-LABEL: func.func @padding_wins
// CHECK: workgroup(%{{.*}} : memref<99xf32, #gpu.address_space<workgroup>>)
// CHECK: lego.row[3, 33]
// CHECK: lego.cast_view %{{.*}} : memref<99xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
func.func @padding_wins(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%tile : memref<96xf32, #gpu.address_space<workgroup>>) {
    %plain = lego.row [3, 32] : !lego.layout
    // expected-remark @below {{chose padding of 1 word per row (lego.row [R, 33]): conflict-free (was 3-way bank conflict), 12 extra bytes}}
    %shared = lego.cast_view %tile, %plain : memref<96xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
    %i = arith.remui %tx, %c3 : index
    %x = lego.load %shared[%i, %c0] : !lego.view<f32>, index, index
    gpu.terminator
  }
  return
}

// -----

// Twin: the tiled matmul's 16×16 staging (16×16 threads, a warp is two rows) is already conflict-free — the
// write (ty, tx) covers 32 consecutive words, the reads (ty, k) and (k, tx) are broadcasts within a row and
// 16 words apart across the two rows — so the original layout stays (least memory, fewest ops).
// REMARK: remark: lego-choose-smem-layout: 16×16 f32 tile, 3 accesses: chose the original row-major layout: conflict-free (was conflict-free), 0 extra bytes, 0 extra index ops
// CHECK-LABEL: func.func @matmul_staging
// CHECK: lego.row[16, 16]
// CHECK-NOT: lego.swizzle
func.func @matmul_staging(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c16, %sz = %one)
             workgroup(%as : memref<256xf32, #gpu.address_space<workgroup>>) {
    %tile = lego.row [16, 16] : !lego.layout
    // expected-remark @below {{chose the original row-major layout: conflict-free (was conflict-free)}}
    %vas = lego.cast_view %as, %tile : memref<256xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
    %f = arith.constant 1.0 : f32
    lego.store %f, %vas[%ty, %tx] : f32, !lego.view<f32>, index, index
    scf.for %k = %c0 to %c16 step %one {
      %p = lego.load %vas[%ty, %k] : !lego.view<f32>, index, index
      %q = lego.load %vas[%k, %tx] : !lego.view<f32>, index, index
    }
    gpu.terminator
  }
  return
}

// -----

// Buffers the pass does not search keep their layout, with the reason.
// REMARK: remark: lego-choose-smem-layout: this shared buffer keeps its layout: its memref.load at {{.*}}choose-smem-layout.mlir:{{[0-9]+}}:{{[0-9]+}} does not go through a lego layout
// REMARK: remark: lego-choose-smem-layout: this shared buffer keeps its layout: its layout is not a lego.row [R, C] (only plain row-major tiles are searched)
func.func @kept(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%a : memref<32x32xf32, #gpu.address_space<workgroup>>,
                       %b : memref<1024xf32, #gpu.address_space<workgroup>>) {
    // expected-remark @below {{keeps its layout: its memref.load at}}
    %x = memref.load %a[%tx, %tx] : memref<32x32xf32, #gpu.address_space<workgroup>>
    %cols = lego.col [32, 32] : !lego.layout
    // expected-remark @below {{keeps its layout: its layout is not a lego.row [R, C]}}
    %vb = lego.cast_view %b, %cols : memref<1024xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
    %y = lego.load %vb[%tx, %one] : !lego.view<f32>, index, index
    gpu.terminator
  }
  return
}
