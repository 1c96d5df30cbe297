# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 256
# REQUIRES: gpu
"""Puzzle 23 (functional patterns): (1) elementwise add; (2) the same staged through two shared buffers; (3)
vectorised: each thread adds VEC = 4 consecutive elements, addressed through a 3-level tiling
[block, thread, lane]."""
import sys
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [256], bench_utils.T8
VEC = 4


def build(N):
    WG = min(256, N)
    NB = N // WG
    T = OrderBy(Row(N)).TileBy([NB], [WG])
    V = OrderBy(Row(N)).TileBy([NB], [WG // VEC], [VEC])

    @gpu_kernel(grid=(NB,), block=(WG,))
    def elementwise_add(A: Buffer(T, N), B: Buffer(T, N), Out: Buffer(T, N)):
        Out[block_id.x, thread_id.x] = A[block_id.x, thread_id.x] + B[block_id.x, thread_id.x]

    @gpu_kernel(grid=(NB,), block=(WG,))
    def tiled_add(A: Buffer(T, N), B: Buffer(T, N), Out: Buffer(T, N), sa: Shared[WG], sb: Shared[WG]):
        sa[thread_id.x] = A[block_id.x, thread_id.x]
        sb[thread_id.x] = B[block_id.x, thread_id.x]
        barrier()
        Out[block_id.x, thread_id.x] = sa[thread_id.x] + sb[thread_id.x]

    @gpu_kernel(grid=(NB,), block=(WG // VEC,))
    def vectorized_add(A: Buffer(V, N), B: Buffer(V, N), Out: Buffer(V, N)):
        for v in range(VEC):
            Out[block_id.x, thread_id.x, v] = A[block_id.x, thread_id.x, v] + B[block_id.x, thread_id.x, v]

    add = lambda ins: ins[0] + ins[1]  # noqa: E731
    return [dict(kernel=k, expected=add, label=k._name) for k in (elementwise_add, tiled_add, vectorized_add)]


if __name__ == "__main__":
    print("Pattern: elementwise / tiled / vectorized", file=sys.stderr)
    bench_utils.main(globals())
