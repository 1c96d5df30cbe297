# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 1024
# REQUIRES: gpu
"""Puzzle 28 (async copy): a 5-tap convolution (weights 1..5) over 256-element tiles staged in shared memory
with a 2-element halo on each side (zero outside the array). ``conv1d_tiled`` stages the tile synchronously
(every target); ``conv1d_async`` (cuda only) stages it with ``async_copy`` (``cp.async``: global → shared without
going through registers), commits the group, and waits for it (``cp.async.wait_group 0``) before the barrier;
the halo zeros outside the array are ordinary shared stores. The halo guards subtract only after checking
(g ≥ 2), and compare signed either way."""
import numpy as np
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [1024], bench_utils.T8
W0, W1, W2, W3, W4 = 1.0, 2.0, 3.0, 4.0, 5.0
HALO = 2


def build(N):
    TPB = 256

    @gpu_kernel(grid=(N // TPB,), block=(TPB,))
    def conv1d_tiled(A: Buffer[N], Out: Buffer[N], s: Shared[TPB + 2 * HALO]):
        tx = thread_id.x
        g = block_id.x * TPB + tx
        s[tx + HALO] = A[g]
        if tx < HALO:
            left = 0.0
            if g >= HALO:
                left = A[g - HALO]
            s[tx] = left
        if tx >= TPB - HALO:
            right = 0.0
            if g + HALO < N:
                right = A[g + HALO]
            s[tx + 2 * HALO] = right
        barrier()
        Out[g] = W0 * s[tx] + W1 * s[tx + 1] + W2 * s[tx + 2] + W3 * s[tx + 3] + W4 * s[tx + 4]

    @gpu_kernel(grid=(N // TPB,), block=(TPB,))
    def conv1d_async(A: Buffer[N], Out: Buffer[N], s: Shared[TPB + 2 * HALO]):
        tx = thread_id.x
        g = block_id.x * TPB + tx
        async_copy(s[tx + HALO], A[g])
        if tx < HALO:
            if g >= HALO:
                async_copy(s[tx], A[g - HALO])
            else:
                s[tx] = 0.0
        if tx >= TPB - HALO:
            if g + HALO < N:
                async_copy(s[tx + 2 * HALO], A[g + HALO])
            else:
                s[tx + 2 * HALO] = 0.0
        async_copy_commit()
        async_copy_wait(0)
        barrier()
        Out[g] = W0 * s[tx] + W1 * s[tx + 1] + W2 * s[tx + 2] + W3 * s[tx + 3] + W4 * s[tx + 4]

    def expected(ins):
        a = np.pad(ins[0].astype(np.float64), HALO)
        w = [W0, W1, W2, W3, W4]
        return sum(w[k] * a[k:k + N] for k in range(5))

    return [dict(kernel=conv1d_tiled, expected=expected, label="conv1d_tiled", atol=1e-4, init_mod=10),
            dict(kernel=conv1d_async, expected=expected, label="conv1d_async", atol=1e-4, init_mod=10,
                 ptx_contains=["cp.async.ca.shared.global", "cp.async.commit_group", "cp.async.wait_group"])]


if __name__ == "__main__":
    bench_utils.main(globals())
