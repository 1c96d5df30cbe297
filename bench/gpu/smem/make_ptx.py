#!/usr/bin/env python3
"""Compile the shared-memory layout kernels to PTX, each as written and with lego-choose-smem-layout, and record
lego-analyze-memory's predictions (build machine; bench/gpu/smem/run.py runs them on the GPU).

    python3 bench/gpu/smem/make_ptx.py [--lego-opt target/debug/lego-opt]

Writes bench/gpu/smem/ptx/<variant>.ptx and ptx/manifest.json: per variant the kernel, launch shape, the exact
lego-opt command, the chooser's remark, and lego-analyze-memory's per-access table (--lego-report=json) of the
compiled kernel. Needs only Python 3. Exits 1 with a message on any failure.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))
import make_ptx as base  # noqa: E402  (bench/gpu/make_ptx.py: PTX extraction)

CHOOSE = "--lego-choose-smem-layout"
TRANSPOSE_F32 = {"kernel": "transpose_f32_kernel", "params": ["in", "out"], "block": [32, 8, 1], "grid": [256, 256, 1],
                 "kind": "transpose", "dtype": "float32", "n": 8192}
TRANSPOSE_F32_64 = {"kernel": "transpose_f32_64_kernel", "params": ["in", "out"], "block": [32, 16, 1], "grid": [128, 128, 1],
                    "kind": "transpose", "dtype": "float32", "n": 8192}
TRANSPOSE_F16 = {"kernel": "transpose_f16_kernel", "params": ["in", "out"], "block": [4, 64, 1], "grid": [128, 128, 1],
                 "kind": "transpose", "dtype": "float16", "n": 8192}
TRANSPOSE_F16_64 = {"kernel": "transpose_f16_64_kernel", "params": ["in", "out"], "block": [8, 16, 1], "grid": [128, 128, 1],
                    "kind": "transpose", "dtype": "float16", "n": 8192}
TRANSPOSE_F16_X4 = {"kernel": "transpose_f16_x4_kernel", "params": ["in", "out"], "block": [4, 64, 1], "grid": [64, 128, 1],
                    "kind": "transpose", "dtype": "float16", "n": 8192}
TRANSPOSE_F16_128 = {"kernel": "transpose_f16_128_kernel", "params": ["in", "out"], "block": [16, 32, 1], "grid": [64, 64, 1],
                     "kind": "transpose", "dtype": "float16", "n": 8192}
TRANSPOSE_F32_VEC = {"kernel": "transpose_f32_vec_kernel", "params": ["in", "out"], "block": [16, 16, 1], "grid": [128, 128, 1],
                     "kind": "transpose", "dtype": "float32", "n": 8192}
MATMUL = {"kernel": "matmul_kernel", "params": ["A", "B", "C"], "block": [16, 16, 1], "grid": [64, 64, 1],
          "kind": "matmul", "dtype": "float32", "n": 1024}
# (variant, source, choose?, shape, role)
VARIANTS = [
    ("f32-plain", "bench/gpu/smem/transpose-f32-plain.mlir", False, TRANSPOSE_F32, "plain tile, as written"),
    ("f32-chosen", "bench/gpu/smem/transpose-f32-plain.mlir", True, TRANSPOSE_F32, "plain tile + lego-choose-smem-layout"),
    ("f32-padded", "examples/transpose-smem.mlir", False, dict(TRANSPOSE_F32, kernel="transpose_smem_kernel"), "hand-padded (33 words a row)"),
    ("f32-64-plain", "bench/gpu/smem/transpose-f32-64-plain.mlir", False, TRANSPOSE_F32_64, "plain 64×64 tile, as written"),
    ("f32-64-chosen", "bench/gpu/smem/transpose-f32-64-plain.mlir", True, TRANSPOSE_F32_64, "plain 64×64 tile + lego-choose-smem-layout"),
    ("f32-64-padded", "examples/transpose-smem64.mlir", False, dict(TRANSPOSE_F32_64, kernel="transpose_smem64_kernel"), "hand-padded 64×64 (65 words a row)"),
    ("f16-plain", "bench/gpu/smem/transpose-f16-plain.mlir", False, TRANSPOSE_F16, "plain tile, as written"),
    ("f16-chosen", "bench/gpu/smem/transpose-f16-plain.mlir", True, TRANSPOSE_F16, "plain tile + lego-choose-smem-layout"),
    ("f16-padded", "bench/gpu/smem/transpose-f16-padded.mlir", False, TRANSPOSE_F16, "hand-padded (17 words a row)"),
    # The same fp16 kernels at N = 16384 (512 MiB per matrix): twice the work per launch, so launch ramp-up and
    # tail weigh half as much against the copy (make_ptx.py substitutes N, N² and the grid in the text).
    ("f16-16k-plain", "bench/gpu/smem/transpose-f16-plain.mlir", False, dict(TRANSPOSE_F16, n=16384, grid=[256, 256, 1]), "plain tile, as written, N = 16384"),
    ("f16-16k-chosen", "bench/gpu/smem/transpose-f16-plain.mlir", True, dict(TRANSPOSE_F16, n=16384, grid=[256, 256, 1]), "plain tile + lego-choose-smem-layout, N = 16384"),
    ("f16-16k-padded", "bench/gpu/smem/transpose-f16-padded.mlir", False, dict(TRANSPOSE_F16, n=16384, grid=[256, 256, 1]), "hand-padded (17 words a row), N = 16384"),
    # More work per thread (gen_f16.py): one 64×64 tile per block, 4 vectors per thread; and four 64×32 tiles per block.
    ("f16-64-plain", "bench/gpu/smem/transpose-f16-64-plain.mlir", False, TRANSPOSE_F16_64, "plain 64×64 tile, 4 vectors a thread"),
    ("f16-64-chosen", "bench/gpu/smem/transpose-f16-64-plain.mlir", True, TRANSPOSE_F16_64, "plain 64×64 tile + lego-choose-smem-layout"),
    ("f16-64-padded", "bench/gpu/smem/transpose-f16-64-padded.mlir", False, TRANSPOSE_F16_64, "hand-padded 64×64 (33 words a row)"),
    ("f16-x4-plain", "bench/gpu/smem/transpose-f16-x4-plain.mlir", False, TRANSPOSE_F16_X4, "four plain 64×32 tiles, 4 vectors a thread"),
    ("f16-x4-chosen", "bench/gpu/smem/transpose-f16-x4-plain.mlir", True, TRANSPOSE_F16_X4, "four plain tiles + lego-choose-smem-layout"),
    ("f16-x4-padded", "bench/gpu/smem/transpose-f16-x4-padded.mlir", False, TRANSPOSE_F16_X4, "four hand-padded tiles (17 words a row)"),
    # Vector accesses to shared memory too (gen_f16.py): 16-byte shared stores of each global vector, 8- or 16-byte
    # shared loads of 4 tile columns; 256-byte rows on both the read and the write side. Each group also times the
    # best hand-padded scalar-access kernel of the same element type (its own rows above), as a second padded twin.
    ("f32-vec-plain", "bench/gpu/smem/transpose-f32-vec-plain.mlir", False, TRANSPOSE_F32_VEC, "plain 64×64 tile, 16-byte shared accesses"),
    ("f32-vec-chosen", "bench/gpu/smem/transpose-f32-vec-plain.mlir", True, TRANSPOSE_F32_VEC, "plain 64×64 tile, 16-byte shared accesses + lego-choose-smem-layout"),
    ("f32-vec-padded", "bench/gpu/smem/transpose-f32-vec-padded.mlir", False, TRANSPOSE_F32_VEC, "hand-padded (68 floats a row, 16-byte accesses kept aligned)"),
    ("f32-vec-padded-65", "examples/transpose-smem64.mlir", False, dict(TRANSPOSE_F32_64, kernel="transpose_smem64_kernel", group="f32-vec"),
     "f32-64-padded (scalar shared accesses, 65 words a row) in this group"),
    ("f16-128-plain", "bench/gpu/smem/transpose-f16-128-plain.mlir", False, TRANSPOSE_F16_128, "plain 128×128 tile, 16-byte stores, 8-byte loads"),
    ("f16-128-chosen", "bench/gpu/smem/transpose-f16-128-plain.mlir", True, TRANSPOSE_F16_128, "plain 128×128 tile, vector shared accesses + lego-choose-smem-layout"),
    ("f16-128-padded", "bench/gpu/smem/transpose-f16-128-padded.mlir", False, TRANSPOSE_F16_128, "hand-padded (136 halves a row, 16-byte stores kept aligned)"),
    ("f16-128-padded-17", "bench/gpu/smem/transpose-f16-padded.mlir", False, dict(TRANSPOSE_F16, group="f16-128"),
     "f16-padded (scalar shared accesses, 17 words a row) in this group"),
    ("matmul-plain", "examples/matmul-tiled.mlir", False, MATMUL, "plain 16×16 tiles, as written"),
    ("matmul-chosen", "examples/matmul-tiled.mlir", True, MATMUL, "plain tiles + lego-choose-smem-layout"),
    ("matmul-padded", "bench/gpu/smem/matmul-padded.mlir", False, MATMUL, "hand-padded (17 words a row)"),
]


def fail(message):
    print(f"make_ptx.py: error: {message}", file=sys.stderr)
    sys.exit(1)


def run(command):
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        fail(f"{' '.join(command)} failed:\n{done.stderr}")
    return done.stdout, done.stderr


def json_line(stderr, key):
    for line in stderr.splitlines():
        if line.startswith("{\"" + key + "\""):
            return json.loads(line)[key]
    fail(f"no {key} report in lego-opt's output")


def sized_copy(source, n, out):
    """The N = 8192 fp16 kernel for another N: 8192 → N, 8192² → N², the 128-block grid → N/64 (the only places N
    occurs in transpose-f16-*.mlir). Written next to the PTX; returns its path relative to the root."""
    with open(os.path.join(ROOT, source), encoding="utf-8") as file:
        text = file.read()
    for old, new in (("67108864", str(n * n)), ("8192", str(n)), ("%grid_x = arith.constant 128 ", f"%grid_x = arith.constant {n // 64} "),
                     ("%grid_y = arith.constant 128 ", f"%grid_y = arith.constant {n // 64} ")):
        if old not in text:
            fail(f"{source}: cannot size it for N = {n} ('{old}' not found)")
        text = text.replace(old, new)
    path = os.path.join(out, f"{os.path.splitext(os.path.basename(source))[0]}-{n}.mlir")
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)
    return os.path.relpath(path, ROOT)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lego-opt", default=None)
    parser.add_argument("--chip", default="sm_90")
    parser.add_argument("--features", default="+ptx80")
    args = parser.parse_args()
    lego_opt = args.lego_opt
    if lego_opt is None:
        for profile in ("release", "debug"):
            candidate = os.path.join(ROOT, "target", profile, "lego-opt")
            if os.path.exists(candidate):
                lego_opt = candidate
                break
    if lego_opt is None or not os.path.exists(lego_opt):
        fail("lego-opt not found: cargo build first, or pass --lego-opt")
    out = os.path.join(HERE, "ptx")
    os.makedirs(out, exist_ok=True)
    nvvm = f"--lego-to-nvvm=chip={args.chip} features={args.features} format=assembly"
    manifest = {"lego_opt_pipeline": nvvm, "variants": []}
    for variant, source, choose, shape, role in VARIANTS:
        passes = [CHOOSE] if choose else []
        if shape["kind"] == "transpose" and shape["n"] != 8192:
            source = sized_copy(source, shape["n"], out)
        # The analysis of the kernel as compiled (after the chooser, when it runs).
        _, analysis_err = run([lego_opt, source, *passes, "--lego-analyze-memory", "--lego-report=json", "-o", os.devnull])
        analysis = json_line(analysis_err, "lego-analyze-memory")
        remarks = [line.split("remark: ", 1)[1] for line in analysis_err.splitlines() if "lego-choose-smem-layout:" in line and "remark: " in line]
        command = [lego_opt, source, *passes, nvvm]
        stdout, _ = run(command)
        ptx = base.extract_ptx(stdout)
        if len(ptx) != 1:
            fail(f"{variant}: expected one PTX module, found {len(ptx)}")
        name, count = base.entry_signature(ptx[0])
        if name != shape["kernel"] or count != len(shape["params"]):
            fail(f"{variant}: kernel {name} with {count} parameters, expected {shape['kernel']} with {len(shape['params'])}")
        with open(os.path.join(out, f"{variant}.ptx"), "w", encoding="utf-8") as file:
            file.write(ptx[0])
        shared = [a for k in analysis for a in k["accesses"] if a["space"] == "shared"]
        # Ideal shared wavefronts per instruction: a warp request of b bytes a lane needs 32·b / 128 (at least 1).
        ideal = {kind: sorted({max(1, a["bytes"] * 32 // 128) for a in shared if a["op"].endswith("store") == (kind == "st")})
                 for kind in ("ld", "st")}
        manifest["variants"].append(dict(shape, variant=variant, role=role, ptx=f"{variant}.ptx",
                                         command=" ".join(["lego-opt", source, *passes, f"'{nvvm}'"]),
                                         choice=remarks, analysis=analysis, ideal_wavefronts=ideal,
                                         max_degree=max((a.get("degree", 0) for a in shared), default=0)))
        print(f"{variant}: max predicted degree {manifest['variants'][-1]['max_degree']}", file=sys.stderr)
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as file:
        json.dump(manifest, file, indent=1, ensure_ascii=False)
        file.write("\n")


if __name__ == "__main__":
    main()
