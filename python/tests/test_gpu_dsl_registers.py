"""Compile-time unrolling (``static_range``), per-thread register arrays (``Registers``) and ``fma`` in the GPU
DSL (docs/gpu-dsl.md), and the register-tiled SGEMM of puzzle 16 built on them: results against NumPy on the
CPU emulation, and the properties of its PTX that matter for speed (the unrolled inner loop is vector shared
loads feeding fma.rn.f32, nothing in local memory)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from lego.backend.gpu_dsl import Buffer, DSLTypeError, DType, Registers, TensorCore, gpu_kernel, static_range
from lego.core import Row

PUZZLES = Path(__file__).resolve().parents[1] / "examples" / "puzzles"
sys.path.insert(0, str(PUZZLES))

N = 16
R = 4


@gpu_kernel(grid=(1,), block=(N,))
def _register_sums(A: Buffer[N, R], Out: Buffer[N, R]):
    # acc[j] = Σ_k A[tx, j] · (k + 1) over a runtime loop: each element is one scf.for iter_arg
    acc = Registers(R)
    for k in range(3):
        for j in static_range(R):
            acc[j] = fma(A[thread_id.x, j], k + 1.0, acc[j])
    if thread_id.x < 8:
        for j in static_range(R):
            acc[j] += 100.0
    for j in static_range(R):
        Out[thread_id.x, j] = acc[j]


def test_registers_carried_through_for_and_if():
    a = np.arange(N * R, dtype=np.float32)
    out = np.zeros(N * R, np.float32)
    _register_sums.run_cpu(a, out)
    expected = a.reshape(N, R) * 6.0
    expected[:8] += 100.0
    np.testing.assert_array_equal(out.reshape(N, R), expected)
    text = _register_sums.mlir_text()
    # one runtime loop with R float iter_args; the static_range loops left no scf.for behind
    assert text.count("scf.for") == 1 and re.search(r"-> \(f32, f32, f32, f32\)", text)
    assert "memref.alloca" not in text and "fastmath<contract>" in text


def test_register_index_must_be_compile_time():
    with pytest.raises(DSLTypeError, match="compile-time ints only"):
        @gpu_kernel(grid=(1,), block=(N,))
        def bad(Out: Buffer[N]):
            r = Registers(2)
            Out[thread_id.x] = r[thread_id.x]

        bad.mlir_text()


def test_static_range_bounds_must_be_compile_time():
    with pytest.raises(DSLTypeError, match="static_range bounds"):
        @gpu_kernel(grid=(1,), block=(N,))
        def bad(Out: Buffer[N]):
            s = 0.0
            for i in static_range(thread_id.x):
                s += 1.0
            Out[thread_id.x] = s

        bad.mlir_text()


def test_register_tiled_matmul_against_numpy():
    import puzzle_16_matmul as p
    M, N_, K = 128, 128, 64
    kernel = p.build_register_tiled(M, N_, K)
    rng = np.random.default_rng(0)
    a = rng.integers(0, 10, M * K).astype(np.float32)
    b = rng.integers(0, 10, K * N_).astype(np.float32)
    c = np.zeros(M * N_, np.float32)
    kernel.run_cpu(a, b, c)
    np.testing.assert_array_equal(c.reshape(M, N_), a.reshape(M, K) @ b.reshape(K, N_))


def test_register_tiled_matmul_ptx():
    sys.path.insert(0, str(PUZZLES.parents[2] / "bench" / "gpu_puzzles"))
    import puzzle_16_matmul as p
    import run_h100
    ptx = run_h100.ptx_of(p.build_register_tiled(4096, 4096, 4096))
    assert "ld.local" not in ptx and "st.local" not in ptx
    # the k-tile loop: BK = 8 steps × (2 + 2 ld.shared.v4 of A and B, 64 FMAs), between two barriers
    loop = ptx[ptx.index("bar.sync"):ptx.rindex("bar.sync")]
    assert loop.count("fma.rn.f32") == 8 * 64
    assert loop.count("ld.shared.v4.f32") + loop.count("ld.shared.v4.b32") == 8 * 4
    assert "mul.rn.f32" not in ptx and "add.rn.f32" not in ptx


def test_staged_wmma_ptx():
    # the tensor cores cannot run in the CPU emulation: the structure is checked in the PTX instead
    sys.path.insert(0, str(PUZZLES.parents[2] / "bench" / "gpu_puzzles"))
    import puzzle_33_tensor_cores as p
    import run_h100
    M = N_ = 128
    K = 4096   # LLVM unrolls a short constant-trip loop completely; 128 trips stay a loop
    ptx = run_h100.ptx_of(p.build_mma_staged(M, N_, K))
    # 8 warps × 2×4 fragments; the k-loop over K / BK tiles is rolled (it carries the fragments), its body
    # unrolls BK / 16 = 2 k-steps: 16 mma per warp in the PTX (warp-collective instructions per thread)
    assert ptx.count("wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32") == 2 * 4 * 32 // 16
    # A and B fragments come from shared memory (staged by the block), C goes to global once
    assert ptx.count("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16") == 2 * 32 // 16
    assert ptx.count("wmma.load.b.sync.aligned.row.m16n16k16.shared.f16") == 4 * 32 // 16
    assert "wmma.load.a.sync.aligned.row.m16n16k16.global" not in ptx
    assert ptx.count("wmma.store.d.sync.aligned.row.m16n16k16") == 2 * 4
    assert "st.shared" in ptx and ptx.count("bar.sync") == 2
    assert "ld.local" not in ptx and "st.local" not in ptx


def test_fragments_are_carried_by_a_rolled_loop():
    # A runtime k-loop may carry the accumulator: lego-to-nvvm lowers scf.for to branches before the
    # fragments' types are converted, so the loop stays a loop (one wmma.mma in a branch-back body) instead of
    # being refused or unrolled (K/16 copies: 1.2 MB of PTX for puzzle 33 at 4096 before)
    tc = TensorCore(16, 16, 16, "f16", "f32")

    @gpu_kernel(grid=(1,), block=(32,))
    def rolled(A: Buffer(Row(16, 4096), 16, 4096, dtype=DType.f16),
               B: Buffer(Row(4096, 16), 4096, 16, dtype=DType.f16), C: Buffer[16, 16]):
        a2 = mma_reshape(A, 16, 4096)
        b2 = mma_reshape(B, 4096, 16)
        c2 = mma_reshape(C, 16, 16)
        acc = tc.zero()
        for k in range(0, 4096, 16):
            acc = tc.mma(tc.load_a(a2, 0, k, 4096), tc.load_b(b2, k, 0, 16), acc)
        tc.store(acc, c2, 0, 0, 16)

    sys.path.insert(0, str(PUZZLES.parents[2] / "bench" / "gpu_puzzles"))
    import run_h100
    ptx = run_h100.ptx_of(rolled)
    # LLVM may unroll the body a few times (4 on LLVM 22), never the 256 trips
    mmas = ptx.count("wmma.mma.sync")
    assert 1 <= mmas <= 8 and 256 % mmas == 0
    assert ptx.count("wmma.load.a") == mmas and ptx.count("wmma.load.b") == mmas
    assert re.search(r"^\s*@%p\d+ bra ", ptx, re.M) or re.search(r"^\s*bra(\.uni)? ", ptx, re.M)
