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

    cases = [dict(kernel=add_10_2d, expected=lambda ins: ins[0] + 10, label="2dmap")]
    if S % 64 == 0:
        # The 2-D map at scale: blocks of 64 columns × 4 rows, each thread four rows 4 apart (row-major
        # buffers, the indices written out), loads before stores.
        @gpu_kernel(grid=(S // 64, S // 16), block=(64, 4))
        def add_10_2d_x4(A: Buffer[S, S], Out: Buffer[S, S]):
            c = block_id.x * 64 + thread_id.x
            r = block_id.y * 16 + thread_id.y
            a0 = A[r, c]
            a1 = A[r + 4, c]
            a2 = A[r + 8, c]
            a3 = A[r + 12, c]
            Out[r, c] = a0 + 10.0
            Out[r + 4, c] = a1 + 10.0
            Out[r + 8, c] = a2 + 10.0
            Out[r + 12, c] = a3 + 10.0

        cases.append(dict(kernel=add_10_2d_x4, expected=lambda ins: ins[0] + 10, label="2dmap x4"))
    return cases


if __name__ == "__main__":
    bench_utils.main(globals())
