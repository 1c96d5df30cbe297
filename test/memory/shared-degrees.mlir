// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-analyze-memory
// Bank-conflict degrees of shared-memory accesses inside gpu.launch, each checked by hand (32 banks of 4-byte
// words; a warp of 32 lanes is one phase for accesses of at most 4 bytes, 4 phases of 8 lanes for 16 bytes).
// Blocks of 32×8 threads: lane = tid.x, warp = tid.y.

// Unpadded 32×32 fp32 tile through a lego view. Row write: lane tx writes word 32·r + tx, bank tx: all
// different. Column read: lane tx reads word 32·tx + r, bank r for every lane, 32 distinct words: 32-way.
func.func @unpadded(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c8, %sz = %one)
             workgroup(%tile : memref<1024xf32, #gpu.address_space<workgroup>>) {
    %plain = lego.row [32, 32] : !lego.layout
    %shared = lego.cast_view %tile, %plain : memref<1024xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
    %f = arith.constant 1.0 : f32
    // expected-remark @below {{shared store of 4 bytes per lane: conflict-free (degree 1); exact over all blocks, warps and loop iterations (Z3)}}
    lego.store %f, %shared[%ty, %tx] : f32, !lego.view<f32>, index, index
    // expected-remark @below {{shared load of 4 bytes per lane: 32-way bank conflict (lanes 0 and 1 access words 0 and 32, both in bank 0, at warp = 0); exact over all blocks, warps and loop iterations (Z3)}}
    %x = lego.load %shared[%tx, %ty] : !lego.view<f32>, index, index
    gpu.terminator
  }
  return
}

// -----

// Twin: the same tile padded to 33 words a row. Column read: word 33·tx + r, bank (tx + r) mod 32: all different.
func.func @padded(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c8, %sz = %one)
             workgroup(%tile : memref<1056xf32, #gpu.address_space<workgroup>>) {
    %padded = lego.row [32, 33] : !lego.layout
    %shared = lego.cast_view %tile, %padded : memref<1056xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
    %f = arith.constant 1.0 : f32
    // expected-remark @below {{shared store of 4 bytes per lane: conflict-free}}
    lego.store %f, %shared[%ty, %tx] : f32, !lego.view<f32>, index, index
    // expected-remark @below {{shared load of 4 bytes per lane: conflict-free (degree 1); exact}}
    %x = lego.load %shared[%tx, %ty] : !lego.view<f32>, index, index
    gpu.terminator
  }
  return
}

// -----

// Twin: the unpadded tile as a 2-D memref, swizzled by hand: element (i, j) at column j ^ i. Column read
// (tx, r): word 32·tx + (r ^ tx), bank r ^ tx — a different bank for each tx. Row write (r, tx): bank tx ^ r.
func.func @xor_swizzled(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c8, %sz = %one)
             workgroup(%tile : memref<32x32xf32, #gpu.address_space<workgroup>>) {
    %f = arith.constant 1.0 : f32
    %w = arith.xori %tx, %ty : index
    // expected-remark @below {{shared store of 4 bytes per lane: conflict-free}}
    memref.store %f, %tile[%ty, %w] : memref<32x32xf32, #gpu.address_space<workgroup>>
    // expected-remark @below {{shared load of 4 bytes per lane: conflict-free}}
    %x = memref.load %tile[%tx, %w] : memref<32x32xf32, #gpu.address_space<workgroup>>
    // Without the swizzle: 32-way (the same column read as @unpadded).
    // expected-remark @below {{shared load of 4 bytes per lane: 32-way bank conflict (lanes 0 and 1 access words 0 and 32, both in bank 0}}
    %y = memref.load %tile[%tx, %ty] : memref<32x32xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// 16-byte accesses are served in 4 phases of 8 lanes. Lane tx reads row tx's first 4 words (bytes 128·tx …):
// banks 0–3 for every lane of a phase, 8 distinct words per bank: 8-way. Reading 4 consecutive words per lane
// (word 4·tx …) covers all 32 banks once per phase: conflict-free.
func.func @vectors(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%tile : memref<32x32xf32, #gpu.address_space<workgroup>>) {
    // expected-remark @below {{shared load of 16 bytes per lane: 8-way bank conflict (lanes 0 and 1 access words 0 and 32, both in bank 0, phases of 8 lanes}}
    %v = vector.load %tile[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    %col = arith.muli %tx, %c4 : index
    // expected-remark @below {{shared load of 16 bytes per lane: conflict-free}}
    %w = vector.load %tile[%c0, %col] : memref<32x32xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// The worst request is not at the first iteration: lane tx reads word tx·(1 + i) for i in [0, 3). i = 0:
// conflict-free; i = 1: stride 2, lanes t and t + 16 share a bank (2-way); i = 2: stride 3, odd, conflict-free.
// The exact degree over all iterations is 2, found by Z3 at i = 1 (lowest lanes 0 and 16).
func.func @worst_iteration(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%tile : memref<128xf32, #gpu.address_space<workgroup>>) {
    scf.for %i = %c0 to %c3 step %one {
      %k = arith.addi %i, %one : index
      %a = arith.muli %tx, %k : index
      // expected-remark @below {{shared load of 4 bytes per lane: 2-way bank conflict (lanes 0 and 16 access words 0 and 32, both in bank 0, at %iv = 1); exact}}
      %x = memref.load %tile[%a] : memref<128xf32, #gpu.address_space<workgroup>>
    }
    gpu.terminator
  }
  return
}

// -----

// The same over block ids: word tx·(1 + bx) with 2 blocks; block 1 has stride 2: 2-way.
func.func @worst_block(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %two = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %two, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%tile : memref<64xf32, #gpu.address_space<workgroup>>) {
    %k = arith.addi %bx, %one : index
    %a = arith.muli %tx, %k : index
    // expected-remark @below {{shared load of 4 bytes per lane: 2-way bank conflict (lanes 0 and 16 access words 0 and 32, both in bank 0, at block_id.x = 1); exact}}
    %x = memref.load %tile[%a] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// Half-word accesses: lanes 2k and 2k + 1 share word k (a broadcast, free): conflict-free. Global accesses are
// counted in 32-byte sectors: 32 lanes × 2 contiguous bytes = 64 bytes = 2 sectors (ideal 2); a column of a
// row-major 32×32 f16 matrix (64-byte rows) touches one sector per lane: 32 (ideal 2).
func.func @half(%g: memref<32x32xf16>) {
  %one = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%tile : memref<64xf16, #gpu.address_space<workgroup>>) {
    // expected-remark @below {{shared load of 2 bytes per lane: conflict-free}}
    %x = memref.load %tile[%tx] : memref<64xf16, #gpu.address_space<workgroup>>
    // expected-remark @below {{global store of 2 bytes per lane: 2 sectors per warp request (ideal 2}}
    memref.store %x, %g[%c0, %tx] : memref<32x32xf16>
    // expected-remark @below {{global store of 2 bytes per lane: 32 sectors per warp request (ideal 2}}
    memref.store %x, %g[%tx, %c0] : memref<32x32xf16>
    gpu.terminator
  }
  return
}
