// lego-to-rocdl's HSA code object formats (binary, fatbin: the default) need ROCm's ld.lld, looked up in
// $ROCM_PATH, $ROCM_ROOT, $ROCM_HOME and /opt/rocm as MLIR does; without it they fail before any pass runs.
// The test needs the fallback location /opt/rocm/llvm/bin to have no ld.lld.
// RUN: not env ROCM_PATH= ROCM_ROOT= ROCM_HOME= lego-opt %s --lego-to-rocdl 2>&1 | FileCheck %s
// RUN: not env ROCM_PATH= ROCM_ROOT= ROCM_HOME= lego-opt %s --lego-to-rocdl=format=bin 2>&1 | FileCheck %s --check-prefix=BIN
// UNSUPPORTED: rocm-fallback-toolkit

// CHECK: error: lego-to-rocdl: format=fatbin needs ROCm's linker `ld.lld`, which was not found (looked in $ROCM_PATH/llvm/bin, $ROCM_ROOT/llvm/bin, $ROCM_HOME/llvm/bin and /opt/rocm/llvm/bin); install ROCm or set ROCM_PATH, or use format=assembly to get AMDGCN assembly (which needs no external tool)
// BIN: error: lego-to-rocdl: format=binary needs ROCm's linker `ld.lld`

func.func @f() {
  return
}
