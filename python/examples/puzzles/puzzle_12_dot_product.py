# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 256
# REQUIRES: gpu
"""Puzzle 12 (dot product): each block's Σ a·b by a shared-memory tree (a compile-time while, unrolled into
one guarded step and one barrier per level); thread 0 writes the block's sum."""
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [256], bench_utils.T8


def build(N):
    BLOCK = min(256, N)
    T = OrderBy(Row(N)).TileBy([N // BLOCK], [BLOCK])

    @gpu_kernel(grid=(N // BLOCK,), block=(BLOCK,))
    def dot_product(A: Buffer(T, N), B: Buffer(T, N), Out: Buffer[N // BLOCK], s: Shared[BLOCK]):
        tx = thread_id.x
        s[tx] = A[block_id.x, tx] * B[block_id.x, tx]
        barrier()
        stride = BLOCK // 2
        while stride > 0:
            if tx < stride:
                s[tx] = s[tx] + s[tx + stride]
            barrier()
            stride = stride // 2
        if tx == 0:
            Out[block_id.x] = s[0]

    return [dict(kernel=dot_product, label="dot_product", atol=1e-4, init_mod=10,
                 expected=lambda ins: (ins[0] * ins[1]).reshape(-1, BLOCK).sum(axis=1))]


if __name__ == "__main__":
    bench_utils.main(globals())
