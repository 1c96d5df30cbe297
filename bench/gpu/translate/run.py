#!/usr/bin/env python3
"""GPU check of lego-translate's CUDA C: a kernel that includes the generated layouts.cuh is compiled with nvcc
and run; every result is compared with NumPy's closed forms of the same layouts (paper Fig. 1's tiled matmul
layout, 2048x2048 in 64x64 tiles, and Fig. 7's anti-diagonal order, n = 33).

    python3 bench/gpu/translate/run.py [--out results.md]     # on the GPU machine: CuPy, NumPy, nvcc

Regenerate the header (build machine) with
    lego-translate --lego-to-cuda bench/gpu/translate/layouts.mlir -o bench/gpu/translate/layouts.cuh
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import cupy as cp
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

KERNELS = r"""
#include "layouts.cuh"

// One thread per logical index (pm, pk, i, k) of the tiled layout, row-major over [32, 32, 64, 64]:
// dst[apply(idx)] = src[t], and apply_inverse(apply(idx)) must give idx back.
extern "C" __global__ void tiled_scatter(const unsigned int *src, unsigned int *dst, unsigned long long *bad) {
  unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (t >= 2048ull * 2048ull) return;
  unsigned long long k = t % 64, i = (t / 64) % 64, pk = (t / 4096) % 32, pm = t / 131072;
  unsigned long long f = tiled_apply(pm, pk, i, k);
  dst[f] = src[t];
  unsigned long long a, b, c, d;
  tiled_inverse(f, a, b, c, d);
  if (a != pm || b != pk || c != i || d != k) atomicAdd(bad, 1ull);
}

extern "C" __global__ void antidiag_scatter(const unsigned int *src, unsigned int *dst) {
  unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= 33 * 33) return;
  dst[antidiag_apply(t / 33, t % 33)] = src[t];
}
"""


def nvcc():
    for candidate in [shutil.which("nvcc"), os.path.join(os.environ.get("CUDA_HOME", ""), "bin", "nvcc"), "/usr/local/cuda/bin/nvcc"]:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    sys.exit("run.py: nvcc not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)")


def compile_kernels(workdir):
    source = os.path.join(workdir, "kernels.cu")
    ptx = os.path.join(workdir, "kernels.ptx")
    with open(source, "w") as f:
        f.write(KERNELS)
    arch = "sm_" + cp.cuda.Device().compute_capability
    command = [nvcc(), "-ptx", "-O3", "-std=c++17", f"-arch={arch}", "-I", HERE, source, "-o", ptx]
    subprocess.run(command, check=True)
    return cp.RawModule(path=ptx), " ".join(os.path.basename(c) if i == 0 else c for i, c in enumerate(command)).replace(workdir, "."), arch


def tiled_reference(src):
    pm, pk, i, k = np.indices((32, 32, 64, 64)).reshape(4, -1).astype(np.int64)
    flat = (pm * 64 + i) * 2048 + pk * 64 + k
    dst = np.zeros_like(src)
    dst[flat] = src
    return dst, flat


def antidiag_reference(src, n=33):
    i, j = np.indices((n, n)).reshape(2, -1).astype(np.int64)
    a = i + j + 1
    ar = 2 * n - a
    flat = np.where(a <= n, i + a * (a - 1) // 2, n * n - n + i - ar * (ar - 1) // 2)
    dst = np.zeros_like(src)
    dst[flat] = src
    return dst, flat


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(HERE, "results.md"))
    parser.add_argument("--iters", type=int, default=20)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        module, command, arch = compile_kernels(workdir)

        n = 2048 * 2048
        src = np.random.default_rng(2026).integers(0, 2**32, size=n, dtype=np.uint32)
        expected, flat = tiled_reference(src)
        assert np.unique(flat).size == n, "the NumPy tiled layout is a bijection"
        d_src, d_dst, d_bad = cp.asarray(src), cp.zeros(n, dtype=cp.uint32), cp.zeros(1, dtype=cp.uint64)
        kernel = module.get_function("tiled_scatter")
        grid, block = ((n + 255) // 256,), (256,)
        kernel(grid, block, (d_src, d_dst, d_bad))
        cp.cuda.Device().synchronize()
        got = cp.asnumpy(d_dst)
        mismatches = int(np.count_nonzero(got != expected))
        bad_roundtrips = int(d_bad.get()[0])
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        for _ in range(args.iters):
            kernel(grid, block, (d_src, d_dst, d_bad))
        stop.record()
        stop.synchronize()
        ms = cp.cuda.get_elapsed_time(start, stop) / args.iters
        rows.append(("tiled matmul layout 2048x2048, 64x64 tiles: scatter through tiled_apply + round trip through tiled_inverse",
                     n, mismatches, bad_roundtrips, f"{ms:.3f} ms ({2 * 4 * n / ms / 1e6:.0f} GB/s)"))

        m = 33 * 33
        src = np.arange(m, dtype=np.uint32) * 7 + 3
        expected, flat = antidiag_reference(src)
        assert np.unique(flat).size == m, "the NumPy anti-diagonal order is a bijection"
        d_src, d_dst = cp.asarray(src), cp.zeros(m, dtype=cp.uint32)
        module.get_function("antidiag_scatter")(((m + 255) // 256,), (256,), (d_src, d_dst))
        cp.cuda.Device().synchronize()
        mismatches = int(np.count_nonzero(cp.asnumpy(d_dst) != expected))
        rows.append(("anti-diagonal order n = 33 (gen_p with select): scatter through antidiag_apply", m, mismatches, "-", "-"))

    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    lines = [
        "# lego-translate CUDA C on a GPU",
        "",
        f"`python3 bench/gpu/translate/run.py` on {device} ({arch}); kernels include the generated",
        f"[`layouts.cuh`](layouts.cuh) (from [`layouts.mlir`](layouts.mlir)), compiled with `{command}`,",
        "results compared element by element with NumPy's closed forms of the layouts.",
        "",
        "| kernel | elements | mismatches vs NumPy | failed inverse round trips | time per launch |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| {a} | {b} | {c} | {d} | {e} |" for a, b, c, d, e in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    with open(args.out, "w") as f:
        f.write(text)
    ok = all(r[2] == 0 and r[3] in (0, "-") for r in rows)
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
