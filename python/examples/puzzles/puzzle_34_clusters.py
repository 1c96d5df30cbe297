# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 1024
# REQUIRES: gpu
"""Puzzle 34 (clusters): out[b] = Σ a[block b]·(b + 1) — each block scales by its index (an f32 × index
promotion) and reduces through a shared tree; the blocks are independent (every target). ``cluster_dsmem_reduce``
(cuda, sm_90) computes the same sums with thread-block clusters: each tile b is reduced by a cluster of CL
blocks (``cluster=(CL,)``: ``.reqnctapercluster`` in the PTX), each block reducing its 1/CL of the tile in its
own shared memory; after a cluster barrier (``barrier.cluster.arrive/wait``) rank 0 adds the other blocks'
partial sums read from their shared memory (``cluster_load``: ``mapa`` + ``ld.shared::cluster``), and a second
cluster barrier keeps every block alive until those reads are done."""
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import numpy as np
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [1024], bench_utils.T8
CL = 2  # blocks per cluster in cluster_dsmem_reduce


def build(N):
    BLOCK = min(256, N)
    T = OrderBy(Row(N)).TileBy([N // BLOCK], [BLOCK])

    @gpu_kernel(grid=(N // BLOCK,), block=(BLOCK,))
    def cluster_scaled_reduce(A: Buffer(T, N), Out: Buffer[N // BLOCK], s: Shared[BLOCK]):
        tx = thread_id.x
        s[tx] = A[block_id.x, tx] * (block_id.x + 1)
        barrier()
        stride = BLOCK // 2
        while stride > 0:
            if tx < stride:
                s[tx] = s[tx] + s[tx + stride]
            barrier()
            stride = stride // 2
        if tx == 0:
            Out[block_id.x] = s[0]

    PART = BLOCK // CL

    @gpu_kernel(grid=((N // BLOCK) * CL,), block=(PART,), cluster=(CL,))
    def cluster_dsmem_reduce(A: Buffer[N], Out: Buffer[N // BLOCK], s: Shared[PART]):
        tx = thread_id.x
        tile = cluster_id.x
        rank = cluster_rank()
        s[tx] = A[tile * BLOCK + rank * PART + tx] * (tile + 1)
        barrier()
        stride = PART // 2
        while stride > 0:
            if tx < stride:
                s[tx] = s[tx] + s[tx + stride]
            barrier()
            stride = stride // 2
        cluster_barrier()
        if rank == 0:
            if tx == 0:
                total = s[0]
                r = 1
                while r < CL:
                    total = total + cluster_load(s[0], r)
                    r = r + 1
                Out[tile] = total
        cluster_barrier()

    def expected(ins):
        return ins[0].reshape(-1, BLOCK).sum(axis=1) * np.arange(1, N // BLOCK + 1)

    return [dict(kernel=cluster_scaled_reduce, label="clusters", atol=1e-2, init_mod=10, expected=expected),
            dict(kernel=cluster_dsmem_reduce, label="clusters dsmem", atol=1e-2, init_mod=10, expected=expected,
                 ptx_contains=[".reqnctapercluster 2, 1, 1", "barrier.cluster.arrive", "barrier.cluster.wait",
                               "mapa.shared::cluster", "ld.shared::cluster", "%cluster_ctarank", "%clusterid.x"])]


if __name__ == "__main__":
    bench_utils.main(globals())
