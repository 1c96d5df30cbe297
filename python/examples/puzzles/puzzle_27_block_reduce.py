# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 256
# REQUIRES: gpu
"""Puzzle 27 (block reduce): each block's Σ a·b — (1) with the workgroup reduction all_reduce_add (the
block-level sum the topic is about; lowered by lego-to-nvvm and lego-to-llvmspirv only, the other targets
refuse it by name); (2) the shared-memory tree of puzzle 12 (every target)."""
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [256], bench_utils.T8


def build(N):
    BLOCK = min(256, N)
    T = OrderBy(Row(N)).TileBy([N // BLOCK], [BLOCK])

    @gpu_kernel(grid=(N // BLOCK,), block=(BLOCK,))
    def block_sum(A: Buffer(T, N), B: Buffer(T, N), Out: Buffer[N // BLOCK]):
        total = all_reduce_add(A[block_id.x, thread_id.x] * B[block_id.x, thread_id.x])
        if thread_id.x == 0:
            Out[block_id.x] = total

    @gpu_kernel(grid=(N // BLOCK,), block=(BLOCK,))
    def block_dot_product(A: Buffer(T, N), B: Buffer(T, N), Out: Buffer[N // BLOCK], s: Shared[BLOCK]):
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

    dot = lambda ins: (ins[0] * ins[1]).reshape(-1, BLOCK).sum(axis=1)  # noqa: E731
    return [dict(kernel=block_sum, expected=dot, label="all_reduce", atol=1e-4, init_mod=10),
            dict(kernel=block_dot_product, expected=dot, label="shared tree", atol=1e-4, init_mod=10)]


if __name__ == "__main__":
    bench_utils.main(globals())
