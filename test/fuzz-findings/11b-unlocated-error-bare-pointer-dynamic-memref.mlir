// Finding 11b: a dynamically shaped memref used in a kernel gave ROCDL's unlocated "bare pointer calling
// convention requires all memrefs to have static shape and use the identity map". The bare-pointer GPU
// pipelines check kernel memrefs before lowering and report at the memref argument. Bound: 120 s.
// RUN: %outcome --timeout 120 --expect error -- lego-opt %s --lego-to-rocdl=format=assembly | FileCheck %s
// CHECK: outcome: error
// CHECK: 11b-unlocated-error-bare-pointer-dynamic-memref.mlir:[[@LINE+1]]:14: error: memref<?xf32> is used in a GPU kernel
func.func @f(%m: memref<?xf32>) {
  %one = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one) {
    %l = lego.row [32] : !lego.layout
    %v = lego.cast_view %m, %l : memref<?xf32>, !lego.layout -> !lego.view<f32>
    %x = lego.load %v[%tx] : !lego.view<f32>, index
    lego.store %x, %v[%tx] : f32, !lego.view<f32>, index
    gpu.terminator
  }
  return
}
