"""Growth of the CPU vector passes' cost with module size: the functions of the vectorize lit inputs (loops each
pass rewrites and the twins it must leave alone) repeated N times under fresh names, then each pass alone and
`lego-to-x86-vector` on the whole module, against parse + print of the same file (no pass). Prints a Markdown
table of wall seconds (best of --repeat runs taken in turns) and the growth per doubling of N (2.0 is linear).

    python3 bench/compile-time/vector_growth.py [--lego-opt target/release/lego-opt] [--sizes 500,1000,2000,4000]
"""
import argparse
import math
import os
import re
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INPUTS = ["patterns.mlir", "argmin.mlir", "rle.mlir", "scan.mlir", "scatter-add.mlir", "units.mlir", "accesses.mlir",
          "pipeline-patterns.mlir"]
PASSES = [
    ("parse + print", []),
    ("lego-vectorize", ["--lego-vectorize"]),
    ("lego-vectorize-compact", ["--lego-vectorize-compact"]),
    ("lego-vectorize-filtered-reduce", ["--lego-vectorize-filtered-reduce"]),
    ("lego-vectorize-argmin", ["--lego-vectorize-argmin"]),
    ("lego-vectorize-rle", ["--lego-vectorize-rle"]),
    ("lego-vectorize-scan", ["--lego-vectorize-scan"]),
    ("lego-vectorize-scatter-add", ["--lego-vectorize-scatter-add"]),
    ("lego-to-x86-vector isa=avx2", ["--lego-to-x86-vector=isa=avx2"]),
]


def functions(path):
    """The top-level func.func definitions of a lit input (split-input-file markers and comments dropped)."""
    found, current = [], None
    for line in open(path):
        if current is None and line.startswith("func.func @"):
            current = [line]
        elif current is not None:
            current.append(line)
            if line.rstrip() == "}":
                found.append("".join(current))
                current = None
    return found


def module(bodies, n):
    names = sorted({m for body in bodies for m in re.findall(r"@([A-Za-z_][\w.]*)", body)}, key=len, reverse=True)
    pattern = re.compile(r"@(" + "|".join(map(re.escape, names)) + r")\b")
    out = []
    for copy in range(n):
        for body in bodies:
            out.append(pattern.sub(lambda m: f"@{m.group(1)}_{copy}", body))
    return "\n".join(out)


def run(lego_opt, path, flags):
    start = time.perf_counter()
    done = subprocess.run([lego_opt, path, *flags, "-o", os.devnull], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(flags)} failed on {path}: {done.stderr[:400]}")
    return elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lego-opt", default=os.path.join(ROOT, "target", "release", "lego-opt"))
    parser.add_argument("--sizes", default="500,1000,2000,4000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    bodies = []
    for name in INPUTS:
        path = os.path.join(ROOT, "test", "vectorize", name)
        if os.path.exists(path):
            bodies += functions(path)
    sizes = [int(s) for s in args.sizes.split(",")]
    work = tempfile.mkdtemp(prefix="lego_vector_growth_")
    files = {}
    for n in sizes:
        files[n] = os.path.join(work, f"m{n}.mlir")
        with open(files[n], "w") as handle:
            handle.write(module(bodies, n))
    print(f"{len(bodies)} functions per copy; lego-opt {args.lego_opt}; best of {args.repeat}, in turns")
    best = {(p, n): float("inf") for p, _ in PASSES for n in sizes}
    for _ in range(args.repeat):
        for n in sizes:
            for name, flags in PASSES:
                best[name, n] = min(best[name, n], run(args.lego_opt, files[n], flags))
    print("| pass | " + " | ".join(f"N = {n} ({n * len(bodies)} functions)" for n in sizes)
          + " | growth per doubling |")
    print("|---|" + "---:|" * (len(sizes) + 1))
    for name, _ in PASSES:
        times = [best[name, n] for n in sizes]
        growth = [2 ** (math.log(t2 / t1) / math.log(n2 / n1))
                  for (t1, n1), (t2, n2) in zip(zip(times, sizes), zip(times[1:], sizes[1:]))]
        print(f"| {name} | " + " | ".join(f"{t:.2f}" for t in times) + " | "
              + " / ".join(f"{g:.2f}" for g in growth) + " |")


if __name__ == "__main__":
    main()
