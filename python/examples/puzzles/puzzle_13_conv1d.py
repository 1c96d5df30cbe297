# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 15 4
# REQUIRES: gpu
"""Puzzle 13 (1-D convolution): out[i] = Σ_k a[i+k]·b[k] over i+k < SIZE; both operands staged in shared
memory; the loop's body is an if updating the loop-carried sum (SIZE = 15 threads: not a power of two)."""
import numpy as np
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["size", "conv"], [15, 4], bench_utils.T8


def conv1d_reference(a, b):
    size, conv = len(a), len(b)
    return np.array([sum(a[i + k] * b[k] for k in range(conv) if i + k < size) for i in range(size)])


def build(SIZE, CONV):
    TPB = SIZE

    @gpu_kernel(grid=(1,), block=(TPB,))
    def conv_1d(A: Buffer[SIZE], B: Buffer[CONV], Out: Buffer[SIZE], sa: Shared[SIZE], sb: Shared[CONV]):
        i = thread_id.x
        sa[i] = A[i]
        if i < CONV:
            sb[i] = B[i]
        barrier()
        acc = 0.0
        for k in range(CONV):
            if i + k < SIZE:
                acc = acc + sa[i + k] * sb[k]
        Out[i] = acc

    return [dict(kernel=conv_1d, label="conv1d", atol=1e-4, init_mod=10,
                 expected=lambda ins: conv1d_reference(ins[0], ins[1]))]


if __name__ == "__main__":
    bench_utils.main(globals())
