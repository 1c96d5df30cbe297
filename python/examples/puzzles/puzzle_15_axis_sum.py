# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 4 256
# REQUIRES: gpu
"""Puzzle 15 (axis sum): the row sums of a BATCH×SIZE matrix, one block per row, a shared tree per block."""
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["batch", "size"], [4, 256], bench_utils.T8


def build(BATCH, SIZE):
    assert SIZE & (SIZE - 1) == 0, "SIZE must be power of 2"

    @gpu_kernel(grid=(BATCH,), block=(SIZE,))
    def axis_sum(A: Buffer[BATCH, SIZE], Out: Buffer[BATCH], s: Shared[SIZE]):
        tx = thread_id.x
        s[tx] = A[block_id.x, tx]
        barrier()
        stride = SIZE // 2
        while stride > 0:
            v = 0.0
            if tx < stride:
                v = s[tx + stride]
            barrier()
            if tx < stride:
                s[tx] = s[tx] + v
            barrier()
            stride = stride // 2
        if tx == 0:
            Out[block_id.x] = s[0]

    cases = [dict(kernel=axis_sum, label="axis_sum", atol=1e-4, init_mod=10,
                  expected=lambda ins: ins[0].reshape(BATCH, SIZE).sum(axis=1))]
    if SIZE % 32 == 0:
        # One warp per row, no barrier: lane l sums columns l, l + 32, … (each step one coalesced 128-byte
        # row segment per warp), then subgroup_reduce_add. The layout does the indexing: [row block, k, row,
        # lane]. Warp operations: cuda and rocm (the other targets refuse it, gpu_dsl.TARGET_FEATURES).
        RB = min(8, BATCH)
        A4 = OrderBy(Row(BATCH, SIZE)).TileBy([BATCH // RB, SIZE // 32], [RB, 32])
        O4 = OrderBy(Row(BATCH)).TileBy([BATCH // RB], [RB])
        STEPS = SIZE // 32

        @gpu_kernel(grid=(BATCH // RB,), block=(32, RB))
        def axis_sum_warp(A: Buffer(A4, BATCH, SIZE), Out: Buffer(O4, BATCH)):
            acc = 0.0
            k = 0
            while k < STEPS:
                acc = acc + A[block_id.x, k, thread_id.y, thread_id.x]
                k = k + 1
            total = subgroup_reduce_add(acc)
            if thread_id.x == 0:
                Out[block_id.x, thread_id.y] = total

        cases.append(dict(kernel=axis_sum_warp, label="axis_sum warp", atol=1e-4, init_mod=10,
                          expected=lambda ins: ins[0].reshape(BATCH, SIZE).sum(axis=1)))
    return cases


if __name__ == "__main__":
    bench_utils.main(globals())
