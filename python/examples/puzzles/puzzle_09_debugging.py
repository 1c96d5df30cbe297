"""Puzzle 09 (debugging): out[i] = a[(i + 1) mod WG] within each block — every thread reads a neighbour's
shared element, so the barrier between the write and the read is what makes it correct (no RUN line: a
demonstration, as in the catalogue; the compile-only suite still compiles and checks it)."""
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import numpy as np
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [256], bench_utils.T7


def build(N):
    WG = min(64, N)
    T = OrderBy(Row(N)).TileBy([N // WG], [WG])

    @gpu_kernel(grid=(N // WG,), block=(WG,))
    def correct_barrier(A: Buffer(T, N), Out: Buffer(T, N), s: Shared[WG]):
        tx = thread_id.x
        s[tx] = A[block_id.x, tx]
        barrier()
        if tx < WG - 1:
            Out[block_id.x, tx] = s[tx + 1]
        if tx == WG - 1:
            Out[block_id.x, tx] = s[0]

    return [dict(kernel=correct_barrier, label="debugging",
                 expected=lambda ins: np.roll(ins[0].reshape(-1, WG), -1, axis=1).ravel())]


if __name__ == "__main__":
    bench_utils.main(globals())
