// lego-to-rocdl's HSA code object formats (binary, fatbin: the default) need ROCm's ld.lld, looked up in
// $ROCM_PATH, $ROCM_ROOT, $ROCM_HOME and /opt/rocm as MLIR does; without it they fail before any pass runs.
// The test needs the fallback location /opt/rocm/llvm/bin to have no ld.lld.
// RUN: not env ROCM_PATH= ROCM_ROOT= ROCM_HOME= lego-opt %s --lego-to-rocdl 2>&1 | FileCheck %s
// RUN: not env ROCM_PATH= ROCM_ROOT= ROCM_HOME= lego-opt %s --lego-to-rocdl=format=bin 2>&1 | FileCheck %s --check-prefix=BIN
// A kernel whose block size is only known at run time reads gpu.block_dim: that needs ROCm's device
// library even for assembly; the error names the op, at its location.
// RUN: not env ROCM_PATH= ROCM_ROOT= ROCM_HOME= lego-opt %S/Inputs/dynamic-block-dim.mlir --lego-to-rocdl=format=assembly 2>&1 | FileCheck %s --check-prefix=DEVLIB
// UNSUPPORTED: rocm-fallback-toolkit

// CHECK: error: lego-to-rocdl: format=fatbin needs ROCm's linker `ld.lld`, which was not found (looked in $ROCM_PATH/llvm/bin, $ROCM_ROOT/llvm/bin, $ROCM_HOME/llvm/bin and /opt/rocm/llvm/bin); install ROCm or set ROCM_PATH, or use format=assembly to get AMDGCN assembly (which needs no external tool)
// BIN: error: lego-to-rocdl: format=binary needs ROCm's linker `ld.lld`
// DEVLIB: dynamic-block-dim.mlir:7:11: error: 'gpu.block_dim' op (a block size that is not a launch constant) needs ROCm's device library (it becomes a call to '__ockl_get_local_size'), which was not found (looked for amdgcn/bitcode in $ROCM_PATH, $ROCM_ROOT, $ROCM_HOME and /opt/rocm): install ROCm or set ROCM_PATH to compile it with 'lego-to-rocdl'
// DEVLIB-NOT: bitcode path

func.func @f() {
  return
}
