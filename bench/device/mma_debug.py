"""Which fragments of puzzle 33's mma_staged are wrong, at several sizes and tile shapes (on the GPU machine, the
wheel installed): python3 bench/device/mma_debug.py"""
import sys

import numpy as np
sys.path.insert(0, "bench/gpu_puzzles"); sys.path.insert(0, "python/examples/puzzles")
import cupy
from run_h100 import Launcher
import puzzle_33_tensor_cores as p
for (M, N, K, kw) in [(64, 64, 64, {}), (64, 64, 32, {}), (128, 128, 64, {}), (64, 128, 64, {}), (128, 64, 64, {}),
                      (256, 256, 256, {}), (64, 64, 64, dict(WN=32)), (128, 128, 128, dict(BM=64, BN=64))]:
    try:
        k = p.build_mma_staged(M, N, K, **kw)
        rng = np.random.default_rng(0)
        a = rng.integers(-3, 4, (M, K)).astype(np.float16); b = rng.integers(-3, 4, (K, N)).astype(np.float16)
        c = cupy.zeros(M * N, cupy.float32)
        Launcher(k)(cupy.asarray(a.ravel()), cupy.asarray(b.ravel()), c)
        cupy.cuda.runtime.deviceSynchronize()
        out = cupy.asnumpy(c).reshape(M, N); ref = a.astype(np.float64) @ b.astype(np.float64)
        bad = np.abs(out - ref) > 1e-3
        frag = bad.reshape(M // 16, 16, N // 16, 16).any(axis=(1, 3)).astype(int)
        print(M, N, K, kw, "threads", k._block, "maxerr", np.abs(out - ref).max(), "bad", bad.mean())
        if bad.any():
            print(" bad fragments (16x16):\n", frag[:8, :8])
            i, j = np.argwhere(bad)[0]
            print(" first bad", i, j, out[i, j], ref[i, j], "zero frac of bad", (out[bad] == 0).mean())
            # is it A or B read wrongly? try out vs a@b with half of K
            for kk in (K // 2,):
                r1 = a[:, :kk].astype(np.float64) @ b[:kk]; r2 = a[:, kk:].astype(np.float64) @ b[kk:]
                print(" matches first-half-K", np.abs(out - r1).max(), "second-half", np.abs(out - r2).max(), "2x second", np.abs(out-2*r2).max(), "2x first", np.abs(out-2*r1).max())
    except Exception as e:
        print(M, N, K, kw, "ERROR", str(e)[:200])
