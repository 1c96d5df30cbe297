"""The CPU dashboard (docs/cpu-dashboard.md): every kernel of kernels.py built three ways — ours (`@cpu_kernel`,
target x86 = lego-to-x86-vector and our LLVM codegen at -O3 for the host CPU), `clang-22 -O3 -march=native` and
`gcc -O3 -march=native` — checked equal to NumPy on the same inputs, then timed interleaved (one batch of each
build per round, best of the rounds), and printed as a markdown table with the geometric mean of
ours / faster C.

    .venv/bin/python bench/cpu/dashboard.py [--rounds 15] [--batch-ms 4] [--only NAME,NAME] [--scale 1]

Exit status 1 if any build of any kernel disagrees with NumPy (a wrong result outranks every timing).
Each build is one shared object: the kernel's object (ours: the LLVM IR of `compile(target="x86")` built exactly as
`compile` builds it, `build_object(ir, **kernel.build_options)`: LLVM's -O3 middle end without its vectorizers,
codegen -O3 for the host; C: `-c -fPIC`) linked with the same C timing loop, so a batch of calls
costs one ctypes call and every kernel call is a plain C call on every side. The NumPy check runs that same
shared object.
"""

from __future__ import annotations

import argparse
import ctypes
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernels import Kernel, kernels  # noqa: E402

from lego.backend.cpu_builder import build_object  # noqa: E402

C_COMPILERS = {"clang": ["clang-22", "-O3", "-march=native"], "gcc": ["gcc", "-O3", "-march=native"]}
# The timing loop around each build's kernel, the same compiler and flags for all three.
HARNESS_CC = ["gcc", "-O2", "-fPIC"]


def _signature(args: List[Any]) -> List[Tuple[str, str]]:
    """(C type, name) of each argument: scalars are f32 (the DSL's `float`), arrays are pointers."""
    return [("void *", f"p{k}") if isinstance(a, np.ndarray) else ("float", f"s{k}") for k, a in enumerate(args)]


def harness_source(symbol: str, args: List[Any], ours: bool) -> str:
    """`run(reps, args…)`: calls the kernel `reps` times from C. The kernel lives in another object and nothing
    is link-time optimized, so every call is a real call on every side; Python's ctypes cost is paid once per
    batch instead of once per call (ours takes five descriptor words per buffer, C one pointer)."""
    sig = _signature(args)
    params = []
    call = []
    for (ty, name), value in zip(sig, args):
        if ty == "float":
            params.append("float")
            call.append(name)
        elif ours:
            # The memref descriptor: allocated pointer, aligned pointer, offset, size, stride.
            params += ["void *", "void *", "int64_t", "int64_t", "int64_t"]
            call += [name, name, "0", str(value.size), "1"]
        else:
            params.append("void *")
            call.append(name)
    return ("#include <stdint.h>\n"
            f"void {symbol}({', '.join(params)});\n"
            f"void run(long reps, {', '.join(f'{t} {n}' for t, n in sig)}) {{\n"
            f"  for (long r = 0; r < reps; r++) {symbol}({', '.join(call)});\n}}\n")


def build(kernel: Kernel, label: str, args: List[Any], work: str) -> Any:
    """The shared object of one build: its kernel object and the harness, linked; returns `run`."""
    base = os.path.join(work, f"{kernel.name}_{label}")
    obj = base + ".o"
    symbol = kernel.name
    if label == "lego":
        compiled = kernel.lego.compile(target="x86")
        with open(obj, "wb") as handle:
            handle.write(build_object(compiled.llvm_ir, **compiled.build_options))
        symbol = compiled.name
    else:
        with open(base + ".c", "w") as handle:
            handle.write(kernel.c_source)
        _run(C_COMPILERS[label] + ["-fPIC", "-c", base + ".c", "-o", obj])
    with open(base + "_run.c", "w") as handle:
        handle.write(harness_source(symbol, args, label == "lego"))
    _run(HARNESS_CC + ["-c", base + "_run.c", "-o", base + "_run.o"])
    # -Bsymbolic: the harness calls this object's kernel even if another loaded library defines the same name.
    _run(HARNESS_CC + ["-shared", "-Wl,-Bsymbolic", base + "_run.o", obj, "-o", base + ".so", "-lm"])
    run = ctypes.CDLL(base + ".so").run
    run.restype = None
    return run


def _run(command: List[str]) -> None:
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {result.stderr}")


def caller(run: Any, args: List[Any]) -> Callable[[int], None]:
    values = [ctypes.c_void_p(a.ctypes.data) if isinstance(a, np.ndarray) else ctypes.c_float(a) for a in args]
    return lambda reps: run(ctypes.c_long(reps), *values)


def aligned_copy(array: np.ndarray) -> np.ndarray:
    """A copy starting on a 64-byte boundary: NumPy's own allocations are only 16-byte aligned, which moved
    the timings of kernels with many unaligned vector accesses from run to run."""
    raw = np.empty(array.nbytes + 64, np.uint8)
    offset = (-raw.ctypes.data) % 64
    out = raw[offset:offset + array.nbytes].view(array.dtype).reshape(array.shape)
    out[...] = array
    return out


