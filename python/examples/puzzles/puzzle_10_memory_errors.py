# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 3
# REQUIRES: gpu
"""Puzzle 10 (memory errors): (1) a 2-D map with more threads than elements, guarded by nested ifs; (2) a
shared-memory race fixed: thread (0, 0) sums the SIZE×SIZE corner into shared memory, a barrier, then every
valid thread writes the sum."""
import numpy as np
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["size"], [3], bench_utils.T8


def build(SIZE):
    TPB = SIZE + 1

    @gpu_kernel(grid=(1,), block=(TPB, TPB))
    def add_10_2d(A: Buffer[SIZE, SIZE], Out: Buffer[SIZE, SIZE]):
        if thread_id.y < SIZE:
            if thread_id.x < SIZE:
                Out[thread_id.y, thread_id.x] = A[thread_id.y, thread_id.x] + 10.0

    @gpu_kernel(grid=(1,), block=(TPB, TPB))
    def shared_memory_race_fix(A: Buffer[SIZE, SIZE], Out: Buffer[SIZE, SIZE], total: Shared[1]):
        if thread_id.x == 0:
            if thread_id.y == 0:
                acc = 0.0
                for r in range(SIZE):
                    for c in range(SIZE):
                        acc += A[r, c]
                total[0] = acc
        barrier()
        if thread_id.y < SIZE:
            if thread_id.x < SIZE:
                Out[thread_id.y, thread_id.x] = total[0]

    return [dict(kernel=add_10_2d, expected=lambda ins: ins[0] + 10, label="guarded 2-D map"),
            dict(kernel=shared_memory_race_fix, expected=lambda ins: np.full(SIZE * SIZE, ins[0].sum()),
                 label="race fix", atol=1e-4)]


if __name__ == "__main__":
    bench_utils.main(globals())
