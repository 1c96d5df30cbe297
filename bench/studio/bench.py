"""Latency of LEGO Studio's API (`lego-studio serve`), request by request on loopback: the median and 90th
percentile of the round trip (client-measured: connect, send, the server's work, read the answer) and of the
server's own `ms` (parse + pipeline + print), for the typical layout of test/studio/Inputs/typical.mlir (a
64 × 64 matrix of XOR-swizzled 8 × 8 tiles) through each stage. The table in docs/studio.md comes from here.

    python3 bench/studio/bench.py [--binary target/debug/lego-studio] [--runs 50]
"""

import argparse
import os
import statistics
import sys
import time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "test", "studio", "Inputs"))
import studio  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(root, "target", "debug", "lego-studio"))
    parser.add_argument("--runs", type=int, default=50)
    arguments = parser.parse_args()
    source = studio.read(os.path.join(root, "test", "studio", "Inputs", "typical.mlir"))
    server = studio.Server(arguments.binary, ["--workers", "1"])
    rows = []
    try:
        cases = [("/api/parse", None)] + [("/api/compile", stage) for stage in ("verify", "lego-lower", "llvm", "translate:c")]
        for path, stage in cases:
            body = {"source": source} if stage is None else {"source": source, "stage": stage}
            for _ in range(3):  # warm-up: the worker's context is created on its first request
                server.api(path, body)
            round_trips, server_ms = [], []
            for _ in range(arguments.runs):
                started = time.perf_counter()
                status, answer = server.api(path, body)
                round_trips.append((time.perf_counter() - started) * 1000)
                if status != 200:
                    raise SystemExit(f"{path} {stage}: {status} {answer}")
                if "ms" in answer:
                    server_ms.append(answer["ms"])
            rows.append((path if stage is None else f"{path} {stage}", round_trips, server_ms))
    finally:
        server.stop()
    print(f"binary: {os.path.relpath(arguments.binary, root)}, {arguments.runs} sequential requests each, one worker")
    print("| request | median round trip (ms) | p90 round trip (ms) | median server `ms` |")
    print("|---|---:|---:|---:|")
    for label, round_trips, server_ms in rows:
        p90 = sorted(round_trips)[int(0.9 * (len(round_trips) - 1))]
        ms = f"{statistics.median(server_ms):.1f}" if server_ms else "–"
        print(f"| `{label}` | {statistics.median(round_trips):.1f} | {p90:.1f} | {ms} |")


if __name__ == "__main__":
    main()
