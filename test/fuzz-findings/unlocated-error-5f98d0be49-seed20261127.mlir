// A lego-fuzz finding (bench/fuzz, seed 20261127): lego-to-spirv failed on a kernel's vector<8xf16> constant
// (Vulkan's default target has no Float16) with an error naming no line: lego-lower's canonicalize hoists the
// constant out of the launch and MLIR's folder erases its location, and the clone that
// lego-gpu-launch-sink-index-computations puts back into the launch had none. The clone now takes its first
// user's location (the vector.store). Bound: 120 s (hang guard, not a timing assertion).
// RUN: %outcome --timeout 120 --expect error -- lego-opt %s --lego-to-spirv | FileCheck %s
// CHECK: outcome: error
// RUN: not lego-opt %s --lego-to-spirv -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOC
// Outcome: unlocated-error (exit status 1, 0.0 s, 0.0 s CPU, 83 MiB); found by lego-fuzz seed 20261127, case 21264 (mutation of test/memory/choose-smem-layout-vector.mlir)
// Signature: unlocated-error: error: failed to legalize operation 'arith.constant'
func.func @kept(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%a : memref<2048xf16, #gpu.address_space<workgroup>>,
                       %b : memref<1024xf32, #gpu.address_space<workgroup>>) {
    %la = lego.row [32, 64] : !lego.layout
    %v = arith.constant dense<1.0> : vector<8xf16>
    %c = arith.muli %tx, %c4 : index
    %s = lego.apply %la(%c0, %c) : !lego.layout
    // LOC: unlocated-error-5f98d0be49-seed20261127.mlir:[[@LINE+1]]:5: error: failed to legalize operation 'arith.constant'
    vector.store %v, %a[%s] {alignment = 8} : memref<2048xf16, #gpu.address_space<workgroup>>, vector<8xf16>
    gpu.terminator
  }
  return
}
