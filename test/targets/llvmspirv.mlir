// lego-to-llvmspirv: OpenCL-flavoured LLVM (convert-gpu-to-llvm-spv: spir_kernel functions calling OpenCL
// built-ins, no vendor ops) turned into SPIR-V by LLVM's SPIR-V backend for the generic spirv64 triple.
// RUN: lego-opt %examples/transpose-smem.mlir --lego-to-llvmspirv | FileCheck %s
// RUN: lego-opt %examples/nw-antidiagonal.mlir --lego-to-llvmspirv='format=assembly opt-level=3' | FileCheck %s --check-prefix=ASM
// RUN: not lego-opt %s --lego-to-llvmspirv='format=fatbin' 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not lego-opt %S/Inputs/cpu-only.mlir --lego-to-llvmspirv 2>&1 | FileCheck %s --check-prefix=NOGPU

// CHECK: gpu.binary @transpose_smem_kernel [#gpu.object<#xevm.target<chip = "">, bin = "\03\02#\07

// ASM: gpu.binary @nw_kernel [#gpu.object<#xevm.target<O = 3, chip = "">
// ASM-SAME: OpCapability Kernel
// ASM-SAME: OpExtInstImport \22OpenCL.std\22
// ASM-SAME: OpMemoryModel Physical64 OpenCL
// ASM-SAME: OpEntryPoint Kernel %{{[0-9]+}} \22nw_kernel\22

// FORMAT: error: invalid value 'fatbin' for option 'format' of 'lego-to-llvmspirv': expected one of offloading/offload/llvm, assembly/isa, binary/bin
// NOGPU: error: 'lego-to-llvmspirv' compiles GPU kernels, but the module has no GPU code

func.func @f() {
  return
}
