#!/usr/bin/env python3
"""lego-fuzz: runs lego-opt on mutated and generated inputs with random pass sets and reports every run that
breaks issue 15's contract (any input, any flags -> success, or located diagnostics and exit status 1).

Inputs come from two sources:
  mutation    the lit corpus (test/**/*.mlir, examples/*.mlir, split at `// -----`), mutated at the token and
              line level: extreme numbers, deleted/duplicated/swapped lines and tokens, changed types, extra
              nesting, truncation;
  generation  structurally valid extreme layouts: deep constructor chains, huge and symbolic sizes, rank up to
              8, gen_p bodies made of unusual arith (shifts, min/max, select, division), views, GPU launches.
Each input runs under bench/fuzz/outcome.py's limits; outcomes are classified there (signal, timeout, memory,
error-exit-0, silent-error, unlocated-error, bad-exit are findings; ok and error are fine). A finding is
minimized (line-wise delta debugging that keeps its outcome class) and written to OUT_DIR as a reproducer whose
first lines are the command and the outcome.

  lego_fuzz.py --seconds 3600 --jobs 2 --out target/fuzz            a time-boxed run (make fuzz FUZZ_SECONDS=...)
  lego_fuzz.py --cases 300 --seed 1 --jobs 2 --out target/fuzz-smoke   the deterministic smoke run of make test

The same seed and case count give the same inputs and pass sets (the outcome of a run near the time limit can
still depend on load). Exit status: 0 when no finding, 1 otherwise."""
import argparse
import concurrent.futures
import hashlib
import os
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import outcome  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FINDINGS = ("signal", "timeout", "memory", "error-exit-0", "silent-error", "unlocated-error", "bad-exit")

# Pass sets: lego passes (with small Z3 limits, so a run stays short), pipelines and a few upstream passes.
LEGO_PASSES = [
    "--lego-normalization", "--lego-to-arith", "--lego-to-arith=assume-bounds=true", "--lego-generate-bounds-checks",
    "--lego-verify=timeout-ms=2000", "--lego-verify-bijectivity=timeout-ms=2000",
    "--lego-external-smt-verifier=timeout-ms=2000", "--lego-arith-simplification", "--lego-strength-reduction",
    "--lego-materialize-assume-bounds", "--lego-materialize-assume-bounds=cleanup=true", "--lego-lower",
]
UPSTREAM_PASSES = ["--canonicalize", "--cse", "--lower-affine", "--mlir-print-op-generic", "--split-input-file"]
CPU_PIPELINES = ["--lego-to-llvm"]
GPU_PIPELINES = ["--lego-to-nvvm=format=assembly", "--lego-to-rocdl=format=assembly", "--lego-to-spirv",
                 "--lego-to-llvmspirv=format=assembly"]

EXTREME_NUMBERS = ["0", "1", "-1", "2", "3", "7", "64", "1023", "65536", "2147483647", "2147483648", "4294967296",
                   "4611686018427387904", "9223372036854775807", "-9223372036854775808", "18446744073709551615",
                   "99999999999999999999999"]
TYPES = ["index", "i1", "i8", "i32", "i64", "f32", "f16", "!lego.layout", "memref<?xf32>", "memref<4xindex>",
         "vector<4xindex>", "tensor<4xf32>"]
TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|%[\w$.#:-]+|\^[\w$.-]+|@[\w$.-]+|![\w$.<>, ?-]+|#[\w$.-]+|-?\d+(?:\.\d+)?|[\w$.]+|->|\S')


def corpus():
    """The lit tests and examples, split into `// -----` chunks, in a fixed order."""
    chunks = []
    for path in sorted(list((ROOT / "test").rglob("*.mlir")) + list((ROOT / "examples").glob("*.mlir"))):
        if "fuzz-findings" in path.parts:
            continue
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError):
            continue
        for chunk in re.split(r"^// -----\s*$", text, flags=re.MULTILINE):
            if "func.func" in chunk or "lego." in chunk:
                chunks.append((path.relative_to(ROOT).as_posix(), chunk))
    return chunks


# ------------------------------------------------------------------------------------------------------------
# Mutation.

