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

    cases = [dict(kernel=add_10_guard, expected=expected, label="guards")]
    # The guard at scale: 256-thread blocks, four elements per thread (k-th at block·1024 + k·256 + thread,
    # coalesced), the last block partly past SIZE. Loads first (the buffers may alias), then guarded stores.
    N = -(-SIZE // 1024) * 1024

    @gpu_kernel(grid=(N // 1024,), block=(256,))
    def add_10_guard_x4(A: Buffer[N], Out: Buffer[N]):
        i0 = block_id.x * 1024 + thread_id.x
        a0 = 0.0
        a1 = 0.0
        a2 = 0.0
        a3 = 0.0
        if i0 < SIZE:
            a0 = A[i0]
        if i0 + 256 < SIZE:
            a1 = A[i0 + 256]
        if i0 + 512 < SIZE:
            a2 = A[i0 + 512]
        if i0 + 768 < SIZE:
            a3 = A[i0 + 768]
        if i0 < SIZE:
            Out[i0] = a0 + 10.0
        if i0 + 256 < SIZE:
            Out[i0 + 256] = a1 + 10.0
        if i0 + 512 < SIZE:
            Out[i0 + 512] = a2 + 10.0
        if i0 + 768 < SIZE:
            Out[i0 + 768] = a3 + 10.0

    def expected_x4(ins):
        out = np.zeros(N, np.float32)
        out[:SIZE] = ins[0][:SIZE] + 10
        return out

    cases.append(dict(kernel=add_10_guard_x4, expected=expected_x4, label="guards x4"))
    return cases


if __name__ == "__main__":
    bench_utils.main(globals())
