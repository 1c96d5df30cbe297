# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 20
# REQUIRES: gpu
"""Puzzle 03 (guards): more threads than elements; threads past SIZE must not write."""
import numpy as np
from lego.backend.gpu_dsl import gpu_kernel, Buffer
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["size"], [20], bench_utils.T8


def build(SIZE):
    TPB = 1 << (SIZE - 1).bit_length()

    @gpu_kernel(grid=(1,), block=(TPB,))
    def add_10_guard(A: Buffer[TPB], Out: Buffer[TPB]):
        i = thread_id.x
        if i < SIZE:
            Out[i] = A[i] + 10.0

    def expected(ins):
        out = np.zeros(TPB, np.float32)
        out[:SIZE] = ins[0][:SIZE] + 10
        return out

    return [dict(kernel=add_10_guard, expected=expected, label="guards")]


if __name__ == "__main__":
    bench_utils.main(globals())
