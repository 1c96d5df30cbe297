"""The tensor API's fused CUDA path over its tile parameters (lego.backend.triton_layout.TILE): every
(rows × columns of the index space, warps) candidate for ColMajor, TiledPermute 64×64, Swizzle and ZCurve on
8192×8192 fp32 and fp16, transform and inverse_transform, timed interleaved with torch's equivalent copy and a
device-to-device copy; each candidate's output compared with the default's. What chose TILE (docs/python.md):

    python3 bench/device/layout_sweep.py --out sweep.json     # on the GPU machine, the wheel installed
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import torch

os.environ["LEGO_TRITON_TUNE"] = "0"  # the tile below is TILE's, untuned
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wheel_gpu import interleaved, tensor_api_layouts  # noqa: E402

CANDIDATES = [(64, 64, 4), (32, 128, 4), (16, 256, 4), (8, 512, 4), (64, 64, 8), (128, 64, 8), (64, 128, 8),
              (32, 256, 8), (128, 128, 8), (16, 512, 8)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="sweep.json")
    parser.add_argument("--n", type=int, default=8192)
    parser.add_argument("--candidates", default="", help="e.g. 1x4096/4,64x64/8 (default: CANDIDATES)")
    parser.add_argument("--layouts", default="", help="a comma-separated subset of the layouts' names")
    parser.add_argument("--scatter", action="store_true", help="inverse_transform as the scatter kernel")
    args = parser.parse_args()
    global CANDIDATES
    if args.candidates:
        CANDIDATES = [tuple(int(v) for v in c.replace("/", "x").split("x")) for c in args.candidates.split(",")]
    from lego.backend import triton_layout

    n = args.n
    layouts = tensor_api_layouts(n)
    rows = []
    default = dict(triton_layout.TILE)
    for dtype in (torch.float32, torch.float16):
        size = torch.finfo(dtype).bits // 8
        x = torch.randn(n, n, device="cuda").to(dtype)
        out = torch.empty_like(x)
        for name, (layout, equivalent) in layouts.items():
            if args.layouts and name not in args.layouts.split(","):
                continue
            if args.scatter:
                layout._compiled.inverse_gather = False
            triton_layout.TILE.clear()
            triton_layout.TILE.update(default)
            want = layout.transform(x)
            fns = {"copy": lambda: out.copy_(x), "torch": lambda: equivalent(x)}
            agree = {}
            for br, bc, warps in CANDIDATES:
                tile = {"BR": br, "BC": bc, "num_warps": warps}

                def run(fn, tile=tile):
                    triton_layout.TILE.clear()
                    triton_layout.TILE.update(tile)
                    return fn()

                label = f"{br}x{bc}/{warps}"
                y = run(lambda: layout.transform(x))
                back = run(lambda: layout.inverse_transform(y))
                agree[label] = bool(torch.equal(y, want)) and bool(torch.equal(back, x))
                fns[f"T {label}"] = lambda run=run: run(lambda: layout.transform(x))
                fns[f"I {label}"] = lambda run=run: run(lambda: layout.inverse_transform(want))
            ms = interleaved(fns, reps=15, inner=3)
            gbs = {k: 2 * n * n * size / v / 1e6 for k, v in ms.items()}
            row = {"layout": name, "dtype": str(dtype).replace("torch.", ""), "agree": agree,
                   "inverse_gather": bool(layout._compiled.inverse_gather), "GBs": gbs}
            rows.append(row)
            best_t = max((k for k in gbs if k.startswith("T ")), key=gbs.get)
            best_i = max((k for k in gbs if k.startswith("I ")), key=gbs.get)
            print(f"{name:20s} {row['dtype']:8s} copy {gbs['copy']:6.0f} torch {gbs['torch']:6.0f} | "
                  + " ".join(f"{k} {v / gbs['copy']:.2f}" for k, v in gbs.items() if k[:2] in ("T ", "I "))
                  + f" | best T {best_t} {gbs[best_t]:6.0f} "
                  f"({gbs[best_t] / gbs['copy']:.2f} of copy) best I {best_i} {gbs[best_i]:6.0f} "
                  f"({gbs[best_i] / gbs['copy']:.2f}) | all agree {all(agree.values())} inverse gather "
                  f"{row['inverse_gather']}", flush=True)
    triton_layout.TILE.clear()
    triton_layout.TILE.update(default)
    # Geometric mean over the 16 (layout, dtype, direction) cases of each candidate, relative to the copy.
    import math

    print("\ncandidate   geomean of LEGO/copy over the cases   worst")
    for br, bc, warps in CANDIDATES:
        label = f"{br}x{bc}/{warps}"
        ratios = [r["GBs"][f"{d} {label}"] / r["GBs"]["copy"] for r in rows for d in "TI"]
        print(f"{label:12s} {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}   {min(ratios):.2f}")
    with open(args.out, "w") as handle:
        json.dump(rows, handle, indent=1)


if __name__ == "__main__":
    main()
