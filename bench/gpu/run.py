#!/usr/bin/env python3
"""Run the lego-compiled PTX kernels on an NVIDIA GPU, check every result against NumPy, and time the
transposes next to nvcc-compiled baselines and a device-to-device copy.

    python3 bench/gpu/run.py                       # PTX from bench/gpu/ptx (python3 bench/gpu/make_ptx.py)
    python3 bench/gpu/run.py --out results.md --iters 20 --repeats 7

Needs: an NVIDIA GPU and driver, CuPy, NumPy, and nvcc (for the baselines; found on PATH, under $CUDA_HOME
or /usr/local/cuda). The lego kernels are loaded from PTX with cupy.RawModule (the driver compiles the PTX
for the GPU at hand), launched with the bare-pointer calling convention (one device pointer per memref
argument), and compared with NumPy: transposes bit for bit, the tiled matmul within fp32 rounding, the
Needleman–Wunsch scores exactly.

Transpose bandwidth counts the bytes read plus the bytes written (2·N²·4 bytes), the usual convention, and
the device-to-device copy moves the same N²·4 bytes. Each number is the median over --repeats timings of
--iters back-to-back launches (CUDA events), after a warm-up launch.

Prints a Markdown table and writes it to --out (default bench/gpu/results.md). Exit status 0 iff every
kernel ran and was correct (the performance targets are reported, not enforced).
"""

import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


class BenchError(Exception):
    """A failure with a message for the user (missing tool or file, a kernel that did not load)."""


def die(message):
    print(f"run.py: error: {message}", file=sys.stderr)
    sys.exit(1)


def import_gpu_modules():
    try:
        import numpy  # noqa: F401
    except ImportError:
        die("NumPy is not installed (pip install numpy)")
    try:
        import cupy
    except ImportError:
        die("CuPy is not installed (pip install cupy-cuda12x or cupy-cuda13x, matching the CUDA driver)")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # CUDARuntimeError, or a driver that does not load
        die(f"no usable CUDA device: {error}")
    if count == 0:
        die("no CUDA device found")
    return cupy


def load_manifest(ptx_dir):
    path = os.path.join(ptx_dir, "manifest.json")
    if not os.path.exists(path):
        die(f"{path} not found: generate the PTX first, on the build machine: python3 bench/gpu/make_ptx.py")
    with open(path, encoding="utf-8") as file:
        manifest = json.load(file)
    for entry in manifest["kernels"]:
        if not os.path.exists(os.path.join(ptx_dir, entry["ptx"])):
            die(f"{entry['ptx']} is listed in the manifest but missing from {ptx_dir}")
    return manifest


def ptx_block(ptx_text):
    """The `.maxntid x, y, z` the compiler recorded from the launch's constant block size."""
    match = re.search(r"\.maxntid\s+(\d+),\s*(\d+),\s*(\d+)", ptx_text)
    return [int(value) for value in match.groups()] if match else None


class Runner:
    def __init__(self, cupy, iters, repeats):
        import numpy
        self.cp = cupy
        self.np = numpy
        self.iters = iters
        self.repeats = repeats

    def time_ms(self, launch):
        """Median milliseconds per launch."""
        cp = self.cp
        launch()
        cp.cuda.get_current_stream().synchronize()
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        samples = []
        for _ in range(self.repeats):
            start.record()
            for _ in range(self.iters):
                launch()
            stop.record()
            stop.synchronize()
            samples.append(cp.cuda.get_elapsed_time(start, stop) / self.iters)
        return statistics.median(samples)

    def lego_kernel(self, ptx_dir, entry):
        """(function, block) for a manifest entry; checks the PTX's block size against the manifest."""
        path = os.path.join(ptx_dir, entry["ptx"])
        with open(path, encoding="utf-8") as file:
            block = ptx_block(file.read())
        if block is not None and block != entry["block"]:
            raise BenchError(f"{entry['ptx']}: the PTX says .maxntid {block}, the manifest block {entry['block']}")
        try:
            module = self.cp.RawModule(path=path)
            function = module.get_function(entry["kernel"])
        except Exception as error:
            raise BenchError(f"{entry['ptx']}: the driver could not load kernel {entry['kernel']}: {error}") from error
        return function, tuple(entry["block"])


