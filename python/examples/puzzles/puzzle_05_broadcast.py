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

    cases = [dict(kernel=broadcast_add, expected=lambda ins: (ins[0][None, :] + ins[1][:, None]).ravel(),
                  label="broadcast")]
    if S % 64 == 0:
        # At scale: blocks of 64 columns × 4 rows, four rows per thread; a[c] is loaded once per thread.
        @gpu_kernel(grid=(S // 64, S // 16), block=(64, 4))
        def broadcast_add_x4(A: Buffer[S], B: Buffer[S], Out: Buffer[S, S]):
            c = block_id.x * 64 + thread_id.x
            r = block_id.y * 16 + thread_id.y
            a = A[c]
            b0 = B[r]
            b1 = B[r + 4]
            b2 = B[r + 8]
            b3 = B[r + 12]
            Out[r, c] = a + b0
            Out[r + 4, c] = a + b1
            Out[r + 8, c] = a + b2
            Out[r + 12, c] = a + b3

        cases.append(dict(kernel=broadcast_add_x4, label="broadcast x4",
                          expected=lambda ins: (ins[0][None, :] + ins[1][:, None]).ravel()))
    return cases


if __name__ == "__main__":
    bench_utils.main(globals())
