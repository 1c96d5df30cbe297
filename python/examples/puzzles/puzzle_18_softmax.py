# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 4 16
# REQUIRES: gpu
"""Puzzle 18 (softmax): per row, a max tree, exp(x − max), a sum tree, a division; one block per row."""
import numpy as np
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

    return [dict(kernel=softmax, label="softmax", atol=1e-4, init_mod=10,
                 expected=lambda ins: softmax_reference(ins[0].reshape(BATCH, SIZE).astype(np.float64)))]


if __name__ == "__main__":
    bench_utils.main(globals())
