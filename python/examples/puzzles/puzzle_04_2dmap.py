# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 4
# REQUIRES: gpu
"""Puzzle 04 (2-D map): out[r, c] = a[r, c] + 10 on an S×S matrix, thread (x = column, y = row)."""
from lego.backend.gpu_dsl import gpu_kernel, Buffer
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["size"], [4], bench_utils.T8


def build(S):
    @gpu_kernel(grid=(1,), block=(S, S))
    def add_10_2d(A: Buffer[S, S], Out: Buffer[S, S]):
        Out[thread_id.y, thread_id.x] = A[thread_id.y, thread_id.x] + 10.0

    return [dict(kernel=add_10_2d, expected=lambda ins: ins[0] + 10, label="2dmap")]


if __name__ == "__main__":
    bench_utils.main(globals())
