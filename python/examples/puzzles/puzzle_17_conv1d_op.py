# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 15 4
# REQUIRES: gpu
"""Puzzle 17 (conv1d as a reusable op): puzzle 13's kernel built by a function of the sizes, the way an
operator library would instantiate it."""
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import bench_utils
from puzzle_13_conv1d import conv1d_reference

ARG_NAMES, ARGS, TARGETS = ["size", "conv"], [15, 4], bench_utils.T8


def conv1d_op(SIZE, CONV):
    @gpu_kernel(grid=(1,), block=(SIZE,))
    def conv1d_op(A: Buffer[SIZE], B: Buffer[CONV], Out: Buffer[SIZE], sa: Shared[SIZE], sb: Shared[CONV]):
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

    return conv1d_op


def build(SIZE, CONV):
    return [dict(kernel=conv1d_op(SIZE, CONV), label="conv1d_op", atol=1e-4, init_mod=10,
                 expected=lambda ins: conv1d_reference(ins[0], ins[1]))]


if __name__ == "__main__":
    bench_utils.main(globals())
