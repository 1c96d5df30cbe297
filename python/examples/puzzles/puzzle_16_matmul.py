# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 64
# REQUIRES: gpu
"""Puzzle 16 (matmul): (1) naive S×S, one thread per output; (2) the same through shared copies of A and B in
one block; (3) tiled M×N×K with 16×16 shared tiles, barriers inside the K loop."""
import sys
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["m", "n", "k"], [64, 64, 64], bench_utils.T8
TILE = 16


def build_tiled(M, N, K):
    @gpu_kernel(grid=(N // TILE, M // TILE), block=(TILE, TILE))
    def tiled_matmul(A: Buffer[M, K], B: Buffer[K, N], C: Buffer[M, N], sa: Shared[TILE, TILE],
                     sb: Shared[TILE, TILE]):
        ty = thread_id.y
        tx = thread_id.x
        row = block_id.y * TILE + ty
        col = block_id.x * TILE + tx
        acc = 0.0
        for t in range(K // TILE):
            sa[ty, tx] = A[row, t * TILE + tx]
            sb[ty, tx] = B[t * TILE + ty, col]
            barrier()
            for k in range(TILE):
                acc += sa[ty, k] * sb[k, tx]
            barrier()
        C[row, col] = acc

    return tiled_matmul


def build(M, N=None, K=None):
    N = M if N is None else N
    K = M if K is None else K
    S = min(M, 16)

    @gpu_kernel(grid=(1,), block=(S, S))
    def naive_matmul(A: Buffer[S, S], B: Buffer[S, S], C: Buffer[S, S]):
        acc = 0.0
        for k in range(S):
            acc += A[thread_id.y, k] * B[k, thread_id.x]
        C[thread_id.y, thread_id.x] = acc

    @gpu_kernel(grid=(1,), block=(S, S))
    def smem_matmul(A: Buffer[S, S], B: Buffer[S, S], C: Buffer[S, S], sa: Shared[S, S], sb: Shared[S, S]):
        sa[thread_id.y, thread_id.x] = A[thread_id.y, thread_id.x]
        sb[thread_id.y, thread_id.x] = B[thread_id.y, thread_id.x]
        barrier()
        acc = 0.0
        for k in range(S):
            acc += sa[thread_id.y, k] * sb[k, thread_id.x]
        C[thread_id.y, thread_id.x] = acc

    def mm(m, n, k):
        return lambda ins: ins[0].reshape(m, k).astype(float) @ ins[1].reshape(k, n)

    return [dict(kernel=naive_matmul, expected=mm(S, S, S), label="naive", atol=1e-2, init_mod=10),
            dict(kernel=smem_matmul, expected=mm(S, S, S), label="shared", atol=1e-2, init_mod=10),
            dict(kernel=build_tiled(M, N, K), expected=mm(M, N, K), label="tiled", atol=1e-2, init_mod=10)]


if __name__ == "__main__":
    if len(sys.argv) == 2:
        sys.argv += [sys.argv[1], sys.argv[1]]
    bench_utils.main(globals())