def _copies(args: List[Any]) -> List[Any]:
    return [aligned_copy(a) if isinstance(a, np.ndarray) else a for a in args]


def check(kernel: Kernel, runs: Dict[str, Any], inputs: List[Any]) -> List[str]:
    """Runs every build once on copies of the same inputs; the mismatches with NumPy, as text (empty: none)."""
    expected = kernel.reference(_copies(inputs))
    problems = []
    for label, run in runs.items():
        args = _copies(inputs)
        caller(run, args)(1)
        for position, want in zip(kernel.outputs, expected):
            got = args[position]
            want = want.astype(got.dtype)
            if not np.array_equal(got, want):
                bad = np.flatnonzero(got != want)
                problems.append(f"{kernel.name}: {label} differs from NumPy at {bad.size} of {got.size} elements "
                                f"(first [{bad[0]}]: {got.flat[bad[0]]} != {want.flat[bad[0]]})")
    return problems


def best_times(calls: Dict[str, Callable[[int], None]], rounds: int, batch_ms: float) -> Dict[str, float]:
    """ms per call, best over `rounds` rounds; each round times one batch of every build in turn, so a burst of
    load from the machine's other users falls on all builds alike."""
    reps = {}
    for label, call in calls.items():
        call(1)
        start = time.perf_counter()
        call(3)
        once = max((time.perf_counter() - start) / 3, 1e-8)
        reps[label] = max(1, int(batch_ms / 1000 / once))
    best = {label: math.inf for label in calls}
    for _ in range(rounds):
        for label, call in calls.items():
            start = time.perf_counter()
            call(reps[label])
            best[label] = min(best[label], (time.perf_counter() - start) / reps[label] * 1000)
    return best


def machine() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        model = next(line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Model name"))
    except (OSError, StopIteration):
        model = platform.processor()
    flags = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""
    isa = "AVX-512" if " avx512f" in flags else "AVX2" if " avx2" in flags else "no AVX2"
    return f"{model} ({isa}), {os.cpu_count()} logical CPUs"


def versions() -> str:
    out = []
    for label, command in C_COMPILERS.items():
        text = subprocess.run([command[0], "--version"], capture_output=True, text=True).stdout.splitlines()
        out.append(text[0] if text else command[0])
    return "; ".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--batch-ms", type=float, default=4.0)
    parser.add_argument("--only", default="")
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--seed", type=int, default=2026)
    options = parser.parse_args()
    for command in C_COMPILERS.values():
        if shutil.which(command[0]) is None:
            print(f"dashboard: {command[0]} not found", file=sys.stderr)
            return 2
    selected = kernels(options.scale)
    if options.only:
        names = set(options.only.split(","))
        selected = [k for k in selected if k.name in names]
    work = tempfile.mkdtemp(prefix="lego_cpu_dashboard_")
    rows, problems, ratios, fair = [], [], [], []
    try:
        for kernel in selected:
            inputs = kernel.make_args(np.random.default_rng(options.seed))
            runs = {label: build(kernel, label, inputs, work) for label in ("lego", "clang", "gcc")}
            found = check(kernel, runs, inputs)
            problems += found
            # Timed on their own copies of the same inputs (kernels that update in place keep doing so).
            args = _copies(inputs)
            times = best_times({label: caller(run, args) for label, run in runs.items()}, options.rounds,
                               options.batch_ms)
            ratio = min(times["clang"], times["gcc"]) / times["lego"]
            ratios.append(ratio)
            if not kernel.reassociates:
                fair.append(ratio)
            mark = " ✗" if found else ""
            note = kernel.note + (" †" if kernel.reassociates else "")
            rows.append(f"| {kernel.name}{mark} | {kernel.size} | {times['lego']:.4f} | {times['clang']:.4f} | "
                        f"{times['gcc']:.4f} | {ratio:.2f}× | {note} |")
            print(rows[-1], file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def geomean(values: List[float]) -> float:
        return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")

    print(f"Machine: {machine()}; {versions()}; {options.rounds} rounds, ~{options.batch_ms:g} ms batches, "
          f"best per build.\n")
    print("| kernel | size | lego ms | clang ms | gcc ms | lego vs faster C | note |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"\nGeometric mean, lego vs faster C: {geomean(ratios):.2f}× over {len(ratios)} kernels; "
          f"{geomean(fair):.2f}× over the {len(fair)} without a float reduction (†: ours reassociates it, "
          f"C at -O3 without -ffast-math may not).")
    below = [r.split("|")[1].strip() for r, v in zip(rows, ratios) if v < 0.95]
    print(f"Below 0.95×: {', '.join(below) if below else 'none'}. Wrong results: {len(problems)}.")
    for problem in problems:
        print(f"- WRONG: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
