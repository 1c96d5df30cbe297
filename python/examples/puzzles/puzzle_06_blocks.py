# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 1024
# REQUIRES: gpu
"""Puzzle 06 (blocks): out = a + 10 over several blocks of TPB = 256 threads."""
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [1024], bench_utils.T8


def build(N):
    TPB = 256
    T = OrderBy(Row(N)).TileBy([N // TPB], [TPB])

    @gpu_kernel(grid=(N // TPB,), block=(TPB,))
    def add_10_blocks(A: Buffer(T, N), Out: Buffer(T, N)):
        Out[block_id.x, thread_id.x] = A[block_id.x, thread_id.x] + 10.0

    cases = [dict(kernel=add_10_blocks, expected=lambda ins: ins[0] + 10, label="blocks")]
    if N % (4 * TPB) == 0:
        # Each block covers four blocks' worth: [block, k, thread] (puzzle 01's "map x4").
        T4 = OrderBy(Row(N)).TileBy([N // (4 * TPB)], [4], [TPB])

        @gpu_kernel(grid=(N // (4 * TPB),), block=(TPB,))
        def add_10_blocks_x4(A: Buffer(T4, N), Out: Buffer(T4, N)):
            a0 = A[block_id.x, 0, thread_id.x]
            a1 = A[block_id.x, 1, thread_id.x]
            a2 = A[block_id.x, 2, thread_id.x]
            a3 = A[block_id.x, 3, thread_id.x]
            Out[block_id.x, 0, thread_id.x] = a0 + 10.0
            Out[block_id.x, 1, thread_id.x] = a1 + 10.0
            Out[block_id.x, 2, thread_id.x] = a2 + 10.0
            Out[block_id.x, 3, thread_id.x] = a3 + 10.0

        cases.append(dict(kernel=add_10_blocks_x4, expected=lambda ins: ins[0] + 10, label="blocks x4"))
    return cases


if __name__ == "__main__":
    bench_utils.main(globals())
