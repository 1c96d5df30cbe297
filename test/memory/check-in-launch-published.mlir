// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-analyze-memory --lego-verify=verbose=true
// lego.check inside gpu.launch in the published model (warps start at any thread), next to lego-analyze-memory:
// the verdicts agree wherever a conflict lies within one aligned warp; @padded shows where the published model
// does not apply. check-in-launch.mlir has the strict model, which agrees everywhere.

// Column read of an unpadded 32×32 tile: 32-way; the check is refuted (lanes 0 and 1, as the analysis says).
func.func @unpadded(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c8, %sz = %one)
             workgroup(%tile : memref<1024xf32, #gpu.address_space<workgroup>>) {
    %plain = lego.row [32, 32] : !lego.layout
    %shared = lego.cast_view %tile, %plain : memref<1024xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
    %addr = lego.apply %plain(%tx, %ty) : !lego.layout
    // expected-warning @below {{Layout may cause shared memory bank conflicts}}
    lego.check %addr {bank_conflict_free}
    // expected-remark @below {{32-way bank conflict (lanes 0 and 1}}
    %x = lego.load %shared[%tx, %ty] : !lego.view<f32>, index, index
    gpu.terminator
  }
  return
}

// -----

// Padded to 33: conflict-free for the hardware's warps; the published model also takes threads 1..32 as a
// warp (warps start anywhere), where thread 1 (element 33, bank 1) and thread 32 (element 1, bank 1) collide:
// refuted. This is where the published verdict does not apply: threads 1 and 32 are in different warps.
func.func @padded(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c8, %sz = %one)
             workgroup(%tile : memref<1056xf32, #gpu.address_space<workgroup>>) {
    %padded = lego.row [32, 33] : !lego.layout
    %shared = lego.cast_view %tile, %padded : memref<1056xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
    %addr = lego.apply %padded(%tx, %ty) : !lego.layout
    // expected-warning @below {{Layout may cause shared memory bank conflicts}}
    lego.check %addr {bank_conflict_free}
    // expected-remark @below {{shared load of 4 bytes per lane: conflict-free}}
    %x = lego.load %shared[%tx, %ty] : !lego.view<f32>, index, index
    gpu.terminator
  }
  return
}

// -----

// Row access: coalesced and conflict-free (t → element 32·tid.y + tid.x = t).
func.func @row(%g: memref<256xf32>) {
  %one = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c8, %sz = %one) {
    %plain = lego.row [8, 32] : !lego.layout
    %view = lego.cast_view %g, %plain : memref<256xf32>, !lego.layout -> !lego.view<f32>
    %addr = lego.apply %plain(%ty, %tx) : !lego.layout
    // expected-remark @below {{coalescing proved}}
    // expected-remark @below {{bank_conflict_free proved}}
    lego.check %addr {coalescing, bank_conflict_free}
    // expected-remark @below {{global load of 4 bytes per lane: 4 sectors per warp request (ideal 4}}
    %x = lego.load %view[%ty, %tx] : !lego.view<f32>, index, index
    gpu.terminator
  }
  return
}

// -----

// Stride 2 (lane tx reads word 2·tx of a 32×2 tile): lanes t and t + 16 share a bank: 2-way; refuted.
func.func @stride_two(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%tile : memref<64xf32, #gpu.address_space<workgroup>>) {
    %pairs = lego.row [32, 2] : !lego.layout
    %shared = lego.cast_view %tile, %pairs : memref<64xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
    %addr = lego.apply %pairs(%tx, %c0) : !lego.layout
    // expected-warning @below {{Layout may cause shared memory bank conflicts}}
    lego.check %addr {bank_conflict_free}
    // expected-remark @below {{2-way bank conflict (lanes 0 and 16}}
    %x = lego.load %shared[%tx, %c0] : !lego.view<f32>, index, index
    gpu.terminator
  }
  return
}
