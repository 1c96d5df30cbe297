# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 256
# REQUIRES: gpu
"""Puzzle 25 (warp shuffles): (1) neighbour difference a[i+1] − a[i] by shuffle_down (the warp's last lane
writes 0); (2) a 3-point forward moving average (lanes 30 and 31 average what they have); (3) broadcast: lane 0
sums the warp's first 4 elements, every lane adds that to its own."""
import numpy as np
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [256], bench_utils.T8
WARP = 32


def build(N):
    T = OrderBy(Row(N)).TileBy([N // WARP], [WARP])

    @gpu_kernel(grid=(N // WARP,), block=(WARP,))
    def neighbor_difference(A: Buffer(T, N), Out: Buffer(T, N)):
        v = A[block_id.x, thread_id.x]
        nxt = shuffle_down(v, 1)
        d = 0.0
        if lane_id() < WARP - 1:
            d = nxt - v
        Out[block_id.x, thread_id.x] = d

    @gpu_kernel(grid=(N // WARP,), block=(WARP,))
    def moving_average_3(A: Buffer(T, N), Out: Buffer(T, N)):
        v = A[block_id.x, thread_id.x]
        n1 = shuffle_down(v, 1)
        n2 = shuffle_down(v, 2)
        avg = v
        if lane_id() == WARP - 2:
            avg = (v + n1) / 2.0
        if lane_id() < WARP - 2:
            avg = (v + n1 + n2) / 3.0
        Out[block_id.x, thread_id.x] = avg

    @gpu_kernel(grid=(N // WARP,), block=(WARP,))
    def basic_broadcast(A: Buffer(T, N), Out: Buffer(T, N)):
        v = A[block_id.x, thread_id.x]
        s = 0.0
        if lane_id() == 0:
            s = A[block_id.x, 0] + A[block_id.x, 1] + A[block_id.x, 2] + A[block_id.x, 3]
        Out[block_id.x, thread_id.x] = broadcast(s) + v

    def diff(ins):
        a = ins[0].reshape(-1, WARP)
        out = np.zeros_like(a)
        out[:, :-1] = a[:, 1:] - a[:, :-1]
        return out.ravel()

    def avg3(ins):
        a = ins[0].reshape(-1, WARP).astype(np.float64)
        out = a.copy()
        out[:, :-2] = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) / 3
        out[:, -2] = (a[:, -2] + a[:, -1]) / 2
        return out.ravel()

    def bcast(ins):
        a = ins[0].reshape(-1, WARP)
        return (a + a[:, :4].sum(axis=1, keepdims=True)).ravel()

    return [dict(kernel=neighbor_difference, expected=diff, label="neighbor_difference", atol=1e-4, init_mod=100),
            dict(kernel=moving_average_3, expected=avg3, label="moving_average_3", atol=1e-4, init_mod=100),
            dict(kernel=basic_broadcast, expected=bcast, label="basic_broadcast", atol=1e-4, init_mod=10)]


if __name__ == "__main__":
    bench_utils.main(globals())
