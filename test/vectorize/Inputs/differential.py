#!/usr/bin/env python3
"""Differential test of the CPU vector pipelines (docs/passes/lego-vectorize.md, "Testing").

Every kernel of differential.mlir is compiled twice for each architecture: through a vector pipeline and through
the scalar `lego-to-llvm`, both to LLVM IR (mlir-translate), objects (llc) and one executable each with a C driver
this script writes. The driver fills every buffer from a fixed pseudo-random sequence (the same in every build),
runs each kernel at several trip counts (0, 1, odd ones, ones that leave remainders of every lane count) and
prints every buffer in hex. Each buffer ends at a PROT_NONE guard page, so a vector access past the end of a
buffer faults instead of passing unnoticed. The vector build's output must equal the scalar build's byte for byte.

  x86-64:  lego-to-x86-vector{isa=avx512} (llc -mcpu=skylake-avx512) and {isa=avx2} (llc -mcpu=haswell), run here;
  pattern passes: lego-vectorize-scatter-add before every vector pipeline, and every pattern pass before the
           aarch64 ones (PATTERN_PASSES); each pattern kernel must show its rewrite in the LLVM IR (FIRES);
  aarch64: lego-to-arm-neon (llc +neon) and lego-to-arm-sve (llc +sve), linked statically with
           aarch64-linux-gnu-gcc and run under qemu-aarch64 -cpu max; SVE twice, with 16- and 64-byte vectors
           (the driver prints the vector length the kernel ran with, and it is checked).

Usage: differential.py LEGO_OPT KERNELS.mlir WORKDIR. Exit status 0 only if every build ran and agreed.
"""

import os
import subprocess
import sys

