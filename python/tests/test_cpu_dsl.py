"""The §5.5 CPU kernel DSL and CPUKernelBuilder, run for real: lego-to-llvm in-process, LLVM IR through
MLIR's translation, llc-22 + clang-22 into a shared object, ctypes on NumPy buffers. Expected values come from
NumPy and, for layout addressing, from lego-algebra's interpreter."""

import json

import numpy as np
import pytest

import lego
from lego import _lego
from lego.backend.cpu_builder import CPUKernelBuilder, CPUTarget, _CPU_TARGETS
from lego.backend.cpu_dsl import Buffer, cpu_kernel, tile_range
from lego.jit.builders import LayoutBuffer

N = 1024
rng = np.random.default_rng(7)


def test_buffer_type_dims():
    assert Buffer[16].dims == (16,)
    assert Buffer[4, 8].dims == (4, 8)


@cpu_kernel(grid=(N // 8,), tile=(8,))
def saxpy(a: float, x: Buffer[N], y: Buffer[N]):
    for i in tile_range:
        y[i] = a * x[i] + y[i]


def test_build_module_is_a_verified_module():
    module, text = saxpy.build_module()
    assert "func.func @saxpy" in text and "memref<1024xf32>" in text
    assert module.functions() == ["saxpy"]
    assert module.verify()
    assert "scf.for" in module.operation_names()
    assert str(module).startswith("module")


@pytest.mark.parametrize("target", ["cpu", "scalar"])
def test_saxpy_runs(target):
    x = rng.random(N, dtype=np.float32)
    y = rng.random(N, dtype=np.float32)
    expected = np.float32(2.5) * x + y
    saxpy.compile(target=target)(2.5, x, y)
    np.testing.assert_allclose(y, expected, rtol=1e-6)


def test_vecadd_scale_fill():
    @cpu_kernel
    def vecadd(a: Buffer[300], b: Buffer[300], c: Buffer[300]):
        for i in range(300):
            c[i] = a[i] + b[i]

    @cpu_kernel
    def scale(s: float, x: Buffer[100]):
        for i in range(100):
            x[i] *= s

    @cpu_kernel
    def fill(out: Buffer[50]):
        for i in range(10, 50, 3):
            out[i] = float(i) * 2.0

    a, b, c = (rng.random(300, dtype=np.float32) for _ in range(3))
    vecadd(a, b, c)
    np.testing.assert_array_equal(c, a + b)
    x = rng.random(100, dtype=np.float32)
    want = x * np.float32(-3.0)
    scale(-3.0, x)
    np.testing.assert_array_equal(x, want)
    out = np.zeros(50, dtype=np.float32)
    fill(out)
    want = np.zeros(50, dtype=np.float32)
    want[10:50:3] = np.arange(10, 50, 3) * 2.0
    np.testing.assert_array_equal(out, want)


def test_matmul_with_carried_accumulator_and_math():
    M, K, Nn = 6, 5, 7

    @cpu_kernel
    def matmul(a: Buffer[M, K], b: Buffer[K, Nn], c: Buffer[M, Nn]):
        for i in range(M):
            for j in range(Nn):
                acc = 0.0
                for k in range(K):
                    acc = acc + a[i, k] * b[k, j]
                c[i, j] = sqrt(exp(acc)) * rsqrt(max(acc, 1.0))

    a = rng.random((M, K), dtype=np.float32)
    b = rng.random((K, Nn), dtype=np.float32)
    c = np.zeros((M, Nn), dtype=np.float32)
    matmul(a, b, c)
    acc = a.astype(np.float64) @ b
    np.testing.assert_allclose(c, np.sqrt(np.exp(acc)) / np.sqrt(np.maximum(acc, 1.0)), rtol=1e-5)


def _algebra(layout_json, index):
    return _lego.algebra_eval(json.dumps(layout_json), "apply", list(index))[0]


def test_buffer_layout_addressing_matches_lego_algebra():
    # y[i, j] = x[i, j] where y is stored through Col(4, 8): element (i, j) lands at lego-algebra's apply.
    @cpu_kernel
    def to_col(x: Buffer[4, 8], y: Buffer[4, 8, lego.OrderBy(lego.Col(4, 8))]):
        for i in range(4):
            for j in range(8):
                y[i, j] = x[i, j]

    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    y = np.zeros(32, dtype=np.float32)
    to_col(x, y)
    col = {"op": "order_by", "parts": [{"op": "col", "dims": [4, 8]}]}
    for i in range(4):
        for j in range(8):
            assert y[_algebra(col, (i, j))] == x[i, j]
    np.testing.assert_array_equal(y, x.T.reshape(-1))  # NumPy's view of a column-major store


def test_cpu_kernel_builder_with_layouts():
    # The builder API directly: dst[L(idx)] = 2·src[flat] over a tiled layout, one tile per grid step.
    layout = lego.OrderBy(lego.Row(4, 6)).TileBy([2, 2], [2, 3])
    src, dst = LayoutBuffer(None, (24,)), LayoutBuffer(None, (24,))

    def body(ctx):
        ctx.for_range(6, lambda j: _step(ctx, j))

    def _step(ctx, j):
        flat = ctx.addi(ctx.muli(ctx.tile_id, ctx.const_index(6)), j)
        idx = ctx.apply_inverse(layout, flat)
        value = ctx.mulf(ctx.load_flat(src, flat), ctx.scalar("s"))
        ctx.store_flat(value, dst, ctx.apply(lego.OrderBy(lego.Row(2, 2, 2, 3)), *idx))

    kernel = CPUKernelBuilder([src, dst], body, name="retile", scalar_params=["s"], grid=(4,)).compile("scalar")
    x = np.arange(24, dtype=np.float32)
    out = np.zeros(24, dtype=np.float32)
    kernel(2.0, x, out)
    tiled = {"op": "tile_by", "inner": {"op": "order_by", "parts": [{"op": "row", "dims": [4, 6]}]},
             "tile_dims": [[2, 2], [2, 3]]}
    # lego-algebra's inverse of flat, re-flattened row-major over the tiled dims, is where flat's element goes.
    for flat in range(24):
        index = _lego.algebra_eval(json.dumps(tiled), "inv", [flat])
        assert out[np.ravel_multi_index(index, (2, 2, 2, 3))] == 2.0 * flat
    assert sorted(out) == sorted(2.0 * x)


def test_targets_registry():
    assert set(_CPU_TARGETS) >= {"x86", "arm-neon", "cpu", "scalar"}
    assert _CPU_TARGETS["x86"].pipeline_string() == "builtin.module(lego-to-x86-vector{cpu=skx})"
    assert CPUTarget("t", "lego-to-llvm").pipeline_string() == "builtin.module(lego-to-llvm)"


def test_errors():
    x = np.zeros(N, dtype=np.float32)
    with pytest.raises(TypeError, match="float64"):
        saxpy.compile()(1.0, x, np.zeros(N))
    with pytest.raises(ValueError, match="1000 elements"):
        saxpy.compile()(1.0, x, np.zeros(1000, dtype=np.float32))
    with pytest.raises(TypeError, match="takes 1 scalar"):
        saxpy.compile()(x, x)

    @cpu_kernel
    def bad(x: Buffer[4]):
        while True:
            pass

    with pytest.raises(SyntaxError, match="test_cpu_dsl.py:.*While"):
        bad.build_module()


M_ODD = 37


@cpu_kernel
def scale64(a: float, x: Buffer[M_ODD, "f64"], y: Buffer[M_ODD, "f64"]):
    for i in range(M_ODD):
        y[i] = a * x[i]


@pytest.mark.parametrize("target", ["scalar", "x86"])
def test_f32_times_f64_is_an_f64_product(target):
    # The left operand's type used to win: `a * x[i]` truncated the f64 x[i] to f32 (1 + 2^-40 became 1).
    x = np.full(M_ODD, 1.0 + 2.0 ** -40)
    y = np.zeros(M_ODD)
    scale64.compile(target=target)(1.0, x, y)
    np.testing.assert_array_equal(y, x)


@cpu_kernel
def relu_gather(idx: Buffer[M_ODD, "i32"], x: Buffer[M_ODD], y: Buffer[M_ODD]):
    for i in range(M_ODD):
        v = x[idx[i]]
        y[i] = v if v > 0.0 else 0.5 * v


@pytest.mark.parametrize("target", ["scalar", "x86"])
def test_comparisons_selects_and_integer_subscripts(target):
    idx = rng.permutation(M_ODD).astype(np.int32)
    x = rng.integers(-8, 8, M_ODD).astype(np.float32)
    y = np.zeros(M_ODD, np.float32)
    relu_gather.compile(target=target)(idx, x, y)
    v = x[idx]
    np.testing.assert_array_equal(y, np.where(v > 0, v, 0.5 * v))


def test_a_product_and_its_sum_in_one_expression_may_fuse():
    @cpu_kernel
    def fused(a: float, x: Buffer[M_ODD], y: Buffer[M_ODD]):
        for i in range(M_ODD):
            y[i] = a * x[i] + y[i]

    @cpu_kernel
    def split(a: float, x: Buffer[M_ODD], y: Buffer[M_ODD]):
        for i in range(M_ODD):
            t = a * x[i]
            y[i] = t + y[i]

    # C's default contraction (clang -ffp-contract=on): within one expression only.
    assert "arith.addf" in fused.mlir_text and "arith.addf" in split.mlir_text
    assert [l for l in fused.mlir_text.splitlines() if "arith.addf" in l][0].endswith("fastmath<contract> : f32")
    assert "contract" not in [l for l in split.mlir_text.splitlines() if "arith.addf" in l][0]


@cpu_kernel
def compact(t: float, x: Buffer[M_ODD], out: Buffer[M_ODD], count: Buffer[1, "i32"]):
    k = 0
    for i in range(M_ODD):
        if x[i] > t:
            out[k] = x[i]
            k = k + 1
    count[0] = k


@cpu_kernel
def clamp_in_place(x: Buffer[M_ODD]):
    for i in range(M_ODD):
        if x[i] > 2.0:
            x[i] = 2.0
        else:
            x[i] = x[i] * 0.5


@pytest.mark.parametrize("target", ["scalar", "x86"])
def test_if_statements_carry_reassigned_names(target):
    x = rng.integers(-8, 8, M_ODD).astype(np.float32)
    out = np.full(M_ODD, -99.0, np.float32)
    count = np.zeros(1, np.int32)
    compact.compile(target=target)(0.5, x, out, count)
    kept = x[x > 0.5]
    assert count[0] == kept.size
    np.testing.assert_array_equal(out[:kept.size], kept)
    assert (out[kept.size:] == -99.0).all()
    y = x.copy()
    clamp_in_place.compile(target=target)(y)
    np.testing.assert_array_equal(y, np.where(x > 2, 2.0, x * 0.5).astype(np.float32))


def test_compaction_reaches_the_compress_store():
    assert "vector.compressstore" in compact.compile(target="x86").lowered or \
        "llvm.intr.masked.compressstore" in compact.compile(target="x86").lowered
