"""The second GPU run (bench/triton/README.md, "Block pointers and Numba CUDA"), on the GPU machine:

* the LEGO matmuls rewritten with block pointers (generated/lego_blockptr.py: ``tl.make_block_ptr`` +
  ``tl.advance``) checked against ``torch.matmul`` and timed next to the pointer-arithmetic LEGO kernels
  (generated/lego_generated.py), the hand-written twin and cuBLAS, one tile config (run.py's MM);
* the tests' grouped-pid matmul and ceiling-grid matmul (``boundary_check``, sizes not multiples of the tiles)
  with block pointers, checked against PyTorch;
* the LEGO Numba CUDA kernels (generated/numba_generated.py) checked against NumPy, when numba imports.

    python3 bench/triton/run_extra.py --out results-extra.json
"""

import argparse
import json
import os
import sys
import traceback

import numpy as np
import torch
import triton
import triton.language as tl
from triton.testing import do_bench

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "generated"))

ROWS = []
MM = dict(BM=128, BN=256, BK=64, GM=8, num_warps=8, num_stages=3)  # run.py's fixed config


def bench(fn):
    return do_bench(fn, warmup=25, rep=200, return_mode="median")


def emit(row):
    ROWS.append(row)
    print(json.dumps(row), flush=True)


def blockptr_matmuls(sizes):
    import hand_kernels as H
    import lego_blockptr as BP
    import lego_generated as G

    for size in sizes:
        for variant in ("nn", "nt", "tn", "tt"):
            m = n = k = size
            a_store = torch.randn((k, m) if variant[0] == "t" else (m, k), device="cuda", dtype=torch.float16)
            b_store = torch.randn((n, k) if variant[1] == "t" else (k, n), device="cuda", dtype=torch.float16)
            a = a_store.t() if variant[0] == "t" else a_store
            b = b_store.t() if variant[1] == "t" else b_store
            cb, cl, ch = (torch.empty((m, n), device="cuda", dtype=torch.float16) for _ in range(3))
            grid = (triton.cdiv(m, MM["BM"]) * triton.cdiv(n, MM["BN"]),)
            fb = lambda: getattr(BP, f"bp_matmul_{variant}")[grid](a_store, b_store, cb, m, n, k, **MM)
            fl = lambda: getattr(G, f"matmul_{variant}")[grid](a_store, b_store, cl, m, n, k, **MM)
            fh = lambda: H.matmul[grid](a, b, ch, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                        ch.stride(0), ch.stride(1), **MM)
            fb(), fl(), fh()
            ref = torch.matmul(a, b)
            err = (cb.float() - ref.float()).abs().max().item()
            ok = torch.allclose(cb, ref, atol=1e-1, rtol=1e-2) and torch.equal(cb, cl)
            tb, tlg, th, tt = bench(fb), bench(fl), bench(fh), bench(lambda: torch.matmul(a, b))
            flop = 2 * m * n * k / 1e12
            emit({"kernel": f"matmul fp16 {variant.upper()} block ptr", "size": size, "blockptr_tflops": flop / tb * 1e3,
                  "lego_ptr_tflops": flop / tlg * 1e3, "hand_tflops": flop / th * 1e3, "torch_tflops": flop / tt * 1e3,
                  "blockptr_over_hand": th / tb, "blockptr_over_torch": tt / tb, "max_abs_err_vs_torch": err,
                  "equal_to_lego_ptr_kernel": torch.equal(cb, cl), "correct": ok})


