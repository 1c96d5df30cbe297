"""The vector CPU targets of @cpu_kernel / CPUKernelBuilder (x86 = lego-to-x86-vector, arm-neon, arm-sve, cpu)
and lego.testing. Results are checked against NumPy; the x86 kernels run here, the aarch64 ones are compiled
and their objects checked (they run under qemu in test/vectorize/differential.test)."""

import platform

import numpy as np
import pytest

import lego
from lego.backend.cpu_builder import AArch64Object, CPUKernelBuilder, _CPU_TARGETS, cpu_pipeline
from lego.backend.cpu_dsl import Buffer, cpu_kernel
from lego.jit.builders import LayoutBuffer
from lego.testing import BenchmarkedKernel, benchmark, do_bench

# Odd sizes: a vector part and a scalar remainder of every length.
N = 1001
M, K = 7, 13
rng = np.random.default_rng(11)


@cpu_kernel
def saxpy(a: float, x: Buffer[N], y: Buffer[N]):
    for i in range(N):
        y[i] = a * x[i] + y[i]


@cpu_kernel
def row_sums(a: Buffer[M, K], out: Buffer[M]):
    for i in range(M):
        s = 0.0
        for j in range(K):
            s = s + a[i, j]
        out[i] = s


@cpu_kernel
def transpose(a: Buffer[M, K], b: Buffer[K, M]):
    for i in range(M):
        for j in range(K):
            b[j, i] = a[i, j]


def test_x86_saxpy_is_vectorized_and_right():
    x, y = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
    expected = np.float32(1.75) * x + y
    kernel = saxpy.compile(target="x86")
    kernel(1.75, x, y)
    np.testing.assert_allclose(y, expected, rtol=1e-6)
    # 16 lanes with AVX-512, 8 with AVX2 (the pipeline's isa=host).
    assert "<16 x float>" in kernel.llvm_ir or "<8 x float>" in kernel.llvm_ir
    # LLVM's middle end (without its vectorizers) runs on the vector targets, not on the scalar baseline.
    assert kernel.build_options["middle_end"] is True
    assert saxpy.compile(target="scalar").build_options["middle_end"] is False


@pytest.mark.parametrize("target", ["x86", "cpu", "scalar"])
def test_reduction_and_transpose_match_numpy(target):
    a = rng.integers(-50, 50, size=M * K).astype(np.float32)
    out = np.zeros(M, dtype=np.float32)
    row_sums.compile(target=target)(a, out)
    np.testing.assert_array_equal(out, a.reshape(M, K).sum(axis=1))
    b = np.zeros(M * K, dtype=np.float32)
    transpose.compile(target=target)(a, b)
    np.testing.assert_array_equal(b.reshape(K, M), a.reshape(M, K).T)


def test_guard_on_the_index_is_per_lane():
    # out[i] = 2·x[i] only where i < half: the published vectorizer compared lane 0 only (its defect D1).
    src, dst = LayoutBuffer(None, (N,), "f32"), LayoutBuffer(None, (N,), "f32")
    half = 37

    def body(ctx):
        def step(i):
            cond = ctx._op(f"arith.cmpi ult, {i}, {ctx.const_index(half)} : index")
            value = ctx.mulf(ctx.load_flat(src, i), ctx.const(2.0, "f32"))
            ctx.if_(cond, lambda: ctx.store_flat(value, dst, i))
        ctx.for_range(N, step)

    kernel = CPUKernelBuilder([src, dst], body, name="guarded").compile("x86")
    assert "vector" in kernel.lowered
    x = rng.random(N, dtype=np.float32)
    out = np.full(N, -1.0, dtype=np.float32)
    kernel(x, out)
    expected = np.where(np.arange(N) < half, 2 * x, -1.0).astype(np.float32)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("target,pipeline,cpu,scalable", [("arm-neon", "lego-to-arm-neon", "cortex-a76", False),
                                                          ("arm-sve", "lego-to-arm-sve", "neoverse-v1", True)])
