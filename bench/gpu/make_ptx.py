#!/usr/bin/env python3
"""Compile the GPU examples to PTX with lego-opt, for bench/gpu/run.py (which runs on the GPU machine).

    python3 bench/gpu/make_ptx.py                 # from the repository root, after `cargo build`
    python3 bench/gpu/make_ptx.py --chip sm_80 --features +ptx70 --lego-opt target/release/lego-opt

For every example it runs
    lego-opt <example> --lego-to-nvvm='chip=<chip> features=<features> format=assembly'
takes the PTX out of the resulting `gpu.binary` and writes bench/gpu/ptx/<example>[_<N>].ptx, plus
bench/gpu/ptx/manifest.json (kernel names, parameters, launch shapes, the exact lego-opt commands). The
transposes are compiled for N = 2048, 4096 and 8192: the example files are written for N = 8192, and the
smaller sizes are the same text with 8192, N·N and the tile count substituted (the only places N occurs).

Needs only Python 3 (no third-party module). Exits 1 with a message on any failure.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIZES = (2048, 4096, 8192)

# Each example: file, kernel (outlined from the host function `<name>` as `<name>_kernel`), pointer
# parameters in order, launch shape, and — for the transposes — the tile edge used to derive the grid.
EXAMPLES = [
    {"example": "transpose-naive", "kernel": "transpose_naive_kernel", "params": ["in", "out"],
     "block": [32, 8, 1], "tile": 32, "sized": True},
    {"example": "transpose-smem", "kernel": "transpose_smem_kernel", "params": ["in", "out"],
     "block": [32, 8, 1], "tile": 32, "sized": True},
    {"example": "transpose-smem64", "kernel": "transpose_smem64_kernel", "params": ["in", "out"],
     "block": [32, 16, 1], "tile": 64, "sized": True},
    {"example": "matmul-tiled", "kernel": "matmul_kernel", "params": ["A", "B", "C"],
     "block": [16, 16, 1], "grid": [64, 64, 1], "sized": False, "size": 1024},
    {"example": "nw-antidiagonal", "kernel": "nw_kernel", "params": ["ref", "score"],
     "block": [32, 1, 1], "grid": [1024, 1, 1], "sized": False, "problems": 1024, "tile": 32, "penalty": 10},
]


def fail(message):
    print(f"make_ptx.py: error: {message}", file=sys.stderr)
    sys.exit(1)


def substitute(text, n, tile):
    """The N = 8192 example text for another N: 8192 → N, 8192² → N², 8192/tile → N/tile."""
    replacements = {str(8192 * 8192): str(n * n), "8192": str(n), str(8192 // tile): str(n // tile)}
    for old, new in replacements.items():
        pattern = re.compile(r"(?<![0-9.])" + re.escape(old) + r"(?![0-9])")
        if not pattern.search(text):
            fail(f"expected '{old}' in the example text (the N = 8192 form) — was the example changed?")
        text = pattern.sub(new, text)
    return text


def unescape_mlir_string(body):
    """MLIR prints string attributes with \\XX hex escapes for non-printable bytes, \\22 for quotes, \\\\."""
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            if body[i + 1] == "\\":
                out.append(0x5C)
                i += 2
                continue
            if i + 2 < len(body) and re.fullmatch(r"[0-9A-Fa-f]{2}", body[i + 1:i + 3]):
                out.append(int(body[i + 1:i + 3], 16))
                i += 3
                continue
            for escaped, byte in (("n", 0x0A), ("t", 0x09), ("\"", 0x22)):
                if body[i + 1] == escaped:
                    out.append(byte)
                    i += 2
                    break
            else:
                out.extend(c.encode())
                i += 1
            continue
        out.extend(c.encode())
        i += 1
    return out.decode()


def extract_ptx(mlir_text):
    """PTX of every `#gpu.object<..., assembly = "...">` in lego-opt's output."""
    bodies = re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', mlir_text)
    return [unescape_mlir_string(body) for body in bodies]


def entry_signature(ptx):
    match = re.search(r"\.visible \.entry (\w+)\(([^)]*)\)", ptx)
    if not match:
        return None, 0
    return match.group(1), len(re.findall(r"\.param", match.group(2)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lego-opt", default=None, help="lego-opt binary (default: target/release, else target/debug)")
    parser.add_argument("--chip", default="sm_90", help="NVIDIA architecture (default sm_90, the H100)")
    parser.add_argument("--features", default="+ptx80", help="PTX ISA feature (default +ptx80)")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "gpu", "ptx"), help="output folder")
    args = parser.parse_args()

    lego_opt = args.lego_opt
    if lego_opt is None:
        for profile in ("release", "debug"):
            candidate = os.path.join(ROOT, "target", profile, "lego-opt")
            if os.access(candidate, os.X_OK):
                lego_opt = candidate
                break
        else:
            fail("no lego-opt under target/release or target/debug: run `cargo build` first (or pass --lego-opt)")
    elif not os.access(lego_opt, os.X_OK):
        fail(f"'{lego_opt}' is not an executable lego-opt")
    os.makedirs(args.out, exist_ok=True)
    pipeline = f"--lego-to-nvvm=chip={args.chip} features={args.features} format=assembly"

    manifest = {"chip": args.chip, "features": args.features, "pipeline": pipeline, "kernels": []}
    for spec in EXAMPLES:
        source_path = os.path.join(ROOT, "examples", spec["example"] + ".mlir")
        try:
            with open(source_path, encoding="utf-8") as file:
                source = file.read()
        except OSError as error:
            fail(f"cannot read {source_path}: {error}")
        sizes = SIZES if spec["sized"] else (None,)
        for n in sizes:
            text = substitute(source, n, spec["tile"]) if n else source
            stem = f"{spec['example']}_{n}" if n else spec["example"]
            with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as temporary:
                temporary.write(text)
                input_path = temporary.name
            command = [lego_opt, input_path, pipeline]
            try:
                result = subprocess.run(command, capture_output=True, text=True, check=False)
            finally:
                os.unlink(input_path)
            if result.returncode != 0:
                fail(f"lego-opt failed on {stem} (exit {result.returncode}):\n{result.stderr.strip()}")
            ptxs = extract_ptx(result.stdout)
            if len(ptxs) != 1:
                fail(f"{stem}: expected one PTX object in lego-opt's output, found {len(ptxs)}")
            ptx = ptxs[0]
            name, params = entry_signature(ptx)
            if name != spec["kernel"] or params != len(spec["params"]):
                fail(f"{stem}: expected kernel {spec['kernel']} with {len(spec['params'])} parameters, "
                     f"the PTX has {name} with {params}")
            ptx_path = os.path.join(args.out, stem + ".ptx")
            with open(ptx_path, "w", encoding="utf-8") as file:
                file.write(ptx)
            entry = {key: value for key, value in spec.items() if key not in ("sized",)}
            entry.update({"ptx": stem + ".ptx", "command": f"lego-opt examples/{spec['example']}.mlir '{pipeline}'"})
            if n:
                entry["n"] = n
                entry["grid"] = [n // spec["tile"], n // spec["tile"], 1]
                if n != 8192:
                    entry["command"] += f"  (after substituting N = {n} for 8192)"
            manifest["kernels"].append(entry)
            print(f"wrote {os.path.relpath(ptx_path, ROOT)}  ({name}, {params} pointer parameters)")
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8") as file:
        json.dump(manifest, file, indent=2)
        file.write("\n")
    print(f"wrote {os.path.relpath(os.path.join(args.out, 'manifest.json'), ROOT)}")


if __name__ == "__main__":
    main()
