// lego-to-spirv: kernels in the SPIR-V dialect, serialized by gpu-module-to-binary into real SPIR-V words. The
// binary is printed as an escaped string: it starts with the magic number 0x07230203, little-endian
// "\03\02#\07" (0x23 is '#'), then the version word.
// RUN: lego-opt %examples/transpose-smem.mlir --lego-to-spirv | FileCheck %s
// RUN: lego-opt %examples/transpose-smem.mlir --lego-to-spirv='version=1.3 client-api=opencl' | FileCheck %s --check-prefix=OPENCL
// RUN: lego-opt %examples/transpose-smem.mlir --lego-to-spirv='spirv-version=1.3 client-api=opencl' | FileCheck %s --check-prefix=OPENCL
// The published output: the top module's lego.spirv_binary holds the SPIR-V words in decimal, comma-separated,
// first word the magic number 119734787; decoded (with the published frontend's regex) they are exactly the
// bytes gpu.binary carries, and they disassemble.
// RUN: lego-opt %examples/transpose-smem.mlir --lego-to-spirv | FileCheck %s --check-prefix=ATTR
// RUN: lego-opt %examples/transpose-smem.mlir --lego-to-spirv | python3 %S/Inputs/spirv_words.py %t.spv | FileCheck %s --check-prefix=WORDS
// RUN: %if spirv-tools %{ spirv-dis %t.spv | FileCheck %s --check-prefix=DIS %}
// RUN: lego-opt %examples/nw-antidiagonal.mlir --lego-to-spirv | FileCheck %s --check-prefix=NW
// Bad options, a kernel without a static block size, a module without GPU code: exit 1, clear message.
// RUN: not lego-opt %s --lego-to-spirv='version=2.0' 2>&1 | FileCheck %s --check-prefix=VERSION
// RUN: not lego-opt %s --lego-to-spirv='spirv-version=9.9' 2>&1 | FileCheck %s --check-prefix=SPIRV-VERSION
// RUN: not lego-opt %s --lego-to-spirv='client-api=metal' 2>&1 | FileCheck %s --check-prefix=API
// RUN: not lego-opt %S/Inputs/dynamic-block.mlir --lego-to-spirv 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not lego-opt %S/Inputs/cpu-only.mlir --lego-to-spirv 2>&1 | FileCheck %s --check-prefix=NOGPU

// Vulkan: the host passes each buffer as a pointer followed by its size in bytes (MLIR's Vulkan runtime
// wrappers bind buffers that way); the shader gets its workgroup size from the launch.
// CHECK: gpu.launch_func @transpose_smem_kernel::@transpose_smem_kernel blocks in ({{.*}}) threads in ({{.*}}) : i64 args(%{{.*}} : !llvm.ptr, %{{.*}} : i64, %{{.*}} : !llvm.ptr, %{{.*}} : i64)
// CHECK: gpu.binary @transpose_smem_kernel [#gpu.object<#spirv.target_env<#spirv.vce<v1.5, [Shader], [SPV_KHR_storage_buffer_storage_class]>, api=Vulkan, #spirv.resource_limits<>>, bin = "\03\02#\07
// The entry point's name and its LocalSize execution mode (32, 8, 1).
// CHECK-SAME: transpose_smem_kernel
// CHECK-NOT: gpu.module

// OPENCL: gpu.launch_func @transpose_smem_kernel::@transpose_smem_kernel blocks in ({{.*}}) threads in ({{.*}}) : i64 args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr)
// OPENCL: gpu.binary @transpose_smem_kernel [#gpu.object<#spirv.target_env<#spirv.vce<v1.3, [Addresses, Kernel, Int64], []>, api=OpenCL, #spirv.resource_limits<>>, bin = "\03\02#\07

// ATTR: module attributes {gpu.container_module, lego.spirv_binary = "119734787,{{([0-9]+,)+[0-9]+}}"} {

// WORDS: words: [[#WORDS:]]
// WORDS-NEXT: first word: 119734787
// WORDS-NEXT: bytes: [[#mul(WORDS,4)]]
// WORDS-NEXT: same as gpu.binary: yes

// DIS: OpEntryPoint GLCompute %transpose_smem_kernel "transpose_smem_kernel"
// DIS: OpExecutionMode %transpose_smem_kernel LocalSize 32 8 1

// NW: gpu.binary @nw_kernel [#gpu.object<#spirv.target_env<{{.*}}>, bin = "\03\02#\07

// VERSION: error: invalid value '2.0' for option 'version' of 'lego-to-spirv': expected a SPIR-V version from 1.0 to 1.6
// SPIRV-VERSION: error: invalid value '9.9' for option 'spirv-version' of 'lego-to-spirv': expected a SPIR-V version from 1.0 to 1.6
// API: error: invalid value 'metal' for option 'client-api' of 'lego-to-spirv': expected vulkan or opencl
// DYNAMIC: dynamic-block.mlir:{{[0-9]+}}:{{[0-9]+}}: error: SPIR-V needs a fixed workgroup size, but kernel 'scale_kernel' has no known block size: launch it with constant thread counts
// NOGPU: error: 'lego-to-spirv' compiles GPU kernels, but the module has no GPU code

func.func @f() {
  return
}
