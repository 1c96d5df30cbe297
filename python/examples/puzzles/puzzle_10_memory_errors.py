# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 3
# REQUIRES: gpu
"""Puzzle 10 (memory errors): (1) a 2-D map with more threads than elements, guarded by nested ifs; (2) a
shared-memory race fixed: thread (0, 0) sums the SIZE×SIZE corner into shared memory, a barrier, then every
valid thread writes the sum.

The error the guards prevent is caught, not left to luck: ``unguarded(SIZE)`` is the same map without the ifs
(a (SIZE+1)² block reads and writes past the SIZE×SIZE buffers), and ``bounds_violations`` of
``lego.backend.gpu_dsl_analysis`` (``lego-generate-bounds-checks``, then ``lego-external-smt-verifier``: Z3 over
every thread id that reaches the access through its guards) reports its load and its store as
"Out-of-bounds access is possible (proven by Z3)", at compile time, before anything runs; the guarded kernels
are proved in bounds (python/tests/test_gpu_puzzle_analysis.py). ``unguarded`` is not in ``build``: it is
never run."""
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


def unguarded(SIZE):
    """The 2-D map without its guards: threads with ``thread_id.x`` or ``thread_id.y`` = SIZE index past the
    buffers (reported by the bounds checks; never run)."""
    TPB = SIZE + 1

    @gpu_kernel(grid=(1,), block=(TPB, TPB))
    def add_10_2d_unguarded(A: Buffer[SIZE, SIZE], Out: Buffer[SIZE, SIZE]):
        Out[thread_id.y, thread_id.x] = A[thread_id.y, thread_id.x] + 10.0

    return add_10_2d_unguarded


if __name__ == "__main__":
    bench_utils.main(globals())
