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

    cases = [dict(kernel=map_add10, expected=lambda ins: ins[0] + 10, label="map")]
    if N % (4 * 32) == 0:
        # The same map with four elements per thread: only the layout changes ([block, k, thread], k-th
        # element at block·4·WG + k·WG + thread, so each of the four accesses stays coalesced). The four loads
        # come first: the buffers may alias, so a store between them would keep the next load waiting.
        WG4 = min(256, N // 4)
        T4 = OrderBy(Row(N)).TileBy([N // (4 * WG4)], [4], [WG4])

        @gpu_kernel(grid=(N // (4 * WG4),), block=(WG4,))
        def map_add10_x4(A: Buffer(T4, N), Out: Buffer(T4, N)):
            a0 = A[block_id.x, 0, thread_id.x]
            a1 = A[block_id.x, 1, thread_id.x]
            a2 = A[block_id.x, 2, thread_id.x]
            a3 = A[block_id.x, 3, thread_id.x]
            Out[block_id.x, 0, thread_id.x] = a0 + 10.0
            Out[block_id.x, 1, thread_id.x] = a1 + 10.0
            Out[block_id.x, 2, thread_id.x] = a2 + 10.0
            Out[block_id.x, 3, thread_id.x] = a3 + 10.0

        cases.append(dict(kernel=map_add10_x4, expected=lambda ins: ins[0] + 10, label="map x4"))
    return cases


if __name__ == "__main__":
    bench_utils.main(globals())
