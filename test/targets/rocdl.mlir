// lego-to-rocdl: AMDGCN assembly needs no ROCm installation; kernels take bare pointers. The default chip
// is the published gfx900.
// RUN: lego-opt %examples/transpose-smem.mlir --lego-to-rocdl='format=assembly' | FileCheck %s
// A kernel reading gpu.block_dim / gpu.grid_dim of a launch with constant sizes: they are folded into the
// kernel (no __ockl_get_local_size call, which would need ROCm's device library), so assembly works.
// RUN: lego-opt %S/Inputs/block-dim.mlir --lego-to-rocdl='format=assembly' | FileCheck %s --check-prefix=DIMS
// RUN: lego-opt %examples/transpose-smem.mlir --lego-to-rocdl='chip=gfx1100 features=+wavefrontsize64 opt-level=3 format=isa' | FileCheck %s --check-prefix=RDNA
// RUN: lego-opt %examples/matmul-tiled.mlir --lego-to-rocdl='chip=gfx942 format=offloading' | FileCheck %s --check-prefix=OFFLOAD
// Bad options and a module without GPU code: exit 1 with a clear message.
// RUN: not lego-opt %s --lego-to-rocdl='chip=gfx1 format=assembly' 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not lego-opt %s --lego-to-rocdl='chip=sm_90 format=assembly' 2>&1 | FileCheck %s --check-prefix=CHIP2
// RUN: not lego-opt %s --lego-to-rocdl='features=+nonsense format=assembly' 2>&1 | FileCheck %s --check-prefix=FEATURE
// RUN: not lego-opt %s --lego-to-rocdl='features=wavefrontsize64 format=assembly' 2>&1 | FileCheck %s --check-prefix=FEATURE2
// RUN: not lego-opt %S/Inputs/cpu-only.mlir --lego-to-rocdl='format=assembly' 2>&1 | FileCheck %s --check-prefix=NOGPU

// CHECK: llvm.func @transpose_smem(
// CHECK: gpu.launch_func @transpose_smem_kernel::@transpose_smem_kernel blocks in ({{.*}}) threads in ({{.*}}) : i64 args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr)
// CHECK: gpu.binary @transpose_smem_kernel [#gpu.object<#rocdl.target, assembly = "
// CHECK-SAME: .amdgcn_target \22amdgcn-amd-amdhsa--gfx900\22
// CHECK-SAME: transpose_smem_kernel:
// CHECK-SAME: global_load_dword
// CHECK-SAME: ds_write_b32
// CHECK-SAME: s_barrier
// CHECK-SAME: ds_read
// CHECK-SAME: global_store_dword
// CHECK-SAME: .amdhsa_group_segment_fixed_size 4224

// DIMS: gpu.binary @scale_kernel [#gpu.object<#rocdl.target, assembly = "
// DIMS-NOT: ockl
// DIMS-SAME: scale_kernel:
// DIMS-SAME: .max_flat_workgroup_size: 256

// RDNA: gpu.binary @transpose_smem_kernel [#gpu.object<#rocdl.target<O = 3, chip = "gfx1100", features = "+wavefrontsize64">
// RDNA-SAME: amdgcn-amd-amdhsa--gfx1100
// RDNA-SAME: .amdhsa_wavefront_size32 0

// OFFLOAD: gpu.binary @matmul_kernel [#gpu.object<#rocdl.target<chip = "gfx942">, offload = "BC\C0\DE

// CHIP: error: invalid value 'gfx1' for option 'chip' of 'lego-to-rocdl': expected an AMD GPU architecture, one of gfx900, {{.*}}, gfx90a, {{.*}}
// CHIP2: error: invalid value 'sm_90' for option 'chip' of 'lego-to-rocdl'
// FEATURE: error: invalid value '+nonsense' for option 'features' of 'lego-to-rocdl': expected a comma-separated list of +feature/-feature with AMDGPU features of LLVM (e.g. +wavefrontsize64,-xnack); '+nonsense' is not one
// FEATURE2: error: invalid value 'wavefrontsize64' for option 'features' of 'lego-to-rocdl'
// NOGPU: error: 'lego-to-rocdl' compiles GPU kernels, but the module has no GPU code

func.func @f() {
  return
}
