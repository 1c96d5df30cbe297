"""The puzzles' run helper (the published ``bench_utils`` interface; docs/gpu-dsl.md, "Puzzles").

``run_benchmark(builder, compute_expected_fn, targets, label=None, atol=0, rtol=0, init_mod=10000)`` compiles
the kernel for every listed target, then (unless ``LEGO_COMPILE_ONLY`` is set) fills the inputs with the
deterministic pattern ``(i·37 + 17) mod init_mod``, computes the expected output with NumPy and checks the
kernel's output on whatever can run it here: CuPy on an NVIDIA GPU (``cuda``), else the CPU emulation
(``lego-to-llvm``) for kernels without barriers or warp operations. A failed check exits with status 1."""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from lego.backend.gpu_dsl import NotEmulable, TargetFeatureError

__all__ = ["run_benchmark", "compile_only", "detect_nvvm_target", "init_data", "run_cuda_verify",
           "run_cpu_verify", "compare_output", "compile_targets", "T8", "T7", "T5"]

T8 = ["cuda", "rocm", "llvmspirv", "intel", "vulkan", "webgpu", "webgl", "metal"]
T7 = [t for t in T8 if t != "intel"]
T5 = ["cuda", "llvmspirv", "vulkan", "webgpu", "metal"]

_MAX_LLVM_SM = 90


def compile_only() -> bool:
    return os.environ.get("LEGO_COMPILE_ONLY", "").strip() not in ("", "0")


def detect_nvvm_target() -> Dict[str, str]:
    """chip/features for lego-to-nvvm from ``nvidia-smi`` (SM capped at 90), fallback sm_80 / +ptx78."""
    import subprocess
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10).stdout.strip().splitlines()[0]
        sm = min(int(out.replace(".", "")), _MAX_LLVM_SM)
    except Exception:  # noqa: BLE001 (no NVIDIA tools here)
        return {"chip": "sm_80", "features": "+ptx78"}
    features = "+ptx80" if sm >= 90 else "+ptx78" if sm >= 80 else "+ptx70"
    return {"chip": f"sm_{sm}", "features": features}


def init_data(numel: int, init_mod: int) -> np.ndarray:
    i = np.arange(numel, dtype=np.int64)
    return ((i * 37 + 17) % init_mod).astype(np.float32)


def _inputs(builder: Any, init_mod: int) -> List[np.ndarray]:
    bufs = builder._global_bufs
    arrays = []
    for buf in bufs[:-1]:
        data = init_data(buf.numel, init_mod)
        arrays.append(data.astype(np.float16) if buf.element_type == "f16" else data)
    out = bufs[-1]
    arrays.append(np.zeros(out.numel, dtype=np.float16 if out.element_type == "f16" else np.float32))
    return arrays


def compare_output(out: np.ndarray, expected: np.ndarray, atol: float, rtol: float) -> tuple:
    out = np.asarray(out, dtype=np.float64).ravel()
    expected = np.asarray(expected, dtype=np.float64).ravel()
    if out.shape != expected.shape:
        return False, float("inf")
    err = float(np.max(np.abs(out - expected))) if out.size else 0.0
    if atol == 0 and rtol == 0:
        return bool(np.array_equal(out, expected)), err
    return bool(np.allclose(out, expected, atol=atol, rtol=rtol)), err


def compile_targets(builder: Any, targets: Sequence[str], output_dir: Optional[str] = None) -> Dict[str, Any]:
    """``{target: CompileResult or the exception}``; prints the published per-target lines on stderr."""
    results: Dict[str, Any] = {}
    for t in targets:
        kw: Dict[str, Any] = {"name": f"{builder._name}_{t}"}
        if output_dir:
            kw["output_dir"] = output_dir
        if t == "cuda":
            kw.update(detect_nvvm_target(), format="assembly")
        try:
            result = builder.compile(target=t, **kw)
            results[t] = result
            print(f"\n--- {t}: {result.kernel_path} ---", file=sys.stderr)
        except TargetFeatureError as error:
            # refused by design before compiling (docs/gpu-dsl.md, "Targets and features"): not a failure
            results[t] = error
            print(f"\n--- {t}: UNSUPPORTED ({error}) ---", file=sys.stderr)
        except (RuntimeError, ValueError) as error:
            results[t] = error
            print(f"\n--- {t}: FAILED ({error}) ---", file=sys.stderr)
    return results


