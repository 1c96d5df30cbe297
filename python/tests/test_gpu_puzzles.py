"""Compile-only suite of the GPU puzzles (python/examples/puzzles; docs/gpu-dsl.md, "Puzzles").

Every puzzle's every kernel is compiled for every target the puzzle lists, and each artifact is checked by a
tool that is not ours: PTX (``format=assembly``) must hold the kernel's ``.entry``, AMDGCN its
``.amdgcn_target``/kernel symbol, XeVM a ``gpu.binary``, llvmspirv ``spir_kernelcc`` functions, the Vulkan
SPIR-V must pass ``spirv-val``, naga re-validates the WGSL it wrote, ``glslangValidator`` the GLSL ES compute
shader (naga reads desktop GLSL only) and, as naga has no MSL reader, naga validates the SPIR-V it converted to
MSL. A target that lacks a feature the kernel uses must be
refused with ``TargetFeatureError`` naming both (and only then). Kernels the CPU emulation can run
(``lego-to-llvm``: no warp or tensor-core operations, barriers at the top level) run against NumPy; the
expected values come from each puzzle's NumPy reference, never from our own output."""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

PUZZLES = Path(__file__).resolve().parents[1] / "examples" / "puzzles"
sys.path.insert(0, str(PUZZLES))

from lego.backend.gpu_dsl import (Buffer, F_ASYNC_COPY, F_CLUSTER, F_MBARRIER, TARGET_FEATURES, NotEmulable,  # noqa: E402
                                  TargetFeatureError)
from lego.jit.builders import kernel_assembly  # noqa: E402

import bench_utils  # noqa: E402

FILES = sorted(p.stem for p in PUZZLES.glob("puzzle_*.py"))


def _cases(stem):
    module = importlib.import_module(stem)
    return module, module.build(*module.ARGS)


def _tool(name):
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed (make setup installs it)")
    return path


def _check_artifact(target, result, kernel_name, ptx_contains=()):
    if target == "cuda":
        ptx = kernel_assembly(result.kernel_source)
        assert ptx and re.search(r"\.entry\s+" + re.escape(kernel_name) + r"_kernel\b", ptx[0]), "no PTX entry"
        assert ".target sm_" in ptx[0]
        # the topic kernels (async copies, mbarriers, clusters): the real instructions are in the PTX
        missing = [text for text in ptx_contains if text not in ptx[0]]
        assert not missing, f"{kernel_name}: the PTX lacks {missing}"
    elif target == "rocm":
        text = "\n".join(kernel_assembly(result.kernel_source))
        assert "amdgcn-amd-amdhsa" in text and f"{kernel_name}_kernel:" in text
    elif target == "intel":
        assert "gpu.binary" in result.kernel_source and "#xevm.target" in result.kernel_source
    elif target == "llvmspirv":
        assert "spir_kernelcc" in result.kernel_source and f"{kernel_name}_kernel" in result.kernel_source
    elif target == "vulkan":
        run = subprocess.run([_tool("spirv-val"), "--target-env", "vulkan1.2", result.kernel_path],
                             capture_output=True, text=True)
        assert run.returncode == 0, f"spirv-val: {run.stdout}{run.stderr}"
    elif target == "webgpu":
        run = subprocess.run([_tool("naga"), result.kernel_path], capture_output=True, text=True)
        assert run.returncode == 0, f"naga rejects its own WGSL: {run.stderr}"
    elif target == "webgl":
        # naga's GLSL reader takes desktop GLSL 440/450 only, not the GLSL ES 3.10 it writes: Khronos'
        # reference compiler checks the compute shader instead.
        assert result.kernel_source.startswith("#version 310 es")
        run = subprocess.run([_tool("glslangValidator"), "-S", "comp", result.kernel_path], capture_output=True, text=True)
        assert run.returncode == 0, f"glslangValidator: {run.stdout}{run.stderr}"
    elif target == "metal":
        assert "kernel void" in result.kernel_source
        run = subprocess.run([_tool("naga"), result.spv_path], capture_output=True, text=True)
        assert run.returncode == 0, f"naga: {run.stderr}"
    else:
        pytest.fail(f"unknown target {target}")