def mutate(text, rng):
    lines = text.split("\n")
    for _ in range(rng.choice([1, 1, 1, 2, 3, 5])):
        kind = rng.randrange(10)
        if not lines:
            break
        at = rng.randrange(len(lines))
        if kind == 0:  # an extreme number instead of a number
            numbers = [m for m in re.finditer(r"(?<![\w%#^@])-?\d+", lines[at])]
            if numbers:
                m = rng.choice(numbers)
                lines[at] = lines[at][:m.start()] + rng.choice(EXTREME_NUMBERS) + lines[at][m.end():]
        elif kind == 1:
            del lines[at]
        elif kind == 2:
            lines.insert(at, lines[rng.randrange(len(lines))])
        elif kind == 3:
            other = rng.randrange(len(lines))
            lines[at], lines[other] = lines[other], lines[at]
        elif kind == 4:  # delete or duplicate a token
            tokens = list(TOKEN.finditer(lines[at]))
            if tokens:
                m = rng.choice(tokens)
                repl = "" if rng.random() < 0.5 else m.group(0) + " " + m.group(0)
                lines[at] = lines[at][:m.start()] + repl + lines[at][m.end():]
        elif kind == 5:  # another type
            types = [m for m in re.finditer(r"\bindex\b|!lego\.layout|\bi\d+\b|\bf\d+\b", lines[at])]
            if types:
                m = rng.choice(types)
                lines[at] = lines[at][:m.start()] + rng.choice(TYPES) + lines[at][m.end():]
        elif kind == 6:  # replace a value name by another of the text
            names = re.findall(r"%[\w$.]+", text)
            uses = list(re.finditer(r"%[\w$.]+", lines[at]))
            if names and uses:
                m = rng.choice(uses)
                lines[at] = lines[at][:m.start()] + rng.choice(names) + lines[at][m.end():]
        elif kind == 7:  # join two lines (ops after ops on a line)
            if at + 1 < len(lines):
                lines[at] = lines[at] + " " + lines.pop(at + 1).strip()
        elif kind == 8:  # truncate
            cut = rng.randrange(len(text) + 1)
            return text[:cut]
        else:  # wrap a line in nesting or brackets
            depth = rng.choice([1, 10, 200, 1500])
            if rng.random() < 0.5:
                lines[at] = ("[" * depth) + lines[at] + ("]" * depth)
            else:
                lines[at] = lines[at].replace("[", "[" * depth, 1).replace("]", "]" * depth, 1)
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------------------
# Generation of structurally valid extreme layouts.

