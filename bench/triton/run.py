"""The paper's Triton evaluation on one GPU (bench/triton/README.md). Runs on the GPU machine, which has
PyTorch, Triton and CuPy but no lego: the LEGO kernels are generated/lego_generated.py (made by generate.py).

    python3 bench/triton/run.py --out results.json

Every kernel is checked against PyTorch before it is timed; times are medians of triton.testing.do_bench."""

import argparse
import json
import os
import sys

import torch
import triton
from triton.testing import do_bench

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "generated"))

import hand_kernels as H  # noqa: E402
import lego_generated as G  # noqa: E402

ROWS = []


def bench(fn):
    return do_bench(fn, warmup=25, rep=200, return_mode="median")


def record(kernel, size, lego_ms, hand_ms, unit, work, ok, torch_ms=None, note=""):
    row = {"kernel": kernel, "size": size, "lego_ms": lego_ms, "hand_ms": hand_ms, "torch_ms": torch_ms,
           "unit": unit, "lego": work / lego_ms / 1e9, "hand": work / hand_ms / 1e9,
           "torch": work / torch_ms / 1e9 if torch_ms else None, "ratio": hand_ms / lego_ms, "correct": ok, "note": note}
    ROWS.append(row)
    print(json.dumps(row), flush=True)


def run_vecadd():
    n = 1 << 26
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    zl, zh = torch.empty_like(x), torch.empty_like(x)
    grid = (n // 1024,)
    fl = lambda: G.vecadd[grid](x, y, zl, n, BLOCK=1024, num_warps=4)
    fh = lambda: H.vecadd[grid](x, y, zh, n, BLOCK=1024, num_warps=4)
    fl(), fh()
    ok = torch.equal(zl, x + y) and torch.equal(zh, x + y)
    record("vecadd fp32", f"{n}", bench(fl), bench(fh), "GB/s", 3 * n * 4, ok, bench(lambda: torch.add(x, y, out=zh)))


def run_softmax():
    m, n = 8192, 4096
    x = torch.randn(m, n, device="cuda")
    ol, oh = torch.empty_like(x), torch.empty_like(x)
    fl = lambda: G.softmax[(m,)](ol, x, m, n, BLOCK=4096, num_warps=8)
    fh = lambda: H.softmax[(m,)](oh, x, m, n, BLOCK=4096, num_warps=8)
    fl(), fh()
    ref = torch.softmax(x, dim=1)
    ok = torch.allclose(ol, ref, atol=1e-6, rtol=1e-4) and torch.allclose(oh, ref, atol=1e-6, rtol=1e-4)
    record("softmax fp32", f"{m}x{n}", bench(fl), bench(fh), "GB/s", 2 * m * n * 4, ok,
           bench(lambda: torch.softmax(x, dim=1)))


def run_layernorm():
    m, n = 4096, 4096
    x = torch.randn(m, n, device="cuda", dtype=torch.float16)
    w = torch.randn(n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, device="cuda", dtype=torch.float16)
    yl, yh = torch.empty_like(x), torch.empty_like(x)
    fl = lambda: G.layernorm[(m,)](x, yl, w, b, m, n, 1e-5, BLOCK=4096, num_warps=8)
    fh = lambda: H.layernorm[(m,)](x, yh, w, b, m, n, 1e-5, BLOCK=4096, num_warps=8)
    fl(), fh()
    ref = torch.nn.functional.layer_norm(x.float(), (n,), w.float(), b.float(), 1e-5).half()
    ok = torch.allclose(yl, ref, atol=2e-2, rtol=1e-2) and torch.allclose(yh, ref, atol=2e-2, rtol=1e-2)
    record("layernorm fwd fp16", f"{m}x{n}", bench(fl), bench(fh), "GB/s", 2 * m * n * 2, ok,
           bench(lambda: torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)))


MM = dict(BM=128, BN=256, BK=64, GM=8, num_warps=8, num_stages=3)
# --tune: the hand-written kernel's best of these per (size, variant); the LEGO kernel then runs the same one.
MM_CONFIGS = [MM, dict(BM=128, BN=128, BK=64, GM=8, num_warps=4, num_stages=4),
              dict(BM=128, BN=128, BK=64, GM=8, num_warps=8, num_stages=3),
              dict(BM=256, BN=128, BK=64, GM=8, num_warps=8, num_stages=3)]
