// Finding 11a: a constant block size of 2^31 was accepted, wrapped to i32 after kernel outlining and
// reported as an unlocated "can't parse integer attribute -2147483648 in nvvm.maxntid". The GPU pipelines
// check constant launch sizes (1 .. 2^31-1) before lowering and report at the launch. Bound: 120 s.
// RUN: %outcome --timeout 120 --expect error -- lego-opt %s '--lego-to-nvvm=chip=sm_90 features=+ptx80 format=assembly' | FileCheck %s
// CHECK: outcome: error
func.func @f(%m: memref<4xindex>) {
  %one = arith.constant 1 : index
  %blk = arith.constant 2147483648 : index
  // CHECK: 11a-unlocated-error-nvvm-maxntid.mlir:[[@LINE+1]]:3: error: 'gpu.launch' op block size x is 2147483648
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one) threads(%tx, %ty, %tz) in (%sx = %blk, %sy = %one, %sz = %one) {
    %l = lego.row [2, 2] : !lego.layout
    %f = lego.apply %l(%tx, %ty) : !lego.layout
    memref.store %f, %m[%bx] : memref<4xindex>
    gpu.terminator
  }
  return
}
