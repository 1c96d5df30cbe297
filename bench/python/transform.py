"""The tensor API's transform against numpy.take with a precomputed index table (docs/python.md, "Measurements").

Run after `make python`: `.venv/bin/python bench/python/transform.py [--sizes 1024 2048 4096] [--repeat 7]`.

For each layout and square size n×n (float32): the median time of `layout.transform(x)` (the lowered index
arithmetic run in Rust over the buffer, no table) and of `numpy.take(x, fwd)` with `fwd` precomputed (the table
is not counted), their ratio, and the first-call latency of a new layout: its construction, the lowering through
lego-lower and a first transform of a 64×64 array, with the process-wide compile cache cleared; then a cached
call on that 64×64 array; and the symbolic evaluation `L[pid_m, pid_n, i, j]` of a new symbolic TileBy. Wall-clock and CPU (process) times: on a loaded machine the CPU time is the stable number.
"""

import argparse
import statistics
import time

import numpy as np

import lego
from lego import ColMajor, Swizzle, TiledPermute, ZCurve
from lego.backend import compiler

LAYOUTS = {
    "ColMajor": lambda n: ColMajor((n, n)),
    "TiledPermute 64x64": lambda n: TiledPermute((n, n), (64, 64)),
    "Swizzle": lambda n: Swizzle((n, n)),
    "ZCurve": lambda n: ZCurve((n, n)),
}


def timed(call, repeat):
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        call()
        walls.append(1000 * (time.perf_counter() - wall))
        cpus.append(1000 * (time.process_time() - cpu))
    return statistics.median(walls), statistics.median(cpus)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048, 4096])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    lego._bridge.session()  # the MLIR context, once per thread (not part of a layout's latency)

    print("| layout | n×n | transform (ms, wall / CPU) | numpy.take + table (ms, wall / CPU) | ratio (CPU) |")
    print("|---|---|---|---|---|")
    for size in args.sizes:
        x = np.random.default_rng(0).standard_normal((size, size)).astype(np.float32)
        for name, make in LAYOUTS.items():
            layout = make(size)
            layout.transform(x)  # lowered once
            fwd = layout.permutation_tables()[0].copy()
            flat = x.reshape(-1)
            assert np.array_equal(layout.transform(x).reshape(-1), np.take(flat, fwd))
            # Interleaved, so that load from other processes hits both alike.
            samples = [(timed(lambda: layout.transform(x), 1), timed(lambda: np.take(flat, fwd), 1))
                       for _ in range(args.repeat)]
            ours = tuple(statistics.median(s[0][k] for s in samples) for k in range(2))
            take = tuple(statistics.median(s[1][k] for s in samples) for k in range(2))
            del fwd
            compiler._COMPILER_CACHE.clear()  # drop the table built for the comparison
            print(f"| {name} | {size} | {ours[0]:.1f} / {ours[1]:.1f} | {take[0]:.1f} / {take[1]:.1f} | "
                  f"{ours[1] / take[1]:.2f} |")

    print()
    print("| new layout (64×64) | first call: construct + lower + transform (ms, wall / CPU) | cached call (ms, wall / CPU) |")
    print("|---|---|---|")
    small = np.zeros((64, 64), np.float32)
    for name, make in LAYOUTS.items():
        first, cached = [], []
        for _ in range(args.repeat):
            compiler._COMPILER_CACHE.clear()
            holder = {}
            first.append(timed(lambda: holder.setdefault("layout", make(64)).transform(small), 1))
            cached.append(timed(lambda: holder["layout"].transform(small), 1))
        print(f"| {name} | {statistics.median(f[0] for f in first):.2f} / {statistics.median(f[1] for f in first):.2f} "
              f"| {statistics.median(c[0] for c in cached):.3f} / {statistics.median(c[1] for c in cached):.3f} |")
    # The symbolic evaluation of the latency target (bench/python/latency.py measures more).
    import sympy as sp
    from lego import OrderBy, Row

    M, N, BM, BN = sp.symbols("M N BM BN", integer=True, positive=True)
    pid_m, pid_n, i, j = sp.symbols("pid_m pid_n i j", integer=True)
    first, cached = [], []
    for k in range(args.repeat):
        layout = OrderBy(Row(M, N + k)).TileBy((M // BM, (N + k) // BN), (BM, BN))
        first.append(timed(lambda: layout[pid_m, pid_n, i, j], 1))
        cached.append(timed(lambda: layout[pid_m, pid_n, i, j], 1))
    print(f"| symbolic TileBy L[pid_m, pid_n, i, j] | {statistics.median(f[0] for f in first):.2f} / "
          f"{statistics.median(f[1] for f in first):.2f} | {statistics.median(c[0] for c in cached):.3f} / "
          f"{statistics.median(c[1] for c in cached):.3f} |")

if __name__ == "__main__":
    main()