# --wide: more candidates (deeper pipelines, BK=128).
MM_WIDE = [dict(BM=128, BN=256, BK=64, GM=8, num_warps=8, num_stages=4),
           dict(BM=256, BN=128, BK=64, GM=8, num_warps=8, num_stages=4),
           dict(BM=128, BN=128, BK=128, GM=8, num_warps=8, num_stages=3),
           dict(BM=128, BN=256, BK=32, GM=8, num_warps=8, num_stages=5)]
GROUPED_CONFIGS = [dict(BM=128, BN=128, BK=64, num_warps=8, num_stages=3),
                   dict(BM=128, BN=128, BK=32, num_warps=4, num_stages=3),
                   dict(BM=128, BN=256, BK=64, num_warps=8, num_stages=3)]
TUNE = False


def _config_text(cfg):
    return "BM={BM} BN={BN} BK={BK} warps={num_warps} stages={num_stages}".format(**cfg)


def matmul_operands(size, variant, device="cuda"):
    """fp16 operands of a size³ matmul in layout `variant` ("nn", "nt", "tn", "tt"): (a_store, b_store, a, b, cl,
    ch). T: the operand is stored transposed (its storage is the transpose, contiguous); the logical matrix `a` /
    `b` is a view of it. `cl`, `ch`: the LEGO and the hand-written kernel's outputs."""
    m = n = k = size
    a_store = torch.randn((k, m) if variant[0] == "t" else (m, k), device=device, dtype=torch.float16)
    b_store = torch.randn((n, k) if variant[1] == "t" else (k, n), device=device, dtype=torch.float16)
    a = a_store.t() if variant[0] == "t" else a_store
    b = b_store.t() if variant[1] == "t" else b_store
    cl = torch.empty((m, n), device=device, dtype=torch.float16)
    ch = torch.empty_like(cl)
    return a_store, b_store, a, b, cl, ch


def run_matmul(size, variant):
    m = n = k = size
    a_store, b_store, a, b, cl, ch = matmul_operands(size, variant)
    lego_kernel = getattr(G, f"matmul_{variant}")
    grid = lambda cfg: (triton.cdiv(m, cfg["BM"]) * triton.cdiv(n, cfg["BN"]),)
    hand = lambda cfg: (lambda: H.matmul[grid(cfg)](a, b, ch, m, n, k, a.stride(0), a.stride(1), b.stride(0),
                                                    b.stride(1), ch.stride(0), ch.stride(1), **cfg))
    cfg = min(MM_CONFIGS, key=lambda c: bench(hand(c))) if TUNE else MM
    fl = lambda: lego_kernel[grid(cfg)](a_store, b_store, cl, m, n, k, **cfg)
    fh = hand(cfg)
    fl(), fh()
    ref = torch.matmul(a, b)
    ok = torch.allclose(cl, ref, atol=1e-1, rtol=1e-2) and torch.allclose(ch, ref, atol=1e-1, rtol=1e-2)
    record(f"matmul fp16 {variant.upper()}", f"{size}", bench(fl), bench(fh), "TFLOP/s", 2 * m * n * k / 1e3, ok,
           bench(lambda: torch.matmul(a, b)), note=_config_text(cfg))


