# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 8
# REQUIRES: gpu
"""Puzzle 11 (pooling): out[i] = a[i] + a[i-1] + a[i-2] (terms before 0 dropped), through shared memory; the
guards come before the subtraction is used as an index."""
import numpy as np
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["size"], [8], bench_utils.T8


def build(SIZE):
    TPB = SIZE

    @gpu_kernel(grid=(1,), block=(TPB,))
    def pooling(A: Buffer[SIZE], Out: Buffer[SIZE], s: Shared[TPB]):
        i = thread_id.x
        s[i] = A[i]
        barrier()
        acc = s[i]
        if i >= 1:
            acc = acc + s[i - 1]
        if i >= 2:
            acc = acc + s[i - 2]
        Out[i] = acc

    def expected(ins):
        a = ins[0]
        return a + np.concatenate([[0], a[:-1]]) + np.concatenate([[0, 0], a[:-2]])

    return [dict(kernel=pooling, expected=expected, label="pooling", init_mod=10)]


if __name__ == "__main__":
    bench_utils.main(globals())
