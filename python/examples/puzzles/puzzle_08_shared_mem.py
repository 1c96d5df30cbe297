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

    return [dict(kernel=add_10_shared, expected=lambda ins: ins[0] + 10, label="shared_mem")]


if __name__ == "__main__":
    bench_utils.main(globals())
