#!/usr/bin/env python3
"""Runs every lego pass (the names `lego-opt --list-passes` prints, with a few option variants) on every lit
input file of the repository and fails on a crash: a signal (exit status >= 128, or a negative status from
Python's subprocess), or a Rust panic (101). Diagnostics with exit 1 are fine — bad input may be refused, never
crash (issue 12, "Bad input").

    run_every_pass.py LEGO_OPT TEST_DIR [--jobs N] [--timeout S]

A run over the time limit is reported but is not a crash (the compile-time issues own those).

Each pass first runs once on all files joined into one `--split-input-file` input (every file a chunk, or its own
chunks): thousands of process start-ups of a statically linked lego-opt would otherwise cost more than the
passes. Only when that run crashes or times out are the files run one by one, to name the culprit."""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

# Whole-program pipelines whose work after lego-lower is upstream's (GPU serialization, LLVM's SPIR-V and
# WebAssembly backends): lego-lower itself is run on every file, these are not. (lego-to-wasm is lego-to-llvm,
# which is run, then lego-wasm-emit, which is run too.)
TARGET_PIPELINES = {"lego-to-nvvm", "lego-to-rocdl", "lego-to-spirv", "lego-to-xevm", "lego-to-llvmspirv", "lego-to-wasm"}

# Option variants besides each pass's defaults.
VARIANTS = [
    "--lego-to-arith=assume-bounds=true",
    "--lego-materialize-assume-bounds=cleanup=true",
    "--lego-materialize-assume-bounds=clamp=true",
    "--lego-materialize-assume-bounds=cleanup=true consume-facts=true",
    "--lego-materialize-assume-bounds=cleanup=true only-layout-contract=true",
    "--lego-arith-simplification=assume-no-wrap=false",
    "--convert-lego-to-linalg=vectorize=true",
]


def lego_passes(lego_opt):
    listed = subprocess.run([lego_opt, "--list-passes"], capture_output=True, text=True, check=True).stdout
    # convert-lego-to-linalg is ours too, under its published name.
    names = sorted(set(re.findall(r"^\s*--((?:convert-)?lego-[a-z0-9-]+)", listed, re.MULTILINE)))
    return [f"--{name}" for name in names if name not in TARGET_PIPELINES] + VARIANTS


def inputs(test_dir):
    for directory, _, files in os.walk(test_dir):
        for name in sorted(files):
            if name.endswith(".mlir"):
                yield os.path.join(directory, name)


def join_inputs(files, directory):
    """All files as one `--split-input-file` input."""
    path = os.path.join(directory, "all-inputs.mlir")
    with open(path, "w") as out:
        for index, name in enumerate(files):
            if index:
                out.write("\n// -----\n")
            with open(name, errors="replace") as text:
                out.write(text.read())
    return path


def crashed(status):
    """A signal (negative from subprocess, or >= 128 from a shell) or a Rust panic (101)."""
    return status is not None and (status < 0 or status >= 128 or status == 101)


def run(lego_opt, path, flag, timeout):
    command = [lego_opt, path, "--split-input-file", flag, "-o", os.devnull]
    try:
        status = subprocess.run(command, capture_output=True, timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        return command, None
    return command, status


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("lego_opt")
    parser.add_argument("test_dir")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--timeout", type=float, default=60)
    arguments = parser.parse_args()
    flags = lego_passes(arguments.lego_opt)
    files = list(inputs(arguments.test_dir))
    crashes, slow, total = [], [], 0
    with tempfile.TemporaryDirectory() as scratch:
        joined = join_inputs(files, scratch)
        with concurrent.futures.ThreadPoolExecutor(arguments.jobs) as pool:
            # A joined run may take as long as a few slow files.
            whole = {pool.submit(run, arguments.lego_opt, joined, flag, 4 * arguments.timeout): flag for flag in flags}
            retry = {}  # flag -> the joined run's status (None: over the time limit)
            for job in concurrent.futures.as_completed(whole):
                _, status = job.result()
                if crashed(status) or status is None:
                    retry[whole[job]] = status
                else:
                    total += len(files)
            jobs = [pool.submit(run, arguments.lego_opt, path, flag, arguments.timeout) for flag in retry for path in files]
            culprits = set()
            for job in concurrent.futures.as_completed(jobs):
                command, status = job.result()
                total += 1
                if status is None:
                    slow.append(command)
                elif crashed(status):
                    crashes.append((status, command))
                    culprits.add(command[3])
            # The joined input crashed but no file alone does: state leaks between chunks, a crash all the same.
            for flag, status in retry.items():
                if status is not None and flag not in culprits:
                    crashes.append((status, [arguments.lego_opt, "<all inputs joined>", "--split-input-file", flag]))
    for command in slow:
        print(f"over {arguments.timeout:.0f} s (not a crash): {' '.join(command)}")
    for status, command in sorted(crashes, key=lambda item: item[1]):
        print(f"CRASH (exit {status}): {' '.join(command)}")
    print(f"{total} runs ({len(files)} files x {len(flags)} passes), {len(crashes)} crashes, {len(slow)} over the time limit")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
