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

    cases = [dict(kernel=add_10_2d_blocks, expected=lambda ins: ins[0] + 10, label="2dblocks")]
    if N % 64 == 0:
        # 2-D blocks of 64 columns × 4 row groups, each thread four rows apart by 4: a row of a block is 256 B of
        # one matrix row (the 16 × 16 block's rows are 64 B), and four loads per thread before the stores.
        BX, BY = 64, 4
        T4 = OrderBy(Row(N, N)).TileBy([N // (4 * BY), N // BX], [4, 1], [BY, BX])

        @gpu_kernel(grid=(N // BX, N // (4 * BY)), block=(BX, BY))
        def add_10_2d_blocks_x4(A: Buffer(T4, N, N), Out: Buffer(T4, N, N)):
            a0 = A[block_id.y, block_id.x, 0, 0, thread_id.y, thread_id.x]
            a1 = A[block_id.y, block_id.x, 1, 0, thread_id.y, thread_id.x]
            a2 = A[block_id.y, block_id.x, 2, 0, thread_id.y, thread_id.x]
            a3 = A[block_id.y, block_id.x, 3, 0, thread_id.y, thread_id.x]
            Out[block_id.y, block_id.x, 0, 0, thread_id.y, thread_id.x] = a0 + 10.0
            Out[block_id.y, block_id.x, 1, 0, thread_id.y, thread_id.x] = a1 + 10.0
            Out[block_id.y, block_id.x, 2, 0, thread_id.y, thread_id.x] = a2 + 10.0
            Out[block_id.y, block_id.x, 3, 0, thread_id.y, thread_id.x] = a3 + 10.0

        cases.append(dict(kernel=add_10_2d_blocks_x4, expected=lambda ins: ins[0] + 10, label="2dblocks x4"))
    return cases


if __name__ == "__main__":
    bench_utils.main(globals())