def _ptx_accesses(ptx, entry):
    """The parameters of PTX entry ``entry`` and, for each ``ld.global`` / ``st.global`` in program order,
    ``(kind, parameters its address comes from)``: every register is followed back through the instructions
    that define it (``cvta``, ``add``, ``mul.wide``, …) to the ``ld.param`` it was loaded by."""
    body = ptx[ptx.index(f".entry {entry}("):]
    params = [int(k) for k in re.findall(rf"\b{entry}_param_(\d+)\b", body[:body.index(")")])]
    origin, accesses = {}, []
    for line in body[body.index("{"):].splitlines():
        line = line.strip()
        loaded = re.match(rf"ld\.param\.\w+\s+(%\w+),\s*\[{entry}_param_(\d+)\]", line)
        if loaded:
            origin[loaded[1]] = {int(loaded[2])}
            continue
        access = re.match(r"(st|ld)\.global\.[\w.]+\s+(.*);", line)
        if access:
            address = re.search(r"\[(%\w+)(?:\+-?\d+)?\]", access[2])[1]
            accesses.append((access[1], origin.get(address, set())))
            continue
        defined = re.match(r"[a-z][\w.]*\s+(%\w+),\s*(.*);", line)
        if defined:
            origin[defined[1]] = set().union(set(), *(origin.get(r, set()) for r in re.findall(r"%\w+", defined[2])))
    return params, accesses


def _ptx_of(kernel, tmp_path):
    result = kernel.compile(target="cuda", name=kernel._name, output_dir=str(tmp_path), chip="sm_90",
                            features="+ptx80", format="assembly")
    return kernel_assembly(result.kernel_source)[0]


def test_ptx_entry_takes_buffers_in_signature_order(tmp_path):
    """Callers (bench_utils, run_h100.py, a CuPy launch) pass a kernel's buffers in signature order. Upstream
    outlining orders a kernel's parameters by the body's first use, so a kernel that writes its output first
    once read its input from the output's slot (puzzle 33's mma_staged, wrong on the H100);
    lego-kernel-parameters-in-argument-order puts them in signature order, unused buffers included."""
    from lego.backend.gpu_dsl import gpu_kernel

    @gpu_kernel(grid=(1,), block=(8,))
    def backwards(A: Buffer[8], Out: Buffer[8]):
        Out[thread_id.x] = 0.0
        Out[thread_id.x] = A[thread_id.x]

    params, accesses = _ptx_accesses(_ptx_of(backwards, tmp_path), "backwards_kernel")
    assert params == [0, 1]
    assert accesses == [("st", {1}), ("ld", {0}), ("st", {1})], accesses

    @gpu_kernel(grid=(1,), block=(8,))
    def skips(A: Buffer[8], Unused: Buffer[8], Out: Buffer[8]):
        Out[thread_id.x] = A[thread_id.x]

    params, accesses = _ptx_accesses(_ptx_of(skips, tmp_path), "skips_kernel")
    assert params == [0, 1, 2]
    assert accesses == [("ld", {0}), ("st", {2})], accesses


def test_ptx_accesses_follow_registers_to_their_parameter():
    """The reader above can fail: upstream's order (the output first) gives the other answer."""
    ptx = """.visible .entry k(
        .param .u64 .ptr .align 1 k_param_0,
        .param .u64 .ptr .align 1 k_param_1
    )
    {
        ld.param.b64 %rd1, [k_param_0];
        ld.param.b64 %rd2, [k_param_1];
        cvta.to.global.u64 %rd3, %rd1;
        cvta.to.global.u64 %rd4, %rd2;
        mov.u32 %r1, %tid.x;
        mul.wide.u32 %rd5, %r1, 4;
        add.s64 %rd6, %rd3, %rd5;
        st.global.b32 [%rd6], 0;
        add.s64 %rd7, %rd4, %rd5;
        ld.global.b32 %r2, [%rd7+4];
        st.global.b32 [%rd6], %r2;
        ret;
    }"""
    assert _ptx_accesses(ptx, "k") == ([0, 1], [("st", {0}), ("ld", {1}), ("st", {0})])


@pytest.mark.parametrize("stem", FILES)
def test_puzzle_compiles_for_its_targets(stem, tmp_path):
    module, cases = _cases(stem)
    assert module.TARGETS and set(module.TARGETS) <= set(TARGET_FEATURES)
    for case in cases:
        kernel = case["kernel"]
        used = set(kernel.features())
        for target in module.TARGETS:
            lacking = used & set(TARGET_FEATURES[target])
            kw = dict(name=f"{kernel._name}_{target}", output_dir=str(tmp_path / target))
            if target == "cuda":
                kw.update(chip="sm_90", features="+ptx80", format="assembly")
            if lacking:
                with pytest.raises(TargetFeatureError) as info:
                    kernel.compile(target=target, **kw)
                assert target in str(info.value) and info.value.feature in lacking
                continue
            result = kernel.compile(target=target, **kw)
            _check_artifact(target, result, kernel._name, case.get("ptx_contains", ()))
            if target == "cuda" and F_CLUSTER not in used:
                # one PTX parameter per buffer, at the buffer's position (test_ptx_entry_takes_buffers_…)
                params, _ = _ptx_accesses(kernel_assembly(result.kernel_source)[0], f"{kernel._name}_kernel")
                assert params == list(range(len(kernel._global_bufs))), (case["label"], params)


