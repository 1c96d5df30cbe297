#!/usr/bin/env python3
"""The GPU puzzles on an NVIDIA GPU (docs/gpu-dsl.md, "On the H100").

Needs only the installed ``lego`` package (the wheel: PTX comes from the extension's lego-to-nvvm pipeline,
no LLVM or Rust), NumPy, CuPy and torch, plus the puzzles directory (``--puzzles``, the repository's
python/examples/puzzles). It

1. runs every kernel of every puzzle that lists ``cuda``, at the catalogue's sizes, launching the PTX with
   CuPy's ``RawModule``, and checks it against the puzzle's NumPy reference;
2. checks the attention kernels chained (scores → softmax → weighted sum) against
   ``torch.nn.functional.scaled_dot_product_attention``;
3. times (interleaved, best of ``--rounds``, CUDA events) the memory-bound puzzles at ≥ 64 MiB per buffer
   against the equivalent torch operation (bandwidth and ratio), the tiled fp32 matmul against
   ``torch.matmul`` with TF32 off at 4096, and the WMMA matmul against cuBLAS fp16 (``torch.matmul`` on
   half tensors) at 4096 — each result also checked against torch's; and the topic kernels of puzzles 28
   (cp.async), 29 (cp.async + mbarrier double buffer) and 34 (thread-block clusters + distributed shared
   memory) against the same puzzle's synchronous kernel at 64 MiB of input (interleaved, best of ``--rounds``,
   CUDA events), both checked against the puzzle's NumPy reference;
4. prints markdown tables.

``--dry-run`` does everything up to the launches: it builds and compiles the PTX of every kernel (catalogue and
benchmark sizes) and needs no GPU.

    python3 bench/gpu_puzzles/run_h100.py --puzzles python/examples/puzzles [--dry-run] [--rounds 10] [--topic-only]
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

CHIP, FEATURES = "sm_90", "+ptx80"
MIB64 = 16 * 1024 * 1024  # f32 elements in 64 MiB


def ptx_of(kernel: Any) -> str:
    from lego.jit.builders import kernel_assembly
    result = kernel.compile(target="cuda", chip=CHIP, features=FEATURES, format="assembly")
    ptx = kernel_assembly(result.kernel_source)
    if not ptx or ".entry" not in ptx[0]:
        raise RuntimeError(f"{kernel._name}: no PTX entry in the cuda result")
    return ptx[0]


class Launcher:
    """PTX → CuPy RawModule → launch over CuPy (or torch, zero-copy) arrays."""

    def __init__(self, kernel: Any) -> None:
        self.kernel = kernel
        self.ptx = ptx_of(kernel)
        self.module = _module_from_ptx(self.ptx)
        self.fn = self.module.get_function(f"{kernel._name}_kernel")

    def __call__(self, *arrays: Any) -> None:
        self.fn(tuple(self.kernel._grid), tuple(self.kernel._block), tuple(arrays))


def _module_from_ptx(ptx: str) -> Any:
    import cupy
    import tempfile
    path = os.path.join(tempfile.mkdtemp(prefix="lego_h100_"), "kernel.ptx")
    with open(path, "w") as handle:
        handle.write(ptx)
    return cupy.RawModule(path=path)


def load_puzzles(directory: str) -> List[Any]:
    sys.path.insert(0, os.path.abspath(directory))
    stems = sorted(f[:-3] for f in os.listdir(directory) if f.startswith("puzzle_") and f.endswith(".py"))
    return [importlib.import_module(stem) for stem in stems]


# --- 1. correctness at the catalogue sizes -----------------------------------------------------------------

def check_catalogue(puzzles: List[Any], dry_run: bool) -> List[Tuple[str, str, str, str]]:
    import bench_utils
    from lego.backend.gpu_dsl import TARGET_FEATURES
    rows = []
    for module in puzzles:
        if "cuda" not in module.TARGETS:
            continue
        for case in module.build(*module.ARGS):
            kernel, label = case["kernel"], case["label"]
            name = module.__name__
            try:
                if dry_run:
                    ptx_of(kernel)
                    rows.append((name, label, "PTX ok", ""))
                    continue
                import cupy
                arrays = bench_utils._inputs(kernel, case.get("init_mod", 10000))
                expected = np.asarray(case["expected"]([a.astype(np.float32) for a in arrays[:-1]]), np.float64).ravel()
                device = [cupy.asarray(a) for a in arrays]
                Launcher(kernel)(*device)
                cupy.cuda.runtime.deviceSynchronize()
                out = cupy.asnumpy(device[-1])
                ok, err = bench_utils.compare_output(out, expected, case.get("atol", 0), case.get("rtol", 0))
                checks = [(ok, err)]
                for index, fn in case.get("extra_checks", {}).items():
                    extra = np.asarray(fn([a.astype(np.float32) for a in arrays[:-1]]), np.float64).ravel()
                    checks.append(bench_utils.compare_output(cupy.asnumpy(device[index]), extra,
                                                             case.get("atol", 0), case.get("rtol", 0)))
                ok = all(c[0] for c in checks)
                rows.append((name, label, "PASS" if ok else "FAIL", f"{max(c[1] for c in checks):.3g}"))
            except Exception as error:  # noqa: BLE001 (reported in the table)
                rows.append((name, label, "ERROR", str(error).splitlines()[0][:100]))
    return rows


# --- 2. attention against scaled_dot_product_attention -----------------------------------------------------

def check_attention(puzzles: List[Any], dry_run: bool, seq: int = 64, dim: int = 64) -> Tuple[str, str]:
    module = next((m for m in puzzles if m.__name__.startswith("puzzle_19")), None)
    if module is None:
        return "missing", ""
    scores, softmax, weighted = (c["kernel"] for c in module.build(seq, dim))
    if dry_run:
        for k in (scores, softmax, weighted):
            ptx_of(k)
        return "PTX ok", ""
    import cupy
    import torch
    g = torch.Generator(device="cpu").manual_seed(0)
    q, k, v = (torch.randn(seq, dim, generator=g) for _ in range(3))
    dq, dk, dv = (cupy.asarray(x.numpy()) for x in (q, k, v))
    s = cupy.zeros(seq * seq, cupy.float32)
    w = cupy.zeros(seq * seq, cupy.float32)
    o = cupy.zeros(seq * dim, cupy.float32)
    Launcher(scores)(dq, dk, s)
    Launcher(softmax)(s, w)
    Launcher(weighted)(w, dv, o)
    cupy.cuda.runtime.deviceSynchronize()
    ref = torch.nn.functional.scaled_dot_product_attention(q[None].cuda(), k[None].cuda(), v[None].cuda())[0].cpu().numpy()
    err = float(np.max(np.abs(cupy.asnumpy(o).reshape(seq, dim) - ref)))
    return ("PASS" if err < 1e-3 else "FAIL"), f"{err:.3g}"


# --- 3. timing ---------------------------------------------------------------------------------------------

def _case(puzzles: List[Any], prefix: str, sizes: Tuple[int, ...], label: Optional[str]) -> Dict[str, Any]:
    prefix, _, builder = prefix.partition(":")  # "puzzle_14:build_rows": a builder other than build()
    module = next(m for m in puzzles if m.__name__.startswith(prefix))
    cases = getattr(module, builder or "build")(*sizes)
    return next(c for c in cases if label is None or c["label"] == label)


def _torch_ops() -> Dict[str, Callable[..., Any]]:
    import torch
    return {
        "add10": lambda a, out: torch.add(a, 10.0, out=out),
        "zip": lambda a, b, out: torch.add(a, b, out=out),
        "copy": lambda a, out: out.copy_(a),
        "rowsum": lambda a, out, rows: torch.sum(a.view(rows, -1), dim=1, out=out),
        # no out= form: torch allocates its result (from its caching allocator), as a user's call would
        "softmax": lambda a, out, rows: torch.softmax(a.view(rows, -1), dim=1),
        # the whole buffer back (past SIZE it stays as allocated, zeros, like the guarded kernel's)
        "guards": lambda a, out, size: (torch.add(a[:size], 10.0, out=out[:size]), out)[1],
        "broadcast": lambda a, b, out, s: torch.add(a[None, :], b[:, None], out=out.view(s, s)),
        "cumsum": lambda a, out, rows: torch.cumsum(a.view(rows, -1), dim=1, out=out.view(rows, -1)),
        "layernorm": lambda x, g, b, out, wg: torch.nn.functional.layer_norm(x.view(-1, wg), (wg,), g, b, eps=1e-5),
    }


# (puzzle prefix, build sizes, case label, torch op, extra torch args (callable of sizes), description)
MEMORY_BOUND = [
    ("puzzle_01", (MIB64,), None, "add10", lambda s: (), "map a+10"),
    ("puzzle_02", (MIB64,), None, "zip", lambda s: (), "zip a+b"),
    ("puzzle_06", (MIB64,), None, "add10", lambda s: (), "blocks a+10"),
    ("puzzle_07", (4096,), None, "add10", lambda s: (), "2-D blocks a+10 (4096²)"),
    ("puzzle_08", (MIB64,), None, "add10", lambda s: (), "shared a+10"),
    ("puzzle_15", (65536, 256), None, "rowsum", lambda s: (s[0],), "axis sum 65536×256"),
    ("puzzle_18", (65536, 256), None, "softmax", lambda s: (s[0],), "softmax 65536×256"),
    ("puzzle_21", (65536, 256), "2d", "copy", lambda s: (), "embedding 2-D copy"),
    ("puzzle_22_layernorm", (MIB64,), "layernorm", "layernorm", lambda s: (64,), "layernorm rows of 64"),
    # The same puzzles with four elements per thread (only the layout changes) or one warp per row.
    ("puzzle_01", (MIB64,), "map x4", "add10", lambda s: (), "map a+10, 4 per thread"),
    ("puzzle_02", (MIB64,), "zip x4", "zip", lambda s: (), "zip a+b, 4 per thread"),
    ("puzzle_06", (MIB64,), "blocks x4", "add10", lambda s: (), "blocks a+10, 4 per thread"),
    ("puzzle_07", (4096,), "2dblocks x4", "add10", lambda s: (), "2-D blocks a+10 (4096²), 64×4 blocks, 4 rows per thread"),
    ("puzzle_03", (MIB64 - 100,), "guards x4", "guards", lambda s: (s[0],), "guards a+10 (2^24 − 100 of 2^24), 4 per thread"),
    ("puzzle_04", (4096,), "2dmap x4", "add10", lambda s: (), "2-D map a+10 (4096²), 64×4 blocks, 4 rows per thread"),
    ("puzzle_05", (4096,), "broadcast x4", "broadcast", lambda s: (s[0],), "broadcast a[c]+b[r] (4096²), 4 rows per thread"),
    ("puzzle_14:build_rows", (65536, 256), "prefix_sum rows", "cumsum", lambda s: (s[0],), "prefix sum of 65536 rows of 256, a warp per row"),
    ("puzzle_08", (MIB64,), "shared_mem x4", "add10", lambda s: (), "shared a+10, 4 per thread"),
    ("puzzle_15", (65536, 256), "axis_sum warp", "rowsum", lambda s: (s[0],), "axis sum 65536×256, a warp per row"),
    ("puzzle_18", (65536, 256), "softmax warp", "softmax", lambda s: (s[0],), "softmax 65536×256, a warp per row"),
    ("puzzle_21", (65536, 256), "2d x4", "copy", lambda s: (), "embedding 2-D copy, 4 rows per block"),
]


def _events_time(fn: Callable[[], Any], iters: int) -> float:
    import cupy
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    fn()
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    return cupy.cuda.get_elapsed_time(start, end) / iters  # ms


def _interleaved(ours: Callable[[], Any], theirs: Callable[[], Any], rounds: int, iters: int) -> Tuple[float, float]:
    best_ours, best_theirs = float("inf"), float("inf")
    for _ in range(rounds):
        best_ours = min(best_ours, _events_time(ours, iters))
        best_theirs = min(best_theirs, _events_time(theirs, iters))
    return best_ours, best_theirs


def time_memory_bound(puzzles: List[Any], dry_run: bool, rounds: int) -> List[Tuple[str, ...]]:
    rows = []
    for prefix, sizes, label, op, extra, what in MEMORY_BOUND:
        try:
            case = _case(puzzles, prefix, sizes, label)
            kernel = case["kernel"]
            if dry_run:
                ptx_of(kernel)
                rows.append((what, "PTX ok", "", "", "", ""))
                continue
            import cupy
            import torch
            bufs = kernel._global_bufs
            inputs = [torch.from_numpy(((np.arange(b.numel) * 37 + 17) % 10).astype(np.float32)).cuda() for b in bufs[:-1]]
            out = torch.zeros(bufs[-1].numel, dtype=torch.float32, device="cuda")
            ref = torch.zeros_like(out)
            launch = Launcher(kernel)
            views = [cupy.asarray(t) for t in inputs + [out]]
            torch_fn = _torch_ops()[op]
            torch_args = inputs + [ref] + list(extra(sizes))
            launch(*views)
            ref = torch_fn(*torch_args).reshape(-1)
            torch.cuda.synchronize()
            err = float((out - ref).abs().max())
            ok = err <= 1e-3 * max(1.0, float(ref.abs().max()))
            nbytes = sum(b.numel * 4 for b in bufs)
            t_ours, t_torch = _interleaved(lambda: launch(*views), lambda: torch_fn(*torch_args), rounds, 20)
            rows.append((what, "PASS" if ok else f"FAIL ({err:.3g})", f"{nbytes / 2**20:.0f}",
                         f"{nbytes / t_ours / 1e6:.0f}", f"{nbytes / t_torch / 1e6:.0f}", f"{t_torch / t_ours:.2f}"))
        except Exception as error:  # noqa: BLE001
            rows.append((what, "ERROR", str(error).splitlines()[0][:80], "", "", ""))
    return rows


# (puzzle prefix, case label, description, f16 inputs) — each timed at 4096 against torch.matmul
MATMULS = [("puzzle_16", "tiled", "fp32 tiled smem vs torch.matmul (TF32 off)", False),
           ("puzzle_16", "register_tiled", "fp32 register-tiled 128×128×8, 8×8 per thread vs torch.matmul (TF32 off)",
            False),
           ("puzzle_16:build_variants", "register_tiled db", "fp32 register-tiled, double-buffered shared tiles, one "
            "barrier per k-tile vs torch.matmul (TF32 off)", False),
           ("puzzle_16:build_variants", "register_tiled bk16", "fp32 register-tiled, BK = 16 vs torch.matmul (TF32 off)",
            False),
           ("puzzle_33", "mma", "WMMA f16→f32 vs cuBLAS fp16", True),
           ("puzzle_33", "mma_staged", "WMMA f16→f32, 128×128 block, 8 warps × 2×4 fragments, shared-staged BK=32 "
            "vs cuBLAS fp16", True),
           ("puzzle_33", "mma_pipelined", "WMMA f16→f32, 128×128 block, 8 warps × 2×4 fragments, cp.async double-buffered "
            "BK=32, rolled k-loop vs cuBLAS fp16", True)]


def time_matmuls(puzzles: List[Any], dry_run: bool, rounds: int, size: int = 4096) -> List[Tuple[str, ...]]:
    rows = []
    for prefix, label, what, half in MATMULS:
        try:
            if not any(m.__name__.startswith(prefix.partition(":")[0]) for m in puzzles):
                continue
            case = _case(puzzles, prefix, (size, size, size), label)
            kernel = case["kernel"]
            if dry_run:
                ptx_of(kernel)
                rows.append((what, "PTX ok", "", "", ""))
                continue
            import cupy
            import torch
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
            g = torch.Generator(device="cpu").manual_seed(1)
            dtype = torch.float16 if half else torch.float32
            a = torch.randn(size, size, generator=g).to(dtype).cuda()
            b = torch.randn(size, size, generator=g).to(dtype).cuda()
            c = torch.zeros(size, size, dtype=torch.float32, device="cuda")
            launch = Launcher(kernel)
            views = [cupy.asarray(t.reshape(-1)) for t in (a, b, c)]
            launch(*views)
            ref = (a.float() @ b.float()) if half else (a @ b)
            torch.cuda.synchronize()
            err = float((c - ref).abs().max())
            ok = err <= (0.5 if half else 1e-2)
            t_ours, t_torch = _interleaved(lambda: launch(*views), lambda: torch.matmul(a, b), rounds, 3)
            # t_* in milliseconds: flops / ms / 1e9 is TFLOP/s.
            flops = 2 * size ** 3
            rows.append((what, "PASS" if ok else f"FAIL ({err:.3g})", f"{flops / t_ours / 1e9:.1f}",
                         f"{flops / t_torch / 1e9:.1f}", f"{t_torch / t_ours:.2f}"))
        except Exception as error:  # noqa: BLE001
            rows.append((what, "ERROR", str(error).splitlines()[0][:80], "", ""))
    return rows


# (puzzle prefix, build sizes, synchronous case label, topic case label, description)
TOPIC_KERNELS = [
    ("puzzle_28", (MIB64,), "conv1d_tiled", "conv1d_async", "28 5-tap conv: sync staging vs cp.async"),
    ("puzzle_29", (MIB64,), "3-stage", "3-stage async", "29 3-stage: per-tile barriers vs cp.async + mbarrier pipeline"),
    ("puzzle_34", (MIB64,), "clusters", "clusters dsmem", "34 scaled block sums: blocks vs 2-block clusters + DSMEM"),
]


def time_topic_kernels(puzzles: List[Any], dry_run: bool, rounds: int) -> List[Tuple[str, ...]]:
    """Each topic kernel (sm_90: async copies, mbarriers, clusters) against its puzzle's synchronous kernel,
    same inputs, interleaved; GB/s counts every global buffer once (read inputs + written output)."""
    import bench_utils
    rows = []
    for prefix, sizes, sync_label, topic_label, what in TOPIC_KERNELS:
        try:
            if not any(m.__name__.startswith(prefix) for m in puzzles):
                continue
            sync_case = _case(puzzles, prefix, sizes, sync_label)
            topic_case = _case(puzzles, prefix, sizes, topic_label)
            if dry_run:
                for case in (sync_case, topic_case):
                    ptx_of(case["kernel"])
                rows.append((what, "PTX ok", "", "", "", "", ""))
                continue
            import cupy
            checks, launches, views = [], [], []
            inputs = bench_utils._inputs(sync_case["kernel"], sync_case.get("init_mod", 10000))
            expected = np.asarray(sync_case["expected"]([a.astype(np.float32) for a in inputs[:-1]]), np.float64).ravel()
            for case in (sync_case, topic_case):
                kernel = case["kernel"]
                device = [cupy.asarray(a) for a in bench_utils._inputs(kernel, case.get("init_mod", 10000))]
                launch = Launcher(kernel)
                launch(*device)
                cupy.cuda.runtime.deviceSynchronize()
                # large sums in f32: a relative tolerance too
                checks.append(bench_utils.compare_output(cupy.asnumpy(device[-1]), expected, case.get("atol", 0), 1e-5))
                launches.append(launch)
                views.append(device)
            ok = all(c[0] for c in checks)
            nbytes = sum(b.numel * 4 for b in sync_case["kernel"]._global_bufs)
            t_sync, t_topic = _interleaved(lambda: launches[0](*views[0]), lambda: launches[1](*views[1]), rounds, 20)
            rows.append((what, "PASS" if ok else f"FAIL ({max(c[1] for c in checks):.3g})", f"{nbytes / 2**20:.0f}",
                         f"{t_sync * 1e3:.1f}", f"{t_topic * 1e3:.1f}", f"{nbytes / t_topic / 1e6:.0f}",
                         f"{t_sync / t_topic:.2f}"))
        except Exception as error:  # noqa: BLE001
            rows.append((what, "ERROR", str(error).splitlines()[0][:80], "", "", "", ""))
    return rows


def _table(header: Tuple[str, ...], rows: List[Tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--puzzles", required=True, help="the puzzles directory (python/examples/puzzles)")
    parser.add_argument("--dry-run", action="store_true", help="only build and compile the PTX (no GPU)")
    parser.add_argument("--rounds", type=int, default=10, help="interleaved timing rounds (best of)")
    parser.add_argument("--skip-timing", action="store_true")
    parser.add_argument("--topic-only", action="store_true",
                        help="of the timings, only the sm_90 topic kernels (28, 29, 34) vs their synchronous kernels")
    args = parser.parse_args(argv)
    import lego
    started = time.time()
    puzzles = load_puzzles(args.puzzles)
    print(f"lego from {os.path.dirname(lego.__file__)}; {len(puzzles)} puzzle files; chip {CHIP} {FEATURES}"
          + ("; dry run (no launches)" if args.dry_run else ""))
    if not args.dry_run:
        import cupy
        import torch
        print(f"device: {cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}; torch {torch.__version__}; "
              f"cupy {cupy.__version__}")
    correctness = check_catalogue(puzzles, args.dry_run)
    print("\n## Every cuda puzzle at the catalogue sizes, against NumPy\n")
    print(_table(("puzzle", "kernel", "result", "max error"), correctness))
    status, err = check_attention(puzzles, args.dry_run)
    print(f"\nattention (scores → softmax → weighted sum, SEQ = DIM = 64) vs scaled_dot_product_attention: {status} {err}")
    failed = [r for r in correctness if r[2] not in ("PASS", "PTX ok")] + ([1] if status not in ("PASS", "PTX ok") else [])
    if not args.skip_timing and not args.topic_only:
        print(f"\n## Memory-bound puzzles vs torch (best of {args.rounds} interleaved rounds)\n")
        print(_table(("puzzle", "check", "MiB moved", "ours GB/s", "torch GB/s", "ours / torch"),
                     time_memory_bound(puzzles, args.dry_run, args.rounds)))
        print(f"\n## Matmuls at 4096 (best of {args.rounds} interleaved rounds)\n")
        print(_table(("kernel", "check", "ours TFLOP/s", "torch TFLOP/s", "ours / torch"),
                     time_matmuls(puzzles, args.dry_run, args.rounds)))
    if not args.skip_timing:
        print(f"\n## sm_90 topic kernels vs the same puzzle's synchronous kernel (best of {args.rounds} "
              "interleaved rounds)\n")
        print(_table(("puzzle", "check", "MiB moved", "sync µs", "topic µs", "topic GB/s", "sync / topic"),
                     time_topic_kernels(puzzles, args.dry_run, args.rounds)))
    print(f"\n{len(correctness)} kernels, {len(failed)} not passing; {time.time() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
