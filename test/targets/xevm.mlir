// lego-to-xevm: Intel XeVM kernels (LLVM dialect with OpenCL built-ins, XeVM ops where they apply), turned
// into SPIR-V by LLVM's SPIR-V backend. format=fatbin (the published default) and format=bin give the SPIR-V
// words: magic 0x07230203, printed little-endian as "\03\02#\07"; format=assembly gives SPIR-V text.
// RUN: lego-opt %examples/transpose-smem.mlir --lego-to-xevm | FileCheck %s --check-prefix=FATBIN
// RUN: lego-opt %examples/transpose-smem.mlir --lego-to-xevm=format=bin | FileCheck %s
// RUN: lego-opt %examples/transpose-smem.mlir --lego-to-xevm='chip=pvc format=assembly' | FileCheck %s --check-prefix=ASM
// RUN: lego-opt %examples/matmul-tiled.mlir --lego-to-xevm='format=offloading' | FileCheck %s --check-prefix=OFFLOAD
// RUN: not lego-opt %s --lego-to-xevm='chip=gfx90a' 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not lego-opt %s --lego-to-xevm='format=ptx' 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not lego-opt %S/Inputs/cpu-only.mlir --lego-to-xevm 2>&1 | FileCheck %s --check-prefix=NOGPU

// FATBIN: gpu.binary @transpose_smem_kernel [#gpu.object<#xevm.target, "\03\02#\07
// CHECK: gpu.launch_func @transpose_smem_kernel::@transpose_smem_kernel
// CHECK: gpu.binary @transpose_smem_kernel [#gpu.object<#xevm.target, bin = "\03\02#\07

// ASM: gpu.binary @transpose_smem_kernel [#gpu.object<#xevm.target<chip = "pvc">
// ASM-SAME: assembly = "
// ASM-SAME: OpCapability Kernel
// ASM-SAME: OpEntryPoint Kernel %{{[0-9]+}} \22transpose_smem_kernel\22
// ASM-SAME: OpExecutionMode %{{[0-9]+}} LocalSize 32 8 1

// OFFLOAD: gpu.binary @matmul_kernel [#gpu.object<#xevm.target, offload = "BC\C0\DE

// CHIP: error: invalid value 'gfx90a' for option 'chip' of 'lego-to-xevm': expected an Intel GPU known to MLIR's XeVM target: bmg or pvc
// FORMAT: error: invalid value 'ptx' for option 'format' of 'lego-to-xevm'
// NOGPU: error: 'lego-to-xevm' compiles GPU kernels, but the module has no GPU code

func.func @f() {
  return
}
