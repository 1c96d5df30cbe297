#!/usr/bin/env python3
"""nvcc check of the CUDA bit-count helpers in bits.cuh (lego-translate --lego-to-cuda bits.mlir), device and
host, against Python's integers. Needs a GPU, CuPy, nvcc."""
import os, subprocess, tempfile
import cupy as cp
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
src = r'''
#include <cstdio>
#include "bits.cuh"
__global__ void k(const unsigned long long *x, unsigned long long *r, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) bit_counts(x[t], r[3 * t], r[3 * t + 1], r[3 * t + 2]);
}
int main() {
  const int n = 1 << 16;
  static unsigned long long x[n], r[3 * n], h[3];
  unsigned long long s = 88172645463325252ull, *dx, *dr;
  for (int i = 0; i < n; i++) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; x[i] = i < 130 ? (i < 65 ? (i == 64 ? 0 : 1ull << i) : ~0ull >> (i - 65)) : s >> (s & 63); }
  cudaMalloc(&dx, sizeof x); cudaMalloc(&dr, sizeof r);
  cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice);
  k<<<n / 256, 256>>>(dx, dr, n);
  cudaMemcpy(r, dr, sizeof r, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i++) { bit_counts(x[i], h[0], h[1], h[2]); printf("%llu %llu %llu %llu %llu %llu %llu\n", x[i], r[3*i], r[3*i+1], r[3*i+2], h[0], h[1], h[2]); }
}
'''
with tempfile.TemporaryDirectory() as d:
    open(os.path.join(d, "b.cu"), "w").write(src)
    arch = "sm_" + cp.cuda.Device().compute_capability
    subprocess.run(["nvcc", "-O2", f"-arch={arch}", "-I", here, os.path.join(d, "b.cu"), "-o", os.path.join(d, "b")], check=True)
    out = subprocess.run([os.path.join(d, "b")], check=True, capture_output=True, text=True).stdout
bad_device = bad_host = rows = 0
for line in out.split("\n"):
    if not line:
        continue
    x, *got = map(int, line.split())
    want = [64 - x.bit_length(), (x & -x).bit_length() - 1 if x else 64, bin(x).count("1")]
    bad_device += got[:3] != want
    bad_host += got[3:] != want
    rows += 1
print(f"| bit_counts (ctlz, cttz, ctpop) device / host | {rows} | {bad_device} / {bad_host} |")
print("OK" if rows == 1 << 16 and bad_device == bad_host == 0 else "MISMATCH")
