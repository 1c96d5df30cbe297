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

    return [dict(kernel=zip_add, expected=lambda ins: ins[0] + ins[1], label="zip")]


if __name__ == "__main__":
    bench_utils.main(globals())
