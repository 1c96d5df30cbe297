# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 1024
# REQUIRES: gpu
"""Puzzle 29 (pipeline): (1) three stages through two shared buffers — scale by 1.1 into sA, a 3-point blur of
sA (clamped to the tile) into sB, out = sA + sB; (2) a double-buffered stencil: three ping-pong 3-point
averages between two shared buffers (tile edges keep their value). Barriers separate the stages (no mbarrier
in the DSL yet: docs/gpu-dsl.md, "Not done")."""
import numpy as np
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [1024], bench_utils.T8
BLOCK = 256
STEPS = 3


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
            dict(kernel=stencil_double_buf, expected=stencil, label="double buffer", atol=1e-2, init_mod=10)]


if __name__ == "__main__":
    bench_utils.main(globals())
