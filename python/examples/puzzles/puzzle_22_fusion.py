# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 256
# REQUIRES: gpu
"""Puzzle 22 (fusion): one kernel for a forward and backward elementwise product — y = x·w, dx = dy·w,
dw = dy·x — six buffers in one pass. The run helper checks the last buffer (dw); the suite also checks y and
dx (python/tests/test_gpu_puzzles.py reads ``extra_checks``)."""
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [256], bench_utils.T5


def build(N):
    WG = min(256, N)
    T = OrderBy(Row(N)).TileBy([N // WG], [WG])

    @gpu_kernel(grid=(N // WG,), block=(WG,))
    def fused_fwd_bwd(X: Buffer(T, N), W: Buffer(T, N), DY: Buffer(T, N), Y: Buffer(T, N), DX: Buffer(T, N),
                      DW: Buffer(T, N)):
        b = block_id.x
        t = thread_id.x
        x = X[b, t]
        w = W[b, t]
        dy = DY[b, t]
        Y[b, t] = x * w
        DX[b, t] = dy * w
        DW[b, t] = dy * x

    # ins are X, W, DY and the zero-filled Y, DX (every global buffer but the last)
    return [dict(kernel=fused_fwd_bwd, label="fusion", atol=1e-4, init_mod=10,
                 expected=lambda ins: ins[2] * ins[0],
                 extra_checks={3: lambda ins: ins[0] * ins[1], 4: lambda ins: ins[2] * ins[1]})]


if __name__ == "__main__":
    bench_utils.main(globals())