def find_nvcc():
    candidates = [shutil.which("nvcc")]
    for variable in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        if os.environ.get(variable):
            candidates.append(os.path.join(os.environ[variable], "bin", "nvcc"))
    candidates.append("/usr/local/cuda/bin/nvcc")
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def compile_baselines(cupy):
    """The nvcc transposes of baselines.cu as a cubin for this GPU; (module, nvcc version line)."""
    nvcc = find_nvcc()
    if nvcc is None:
        raise BenchError("nvcc not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin): the baselines need it")
    major, minor = cupy.cuda.Device().compute_capability[:-1], cupy.cuda.Device().compute_capability[-1]
    arch = f"sm_{major}{minor}"
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=False).stdout.strip().splitlines()
    work = tempfile.mkdtemp(prefix="lego-bench-")
    cubin = os.path.join(work, "baselines.cubin")
    command = [nvcc, "-O3", f"-arch={arch}", "-cubin", "-o", cubin, os.path.join(HERE, "baselines.cu")]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise BenchError(f"nvcc failed ({' '.join(command)}):\n{result.stderr.strip()}")
    return cupy.RawModule(path=cubin), (version[-1] if version else "nvcc"), " ".join(command[:-3])


def nw_reference(np, ref, penalty):
    """Needleman–Wunsch score matrices, (problems, 33, 33), int32 — the recurrence of nw-antidiagonal.mlir."""
    problems, size, _ = ref.shape
    score = np.zeros((problems, size + 1, size + 1), dtype=np.int64)
    score[:, 0, :] = -penalty * np.arange(size + 1)
    score[:, :, 0] = -penalty * np.arange(size + 1)
    for i in range(1, size + 1):
        for j in range(1, size + 1):
            score[:, i, j] = np.maximum(score[:, i - 1, j - 1] + ref[:, i - 1, j - 1],
                                        np.maximum(score[:, i, j - 1] - penalty, score[:, i - 1, j] - penalty))
    return score.astype(np.int32)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ptx", default=os.path.join(HERE, "ptx"), help="folder with the PTX and manifest.json")
    parser.add_argument("--out", default=os.path.join(HERE, "results.md"), help="Markdown results file")
    parser.add_argument("--iters", type=int, default=20, help="launches per timing")
    parser.add_argument("--repeats", type=int, default=7, help="timings per kernel (median reported)")
    args = parser.parse_args()
    if args.iters < 1 or args.repeats < 1:
        die("--iters and --repeats must be at least 1")

    cp = import_gpu_modules()
    import numpy as np
    manifest = load_manifest(args.ptx)
    runner = Runner(cp, args.iters, args.repeats)
    properties = cp.cuda.runtime.getDeviceProperties(0)
    device = properties["name"].decode() if isinstance(properties["name"], bytes) else str(properties["name"])
    driver = cp.cuda.runtime.driverGetVersion()
    rng = np.random.default_rng(2026)
    failures = []
    rows = []

    try:
        baselines, nvcc_version, nvcc_command = compile_baselines(cp)
    except Exception as error:  # BenchError, or CuPy's own error types for a cubin that does not load
        failures.append(f"nvcc baselines: {error}")
        baselines, nvcc_version, nvcc_command = None, "unavailable", ""

    transposes = [entry for entry in manifest["kernels"] if entry["example"].startswith("transpose")]
    sizes = sorted({entry["n"] for entry in transposes})
    bandwidth = {}  # (label, n) -> GB/s
    for n in sizes:
        host_in = rng.standard_normal((n, n), dtype=np.float32)
        expected = np.ascontiguousarray(host_in.T)
        device_in = cp.asarray(host_in)
        device_out = cp.empty_like(device_in)
        moved = 2 * n * n * 4  # bytes read + bytes written
        grid32 = (n // 32, n // 32, 1)

        def measure(label, source, launch):
            device_out.fill(np.nan)  # a kernel that writes nothing must not pass on stale data
            try:
                launch()
                cp.cuda.get_current_stream().synchronize()
                correct = bool(np.array_equal(cp.asnumpy(device_out), expected))
                milliseconds = runner.time_ms(launch)
            except Exception as error:
                failures.append(f"{label} N={n}: {error}")
                rows.append((label, source, n, "error", None, None))
                return
            if not correct:
                failures.append(f"{label} N={n}: result differs from NumPy's transpose")
            gbps = moved / (milliseconds * 1e-3) / 1e9
            bandwidth[(label, n)] = gbps
            rows.append((label, source, n, "ok" if correct else "WRONG", milliseconds, gbps))

        for entry in [entry for entry in transposes if entry["n"] == n]:
            label = entry["example"]
            try:
                function, block = runner.lego_kernel(args.ptx, entry)
            except BenchError as error:
                failures.append(str(error))
                rows.append((label, "lego", n, "error", None, None))
                continue
            grid = tuple(entry["grid"])
            measure(label, "lego", lambda function=function, grid=grid, block=block:
                    function(grid, block, (device_in, device_out)))
        if baselines is not None:
            for kernel in ("transpose_naive_nvcc", "transpose_smem_nvcc"):
                function = baselines.get_function(kernel)
                measure(kernel, "nvcc", lambda function=function:
                        function(grid32, (32, 8, 1), (device_in, device_out, np.int32(n))))

        def copy():
            cp.cuda.runtime.memcpyAsync(device_out.data.ptr, device_in.data.ptr, n * n * 4,
                                        cp.cuda.runtime.memcpyDeviceToDevice, cp.cuda.get_current_stream().ptr)
        milliseconds = runner.time_ms(copy)
        gbps = moved / (milliseconds * 1e-3) / 1e9
        bandwidth[("device copy", n)] = gbps
        rows.append(("device copy", "cudaMemcpy D2D", n, "—", milliseconds, gbps))
        del device_in, device_out
        cp.get_default_memory_pool().free_all_blocks()

    other_rows = []
    for entry in manifest["kernels"]:
        if entry["example"] == "matmul-tiled":
            size = entry["size"]
            a = rng.uniform(-1, 1, (size, size)).astype(np.float32)
            b = rng.uniform(-1, 1, (size, size)).astype(np.float32)
            expected = a.astype(np.float64) @ b.astype(np.float64)
            device_a, device_b = cp.asarray(a), cp.asarray(b)
            device_c = cp.full((size, size), np.nan, dtype=np.float32)
            try:
                function, block = runner.lego_kernel(args.ptx, entry)
                launch = lambda: function(tuple(entry["grid"]), block, (device_a, device_b, device_c))  # noqa: E731
                launch()
                cp.cuda.get_current_stream().synchronize()
                result = cp.asnumpy(device_c)
                error = float(np.max(np.abs(result - expected)))
                correct = bool(np.allclose(result, expected, rtol=1e-3, atol=1e-3))
                milliseconds = runner.time_ms(launch)
                detail = f"{2 * size ** 3 / (milliseconds * 1e-3) / 1e9:.0f} GFLOP/s, largest error {error:.1e}"
                other_rows.append((f"matmul-tiled {size}³ fp32", "ok" if correct else "WRONG", milliseconds, detail))
                if not correct:
                    failures.append(f"matmul-tiled: differs from NumPy (largest error {error:.3g})")
            except Exception as error:
                failures.append(f"matmul-tiled: {error}")
                other_rows.append((f"matmul-tiled {size}³ fp32", "error", None, str(error)))
        elif entry["example"] == "nw-antidiagonal":
            problems, size, penalty = entry["problems"], entry["tile"], entry["penalty"]
            ref = rng.integers(-10, 11, (problems, size, size), dtype=np.int32)
            expected = nw_reference(np, ref, penalty)
            device_ref = cp.asarray(ref)
            device_score = cp.full((problems, size + 1, size + 1), -(2 ** 31), dtype=np.int32)
            try:
                function, block = runner.lego_kernel(args.ptx, entry)
                launch = lambda: function(tuple(entry["grid"]), block, (device_ref, device_score))  # noqa: E731
                launch()
                cp.cuda.get_current_stream().synchronize()
                correct = bool(np.array_equal(cp.asnumpy(device_score), expected))
                milliseconds = runner.time_ms(launch)
                detail = f"{problems} problems of {size}×{size}"
                other_rows.append(("nw-antidiagonal", "ok" if correct else "WRONG", milliseconds, detail))
                if not correct:
                    failures.append("nw-antidiagonal: scores differ from the NumPy recurrence")
            except Exception as error:
                failures.append(f"nw-antidiagonal: {error}")
                other_rows.append(("nw-antidiagonal", "error", None, str(error)))

    # The table.
    lines = [
        f"# lego-rs GPU check — {device}",
        "",
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; CUDA driver {driver // 1000}.{driver % 1000 // 10}; "
        f"CuPy {cp.__version__}; {nvcc_version}; lego PTX: `{manifest['pipeline']}` (chip {manifest['chip']}, "
        f"{manifest['features']}); baselines: `{nvcc_command or 'not built'}`.",
        f"Transposes: fp32 N×N, GB/s = (N²·4 read + N²·4 written) / time; median of {args.repeats} timings of "
        f"{args.iters} launches. Correctness: bit-exact against NumPy. At small N both arrays may stay in the L2 cache "
        f"(2·2048²·4 B = 32 MiB; an H100 has 50 MiB), hence rates above the copy's: compare at the largest N.",
        "",
        "| kernel | compiled by | N | check | time (µs) | GB/s | % of copy |",
        "|---|---|---:|---|---:|---:|---:|",
    ]
    for label, source, n, check, milliseconds, gbps in rows:
        copy = bandwidth.get(("device copy", n))
        percent = f"{100 * gbps / copy:.1f}" if gbps and copy else "—"
        time_text = f"{milliseconds * 1e3:.1f}" if milliseconds else "—"
        gbps_text = f"{gbps:.0f}" if gbps else "—"
        lines.append(f"| {label} | {source} | {n} | {check} | {time_text} | {gbps_text} | {percent} |")
    if other_rows:
        lines += ["", "| kernel (lego) | check | time (µs) | notes |", "|---|---|---:|---|"]
        for label, check, milliseconds, detail in other_rows:
            time_text = f"{milliseconds * 1e3:.1f}" if milliseconds else "—"
            lines.append(f"| {label} | {check} | {time_text} | {detail} |")

    # Performance targets (reported, not enforced): at the largest N.
    n = max(sizes) if sizes else None
    if n is not None:
        def best(labels):
            values = [(bandwidth[(label, n)], label) for label in labels if (label, n) in bandwidth]
            return max(values) if values else (None, None)
        lego_smem, lego_smem_label = best(["transpose-smem", "transpose-smem64"])
        lego_naive, _ = best(["transpose-naive"])
        nvcc_smem, _ = best(["transpose_smem_nvcc"])
        nvcc_naive, _ = best(["transpose_naive_nvcc"])
        copy = bandwidth.get(("device copy", n))

        def verdict(ok):
            return "met" if ok else "NOT met"
        lines += ["", f"Targets at N = {n}:", ""]
        if lego_smem and nvcc_smem:
            lines.append(f"- best lego shared-memory transpose ({lego_smem_label}, {lego_smem:.0f} GB/s) ≥ nvcc shared-memory "
                         f"({nvcc_smem:.0f} GB/s): {verdict(lego_smem >= nvcc_smem)}")
        if lego_smem and copy:
            lines.append(f"- best lego shared-memory transpose ≥ 95 % of device copy ({0.95 * copy:.0f} GB/s): "
                         f"{verdict(lego_smem >= 0.95 * copy)} ({100 * lego_smem / copy:.1f} %)")
        if lego_naive and nvcc_naive:
            lines.append(f"- lego naive ({lego_naive:.0f} GB/s) ≥ nvcc naive ({nvcc_naive:.0f} GB/s): "
                         f"{verdict(lego_naive >= nvcc_naive)}")
    if failures:
        lines += ["", "Failures:", ""] + [f"- {failure}" for failure in failures]
    else:
        lines += ["", "Every lego kernel matched NumPy."]
    text = "\n".join(lines) + "\n"
    print(text)
    try:
        with open(args.out, "w", encoding="utf-8") as file:
            file.write(text)
        print(f"(written to {args.out})")
    except OSError as error:
        print(f"run.py: warning: could not write {args.out}: {error}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
