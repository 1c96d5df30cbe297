# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 16
# REQUIRES: gpu
"""Puzzle 14 (prefix sum): inclusive Hillis–Steele scan in shared memory — read, barrier, write, barrier per
level (an unrolled compile-time while)."""
import numpy as np
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


if __name__ == "__main__":
    bench_utils.main(globals())
