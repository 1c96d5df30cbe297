// lego-to-nvvm rejects bad options before any pass runs (LLVM would abort on a PTX version too old for the
// chip), with a message naming the fix; exit status 1.
// RUN: not lego-opt %s --lego-to-nvvm='chip=sm_90 format=assembly' 2>&1 | FileCheck %s --check-prefix=PTX
// RUN: not lego-opt %s --lego-to-nvvm='chip=sm_91 format=assembly' 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not lego-opt %s --lego-to-nvvm='chip=sm_90 features=+ptx99 format=assembly' 2>&1 | FileCheck %s --check-prefix=FEATURE
// RUN: not lego-opt %s --lego-to-nvvm='chip=sm_90 features=+sm_90 format=assembly' 2>&1 | FileCheck %s --check-prefix=FEATURE2
// RUN: not lego-opt %s --lego-to-nvvm='format=cubin' 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not lego-opt %s --lego-to-nvvm='opt-level=4 format=assembly' 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not lego-opt %s --lego-to-nvvm='format=assembly chips=sm_90' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// A module without GPU code: the first pass of the pipeline says so.
// RUN: not lego-opt %S/Inputs/cpu-only.mlir --lego-to-nvvm='format=assembly' 2>&1 | FileCheck %s --check-prefix=NOGPU

// PTX: error: lego-to-nvvm: chip 'sm_90' needs PTX ISA 7.8 or newer, but features=+ptx60 selects PTX 6.0; use features=+ptx78 (or newer)
// CHIP: error: invalid value 'sm_91' for option 'chip' of 'lego-to-nvvm': expected an NVIDIA architecture, one of sm_50, {{.*}}, sm_90, sm_90a, {{.*}}
// FEATURE: error: invalid value '+ptx99' for option 'features' of 'lego-to-nvvm': expected a PTX ISA feature +ptxNN
// FEATURE2: error: invalid value '+sm_90' for option 'features' of 'lego-to-nvvm'
// FORMAT: error: invalid value 'cubin' for option 'format' of 'lego-to-nvvm': expected one of offloading/offload/llvm, assembly/isa, binary/bin, fatbin/fatbinary
// OPT: error: invalid value '4' for option 'opt-level' of 'lego-to-nvvm': expected an optimization level from 0 to 3
// UNKNOWN: error: unknown option 'chips' for pass 'lego-to-nvvm' (valid options: chip, features, opt-level, format)
// NOGPU: cpu-only.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'lego-to-nvvm' compiles GPU kernels, but the module has no GPU code (no gpu.launch, gpu.launch_func or gpu.module): put the kernel body in a gpu.launch, or use 'lego-to-llvm' for CPU code

func.func @f() {
  return
}
