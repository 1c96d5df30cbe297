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

    return [dict(kernel=add_10_blocks, expected=lambda ins: ins[0] + 10, label="blocks")]


if __name__ == "__main__":
    bench_utils.main(globals())
