"""What ptxas makes of the matmul kernels' PTX (registers, spills, shared bytes), on a machine with CUDA's ptxas
(the GPU machine has it; the build machine does not) — the first thing to read when a kernel is slower than its
instruction count says:

    python3 bench/gpu_puzzles/ptxas_report.py --puzzles python/examples/puzzles [--size 4096] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_h100 import MATMULS, _case, load_puzzles, ptx_of  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--puzzles", required=True)
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--timeout", type=float, default=60, help="seconds per kernel")
    parser.add_argument("--keep", help="also write each kernel's PTX into this directory")
    args = parser.parse_args()
    ptxas = shutil.which("ptxas") or next((p for p in ("/usr/local/cuda/bin/ptxas",) if os.path.exists(p)), None)
    if ptxas is None:
        print("no ptxas on this machine", file=sys.stderr)
        return 1
    puzzles = load_puzzles(args.puzzles)
    work = args.keep or tempfile.mkdtemp(prefix="lego_ptxas_")
    os.makedirs(work, exist_ok=True)
    for prefix, label, _what, _half in MATMULS:
        kernel = _case(puzzles, prefix, (args.size,) * 3, label)["kernel"]
        path = os.path.join(work, f"{prefix}_{label}.ptx")
        with open(path, "w") as handle:
            handle.write(ptx_of(kernel))
        try:
            done = subprocess.run([ptxas, f"-arch={args.arch}", "-v", "-o", os.devnull, path],
                                  capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"{prefix} {label}: ptxas ran past {args.timeout} s ({os.path.getsize(path) >> 10} KiB of PTX)")
            continue
        lines = [l.split("info    : ")[-1] for l in done.stderr.splitlines() if "Used" in l or "spill" in l]
        print(f"{prefix} {label}: rc {done.returncode}; " + "; ".join(lines or done.stderr.splitlines()[-3:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
