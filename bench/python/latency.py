"""Latency of evaluating layouts through the lego Python package (docs/python.md, "Measurements").

Run after `make python`: `.venv/bin/python bench/python/latency.py`. Prints wall-clock and CPU (process) time
per call: on a loaded machine the CPU time is the stable number.
"""

import statistics
import time

t0 = time.perf_counter()
import sympy as sp  # noqa: E402

import lego  # noqa: E402
from lego import OrderBy, Row  # noqa: E402

t1 = time.perf_counter()
lego._bridge.session()
t2 = time.perf_counter()
print(f"import lego (with sympy): {1000 * (t1 - t0):.0f} ms; first Session (MLIR context): {1000 * (t2 - t1):.0f} ms")

M, N, BM, BN = sp.symbols("M N BM BN", integer=True, positive=True)
pid_m, pid_n, i, j, x = sp.symbols("pid_m pid_n i j x", integer=True)


def timed(call):
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return 1000 * (time.perf_counter() - wall), 1000 * (time.process_time() - cpu)


def report(name, samples):
    wall = statistics.median(s[0] for s in samples)
    cpu = statistics.median(s[1] for s in samples)
    print(f"{name:<48} median wall {wall:8.2f} ms   cpu {cpu:8.2f} ms   ({len(samples)} layouts)")


first, cached = [], []
for k in range(10):
    layout = OrderBy(Row(M, N + k)).TileBy((M // BM, (N + k) // BN), (BM, BN))
    first.append(timed(lambda: layout[pid_m, pid_n, i, j]))
    cached.append(timed(lambda: layout[pid_m, pid_n, i, j]))
report("symbolic TileBy L[pid_m, pid_n, i, j], new", first)
report("symbolic TileBy L[pid_m, pid_n, i, j], cached", cached)

first, cached = [], []
for k in range(10):
    layout = OrderBy(Row(8, 16 + 8 * k)).TileBy((2, 2), (4, 8 + 4 * k))
    first.append(timed(lambda: layout[1, 1, 2, 3]))
    cached.append(timed(lambda: layout[1, 1, 2, 3]))
report("concrete TileBy L[1, 1, 2, 3], new", first)
report("concrete TileBy L[1, 1, 2, 3], cached", cached)

inverse = []
for k in range(3):
    layout = OrderBy(Row(M, N + k)).TileBy((M // BM, (N + k) // BN), (BM, BN))
    inverse.append(timed(lambda: layout.inv(x)))
report("symbolic TileBy inv(x), new", inverse)
