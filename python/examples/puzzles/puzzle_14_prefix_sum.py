# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 16
# REQUIRES: gpu
"""Puzzle 14 (prefix sum): inclusive Hillis–Steele scan in shared memory — read, barrier, write, barrier per
level (an unrolled compile-time while)."""
import numpy as np
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["size"], [16], bench_utils.T8


def build(TPB):
    @gpu_kernel(grid=(1,), block=(TPB,))
    def prefix_sum(A: Buffer[TPB], Out: Buffer[TPB], s: Shared[TPB]):
        tx = thread_id.x
        s[tx] = A[tx]
        barrier()
        offset = 1
        while offset < TPB:
            v = 0.0
            if tx >= offset:
                v = s[tx - offset]
            barrier()
            if tx >= offset:
                s[tx] = s[tx] + v
            barrier()
            offset = offset * 2
        Out[tx] = s[tx]

    return [dict(kernel=prefix_sum, label="prefix_sum", atol=1e-4, init_mod=10,
                 expected=lambda ins: np.cumsum(ins[0]))]


def build_rows(ROWS, SIZE):
    """The scan at scale: the inclusive prefix sum of each of ROWS rows of SIZE (a multiple of 32), one warp per
    row, no barrier — lanes read columns l, l + 32, … (coalesced), scan each step with warp_prefix_sum and carry
    the step's total (lane 31's) into the next. Warp operations: cuda and rocm."""
    assert SIZE % 32 == 0
    RB = min(8, ROWS)
    A4 = OrderBy(Row(ROWS, SIZE)).TileBy([ROWS // RB, SIZE // 32], [RB, 32])
    STEPS = SIZE // 32

    @gpu_kernel(grid=(ROWS // RB,), block=(32, RB))
    def prefix_sum_rows(A: Buffer(A4, ROWS, SIZE), Out: Buffer(A4, ROWS, SIZE)):
        carry = 0.0
        k = 0
        while k < STEPS:
            p = warp_prefix_sum(A[block_id.x, k, thread_id.y, thread_id.x]) + carry
            Out[block_id.x, k, thread_id.y, thread_id.x] = p
            carry = shuffle_idx(p, 31)
            k = k + 1

    return [dict(kernel=prefix_sum_rows, label="prefix_sum rows", atol=1e-3, init_mod=10,
                 expected=lambda ins: np.cumsum(ins[0].reshape(ROWS, SIZE), axis=1))]


if __name__ == "__main__":
    bench_utils.main(globals())
