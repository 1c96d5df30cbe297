"""LEGO vs hand-written vs torch, measured interleaved (bench/triton/README.md, "Interleaved rounds").

One `do_bench` median per kernel per process drifts by several per cent between runs (clocks, power, the
allocator), more than the gap the comparison is about. Here each comparison runs ROUNDS rounds; in each round
the LEGO kernel, its hand-written twin and the torch operation are timed back to back (their order rotating),
and the ratio is taken within the round. The table gives the median ratio and its range over the rounds.
Matmul configs: the hand-written kernel's best of run.py's candidates (--tune --wide), which the LEGO kernel
then uses. Runs on the GPU machine:

    python3 bench/triton/run_interleaved.py --out results-interleaved.json
"""

import argparse
import json
import statistics

import torch
import triton
from triton.testing import do_bench

import run as R  # bench/triton/run.py: the kernels' set-up and the config lists

ROUNDS = 9


def timed(fn):
    return do_bench(fn, warmup=10, rep=60, return_mode="median")


def interleave(name, size, unit, work, fl, fh, ft, ok, note=""):
    lego, hand, torch_ = [], [], []
    for r in range(ROUNDS):
        order = [(fl, lego), (fh, hand), (ft, torch_)]
        order = order[r % 3:] + order[:r % 3]
        for fn, into in order:
            into.append(timed(fn))
    vs_hand = [h / l for l, h in zip(lego, hand)]
    vs_torch = [t / l for l, t in zip(lego, torch_)]
    hand_vs_torch = [t / h for h, t in zip(hand, torch_)]
    row = {"kernel": name, "size": size, "unit": unit, "correct": ok, "note": note, "rounds": ROUNDS,
           "lego": work / statistics.median(lego) / 1e9, "hand": work / statistics.median(hand) / 1e9,
           "torch": work / statistics.median(torch_) / 1e9,
           "lego_over_hand": statistics.median(vs_hand), "lego_over_hand_range": [min(vs_hand), max(vs_hand)],
           "lego_over_torch": statistics.median(vs_torch), "lego_over_torch_range": [min(vs_torch), max(vs_torch)],
           "hand_over_torch": statistics.median(hand_vs_torch)}
    print(json.dumps(row), flush=True)
    return row


def simple_kernels():
    rows = []
    n = 1 << 26
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    zl, zh, zt = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    grid = (n // 1024,)
    fl = lambda: R.G.vecadd[grid](x, y, zl, n, BLOCK=1024, num_warps=4)
    fh = lambda: R.H.vecadd[grid](x, y, zh, n, BLOCK=1024, num_warps=4)
    fl(), fh()
    rows.append(interleave("vecadd fp32", str(n), "GB/s", 3 * n * 4, fl, fh, lambda: torch.add(x, y, out=zt),
                           torch.equal(zl, x + y) and torch.equal(zh, x + y)))
    m, n = 8192, 4096
    x = torch.randn(m, n, device="cuda")
    ol, oh = torch.empty_like(x), torch.empty_like(x)
    fl = lambda: R.G.softmax[(m,)](ol, x, m, n, BLOCK=4096, num_warps=8)
    fh = lambda: R.H.softmax[(m,)](oh, x, m, n, BLOCK=4096, num_warps=8)
    fl(), fh()
    ref = torch.softmax(x, dim=1)
    ok = torch.allclose(ol, ref, atol=1e-6, rtol=1e-4) and torch.allclose(oh, ref, atol=1e-6, rtol=1e-4)
    rows.append(interleave("softmax fp32", f"{m}x{n}", "GB/s", 2 * m * n * 4, fl, fh,
                           lambda: torch.softmax(x, dim=1), ok))
    m, n = 4096, 4096
    x = torch.randn(m, n, device="cuda", dtype=torch.float16)
    w = torch.randn(n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, device="cuda", dtype=torch.float16)
    yl, yh = torch.empty_like(x), torch.empty_like(x)
    fl = lambda: R.G.layernorm[(m,)](x, yl, w, b, m, n, 1e-5, BLOCK=4096, num_warps=8)
    fh = lambda: R.H.layernorm[(m,)](x, yh, w, b, m, n, 1e-5, BLOCK=4096, num_warps=8)
    fl(), fh()
    ref = torch.nn.functional.layer_norm(x.float(), (n,), w.float(), b.float(), 1e-5).half()
    ok = torch.allclose(yl, ref, atol=2e-2, rtol=1e-2) and torch.allclose(yh, ref, atol=2e-2, rtol=1e-2)
    rows.append(interleave("layernorm fwd fp16", f"{m}x{n}", "GB/s", 2 * m * n * 2, fl, fh,
                           lambda: torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5), ok))
    return rows


def matmul(size, variant):
    m = n = k = size
    a_store, b_store, a, b, cl, ch = R.matmul_operands(size, variant)
    lego_kernel = getattr(R.G, f"matmul_{variant}")
    grid = lambda cfg: (triton.cdiv(m, cfg["BM"]) * triton.cdiv(n, cfg["BN"]),)
    hand = lambda cfg: (lambda: R.H.matmul[grid(cfg)](a, b, ch, m, n, k, a.stride(0), a.stride(1), b.stride(0),
                                                      b.stride(1), ch.stride(0), ch.stride(1), **cfg))
    cfg = min(R.MM_CONFIGS + R.MM_WIDE, key=lambda c: timed(hand(c)))
    fl = lambda: lego_kernel[grid(cfg)](a_store, b_store, cl, m, n, k, **cfg)
    fh = hand(cfg)
    fl(), fh()
    ref = torch.matmul(a, b)
    ok = torch.allclose(cl, ref, atol=1e-1, rtol=1e-2) and torch.allclose(ch, ref, atol=1e-1, rtol=1e-2)
    return interleave(f"matmul fp16 {variant.upper()}", str(size), "TFLOP/s", 2 * m * n * k / 1e3, fl, fh,
                      lambda: torch.matmul(a, b), ok, note=R._config_text(cfg))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="results-interleaved.json")
    parser.add_argument("--sizes", default="8192")
    args = parser.parse_args()
    print(torch.cuda.get_device_name(0), "triton", triton.__version__, "torch", torch.__version__, flush=True)
    rows = simple_kernels()
    for size in map(int, args.sizes.split(",")):
        for variant in ("nn", "nt", "tn", "tt"):
            rows.append(matmul(size, variant))
    info = {"device": torch.cuda.get_device_name(0), "triton": triton.__version__, "torch": torch.__version__,
            "rounds": ROUNDS}
    with open(args.out, "w") as f:
        json.dump({"info": info, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
