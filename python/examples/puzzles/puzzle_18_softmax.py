# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 4 16
# REQUIRES: gpu
"""Puzzle 18 (softmax): per row, a max tree, exp(x − max), a sum tree, a division; one block per row."""
import numpy as np
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["batch", "size"], [4, 16], bench_utils.T8


def softmax_reference(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def build(BATCH, SIZE):
    assert SIZE & (SIZE - 1) == 0, "SIZE must be power of 2"

    @gpu_kernel(grid=(BATCH,), block=(SIZE,))
    def softmax(A: Buffer[BATCH, SIZE], Out: Buffer[BATCH, SIZE], s: Shared[SIZE]):
        tx = thread_id.x
        x = A[block_id.x, tx]
        s[tx] = x
        barrier()
        stride = SIZE // 2
        while stride > 0:
            if tx < stride:
                other = s[tx + stride]
                if other > s[tx]:
                    s[tx] = other
            barrier()
            stride = stride // 2
        m = s[0]
        barrier()
        e = exp(x - m)
        s[tx] = e
        barrier()
        stride = SIZE // 2
        while stride > 0:
            if tx < stride:
                s[tx] = s[tx] + s[tx + stride]
            barrier()
            stride = stride // 2
        Out[block_id.x, tx] = e / s[0]

    cases = [dict(kernel=softmax, label="softmax", atol=1e-4, init_mod=10,
                  expected=lambda ins: softmax_reference(ins[0].reshape(BATCH, SIZE).astype(np.float64)))]
    if SIZE % 32 == 0:
        # One warp per row, no shared memory or barrier: the row max and the sum of exponentials by
        # subgroup_reduce_max / _add over lanes that each read columns l, l + 32, … ([row block, k, row, lane]).
        # The row is read three times; the second and third reads hit the cache the first filled (a row is
        # SIZE·4 bytes). Warp operations: cuda and rocm.
        RB = min(8, BATCH)
        A4 = OrderBy(Row(BATCH, SIZE)).TileBy([BATCH // RB, SIZE // 32], [RB, 32])
        STEPS = SIZE // 32

        @gpu_kernel(grid=(BATCH // RB,), block=(32, RB))
        def softmax_warp(A: Buffer(A4, BATCH, SIZE), Out: Buffer(A4, BATCH, SIZE)):
            m = A[block_id.x, 0, thread_id.y, thread_id.x]
            k = 1
            while k < STEPS:
                x = A[block_id.x, k, thread_id.y, thread_id.x]
                if x > m:
                    m = x
                k = k + 1
            row_max = subgroup_reduce_max(m)
            s = 0.0
            k = 0
            while k < STEPS:
                s = s + exp(A[block_id.x, k, thread_id.y, thread_id.x] - row_max)
                k = k + 1
            scale = 1.0 / subgroup_reduce_add(s)
            k = 0
            while k < STEPS:
                Out[block_id.x, k, thread_id.y, thread_id.x] = exp(A[block_id.x, k, thread_id.y, thread_id.x] - row_max) * scale
                k = k + 1

        cases.append(dict(kernel=softmax_warp, label="softmax warp", atol=1e-4, init_mod=10,
                          expected=lambda ins: softmax_reference(ins[0].reshape(BATCH, SIZE).astype(np.float64))))
    return cases


if __name__ == "__main__":
    bench_utils.main(globals())
