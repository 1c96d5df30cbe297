"""The CPU dashboard (docs/cpu-dashboard.md): every kernel of kernels.py built three ways — ours (`@cpu_kernel`,
target x86 = lego-to-x86-vector and our LLVM codegen at -O3 for the host CPU), `clang-22 -O3 -march=native` and
`gcc -O3 -march=native` — checked equal to NumPy on the same inputs, then timed interleaved (one batch of each
build per round, best of the rounds), and printed as a markdown table with the geometric mean of
ours / faster C.

    .venv/bin/python bench/cpu/dashboard.py [--rounds 15] [--batch-ms 4] [--only NAME,NAME] [--scale 1]

Exit status 1 if any build of any kernel disagrees with NumPy (a wrong result outranks every timing).
Every build is called through ctypes with its arguments converted once, so each call costs the same few hundred
nanoseconds of Python on every side; the sizes keep a call well above that.
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

C_COMPILERS = {"clang": ["clang-22", "-O3", "-march=native"], "gcc": ["gcc", "-O3", "-march=native"]}
_CTYPE = {np.dtype(np.float32): ctypes.c_float, np.dtype(np.float64): ctypes.c_double}


def build_c(kernel: Kernel, compiler: List[str], work: str) -> Callable[..., None]:
    src = os.path.join(work, f"{kernel.name}.c")
    so = os.path.join(work, f"{kernel.name}_{os.path.basename(compiler[0])}.so")
    with open(src, "w") as handle:
        handle.write(kernel.c_source)
    result = subprocess.run(compiler + ["-shared", "-fPIC", src, "-o", so], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(compiler)} {src}: {result.stderr}")
    function = getattr(ctypes.CDLL(so), kernel.name)
    function.restype = None
    return function


def c_call(function: Any, args: List[Any]) -> Callable[[], None]:
    values = []
    for value in args:
        if isinstance(value, np.ndarray):
            values.append(ctypes.c_void_p(value.ctypes.data))
        else:
            values.append(ctypes.c_float(value))
    return lambda: function(*values)


def lego_call(compiled: Any, args: List[Any]) -> Callable[[], None]:
    # CPUKernel.__call__ checks every argument on each call; the timed call skips that (converted once here,
    # like the C side) and passes the memref descriptors (allocated, aligned, offset, size, stride) directly.
    values = []
    for value in args:
        if isinstance(value, np.ndarray):
            pointer = ctypes.c_void_p(value.ctypes.data)
            values += [pointer, pointer, ctypes.c_int64(0), ctypes.c_int64(value.size), ctypes.c_int64(1)]
        else:
            values.append(ctypes.c_float(value))
    function = compiled._function
    return lambda: function(*values)


def check(kernel: Kernel, builds: Dict[str, Callable[[List[Any]], Callable[[], None]]], seed: int) -> List[str]:
    """Runs every build once on copies of the same inputs; the mismatches, as text (empty: all equal)."""
    rng = np.random.default_rng(seed)
    inputs = kernel.make_args(rng)
    expected = kernel.reference([a.copy() if isinstance(a, np.ndarray) else a for a in inputs])
    problems = []
    for label, make in builds.items():
        args = [a.copy() if isinstance(a, np.ndarray) else a for a in inputs]
        make(args)()
        for position, want in zip(kernel.outputs, expected):
            got = args[position]
            if not np.array_equal(got, want.astype(got.dtype)):
                bad = np.flatnonzero(got != want.astype(got.dtype))
                problems.append(f"{kernel.name}: {label} differs from NumPy at {bad.size} of {got.size} elements "
                                f"(first [{bad[0]}]: {got.flat[bad[0]]} != {want.flat[bad[0]]})")
    return problems


def best_times(calls: Dict[str, Callable[[], None]], rounds: int, batch_ms: float) -> Dict[str, float]:
    """ms per call, best over `rounds` rounds; each round times one batch of every build in turn, so a burst of
    load from the machine's other users falls on all builds alike."""
    for call in calls.values():
        call()
    reps = {}
    for label, call in calls.items():
        start = time.perf_counter()
        call()
        once = max(time.perf_counter() - start, 1e-7)
        reps[label] = max(1, int(batch_ms / 1000 / once))
    best = {label: math.inf for label in calls}
    for _ in range(rounds):
        for label, call in calls.items():
            n = reps[label]
            start = time.perf_counter()
            for _ in range(n):
                call()
            best[label] = min(best[label], (time.perf_counter() - start) / n * 1000)
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
            ours = kernel.lego.compile(target="x86")
            c_functions = {label: build_c(kernel, command, work) for label, command in C_COMPILERS.items()}
            builds = {"lego": lambda args, ours=ours: lego_call(ours, args)}
            for label, function in c_functions.items():
                builds[label] = lambda args, function=function: c_call(function, args)
            found = check(kernel, builds, options.seed)
            problems += found
            args = kernel.make_args(np.random.default_rng(options.seed))
            times = best_times({label: make(args) for label, make in builds.items()}, options.rounds, options.batch_ms)
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
