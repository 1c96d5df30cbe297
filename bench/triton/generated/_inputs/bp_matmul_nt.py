import sympy as sp
import triton
import triton.language as tl
from lego import Col, OrderBy, Row

@triton.jit
def bp_matmul_nt(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                     GM: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    L_pid = OrderBy(Col(sp.Max(num_pid_m // GM, 1), 1), Col(sp.Min(num_pid_m, GM), num_pid_n)).TileBy([num_pid_m, num_pid_n])
    pid_m, pid_n = L_pid.inv(pid)
    L_A = OrderBy(Row(M, K)).TileBy([M / BM, K / BK], [BM, BK])
    L_B = OrderBy(Col(K, N)).TileBy([K / BK, N / BN], [BK, BN])
    L_C = OrderBy(Row(M, N)).TileBy([M / BM, N / BN], [BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a_ptrs = a_ptr + L_A[pid_m, k, :, :]
        a = tl.load(a_ptrs)
        b_ptrs = b_ptr + L_B[k, pid_n, :, :]
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
    c_ptrs = c_ptr + L_C[pid_m, pid_n, :, :]
    tl.store(c_ptrs, acc.to(tl.float16))
