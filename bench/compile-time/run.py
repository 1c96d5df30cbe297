#!/usr/bin/env python3
"""Compile-time benchmark (issue 14; a benchmark, not a test): `lego-lower` (and, for the GPU file,
`lego-to-nvvm format=assembly`) on generated modules of N layout applications, next to parse + print of the same
file. Per N: wall time per pass (`--mlir-timing`, repeated passes summed), total wall and CPU time (user + sys,
which machine load disturbs less), peak memory (`/usr/bin/time -v`), and the growth ratio per doubling of N
(t(N2)/t(N1) scaled to a factor of 2).

    bench/compile-time/run.py [--sizes 1000,2000,5000,10000,20000] [--shapes functions,applies,kernels]
                              [--timeout 300] [--out docs/compile-time] [--ssa-dims] [--repeat 1]

--repeat N runs each timed command (parse + print, lego-lower, the published tool) N times, taking turns, and
keeps the best of each figure (least time, per pass too): on a shared machine a run is only ever slowed down by
others, so the least is the steadiest estimate. `lego-to-nvvm` runs once.

PEER_LEGO_OPT=path (optional): the published tool's lego-opt (docs/compile-time.md says how to build it), timed
on the same files as `PEER FILE --lego-lower` (CPU seconds) in an extra column with the ratio ours / published.
Its dialect takes sizes as SSA values only, so the files are then generated with `--ssa-dims` (also a flag here).
Without it, BASE_LEGO_OPT=path (the binary of issue 25's measurement, see `compare.py`) gives the same columns
with the published time *implied*: BASE's CPU seconds on the same file times the issue's published / ours ratio.

Writes OUT.md (Markdown tables, the command, the machine load) and OUT.png (log-log time vs N per pass, with
gnuplot when installed). Uses target/release/lego-opt (LEGO_OPT=path to pick another). A run past --timeout
is recorded as such and larger sizes of that shape are skipped.
"""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from compare import ISSUE_OURS, ISSUE_PUBLISHED

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "bench", "compile-time", "gen.py")
TIMING_LINE = re.compile(r"^\s*([0-9.]+)\s+\(\s*[0-9.]+%\)\s+(.+?)\s*$")


def run(binary, path, args, timeout):
    """(wall seconds, peak MiB, --mlir-timing per pass, CPU seconds) of one lego-opt run, or None past
    `timeout`."""
    command = ["/usr/bin/time", "-v", binary, path, "-o", os.devnull, *args]
    start = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    wall = time.monotonic() - start
    if done.returncode != 0:
        sys.exit(f"lego-opt failed ({done.returncode}) on {path} {' '.join(args)}:\n{done.stderr[-3000:]}")
    peak = 0.0
    cpu = 0.0
    passes = {}
    for line in done.stderr.splitlines():
        if "Maximum resident set size" in line:
            peak = int(line.split(":")[1]) / 1024
        if "User time (seconds)" in line or "System time (seconds)" in line:
            cpu += float(line.split(":")[1])
        match = TIMING_LINE.match(line)
        if match and "%" in line:
            name = match.group(2)
            if name in ("Total", "Rest") or name.startswith("'"):
                continue
            passes[name] = passes.get(name, 0.0) + float(match.group(1))
    return wall, peak, passes, cpu


def best(runs):
    """The best of several `run` results of one command: least wall, CPU and per-pass time, largest peak
    memory; None if any timed out."""
    if not runs or any(result is None for result in runs):
        return None
    passes = {}
    for _, _, timing, _ in runs:
        for name, seconds in timing.items():
            passes[name] = min(passes.get(name, seconds), seconds)
    return (min(r[0] for r in runs), max(r[1] for r in runs), passes, min(r[3] for r in runs))


def growth(times, sizes):
    """Ratio per doubling between consecutive sizes: (t2/t1)^(1/log2(n2/n1))."""
    out = [None]
    for k in range(1, len(sizes)):
        a, b = times[k - 1], times[k]
        if a is None or b is None or a <= 0:
            out.append(None)
        else:
            out.append((b / a) ** (1 / math.log2(sizes[k] / sizes[k - 1])))
    return out