def blockptr_test_kernels():
    import lego_blockptr as BP

    m = n = k = 1024
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float32)
    cfg = dict(BM=64, BN=64, BK=32, GM=4)
    BP.bp_matmul_grouped[(triton.cdiv(m, 64) * triton.cdiv(n, 64),)](a, b, c, m, n, k, **cfg)
    ref = torch.matmul(a.float(), b.float())
    emit({"kernel": "grouped-pid matmul, block ptr (tests' kernel)", "size": "1024^3 fp16 -> fp32",
          "max_abs_err_vs_torch": (c - ref).abs().max().item(), "correct": torch.allclose(c, ref, atol=2e-2, rtol=1e-3)})
    m, n, k = 300, 200, 170  # not multiples of the 32-tiles: boundary_check pads with zeros
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.full((m, n), 7.0, device="cuda", dtype=torch.float32)
    BP.bp_matmul_ceil[(triton.cdiv(m, 32), triton.cdiv(n, 32))](a, b, c, m, n, k, BM=32, BN=32, BK=32)
    ref = torch.matmul(a[:, 32:].float(), b[32:, :].float())  # the kernel's loop starts at k = 1 (one BK skipped)
    emit({"kernel": "ceiling-grid matmul, block ptr + boundary_check (tests' kernel)", "size": f"{m}x{n}x{k}",
          "max_abs_err_vs_torch": (c - ref).abs().max().item(), "correct": torch.allclose(c, ref, atol=2e-2, rtol=1e-3)})


def numba_kernels():
    # The GPU image's numba-cuda 0.30.4 registers an overload of np.row_stack, which its NumPy 2.5 no longer
    # has: the alias (np.vstack, what row_stack always was) lets numba.cuda import there.
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    import numba
    from numba import cuda

    import numba_generated as NG

    rng = np.random.default_rng(0)
    n = 1 << 20
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    dx, dy, dz = cuda.to_device(x), cuda.to_device(y), cuda.device_array(n, dtype=np.float32)
    NG.numba_vecadd[(n + 255) // 256, 256](dx, dy, dz, n)
    cuda.synchronize()
    z = dz.copy_to_host()
    start, stop = cuda.event(), cuda.event()
    start.record()
    for _ in range(100):
        NG.numba_vecadd[(n + 255) // 256, 256](dx, dy, dz, n)
    stop.record()
    stop.synchronize()
    ms = cuda.event_elapsed_time(start, stop) / 100
    emit({"kernel": "Numba CUDA vecadd (LEGO, rewritten)", "size": n, "numba": numba.__version__,
          "correct": bool(np.array_equal(z, x + y)), "ms": ms, "GB/s": 3 * 4 * n / ms / 1e6})
    M, N, K = 96, 128, 80
    a, b = rng.random(M * K, dtype=np.float32), rng.random(K * N, dtype=np.float32)
    dc = cuda.device_array(M * N, dtype=np.float32)
    NG.numba_matmul[M, N](cuda.to_device(a), cuda.to_device(b), dc, M, N, K)
    c = dc.copy_to_host().reshape(M, N)
    ref = a.reshape(M, K).astype(np.float64) @ b.reshape(K, N)
    emit({"kernel": "Numba CUDA matmul (LEGO, rewritten)", "size": f"{M}x{N}x{K}",
          "max_abs_err_vs_numpy": float(np.abs(c - ref).max()), "correct": bool(np.allclose(c, ref, rtol=1e-5, atol=1e-4))})
    src = rng.random(M * N, dtype=np.float32)
    dd = cuda.device_array(M * N, dtype=np.float32)
    NG.numba_transpose[M, N](cuda.to_device(src), dd, M, N)
    emit({"kernel": "Numba CUDA transpose (LEGO, rewritten)", "size": f"{M}x{N}",
          "correct": bool(np.array_equal(dd.copy_to_host(), src.reshape(M, N).T.reshape(-1)))})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="results-extra.json")
    parser.add_argument("--sizes", default="4096,8192")
    parser.add_argument("--skip", default="", help="comma list of steps to skip: matmul,tests,numba")
    args = parser.parse_args()
    print(torch.cuda.get_device_name(), "triton", triton.__version__, "torch", torch.__version__,
          "make_block_ptr:", hasattr(tl, "make_block_ptr"), flush=True)
    steps = {"tests": blockptr_test_kernels, "matmul": lambda: blockptr_matmuls([int(s) for s in args.sizes.split(",")]),
             "numba": numba_kernels}
    for name, step in steps.items():
        if name in args.skip.split(","):
            continue
        try:
            step()
        except Exception as error:  # a failed step is reported and the others still run
            traceback.print_exc()
            emit({"kernel": name, "error": f"{type(error).__name__}: {error}"})
    with open(args.out, "w") as f:
        json.dump(ROWS, f, indent=1)


if __name__ == "__main__":
    main()
