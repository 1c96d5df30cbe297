# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 256
# REQUIRES: gpu
"""Puzzle 01 (map): out = a + 10, one element per thread; the buffers' layout tiles N into blocks of WG
threads, so the body indexes [block, thread]."""
import sys
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [256], bench_utils.T8


def build(N):
    WG = min(256, N)
    assert N % WG == 0
    T = OrderBy(Row(N)).TileBy([N // WG], [WG])

    @gpu_kernel(grid=(N // WG,), block=(WG,))
    def map_add10(A: Buffer(T, N), Out: Buffer(T, N)):
        Out[block_id.x, thread_id.x] = A[block_id.x, thread_id.x] + 10.0

    return [dict(kernel=map_add10, expected=lambda ins: ins[0] + 10, label="map")]


if __name__ == "__main__":
    bench_utils.main(globals())
