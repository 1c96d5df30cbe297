"""Checking and timing ``@cpu_kernel`` kernels against a NumPy reference (the published ``lego.testing``).

``@benchmark(reference, ...)`` on top of ``@cpu_kernel`` gives a ``BenchmarkedKernel``: calling it runs the kernel
compiled for ``x86`` (the vector pipeline); ``.verify(*args)`` runs the reference and the kernel on copies of the
arguments and compares every array; ``.measure(*args)`` times the reference, the ``scalar`` build and the vector
build. ``do_bench(fn, *args)`` is the mean time of one call in milliseconds.

Differences from the published module (docs/python-jit.md, "lego.testing"): times are taken around the ctypes
call from Python (``time.perf_counter_ns``, best of the measured calls is reported next to the mean), not by a
self-timed copy of the kernel; the arrays are not re-aligned (NumPy's allocations are 64-byte aligned on the
platforms we test, and the kernels never assume alignment).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Dict, Optional

import numpy as np

__all__ = ["benchmark", "BenchmarkedKernel", "do_bench"]


def _time_calls(call: Callable[[], Any], n_iters: int, warmup: int) -> Dict[str, float]:
    for _ in range(max(0, warmup)):
        call()
    samples = []
    for _ in range(max(1, n_iters)):
        start = time.perf_counter_ns()
        call()
        samples.append(time.perf_counter_ns() - start)
    return {"mean_ms": sum(samples) / len(samples) / 1e6, "best_ms": min(samples) / 1e6}


def do_bench(fn: Callable[..., Any], *args: Any, n_iters: int = 1000, warmup: int = 100) -> float:
    """Mean milliseconds of one ``fn(*args)`` call (Python overhead included), after ``warmup`` calls."""
    return _time_calls(lambda: fn(*args), n_iters, warmup)["mean_ms"]


def _copies(args: tuple) -> list:
    return [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]


class BenchmarkedKernel:
    """A ``@cpu_kernel`` with its NumPy ``reference`` (a function of the same arguments that updates the arrays in
    place, as the kernel does)."""

    def __init__(self, kernel: Any, reference: Callable[..., Any], n_iters: int = 1000, warmup: int = 100,
                 rtol: float = 1e-3, atol: float = 1e-5, meta: Optional[Dict[str, Any]] = None) -> None:
        self.kernel, self.reference = kernel, reference
        self.n_iters, self.warmup, self.rtol, self.atol = n_iters, warmup, rtol, atol
        self.meta = dict(meta or {})
        self.name = getattr(kernel, "__name__", "kernel")
        self.results: list = []

    def __call__(self, *args: Any) -> None:
        self.kernel.compile(target="x86")(*args)

    def verify(self, *args: Any, rtol: Optional[float] = None, atol: Optional[float] = None,
               target: str = "x86") -> None:
        """Runs the reference and the kernel (``target``) on copies of ``args``; every array must agree
        (``np.testing.assert_allclose``). Raises ``AssertionError`` naming the failing step."""
        expected, actual = _copies(args), _copies(args)
        try:
            self.reference(*expected)
        except Exception as error:  # the reference is user code: any failure is reported as its own
            raise AssertionError(f"[verify] reference failed: {error}") from error
        try:
            self.kernel.compile(target=target)(*actual)
        except Exception as error:
            raise AssertionError(f"[verify] jit ({target}) failed: {error}") from error
        try:
            for want, got in zip(expected, actual):
                if isinstance(want, np.ndarray):
                    np.testing.assert_allclose(got, want, rtol=self.rtol if rtol is None else rtol,
                                               atol=self.atol if atol is None else atol)
        except AssertionError as error:
            raise AssertionError(f"[verify] mismatch: {error}") from error

    def measure(self, *args: Any, target: str = "x86") -> Dict[str, Any]:
        """Times the NumPy reference, the ``scalar`` build and the ``target`` build on copies of ``args``; returns
        ``{name, numpy_ms, scalar_jit_ms, vec_jit_ms, speedup_isolated_jit, speedup_vs_numpy, verdict, notes}``
        and the ``meta`` keys. ``verdict`` from scalar/vector: > 1.05 WIN, > 0.95 PARITY, else LOSS; ERROR when
        a step failed (its message is in ``notes``)."""
        notes = []
        times = {}
        for key, make in (("numpy_ms", lambda: self.reference),
                          ("scalar_jit_ms", lambda: self.kernel.compile(target="scalar")),
                          ("vec_jit_ms", lambda: self.kernel.compile(target=target))):
            copies = _copies(args)
            try:
                fn = make()
                times[key] = _time_calls(lambda: fn(*copies), self.n_iters, self.warmup)["mean_ms"]
            except Exception as error:
                notes.append(f"{key[:-3]}: {error}")
                times[key] = float("nan")
        vec = times["vec_jit_ms"]
        speedup = times["scalar_jit_ms"] / vec if vec and vec == vec else float("nan")
        if notes or vec != vec:
            verdict = "ERROR"
        else:
            verdict = "WIN" if speedup > 1.05 else "PARITY" if speedup > 0.95 else "LOSS"
        result = {"name": self.name, **times, "speedup_isolated_jit": speedup,
                  "speedup_vs_numpy": times["numpy_ms"] / vec if vec and vec == vec else float("nan"),
                  "verdict": verdict, "notes": "; ".join(notes), **self.meta}
        self.results.append(result)
        return result

    def print_summary(self) -> None:
        for r in self.results:
            print(f"{r['name']}: numpy {r['numpy_ms']:.4f} ms, scalar {r['scalar_jit_ms']:.4f} ms, "
                  f"vector {r['vec_jit_ms']:.4f} ms, {r['speedup_isolated_jit']:.2f}x {r['verdict']}"
                  + (f" ({r['notes']})" if r["notes"] else ""))


def benchmark(reference: Callable[..., Any], n_iters: int = 1000, warmup: int = 100, rtol: float = 1e-3,
              atol: float = 1e-5, meta: Optional[Dict[str, Any]] = None) -> Callable[[Any], BenchmarkedKernel]:
    """``@benchmark(reference)`` above ``@cpu_kernel``."""
    def wrap(kernel: Any) -> BenchmarkedKernel:
        return BenchmarkedKernel(kernel, reference, n_iters, warmup, rtol, atol, meta)
    return wrap