class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.count = 0
        self.args = []

    def fresh(self, prefix="v"):
        self.count += 1
        return f"%{prefix}{self.count}"

    def size(self):
        r = self.rng.random()
        if r < 0.55:
            return str(self.rng.choice([1, 2, 3, 4, 8, 16, 32, 5, 7]))
        if r < 0.7 and self.args:
            return self.rng.choice(self.args)
        if r < 0.8:
            return str(self.rng.choice([1 << 16, 1 << 31, (1 << 31) - 1, 1 << 32, 1 << 40, (1 << 62), (1 << 63) - 1]))
        c = self.fresh("c")
        self.lines.append(f"  {c} = arith.constant {self.rng.choice([1, 2, 64, 1 << 20, 1 << 33])} : index")
        return c

    def dims(self, rank):
        return [self.size() for _ in range(rank)]

    def leaf(self):
        """A leaf layout: (name, its dims as written)."""
        dims = self.dims(self.rng.choice([1, 1, 2, 2, 3, 4, 8]))
        name = self.fresh("l")
        kind = self.rng.randrange(4)
        if kind == 0:
            self.lines.append(f"  {name} = lego.row {show(dims)} : !lego.layout")
        elif kind == 1:
            self.lines.append(f"  {name} = lego.col {show(dims)} : !lego.layout")
        elif kind == 2:
            perm = list(range(len(dims)))
            self.rng.shuffle(perm)
            self.lines.append(f"  {name} = lego.reg_p perm {perm} dims {show(dims)} : !lego.layout")
        else:
            return self.gen_p(dims)
        return name, dims

    def expression(self, values):
        """A random index expression over `values` (unusual ops included); returns the result name."""
        pool = list(values)
        for _ in range(self.rng.randrange(1, 6)):
            op = self.rng.choice(["addi", "muli", "subi", "divui", "remui", "shli", "shrui", "minui", "maxui",
                                  "xori", "andi", "ceildivui", "select", "const"])
            out = self.fresh("e")
            a, b = self.rng.choice(pool), self.rng.choice(pool)
            if op == "const":
                self.lines.append(f"    {out} = arith.constant {self.rng.choice(EXTREME_NUMBERS[:12])} : index")
            elif op == "select":
                cond = self.fresh("p")
                self.lines.append(f"    {cond} = arith.cmpi ult, {a}, {b} : index")
                self.lines.append(f"    {out} = arith.select {cond}, {a}, {b} : index")
            else:
                self.lines.append(f"    {out} = arith.{op} {a}, {b} : index")
            pool.append(out)
        return pool[-1]

    def gen_p(self, dims):
        rank = len(dims)
        name = self.fresh("g")
        args = [self.fresh("a") for _ in range(rank)]
        self.lines.append(f"  {name} = lego.gen_p {show(dims)} apply (" + ", ".join(f"{a}: index" for a in args) + ") {")
        result = self.expression(args)
        self.lines.append(f"    lego.yield {result} : index")
        if self.rng.random() < 0.5:
            x = self.fresh("x")
            self.lines.append(f"  }} inv ({x}: index) {{")
            outs = [self.expression([x]) for _ in range(rank)]
            self.lines.append(f"    lego.yield {', '.join(outs)} : {', '.join(['index'] * rank)}")
        self.lines.append("  } : !lego.layout")
        return name, dims

    def split(self, dim):
        """Two tile sizes whose product is `dim` (1 and the size itself when it is not a literal)."""
        if not dim.lstrip("-").isdigit():
            return "1", dim
        value = int(dim)
        factors = [f for f in (2, 4, 8, 3, 5, 7, 16, 1 << 16) if value > 0 and value % f == 0]
        first = self.rng.choice(factors) if factors else 1
        return str(first), str(value // first if first else value)

    def layout(self, depth):
        """A chain of `depth` constructors over a leaf, valid by construction most of the time (the size rules
        are followed where the sizes are literals; a few choices break them on purpose)."""
        name, dims = self.leaf()
        for _ in range(depth):
            kind = self.rng.randrange(6)
            out = self.fresh("l")
            if kind == 0 and self.rng.random() < 0.3:
                other, other_dims = self.leaf()
                self.lines.append(f"  {out} = lego.order_by({name}, {other}) : !lego.layout")
                dims = dims + other_dims
            elif kind == 1:
                literal = all(d.isdigit() for d in dims)
                volume = 1
                for d in dims:
                    volume *= int(d) if d.isdigit() else 1
                group = list(self.split(str(volume))) if literal and self.rng.random() < 0.9 else self.dims(2)
                self.lines.append(f"  {out} = lego.group_by {show(group)}({name}) : !lego.layout")
                dims = group
            elif kind == 2:
                pairs = [self.split(d) for d in dims]
                wrapped = self.fresh("l")
                self.lines.append(f"  {wrapped} = lego.order_by({name}) : !lego.layout")
                levels = [[a for a, _ in pairs], [b for _, b in pairs]]
                self.lines.append(f"  {out} = lego.tile_by {wrapped} tile_dims [{show(levels[0])}, {show(levels[1])}] : !lego.layout")
                dims = levels[0] + levels[1]
            elif kind == 3:
                inner = [str(self.rng.randint(1, int(d))) if d.isdigit() and int(d) < 1 << 20 else d for d in dims]
                self.lines.append(f"  {out} = lego.expand_by {name} dims {show(inner)} to {show(dims)} : !lego.layout")
            else:
                self.lines.append(f"  {out} = lego.order_by({name}) : !lego.layout")
            name = out
            if len(dims) > 8:
                break
        return name, dims


def show(dims):
    return "[" + ", ".join(dims) + "]"


def generate(rng):
    g = Gen(rng)
    g.args = [f"%n{k}" for k in range(rng.choice([0, 1, 2]))]
    depth = rng.choice([0, 1, 2, 3, 5, 20, 200, 3000])
    layout, dims = g.layout(depth)
    rank = len(dims)
    indices = [f"%i{k}" for k in range(rank)]
    volume = 1
    for d in dims:
        volume = volume * int(d) if d.isdigit() and volume is not None else None
    memref = f"memref<{volume}xf32>" if volume and volume < 1 << 24 and rng.random() < 0.8 else "memref<?xf32>"
    params = [f"{v}: index" for v in g.args + indices] + [f"%m: {memref}"]
    body = list(g.lines)
    tail = [f"  %f = lego.apply {layout}({', '.join(indices)}) : !lego.layout"]
    if rng.random() < 0.4:
        outs = [g.fresh("q") for _ in range(rank)]
        tail.append(f"  {', '.join(outs)} = lego.apply_inverse {layout}(%f) : !lego.layout -> {', '.join(['index'] * rank)}")
    if rng.random() < 0.3:
        tail.append(f"  lego.assume_bounds %f ub : {indices[0]}")
    if rng.random() < 0.3:
        tail.append(f"  %v = lego.cast_view %m, {layout} : {memref}, !lego.layout -> !lego.view<f32>")
        tail.append(f"  %x = lego.load %v[{', '.join(indices)}] : !lego.view<f32>, {', '.join(['index'] * rank)}")
    text = "func.func @f(" + ", ".join(params) + ") -> index {\n" + "\n".join(body + tail) + "\n  return %f : index\n}\n"
    if rng.random() < 0.05:
        # Layout ops in a graph region may name each other in a cycle.
        text += ('"test.graph"() ({\n  %ga = "lego.order_by"(%gb) : (!lego.layout) -> !lego.layout\n'
                 '  %gb = "lego.order_by"(%ga) : (!lego.layout) -> !lego.layout\n  %gi = "test.index"() : () -> index\n'
                 '  %gx = lego.apply %ga(%gi) : !lego.layout\n  "test.use"(%gx) : (index) -> ()\n}) : () -> ()\n')
    if rng.random() < 0.2:
        launch = ("func.func @k(%m: memref<64xindex>) {\n  %one = arith.constant 1 : index\n"
                  f"  %t = arith.constant {rng.choice(['32', '1', '1024', '2147483648', '0'])} : index\n"
                  "  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one) threads(%tx, %ty, %tz)"
                  " in (%sx = %t, %sy = %one, %sz = %one) {\n"
                  "    %l = lego.row [8, 8] : !lego.layout\n    %f = lego.apply %l(%tx, %ty) : !lego.layout\n"
                  "    memref.store %f, %m[%tx] : memref<64xindex>\n    gpu.terminator\n  }\n  return\n}\n")
        text += launch
    return text


# ------------------------------------------------------------------------------------------------------------
# Running, minimizing, reporting.

def pass_set(rng, text):
    flags = []
    count = rng.choice([0, 1, 1, 1, 2, 3])
    for _ in range(count):
        r = rng.random()
        if r < 0.6:
            flags.append(rng.choice(LEGO_PASSES))
        elif r < 0.75:
            flags.append(rng.choice(UPSTREAM_PASSES))
        elif "gpu.launch" in text:
            flags.append(rng.choice(GPU_PIPELINES))
        else:
            flags.append(rng.choice(CPU_PIPELINES))
    if "unregistered" in text or '"test.' in text:
        flags.append("--allow-unregistered-dialect")
    return flags


def make_case(rng, chunks):
    if rng.random() < 0.55 and chunks:
        source, text = chunks[rng.randrange(len(chunks))]
        text = mutate(text, rng)
        origin = f"mutation of {source}"
    else:
        text = generate(rng)
        origin = "generated"
    return origin, text, pass_set(rng, text)


def run_case(lego_opt, text, flags, timeout, memory_mib, work_dir, name):
    path = Path(work_dir) / f"{name}.mlir"
    path.write_text(text)
    try:
        return outcome.run([lego_opt, str(path)] + flags, timeout=timeout, memory_mib=memory_mib)
    finally:
        path.unlink(missing_ok=True)


def signature(result, flags):
    """What distinguishes one defect from another: the class and the first telling stderr line, numbers out."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    telling = next((line for line in lines if "error" in line or "panicked" in line or "overflow" in line), "")
    telling = re.sub(r"^.*?:\d+:\d+: ", "", telling)
    if result.outcome in ("timeout", "memory") and not telling:
        # Nothing was printed: the pass set is the best hint of where the time went.
        telling = " ".join(sorted({flag.split("=")[0] for flag in flags}))
    return result.outcome + ": " + re.sub(r"\d+", "N", telling)[:160]


def minimize(lego_opt, text, flags, klass, args, work_dir, budget_seconds):
    """Line-wise delta debugging: drop chunks of lines while the outcome class stays the same."""
    lines = text.split("\n")
    deadline = time.monotonic() + budget_seconds
    chunk = max(1, len(lines) // 2)
    attempt = 0
    while chunk >= 1 and time.monotonic() < deadline:
        changed = False
        start = 0
        while start < len(lines) and time.monotonic() < deadline:
            candidate = lines[:start] + lines[start + chunk:]
            attempt += 1
            result = run_case(lego_opt, "\n".join(candidate), flags, args.timeout, args.memory_mib, work_dir,
                              f"min-{os.getpid()}-{attempt}")
            if result.outcome == klass:
                lines = candidate
                changed = True
            else:
                start += chunk
        if not changed:
            chunk //= 2
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lego-opt", default=str(ROOT / "target" / "release" / "lego-opt"))
    parser.add_argument("--seconds", type=float, default=None, help="stop after this long")
    parser.add_argument("--cases", type=int, default=None, help="stop after this many cases")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=20.0, help="CPU seconds per run (a longer run is a finding; wall time is capped at max(4x, +60 s))")
    parser.add_argument("--memory-mib", type=int, default=4096, help="address-space limit per run")
    parser.add_argument("--minimize-seconds", type=float, default=60.0)
    parser.add_argument("--out", default=str(ROOT / "target" / "fuzz"))
    args = parser.parse_args()
    if args.seconds is None and args.cases is None:
        args.seconds = 60.0
    seed = args.seed if args.seed is not None else int(time.time())
    rng = random.Random(seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = out / "work"
    work.mkdir(exist_ok=True)
    if not os.access(args.lego_opt, os.X_OK):
        sys.exit(f"lego-fuzz: {args.lego_opt} is not an executable (cargo build --release -p lego-opt)")
    chunks = corpus()
    print(f"lego-fuzz: seed {seed}, {len(chunks)} corpus chunks, {args.jobs} jobs, {args.timeout:g} CPU s and "
          f"{args.memory_mib} MiB per run, {args.lego_opt}", flush=True)

    started = time.monotonic()
    counts = {}
    findings = {}  # signature -> (case, result)
    slowest = (0.0, "")
    case_number = 0

    def cases():
        nonlocal case_number
        while True:
            if args.cases is not None and case_number >= args.cases:
                return
            if args.seconds is not None and time.monotonic() - started > args.seconds:
                return
            case_number += 1
            yield case_number, make_case(rng, chunks)

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        pending = {}
        generator = cases()
        while True:
            while len(pending) < args.jobs * 2:
                try:
                    number, case = next(generator)
                except StopIteration:
                    break
                origin, text, flags = case
                future = pool.submit(run_case, args.lego_opt, text, flags, args.timeout, args.memory_mib, work,
                                     f"case-{number}")
                pending[future] = (number, case)
            if not pending:
                break
            done, _ = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                number, (origin, text, flags) = pending.pop(future)
                result = future.result()
                counts[result.outcome] = counts.get(result.outcome, 0) + 1
                if result.cpu_seconds > slowest[0]:
                    slowest = (result.cpu_seconds, f"case {number} ({origin}, {' '.join(flags) or 'parse only'})")
                if result.outcome in FINDINGS:
                    key = signature(result, flags)
                    if key not in findings:
                        findings[key] = (number, origin, text, flags, result)
                        print(f"  case {number}: {result.outcome} ({origin}, {' '.join(flags) or 'parse only'}): "
                              f"{key}", flush=True)

    # Minimize and write one reproducer per distinct finding (sequentially: minimization runs many cases).
    for key, (number, origin, text, flags, result) in sorted(findings.items()):
        small = minimize(args.lego_opt, text, flags, result.outcome, args, work, args.minimize_seconds)
        digest = hashlib.sha1(key.encode()).hexdigest()[:10]
        # The signature names the class and flags, not the input: runs with other seeds find other inputs of
        # the same signature, so the seed is part of the name (a reproducer never overwrites an older one).
        path = out / f"{result.outcome}-{digest}-seed{seed}.mlir"
        command = " ".join(["lego-opt", path.name] + [f"'{f}'" if " " in f else f for f in flags])
        header = (f"// RUN: {command}\n// Outcome: {result.outcome} (exit status {result.returncode}, "
                  f"{result.seconds:.1f} s, {result.cpu_seconds:.1f} s CPU, {result.max_rss_mib:.0f} MiB); found by lego-fuzz seed {seed}, case "
                  f"{number} ({origin})\n// Signature: {key}\n")
        path.write_text(header + small + "\n")
        print(f"  reproducer: {path}", flush=True)

    elapsed = time.monotonic() - started
    total = sum(counts.values())
    print(f"lego-fuzz: {total} runs in {elapsed:.0f} s (seed {seed}); outcomes: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])))
    print(f"lego-fuzz: slowest run {slowest[0]:.1f} s CPU: {slowest[1]}")
    print(f"lego-fuzz: {len(findings)} distinct finding(s)" + (f", reproducers in {out}" if findings else ""))
    try:
        work.rmdir()
    except OSError:
        pass
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
