#!/bin/sh
# On the GPU machine (no LLVM, no Rust, no registry): installs the wheel alone over the machine's Python
# (pip --no-deps: numpy, sympy, torch, Triton and CuPy are the machine's), then runs every Python path from it.
# Results land in $OUT (docs/python.md, "On a GPU machine"). Called from the repository root:
#   sh bench/device/run.sh [WHEEL_DIR]   (the manylinux wheel in WHEEL_DIR, default target/wheels, carried there)
set -eu
OUT=${OUT:-/tmp/lego-device-out}
mkdir -p "$OUT"
echo "== the machine"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 --version
for tool in llc-22 llc clang mlir-opt cargo rustc; do command -v $tool >/dev/null && echo "found $tool" || echo "no $tool"; done
ls -d /usr/lib/llvm* 2>/dev/null || echo "no /usr/lib/llvm*"
echo "== pip install --no-deps the wheel"
python3 -m pip install --quiet --no-deps --no-index --force-reinstall "${1:-target/wheels}"/lego-*manylinux*.whl
BIN=$(python3 -c 'import os, sys; print(os.path.dirname(sys.executable))')
"$BIN/lego-opt" --version
"$BIN/lego-opt" examples/transpose-smem.mlir --lego-to-nvvm='chip=sm_90 features=+ptx80 format=assembly' | grep -c '.entry'
"$BIN/lego-translate" --lego-to-cuda examples/paper-fig2.mlir | grep -c '__device__'
"$BIN/lego-studio" draw examples/paper-fig2.mlir -o "$OUT/fig2.svg" && echo "studio draw ok"
python3 -c "import lego, lego._lego as m; print(lego.__file__); import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"

echo "== (a) the bench/triton kernels rewritten by @lego.jit's rewriter here, then run"
cp bench/triton/generated/lego_generated.py /tmp/lego_generated.build-machine.py
python3 bench/triton/generate.py
if cmp -s /tmp/lego_generated.build-machine.py bench/triton/generated/lego_generated.py; then
  echo "the kernels rewritten here are identical to the build machine's"
else
  echo "the kernels rewritten here DIFFER from the build machine's"; cp bench/triton/generated/lego_generated.py "$OUT/"
fi
PYTHONUNBUFFERED=1 python3 bench/triton/run.py --sizes "${TRITON_SIZES:-4096,8192}" --out "$OUT/triton.json" > "$OUT/triton.log" 2>&1 \
  || { echo "run.py failed"; tail -30 "$OUT/triton.log"; }
python3 bench/triton/table.py "$OUT/triton.json" || true

echo "== (b), (c), (j)"
PYTHONUNBUFFERED=1 python3 bench/device/wheel_gpu.py --out "$OUT/wheel_gpu.json" 2>&1 | tee "$OUT/wheel_gpu.log" | grep -v '^{' || true
python3 bench/device/table.py "$OUT/wheel_gpu.json" || true

echo "== the GPU puzzles (docs/gpu-dsl.md): every cuda kernel through CuPy, timed against torch"
PYTHONUNBUFFERED=1 python3 bench/gpu_puzzles/run_h100.py --puzzles python/examples/puzzles --rounds "${PUZZLE_ROUNDS:-10}" \
  > "$OUT/puzzles.md" 2> "$OUT/puzzles.err" || { echo "run_h100.py failed"; tail -30 "$OUT/puzzles.err"; }
cat "$OUT/puzzles.md"
