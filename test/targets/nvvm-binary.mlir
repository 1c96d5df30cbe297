// lego-to-nvvm format=bin / fatbin run the CUDA toolkit's ptxas / fatbinary found through CUDA_ROOT,
// CUDA_HOME, CUDA_PATH, PATH or /usr/local/cuda. Here a stand-in toolkit (Inputs/fake-cuda: "assembling"
// copies the PTX behind a marker) shows that the toolkit lego-to-nvvm found is the one MLIR runs.
// RUN: rm -rf %t && mkdir -p %t/cuda/bin %t/cuda/nvvm/libdevice
// RUN: cp %S/Inputs/fake-cuda/bin/ptxas %S/Inputs/fake-cuda/bin/fatbinary %t/cuda/bin/
// RUN: printf 'target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"\ntarget triple = "nvptx64-nvidia-cuda"\n' | llvm-as -o %t/cuda/nvvm/libdevice/libdevice.10.bc
// RUN: env CUDA_ROOT=%t/cuda CUDA_HOME=%t/cuda CUDA_PATH=%t/cuda lego-opt %examples/transpose-naive.mlir --lego-to-nvvm='chip=sm_90 features=+ptx80 format=bin' | FileCheck %s --check-prefix=BIN
// RUN: env CUDA_ROOT=%t/cuda CUDA_HOME=%t/cuda CUDA_PATH=%t/cuda lego-opt %examples/transpose-naive.mlir --lego-to-nvvm='chip=sm_90 features=+ptx80' | FileCheck %s --check-prefix=FATBIN

// BIN: gpu.binary @transpose_naive_kernel [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">
// BIN-SAME: bin = "FAKE-CUBIN\0A
// BIN-SAME: .visible .entry transpose_naive_kernel(

// FATBIN: gpu.binary @transpose_naive_kernel [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">
// FATBIN-SAME: "FAKE-FATBIN\0AFAKE-CUBIN\0A

