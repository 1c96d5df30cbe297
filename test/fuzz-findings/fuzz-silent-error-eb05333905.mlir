// A lego-fuzz finding (bench/fuzz, seed 2026, case 1931): lego-to-llvmspirv then lego-to-rocdl in one run. The
// second pipeline handed the kernels the first had lowered for SPIR-V (spir_kernelcc, spir_funccc OpenCL
// built-ins) to LLVM's AMDGPU backend, which stopped the process with "LLVM ERROR: unsupported calling
// convention": exit 1, no diagnostic. lego-to-rocdl and lego-to-nvvm now reject such functions at their op
// (the launch they were outlined from), before LLVM sees them. Bound: 120 s (hang guard, not a timing assertion).
// RUN: %outcome --timeout 120 --expect error -- lego-opt %s --split-input-file --lego-to-llvmspirv=format=assembly --lego-to-rocdl=format=assembly | FileCheck %s --check-prefix=ROCDL
// RUN: %outcome --timeout 120 --expect error -- lego-opt %s --lego-to-llvmspirv=format=assembly --lego-to-nvvm=format=assembly | FileCheck %s --check-prefix=NVVM
// The net under what the pipelines do not check: upstream passes alone, on the lowered module, reach the same
// LLVM fatal error. lego-opt's (and lego-translate's) LLVM fatal-error handler reports it as an error naming
// the input (no line: LLVM does not say where), never silently.
// RUN: lego-opt %s --lego-to-llvmspirv=format=assembly -o %t.mlir
// RUN: %outcome --timeout 120 --expect unlocated-error -- lego-opt %t.mlir --rocdl-attach-target=chip=gfx900 --gpu-module-to-binary=format=isa | FileCheck %s --check-prefix=FATAL
// RUN: %outcome --timeout 120 --expect unlocated-error -- lego-translate %t.mlir --pass-pipeline='builtin.module(rocdl-attach-target{chip=gfx900}, gpu-module-to-binary{format=isa})' --lego-to-mlir | FileCheck %s --check-prefix=FATAL
// ROCDL: outcome: error
// ROCDL: fuzz-silent-error-eb05333905.mlir:[[@LINE+12]]:3: error: 'llvm.func' op @_Z12get_local_idj has the SPIR-V calling convention spir_funccc: this gpu.module was already lowered for SPIR-V (e.g. by 'lego-to-llvmspirv'), and 'lego-to-rocdl' cannot compile it for AMDGPU; run one target pipeline on the unlowered input
// ROCDL: fuzz-silent-error-eb05333905.mlir:[[@LINE+11]]:3: error: 'llvm.func' op @k_kernel has the SPIR-V calling convention spir_kernelcc: this gpu.module was already lowered for SPIR-V
// ROCDL-NOT: error:
// NVVM: outcome: error
// NVVM: fuzz-silent-error-eb05333905.mlir:[[@LINE+8]]:3: error: 'llvm.func' op @_Z12get_local_idj has the SPIR-V calling convention spir_funccc: {{.*}} 'lego-to-nvvm' cannot compile it for NVPTX
// NVVM: fuzz-silent-error-eb05333905.mlir:[[@LINE+7]]:3: error: 'llvm.func' op @k_kernel has the SPIR-V calling convention spir_kernelcc
// NVVM-NOT: error:
// FATAL: outcome: unlocated-error
// FATAL: .mlir: error: LLVM fatal error: unsupported calling convention
func.func @k(%m: memref<64xindex>) {
  %one = arith.constant 1 : index
  %t = arith.constant 1024 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one) threads(%tx, %ty, %tz) in (%sx = %t, %sy = %one, %sz = %one) {
    %l = lego.row [8, 8] : !lego.layout
    %f = lego.apply %l(%tx, %ty) : !lego.layout
    memref.store %f, %m[%tx] : memref<64xindex>
    gpu.terminator
  }
  return
}
