"""Every Python path of the wheel on a GPU machine (issue: `pip install lego` anywhere). Runs there, with only the
wheel installed (`pip install --no-deps`) over the machine's torch / Triton / CuPy: no LLVM, no Rust.

    python3 bench/device/wheel_gpu.py --out results.json      # bench/device/run.sh runs it

(b) `lego.compile(layout, shape, target="cuda")` and a `KernelBuilder` shared-memory kernel, built here in-process,
    launched through CuPy's RawModule (PTX text, `format=assembly`), checked against NumPy, timed against a
    device-to-device copy;
(c) the tensor API on CUDA tensors: `transform` / `inverse_transform` of ColMajor, TiledPermute 64×64, Swizzle and
    ZCurve on 8192×8192 fp32 and fp16, checked against the CPU path (the Rust program on the same data), timed
    interleaved against torch's own equivalent copy and a device-to-device copy;
(j) `@lego.jit` applied here to a Triton kernel and launched (the bench/triton kernels run through run.py).
Timing: CUDA events around each call, candidates interleaved round-robin, median of the repetitions.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import traceback

import numpy as np
import torch

ROWS = []


def interleaved(fns, reps=30, inner=5):
    """Median milliseconds per call of each fn, measured round-robin (one run of every fn per repetition)."""
    for fn in fns.values():
        fn()
    torch.cuda.synchronize()
    times = {name: [] for name in fns}
    for _ in range(reps):
        for name, fn in fns.items():
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(inner):
                fn()
            end.record()
            end.synchronize()
            times[name].append(start.elapsed_time(end) / inner)
    return {name: statistics.median(values) for name, values in times.items()}


def record(row):
    ROWS.append(row)
    print(json.dumps(row), flush=True)


def section(name, body):
    started = time.time()
    try:
        body()
    except Exception as error:  # noqa: BLE001 - a failed section is recorded, the others still run
        record({"section": name, "error": f"{type(error).__name__}: {error}", "trace": traceback.format_exc()[-3000:]})
    print(f"== {name}: {time.time() - started:.1f} s", flush=True)


# --- (b) PTX built here, launched with CuPy ------------------------------------------------------------------

def compile_and_launch():
    import cupy

    import lego
    from lego import OrderBy, Row
    from lego.jit import builders as B

    n = 4096
    layout = OrderBy(Row(n, n)).TileBy((n // 32, n // 32), (32, 32))
    result = lego.compile(layout, (n, n), target="cuda", chip="sm_90", features="+ptx80", format="assembly",
                          workgroup_size=256)
    # CuPy loads a .ptx file through the driver (cuModuleLoadData): no nvcc involved.
    path = "/tmp/lego_permute.ptx"
    with open(path, "w") as handle:
        handle.write(result.metadata["assembly"])
    module = cupy.RawModule(path=path)
    kernel = module.get_function("transform_kernel")
    src = cupy.arange(n * n, dtype=cupy.float32)
    dst = cupy.full_like(src, -1.0)
    grid, block = tuple(result.metadata["grid"]), tuple(result.metadata["block"])
    launch = lambda: kernel(grid, block, (src, dst))  # noqa: E731
    launch()
    cupy.cuda.runtime.deviceSynchronize()
    expected = np.arange(n * n, dtype=np.float32).reshape(n // 32, 32, n // 32, 32).transpose(0, 2, 1, 3).reshape(-1)
    ok = bool((cupy.asnumpy(dst) == expected).all())
    copy = lambda: dst.__setitem__(slice(None), src)  # noqa: E731
    ms = interleaved({"lego": launch, "copy": copy})
    gbs = {k: 2 * n * n * 4 / v / 1e6 for k, v in ms.items()}
    record({"section": "b", "kernel": "lego.compile permutation (32x32 tile repack) fp32", "size": f"{n}x{n}",
            "correct": ok, "lego_GBs": gbs["lego"], "copy_GBs": gbs["copy"], "ratio_vs_copy": gbs["lego"] / gbs["copy"]})

    # A KernelBuilder kernel through shared memory: the transpose of 32 x 32 tiles staged in a padded tile
    # (33 columns: a column of the tile falls into 32 different banks).
    src_buf = B.LayoutBuffer(OrderBy(Row(n, n)), (n, n))
    dst_buf = B.LayoutBuffer(OrderBy(Row(n, n)), (n, n))
    tile = B.LayoutBuffer(OrderBy(Row(32, 33)), (32, 33), shared=True)

    def body(ctx):
        bx, by, tx, ty = ctx.block_id.x, ctx.block_id.y, ctx.thread_id.x, ctx.thread_id.y
        c32 = ctx.const_index(32)
        for k in range(4):  # 32 x 8 threads, 4 rows each
            row = ctx.addi(ty, ctx.const_index(8 * k))
            value = ctx.load(src_buf, [ctx.addi(ctx.muli(by, c32), row), ctx.addi(ctx.muli(bx, c32), tx)])
            ctx.store(value, tile, [row, tx])
        ctx.barrier()
        for k in range(4):
            row = ctx.addi(ty, ctx.const_index(8 * k))
            value = ctx.load(tile, [tx, row])
            ctx.store(value, dst_buf, [ctx.addi(ctx.muli(bx, c32), row), ctx.addi(ctx.muli(by, c32), tx)])

    builder = B.KernelBuilder([src_buf, dst_buf, tile], body, name="smem_transpose", grid=(n // 32, n // 32),
                              block=(32, 8))
    result = builder.compile(target="cuda", chip="sm_90", features="+ptx80", format="assembly")
    ptx = result.metadata["assembly"]
    assert ".shared" in ptx and "bar.sync" in ptx, "no shared memory / barrier in the PTX"
    path = "/tmp/lego_smem_transpose.ptx"
    with open(path, "w") as handle:
        handle.write(ptx)
    kernel = cupy.RawModule(path=path).get_function("smem_transpose_kernel")
    host = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    src = cupy.asarray(host)
    dst = cupy.full_like(src, np.nan)
    launch = lambda: kernel((n // 32, n // 32, 1), (32, 8, 1), (src, dst))  # noqa: E731
    launch()
    cupy.cuda.runtime.deviceSynchronize()
    ok = bool((cupy.asnumpy(dst) == host.T).all())
    copy = lambda: dst.__setitem__(slice(None), src)  # noqa: E731
    t_src = torch.as_tensor(src, device="cuda")
    ms = interleaved({"lego": launch, "copy": copy, "torch_t": lambda: t_src.t().contiguous()})
    gbs = {k: 2 * n * n * 4 / v / 1e6 for k, v in ms.items()}
    record({"section": "b", "kernel": "KernelBuilder shared-memory transpose (32x33 tile) fp32", "size": f"{n}x{n}",
            "correct": ok, "lego_GBs": gbs["lego"], "copy_GBs": gbs["copy"], "torch_t_GBs": gbs["torch_t"],
            "ratio_vs_copy": gbs["lego"] / gbs["copy"], "ratio_vs_torch": gbs["lego"] / gbs["torch_t"]})


# --- (c) the tensor API on CUDA tensors ------------------------------------------------------------------------

def tensor_api_layouts(n, t=64):
    """The (c) layouts on n×n and torch's own equivalent copy of each (also bench/device/layout_sweep.py's)."""
    import lego

    return {
        "ColMajor": (lego.ColMajor((n, n)), lambda x: x.t().contiguous()),
        "TiledPermute 64x64": (lego.TiledPermute((n, n), (t, t)),
                               lambda x: x.reshape(n // t, n // t, t, t).permute(0, 2, 1, 3).contiguous()),
        "Swizzle": (lego.Swizzle((n, n)), lambda x: x.t().contiguous()),
        "ZCurve": (lego.ZCurve((n, n)), lambda x: x.t().contiguous()),
    }


def tensor_api(n):
    import lego
    from lego.backend import triton_layout

    layouts = tensor_api_layouts(n)
    for dtype in (torch.float32, torch.float16):
        size = torch.finfo(dtype).bits // 8
        x = torch.randn(n, n, device="cuda").to(dtype)
        host = x.cpu().numpy()
        for name, (layout, torch_equivalent) in layouts.items():
            fused_before = len(triton_layout._KERNELS)
            y = layout.transform(x)
            back = layout.inverse_transform(y)
            torch.cuda.synchronize()
            fused = len(triton_layout._KERNELS) > fused_before or any(
                key[0] == layout._compiled.key for key in triton_layout._KERNELS)
            want = layout.transform(host)  # the CPU path: the Rust program over the same data
            ok_fwd = bool(np.array_equal(y.cpu().numpy().reshape(-1), np.asarray(want).reshape(-1)))
            ok_back = bool(torch.equal(back.reshape(-1), x.reshape(-1)))
            out = torch.empty_like(x)
            ms = interleaved({
                "transform": lambda: layout.transform(x),
                "inverse": lambda: layout.inverse_transform(y),
                "torch": lambda: torch_equivalent(x),
                "copy": lambda: out.copy_(x),
            }, reps=20, inner=3)
            gbs = {k: 2 * n * n * size / v / 1e6 for k, v in ms.items()}
            choices = {}
            for key, (program, gathers, tile) in triton_layout._TUNED.items():
                if key[0] == layout._compiled.key and key[3] == dtype:
                    how = "gather" if key[1] else "inverse gather" if gathers else "scatter"
                    boxed = f" box {tile['BRS']}x{tile['BCS']}" if "BCS" in tile else ""
                    choices[key[1]] = f"{how} {tile['BR']}x{tile['BC']}/{tile['num_warps']}{boxed}"
            record({"section": "c", "layout": name, "dtype": str(dtype).replace("torch.", ""), "size": f"{n}x{n}",
                    "fused": fused,
                    "prepared": sum(key[0] == layout._compiled.key and key[3] == dtype for key in triton_layout._LAUNCHERS),
                    "choice_transform": choices.get(True), "choice_inverse": choices.get(False), "correct_transform": ok_fwd, "correct_inverse": ok_back,
                    **{f"{k}_GBs": v for k, v in gbs.items()},
                    "transform_vs_torch": gbs["transform"] / gbs["torch"],
                    "transform_vs_copy": gbs["transform"] / gbs["copy"],
                    "inverse_vs_torch": gbs["inverse"] / gbs["torch"], "inverse_vs_copy": gbs["inverse"] / gbs["copy"]})
    # The fallback (LEGO_TRITON_LAYOUT=0 path: int64 element-wise chain and a gather), for the record.
    import os

    os.environ["LEGO_TRITON_LAYOUT"] = "0"
    layout, torch_equivalent = layouts["TiledPermute 64x64"]
    x = torch.randn(n, n, device="cuda")
    ms = interleaved({"fallback": lambda: layout.transform(x), "torch": lambda: torch_equivalent(x)}, reps=5, inner=1)
    del os.environ["LEGO_TRITON_LAYOUT"]
    record({"section": "c", "layout": "TiledPermute 64x64 (fallback path)", "dtype": "float32",
            "fallback_GBs": 2 * n * n * 4 / ms["fallback"] / 1e6, "torch_GBs": 2 * n * n * 4 / ms["torch"] / 1e6})
    # Autograd through the fused path.
    layout = lego.ColMajor((256, 256))
    x = torch.randn(256, 256, device="cuda", requires_grad=True)
    w = torch.randn(256, 256, device="cuda")
    (layout.transform(x) * w).sum().backward()
    record({"section": "c", "autograd_correct": bool(torch.allclose(x.grad, layout.inverse_transform(w)))})


# --- (j) @lego.jit here ----------------------------------------------------------------------------------------

def jit_here():
    import triton
    import triton.language as tl

    import lego
    from lego import OrderBy, Row

    src = '''
import triton
import triton.language as tl
from lego import OrderBy, Row

@triton.jit
def vecadd(x_ptr, y_ptr, z_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    L = OrderBy(Row(N)).TileBy([N / BLOCK], [BLOCK])
    offsets = L[pid, :]
    tl.store(z_ptr + offsets, tl.load(x_ptr + offsets) + tl.load(y_ptr + offsets))
'''
    path = "/tmp/lego_jit_vecadd.py"
    with open(path, "w") as handle:
        handle.write(src)
    namespace = {}
    exec(compile(src, path, "exec"), namespace)
    kernel = lego.jit(namespace["vecadd"])
    n = 1 << 24
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    z = torch.empty_like(x)
    kernel[(n // 1024,)](x, y, z, n, BLOCK=1024)
    torch.cuda.synchronize()
    record({"section": "j", "kernel": "@lego.jit vecadd (decorated here)", "correct": bool(torch.equal(z, x + y)),
            "layout_rewritten": "L[" not in lego.get_kernel_source(namespace["vecadd"])})
    del triton, tl, OrderBy, Row


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="wheel_gpu.json")
    parser.add_argument("--n", type=int, default=8192)
    parser.add_argument("--only", default="b,c,j")
    args = parser.parse_args()
    import lego

    record({"section": "env", "lego": lego.__version__, "lego_file": lego.__file__, "torch": torch.__version__,
            "device": torch.cuda.get_device_name(), "python": sys.version.split()[0]})
    parts = args.only.split(",")
    if "j" in parts:
        section("j: @lego.jit", jit_here)
    if "b" in parts:
        section("b: lego.compile + KernelBuilder via CuPy", compile_and_launch)
    if "c" in parts:
        section("c: tensor API on CUDA", lambda: tensor_api(args.n))
    with open(args.out, "w") as handle:
        json.dump(ROWS, handle, indent=1)


if __name__ == "__main__":
    main()
