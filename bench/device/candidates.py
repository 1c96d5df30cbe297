"""Every candidate kernel the tuner of lego.backend.triton_layout would time (``_candidates``: the tiles, the
checked boxes, the inverse gather and the scatter), each timed directly, interleaved with a device-to-device
copy, for the (c) layouts on 8192×8192 — to see which kernel the tuner should pick and how stable it is:

    python3 bench/device/candidates.py [--dtypes float16] [--reps 15]     # on the GPU machine, wheel installed
"""

from __future__ import annotations

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wheel_gpu import interleaved, tensor_api_layouts  # noqa: E402


def label(choice):
    program, gather, tile = choice
    box = f" box {tile['BRS']}x{tile['BCS']}" if "BCS" in tile else ""
    return f"{'gather' if gather else 'scatter'} {tile['BR']}x{tile['BC']}/{tile['num_warps']}{box}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=8192)
    parser.add_argument("--dtypes", default="float32,float16")
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    from lego.backend import triton_layout

    n = args.n
    for dtype in (getattr(torch, d) for d in args.dtypes.split(",")):
        size = torch.finfo(dtype).bits // 8
        x = torch.randn(n, n, device="cuda").to(dtype)
        copy_out = torch.empty_like(x)
        for name, (layout, _) in tensor_api_layouts(n).items():
            y = layout.transform(x)  # plans the access (contiguity, boxes) and checks the inverse
            layout.inverse_transform(y)
            compiled = layout._compiled
            for gather, src, what in ((True, x.reshape(-1), "transform"), (False, y.reshape(-1), "inverse")):
                fns = {"copy": lambda: copy_out.copy_(x)}
                dst = torch.empty_like(src)
                for choice in triton_layout._candidates(compiled, gather):
                    fns[label(choice)] = lambda choice=choice: triton_layout._run(choice, src, dst, 1)
                ms = interleaved(fns, reps=args.reps, inner=3)
                gbs = {k: 2 * n * n * size / v / 1e6 for k, v in ms.items()}
                ranked = sorted((k for k in gbs if k != "copy"), key=gbs.get, reverse=True)
                print(f"{name:20s} {str(dtype)[6:]:8s} {what:9s} copy {gbs['copy']:5.0f} | "
                      + "  ".join(f"{k} {gbs[k] / gbs['copy']:.2f}" for k in ranked), flush=True)


if __name__ == "__main__":
    main()
