// lego-align-workgroup-attributions: an outlined kernel's workgroup attribution gets `llvm.align` = the largest
// `alignment` of the vector.load/store ops on it, so that convert-gpu-to-nvvm (or -rocdl) aligns its global for
// them (otherwise: the element's alignment, 2 for f16, under 16-byte accesses).
// RUN: lego-opt %s --split-input-file --lego-align-workgroup-attributions | FileCheck %s
// Through lego-to-nvvm: the fp16 tile with 16-byte accesses is `.align 16` (without the pass: `.align 2`); tiles
// with scalar accesses keep the element's alignment (the published PTX of examples/transpose-smem.mlir,
// test/targets/nvvm.mlir, is unchanged).
// RUN: lego-opt %S/Inputs/vector-tile.mlir --lego-to-nvvm='chip=sm_90 features=+ptx80 format=assembly' | FileCheck %s --check-prefix=PTX
// PTX: .shared .align 16 .b8 __wg_vector_tile_kernel_0[2048]
// PTX-SAME: st.shared.v4.b32
// Error path: the pass takes no options.
// RUN: not lego-opt %s --split-input-file --lego-align-workgroup-attributions=bad=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: error: unknown option 'bad' for pass 'lego-align-workgroup-attributions' (it takes no options)

// Firing: two attributions, the first used by a 16-byte store and an 8-byte load, the second only by scalars.
// CHECK-LABEL: gpu.func @k
// CHECK-SAME: workgroup(%{{.*}} : memref<1024xf16, 3> {llvm.align = 16 : i64}, %{{.*}} : memref<32xf32, 3>)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%data: memref<1024xf16>) workgroup(%tile: memref<1024xf16, 3>, %other: memref<32xf32, 3>) kernel {
      %c0 = arith.constant 0 : index
      %v = vector.load %data[%c0] : memref<1024xf16>, vector<8xf16>
      vector.store %v, %tile[%c0] {alignment = 16} : memref<1024xf16, 3>, vector<8xf16>
      %w = vector.load %tile[%c0] {alignment = 8} : memref<1024xf16, 3>, vector<4xf16>
      %x = memref.load %other[%c0] : memref<32xf32, 3>
      memref.store %x, %other[%c0] : memref<32xf32, 3>
      gpu.return
    }
  }
}

// -----

// Twins: vector accesses without an `alignment` (LLVM then assumes only the element's), and scalar accesses,
// leave the kernel as it is; so does a kernel whose attributions already carry attributes (written by hand).
// CHECK-LABEL: gpu.func @unaligned
// CHECK-NOT: llvm.align
// CHECK-LABEL: gpu.func @by_hand
// CHECK-SAME: workgroup(%{{.*}} : memref<1024xf16, 3> {llvm.align = 4 : i64})
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @unaligned(%data: memref<1024xf16>) workgroup(%tile: memref<1024xf16, 3>) kernel {
      %c0 = arith.constant 0 : index
      %v = vector.load %data[%c0] : memref<1024xf16>, vector<8xf16>
      vector.store %v, %tile[%c0] : memref<1024xf16, 3>, vector<8xf16>
      %x = memref.load %tile[%c0] : memref<1024xf16, 3>
      gpu.return
    }
    gpu.func @by_hand(%data: memref<1024xf16>) workgroup(%tile: memref<1024xf16, 3> {llvm.align = 4 : i64}) kernel {
      %c0 = arith.constant 0 : index
      %v = vector.load %data[%c0] : memref<1024xf16>, vector<8xf16>
      vector.store %v, %tile[%c0] {alignment = 16} : memref<1024xf16, 3>, vector<8xf16>
      gpu.return
    }
  }
}
