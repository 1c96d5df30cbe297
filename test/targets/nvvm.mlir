// lego-to-nvvm: PTX for an H100 (sm_90 needs PTX ISA 7.8+; +ptx80 as on the GPU machine) from the shared-memory
// transpose example, with the kernel's memrefs passed as bare pointers on both sides of the launch.
// RUN: lego-opt %examples/transpose-smem.mlir --lego-to-nvvm='chip=sm_90 features=+ptx80 format=assembly' | FileCheck %s
// The default PTX version of a chip (empty features) and the `isa` alias work too.
// RUN: lego-opt %examples/transpose-smem.mlir --lego-to-nvvm='chip=sm_90 features= format=isa' | FileCheck %s --check-prefix=MIN
// Inside --pass-pipeline, mixed with upstream passes.
// RUN: lego-opt %examples/transpose-naive.mlir --pass-pipeline='builtin.module(lego-to-nvvm{chip=sm_80 features=+ptx70 format=assembly}, canonicalize)' | FileCheck %s --check-prefix=NAIVE
// No index arithmetic by division or remainder is left for the GPU (every size is a power of two or a plain
// stride: lego-lower folds the layouts to shifts, masks and multiply-adds).
// RUN: lego-opt %examples/transpose-smem.mlir --lego-to-nvvm='chip=sm_90 features=+ptx80 format=assembly' | FileCheck %s --check-prefix=NODIV
// offloading: LLVM bitcode, no external tool.
// RUN: lego-opt %examples/transpose-naive.mlir --lego-to-nvvm='format=offloading' | FileCheck %s --check-prefix=OFFLOAD

// The host function launches the outlined kernel with one pointer per memref.
// CHECK: llvm.func @transpose_smem(
// CHECK: gpu.launch_func @transpose_smem_kernel::@transpose_smem_kernel blocks in ({{.*}}) threads in ({{.*}}) : i64 args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr)
// The PTX is printed as an escaped string: \0A is a newline, \09 a tab.
// CHECK: gpu.binary @transpose_smem_kernel [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">
// CHECK-SAME: assembly = "
// CHECK-SAME: .version 8.0\0A.target sm_90\0A.address_size 64
// CHECK-SAME: .visible .entry transpose_smem_kernel(\0A\09.param .u64 .ptr .align 1 transpose_smem_kernel_param_0,\0A\09.param .u64 .ptr .align 1 transpose_smem_kernel_param_1\0A)
// CHECK-SAME: .maxntid 32, 8, 1
// CHECK-SAME: .shared .align 4 .b8 __wg_transpose_smem_kernel_0[4224]
// CHECK-SAME: ld.global.b32
// CHECK-SAME: st.shared.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.b32
// CHECK-SAME: st.global.b32

// NODIV-NOT: {{(div|rem)\.(u|s)(32|64)}}

// MIN: .version 7.8\0A.target sm_90

// NAIVE: gpu.binary @transpose_naive_kernel [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx70">
// NAIVE-SAME: .version 7.0\0A.target sm_80
// NAIVE-SAME: .visible .entry transpose_naive_kernel(
// NAIVE-SAME: ld.global.b32
// NAIVE-SAME: st.global.b32

// OFFLOAD: gpu.binary @transpose_naive_kernel [#gpu.object<#nvvm.target<chip = "sm_70", features = "+ptx60">, offload = "BC\C0\DE
