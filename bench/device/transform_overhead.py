"""Is the gap of section (c) in the kernel or in the call? For each (c) layout on 8192² fp16/fp32: the GPU time per
call of ``layout.transform`` at 5 and 50 calls per timed window (host work that the GPU cannot hide shows at 5),
the host time per call (no synchronization), and the tuned kernel launched directly — each against a copy, one
process, interleaved:

    python3 bench/device/transform_overhead.py          # on the GPU machine, wheel installed
"""

import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wheel_gpu import interleaved, tensor_api_layouts  # noqa: E402


def main():
    from lego.backend import triton_layout
    n = 8192
    for dtype in (torch.float16, torch.float32):
        x = torch.randn(n, n, device="cuda").to(dtype)
        out = torch.empty_like(x)
        nbytes = 2 * x.numel() * x.element_size()
        for name, (layout, _) in tensor_api_layouts(n).items():
            layout.transform(x)
            torch.cuda.synchronize()
            chosen = [v for k, v in triton_layout._TUNED.items() if k[0] == layout._compiled.key and k[1] and k[3] == x.dtype]
            fns = {"copy": lambda: out.copy_(x), "transform": lambda: layout.transform(x)}
            if chosen:
                fns["kernel"] = lambda: triton_layout._run(chosen[0], x.reshape(-1), out.reshape(-1), 1)
            row = {}
            for inner in (5, 50):
                ms = interleaved(fns, reps=7, inner=inner)
                row.update({f"{k}@{inner}": nbytes / v / 1e6 / (nbytes / ms["copy"] / 1e6) for k, v in ms.items() if k != "copy"})
            torch.cuda.synchronize()
            t = time.perf_counter()
            for _ in range(20):
                layout.transform(x)
            host_us = (time.perf_counter() - t) / 20 * 1e6
            torch.cuda.synchronize()
            gpu_us = interleaved({"t": lambda: layout.transform(x)}, reps=5, inner=20)["t"] * 1e3
            prepared = sum(key[0] == layout._compiled.key and key[3] == dtype for key in triton_layout._LAUNCHERS)
            print(f"{name:20s} {str(dtype)[6:]:8s} " + "  ".join(f"{k} {v:.2f}" for k, v in row.items())
                  + f"  | prepared launchers {prepared}"
                  + f"  | host {host_us:.0f} us/call (enqueue, GPU busy), GPU {gpu_us:.0f} us/call", flush=True)


if __name__ == "__main__":
    main()
