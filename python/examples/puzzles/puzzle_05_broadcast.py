# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 4
# REQUIRES: gpu
"""Puzzle 05 (broadcast): out[r, c] = a[c] + b[r] (1-D and 2-D buffers mixed)."""
from lego.backend.gpu_dsl import gpu_kernel, Buffer
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["size"], [4], bench_utils.T8


def build(S):
    @gpu_kernel(grid=(1,), block=(S, S))
    def broadcast_add(A: Buffer[S], B: Buffer[S], Out: Buffer[S, S]):
        Out[thread_id.y, thread_id.x] = A[thread_id.x] + B[thread_id.y]

    return [dict(kernel=broadcast_add, expected=lambda ins: (ins[0][None, :] + ins[1][:, None]).ravel(),
                 label="broadcast")]


if __name__ == "__main__":
    bench_utils.main(globals())