def run_grouped():
    sizes = [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (4096, 2048, 1024)]
    As = [torch.randn(m, k, device="cuda", dtype=torch.float16) for m, n, k in sizes]
    Bs = [torch.randn(k, n, device="cuda", dtype=torch.float16) for m, n, k in sizes]
    Cl = [torch.empty(m, n, device="cuda", dtype=torch.float16) for m, n, k in sizes]
    Ch = [torch.empty(m, n, device="cuda", dtype=torch.float16) for m, n, k in sizes]
    ptr = lambda ts: torch.tensor([t.data_ptr() for t in ts], device="cuda", dtype=torch.int64)
    gsizes = torch.tensor([v for s in sizes for v in s], device="cuda", dtype=torch.int32)
    lds = torch.tensor([v for a, b, c in zip(As, Bs, Ch) for v in (a.stride(0), b.stride(0), c.stride(0))],
                       device="cuda", dtype=torch.int32)
    pa, pb, pcl, pch = ptr(As), ptr(Bs), ptr(Cl), ptr(Ch)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    hand = lambda c: (lambda: H.grouped_matmul[(sms,)](pa, pb, pch, gsizes, lds, len(sizes), NUM_SM=sms, **c))
    cfg = min(GROUPED_CONFIGS, key=lambda c: bench(hand(c))) if TUNE else GROUPED_CONFIGS[0]
    fl = lambda: G.grouped_matmul[(sms,)](pa, pb, pcl, gsizes, len(sizes), NUM_SM=sms, **cfg)
    fh = hand(cfg)
    fl(), fh()
    ok = all(torch.allclose(c, a @ b, atol=1e-1, rtol=1e-2) and torch.allclose(h, a @ b, atol=1e-1, rtol=1e-2)
             for a, b, c, h in zip(As, Bs, Cl, Ch))
    flops = sum(2 * m * n * k for m, n, k in sizes) / 1e3
    record("grouped GEMM fp16", "+".join(f"{m}x{n}x{k}" for m, n, k in sizes), bench(fl), bench(fh), "TFLOP/s",
           flops, ok, bench(lambda: [torch.matmul(a, b) for a, b in zip(As, Bs)]),
           note="torch: one matmul per group; " + _config_text(cfg))


def run_permutation():
    """The KernelBuilder permutation kernel (PTX from lego.compile(target="cuda")) through CuPy vs NumPy."""
    import cupy
    import numpy as np

    meta = json.load(open(os.path.join(HERE, "generated", "permute_tiled.json")))
    n = meta["n"]
    module = cupy.RawModule(path=os.path.join(HERE, "generated", "permute_tiled.ptx"))
    kernel = module.get_function(meta["kernel"])
    src = cupy.arange(n * n, dtype=cupy.float32)
    dst = cupy.zeros_like(src)
    launch = lambda: kernel(tuple(meta["grid"]), tuple(meta["block"]), (src, dst))
    launch()
    cupy.cuda.runtime.deviceSynchronize()
    host = np.arange(n * n, dtype=np.float32)
    expected = host.reshape(n // 32, 32, n // 32, 32).transpose(0, 2, 1, 3).reshape(-1)  # tile-major repack
    ok = bool((cupy.asnumpy(dst) == expected).all())
    ms = bench(launch)
    copy_ms = bench(lambda: dst.__setitem__(slice(None), src))
    ROWS.append({"kernel": "KernelBuilder permutation (32x32 tile repack) fp32", "size": f"{n}x{n}", "lego_ms": ms,
                 "hand_ms": None, "torch_ms": copy_ms, "unit": "GB/s", "lego": 2 * n * n * 4 / ms / 1e9,
                 "hand": None, "torch": 2 * n * n * 4 / copy_ms / 1e9, "ratio": None, "correct": ok,
                 "note": "torch column: device-to-device copy (CuPy)"})
    print(json.dumps(ROWS[-1]), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="results.json")
    parser.add_argument("--sizes", default="2048,4096,8192")
    parser.add_argument("--tune", action="store_true", help="choose each matmul's tile config (hand-written best)")
    parser.add_argument("--wide", action="store_true", help="with --tune: 4 more matmul candidates")
    parser.add_argument("--only-matmul", action="store_true")
    args = parser.parse_args()
    global TUNE
    TUNE = args.tune
    if args.wide:
        MM_CONFIGS.extend(MM_WIDE)
    print(torch.cuda.get_device_name(0), "triton", triton.__version__, "torch", torch.__version__, flush=True)
    steps = [] if args.only_matmul else [run_vecadd, run_softmax, run_layernorm]
    steps += [lambda s=s, v=v: run_matmul(s, v) for s in map(int, args.sizes.split(",")) for v in ("nn", "nt", "tn", "tt")]
    steps += [] if args.only_matmul else [run_grouped, run_permutation]
    for step in steps:
        try:
            step()
        except Exception as error:  # one failing kernel must not lose the others' numbers
            print("FAILED", getattr(step, "__name__", step), repr(error), flush=True)
            ROWS.append({"kernel": str(getattr(step, "__name__", "step")), "error": repr(error)})
    info = {"device": torch.cuda.get_device_name(0), "triton": triton.__version__, "torch": torch.__version__,
            "tune": TUNE, "wide": args.wide}
    with open(args.out, "w") as f:
        json.dump({"info": info, "rows": ROWS}, f, indent=1)


if __name__ == "__main__":
    main()
