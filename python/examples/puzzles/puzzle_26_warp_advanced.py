# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 256
# REQUIRES: gpu
"""Puzzle 26 (advanced warp operations): (1) swap pairs of lanes (shuffle_xor 1); (2) butterfly max and (3)
butterfly sum (xor by 16, 8, 4, 2, 1: every lane ends with the warp's result); (4) an inclusive warp scan."""
import numpy as np
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [256], bench_utils.T8
WARP = 32


def build(N):
    T = OrderBy(Row(N)).TileBy([N // WARP], [WARP])

    @gpu_kernel(grid=(N // WARP,), block=(WARP,))
    def pair_swap(A: Buffer(T, N), Out: Buffer(T, N)):
        Out[block_id.x, thread_id.x] = shuffle_xor(A[block_id.x, thread_id.x], 1)

    @gpu_kernel(grid=(N // WARP,), block=(WARP,))
    def butterfly_max(A: Buffer(T, N), Out: Buffer(T, N)):
        v = A[block_id.x, thread_id.x]
        mask = WARP // 2
        while mask > 0:
            other = shuffle_xor(v, mask)
            if other > v:
                v = other
            mask = mask // 2
        Out[block_id.x, thread_id.x] = v

    @gpu_kernel(grid=(N // WARP,), block=(WARP,))
    def butterfly_sum(A: Buffer(T, N), Out: Buffer(T, N)):
        v = A[block_id.x, thread_id.x]
        mask = WARP // 2
        while mask > 0:
            v = v + shuffle_xor(v, mask)
            mask = mask // 2
        Out[block_id.x, thread_id.x] = v

    @gpu_kernel(grid=(N // WARP,), block=(WARP,))
    def warp_prefix(A: Buffer(T, N), Out: Buffer(T, N)):
        Out[block_id.x, thread_id.x] = warp_prefix_sum(A[block_id.x, thread_id.x])

    def rows(ins):
        return ins[0].reshape(-1, WARP).astype(np.float64)

    return [dict(kernel=pair_swap, label="pair_swap",
                 expected=lambda ins: rows(ins).reshape(-1, 2)[:, ::-1].ravel()),
            dict(kernel=butterfly_max, label="butterfly_max", atol=1e-4,
                 expected=lambda ins: np.repeat(rows(ins).max(axis=1), WARP)),
            dict(kernel=butterfly_sum, label="butterfly_sum", atol=1e-4, init_mod=10,
                 expected=lambda ins: np.repeat(rows(ins).sum(axis=1), WARP)),
            dict(kernel=warp_prefix, label="warp_prefix", atol=1e-4, init_mod=10,
                 expected=lambda ins: np.cumsum(rows(ins), axis=1).ravel())]


if __name__ == "__main__":
    bench_utils.main(globals())
