#!/usr/bin/env python3
"""Are lego-translate's Python functions valid inside @triton.jit code? layouts.py (lego-translate
--lego-to-python bench/gpu/translate/layouts.mlir) is jitted as Triton device functions, called with one program
per element (scalar indices), and compared with NumPy. Needs a GPU, Triton, PyTorch, NumPy."""
import numpy as np
import torch
import triton
import triton.language as tl

import layouts

tiled_apply = triton.jit(layouts.tiled_apply)
tiled_inverse = triton.jit(layouts.tiled_inverse)
antidiag_apply = triton.jit(layouts.antidiag_apply)


@triton.jit
def tiled_kernel(out, back):
    t = tl.program_id(0)
    k = t % 64
    i = (t // 64) % 64
    pk = (t // 4096) % 32
    pm = t // 131072
    f = tiled_apply(pm, pk, i, k)
    tl.store(out + t, f)
    a, b, c, d = tiled_inverse(f)
    tl.store(back + t, ((a * 32 + b) * 64 + c) * 64 + d)


@triton.jit
def antidiag_kernel(out):
    t = tl.program_id(0)
    tl.store(out + t, antidiag_apply(t // 33, t % 33))


n = 2048 * 2048
out = torch.empty(n, dtype=torch.int64, device="cuda")
back = torch.empty(n, dtype=torch.int64, device="cuda")
tiled_kernel[(n,)](out, back)
pm, pk, i, k = np.indices((32, 32, 64, 64)).reshape(4, -1)
tiled_bad = int(np.count_nonzero(out.cpu().numpy() != (pm * 64 + i) * 2048 + pk * 64 + k))
roundtrip_bad = int(np.count_nonzero(back.cpu().numpy() != np.arange(n)))

m = 33 * 33
out = torch.empty(m, dtype=torch.int64, device="cuda")
antidiag_kernel[(m,)](out)
i, j = np.indices((33, 33)).reshape(2, -1)
a = i + j + 1
ar = 66 - a
expected = np.where(a <= 33, i + a * (a - 1) // 2, 33 * 33 - 33 + i - ar * (ar - 1) // 2)
antidiag_bad = int(np.count_nonzero(out.cpu().numpy() != expected))
print(f"triton {triton.__version__}, {torch.cuda.get_device_name()}")
print(f"| tiled_apply in @triton.jit | {n} | {tiled_bad} |")
print(f"| tiled_inverse round trip in @triton.jit | {n} | {roundtrip_bad} |")
print(f"| antidiag_apply (select) in @triton.jit | {m} | {antidiag_bad} |")
print("OK" if tiled_bad == roundtrip_bad == antidiag_bad == 0 else "MISMATCH")
