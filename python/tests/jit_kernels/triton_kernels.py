"""Triton kernels written with LEGO layouts (the paper's examples), undecorated by lego: the tests apply
``lego.jit`` / ``get_kernel_source`` themselves. ``bench/triton`` generates its LEGO kernels from copies of these."""

import sympy as sp
import triton
import triton.language as tl

from lego import Col, GenP, OrderBy, RegP, Row


@triton.jit
def vecadd(x_ptr, y_ptr, z_ptr, N, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    L = OrderBy(Row(N)).TileBy([N / BLOCK_SIZE], [BLOCK_SIZE])
    offsets = L[pid, :]
    mask = offsets < N
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(z_ptr + offsets, x + y, mask=mask)


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GM: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    L_pid = OrderBy(Col(sp.Max(num_pid_m // GM, 1), 1), Col(sp.Min(num_pid_m, GM), num_pid_n)).TileBy([num_pid_m, num_pid_n])
    pid_m, pid_n = L_pid.inv(pid)
    L_A = OrderBy(Row(M, K)).TileBy([M / BM, K / BK], [BM, BK])
    L_B = OrderBy(Row(K, N)).TileBy([K / BK, N / BN], [BK, BN])
    L_C = OrderBy(Row(M, N)).TileBy([M / BM, N / BN], [BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a_ptrs = a_ptr + L_A[pid_m, k, :, :]
        b_ptrs = b_ptr + L_B[k, pid_n, :, :]
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc += tl.dot(a, b)
    c_ptrs = c_ptr + L_C[pid_m, pid_n, :, :]
    tl.store(c_ptrs, acc)


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
    tl.store(y_ptr + L[row, cols], y, mask=mask)


@triton.jit
def matmul_ceil(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    L_A = OrderBy(Row(M, K)).TileBy([sp.ceiling(M / BM), sp.ceiling(K / BK)], [BM, BK])
    L_B = OrderBy(Row(K, N)).TileBy([sp.ceiling(K / BK), sp.ceiling(N / BN)], [BK, BN])
    L_C = OrderBy(Row(M, N)).TileBy([sp.ceiling(M / BM), sp.ceiling(N / BN)], [BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(1, tl.cdiv(K, BK)):
        a_ptrs = a_ptr + L_A[pid_m, k, :, :]
        b_ptrs = L_B[k, pid_n, :, :] + b_ptr
        a = tl.load(a_ptrs, mask=None)
        b = tl.load(b_ptrs)
        acc += tl.dot(a, b)
    c_ptrs = c_ptr + L_C[pid_m, pid_n, :, :]
    tl.store(c_ptrs, acc, mask=None)
