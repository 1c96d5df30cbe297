# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 4 8
# REQUIRES: gpu
"""Puzzle 21 (embedding): (1) a coalesced flat copy of the BATCH×DIM rows, one thread per element; (2) one
block per row, one thread per column (the indices are the identity, as in the catalogue; the gather through
an i32 index buffer is tested in python/tests/test_gpu_dsl_defects.py)."""
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["batch", "dim"], [4, 8], bench_utils.T8


def build(BATCH, DIM):
    N = BATCH * DIM

    @gpu_kernel(grid=(1,), block=(N,))
    def embedding_coalesced(Table: Buffer[N], Out: Buffer[N]):
        Out[thread_id.x] = Table[thread_id.x]

    @gpu_kernel(grid=(BATCH,), block=(DIM,))
    def embedding_2d(Table: Buffer[BATCH, DIM], Out: Buffer[BATCH, DIM]):
        Out[block_id.x, thread_id.x] = Table[block_id.x, thread_id.x]

    cases = [dict(kernel=embedding_coalesced, expected=lambda ins: ins[0], label="coalesced"),
             dict(kernel=embedding_2d, expected=lambda ins: ins[0], label="2d")]
    if BATCH % 4 == 0:
        # Four rows per block, [block, 0, row, column]: four independent row copies per thread.
        R4 = OrderBy(Row(BATCH, DIM)).TileBy([BATCH // 4, 1], [4, DIM])

        @gpu_kernel(grid=(BATCH // 4,), block=(DIM,))
        def embedding_2d_x4(Table: Buffer(R4, BATCH, DIM), Out: Buffer(R4, BATCH, DIM)):
            r0 = Table[block_id.x, 0, 0, thread_id.x]
            r1 = Table[block_id.x, 0, 1, thread_id.x]
            r2 = Table[block_id.x, 0, 2, thread_id.x]
            r3 = Table[block_id.x, 0, 3, thread_id.x]
            Out[block_id.x, 0, 0, thread_id.x] = r0
            Out[block_id.x, 0, 1, thread_id.x] = r1
            Out[block_id.x, 0, 2, thread_id.x] = r2
            Out[block_id.x, 0, 3, thread_id.x] = r3

        cases.append(dict(kernel=embedding_2d_x4, expected=lambda ins: ins[0], label="2d x4"))
    return cases


if __name__ == "__main__":
    bench_utils.main(globals())
