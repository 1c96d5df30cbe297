// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-analyze-memory
// Accesses under scf.if are executed only by the lanes whose conditions hold; the other lanes access nothing.
// Degrees and sectors count the active lanes only, over every block and loop iteration. Checked by hand below
// (32 banks of 4-byte words; one warp of 32 lanes, lane = tx).

// Column read of an unpadded 32×32 fp32 tile: lane tx reads word 32·tx, bank 0. All 32 lanes: 32-way. Under
// `tx < 16` only lanes 0 … 15 read: 16 words in bank 0, 16-way. Under `tx mod 2 = 0`: lanes 0, 2, …, 30, again
// 16 words, 16-way, the lowest pair now lanes 0 and 2. In the `else` of `tx < 16`: lanes 16 … 31, 16-way, lanes
// 16 and 17 (words 512 and 544).
func.func @half_the_lanes(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%tile : memref<32x32xf32, #gpu.address_space<workgroup>>) {
    // expected-remark @below {{shared load of 4 bytes per lane: 32-way bank conflict (lanes 0 and 1 access words 0 and 32, both in bank 0); exact}}
    %all = memref.load %tile[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
    %low = arith.cmpi ult, %tx, %c16 : index
    scf.if %low {
      // expected-remark @below {{shared load of 4 bytes per lane: 16-way bank conflict (lanes 0 and 1 access words 0 and 32, both in bank 0); exact over all blocks, warps and loop iterations (Z3)}}
      %x = memref.load %tile[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
    } else {
      // expected-remark @below {{shared load of 4 bytes per lane: 16-way bank conflict (lanes 16 and 17 access words 512 and 544, both in bank 0); exact}}
      %x = memref.load %tile[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
    }
    %parity = arith.remui %tx, %c2 : index
    %even = arith.cmpi eq, %parity, %c0 : index
    scf.if %even {
      // expected-remark @below {{shared load of 4 bytes per lane: 16-way bank conflict (lanes 0 and 2 access words 0 and 64, both in bank 0); exact}}
      %x = memref.load %tile[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
    }
    gpu.terminator
  }
  return
}

// -----

// Twin: a guard that always holds (tx < 32 in blocks of 32 threads) changes nothing: 32-way; a guard that never
// holds (tx ≥ 32) leaves the access dead. Nested guards: tx < 16 and tx ≥ 8 leave lanes 8 … 15: 8-way.
func.func @always_and_never(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%tile : memref<32x32xf32, #gpu.address_space<workgroup>>) {
    %always = arith.cmpi ult, %tx, %c32 : index
    scf.if %always {
      // expected-remark @below {{shared load of 4 bytes per lane: 32-way bank conflict (lanes 0 and 1 access words 0 and 32, both in bank 0); exact}}
      %x = memref.load %tile[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
    }
    %never = arith.cmpi uge, %tx, %c32 : index
    scf.if %never {
      // expected-remark @below {{shared load of 4 bytes per lane: never executed}}
      %x = memref.load %tile[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
    }
    %low = arith.cmpi ult, %tx, %c16 : index
    scf.if %low {
      %high = arith.cmpi uge, %tx, %c8 : index
      scf.if %high {
        // expected-remark @below {{shared load of 4 bytes per lane: 8-way bank conflict (lanes 8 and 9 access words 256 and 288, both in bank 0); exact}}
        %x = memref.load %tile[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
      }
    }
    gpu.terminator
  }
  return
}

// -----

// A guard that depends on the iteration: at i = 0 lanes tx < 16 read (16-way), at i = 1 all 32 (32-way). The
// exact degree over all iterations is 32, at %iv = 1 — evaluating the first iteration alone would say 16.
// The same guard around a global row read: i = 0 reads 16 floats (64 bytes: 2 sectors, ideal 2), i = 1 reads 32
// (4 sectors, ideal 4): the most is 4.
func.func @guard_of_the_iteration(%g: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%tile : memref<32x32xf32, #gpu.address_space<workgroup>>) {
    scf.for %i = %c0 to %c2 step %one {
      %k = arith.addi %i, %one : index
      %bound = arith.muli %k, %c16 : index
      %in = arith.cmpi ult, %tx, %bound : index
      scf.if %in {
        // expected-remark @below {{shared load of 4 bytes per lane: 32-way bank conflict (lanes 0 and 1 access words 0 and 32, both in bank 0, at %iv = 1); exact}}
        %x = memref.load %tile[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
        // expected-remark @below {{global store of 4 bytes per lane: 4 sectors per warp request (ideal 4); exact over all blocks, warps and loop iterations (Z3)}}
        memref.store %x, %g[%tx] : memref<1024xf32>
      }
    }
    gpu.terminator
  }
  return
}

// -----

// A guarded global read: lanes tx < 16 read floats tx: 64 bytes, 2 sectors, ideal 2 (the same in every block:
// translation).
func.func @guarded_global(%g: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one) {
    %low = arith.cmpi ult, %tx, %c16 : index
    scf.if %low {
      // expected-remark @below {{global load of 4 bytes per lane: 2 sectors per warp request (ideal 2); exact over all blocks, warps and loop iterations (Z3: every request}}
      %x = memref.load %g[%tx] : memref<1024xf32>
    }
    gpu.terminator
  }
  return
}
