# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 1024
# REQUIRES: gpu
"""Puzzle 29 (pipeline): (1) three stages through two shared buffers — scale by 1.1 into sA, a 3-point blur of
sA (clamped to the tile) into sB, out = sA + sB; (2) a double-buffered stencil: three ping-pong 3-point
averages between two shared buffers (tile edges keep their value). Barriers separate the stages (every
target). (3) ``pipeline_async`` (cuda only): the 3-stage computation as a software pipeline — each block runs
over TILES consecutive tiles through a double buffer in shared memory; tile t + 1 is fetched with
``async_copy`` (``cp.async``) into the other stage while tile t is computed, and each stage has an mbarrier
whose phase completes when every thread's copies into it have landed (``async_copy_arrive``:
``cp.async.mbarrier.arrive.noinc``; ``mbarrier_wait``: ``mbarrier.try_wait.parity`` on phase (t // 2) mod 2).
A block barrier at the end of each tile keeps the next copy from overwriting a stage still being read."""
import numpy as np
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared, DType
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [1024], bench_utils.T8
BLOCK = 256
STEPS = 3
TILES = 4  # tiles per block in pipeline_async


def build(N):
    T = OrderBy(Row(N)).TileBy([N // BLOCK], [BLOCK])

    @gpu_kernel(grid=(N // BLOCK,), block=(BLOCK,))
    def pipeline_3stage(A: Buffer(T, N), Out: Buffer(T, N), sa: Shared[BLOCK], sb: Shared[BLOCK]):
        tx = thread_id.x
        sa[tx] = A[block_id.x, tx] * 1.1
        barrier()
        acc = sa[tx]
        count = 1.0
        if tx >= 1:
            acc = acc + sa[tx - 1]
            count = count + 1.0
        if tx < BLOCK - 1:
            acc = acc + sa[tx + 1]
            count = count + 1.0
        sb[tx] = acc / count
        barrier()
        Out[block_id.x, tx] = sa[tx] + sb[tx]

    @gpu_kernel(grid=(N // BLOCK,), block=(BLOCK,))
    def stencil_double_buf(A: Buffer(T, N), Out: Buffer(T, N), s0: Shared[BLOCK], s1: Shared[BLOCK]):
        tx = thread_id.x
        s0[tx] = A[block_id.x, tx]
        barrier()
        step = 0
        while step < STEPS:
            if step % 2 == 0:
                v = s0[tx]
                if tx >= 1:
                    if tx < BLOCK - 1:
                        v = (s0[tx - 1] + s0[tx] + s0[tx + 1]) * (1.0 / 3.0)
                s1[tx] = v
            else:
                v = s1[tx]
                if tx >= 1:
                    if tx < BLOCK - 1:
                        v = (s1[tx - 1] + s1[tx] + s1[tx + 1]) * (1.0 / 3.0)
                s0[tx] = v
            barrier()
            step = step + 1
        Out[block_id.x, tx] = s1[tx]

    @gpu_kernel(grid=(max(1, N // (BLOCK * TILES)),), block=(BLOCK,))
    def pipeline_async(A: Buffer[N], Out: Buffer[N], st: Shared[2 * BLOCK], bars: Shared(2, dtype=DType.i64)):
        tx = thread_id.x
        first = block_id.x * TILES
        if tx == 0:
            mbarrier_init(bars[0], BLOCK)
            mbarrier_init(bars[1], BLOCK)
        barrier()
        async_copy(st[tx], A[first * BLOCK + tx])
        async_copy_arrive(bars[0])
        for t in range(TILES):
            stage = t % 2
            if t + 1 < TILES:
                async_copy(st[(1 - stage) * BLOCK + tx], A[(first + t + 1) * BLOCK + tx])
                async_copy_arrive(bars[1 - stage])
            mbarrier_wait(bars[stage], (t // 2) % 2)
            base = stage * BLOCK
            a = st[base + tx] * 1.1
            acc = a
            count = 1.0
            if tx >= 1:
                acc = acc + st[base + tx - 1] * 1.1
                count = count + 1.0
            if tx < BLOCK - 1:
                acc = acc + st[base + tx + 1] * 1.1
                count = count + 1.0
            Out[(first + t) * BLOCK + tx] = a + acc / count
            barrier()

    def three_stage(ins):
        a = ins[0].reshape(-1, BLOCK).astype(np.float32) * np.float32(1.1)
        a = a.astype(np.float64)
        total = a.copy()
        count = np.ones_like(a)
        total[:, 1:] += a[:, :-1]
        count[:, 1:] += 1
        total[:, :-1] += a[:, 1:]
        count[:, :-1] += 1
        return (a + total / count).ravel()

    def stencil(ins):
        a = ins[0].reshape(-1, BLOCK).astype(np.float64)
        for _ in range(STEPS):
            b = a.copy()
            b[:, 1:-1] = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) / 3
            a = b
        return a.ravel()

    return [dict(kernel=pipeline_3stage, expected=three_stage, label="3-stage", atol=1e-2, init_mod=10),
            dict(kernel=stencil_double_buf, expected=stencil, label="double buffer", atol=1e-2, init_mod=10),
            dict(kernel=pipeline_async, expected=three_stage, label="3-stage async", atol=1e-2, init_mod=10,
                 ptx_contains=["mbarrier.init.shared", "cp.async.mbarrier.arrive.noinc.shared",
                               "mbarrier.try_wait.parity.shared", "cp.async.ca.shared.global"])]


if __name__ == "__main__":
    bench_utils.main(globals())
