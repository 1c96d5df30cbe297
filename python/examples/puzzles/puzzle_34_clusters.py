# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 1024
# REQUIRES: gpu
"""Puzzle 34 (clusters): out[b] = Σ a[block b]·(b + 1) — each block scales by its index (an f32 × index
promotion) and reduces through a shared tree. The blocks are independent: the DSL has no thread-block
cluster or distributed-shared-memory operations yet (docs/gpu-dsl.md, "Not done")."""
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import numpy as np
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [1024], bench_utils.T8


def build(N):
    BLOCK = min(256, N)
    T = OrderBy(Row(N)).TileBy([N // BLOCK], [BLOCK])

    @gpu_kernel(grid=(N // BLOCK,), block=(BLOCK,))
    def cluster_scaled_reduce(A: Buffer(T, N), Out: Buffer[N // BLOCK], s: Shared[BLOCK]):
        tx = thread_id.x
        s[tx] = A[block_id.x, tx] * (block_id.x + 1)
        barrier()
        stride = BLOCK // 2
        while stride > 0:
            if tx < stride:
                s[tx] = s[tx] + s[tx + stride]
            barrier()
            stride = stride // 2
        if tx == 0:
            Out[block_id.x] = s[0]

    return [dict(kernel=cluster_scaled_reduce, label="clusters", atol=1e-2, init_mod=10,
                 expected=lambda ins: ins[0].reshape(-1, BLOCK).sum(axis=1) * np.arange(1, N // BLOCK + 1))]


if __name__ == "__main__":
    bench_utils.main(globals())
