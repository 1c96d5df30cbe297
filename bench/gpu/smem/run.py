#!/usr/bin/env python3
"""Run the shared-memory layout kernels of bench/gpu/smem/ptx on an NVIDIA GPU: check each against NumPy, time it
next to a device-to-device copy, and (when Nsight Compute's `ncu` works) read the shared-memory bank-conflict
counters. Prints a Markdown table (and writes it to --out).

    python3 bench/gpu/smem/run.py --out results.md [--iters 20] [--repeats 3] [--rounds 15] [--no-ncu]

Needs CuPy and NumPy. Transpose GB/s count N²·E bytes read + N²·E written; the copy moves the same N²·E bytes
(cudaMemcpyAsync device to device). Kernels of a group (plain / chosen / padded) and the copy are timed interleaved:
--rounds rounds, each timing every member back to back in a rotated order (CUDA events, median of --repeats timings
of --iters launches); ratios per round, median and range reported. Exit status 0 iff every kernel ran and matched NumPy.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def die(message):
    print(f"run.py: error: {message}", file=sys.stderr)
    sys.exit(1)


def load():
    with open(os.path.join(HERE, "ptx", "manifest.json"), encoding="utf-8") as file:
        return json.load(file)


def time_ms(cp, launch, iters, repeats):
    launch()
    cp.cuda.get_current_stream().synchronize()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    samples = []
    for _ in range(repeats):
        start.record()
        for _ in range(iters):
            launch()
        stop.record()
        stop.synchronize()
        samples.append(cp.cuda.get_elapsed_time(start, stop) / iters)
    return statistics.median(samples)


def kernel(cp, entry):
    module = cp.RawModule(path=os.path.join(HERE, "ptx", entry["ptx"]))
    return module.get_function(entry["kernel"])


def launch_once(cp, np, entries):
    """For ncu: each kernel once, nothing else on the GPU."""
    for entry in entries:
        function = kernel(cp, entry)
        n = entry["n"]
        dtype = np.dtype(entry["dtype"])
        arrays = [cp.zeros(n * n, dtype=dtype) for _ in entry["params"]]
        function(tuple(entry["grid"]), tuple(entry["block"]), tuple(arrays))
        cp.cuda.get_current_stream().synchronize()


def ncu_counters(entries):
    """{kernel variant: {metric: value}} from one ncu run over launch_once, or a reason it did not run."""
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    if not os.path.exists(ncu):
        return None, "ncu not found"
    metrics = [
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "smsp__inst_executed_op_shared_ld.sum",
        "smsp__inst_executed_op_shared_st.sum",
    ]
    command = [ncu, "--csv", "--kernel-name", "regex:_kernel$", "--metrics", ",".join(metrics), sys.executable, os.path.abspath(__file__), "--launch-once"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, "ncu timed out"
    if done.returncode != 0:
        return None, "ncu failed: " + (done.stderr.strip().splitlines() or ["?"])[-1][:200]
    import csv
    rows = [row for row in csv.reader(line for line in done.stdout.splitlines() if line.startswith('"'))]
    if not rows:
        return None, "ncu printed no metrics: " + done.stdout[-300:]
    header = rows[0]
    col = {name: header.index(name) for name in ("ID", "Kernel Name", "Metric Name", "Metric Value") if name in header}
    by_launch = {}
    for row in rows[1:]:
        try:
            launch = int(row[col["ID"]])
            value = float(row[col["Metric Value"]].replace(",", ""))
        except (ValueError, KeyError, IndexError):
            continue
        by_launch.setdefault(launch, {})[row[col["Metric Name"]]] = value
    counters = {}
    for index, entry in enumerate(entries):
        if index in by_launch:
            counters[entry["variant"]] = by_launch[index]
    return counters, None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(HERE, "results.md"))
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3, help="timings of --iters launches per kernel and round (median)")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds (kernels of a group and the copy, rotating order)")
    parser.add_argument("--no-ncu", action="store_true")
    parser.add_argument("--launch-once", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    try:
        import cupy as cp
        import numpy as np
    except ImportError as error:
        die(f"{error}")
    manifest = load()
    entries = manifest["variants"]
    if args.launch_once:
        launch_once(cp, np, entries)
        return 0
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    rng = np.random.default_rng(20261125)
    rows = {}
    failures = 0
    copies = {}
    summaries = []
    # Kernels of one group (same name before the last '-': plain / chosen / padded) run on the same input and are
    # timed INTERLEAVED with a device copy of the same bytes: --rounds rounds, each timing every kernel (and the
    # copy) once, back to back, in an order rotated by one each round; ratios are taken within a round, and the
    # table gives their median and range over the rounds (a slow spell of the GPU hits all members of a round).
    groups = {}
    for entry in entries:
        groups.setdefault(entry.get("group", entry["variant"].rsplit("-", 1)[0]), []).append(entry)
    stream = cp.cuda.get_current_stream()
    for name, members in groups.items():
        first = members[0]
        n, dtype = first["n"], np.dtype(first["dtype"])
        launches = {}
        if first["kind"] == "transpose":
            host = rng.standard_normal((n, n)).astype(dtype)
            src = cp.asarray(host.ravel())
            expect = np.ascontiguousarray(host.T).view(np.uint16 if dtype.itemsize == 2 else np.uint32)
            nbytes = n * n * dtype.itemsize
            copy_dst = cp.empty_like(src)
            launches["copy"] = lambda: cp.cuda.runtime.memcpyAsync(copy_dst.data.ptr, src.data.ptr, nbytes,  # noqa: E731
                                                                   cp.cuda.runtime.memcpyDeviceToDevice, stream.ptr)
            work = 2 * nbytes / 1e9  # GB per launch
        else:
            a = rng.standard_normal((n, n)).astype(np.float32)
            b = rng.standard_normal((n, n)).astype(np.float32)
            da, db = cp.asarray(a.ravel()), cp.asarray(b.ravel())
            expect = a.astype(np.float64) @ b.astype(np.float64)
            work = 2 * n ** 3 / 1e9  # GFLOP per launch
        for entry in members:
            function = kernel(cp, entry)
            grid, block = tuple(entry["grid"]), tuple(entry["block"])
            if entry["kind"] == "transpose":
                dst = cp.full(n * n, np.nan, dtype=dtype)
                launch = (lambda f, g, b, d: lambda: f(g, b, (src, d)))(function, grid, block, dst)
                launch()
                ok = bool(np.array_equal(cp.asnumpy(dst).reshape(n, n).view(expect.dtype), expect))
            else:
                dc = cp.full(n * n, np.nan, dtype=np.float32)
                launch = (lambda f, g, b, d: lambda: f(g, b, (da, db, d)))(function, grid, block, dc)
                launch()
                ok = bool(np.allclose(cp.asnumpy(dc).reshape(n, n), expect, rtol=1e-3, atol=1e-3))
            launches[entry["variant"]] = launch
            rows[entry["variant"]] = dict(entry=entry, ok=ok, ms=[])
            failures += 0 if ok else 1
            print(f"{entry['variant']}: {'ok' if ok else 'MISMATCH'}", file=sys.stderr, flush=True)
        order = list(launches)
        per_round = []
        for r in range(args.rounds):
            rotated = order[r % len(order):] + order[:r % len(order)]
            times = {key: time_ms(cp, launches[key], args.iters, args.repeats) for key in rotated}
            per_round.append(times)
        for key in order:
            if key != "copy":
                rows[key]["ms"] = [t[key] for t in per_round]
        if "copy" in order:
            copies[(n, dtype.itemsize)] = statistics.median(t["copy"] for t in per_round)
        for entry in members:
            row = rows[entry["variant"]]
            row["ms_median"] = statistics.median(row["ms"])
            rate = work / (row["ms_median"] * 1e-3)
            row["rate"] = f"{rate:.0f} GB/s" if entry["kind"] == "transpose" else f"{rate:.0f} GFLOP/s"
            if "copy" in order:
                pct = [100 * t["copy"] / t[entry["variant"]] for t in per_round]
                row["pct"] = f"{statistics.median(pct):.1f} [{min(pct):.1f}–{max(pct):.1f}]"
            else:
                row["pct"] = "—"
            print(f"{entry['variant']}: {row['ms_median'] * 1000:.1f} us {row['rate']} {row['pct']} % of copy", file=sys.stderr, flush=True)
        chosen = f"{name}-chosen"
        # Every padded member of the group (the twin with the same thread mapping, and where present the best
        # hand-padded kernel of another mapping, timed in the same rounds).
        for padded in [key for key in order if key == f"{name}-padded" or key.startswith(f"{name}-padded-")]:
            if chosen not in order:
                continue
            # chosen / padded speed (padded time / chosen time) per round: > 1 means the chosen layout is faster.
            speed = [t[padded] / t[chosen] for t in per_round]
            line = dict(group=name if padded == f"{name}-padded" else f"{name} vs {padded}", speed=speed, wins=sum(x >= 1.0 for x in speed))
            if "copy" in order:
                line["pct"] = [100 * t["copy"] / t[chosen] for t in per_round]
            summaries.append(line)
        launches.clear()
        cp.get_default_memory_pool().free_all_blocks()
    rows = [rows[e["variant"]] for e in entries]
    counters, why = (None, "not run (--no-ncu)") if args.no_ncu else ncu_counters(entries)
    lines = [f"# Shared-memory layouts chosen by lego-choose-smem-layout — {device}", ""]
    lines.append(f"PTX: `lego-opt <source> [--lego-choose-smem-layout] {manifest['lego_opt_pipeline']}`; CuPy {cp.__version__}; "
                 f"interleaved: {args.rounds} rounds, each timing the group's kernels and a device-to-device copy of the same bytes back to back "
                 f"(order rotated by one each round; one timing = median of {args.repeats} timings of {args.iters} launches); time and rate: median over the rounds; "
                 "% of copy: per-round ratio, median [min–max]; transposes N = 8192 unless the variant says 16384, GB/s = (N²·E read + N²·E written) / time, "
                 "% of a device-to-device copy of the same bytes measured in the same run (fp16 also at N = 16384); matmul 1024³ fp32. "
                 "Predicted degree: lego-analyze-memory's largest bank-conflict degree over the kernel's shared accesses (as written in MLIR). "
                 "ncu: shared-memory wavefronts per shared instruction (in parentheses the conflict-free ideal, 32·bytes/128: 1 for 4-byte, 2 for 8-byte, 4 for 16-byte accesses) and `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum`.")
    lines.append("")
    lines.append("| kernel | variant | predicted max degree | check | time (µs) | rate | % of copy, median [range] | ncu ld wavefronts/instr | ncu st wavefronts/instr | ncu bank conflicts ld / st |")
    lines.append("|---|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        entry = row["entry"]
        c = (counters or {}).get(entry["variant"], {})

        def ratio(kind):
            wave = c.get(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{kind}.sum")
            inst = c.get(f"smsp__inst_executed_op_shared_{kind}.sum")
            ideal = "/".join(str(x) for x in entry.get("ideal_wavefronts", {}).get(kind, []))
            return (f"{wave / inst:.2f}" + (f" ({ideal})" if ideal else "")) if wave is not None and inst else "—"
        conflicts = "—"
        if c:
            conflicts = f"{c.get('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum', float('nan')):.0f} / " \
                        f"{c.get('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum', float('nan')):.0f}"
        lines.append(f"| {entry['variant']} | {entry['role']} | {entry['max_degree']} | {'ok' if row['ok'] else 'MISMATCH'} | "
                     f"{row['ms_median'] * 1000:.1f} | {row['rate']} | {row['pct']} | {ratio('ld')} | {ratio('st')} | {conflicts} |")
    lines.append("")
    copy_lines = [f"device copy of {n * n * e >> 20} MiB: {2 * n * n * e / (ms * 1e-3) / 1e9:.0f} GB/s" for (n, e), ms in copies.items()]
    lines.append("Chosen against hand-padded, per round (speed ratio = padded time / chosen time; ≥ 1.000 means chosen at least as fast), "
                 "and chosen against the copy:")
    lines.append("")
    lines.append("| group | chosen/padded median | range | rounds chosen ≥ padded | chosen % of copy median | range | rounds ≥ 95 % |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|")
    for line in summaries:
        pct = line.get("pct")
        pct_cells = (f"{statistics.median(pct):.1f} | {min(pct):.1f}–{max(pct):.1f} | {sum(x >= 95.0 for x in pct)}/{len(pct)}"
                     if pct else "— | — | —")
        lines.append(f"| {line['group']} | {statistics.median(line['speed']):.3f} | {min(line['speed']):.3f}–{max(line['speed']):.3f} | "
                     f"{line['wins']}/{len(line['speed'])} | {pct_cells} |")
    lines.append("")
    lines.append("Copies (median over the rounds): " + "; ".join(copy_lines) + ".")
    if why:
        lines.append(f"ncu: {why}.")
    lines.append("")
    lines.append("What lego-choose-smem-layout chose:")
    lines.append("")
    for entry in entries:
        for remark in entry.get("choice", []):
            lines.append(f"- {entry['variant']}: {remark}")
    text = "\n".join(lines) + "\n"
    print(text)
    with open(args.out, "w", encoding="utf-8") as file:
        file.write(text)
    if counters is not None:
        with open(os.path.splitext(args.out)[0] + "-ncu.json", "w", encoding="utf-8") as file:
            json.dump(counters, file, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
