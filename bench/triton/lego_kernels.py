"""The paper's Triton kernels written with LEGO layouts (input of generate.py, which runs lego.jit's rewriter
here and writes generated/lego_generated.py; the GPU machine runs that file: it has no LLVM and no lego).

Every index is a layout: the four matmul variants differ only in the layouts of A and B (Row = stored as
is, Col = stored transposed)."""

import sympy as sp
import triton
import triton.language as tl

from lego import Col, OrderBy, Row


@triton.jit
def vecadd(x_ptr, y_ptr, z_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    L = OrderBy(Row(N)).TileBy([N / BLOCK], [BLOCK])
    offsets = L[pid, :]
    x = tl.load(x_ptr + offsets)
    y = tl.load(y_ptr + offsets)
    tl.store(z_ptr + offsets, x + y)


@triton.jit
def softmax(out_ptr, in_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    L = OrderBy(Row(n_rows, n_cols))
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + L[row, cols], mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + L[row, cols], y, mask=mask)


@triton.jit
def layernorm(x_ptr, y_ptr, w_ptr, b_ptr, n_rows, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    L = OrderBy(Row(n_rows, N))
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + L[row, cols], mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xbar = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xbar * xbar, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    y = xbar * rstd * w + b
    tl.store(y_ptr + L[row, cols], y.to(tl.float16), mask=mask)


def _matmul_template(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                     GM: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    L_pid = OrderBy(Col(sp.Max(num_pid_m // GM, 1), 1), Col(sp.Min(num_pid_m, GM), num_pid_n)).TileBy([num_pid_m, num_pid_n])
    pid_m, pid_n = L_pid.inv(pid)
    L_A = OrderBy(A_LAYOUT(M, K)).TileBy([M / BM, K / BK], [BM, BK])
    L_B = OrderBy(B_LAYOUT(K, N)).TileBy([K / BK, N / BN], [BK, BN])
    L_C = OrderBy(Row(M, N)).TileBy([M / BM, N / BN], [BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptr + L_A[pid_m, k, :, :])
        b = tl.load(b_ptr + L_B[k, pid_n, :, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + L_C[pid_m, pid_n, :, :], acc.to(tl.float16))


@triton.jit
def grouped_matmul(group_a_ptrs, group_b_ptrs, group_c_ptrs, group_gemm_sizes, group_size, NUM_SM: tl.constexpr,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    tile_idx = tl.program_id(0)
    last_problem_end = 0
    for g in range(group_size):
        gm = tl.load(group_gemm_sizes + g * 3)
        gn = tl.load(group_gemm_sizes + g * 3 + 1)
        gk = tl.load(group_gemm_sizes + g * 3 + 2)
        num_m_tiles = tl.cdiv(gm, BM)
        num_n_tiles = tl.cdiv(gn, BN)
        num_tiles = num_m_tiles * num_n_tiles
        while tile_idx >= last_problem_end and tile_idx < last_problem_end + num_tiles:
            a_ptr = tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(group_b_ptrs + g).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(group_c_ptrs + g).to(tl.pointer_type(tl.float16))
            L_tile = OrderBy(Row(num_m_tiles, num_n_tiles))
            tile_m, tile_n = L_tile.inv(tile_idx - last_problem_end)
            L_A = OrderBy(Row(gm, gk)).TileBy([gm / BM, gk / BK], [BM, BK])
            L_B = OrderBy(Row(gk, gn)).TileBy([gk / BK, gn / BN], [BK, BN])
            L_C = OrderBy(Row(gm, gn)).TileBy([gm / BM, gn / BN], [BM, BN])
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for kk in range(0, tl.cdiv(gk, BK)):
                a = tl.load(a_ptr + L_A[tile_m, kk, :, :])
                b = tl.load(b_ptr + L_B[kk, tile_n, :, :])
                acc += tl.dot(a, b)
            tl.store(c_ptr + L_C[tile_m, tile_n, :, :], acc.to(tl.float16))
            tile_idx += NUM_SM
        last_problem_end = last_problem_end + num_tiles
