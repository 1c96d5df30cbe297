// A plain transpose written with lego.row / lego.col / tile_by inside gpu.launch goes through every GPU
// pipeline (with what works without CUDA or ROCm installed). Its index arithmetic needs signed floor
// division after affine expansion, which the SPIR-V conversion cannot take: lego-to-spirv expands it first.
// RUN: lego-opt %s --lego-to-nvvm='format=assembly' | FileCheck %s --check-prefix=NVVM
// RUN: lego-opt %s --lego-to-rocdl='format=assembly' | FileCheck %s --check-prefix=ROCDL
// RUN: lego-opt %s --lego-to-spirv | FileCheck %s --check-prefix=SPIRV
// RUN: lego-opt %s --lego-to-spirv='spirv-version=1.3 client-api=opencl' | FileCheck %s --check-prefix=SPIRV
// RUN: lego-opt %s --lego-to-xevm | FileCheck %s --check-prefix=XEVM
// RUN: lego-opt %s --lego-to-llvmspirv | FileCheck %s --check-prefix=LLVMSPIRV
// RUN: lego-opt %s --lego-to-llvmspirv='format=bin' | FileCheck %s --check-prefix=LLVMSPIRV-BIN

// NVVM: gpu.binary @transpose_kernel [#gpu.object<#nvvm.target<chip = "sm_70", features = "+ptx60">, {{.*}}.visible .entry transpose_kernel(
// ROCDL: gpu.binary @transpose_kernel [#gpu.object<#rocdl.target, assembly = "{{.*}}transpose_kernel:
// SPIRV: lego.spirv_binary = "119734787,
// SPIRV-NOT: lego.
// SPIRV: gpu.binary @transpose_kernel [#gpu.object<#spirv.target_env<{{.*}}>, bin = "\03\02#\07
// XEVM: gpu.binary @transpose_kernel [#gpu.object<#xevm.target, "\03\02#\07
// LLVMSPIRV: gpu.module @transpose_kernel
// LLVMSPIRV: llvm.func spir_kernelcc @transpose_kernel(
// LLVMSPIRV-BIN: gpu.binary @transpose_kernel [#gpu.object<#xevm.target<chip = "">, bin = "\03\02#\07
// NVVM-NOT: lego.
// ROCDL-NOT: lego.
// XEVM-NOT: lego.
// LLVMSPIRV-NOT: lego.

// out = inᵀ for a 32 × 32 matrix, 4 × 4 blocks of 8 × 8 threads; thread (by, bx, ty, tx) moves element
// (8·by + ty, 8·bx + tx) of the row-major input to the same place of the column-major output.
func.func @transpose(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c4, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c8, %sz = %c1) {
    %r = lego.row [32, 32] : !lego.layout
    %c = lego.col [32, 32] : !lego.layout
    %or = lego.order_by(%r) : !lego.layout
    %oc = lego.order_by(%c) : !lego.layout
    %tr = lego.tile_by %or tile_dims [[4, 4], [8, 8]] : !lego.layout
    %tc = lego.tile_by %oc tile_dims [[4, 4], [8, 8]] : !lego.layout
    %vin = lego.cast_view %in, %tr : memref<1024xf32>, !lego.layout -> !lego.view<f32>
    %vout = lego.cast_view %out, %tc : memref<1024xf32>, !lego.layout -> !lego.view<f32>
    %x = lego.load %vin[%by, %bx, %ty, %tx] : !lego.view<f32>, index, index, index, index
    lego.store %x, %vout[%by, %bx, %ty, %tx] : f32, !lego.view<f32>, index, index, index, index
    gpu.terminator
  }
  return
}
