# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 4 256
# REQUIRES: gpu
"""Puzzle 15 (axis sum): the row sums of a BATCH×SIZE matrix, one block per row, a shared tree per block."""
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

    return [dict(kernel=axis_sum, label="axis_sum", atol=1e-4, init_mod=10,
                 expected=lambda ins: ins[0].reshape(BATCH, SIZE).sum(axis=1))]


if __name__ == "__main__":
    bench_utils.main(globals())
