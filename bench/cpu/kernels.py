"""The CPU dashboard's kernels (docs/cpu-dashboard.md): each written once in the `@cpu_kernel` DSL with layouts,
and once in plain C with the same loop nest, the same index function and the same constants.

`kernels(scale)` builds them: scale 1 is the dashboard's size, a larger scale divides the sizes (the pytest runs
them small). Sizes are compile-time constants on both sides: the DSL bakes outer-scope numbers in as literals,
the C source gets them as `#define`s. Pointers are `restrict` in C because lego-vectorize assumes distinct
buffers do not alias; that is the same knowledge, not a handicap of either side.

Inputs are small integers or multiples of 1/8: every product and sum the kernels form is exact in f32/f64, so
all three builds must agree bit for bit with NumPy whatever order or fused multiply-add they use.
"""


from dataclasses import dataclass, field
from typing import Any, Callable, List, Sequence

import numpy as np
import sympy

from lego import GenP, OrderBy, Row
from lego.backend.cpu_dsl import Buffer, cpu_kernel
from lego.frontends.python_mlir import Swizzle, ZCurve


@dataclass
class Kernel:
    name: str
    size: str
    lego: Any                     # a CPUDSLKernel: .compile(target="x86")
    c_source: str                 # one C function named `name`, the constants as #defines
    make_args: Callable[[np.random.Generator], List[Any]]   # scalars first, then arrays (the order of both sides)
    reference: Callable[[List[Any]], List[np.ndarray]]      # NumPy: the expected outputs
    outputs: Sequence[int]        # which arguments are outputs
    note: str = ""                # a caveat the table carries
    reassociates: bool = False    # a float reduction: ours reassociates (reassoc-fp=true), C at -O3 does not
    tags: List[str] = field(default_factory=list)


def _eighths(rng, n, dtype=np.float32):
    return (rng.integers(-64, 64, n) / 8).astype(dtype)


def _ints(rng, n, lo=-4, hi=5, dtype=np.float32):
    return rng.integers(lo, hi, n).astype(dtype)


def _c(defines: dict, body: str) -> str:
    head = "".join(f"#define {k} {v}\n" for k, v in defines.items())
    return "#include <stdint.h>\n" + head + body


