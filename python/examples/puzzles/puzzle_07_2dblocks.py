# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 256
# REQUIRES: gpu
"""Puzzle 07 (2-D blocks): out = a + 10 on N×N through a 2-D tiling, subscripts [by, bx, ty, tx]."""
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [256], bench_utils.T8


def build(N):
    TPB = 16
    T = OrderBy(Row(N, N)).TileBy([N // TPB, N // TPB], [TPB, TPB])

    @gpu_kernel(grid=(N // TPB, N // TPB), block=(TPB, TPB))
    def add_10_2d_blocks(A: Buffer(T, N, N), Out: Buffer(T, N, N)):
        Out[block_id.y, block_id.x, thread_id.y, thread_id.x] = A[block_id.y, block_id.x, thread_id.y, thread_id.x] + 10.0

    return [dict(kernel=add_10_2d_blocks, expected=lambda ins: ins[0] + 10, label="2dblocks")]


if __name__ == "__main__":
    bench_utils.main(globals())