@pytest.mark.parametrize("stem", FILES)
def test_puzzle_runs_on_the_cpu_against_numpy(stem):
    module, cases = _cases(stem)
    ran = 0
    for case in cases:
        kernel = case["kernel"]
        arrays = bench_utils._inputs(kernel, case.get("init_mod", 10000))
        expected = np.asarray(case["expected"]([a.astype(np.float32) for a in arrays[:-1]]), np.float64).ravel()
        try:
            kernel.run_cpu(*arrays)
        except NotEmulable:
            assert set(kernel.features()) & {"warp/subgroup operations", "tensor-core MMA (TensorCore)",
                                             "workgroup all-reduce (all_reduce_*)", "barrier()", F_ASYNC_COPY,
                                             F_MBARRIER, F_CLUSTER}
            continue
        ok, err = bench_utils.compare_output(arrays[-1], expected, case.get("atol", 0), case.get("rtol", 0))
        assert ok, f"{case['label']}: max error {err}"
        for index, fn in case.get("extra_checks", {}).items():  # outputs other than the last buffer
            extra = np.asarray(fn([a.astype(np.float32) for a in arrays[:-1]]), np.float64).ravel()
            ok, err = bench_utils.compare_output(arrays[index], extra, case.get("atol", 0), case.get("rtol", 0))
            assert ok, f"{case['label']}: buffer {index}: max error {err}"
        ran += 1
    if ran == 0:
        pytest.skip(f"{stem}: no kernel the CPU emulation can run (GPU-only operations)")


@pytest.mark.parametrize("stem, builder, label", [("puzzle_15_axis_sum", "build", "axis_sum warp"),
                                                   ("puzzle_18_softmax", "build", "softmax warp"),
                                                   ("puzzle_14_prefix_sum", "build_rows", "prefix_sum rows")])
def test_warp_per_row_kernels_on_the_cpu_at_64_columns(stem, builder, label):
    # The catalogue's softmax rows (16) are narrower than a warp and its prefix sum is one block, so these
    # warp-per-row kernels are built at the benchmark's sizes; here at 8 rows of 64 (two steps of 32 lanes,
    # so the scan's carry between steps is exercised) against NumPy.
    module = importlib.import_module(stem)
    case = next(c for c in getattr(module, builder)(8, 64) if c["label"] == label)
    kernel = case["kernel"]
    arrays = bench_utils._inputs(kernel, case.get("init_mod", 10000))
    expected = np.asarray(case["expected"]([a.astype(np.float32) for a in arrays[:-1]]), np.float64).ravel()
    kernel.run_cpu(*arrays)
    ok, err = bench_utils.compare_output(arrays[-1], expected, case.get("atol", 0), case.get("rtol", 0))
    assert ok, f"{label}: max error {err}"


def test_h100_script_generates_ptx_for_every_cuda_kernel(capsys):
    # bench/gpu_puzzles/run_h100.py --dry-run: the catalogue kernels and the benchmark-size kernels it would
    # launch on the device all compile to PTX here, so a puzzle edit cannot break the device run unnoticed.
    import importlib.util
    script = Path(__file__).resolve().parents[2] / "bench" / "gpu_puzzles" / "run_h100.py"
    spec = importlib.util.spec_from_file_location("run_h100", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--puzzles", str(PUZZLES), "--dry-run"]) == 0
    out = capsys.readouterr().out
    cuda_kernels = sum(len(m.build(*m.ARGS)) for m in (importlib.import_module(s) for s in FILES) if "cuda" in m.TARGETS)
    assert f"{cuda_kernels} kernels, 0 not passing" in out
    # + the attention chain + the timed matmuls + the sm_90 topic kernels (one row per sync/topic pair)
    assert out.count("PTX ok") == cuda_kernels + len(module.MEMORY_BOUND) + 1 + len(module.MATMULS) + len(module.TOPIC_KERNELS)
    assert "topic kernels" in out and "ERROR" not in out
