# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 64
# REQUIRES: gpu
"""Puzzle 33 (tensor cores): (1) the tiled shared-memory matmul of puzzle 16; (2) a WMMA matmul with
``TensorCore(16, 16, 16, "f16", "f32")``: one warp per 16×16 tile of C, a compile-time loop over K/16 of
load_a / load_b / mma, then store. A and B are **f16 buffers** (the published puzzle loaded f16 fragments
from f32 data, reinterpreting the bits — wrong results; here that is a type error, see
python/tests/test_gpu_dsl_defects.py), C is f32. Checked against NumPy on the GPU (the CPU emulation has no
tensor cores)."""
import sys
from lego.core import Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared, TensorCore, DType, Registers, static_range
import bench_utils
from puzzle_16_matmul import build_tiled

ARG_NAMES, ARGS, TARGETS = ["m", "n", "k"], [64, 64, 64], bench_utils.T8
TC = TensorCore(16, 16, 16, "f16", "f32")


def build_mma(M, N, K):
    tc = TC

    @gpu_kernel(grid=(N // 16, M // 16), block=(32,))
    def matmul_mma(A: Buffer(Row(M, K), M, K, dtype=DType.f16), B: Buffer(Row(K, N), K, N, dtype=DType.f16),
                   C: Buffer[M, N]):
        a2 = mma_reshape(A, M, K)
        b2 = mma_reshape(B, K, N)
        c2 = mma_reshape(C, M, N)
        row = block_id.y * 16
        col = block_id.x * 16
        acc = tc.zero()
        kk = 0
        while kk < K:
            fa = tc.load_a(a2, row, kk, K)
            fb = tc.load_b(b2, kk, col, N)
            acc = tc.mma(fa, fb, acc)
            kk = kk + 16
        tc.store(acc, c2, row, col, N)

    return matmul_mma


def _block_tiling(M, N, BM, BN, BK, WM, WN):
    """The block and warp tiling both staged kernels share: the block tile clipped to C, fragments per warp,
    warps along N, threads, and the padded shared rows (16 bytes more: fewer bank conflicts on fragment loads).
    wmma.load needs 32-byte aligned tile starts and cp.async 16-byte aligned rows; the PTX declares the shared
    arrays with only their element alignment (.align 2), so every array's size is kept a multiple of 32 bytes:
    laid out one after another from the (aligned) start of the block's shared window, each one starts aligned."""
    BM, BN = min(BM, M), min(BN, N)
    WN = min(WN, BN)
    WX = BN // WN
    PA, PB = BK + 8, BN + 8
    assert (BM * PA * 2) % 32 == 0 and (BK * PB * 2) % 32 == 0 and (PA * 2) % 16 == 0 and (PB * 2) % 16 == 0
    return BM, BN, WN, WM // 16, WN // 16, WX, (BM // WM) * WX * 32, PA, PB


def build_mma_staged(M, N, K, BM=128, BN=128, BK=32, WM=32, WN=64):
    """A block of (BM/WM)·(BN/WN) warps (8 at 128×128), each computing a WM×WN tile of C as (WM/16)×(WN/16)
    fragments (a ``Registers`` array) that the runtime k-loop carries; per BK = 32 slice, A and B tiles are
    staged in shared memory
    (f16, rows padded by 8 halves) by the whole block, then each warp loads its A / B fragments from there."""
    tc = TC
    BM, BN, WN, FM, FN, WX, T, PA, PB = _block_tiling(M, N, BM, BN, BK, WM, WN)
    LA, LB = BM * BK // T, BK * BN // T
    assert M % BM == 0 and N % BN == 0 and K % BK == 0 and BM % WM == 0 and BK % LA == 0 and BN % LB == 0
    SA, SB, SX = (BK // LA).bit_length() - 1, (BN // LB).bit_length() - 1, WX.bit_length() - 1
    assert all(1 << v == w for v, w in ((SA, BK // LA), (SB, BN // LB), (SX, WX)))

    @gpu_kernel(grid=(N // BN, M // BM), block=(T,))
    def matmul_mma_staged(A: Buffer(Row(M, K), M, K, dtype=DType.f16), B: Buffer(Row(K, N), K, N, dtype=DType.f16),
                          C: Buffer[M, N], sa: Shared(Row(BM, PA), BM, PA, dtype=DType.f16),
                          sb: Shared(Row(BK, PB), BK, PB, dtype=DType.f16)):
        sa2 = mma_reshape(sa, BM, PA)
        sb2 = mma_reshape(sb, BK, PB)
        tid = thread_id.x
        warp = tid >> 5
        wrow = (warp >> SX) * WM
        wcol = (warp & (WX - 1)) * WN
        row0 = block_id.y * BM
        col0 = block_id.x * BN
        a_row = tid >> SA
        a_col = (tid & (BK // LA - 1)) * LA
        b_row = tid >> SB
        b_col = (tid & (BN // LB - 1)) * LB
        acc = Registers(FM, FN)
        for i in static_range(FM):
            for j in static_range(FN):
                acc[i, j] = tc.zero()
        for k0 in range(0, K, BK):
            for s in static_range(LA):
                sa[a_row, a_col + s] = A[row0 + a_row, k0 + a_col + s]
            for s in static_range(LB):
                sb[b_row, b_col + s] = B[k0 + b_row, col0 + b_col + s]
            barrier()
            for kk in static_range(0, BK, 16):
                fa = Registers(FM)
                fb = Registers(FN)
                for i in static_range(FM):
                    fa[i] = tc.load_a(sa2, wrow + 16 * i, kk, PA)
                for j in static_range(FN):
                    fb[j] = tc.load_b(sb2, kk, wcol + 16 * j, PB)
                for i in static_range(FM):
                    for j in static_range(FN):
                        acc[i, j] = tc.mma(fa[i], fb[j], acc[i, j])
            barrier()
        # C's view is made here, after A and B are first read: the outlined kernel's parameters follow the order
        # in which the body first uses each buffer (gpu-kernel-outlining), and callers pass them in signature
        # order (docs/gpu-dsl.md, "Not done"; test_gpu_puzzles checks every kernel's order)
        c2 = mma_reshape(C, M, N)
        for i in static_range(FM):
            for j in static_range(FN):
                tc.store(acc[i, j], c2, row0 + wrow + 16 * i, col0 + wcol + 16 * j, N)

    return matmul_mma_staged


def build_mma_pipelined(M, N, K, BM=128, BN=128, BK=32, WM=32, WN=64, STAGES=2):
    """``mma_staged`` with its staging made asynchronous and multi-buffered: each thread moves its share of the
    tile ``STAGES - 1`` steps ahead with 16-byte ``async_copy`` (``cp.async``, no registers) into a free stage
    of shared memory while the warps multiply the current one; ``async_copy_wait(STAGES - 1)`` and a barrier
    then hand the oldest over. The k-loop is a runtime loop carrying the accumulator fragments. Near the end
    the copy ahead repeats an in-bounds tile into the stage just freed (nothing reads it), so every iteration
    commits one group and ``wait(STAGES - 1)`` always means "all but the newest STAGES - 1"."""
    tc = TC
    BM, BN, WN, FM, FN, WX, T, PA, PB = _block_tiling(M, N, BM, BN, BK, WM, WN)
    RA, RB = BK // 8, BN // 8          # 16-byte chunks per row of an A tile, a B tile
    CA, CB = BM * RA // T, BK * RB // T  # chunks per thread
    AHEAD = (STAGES - 1) * BK
    assert M % BM == 0 and N % BN == 0 and K % BK == 0 and BM % WM == 0 and BK % 16 == 0 and STAGES >= 2
    assert CA * T == BM * RA and CB * T == BK * RB and CA >= 1 and CB >= 1 and AHEAD < K
    # the PTX declares shared arrays statically, at most 48 KiB in all
    assert STAGES * (BM * PA + BK * PB) * 2 <= 48 * 1024
    SA, SB, SX, SK = RA.bit_length() - 1, RB.bit_length() - 1, WX.bit_length() - 1, BK.bit_length() - 1
    assert all(1 << v == w for v, w in ((SA, RA), (SB, RB), (SX, WX), (SK, BK)))

    @gpu_kernel(grid=(N // BN, M // BM), block=(T,))
    def matmul_mma_pipelined(A: Buffer(Row(M, K), M, K, dtype=DType.f16),
                             B: Buffer(Row(K, N), K, N, dtype=DType.f16), C: Buffer[M, N],
                             sa: Shared(Row(STAGES * BM, PA), STAGES * BM, PA, dtype=DType.f16),
                             sb: Shared(Row(STAGES * BK, PB), STAGES * BK, PB, dtype=DType.f16)):
        sa2 = mma_reshape(sa, STAGES * BM, PA)
        sb2 = mma_reshape(sb, STAGES * BK, PB)
        c2 = mma_reshape(C, M, N)
        tid = thread_id.x
        warp = tid >> 5
        wrow = (warp >> SX) * WM
        wcol = (warp & (WX - 1)) * WN
        row0 = block_id.y * BM
        col0 = block_id.x * BN
        acc = Registers(FM, FN)
        for i in static_range(FM):
            for j in static_range(FN):
                acc[i, j] = tc.zero()
        for t in static_range(STAGES - 1):
            for s in static_range(CA):
                ca = tid + s * T
                async_copy(sa[t * BM + (ca >> SA), (ca & (RA - 1)) * 8],
                           A[row0 + (ca >> SA), t * BK + (ca & (RA - 1)) * 8], 8)
            for s in static_range(CB):
                cb = tid + s * T
                async_copy(sb[t * BK + (cb >> SB), (cb & (RB - 1)) * 8],
                           B[t * BK + (cb >> SB), col0 + (cb & (RB - 1)) * 8], 8)
            async_copy_commit()
        for k0 in range(0, K, BK):
            step = k0 >> SK
            stage = step % STAGES
            ahead = (step + STAGES - 1) % STAGES
            kn = k0 + AHEAD - AHEAD * ((k0 + AHEAD) // K)   # the tile STAGES - 1 ahead, in bounds
            for s in static_range(CA):
                ca = tid + s * T
                async_copy(sa[ahead * BM + (ca >> SA), (ca & (RA - 1)) * 8],
                           A[row0 + (ca >> SA), kn + (ca & (RA - 1)) * 8], 8)
            for s in static_range(CB):
                cb = tid + s * T
                async_copy(sb[ahead * BK + (cb >> SB), (cb & (RB - 1)) * 8],
                           B[kn + (cb >> SB), col0 + (cb & (RB - 1)) * 8], 8)
            async_copy_commit()
            async_copy_wait(STAGES - 1)
            barrier()
            for kk in static_range(0, BK, 16):
                fa = Registers(FM)
                fb = Registers(FN)
                for i in static_range(FM):
                    fa[i] = tc.load_a(sa2, stage * BM + wrow + 16 * i, kk, PA)
                for j in static_range(FN):
                    fb[j] = tc.load_b(sb2, stage * BK + kk, wcol + 16 * j, PB)
                for i in static_range(FM):
                    for j in static_range(FN):
                        acc[i, j] = tc.mma(fa[i], fb[j], acc[i, j])
            barrier()
        async_copy_wait(0)
        for i in static_range(FM):
            for j in static_range(FN):
                tc.store(acc[i, j], c2, row0 + wrow + 16 * i, col0 + wcol + 16 * j, N)

    return matmul_mma_pipelined


def build(M, N=None, K=None):
    N = M if N is None else N
    K = M if K is None else K

    def mm(ins):
        return ins[0].reshape(M, K).astype(float) @ ins[1].reshape(K, N).astype(float)

    return [dict(kernel=build_tiled(M, N, K), expected=mm, label="tiled", atol=1e-2, init_mod=10),
            dict(kernel=build_mma(M, N, K), expected=mm, label="mma", atol=1e-2, init_mod=10),
            dict(kernel=build_mma_staged(M, N, K), expected=mm, label="mma_staged", atol=1e-2, init_mod=10),
            dict(kernel=build_mma_pipelined(M, N, K), expected=mm, label="mma_pipelined", atol=1e-2, init_mod=10,
                 ptx_contains=("cp.async.cg.shared.global", "cp.async.wait_group", "wmma.mma"))]


if __name__ == "__main__":
    if len(sys.argv) == 2:
        sys.argv += [sys.argv[1], sys.argv[1]]
    bench_utils.main(globals())
