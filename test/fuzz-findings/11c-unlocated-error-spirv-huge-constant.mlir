// Finding 11c: an index constant that does not fit SPIR-V's 32-bit index gave the unlocated "failed to
// legalize operation 'arith.constant'". lego-to-spirv (Vulkan: 32-bit indices) checks kernel index
// constants before the conversion and reports at the constant. Bound: 120 s.
// RUN: %outcome --timeout 120 --expect error -- lego-opt %s --lego-to-spirv | FileCheck %s
// CHECK: outcome: error
func.func @f(%m: memref<32xindex>) {
  %one = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one) {
    // CHECK: 11c-unlocated-error-spirv-huge-constant.mlir:[[@LINE+1]]:12: error: index constant 4611686018427388004 does not fit
    %big = arith.constant 4611686018427388004 : index
    %l = lego.row [32] : !lego.layout
    %f = lego.apply %l(%tx) : !lego.layout
    %s = arith.addi %f, %big : index
    memref.store %s, %m[%tx] : memref<32xindex>
    gpu.terminator
  }
  return
}