def test_arm_targets_compile_for_aarch64(target, pipeline, cpu, scalable):
    assert cpu_pipeline(target) == f"builtin.module({pipeline}{{cpu={cpu}}})"
    if platform.machine().lower() in ("aarch64", "arm64"):
        pytest.fail("this test expects an x86-64 host (on aarch64 the arm targets run: extend the test)")
    built = saxpy.compile(target=target)
    assert isinstance(built, AArch64Object)
    # An ELF (64-bit, little-endian) relocatable object for machine 183 = EM_AARCH64.
    code = built.object_code
    assert code[:4] == b"\x7fELF" and code[4] == 2 and code[5] == 1
    assert int.from_bytes(code[16:18], "little") == 1 and int.from_bytes(code[18:20], "little") == 183
    if scalable:
        assert "<vscale x 4 x float>" in built.llvm_ir and "llvm.vscale" in built.llvm_ir
    else:
        assert "<4 x float>" in built.llvm_ir and "vscale" not in built.llvm_ir
    with pytest.raises(RuntimeError, match="compiled for aarch64"):
        built(1.0, np.zeros(N, np.float32), np.zeros(N, np.float32))


def test_target_table():
    assert _CPU_TARGETS["x86"].pipeline_string() == "builtin.module(lego-to-x86-vector{cpu=skx})"
    assert cpu_pipeline("x86", "znver3") == "builtin.module(lego-to-x86-vector{cpu=znver3})"
    # lego-to-llvm has no cpu option: none is appended (the published package did, its defect D10).
    assert cpu_pipeline("scalar", "znver3") == "builtin.module(lego-to-llvm)"
    if platform.machine() == "x86_64":
        assert _CPU_TARGETS["cpu"].pipeline == "lego-to-x86-vector"
    with pytest.raises(ValueError, match=r"Unknown CPU target 'avx9'. Available: \["):
        cpu_pipeline("avx9")


def _saxpy_reference(a, x, y):
    y[:] = np.float32(a) * x + y


def test_benchmark_verify_and_measure():
    checked = benchmark(_saxpy_reference, n_iters=5, warmup=1, meta={"class": "unit"})(saxpy)
    assert isinstance(checked, BenchmarkedKernel)
    x, y = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
    checked.verify(0.5, x, y)
    # verify works on copies: the caller's arrays are unchanged.
    y_before = y.copy()
    checked.verify(0.5, x, y)
    np.testing.assert_array_equal(y, y_before)
    result = checked.measure(0.5, x, y)
    assert set(result) >= {"name", "numpy_ms", "scalar_jit_ms", "vec_jit_ms", "speedup_isolated_jit",
                           "speedup_vs_numpy", "verdict", "notes", "class"}
    assert result["name"] == "saxpy" and result["class"] == "unit" and result["notes"] == ""
    assert result["vec_jit_ms"] > 0 and result["scalar_jit_ms"] > 0
    assert result["verdict"] in ("WIN", "PARITY", "LOSS")
    ratio = result["scalar_jit_ms"] / result["vec_jit_ms"]
    assert result["speedup_isolated_jit"] == pytest.approx(ratio)
    checked(0.5, x, y)
    np.testing.assert_allclose(y, np.float32(0.5) * x + y_before, rtol=1e-6)


def test_benchmark_reports_wrong_reference_and_failures():
    wrong = benchmark(lambda a, x, y: y.__setitem__(slice(None), 0.0))(saxpy)
    x, y = np.ones(N, np.float32), np.ones(N, np.float32)
    with pytest.raises(AssertionError, match=r"\[verify\] mismatch"):
        wrong.verify(2.0, x, y)

    def broken(a, x, y):
        raise ValueError("no reference today")

    with pytest.raises(AssertionError, match=r"\[verify\] reference failed: no reference today"):
        benchmark(broken)(saxpy).verify(2.0, x, y)
    result = benchmark(broken, n_iters=1, warmup=0)(saxpy).measure(2.0, x, y)
    assert result["verdict"] == "ERROR" and "no reference today" in result["notes"]


def test_do_bench():
    calls = []
    mean = do_bench(lambda v: calls.append(v), 3, n_iters=7, warmup=2)
    assert len(calls) == 9 and mean >= 0.0
