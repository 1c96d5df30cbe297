"""The published GPU DSL's wrong-code defects (docs/gpu-dsl.md, "Defects fixed"), each with a test the
published behaviour fails: index comparisons and ``%`` were unsigned (``tx - 2 < 0`` false for tx < 2,
``(tx - 2) % 8`` huge), every load was typed f32 (an i32 index buffer could not be used), and tensor-core
fragments were loaded as f16 from f32 data (the bits reinterpreted). Results are checked against NumPy on the
CPU emulation (lego-to-llvm)."""

from __future__ import annotations

import numpy as np
import pytest

from lego.core import Row
from lego.backend.gpu_dsl import Buffer, DType, TensorCore, gpu_kernel

N = 16


@gpu_kernel(grid=(1,), block=(N,))
def _negative_index_compare(Out: Buffer[N]):
    # published: arith.cmpi ult → 0 for every thread
    flag = 0.0
    if thread_id.x - 2 < 0:
        flag = 1.0
    Out[thread_id.x] = flag


@gpu_kernel(grid=(1,), block=(N,))
def _floored_modulo(Out: Buffer[N]):
    # published: arith.remui of a negative index → 2^64 - 2 mod 8 ≠ Python's 6
    Out[thread_id.x] = (thread_id.x - 2) % 8


@gpu_kernel(grid=(1,), block=(N,))
def _gather(Table: Buffer[4 * N], Idx: Buffer(Row(N), N, dtype=DType.i32), Out: Buffer[N]):
    # published: Idx[...] loaded as f32 from an i32 memref (invalid IR) and unusable as an index
    Out[thread_id.x] = Table[Idx[thread_id.x]]


def test_index_comparison_after_subtraction_is_signed():
    out = np.zeros(N, np.float32)
    _negative_index_compare.run_cpu(out)
    np.testing.assert_array_equal(out, (np.arange(N) - 2 < 0).astype(np.float32))
    assert "cmpi slt" in _negative_index_compare.mlir_text()


def test_modulo_of_a_negative_index_is_floored():
    out = np.zeros(N, np.float32)
    _floored_modulo.run_cpu(out)
    np.testing.assert_array_equal(out, ((np.arange(N) - 2) % 8).astype(np.float32))


def test_integer_buffers_load_as_integers():
    table = np.arange(4 * N, dtype=np.float32) * 3 + 1
    idx = ((np.arange(N) * 7) % (4 * N)).astype(np.int32)[::-1].copy()
    out = np.zeros(N, np.float32)
    _gather.run_cpu(table, idx, out)
    np.testing.assert_array_equal(out, table[idx])
    text = _gather.mlir_text()
    assert f"memref<{N}xi32>" in text and "index_cast" in text


TC = TensorCore(16, 16, 16, "f16", "f32")


def test_tensor_core_refuses_f32_data_for_f16_fragments():
    tc = TC
    with pytest.raises(TypeError, match="f16 fragments load from a f16 buffer"):
        @gpu_kernel(grid=(1,), block=(32,))
        def mma_on_f32(A: Buffer[16, 16], B: Buffer[16, 16], C: Buffer[16, 16]):
            a2 = mma_reshape(A, 16, 16)
            b2 = mma_reshape(B, 16, 16)
            c2 = mma_reshape(C, 16, 16)
            acc = tc.mma(tc.load_a(a2, 0, 0, 16), tc.load_b(b2, 0, 0, 16), tc.zero())
            tc.store(acc, c2, 0, 0, 16)


def test_tensor_core_loads_f16_fragments_from_f16_buffers():
    tc = TC

    @gpu_kernel(grid=(1,), block=(32,))
    def mma_f16(A: Buffer(Row(16, 16), 16, 16, dtype=DType.f16), B: Buffer(Row(16, 16), 16, 16, dtype=DType.f16),
                C: Buffer[16, 16]):
        a2 = mma_reshape(A, 16, 16)
        b2 = mma_reshape(B, 16, 16)
        c2 = mma_reshape(C, 16, 16)
        acc = tc.mma(tc.load_a(a2, 0, 0, 16), tc.load_b(b2, 0, 0, 16), tc.zero())
        tc.store(acc, c2, 0, 0, 16)

    text = mma_f16.mlir_text()
    assert 'memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">' in text
    assert "arith.constant 0.00000000000000000e+00 : f32" in text  # the accumulator's zero, in f32
    from lego.jit.builders import kernel_assembly
    ptx = kernel_assembly(mma_f16.compile(target="cuda", chip="sm_90", features="+ptx80", format="assembly").kernel_source)[0]
    assert "wmma.load.a.sync" in ptx and ".f16" in ptx and "wmma.mma.sync" in ptx
