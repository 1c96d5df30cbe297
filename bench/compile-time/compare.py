#!/usr/bin/env python3
"""Two lego-opt binaries side by side (issue 25): CPU seconds (user + sys) of `lego-opt FILE --lego-lower`, best
of R runs taken alternately (so machine load hits both alike), on `gen.py SHAPE N --ssa-dims` files; checks
that both print byte-identical output; prints a Markdown table with the ratio new / base, the growth per
doubling of the new binary, and the implied ratio to the published tool.

    bench/compile-time/compare.py BASE NEW [--sizes 10000,20000,40000] [--shapes functions,applies,kernels]
                                  [--repeat 3] [--peer PATH] [--passes ARGS]

`--passes ''` times parsing and printing alone (no pass: custom syntax in and out); the default is
`--lego-lower`. The implied published column only applies to `--lego-lower`.

The published tool's binary is optional (`--peer`, or PEER_LEGO_OPT): when given it is timed on the same files
in the same alternation. Without it, its time is implied from issue 25's side-by-side measurement at N = 10 000
on this machine kind (published / ours then: functions 7.25 / 7.67 s, applies 2.92 / 3.82 s, kernels
4.30 / 4.59 s): published(N) ≈ base(N) × published / ours-then, i.e. assuming the published tool keeps its
ratio to BASE (the issue found both growing about 2.1 per doubling). BASE must then be the binary of that
measurement's sources or a later one with unchanged output (what `main` is when this runs).
"""
import argparse
import math
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "bench", "compile-time", "gen.py")
# Issue 25's table (N = 10 000, CPU seconds): published tool, ours at the time.
ISSUE_PUBLISHED = {"functions": 7.25, "applies": 2.92, "kernels": 4.30}
ISSUE_OURS = {"functions": 7.67, "applies": 3.82, "kernels": 4.59}


def cpu_run(binary, path, out, passes=("--lego-lower",)):
    """CPU seconds (user + sys) of one run of `binary` on `path` with `passes`, output to `out`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out, "wb") as stdout:
        done = subprocess.run([binary, path, *passes], stdout=stdout, stderr=subprocess.PIPE)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{binary} failed ({done.returncode}) on {path}:\n{done.stderr.decode()[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--sizes", default="10000,20000,40000")
    parser.add_argument("--shapes", default="functions,applies,kernels")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peer", default=os.environ.get("PEER_LEGO_OPT"))
    parser.add_argument("--passes", default="--lego-lower", help="lego-opt arguments after the file ('' for none)")
    args = parser.parse_args()
    passes = args.passes.split()
    lowering = passes == ["--lego-lower"]
    sizes = [int(size) for size in args.sizes.split(",")]
    shapes = args.shapes.split(",")
    binaries = {"base": args.base, "new": args.new}
    if args.peer:
        binaries["published"] = args.peer
    load_before = os.getloadavg()
    work = tempfile.mkdtemp(prefix="lego-compare-")
    best = {}
    for shape in shapes:
        for size in sizes:
            path = os.path.join(work, f"{shape}-{size}.mlir")
            with open(path, "w") as out:
                subprocess.run([sys.executable, GEN, shape, str(size), "--ssa-dims"], stdout=out, check=True)
            times = {name: math.inf for name in binaries}
            for _ in range(args.repeat):
                for name, binary in binaries.items():
                    times[name] = min(times[name], cpu_run(binary, path, os.path.join(work, f"{name}.out"), passes))
            with open(os.path.join(work, "base.out"), "rb") as a, open(os.path.join(work, "new.out"), "rb") as b:
                identical = a.read() == b.read()
            best[shape, size] = (times, identical)
            print(f"{shape} N={size}: " + ", ".join(f"{name} {t:.2f} s" for name, t in times.items())
                  + f", output {'identical' if identical else 'DIFFERENT'}", file=sys.stderr, flush=True)
            os.remove(path)
    load_after = os.getloadavg()
    peer = "published" in binaries
    lines = [
        f"`bench/compile-time/compare.py {shlex.join(sys.argv[1:])}`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{os.cpu_count()} cores, load (1-minute average) {load_before[0]:.1f} before and {load_after[0]:.1f} after; "
        f"CPU seconds (user + sys), best of {args.repeat} alternating runs.",
        "",
        "| shape | N | base | new | new / base | growth of new per doubling | published"
        + (" (measured)" if peer else " (implied)") + " | new / published | output |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for shape in shapes:
        previous = None
        for size in sizes:
            times, identical = best[shape, size]
            base, new = times["base"], times["new"]
            published = times["published"] if peer else (
                base * ISSUE_PUBLISHED[shape] / ISSUE_OURS[shape] if lowering else None)
            growth = "—"
            if previous:
                growth = f"{(new / previous[1]) ** (1 / math.log2(size / previous[0])):.2f}"
            previous = (size, new)
            versus = f"{published:.2f} s | {new / published:.3f}" if published else "— | —"
            lines.append(f"| {shape} | {size} | {base:.2f} s | {new:.2f} s | {new / base:.3f} | {growth} | "
                         f"{versus} | {'identical' if identical else 'DIFFERENT'} |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