# name → (arguments, trip counts). An argument: ("buf", element type, size as a function of n[, value range]),
# ("n",) the trip count, ("idx", function of n), ("f32"/"f64", constant).
TRIPS = [0, 1, 3, 7, 17, 31, 64, 100, 257]
KERNELS = {
    "saxpy": ([("buf", "f32", lambda n: n), ("buf", "f32", lambda n: n), ("f32", 1.25), ("n",)], TRIPS),
    "guard_lt": ([("buf", "f32", lambda n: n), ("buf", "f32", lambda n: n), ("n",), ("idx", lambda n: n // 2 + 1)], TRIPS),
    "guard_mod": ([("buf", "f32", lambda n: max(n, 3)), ("buf", "f32", lambda n: max(n, 3)), ("n",)], TRIPS),
    "select_leaky": ([("buf", "f32", lambda n: n), ("buf", "f32", lambda n: n), ("n",)], TRIPS),
    "dot": ([("buf", "f32", lambda n: n), ("buf", "f32", lambda n: n), ("buf", "f32", lambda n: 1), ("n",)], TRIPS),
    "sum_max_i32": ([("buf", "i32", lambda n: n), ("buf", "i32", lambda n: 2), ("n",)], TRIPS),
    "stride3": ([("buf", "f32", lambda n: 3 * n + 1), ("buf", "f32", lambda n: n), ("n",)], TRIPS),
    "xor_swizzle": ([("buf", "f32", lambda n: n + 8), ("buf", "f32", lambda n: n), ("buf", "f32", lambda n: n + 4), ("n",)], TRIPS),
    # The Morton index of i < n is below the next multiple of 16 of n.
    "morton": ([("buf", "f32", lambda n: (n + 15) // 16 * 16), ("buf", "f32", lambda n: n), ("n",)], TRIPS),
    "indirect": ([("buf", "i32", lambda n: n, lambda n: max(n, 1)), ("buf", "f32", lambda n: n), ("buf", "f32", lambda n: n), ("n",)], TRIPS),
    "dependence4": ([("buf", "i32", lambda n: n + 4), ("n",)], TRIPS),
    "static37": ([("buf", "f64", lambda n: 37), ("buf", "f64", lambda n: 37), ("buf", "f64", lambda n: 37)], [37]),
    "add_i8": ([("buf", "i8", lambda n: n), ("buf", "i8", lambda n: n), ("n",)], TRIPS + [200]),
    "mixed": ([("buf", "f32", lambda n: n), ("buf", "f64", lambda n: n), ("f64", -0.75), ("n",)], TRIPS),
    # n = the tile count t here: buffers of 16·t and 8·t.
    "transpose_layout": ([("buf", "f32", lambda t: 16 * t), ("buf", "f32", lambda t: 16 * t), ("n",)], [0, 1, 3, 5, 9]),
    "compact": ([("buf", "f32", lambda n: n), ("buf", "f32", lambda n: n), ("buf", "f32", lambda n: n), ("buf", "i32", lambda n: 1), ("n",)], TRIPS),
    "filtered_max": ([("buf", "f32", lambda n: n), ("buf", "f32", lambda n: n), ("buf", "f32", lambda n: 1), ("f32", -1.5), ("n",)], TRIPS),
    "tiled_layout": ([("buf", "f32", lambda t: 8 * t), ("buf", "f32", lambda t: 8 * t), ("n",)], [0, 1, 3, 13]),
    # Floats with a value range: the integers in [-range/2, range/2) (ties, runs).
    "argmin_f32": ([("buf", "f32", lambda n: n, lambda n: 9), ("buf", "f32", lambda n: 1), ("buf", "i32", lambda n: 1), ("n",)], TRIPS),
    "argmax_f64": ([("buf", "f64", lambda n: n, lambda n: 7), ("buf", "f64", lambda n: 1), ("buf", "i32", lambda n: 1), ("n",)], TRIPS),
    "argmin_signed_zero": ([("buf", "f32", lambda n: n), ("buf", "f32", lambda n: n), ("buf", "f32", lambda n: 1), ("buf", "i32", lambda n: 1), ("n",)], TRIPS),
    "argmax_nan_init": ([("buf", "f32", lambda n: n), ("buf", "f32", lambda n: 1), ("buf", "i32", lambda n: 1), ("n",)], TRIPS),
    "scan_f32": ([("buf", "f32", lambda n: n), ("buf", "f32", lambda n: n), ("buf", "f32", lambda n: 1), ("n",)], TRIPS),
    "scan_inplace_f64": ([("buf", "f64", lambda n: n), ("n",)], TRIPS),
    "rle_f32": ([("buf", "f32", lambda n: n, lambda n: 3), ("buf", "f32", lambda n: n), ("buf", "i32", lambda n: 1), ("buf", "f32", lambda n: 1), ("n",)], TRIPS),
    "hist_conflict": ([("buf", "i32", lambda n: n, lambda n: 3), ("buf", "f32", lambda n: 3), ("buf", "f32", lambda n: n), ("n",)], TRIPS),
    "hist_wide": ([("buf", "i32", lambda n: n, lambda n: 4096), ("buf", "f32", lambda n: 4096), ("n",)], TRIPS),
    # Static trip counts (the loops ignore n).
    "linalg_saxpy128": ([("buf", "f32", lambda n: 128), ("buf", "f32", lambda n: 128)], [128]),
    "linalg_window": ([("buf", "f64", lambda n: 200), ("buf", "f64", lambda n: 200)], [192]),
}
# The pattern passes the published pipelines leave out, run before them on the module: scatter-add (in no
# pipeline) for every build, and on aarch64 all of them (the published NEON/SVE pipelines have none), so each
# is checked at 128-bit lane counts too. Before canonicalize, as here, they also see the shapes that
# canonicalize would rewrite (rle_f32's if carrying prev).
PATTERN_PASSES = ["compact", "argmin", "scan", "filtered-reduce", "rle", "scatter-add"]


def patterns_before(target, names):
    return "".join(f"func.func(lego-vectorize-{name}{{target={target}}}), " for name in names)
VECTOR_TYPES = {"x86-avx512": "<16 x float>", "x86-avx2": "<8 x float>", "arm-neon": "<4 x float>",
                "arm-sve": "<vscale x 4 x float>"}
# A pattern kernel whose pass did not fire would agree trivially too: in every vector build, the LLVM IR of
# these functions must hold the intrinsic or instruction their rewrite makes (the scalar loop has none).
FIRES = {"compact": "llvm.masked.compressstore", "rle_f32": "llvm.masked.compressstore",
         "filtered_max": "llvm.vector.reduce.fmaximum", "argmin_f32": "llvm.vector.reduce.umin",
         "argmax_f64": "llvm.vector.reduce.umin", "argmin_signed_zero": "llvm.vector.reduce.umin",
         "argmax_nan_init": "llvm.vector.reduce.umin", "scan_f32": "shufflevector", "scan_inplace_f64": "shufflevector",
         "hist_conflict": "llvm.masked.scatter", "hist_wide": "llvm.masked.scatter"}
# Likewise for convert-lego-to-linalg{vectorize=true}, in the x86 pipeline only: its 64-lane vectors.
FIRES_X86 = {"linalg_saxpy128": "<64 x float>", "linalg_window": "<64 x double>"}
C_TYPES = {"f32": "float", "f64": "double", "i32": "int32_t", "i8": "int8_t"}

DRIVER_HEAD = r"""
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

static uint64_t state;
static uint32_t next(void) { state = state * 6364136223846793005ull + 1442695040888963407ull; return (uint32_t)(state >> 33); }
/* Floats are multiples of 1/8 in [-8, 8): products and sums stay exact in any order. */
static void fill_f32(float *p, long n) { for (long i = 0; i < n; i++) p[i] = (float)((int)(next() % 128) - 64) / 8.0f; }
static void fill_f64(double *p, long n) { for (long i = 0; i < n; i++) p[i] = (double)((int)(next() % 128) - 64) / 8.0; }
static void fill_i32(int32_t *p, long n) { for (long i = 0; i < n; i++) p[i] = (int32_t)(next() % 2001) - 1000; }
static void fill_i8(int8_t *p, long n) { for (long i = 0; i < n; i++) p[i] = (int8_t)(next() & 0xff); }
static void fill_range_i32(int32_t *p, long n, long range) { for (long i = 0; i < n; i++) p[i] = (int32_t)(next() % range); }
static void fill_range_f32(float *p, long n, long range) { for (long i = 0; i < n; i++) p[i] = (float)((int)(next() % range) - range / 2); }
static void fill_range_f64(double *p, long n, long range) { for (long i = 0; i < n; i++) p[i] = (double)((int)(next() % range) - range / 2); }

/* `bytes` ending exactly at a PROT_NONE page. */
static void *guarded(long bytes) {
  long page = sysconf(_SC_PAGESIZE);
  long span = (bytes + page - 1) / page * page;
  char *base = mmap(0, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) { perror("mmap"); _exit(2); }
  if (mprotect(base + span, page, PROT_NONE)) { perror("mprotect"); _exit(2); }
  return base + span - bytes;
}
static void dump(const char *kernel, long n, int buffer, const void *p, long bytes) {
  printf("%s %ld %d ", kernel, n, buffer);
  for (long i = 0; i < bytes; i++) printf("%02x", ((const unsigned char *)p)[i]);
  printf("\n");
}
"""


def driver_source():
    lines = [DRIVER_HEAD]
    body = []
    for name, (args, trips) in KERNELS.items():
        params = []
        for arg in args:
            if arg[0] == "buf":
                t = C_TYPES[arg[1]]
                params += [f"{t} *", f"{t} *", "int64_t", "int64_t", "int64_t"]
            elif arg[0] in ("n", "idx"):
                params.append("int64_t")
            else:
                params.append(C_TYPES[arg[0]])
        lines.append(f"void {name}({', '.join(params)});")
        for n in trips:
            body.append(f"  {{ state = {hash_seed(name, n)}ull;")
            call, buffers = [], []
            for position, arg in enumerate(args):
                if arg[0] == "buf":
                    t, size = C_TYPES[arg[1]], arg[2](n)
                    var = f"b{len(buffers)}"
                    body.append(f"  {t} *{var} = guarded({size} * (long)sizeof({t}));")
                    if len(arg) > 3:
                        body.append(f"  fill_range_{arg[1]}({var}, {size}, {arg[3](n)});")
                    else:
                        body.append(f"  fill_{arg[1]}({var}, {size});")
                    call += [var, var, "0", str(size), "1"]
                    buffers.append((var, size, t))
                elif arg[0] == "n":
                    call.append(str(n))
                elif arg[0] == "idx":
                    call.append(str(arg[1](n)))
                else:
                    call.append(repr(arg[1]))
            body.append(f"  {name}({', '.join(call)});")
            for k, (var, size, t) in enumerate(buffers):
                body.append(f"  dump(\"{name}\", {n}, {k}, {var}, {size} * (long)sizeof({t}));")
            body.append("  }")
    lines.append("int main(int argc, char **argv) {")
    # PR_SVE_GET_VL (51): the vector length in bytes the kernels ran with (fails, -1, without SVE).
    lines.append("  if (argc > 1 && !strcmp(argv[1], \"--sve-vl\")) printf(\"sve-vl %d\\n\", prctl(51) & 0xffff);")
    lines += body
    lines.append("  return 0;\n}\n")
    return "\n".join(lines)


def hash_seed(name, n):
    value = 1469598103934665603
    for byte in f"{name}/{n}".encode():
        value = ((value ^ byte) * 1099511628211) % (1 << 64)
    return value


def run(command, **kw):
    result = subprocess.run(command, capture_output=True, text=True, **kw)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {result.returncode}:\n{result.stderr[-3000:]}{result.stdout[-2000:]}")
    return result.stdout


def build(lego_opt, kernels, work, label, pipeline, llc_flags, cc):
    mlir = os.path.join(work, f"{label}.mlir")
    ll = os.path.join(work, f"{label}.ll")
    obj = os.path.join(work, f"{label}.o")
    exe = os.path.join(work, label)
    run([lego_opt, kernels, f"--pass-pipeline=builtin.module({pipeline})", "-o", mlir])
    run(["mlir-translate", "--mlir-to-llvmir", mlir, "-o", ll])
    # A vector build that vectorized nothing would agree trivially: its IR must hold its f32 vector type.
    want = VECTOR_TYPES.get(label)
    text = open(ll).read()
    if want and want not in text:
        raise RuntimeError(f"{label}: no {want} in the LLVM IR of the vector build")
    if want:
        fires = dict(FIRES, **(FIRES_X86 if label.startswith("x86") else {}))
        for kernel, needle in fires.items():
            if needle not in function_text(text, kernel):
                raise RuntimeError(f"{label}: no {needle} in the LLVM IR of @{kernel}: its pattern pass did not fire")
    run(["llc", "-O2", "-filetype=obj", *llc_flags, ll, "-o", obj])
    run([*cc, os.path.join(work, "driver.c"), obj, "-o", exe])
    return exe


def function_text(llvm_ir, name):
    """The body of `define … @name(` in textual LLVM IR (empty if absent)."""
    lines, inside = [], False
    for line in llvm_ir.splitlines():
        if line.startswith("define ") and f"@{name}(" in line:
            inside = True
        if inside:
            lines.append(line)
            if line == "}":
                break
    return "\n".join(lines)


def parse(output):
    table = {}
    for line in output.splitlines():
        parts = line.split()
        # An empty buffer prints no hex field.
        if len(parts) in (3, 4) and parts[0] in KERNELS:
            table[(parts[0], int(parts[1]), int(parts[2]))] = parts[3] if len(parts) == 4 else ""
    return table


def compare(label, reference, candidate):
    problems = []
    if set(reference) != set(candidate):
        problems.append(f"{label}: printed {len(candidate)} buffers, the scalar build {len(reference)}")
    for key in sorted(reference):
        if key in candidate and candidate[key] != reference[key]:
            want, got = reference[key], candidate[key]
            first = next(i for i in range(min(len(want), len(got))) if want[i] != got[i]) // 2
            problems.append(f"{label}: kernel {key[0]}, n = {key[1]}, buffer #{key[2]} differs from the scalar build "
                            f"(first at byte {first})")
    return problems


def main():
    # differential.py LEGO_OPT KERNELS WORK [--x86 ISA,…] [--no-arm]: the x86 ISAs to build and run here
    # (default avx2; each must run on this CPU, else the run fails — lit gives each ISA's test the CPU feature
    # it REQUIRES) and whether to run the aarch64 builds under qemu.
    lego_opt, kernels, work = sys.argv[1:4]
    options = sys.argv[4:]
    isas = options[options.index("--x86") + 1].split(",") if "--x86" in options else ["avx2"]
    with_arm = "--no-arm" not in options
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "driver.c"), "w") as handle:
        handle.write(driver_source())
    host = ["cc", "-O1", "-w"]
    arm = ["aarch64-linux-gnu-gcc", "-O1", "-w", "-static"]
    qemu = ["qemu-aarch64", "-cpu"]
    flags = set(open("/proc/cpuinfo").read().split())
    problems = []
    needs = {"avx512": ("avx512f", "avx512bw", "avx512vl", "avx512dq"), "avx2": ("avx2", "fma")}
    cpus = {"avx512": "skylake-avx512", "avx2": "haswell"}
    missing = sorted({f for isa in isas for f in needs[isa] if f not in flags})
    if missing:
        problems.append(f"this CPU lacks {', '.join(missing)}: the {'/'.join(isas)} builds cannot run here")
    scalar_x86 = build(lego_opt, kernels, work, "x86-scalar", "lego-to-llvm", ["-mcpu=x86-64"], host)
    reference = parse(run([scalar_x86]))
    expected = sum(len(trips) * sum(1 for a in args if a[0] == "buf") for args, trips in KERNELS.values())
    if len(reference) != expected:
        problems.append(f"the scalar x86 build printed {len(reference)} buffers, expected {expected}")
    runs = 0
    if not missing:
        for isa in isas:
            pipeline = patterns_before(isa, ["scatter-add"]) + f"lego-to-x86-vector{{isa={isa}}}"
            exe = build(lego_opt, kernels, work, f"x86-{isa}", pipeline, [f"-mcpu={cpus[isa]}"], host)
            problems += compare(f"x86 {isa}", reference, parse(run([exe])))
            runs += 1
    if not with_arm:
        return report(problems, reference, runs)
    triple = ["-mtriple=aarch64-linux-gnu"]
    scalar_arm = build(lego_opt, kernels, work, "arm-scalar", "lego-to-llvm", triple, arm)
    arm_reference = parse(run(qemu + ["max", scalar_arm]))
    problems += compare("aarch64 scalar vs x86 scalar", reference, arm_reference)
    neon = build(lego_opt, kernels, work, "arm-neon", patterns_before("neon", PATTERN_PASSES) + "lego-to-arm-neon", triple + ["-mattr=+neon"], arm)
    problems += compare("neon", arm_reference, parse(run(qemu + ["max", neon])))
    runs += 1
    sve = build(lego_opt, kernels, work, "arm-sve", patterns_before("sve", PATTERN_PASSES) + "lego-to-arm-sve", triple + ["-mattr=+sve"], arm)
    for vl in (16, 64):
        output = run(qemu + [f"max,sve-default-vector-length={vl}", sve, "--sve-vl"])
        if f"sve-vl {vl}\n" not in output:
            problems.append(f"sve: asked qemu for {vl}-byte vectors, the program saw: {output.splitlines()[:1]}")
        problems += compare(f"sve (vl {vl} bytes)", arm_reference, parse(output))
        runs += 1
    return report(problems, reference, runs)


def report(problems, reference, runs):
    for problem in problems:
        print("FAIL:", problem)
    print(f"{len(KERNELS)} kernels, {len(reference)} buffers, {runs} vector runs compared with the scalar builds: "
          f"{'all equal' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
