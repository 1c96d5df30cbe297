// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-analyze-memory --lego-verify='model=strict verbose=true'
// lego.check works inside gpu.launch (the thread id is the launch's: t = tid.x + 32·tid.y for 32×8 blocks), and
// its verdicts agree with lego-analyze-memory's degrees on the same address: conflict-free ⇔ proved, an N-way
// conflict ⇔ refuted (strict model: aligned warps, as the hardware has them; check-in-launch-published.mlir
// has the published model, whose warps start at any thread).

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

// Twin: padded to 33: both conflict-free / proved.
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
    // expected-remark @below {{bank_conflict_free proved}}
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

// -----

// Inside a launch whose block size is not a constant, the thread id has no known range: an error at the check
// (and the analysis warns at the launch).
func.func @dynamic_block(%n: index) {
  %one = arith.constant 1 : index
  // expected-warning @below {{cannot analyze this kernel's memory accesses: the launch's block size is not a positive constant}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %one, %sz = %one) {
    %plain = lego.row [32, 32] : !lego.layout
    %addr = lego.apply %plain(%tx, %ty) : !lego.layout
    // expected-error @below {{'lego.check' op inside a gpu.launch: the launch's block size is not a positive constant}}
    lego.check %addr {bank_conflict_free}
    gpu.terminator
  }
  return
}
