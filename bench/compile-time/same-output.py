#!/usr/bin/env python3
"""Checks that two lego-opt binaries print byte-identical output (stdout, stderr, exit code) on every `.mlir`
under test/ — with `--split-input-file` where the file's RUN lines use it — for each of the pipeline flags
(default `--lego-lower` and `--lego-to-llvm`), and on `gen.py SHAPE N --ssa-dims` files (default N = 2000 with
both flags, 10 000 with `--lego-lower`). The check that every compile-time change of issue 25 must pass.

    bench/compile-time/same-output.py BASE NEW [--flags=--lego-lower,--lego-to-llvm] [--gen 2000:both,10000:lower]
                                      [--no-tests] [--no-gen]

Prints each difference and exits 1 if there is any.
"""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "bench", "compile-time", "gen.py")


def run(binary, args, timeout=600):
    try:
        done = subprocess.run([binary, *args], capture_output=True, timeout=timeout)
        # Messages name the binary only through argv[0] (usage lines): make them comparable.
        err = done.stderr.replace(binary.encode(), b"LEGO_OPT")
        return done.returncode, done.stdout, err
    except subprocess.TimeoutExpired:
        return "timeout", b"", b""


def compare(base, new, args, label):
    a, b = run(base, args), run(new, args)
    if a == b:
        return True
    what = [name for name, x, y in zip(("exit code", "stdout", "stderr"), a, b) if x != y]
    print(f"DIFFERENT ({', '.join(what)}): {label}", flush=True)
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--flags", default="--lego-lower,--lego-to-llvm")
    parser.add_argument("--gen", default="2000:both,10000:lower")
    parser.add_argument("--no-tests", action="store_true")
    parser.add_argument("--no-gen", action="store_true")
    args = parser.parse_args()
    flags = args.flags.split(",")
    same = checked = 0
    if not args.no_tests:
        files = []
        for directory, _, names in os.walk(os.path.join(ROOT, "test")):
            files += [os.path.join(directory, name) for name in names if name.endswith(".mlir")]
        for path in sorted(files):
            with open(path, encoding="utf-8", errors="replace") as f:
                split = "--split-input-file" in f.read()
            for flag in flags:
                extra = ["--split-input-file"] if split else []
                checked += 1
                same += compare(args.base, args.new, [path, flag, *extra], f"{os.path.relpath(path, ROOT)} {flag} {' '.join(extra)}")
    if not args.no_gen:
        with tempfile.TemporaryDirectory() as tmp:
            for item in args.gen.split(","):
                size, which = item.split(":")
                for shape in ("functions", "applies", "kernels"):
                    path = os.path.join(tmp, f"{shape}-{size}.mlir")
                    with open(path, "wb") as out:
                        subprocess.run([sys.executable, GEN, shape, size, "--ssa-dims"], stdout=out, check=True)
                    for flag in flags if which == "both" else ["--lego-lower"]:
                        checked += 1
                        same += compare(args.base, args.new, [path, flag], f"gen.py {shape} {size} --ssa-dims {flag}")
    print(f"{same}/{checked} identical")
    sys.exit(0 if same == checked else 1)


if __name__ == "__main__":
    main()
