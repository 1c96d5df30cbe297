# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 256
# REQUIRES: gpu
"""Puzzle 08 (shared memory): global → shared → + 10 → global, with a barrier between."""
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [256], bench_utils.T8


def build(N):
    WG = min(256, N)
    T = OrderBy(Row(N)).TileBy([N // WG], [WG])

    @gpu_kernel(grid=(N // WG,), block=(WG,))
    def add_10_shared(A: Buffer(T, N), Out: Buffer(T, N), s: Shared[WG]):
        s[thread_id.x] = A[block_id.x, thread_id.x]
        barrier()
        Out[block_id.x, thread_id.x] = s[thread_id.x] + 10.0

    cases = [dict(kernel=add_10_shared, expected=lambda ins: ins[0] + 10, label="shared_mem")]
    if N % (4 * 32) == 0:
        # Four elements per thread through the layout ([block, k, thread], puzzle 01's "map x4"), staged in a
        # shared buffer of 4·WG.
        WG4 = min(256, N // 4)
        T4 = OrderBy(Row(N)).TileBy([N // (4 * WG4)], [4], [WG4])
        S4 = OrderBy(Row(4 * WG4)).TileBy([4], [WG4])

        @gpu_kernel(grid=(N // (4 * WG4),), block=(WG4,))
        def add_10_shared_x4(A: Buffer(T4, N), Out: Buffer(T4, N), s: Shared(S4, 4 * WG4)):
            a0 = A[block_id.x, 0, thread_id.x]
            a1 = A[block_id.x, 1, thread_id.x]
            a2 = A[block_id.x, 2, thread_id.x]
            a3 = A[block_id.x, 3, thread_id.x]
            s[0, thread_id.x] = a0
            s[1, thread_id.x] = a1
            s[2, thread_id.x] = a2
            s[3, thread_id.x] = a3
            barrier()
            Out[block_id.x, 0, thread_id.x] = s[0, thread_id.x] + 10.0
            Out[block_id.x, 1, thread_id.x] = s[1, thread_id.x] + 10.0
            Out[block_id.x, 2, thread_id.x] = s[2, thread_id.x] + 10.0
            Out[block_id.x, 3, thread_id.x] = s[3, thread_id.x] + 10.0

        cases.append(dict(kernel=add_10_shared_x4, expected=lambda ins: ins[0] + 10, label="shared_mem x4"))
    return cases


if __name__ == "__main__":
    bench_utils.main(globals())
