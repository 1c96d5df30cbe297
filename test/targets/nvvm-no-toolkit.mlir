// Without a CUDA toolkit anywhere, lego-to-nvvm's binary formats fail before any pass runs, naming the missing
// tools and the way out (format=assembly needs nothing). PATH holds lego-opt alone; the test needs the
// fallback location /usr/local/cuda/bin to have no ptxas.
// RUN: not env CUDA_ROOT= CUDA_HOME= CUDA_PATH= PATH=%lego_root/target/debug lego-opt %examples/transpose-naive.mlir --lego-to-nvvm='format=bin' 2>&1 | FileCheck %s --check-prefix=NOPTXAS
// RUN: not env CUDA_ROOT= CUDA_HOME= CUDA_PATH= PATH=%lego_root/target/debug lego-opt %examples/transpose-naive.mlir --lego-to-nvvm 2>&1 | FileCheck %s --check-prefix=NOFATBIN
// UNSUPPORTED: cuda-fallback-toolkit

// NOPTXAS: error: lego-to-nvvm: format=binary needs the CUDA toolkit's `ptxas`, which was not found (looked in $CUDA_ROOT/bin, $CUDA_HOME/bin, $CUDA_PATH/bin, $PATH and /usr/local/cuda/bin); install the CUDA toolkit or set CUDA_HOME, or use format=assembly to get PTX text (which needs no external tool)
// NOFATBIN: error: lego-to-nvvm: format=fatbin needs the CUDA toolkit's `ptxas` and `fatbinary`, which were not found
