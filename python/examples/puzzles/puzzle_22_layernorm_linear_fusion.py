# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 256
# REQUIRES: gpu
"""Puzzle 22 (layernorm + linear fusion): (1) layernorm of each WG-element row (each thread scans shared
memory for the mean and the variance, then (x − mean)/sqrt(var + eps)·γ + β); (2) the elementwise linear
x·w + b; (3) both fused in one kernel. Tolerances are tight (1e-3): the division by sqrt is exact IEEE here,
not the published rsqrt.approx that needed atol 3 / 15."""
import numpy as np
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [256], bench_utils.T8
EPS = 1e-5


def layernorm_reference(x, g, b, wg):
    x = x.reshape(-1, wg).astype(np.float64)
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return ((x - mean) / np.sqrt(var + EPS) * g + b).ravel()


def build(N):
    WG = min(64, N)
    T = OrderBy(Row(N)).TileBy([N // WG], [WG])
    INV = 1.0 / WG

    @gpu_kernel(grid=(N // WG,), block=(WG,))
    def layernorm(X: Buffer(T, N), G: Buffer[WG], Bt: Buffer[WG], Out: Buffer(T, N), s: Shared[WG]):
        tx = thread_id.x
        x = X[block_id.x, tx]
        s[tx] = x
        barrier()
        total = 0.0
        for k in range(WG):
            total += s[k]
        mean = total * INV
        sq = 0.0
        for k in range(WG):
            d = s[k] - mean
            sq += d * d
        Out[block_id.x, tx] = (x - mean) / sqrt(sq * INV + EPS) * G[tx] + Bt[tx]

    @gpu_kernel(grid=(N // WG,), block=(WG,))
    def linear(X: Buffer(T, N), W: Buffer(T, N), Bv: Buffer(T, N), Out: Buffer(T, N)):
        Out[block_id.x, thread_id.x] = X[block_id.x, thread_id.x] * W[block_id.x, thread_id.x] + Bv[block_id.x, thread_id.x]

    @gpu_kernel(grid=(N // WG,), block=(WG,))
    def fused_layernorm_linear(X: Buffer(T, N), G: Buffer[WG], Bt: Buffer[WG], W: Buffer(T, N), Bv: Buffer(T, N),
                               Out: Buffer(T, N), s: Shared[WG]):
        tx = thread_id.x
        x = X[block_id.x, tx]
        s[tx] = x
        barrier()
        total = 0.0
        for k in range(WG):
            total += s[k]
        mean = total * INV
        sq = 0.0
        for k in range(WG):
            d = s[k] - mean
            sq += d * d
        y = (x - mean) / sqrt(sq * INV + EPS) * G[tx] + Bt[tx]
        Out[block_id.x, tx] = y * W[block_id.x, tx] + Bv[block_id.x, tx]

    return [dict(kernel=layernorm, label="layernorm", atol=1e-3, init_mod=10,
                 expected=lambda ins: layernorm_reference(ins[0], ins[1], ins[2], WG)),
            dict(kernel=linear, label="linear", atol=1e-4, init_mod=10,
                 expected=lambda ins: ins[0] * ins[1] + ins[2]),
            dict(kernel=fused_layernorm_linear, label="fused", atol=1e-2, init_mod=10,
                 expected=lambda ins: layernorm_reference(ins[0], ins[1], ins[2], WG) * ins[3] + ins[4])]


if __name__ == "__main__":
    bench_utils.main(globals())
