# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 64
# REQUIRES: gpu
"""Puzzle 16 (matmul): (1) naive S×S, one thread per output; (2) the same through shared copies of A and B in
one block; (3) tiled M×N×K with 16×16 shared tiles, barriers inside the K loop; (4) register-tiled SGEMM: a BM×BN block
tile (128×128 when M and N allow), BK = 8, each thread an 8×8 register block (``Registers``), A staged
transposed in shared memory, the k-loop over the tile unrolled (``static_range``) so each k step is 16 shared
loads feeding 64 FMAs."""
import sys
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared, Registers, static_range
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


def _register_tiling(M, N, K, BM, BN, BK, TM, TN):
    """The block tile of the register-tiled kernels: (BM, BN, TY, TX, T, LA, LB, SA, SB, SX)."""
    BM, BN = min(BM, M), min(BN, N)
    TY, TX = BM // TM, BN // TN        # thread grid of the block tile
    T = TX * TY                        # threads per block
    LA, LB = BM * BK // T, BK * BN // T  # tile elements each thread stages
    assert M % BM == 0 and N % BN == 0 and K % BK == 0 and BK % LA == 0 and BN % LB == 0, (M, N, K)
    # LLVM merges the shared accesses into 16-byte ld/st.shared.v4 while the PTX declares the arrays .align 4:
    # every array's size (one or two BK-row tiles) is a multiple of 16 bytes, so laid out from the shared
    # window's start each is aligned
    assert (BK * BM * 4) % 16 == 0 and (BK * BN * 4) % 16 == 0
    # thread-index splits by shifts and masks (all powers of two): floored // and % on the thread id would
    # cost signed-division fix-ups (and naga rejects the negation they contain on the WGSL targets)
    SA, SB = (BK // LA).bit_length() - 1, (BN // LB).bit_length() - 1
    SX = TX.bit_length() - 1
    assert all(1 << v == w for v, w in ((SA, BK // LA), (SB, BN // LB), (SX, TX))), (BK, LA, BN, LB, TX)
    return BM, BN, TY, TX, T, LA, LB, SA, SB, SX


def build_register_tiled(M, N, K, BM=128, BN=128, BK=8, TM=8, TN=8):
    BM, BN, TY, TX, T, LA, LB, SA, SB, SX = _register_tiling(M, N, K, BM, BN, BK, TM, TN)

    @gpu_kernel(grid=(N // BN, M // BM), block=(T,))
    def register_tiled(A: Buffer[M, K], B: Buffer[K, N], C: Buffer[M, N], sa: Shared[BK, BM],
                       sb: Shared[BK, BN]):
        tid = thread_id.x
        tx = tid & (TX - 1)
        ty = tid >> SX
        row0 = block_id.y * BM
        col0 = block_id.x * BN
        # staging: each thread copies a run of LA (LB) consecutive elements of one row of the A (B) tile
        a_row = tid >> SA
        a_col = (tid & (BK // LA - 1)) * LA
        b_row = tid >> SB
        b_col = (tid & (BN // LB - 1)) * LB
        acc = Registers(TM, TN)
        a = Registers(TM)
        b = Registers(TN)
        for k0 in range(0, K, BK):
            for s in static_range(LA):
                sa[a_col + s, a_row] = A[row0 + a_row, k0 + a_col + s]  # A transposed: sa[k, m]
            for s in static_range(LB):
                sb[b_row, b_col + s] = B[k0 + b_row, col0 + b_col + s]
            barrier()
            for kk in static_range(BK):
                for i in static_range(TM):
                    a[i] = sa[kk, i // 4 * (TY * 4) + ty * 4 + i % 4]
                for j in static_range(TN):
                    b[j] = sb[kk, j // 4 * (TX * 4) + tx * 4 + j % 4]
                for i in static_range(TM):
                    for j in static_range(TN):
                        acc[i, j] = fma(a[i], b[j], acc[i, j])
            barrier()
        for i in static_range(TM):
            for j in static_range(TN):
                C[row0 + i // 4 * (TY * 4) + ty * 4 + i % 4, col0 + j // 4 * (TX * 4) + tx * 4 + j % 4] = acc[i, j]

    return register_tiled


def build_register_tiled_db(M, N, K, BM=128, BN=128, BK=8, TM=8, TN=8):
    """``register_tiled`` with the shared tiles double-buffered: each k step first loads the next A and B tiles
    from global memory into registers, computes on the current shared tiles while those loads are in flight,
    then stores them into the other half — one barrier per k-tile instead of two (the half read in step i is
    written again only in step i + 2, after every thread has passed step i + 1's barrier). The last step's
    prefetch wraps to tile 0 (K a power of two: ``& (K - 1)``), a redundant in-bounds load that nothing reads."""
    BM, BN, TY, TX, T, LA, LB, SA, SB, SX = _register_tiling(M, N, K, BM, BN, BK, TM, TN)
    assert K & (K - 1) == 0, K
    SK = BK.bit_length() - 1
    assert 1 << SK == BK, BK

    @gpu_kernel(grid=(N // BN, M // BM), block=(T,))
    def register_tiled_db(A: Buffer[M, K], B: Buffer[K, N], C: Buffer[M, N], sa: Shared[2 * BK, BM],
                          sb: Shared[2 * BK, BN]):
        tid = thread_id.x
        tx = tid & (TX - 1)
        ty = tid >> SX
        row0 = block_id.y * BM
        col0 = block_id.x * BN
        a_row = tid >> SA
        a_col = (tid & (BK // LA - 1)) * LA
        b_row = tid >> SB
        b_col = (tid & (BN // LB - 1)) * LB
        acc = Registers(TM, TN)
        a = Registers(TM)
        b = Registers(TN)
        ra = Registers(LA)
        rb = Registers(LB)
        for s in static_range(LA):
            sa[a_col + s, a_row] = A[row0 + a_row, a_col + s]
        for s in static_range(LB):
            sb[b_row, b_col + s] = B[b_row, col0 + b_col + s]
        barrier()
        for k0 in range(0, K, BK):
            cur = ((k0 >> SK) & 1) * BK
            nxt = BK - cur
            kn = (k0 + BK) & (K - 1)
            for s in static_range(LA):
                ra[s] = A[row0 + a_row, kn + a_col + s]
            for s in static_range(LB):
                rb[s] = B[kn + b_row, col0 + b_col + s]
            for kk in static_range(BK):
                for i in static_range(TM):
                    a[i] = sa[cur + kk, i // 4 * (TY * 4) + ty * 4 + i % 4]
                for j in static_range(TN):
                    b[j] = sb[cur + kk, j // 4 * (TX * 4) + tx * 4 + j % 4]
                for i in static_range(TM):
                    for j in static_range(TN):
                        acc[i, j] = fma(a[i], b[j], acc[i, j])
            for s in static_range(LA):
                sa[nxt + a_col + s, a_row] = ra[s]
            for s in static_range(LB):
                sb[nxt + b_row, b_col + s] = rb[s]
            barrier()
        for i in static_range(TM):
            for j in static_range(TN):
                C[row0 + i // 4 * (TY * 4) + ty * 4 + i % 4, col0 + j // 4 * (TX * 4) + tx * 4 + j % 4] = acc[i, j]

    return register_tiled_db


def build_variants(M, N=None, K=None):
    """Tuning variants of the register-tiled SGEMM, timed beside it by bench/gpu_puzzles/run_h100.py."""
    N = M if N is None else N
    K = M if K is None else K
    mm = lambda ins: ins[0].reshape(M, K).astype(float) @ ins[1].reshape(K, N)  # noqa: E731
    return [dict(kernel=build_register_tiled_db(M, N, K), expected=mm, label="register_tiled db", atol=1e-2,
                 init_mod=10),
            dict(kernel=build_register_tiled(M, N, K, BK=16), expected=mm, label="register_tiled bk16", atol=1e-2,
                 init_mod=10)]


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
            dict(kernel=build_tiled(M, N, K), expected=mm(M, N, K), label="tiled", atol=1e-2, init_mod=10),
            dict(kernel=build_register_tiled(M, N, K), expected=mm(M, N, K), label="register_tiled", atol=1e-2,
                 init_mod=10)]


if __name__ == "__main__":
    if len(sys.argv) == 2:
        sys.argv += [sys.argv[1], sys.argv[1]]
    bench_utils.main(globals())
