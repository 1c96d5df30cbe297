// lego-to-llvmspirv: OpenCL-flavoured LLVM (convert-gpu-to-llvm-spv: spir_kernelcc functions calling OpenCL
// built-ins, no vendor ops). As published, the pipeline stops after host lowering: the gpu.module keeps its
// LLVM-dialect kernels and no gpu.binary is made; chip and format are accepted. format=bin serializes with
// LLVM's SPIR-V backend for the generic spirv64 triple (an opt-in).
// RUN: lego-opt %examples/transpose-smem.mlir --lego-to-llvmspirv | FileCheck %s
// RUN: lego-opt %examples/transpose-smem.mlir --lego-to-llvmspirv='chip=generic format=assembly' | FileCheck %s
// RUN: lego-opt %examples/transpose-smem.mlir --lego-to-llvmspirv='format=bin' | FileCheck %s --check-prefix=BIN
// RUN: lego-opt %examples/nw-antidiagonal.mlir --lego-to-llvmspirv='format=bin opt-level=3' | FileCheck %s --check-prefix=BIN3
// RUN: not lego-opt %s --lego-to-llvmspirv='format=fatbin' 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not lego-opt %s --lego-to-llvmspirv='chip=a/b' 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not lego-opt %S/Inputs/cpu-only.mlir --lego-to-llvmspirv 2>&1 | FileCheck %s --check-prefix=NOGPU

// CHECK-NOT: gpu.binary
// CHECK: llvm.func @transpose_smem(
// CHECK: gpu.launch_func @transpose_smem_kernel::@transpose_smem_kernel
// CHECK: gpu.module @transpose_smem_kernel {
// CHECK-DAG: llvm.func spir_funccc @_Z12get_local_idj(i32) -> i64
// CHECK-DAG: llvm.func spir_kernelcc @transpose_smem_kernel(
// CHECK-NOT: gpu.binary

// BIN-NOT: gpu.module
// BIN: gpu.binary @transpose_smem_kernel [#gpu.object<#xevm.target<chip = "">, bin = "\03\02#\07
// BIN-NOT: gpu.module

// BIN3: gpu.binary @nw_kernel [#gpu.object<#xevm.target<O = 3, chip = "">, bin = "\03\02#\07

// FORMAT: error: invalid value 'fatbin' for option 'format' of 'lego-to-llvmspirv': expected one of offloading/offload/llvm, assembly/isa, binary/bin
// CHIP: error: invalid value 'a/b' for option 'chip' of 'lego-to-llvmspirv'
// NOGPU: error: 'lego-to-llvmspirv' compiles GPU kernels, but the module has no GPU code

func.func @f() {
  return
}
