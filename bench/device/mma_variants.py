"""Puzzle 33's tensor-core matmuls with a rolled k-loop: correctness at several sizes (integer-valued f16 data,
exact in f32) and TFLOP/s at 4096 against cuBLAS fp16 (torch.matmul), interleaved, best of the rounds. On the
GPU machine, the wheel installed:

    python3 bench/device/mma_variants.py [--rounds 5]
"""
import argparse
import sys

import numpy as np

sys.path.insert(0, "bench/gpu_puzzles")
sys.path.insert(0, "python/examples/puzzles")
import cupy  # noqa: E402
import torch  # noqa: E402
import puzzle_33_tensor_cores as p  # noqa: E402
from run_h100 import Launcher, _interleaved  # noqa: E402

VARIANTS = {
    "mma_staged (rolled)": (p.build_mma_staged, {}),
    "mma_pipelined 32x64 warps": (p.build_mma_pipelined, {}),
    "mma_pipelined 64x32 warps": (p.build_mma_pipelined, dict(WM=64, WN=32)),
    "mma_pipelined 64x64 warps (4 warps)": (p.build_mma_pipelined, dict(WM=64, WN=64)),
    "mma_pipelined 64x64 warps, BK 16, 4 stages": (p.build_mma_pipelined, dict(WM=64, WN=64, BK=16, STAGES=4)),
    "mma_pipelined 32x64 warps, BK 16, 4 stages": (p.build_mma_pipelined, dict(BK=16, STAGES=4)),
    "mma_pipelined 128x256, 64x64 warps, BK 16, 3 stages": (p.build_mma_pipelined,
                                                            dict(BN=256, WM=64, WN=64, BK=16, STAGES=3)),
    "mma_pipelined 64x64 warps, BK 32, 3 stages (BM 64)": (p.build_mma_pipelined,
                                                           dict(BM=64, WM=64, WN=64, STAGES=3)),
}
SIZES = [(64, 64, 64), (128, 128, 128), (256, 128, 96), (128, 256, 512), (4096, 4096, 4096)]


def check(build, kw, M, N, K):
    kernel = build(M, N, K, **kw)
    rng = np.random.default_rng(M + N + K)
    a = rng.integers(-3, 4, (M, K)).astype(np.float16)
    b = rng.integers(-3, 4, (K, N)).astype(np.float16)
    c = cupy.zeros(M * N, cupy.float32)
    Launcher(kernel)(cupy.asarray(a.ravel()), cupy.asarray(b.ravel()), c)
    cupy.cuda.runtime.deviceSynchronize()
    return float(np.abs(cupy.asnumpy(c).reshape(M, N) - a.astype(np.float64) @ b.astype(np.float64)).max())


def _ptxas_report(name, ptx, directory):
    import os
    import re
    import subprocess
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") + ".ptx")
    with open(path, "w") as handle:
        handle.write(ptx)
    done = subprocess.run(["ptxas", "-arch=sm_90", "-v", path, "-o", os.devnull], capture_output=True, text=True)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if "registers" in line or "spill" in line]
    print(f"<!-- {name}: PTX {len(ptx)} bytes; " + " ; ".join(line.strip() for line in lines) + " -->", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--ptx-dir", help="write each 4096 kernel's PTX there and print `ptxas -v`'s registers "
                        "and spills (nvcc's ptxas on PATH)")
    args = parser.parse_args()
    print(f"device: {cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    size = 4096
    g = torch.Generator(device="cpu").manual_seed(1)
    a = torch.randn(size, size, generator=g).half().cuda()
    b = torch.randn(size, size, generator=g).half().cuda()
    c = torch.zeros(size, size, dtype=torch.float32, device="cuda")
    views = [cupy.asarray(t.reshape(-1)) for t in (a, b, c)]
    ref = a.float() @ b.float()
    flops = 2 * size ** 3
    print("| kernel | exact at " + ", ".join("×".join(map(str, s)) for s in SIZES[:-1]) + " | max error 4096 (randn) "
          "| ours TFLOP/s | cuBLAS fp16 TFLOP/s | ours / cuBLAS |")
    print("|---|---|---:|---:|---:|---:|")
    for name, (build, kw) in VARIANTS.items():
        try:
            errors = []
            for M, N, K in SIZES[:-1]:
                try:
                    errors.append("yes" if check(build, kw, M, N, K) == 0 else "NO")
                except AssertionError:
                    errors.append("n/a")
            launch = Launcher(build(size, size, size, **kw))
            if args.ptx_dir:
                _ptxas_report(name, launch.ptx, args.ptx_dir)
            c.zero_()
            launch(*views)
            torch.cuda.synchronize()
            err = float((c - ref).abs().max())
            ours, theirs = _interleaved(lambda: launch(*views), lambda: torch.matmul(a, b), args.rounds, 5)
            print(f"| {name} | {' / '.join(errors)} | {err:.3g} | {flops / ours / 1e9:.1f} | "
                  f"{flops / theirs / 1e9:.1f} | {theirs / ours:.2f} |", flush=True)
        except Exception as error:  # noqa: BLE001
            print(f"| {name} | ERROR {str(error).splitlines()[0][:120]} | | | | |", flush=True)


if __name__ == "__main__":
    main()
