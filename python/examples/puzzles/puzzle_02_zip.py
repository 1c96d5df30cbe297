# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 256
# REQUIRES: gpu
"""Puzzle 02 (zip): out = a + b."""
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [256], bench_utils.T8


def build(N):
    WG = min(256, N)
    T = OrderBy(Row(N)).TileBy([N // WG], [WG])

    @gpu_kernel(grid=(N // WG,), block=(WG,))
    def zip_add(A: Buffer(T, N), B: Buffer(T, N), Out: Buffer(T, N)):
        Out[block_id.x, thread_id.x] = A[block_id.x, thread_id.x] + B[block_id.x, thread_id.x]

    cases = [dict(kernel=zip_add, expected=lambda ins: ins[0] + ins[1], label="zip")]
    if N % (4 * 32) == 0:
        # Four elements per thread through the layout alone (puzzle 01's "map x4"); loads before stores.
        WG4 = min(256, N // 4)
        T4 = OrderBy(Row(N)).TileBy([N // (4 * WG4)], [4], [WG4])

        @gpu_kernel(grid=(N // (4 * WG4),), block=(WG4,))
        def zip_add_x4(A: Buffer(T4, N), B: Buffer(T4, N), Out: Buffer(T4, N)):
            s0 = A[block_id.x, 0, thread_id.x] + B[block_id.x, 0, thread_id.x]
            s1 = A[block_id.x, 1, thread_id.x] + B[block_id.x, 1, thread_id.x]
            s2 = A[block_id.x, 2, thread_id.x] + B[block_id.x, 2, thread_id.x]
            s3 = A[block_id.x, 3, thread_id.x] + B[block_id.x, 3, thread_id.x]
            Out[block_id.x, 0, thread_id.x] = s0
            Out[block_id.x, 1, thread_id.x] = s1
            Out[block_id.x, 2, thread_id.x] = s2
            Out[block_id.x, 3, thread_id.x] = s3

        cases.append(dict(kernel=zip_add_x4, expected=lambda ins: ins[0] + ins[1], label="zip x4"))
    return cases


if __name__ == "__main__":
    bench_utils.main(globals())