def fmt(value, digits=3):
    return "—" if value is None else f"{value:.{digits}f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,2000,5000,10000,20000")
    parser.add_argument("--shapes", default="functions,applies,kernels")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "compile-time"))
    parser.add_argument("--ssa-dims", action="store_true", help="generate the files with gen.py --ssa-dims")
    parser.add_argument("--repeat", type=int, default=1, help="best of N runs of each timed command")
    args = parser.parse_args()
    if args.repeat < 1:
        sys.exit("--repeat must be at least 1")
    peer = os.environ.get("PEER_LEGO_OPT") or None
    if peer and not os.access(peer, os.X_OK):
        sys.exit(f"PEER_LEGO_OPT={peer} is not an executable")
    args.peer = peer
    base = None if peer else (os.environ.get("BASE_LEGO_OPT") or None)
    if base and not os.access(base, os.X_OK):
        sys.exit(f"BASE_LEGO_OPT={base} is not an executable")
    args.base = base
    args.ssa_dims = args.ssa_dims or bool(peer) or bool(base)
    binary = os.environ.get("LEGO_OPT", os.path.join(ROOT, "target", "release", "lego-opt"))
    if not os.access(binary, os.X_OK):
        sys.exit(f"{binary} not found: cargo build --release -p lego-opt (or set LEGO_OPT)")
    sizes = [int(size) for size in args.sizes.split(",")]
    shapes = args.shapes.split(",")
    load_before = os.getloadavg()
    work = tempfile.mkdtemp(prefix="lego-compile-time-")
    results = {}  # shape -> list per size of {name: seconds} plus totals
    try:
        for shape in shapes:
            rows = []
            stopped = False
            for size in sizes:
                if stopped:
                    rows.append(None)
                    continue
                path = os.path.join(work, f"{shape}-{size}.mlir")
                with open(path, "w") as out:
                    subprocess.run([sys.executable, GEN, shape, str(size)] + (["--ssa-dims"] if args.ssa_dims else []),
                                   stdout=out, check=True)
                row = {"bytes": os.path.getsize(path)}
                runs = {"parse": [], "lower": [], "peer": []}
                for _ in range(args.repeat):
                    runs["parse"].append(run(binary, path, [], args.timeout))
                    runs["lower"].append(run(binary, path, ["--lego-lower", "--mlir-timing"], args.timeout))
                    if peer or base:
                        runs["peer"].append(run(peer or base, path, ["--lego-lower"], args.timeout))
                    if runs["lower"][-1] is None:
                        break
                parse = best(runs["parse"])
                lower = best(runs["lower"])
                row["parse"] = parse
                row["lower"] = lower
                if peer:
                    row["peer"] = best(runs["peer"])
                elif base:
                    measured = best(runs["peer"])
                    if measured:
                        implied = measured[3] * ISSUE_PUBLISHED[shape] / ISSUE_OURS[shape]
                        row["peer"] = (None, None, {}, implied)
                if shape == "kernels":
                    row["nvvm"] = run(binary, path, ["--lego-to-nvvm=format=assembly"], args.timeout)
                rows.append(row)
                status = "timeout" if lower is None else f"{lower[0]:.2f} s"
                print(f"{shape} N={size}: parse+print {fmt(parse and parse[0], 2)} s, lego-lower {status}", flush=True)
                if lower is None:
                    stopped = True
            results[shape] = rows
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load_after = os.getloadavg()
    write_report(args, binary, sizes, shapes, results, load_before, load_after)


