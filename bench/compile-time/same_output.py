#!/usr/bin/env python3
"""Checks that two lego-opt binaries behave byte-identically: stdout, stderr and exit code.

    bench/compile-time/same_output.py BASE NEW [--sizes 2000,10000] [--shapes functions,applies,kernels]
                                     [--jobs 2] [--no-tests]

Runs, with both binaries, from the repository root:
- every `lego-opt` RUN line of every `.mlir` under test/ (the part before the first `|` or redirection,
  `%s` and `%examples` substituted), as lit would;
- every `.mlir` under test/ and examples/ plainly, with `--lego-lower`, with `--lego-to-llvm`, with
  `--mlir-print-op-generic`, and
  with `--mlir-print-debuginfo` (each with `--split-input-file` where the file's RUN lines use it), since
  these exercise reading and writing the custom syntax on every corner the tests hold;
- `gen.py SHAPE N --ssa-dims` files (the compile-time benchmark's inputs) with no pass, with `--lego-lower`,
  with `--lego-to-llvm`, and with `--mlir-print-op-generic`.

Prints each difference and exits 1 if there is any. compare.py checks the `--lego-lower` output of its own
timing runs; this script is the wider check a change to the parser or printer needs.
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "bench", "compile-time", "gen.py")
TIMEOUT = 300


def run_lines(path):
    """The `lego-opt` commands of the file's RUN lines, as argument lists without the binary."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    lines, pending = [], ""
    for match in re.finditer(r"RUN:(.*)", text):
        part = match.group(1).rstrip()
        if part.endswith("\\"):
            pending += part[:-1] + " "
            continue
        lines.append(pending + part)
        pending = ""
    commands = []
    for line in lines:
        line = line.replace("%s", path).replace("%examples", os.path.join(ROOT, "examples"))
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        if words[:1] == ["not"]:
            words = words[1:]
        if words[:1] != ["lego-opt"]:
            continue
        args = []
        for word in words[1:]:
            if word in ("|", ">", "2>", "2>&1", "&&", ";") or word.startswith(">") or word.startswith("2>"):
                break
            args.append(word)
        if "%" in " ".join(args):
            continue  # another substitution (%t, ...): not reproducible outside lit
        commands.append(args)
    return commands, "--split-input-file" in text


# Output that differs from run to run of the same binary: the GPU targets record how long LLVM took.
UNSTABLE = re.compile(rb"LLVMIRToISATimeInMs = \d+")


def outcome(binary, args):
    try:
        done = subprocess.run([binary] + args, cwd=ROOT, capture_output=True, timeout=TIMEOUT)
        return done.returncode, UNSTABLE.sub(b"", done.stdout), done.stderr
    except subprocess.TimeoutExpired:
        return "timeout", b"", b""


def compare(base, new, args):
    a, b = outcome(base, args), outcome(new, args)
    if a == b:
        return None
    what = [name for name, x, y in zip(("exit code", "stdout", "stderr"), a, b) if x != y]
    return f"DIFFERENT ({', '.join(what)}): lego-opt {shlex.join(args)}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--sizes", default="2000,10000")
    parser.add_argument("--shapes", default="functions,applies,kernels")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-tests", action="store_true", help="only the generated files")
    args = parser.parse_args()
    base, new = os.path.abspath(args.base), os.path.abspath(args.new)

    jobs = []
    if not args.no_tests:
        files = []
        for top in ("test", "examples"):
            for directory, _, names in os.walk(os.path.join(ROOT, top)):
                files += [os.path.join(directory, name) for name in names if name.endswith(".mlir")]
        for path in sorted(files):
            commands, split = run_lines(path)
            jobs += commands
            extra = ["--split-input-file"] if split else []
            for flags in ([], ["--lego-lower"], ["--lego-to-llvm"], ["--mlir-print-op-generic"], ["--mlir-print-debuginfo"]):
                jobs.append([path] + extra + flags)
    work = tempfile.mkdtemp(prefix="lego-same-output-")
    sizes = [int(size) for size in args.sizes.split(",") if size]
    for shape in args.shapes.split(","):
        for size in sizes:
            path = os.path.join(work, f"{shape}-{size}.mlir")
            with open(path, "w") as out:
                subprocess.run([sys.executable, GEN, shape, str(size), "--ssa-dims"], stdout=out, check=True)
            for flags in ([], ["--lego-lower"], ["--lego-to-llvm"], ["--mlir-print-op-generic"]):
                jobs.append([path] + flags)

    differences = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for result in pool.map(lambda job: compare(base, new, job), jobs):
            if result:
                differences += 1
                print(result, flush=True)
    print(f"{len(jobs)} commands, {differences} different", flush=True)
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
