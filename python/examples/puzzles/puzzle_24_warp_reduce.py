# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 256
# REQUIRES: gpu
"""Puzzle 24 (warp reduce): each 32-lane warp's Σ a·b with subgroup_reduce_add; lane 0 writes it."""
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [256], bench_utils.T8
WARP = 32


def build(N):
    T = OrderBy(Row(N)).TileBy([N // WARP], [WARP])

    @gpu_kernel(grid=(N // WARP,), block=(WARP,))
    def warp_dot_product(A: Buffer(T, N), B: Buffer(T, N), Out: Buffer[N // WARP]):
        total = subgroup_reduce_add(A[block_id.x, thread_id.x] * B[block_id.x, thread_id.x])
        if lane_id() == 0:
            Out[block_id.x] = total

    return [dict(kernel=warp_dot_product, label="warp_reduce", atol=1e-4, init_mod=10,
                 expected=lambda ins: (ins[0] * ins[1]).reshape(-1, WARP).sum(axis=1))]


if __name__ == "__main__":
    bench_utils.main(globals())
