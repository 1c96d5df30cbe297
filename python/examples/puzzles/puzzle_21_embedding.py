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

    return [dict(kernel=embedding_coalesced, expected=lambda ins: ins[0], label="coalesced"),
            dict(kernel=embedding_2d, expected=lambda ins: ins[0], label="2d")]


if __name__ == "__main__":
    bench_utils.main(globals())