def write_report(args, binary, sizes, shapes, results, load_before, load_after):
    lines = [
        "# Compile time vs module size (`bench/compile-time/`)",
        "",
        "Generated by `"
        + (f"BASE_LEGO_OPT={args.base} " if args.base else "")
        + "bench/compile-time/run.py"
        + (f" --sizes {args.sizes}" if args.sizes != "1000,2000,5000,10000,20000" else "")
        + (f" --shapes {args.shapes}" if args.shapes != "functions,applies,kernels" else "")
        + (f" --repeat {args.repeat}" if args.repeat != 1 else "")
        + (" --ssa-dims" if args.ssa_dims and not args.peer else "")
        + "` (generator: `bench/compile-time/gen.py`), release build"
        + f" `{os.path.relpath(binary, ROOT)}`, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
        f"Machine load (1-minute average) {load_before[0]:.1f} before and {load_after[0]:.1f} after the run: "
        "absolute times scale with it; growth ratios are the meaningful numbers.",
        "",
        "Seconds of wall time per pass from `--mlir-timing` (repeated passes summed), the whole `lego-lower` run and "
        "parse + print alone (no pass) of the same file, peak resident memory, and the growth ratio per doubling of N "
        "(t(N₂)/t(N₁) scaled to N₂ = 2·N₁; 2.0 is linear). `lego-lower CPU` is user + sys seconds of the same run."
        + (f" Each figure is the best of {args.repeat} runs taken in turns (`lego-to-nvvm`: one run)." if args.repeat > 1 else "")
        + (f" `published CPU`: the published tool (`PEER_LEGO_OPT={args.peer}`) on the same file (generated with "
           "`--ssa-dims`), `PEER FILE --lego-lower`." if args.peer else "")
        + (f" `published CPU` is *implied*: the CPU seconds of `BASE_LEGO_OPT={args.base}` (the binary of issue 25's "
           "side-by-side measurement) on the same file times that measurement's published / ours ratio (functions "
           "7.25 / 7.67, applies 2.92 / 3.82, kernels 4.30 / 4.59; `bench/compile-time/compare.py`)." if args.base else ""),
        "",
    ]
    plot_series = {}
    for shape in shapes:
        rows = results[shape]
        names = []
        for row in rows:
            if row and row["lower"]:
                for name in row["lower"][2]:
                    if name not in names:
                        names.append(name)
        # The costly passes first.
        last = next((row for row in reversed(rows) if row and row["lower"]), None)
        if last:
            names.sort(key=lambda name: -last["lower"][2].get(name, 0.0))
        names = [name for name in names if last and last["lower"][2].get(name, 0.0) >= 0.005] or names[:3]
        lines.append(f"## {shape}")
        lines.append("")
        header = (["N", "bytes", "parse + print", "lego-lower", "lower / parse", "lego-lower CPU"]
                  + (["published CPU" + (" (implied)" if args.base else ""), "ours / published"]
                     if args.peer or args.base else [])
                  + names + ["peak MiB (parse / lower)"])
        if shape == "kernels":
            header.insert(8 if args.peer or args.base else 6, "lego-to-nvvm (assembly)")
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---:|" * len(header))
        series = {"parse + print": [], "lego-lower": [], "lego-lower CPU": []}
        if args.peer or args.base:
            series["published CPU"] = []
        series.update({name: [] for name in names})
        if shape == "kernels":
            series["lego-to-nvvm"] = []
        for size, row in zip(sizes, rows):
            if row is None:
                lines.append(f"| {size} | (skipped after a time-out) |" + " |" * (len(header) - 2))
                for values in series.values():
                    values.append(None)
                continue
            parse, lower = row["parse"], row["lower"]
            parse_t = parse[0] if parse else None
            lower_t = lower[0] if lower else None
            cells = [str(size), str(row["bytes"]), fmt(parse_t), fmt(lower_t) if lower else f"> {args.timeout:.0f}",
                     fmt(lower_t / parse_t, 1) + "×" if lower_t and parse_t else "—", fmt(lower and lower[3])]
            series["lego-lower CPU"].append(lower[3] if lower else None)
            if args.peer or args.base:
                peer_cpu = row["peer"][3] if row.get("peer") else None
                cells.append(fmt(peer_cpu) if peer_cpu is not None else f"> {args.timeout:.0f}")
                cells.append(fmt(lower[3] / peer_cpu, 2) if lower and peer_cpu else "—")
                series["published CPU"].append(peer_cpu)
            if shape == "kernels":
                nvvm = row.get("nvvm")
                cells.append(fmt(nvvm[0]) if nvvm else f"> {args.timeout:.0f}")
                series["lego-to-nvvm"].append(nvvm[0] if nvvm else None)
            for name in names:
                value = lower[2].get(name) if lower else None
                cells.append(fmt(value))
                series[name].append(value)
            cells.append(f"{fmt(parse and parse[1], 0)} / {fmt(lower and lower[1], 0)}")
            series["parse + print"].append(parse_t)
            series["lego-lower"].append(lower_t)
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        lines.append("Growth ratio per doubling (from the previous N):")
        lines.append("")
        lines.append("| N | " + " | ".join(series) + " |")
        lines.append("|" + "---:|" * (len(series) + 1))
        ratios = {name: growth(values, sizes) for name, values in series.items()}
        for k, size in enumerate(sizes):
            if k == 0:
                continue
            lines.append(f"| {sizes[k - 1]}→{size} | " + " | ".join(fmt(ratios[name][k], 2) for name in series) + " |")
        lines.append("")
        plot_series[shape] = series
    # The hand-written analysis (targets met or missed, where the time goes) follows the measured tables.
    notes = os.path.join(os.path.dirname(os.path.abspath(__file__)), "notes.md")
    if os.path.exists(notes):
        with open(notes) as source:
            # Links in the notes are relative to bench/compile-time/; the report lives in docs/.
            lines.append(source.read().rstrip().replace("](../../docs/", "]("))
    with open(args.out + ".md", "w") as out:
        out.write("\n".join(lines) + "\n")
    print(f"wrote {args.out}.md")
    plot(args.out + ".png", sizes, plot_series)


def plot(path, sizes, plot_series):
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        print("gnuplot not installed (apt-get install gnuplot-nox): no plot written")
        return
    data_dir = tempfile.mkdtemp(prefix="lego-compile-time-plot-")
    try:
        commands = [
            "set terminal pngcairo size 1500,560 font ',9'",
            f"set output '{path}'",
            "set logscale xy",
            "set xlabel 'N (layout applications)'",
            "set ylabel 'seconds'",
            "set key outside bottom center horizontal font ',8'",
            "set grid",
            f"set multiplot layout 1,{len(plot_series)}",
        ]
        for shape, series in plot_series.items():
            plots = []
            for k, (name, values) in enumerate(series.items()):
                data = os.path.join(data_dir, f"{shape}-{k}.dat")
                with open(data, "w") as out:
                    for size, value in zip(sizes, values):
                        if value is not None and value > 0:
                            out.write(f"{size} {value}\n")
                if os.path.getsize(data):
                    plots.append(f"'{data}' using 1:2 with linespoints title '{name}'")
            commands.append(f"set title '{shape}'")
            commands.append("plot " + ", ".join(plots) if plots else "plot 1 notitle")
        commands.append("unset multiplot")
        subprocess.run([gnuplot], input="\n".join(commands), text=True, check=True)
        print(f"wrote {path}")
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
