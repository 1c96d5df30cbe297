// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-analyze-memory
// Sectors per warp request of global accesses: the most 32-byte sectors one request touches over every block,
// warp and loop iteration (Z3), against the ideal ⌈distinct bytes / 32⌉ of that request. Each number is checked
// by hand below.

// Blocks of 32×8 threads (lane = tx, warp = ty), grid 2×2, fp32 matrix of 1024-float (4096-byte) rows.
// Row read: lane tx reads float (8·by + ty)·1024 + 32·bx + tx: 32 consecutive floats from a multiple of 128 bytes:
// 4 sectors, ideal 4; another block or warp moves the request by a multiple of 128 bytes, so it is the same
// everywhere (proved by translation). Column read: lane tx reads row 32·bx + tx: 4096 bytes apart, a sector per
// lane: 32 sectors, ideal 4 (128 distinct bytes); lane 31 at byte 31·4096 = 126976, sector 3968.
func.func @rows_and_columns(%g: memref<64x1024xf32>) {
  %one = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c8, %sz = %one) {
    %r0 = arith.muli %by, %c8 : index
    %row = arith.addi %r0, %ty : index
    %c0 = arith.muli %bx, %c32 : index
    %col = arith.addi %c0, %tx : index
    // expected-remark @below {{global load of 4 bytes per lane: 4 sectors per warp request (ideal 4); exact over all blocks, warps and loop iterations (Z3: every request is its warp's first one moved by whole sectors)}}
    %x = memref.load %g[%row, %col] : memref<64x1024xf32>
    // expected-remark @below {{global load of 4 bytes per lane: 32 sectors per warp request (ideal 4; lanes 0 and 31 at bytes 0 and 126976 span sectors 0 to 3968, at block_id.x = 0, warp = 0, block_id.y = 0); exact over all blocks, warps and loop iterations (Z3: every request}}
    %y = memref.load %g[%col, %row] : memref<64x1024xf32>
    gpu.terminator
  }
  return
}

// -----

// An alignment that depends on the block id: block bx reads 32 floats from float 3·bx. Block 0: bytes 0 … 127,
// 4 sectors (ideal 4) — all that evaluating block 0 sees. Block 1: bytes 12 … 139, sectors 0 … 4: 5 sectors,
// ideal 4; lane 0 at byte 12 is in sector 0, lane 29 at byte 12 + 29·4 = 128 is the first in sector 4.
func.func @alignment_of_the_block(%g: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one) {
    %o = arith.muli %bx, %c3 : index
    %a = arith.addi %o, %tx : index
    // expected-remark @below {{global load of 4 bytes per lane: 5 sectors per warp request (ideal 4; lanes 0 and 29 at bytes 12 and 128 span sectors 0 to 4, at block_id.x = 1); exact over all blocks, warps and loop iterations (Z3)}}
    %x = memref.load %g[%a] : memref<1024xf32>
    gpu.terminator
  }
  return
}

// -----

// The same over loop iterations. Iteration i reads 32 floats from float 8·i: moved by 32 bytes, a whole sector,
// per iteration: 4 sectors everywhere (translation). From float 2·i instead (i < 2): i = 1 starts at byte 8, so
// bytes 8 … 135 span sectors 0 … 4: 5 sectors, ideal 4; lane 30 at byte 8 + 30·4 = 128 is the first in sector 4
// (the second loop's induction variable is named %iv#1).
func.func @alignment_of_the_iteration(%g: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one) {
    scf.for %i = %c0 to %c4 step %one {
      %o = arith.muli %i, %c8 : index
      %a = arith.addi %o, %tx : index
      // expected-remark @below {{global load of 4 bytes per lane: 4 sectors per warp request (ideal 4); exact over all blocks, warps and loop iterations (Z3: every request is its warp's first one moved by whole sectors)}}
      %x = memref.load %g[%a] : memref<1024xf32>
    }
    scf.for %i = %c0 to %c2 step %one {
      %o = arith.muli %i, %c2 : index
      %a = arith.addi %o, %tx : index
      // expected-remark @below {{global load of 4 bytes per lane: 5 sectors per warp request (ideal 4; lanes 0 and 30 at bytes 8 and 128 span sectors 0 to 4, at %iv#1 = 1); exact over all blocks, warps and loop iterations (Z3)}}
      %x = memref.load %g[%a] : memref<1024xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// 16-byte vectors (vector<4xf32>): lane tx reads bytes 16·tx … 16·tx + 15: 512 contiguous bytes, 16 sectors,
// ideal 16. Misaligned by 4 bytes in block 1 (float bx + 4·tx): bytes 4 … 515, sectors 0 … 16: 17, ideal 16;
// lane 0 (byte 4) in sector 0, lane 31 (bytes 500 … 515) the only one in sector 16. A lane's bytes can cross a
// sector boundary here, so the search allows two sectors a lane.
func.func @vectors(%g: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one) {
    %t4 = arith.muli %tx, %c4 : index
    // expected-remark @below {{global load of 16 bytes per lane: 16 sectors per warp request (ideal 16); exact}}
    %v = vector.load %g[%t4] : memref<1024xf32>, vector<4xf32>
    %a = arith.addi %t4, %bx : index
    // expected-remark @below {{global load of 16 bytes per lane: 17 sectors per warp request (ideal 16; lanes 0 and 31 at bytes 4 and 500 span sectors 0 to 16, at block_id.x = 1); exact over all blocks, warps and loop iterations (Z3)}}
    %w = vector.load %g[%a] : memref<1024xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}