def _tiled(n: int, t: int) -> GenP:
    """An n×n matrix stored in t×t tiles, tiles row-major and each tile row-major (a blocked layout)."""
    def forward(idx):
        i, j = idx
        return ((sympy.floor(i / t) * (n // t) + sympy.floor(j / t)) * (t * t)
                + sympy.Mod(i, t) * t + sympy.Mod(j, t))

    def inverse(x):
        tile, inner = sympy.floor(x / (t * t)), sympy.Mod(x, t * t)
        return (sympy.floor(tile / (n // t)) * t + sympy.floor(inner / t),
                sympy.Mod(tile, n // t) * t + sympy.Mod(inner, t))

    return GenP((n, n), forward, inverse)


def _tiled_index(n: int, t: int):
    """The same blocked layout as NumPy positions: position[i, j] of element (i, j)."""
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    return ((i // t) * (n // t) + j // t) * (t * t) + (i % t) * t + j % t


def _morton_index(n: int):
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    out = np.zeros_like(i)
    for b in range(n.bit_length()):
        out |= ((i >> b) & 1) << (2 * b) | ((j >> b) & 1) << (2 * b + 1)
    return out


def kernels(scale: int = 1) -> List[Kernel]:
    out: List[Kernel] = []

    # --- the published suite's kernels (its pared-down list: 01 02 03 05 07 08 43 44 46 47) ---------------------

    N = 65536 // scale

    @cpu_kernel
    def saxpy(a: float, x: Buffer[N], y: Buffer[N]):
        for i in range(N):
            y[i] = a * x[i] + y[i]

    out.append(Kernel(
        "saxpy", f"N={N}", saxpy,
        _c({"N": N}, "void saxpy(float a, const float *restrict x, float *restrict y) {\n"
                     "  for (long i = 0; i < N; i++) y[i] = a * x[i] + y[i];\n}\n"),
        lambda r: [1.25, _eighths(r, N), _eighths(r, N)],
        lambda a: [np.float32(a[0]) * a[1] + a[2]], [2], tags=["published 01"]))

    G = 128 // min(scale, 8)

    @cpu_kernel
    def gemm(a: Buffer[G, G], b: Buffer[G, G], c: Buffer[G, G]):
        for i in range(G):
            for k in range(G):
                for j in range(G):
                    c[i, j] = c[i, j] + a[i, k] * b[k, j]

    out.append(Kernel(
        "gemm_row_major", f"{G}×{G}×{G}", gemm,
        _c({"G": G}, "void gemm_row_major(const float *restrict a, const float *restrict b, float *restrict c) {\n"
                     "  for (long i = 0; i < G; i++)\n    for (long k = 0; k < G; k++)\n"
                     "      for (long j = 0; j < G; j++) c[i * G + j] = c[i * G + j] + a[i * G + k] * b[k * G + j];\n}\n"),
        lambda r: [_ints(r, G * G), _ints(r, G * G), _ints(r, G * G)],
        lambda a: [(a[2].reshape(G, G) + a[0].reshape(G, G) @ a[1].reshape(G, G)).reshape(-1)], [2],
        note="i-k-j order on both sides (unit stride in j)", tags=["published 02"]))

    @cpu_kernel
    def stencil3(x: Buffer[N], y: Buffer[N]):
        for i in range(1, N - 1):
            y[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1]

    def stencil3_ref(a):
        x, y = a[0], a[1].copy()
        y[1:-1] = np.float32(0.25) * x[:-2] + np.float32(0.5) * x[1:-1] + np.float32(0.25) * x[2:]
        return [y]

    out.append(Kernel(
        "stencil_3pt_1d", f"N={N}", stencil3,
        _c({"N": N}, "void stencil_3pt_1d(const float *restrict x, float *restrict y) {\n"
                     "  for (long i = 1; i < N - 1; i++) y[i] = 0.25f * x[i - 1] + 0.5f * x[i] + 0.25f * x[i + 1];\n}\n"),
        lambda r: [_eighths(r, N), np.zeros(N, np.float32)], stencil3_ref, [1], tags=["published 03"]))

    Z = 256 // min(scale, 16)
    zlayout = ZCurve((Z, Z)).layout

    @cpu_kernel
    def morton_2d(a: Buffer[Z, Z, zlayout], b: Buffer[Z, Z]):
        for i in range(Z):
            for j in range(Z):
                b[i, j] = a[i, j]

    zpos = _morton_index(Z).reshape(-1)
    out.append(Kernel(
        "morton_2d", f"{Z}×{Z}", morton_2d,
        _c({"Z": Z}, "static inline uint32_t spread(uint32_t v) {\n"
                     "  v = (v | (v << 8)) & 0x00FF00FFu; v = (v | (v << 4)) & 0x0F0F0F0Fu;\n"
                     "  v = (v | (v << 2)) & 0x33333333u; v = (v | (v << 1)) & 0x55555555u; return v;\n}\n"
                     "void morton_2d(const float *restrict a, float *restrict b) {\n"
                     "  for (uint32_t i = 0; i < Z; i++)\n    for (uint32_t j = 0; j < Z; j++)\n"
                     "      b[i * Z + j] = a[spread(i) | (spread(j) << 1)];\n}\n"),
        lambda r: [_eighths(r, Z * Z), np.zeros(Z * Z, np.float32)],
        lambda a: [a[0][zpos]], [1],
        note="Morton (Z-order) → row-major; C interleaves bits with the magic-number spread",
        tags=["published 05"]))

    @cpu_kernel
    def mixed_precision(x: Buffer[N], y: Buffer[N, "f64"], z: Buffer[N, "f64"]):
        for i in range(N):
            z[i] = y[i] + x[i] * 0.75

    out.append(Kernel(
        "mixed_precision", f"N={N}", mixed_precision,
        _c({"N": N}, "void mixed_precision(const float *restrict x, const double *restrict y, double *restrict z) {\n"
                     "  for (long i = 0; i < N; i++) z[i] = y[i] + x[i] * 0.75f;\n}\n"),
        lambda r: [_eighths(r, N), _eighths(r, N, np.float64), np.zeros(N)],
        lambda a: [a[1] + (a[0] * np.float32(0.75)).astype(np.float64)], [2],
        note="f32 product widened into an f64 sum", tags=["published 07"]))

    B = 64 // min(scale, 8)
    T = 4

    @cpu_kernel
    def brick(x: Buffer[B * B * B], y: Buffer[B * B * B]):
        # A B³ grid stored as 4³ bricks; the loops walk bricks, then cells of a brick (the published 08's
        # "brick within cell": in-brick offsets are unit stride).
        for bi in range(B // T):
            for bj in range(B // T):
                for bk in range(B // T):
                    for ci in range(T):
                        for cj in range(T):
                            for ck in range(T):
                                p = (((bi * (B // T) + bj) * (B // T) + bk) * T + ci) * (T * T) + cj * T + ck
                                y[p] = 2.0 * x[p] + 1.0

    out.append(Kernel(
        "brick_within_cell", f"{B}³, 4³ bricks", brick,
        _c({"B": B, "T": T}, "void brick_within_cell(const float *restrict x, float *restrict y) {\n"
                             "  for (long bi = 0; bi < B / T; bi++) for (long bj = 0; bj < B / T; bj++)\n"
                             "  for (long bk = 0; bk < B / T; bk++) for (long ci = 0; ci < T; ci++)\n"
                             "  for (long cj = 0; cj < T; cj++) for (long ck = 0; ck < T; ck++) {\n"
                             "    long p = (((bi * (B / T) + bj) * (B / T) + bk) * T + ci) * (T * T) + cj * T + ck;\n"
                             "    y[p] = 2.0f * x[p] + 1.0f;\n  }\n}\n"),
        lambda r: [_eighths(r, B ** 3), np.zeros(B ** 3, np.float32)],
        lambda a: [np.float32(2) * a[0] + np.float32(1)], [1], tags=["published 08"]))

    R, K = 4096 // scale, 16

    @cpu_kernel
    def spmv_ell(col: Buffer[R, K, "i32"], val: Buffer[R, K], x: Buffer[R], y: Buffer[R]):
        for i in range(R):
            s = 0.0
            for k in range(K):
                s = s + val[i, k] * x[col[i, k]]
            y[i] = s

    out.append(Kernel(
        "spmv_indirect", f"{R} rows × {K} (ELL)", spmv_ell,
        _c({"R": R, "K": K}, "void spmv_indirect(const int32_t *restrict col, const float *restrict val,\n"
                             "                   const float *restrict x, float *restrict y) {\n"
                             "  for (long i = 0; i < R; i++) {\n    float s = 0.0f;\n"
                             "    for (long k = 0; k < K; k++) s = s + val[i * K + k] * x[col[i * K + k]];\n"
                             "    y[i] = s;\n  }\n}\n"),
        lambda r: [r.integers(0, R, R * K).astype(np.int32), _ints(r, R * K), _ints(r, R), np.zeros(R, np.float32)],
        lambda a: [(a[1].reshape(R, K) * a[2][a[0].reshape(R, K)]).sum(axis=1, dtype=np.float32)], [3],
        reassociates=True, note="float reduction: ours reassociates, C -O3 keeps the order", tags=["published 43"]))

    @cpu_kernel
    def predicated_fma(a: float, x: Buffer[N], y: Buffer[N]):
        for i in range(N):
            y[i] = a * x[i] + y[i] if x[i] > 0.0 else y[i]

    out.append(Kernel(
        "predicated_fma", f"N={N}", predicated_fma,
        _c({"N": N}, "void predicated_fma(float a, const float *restrict x, float *restrict y) {\n"
                     "  for (long i = 0; i < N; i++) y[i] = x[i] > 0.0f ? a * x[i] + y[i] : y[i];\n}\n"),
        lambda r: [1.25, _eighths(r, N), _eighths(r, N)],
        lambda a: [np.where(a[1] > 0, np.float32(a[0]) * a[1] + a[2], a[2])], [2], tags=["published 44"]))

    @cpu_kernel
    def scatter_compute(idx: Buffer[N, "i32"], x: Buffer[N], y: Buffer[N]):
        for i in range(N):
            y[idx[i]] = 2.0 * x[i] + 0.5

    def scatter_ref(a):
        y = a[2].copy()
        y[a[0]] = np.float32(2) * a[1] + np.float32(0.5)
        return [y]

    out.append(Kernel(
        "scatter_compute", f"N={N}, a permutation", scatter_compute,
        _c({"N": N}, "void scatter_compute(const int32_t *restrict idx, const float *restrict x, float *restrict y) {\n"
                     "  for (long i = 0; i < N; i++) y[idx[i]] = 2.0f * x[i] + 0.5f;\n}\n"),
        lambda r: [r.permutation(N).astype(np.int32), _eighths(r, N), np.zeros(N, np.float32)],
        scatter_ref, [2], tags=["published 46"]))

    @cpu_kernel
    def multi_reduce(x: Buffer[N], out: Buffer[3]):
        s = 0.0
        q = 0.0
        m = -1000.0
        for i in range(N):
            s = s + x[i]
            q = q + x[i] * x[i]
            m = max(m, x[i])
        out[0] = s
        out[1] = q
        out[2] = m

    def multi_ref(a):
        x = a[0]
        return [np.array([x.sum(dtype=np.float64), (x.astype(np.float64) ** 2).sum(), max(x.max(), -1000.0)],
                         np.float32)]

    out.append(Kernel(
        "multi_reduce", f"N={N}", multi_reduce,
        _c({"N": N}, "void multi_reduce(const float *restrict x, float *restrict out) {\n"
                     "  float s = 0.0f, q = 0.0f, m = -1000.0f;\n"
                     "  for (long i = 0; i < N; i++) { s = s + x[i]; q = q + x[i] * x[i]; m = m > x[i] ? m : x[i]; }\n"
                     "  out[0] = s; out[1] = q; out[2] = m;\n}\n"),
        lambda r: [_ints(r, N), np.zeros(3, np.float32)], multi_ref, [1],
        reassociates=True, note="float reductions: ours reassociates, C -O3 keeps the order",
        tags=["published 47"]))

    # --- ours: where the published list is thin ------------------------------------------------------------------

    @cpu_kernel
    def gemm_mixed(a: Buffer[G, G], b: Buffer[G, G], c: Buffer[G, G, "f64"]):
        for i in range(G):
            for k in range(G):
                for j in range(G):
                    c[i, j] = c[i, j] + a[i, k] * b[k, j]

    out.append(Kernel(
        "gemm_mixed", f"{G}³, f32 × f32 → f64", gemm_mixed,
        _c({"G": G}, "void gemm_mixed(const float *restrict a, const float *restrict b, double *restrict c) {\n"
                     "  for (long i = 0; i < G; i++)\n    for (long k = 0; k < G; k++)\n"
                     "      for (long j = 0; j < G; j++) c[i * G + j] = c[i * G + j] + a[i * G + k] * b[k * G + j];\n}\n"),
        lambda r: [_ints(r, G * G), _ints(r, G * G), _ints(r, G * G, dtype=np.float64)],
        lambda a: [(a[2].reshape(G, G) + (a[0].reshape(G, G).astype(np.float64) @ a[1].reshape(G, G))).reshape(-1)],
        [2], note="the f32 product widened into an f64 accumulator (C's promotion)", tags=["mixed precision"]))

    M = 256 // min(scale, 16)

    @cpu_kernel
    def transpose(a: Buffer[M, M], b: Buffer[M, M, OrderBy(Row(M, M))]):
        for i in range(M):
            for j in range(M):
                b[j, i] = a[i, j]

    out.append(Kernel(
        "transpose", f"{M}×{M}", transpose,
        _c({"M": M}, "void transpose(const float *restrict a, float *restrict b) {\n"
                     "  for (long i = 0; i < M; i++) for (long j = 0; j < M; j++) b[j * M + i] = a[i * M + j];\n}\n"),
        lambda r: [_eighths(r, M * M), np.zeros(M * M, np.float32)],
        lambda a: [a[0].reshape(M, M).T.reshape(-1).copy()], [1], tags=["transpose"]))

    TT = 16
    tiled = _tiled(M, TT)

    @cpu_kernel
    def tiled_to_row(a: Buffer[M, M, tiled], b: Buffer[M, M]):
        # Row-major traversal of a blocked matrix: the column splits into (tile, offset) loops, so the
        # layout's j / 16 and j % 16 become the tile and the offset once their bounds are proved.
        for i in range(M):
            for tj in range(M // TT):
                for jj in range(TT):
                    b[i, tj * TT + jj] = a[i, tj * TT + jj]

    # The C twins of the div/mod kernels index with unsigned integers: the DSL's `//` and `%` are unsigned
    # (divui / remui), so both sides know the operands are non-negative.
    tpos = _tiled_index(M, TT).reshape(-1)
    out.append(Kernel(
        "tiled_to_row", f"{M}×{M}, 16×16 tiles", tiled_to_row,
        _c({"M": M, "T": TT}, "void tiled_to_row(const float *restrict a, float *restrict b) {\n"
                              "  for (unsigned long i = 0; i < M; i++) for (unsigned long tj = 0; tj < M / T; tj++)\n"
                              "    for (unsigned long jj = 0; jj < T; jj++) {\n      unsigned long j = tj * T + jj;\n"
                              "      b[i * M + j] = a[((i / T) * (M / T) + j / T) * (T * T) + (i % T) * T + j % T];\n    }\n}\n"),
        lambda r: [_eighths(r, M * M), np.zeros(M * M, np.float32)],
        lambda a: [a[0][tpos]], [1], note="blocked layout: div/mod by the tile on both sides",
        tags=["blocked"]))

    GT = 128 // min(scale, 8)
    bt = _tiled(GT, 16)

    @cpu_kernel
    def gemm_tiled_b(a: Buffer[GT, GT], b: Buffer[GT, GT, bt], c: Buffer[GT, GT]):
        for i in range(GT):
            for k in range(GT):
                for tj in range(GT // 16):
                    for jj in range(16):
                        c[i, tj * 16 + jj] = c[i, tj * 16 + jj] + a[i, k] * b[k, tj * 16 + jj]

    btpos = _tiled_index(GT, 16)
    out.append(Kernel(
        "gemm_tiled_b", f"{GT}³, B in 16×16 tiles", gemm_tiled_b,
        _c({"G": GT, "T": 16}, "void gemm_tiled_b(const float *restrict a, const float *restrict b, float *restrict c) {\n"
                               "  for (unsigned long i = 0; i < G; i++) for (unsigned long k = 0; k < G; k++)\n"
                               "    for (unsigned long tj = 0; tj < G / T; tj++) for (unsigned long jj = 0; jj < T; jj++) {\n"
                               "      unsigned long j = tj * T + jj;\n"
                               "      c[i * G + j] = c[i * G + j] + a[i * G + k] * b[((k / T) * (G / T) + j / T) * (T * T) + (k % T) * T + j % T];\n"
                               "    }\n}\n"),
        lambda r: [_ints(r, GT * GT), _ints(r, GT * GT), _ints(r, GT * GT)],
        lambda a: [(a[2].reshape(GT, GT) + a[0].reshape(GT, GT) @ a[1][btpos]).reshape(-1)], [2],
        note="B stored blocked", tags=["tiled GEMM"]))

    S = 256 // min(scale, 16)

    @cpu_kernel
    def jacobi_2d(a: Buffer[S, S], b: Buffer[S, S]):
        for i in range(1, S - 1):
            for j in range(1, S - 1):
                b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

    def jacobi_ref(args):
        a, b = args[0].reshape(S, S), args[1].reshape(S, S).copy()
        b[1:-1, 1:-1] = np.float32(0.25) * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        return [b.reshape(-1)]

    out.append(Kernel(
        "jacobi_2d_5pt", f"{S}×{S}", jacobi_2d,
        _c({"S": S}, "void jacobi_2d_5pt(const float *restrict a, float *restrict b) {\n"
                     "  for (long i = 1; i < S - 1; i++) for (long j = 1; j < S - 1; j++)\n"
                     "    b[i * S + j] = 0.25f * (a[(i - 1) * S + j] + a[(i + 1) * S + j] + a[i * S + j - 1] + a[i * S + j + 1]);\n}\n"),
        lambda r: [_eighths(r, S * S), np.zeros(S * S, np.float32)], jacobi_ref, [1], tags=["stencil"]))

    swz = Swizzle((M, M), 3).layout

    @cpu_kernel
    def swizzle_gather(a: Buffer[M, M, swz], b: Buffer[M, M]):
        for i in range(M):
            for j in range(M):
                b[i, j] = a[i, j]

    ii, jj_ = np.meshgrid(np.arange(M), np.arange(M), indexing="ij")
    spos = (ii * M + (jj_ ^ (ii % 8))).reshape(-1)
    out.append(Kernel(
        "swizzle_gather", f"{M}×{M}, XOR 3 bits", swizzle_gather,
        _c({"M": M}, "void swizzle_gather(const float *restrict a, float *restrict b) {\n"
                     "  for (long i = 0; i < M; i++) for (long j = 0; j < M; j++) b[i * M + j] = a[i * M + (j ^ (i & 7))];\n}\n"),
        lambda r: [_eighths(r, M * M), np.zeros(M * M, np.float32)],
        lambda a: [a[0][spos]], [1], tags=["swizzle"]))

    @cpu_kernel
    def prefix_sum(x: Buffer[N], y: Buffer[N]):
        s = 0.0
        for i in range(N):
            s = s + x[i]
            y[i] = s

    out.append(Kernel(
        "prefix_sum", f"N={N}", prefix_sum,
        _c({"N": N}, "void prefix_sum(const float *restrict x, float *restrict y) {\n"
                     "  float s = 0.0f;\n  for (long i = 0; i < N; i++) { s = s + x[i]; y[i] = s; }\n}\n"),
        lambda r: [_eighths(r, N), np.zeros(N, np.float32)],
        lambda a: [np.cumsum(a[0], dtype=np.float64).astype(np.float32)], [1], tags=["scan"]))

    # Four times the other streams: on a 65536-element input repeated call after call, Zen 4's branch predictor
    # sometimes learned the C loop's data-dependent branch (clang 4x faster in one run of four), which no fresh
    # input would allow.
    NC = 4 * N

    @cpu_kernel
    def compaction(t: float, x: Buffer[NC], kept: Buffer[NC], count: Buffer[1, "i32"]):
        k = 0
        for i in range(NC):
            if x[i] > t:
                kept[k] = x[i]
                k = k + 1
        count[0] = k

    def compaction_ref(a):
        chosen = a[1][a[1] > np.float32(a[0])]
        kept = a[2].copy()
        kept[:chosen.size] = chosen
        return [kept, np.array([chosen.size], np.int32)]

    out.append(Kernel(
        "compaction", f"N={NC}, ~half kept", compaction,
        _c({"N": NC}, "void compaction(float t, const float *restrict x, float *restrict kept, int32_t *restrict count) {\n"
                     "  long k = 0;\n"
                     "  for (long i = 0; i < N; i++) if (x[i] > t) { kept[k] = x[i]; k = k + 1; }\n"
                     "  count[0] = (int32_t)k;\n}\n"),
        lambda r: [0.0, _eighths(r, NC), np.zeros(NC, np.float32), np.zeros(1, np.int32)],
        compaction_ref, [2, 3], note="lego-vectorize-compact: AVX-512 compress store", tags=["compaction"]))

    return out