def run_cuda_verify(builder: Any, expected: np.ndarray, label: Optional[str] = None, atol: float = 0,
                    rtol: float = 0, init_mod: int = 10000) -> Optional[bool]:
    """The PTX of ``builder`` launched with CuPy; ``None`` (skipped) without CuPy or a GPU."""
    try:
        import cupy  # noqa: F401
        if cupy.cuda.runtime.getDeviceCount() == 0:
            raise RuntimeError("no device")
    except Exception:  # noqa: BLE001
        print("  CUDA execution: SKIP (no CuPy / NVIDIA GPU)")
        return None
    from lego.jit.builders import kernel_assembly
    import cupy
    try:
        result = builder.compile(target="cuda", format="assembly", **detect_nvvm_target())
        ptx = kernel_assembly(result.kernel_source)[0]
        module = _raw_module(ptx)
        fn = module.get_function(f"{builder._name}_kernel")
        arrays = [cupy.asarray(a) for a in _inputs(builder, init_mod)]
        fn(builder._grid, builder._block, tuple(arrays))
        out = cupy.asnumpy(arrays[-1])
    except Exception as error:  # noqa: BLE001
        print(f"  CUDA execution: FAIL ({error})")
        return False
    ok, err = compare_output(out, expected, atol, rtol)
    print(f"  CUDA execution ({label or builder._name}): {'PASS' if ok else 'FAIL'} — {out.size} elements, max error={err}")
    return ok


def _raw_module(ptx: str) -> Any:
    import cupy
    import tempfile
    path = os.path.join(tempfile.mkdtemp(prefix="lego_ptx_"), "kernel.ptx")
    with open(path, "w") as handle:
        handle.write(ptx)
    return cupy.RawModule(path=path)


def run_cpu_verify(builder: Any, expected: np.ndarray, label: Optional[str] = None, atol: float = 0,
                   rtol: float = 0, init_mod: int = 10000) -> Optional[bool]:
    """The kernel run by the CPU emulation (``lego-to-llvm``); ``None`` when it uses barriers or warp ops."""
    arrays = _inputs(builder, init_mod)
    try:
        builder.run_cpu(*arrays)
    except NotEmulable as why:
        print(f"  CPU emulation: SKIP ({why})")
        return None
    ok, err = compare_output(arrays[-1], expected, atol, rtol)
    print(f"  CPU emulation ({label or builder._name}): {'PASS' if ok else 'FAIL'} — {arrays[-1].size} elements, max error={err}")
    return ok


def run_benchmark(builder: Any, compute_expected_fn: Callable[[List[np.ndarray]], np.ndarray],
                  targets: Sequence[str], label: Optional[str] = None, atol: float = 0, rtol: float = 0,
                  init_mod: int = 10000) -> Dict[str, Any]:
    print(builder.mlir_text())
    results = compile_targets(builder, targets)
    failed = [t for t, r in results.items() if isinstance(r, Exception) and not isinstance(r, TargetFeatureError)]
    if compile_only():
        if failed:
            print(f"\nFATAL: compilation failed on: {', '.join(failed)}", file=sys.stderr)
            sys.exit(1)
        print("\nCompile-only mode: all targets compiled successfully.")
        return results
    inputs = _inputs(builder, init_mod)
    expected = np.asarray(compute_expected_fn([a.astype(np.float32) for a in inputs[:-1]]), dtype=np.float64).ravel()
    print("\nVerification:")
    failures = []
    if "cuda" in targets and run_cuda_verify(builder, expected, label, atol, rtol, init_mod) is False:
        failures.append("cuda")
    if run_cpu_verify(builder, expected, label, atol, rtol, init_mod) is False:
        failures.append("cpu")
    if failures:
        print(f"\nFATAL: verification failed on: {', '.join(failures)}", file=sys.stderr)
        sys.exit(1)
    return results


def main_args(argv: Sequence[str], names: Sequence[str], defaults: Sequence[int], file: str) -> List[int]:
    """The puzzle's size arguments: none (the catalogue's RUN sizes) or exactly ``names``."""
    args = list(argv[1:])
    if not args:
        return list(defaults)
    if len(args) != len(names):
        print(f"Usage: python {os.path.basename(file)} {' '.join(n.upper() for n in names)}")
        sys.exit(1)
    return [int(a) for a in args]


def main(module_globals: Dict[str, Any]) -> None:
    """A puzzle's ``__main__``: its ``build(*sizes)`` cases, each through ``run_benchmark``."""
    sizes = main_args(sys.argv, module_globals["ARG_NAMES"], module_globals["ARGS"], module_globals["__file__"])
    cases = module_globals["build"](*sizes)
    for k, case in enumerate(cases, 1):
        if len(cases) > 1:
            print(f"Sub-test {k}: {case['label']}", file=sys.stderr)
        run_benchmark(case["kernel"], case["expected"], module_globals["TARGETS"], case["label"],
                      case.get("atol", 0), case.get("rtol", 0), case.get("init_mod", 10000))
