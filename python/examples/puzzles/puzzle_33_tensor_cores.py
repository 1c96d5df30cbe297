# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 64
# REQUIRES: gpu
"""Puzzle 33 (tensor cores): (1) the tiled shared-memory matmul of puzzle 16; (2) a WMMA matmul with
``TensorCore(16, 16, 16, "f16", "f32")``: one warp per 16×16 tile of C, a compile-time loop over K/16 of
load_a / load_b / mma, then store. A and B are **f16 buffers** (the published puzzle loaded f16 fragments
from f32 data, reinterpreting the bits — wrong results; here that is a type error, see
python/tests/test_gpu_dsl_defects.py), C is f32. Checked against NumPy on the GPU (the CPU emulation has no
tensor cores)."""
import sys
from lego.core import Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer, TensorCore, DType
import bench_utils
from puzzle_16_matmul import build_tiled

ARG_NAMES, ARGS, TARGETS = ["m", "n", "k"], [64, 64, 64], bench_utils.T8
TC = TensorCore(16, 16, 16, "f16", "f32")


def build_mma(M, N, K):
    tc = TC

    @gpu_kernel(grid=(N // 16, M // 16), block=(32,))
    def matmul_mma(A: Buffer(Row(M, K), M, K, dtype=DType.f16), B: Buffer(Row(K, N), K, N, dtype=DType.f16),
                   C: Buffer[M, N]):
        a2 = mma_reshape(A, M, K)
        b2 = mma_reshape(B, K, N)
        c2 = mma_reshape(C, M, N)
        row = block_id.y * 16
        col = block_id.x * 16
        acc = tc.zero()
        kk = 0
        while kk < K:
            fa = tc.load_a(a2, row, kk, K)
            fb = tc.load_b(b2, kk, col, N)
            acc = tc.mma(fa, fb, acc)
            kk = kk + 16
        tc.store(acc, c2, row, col, N)

    return matmul_mma


def build(M, N=None, K=None):
    N = M if N is None else N
    K = M if K is None else K

    def mm(ins):
        return ins[0].reshape(M, K).astype(float) @ ins[1].reshape(K, N).astype(float)

    return [dict(kernel=build_tiled(M, N, K), expected=mm, label="tiled", atol=1e-2, init_mod=10),
            dict(kernel=build_mma(M, N, K), expected=mm, label="mma", atol=1e-2, init_mod=10)]


if __name__ == "__main__":
    if len(sys.argv) == 2:
        sys.argv += [sys.argv[1], sys.argv[1]]
    bench_utils.main(globals())
