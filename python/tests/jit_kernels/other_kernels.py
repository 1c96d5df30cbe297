"""Numba CUDA, JAX and cuTile kernels written with LEGO layouts (the tests apply the lego frontends)."""

import functools

import jax
import jax.numpy as jnp
from numba import cuda

from lego import Col, OrderBy, Row


@cuda.jit
def numba_vecadd(x, y, z, N):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    L = OrderBy(Row(N)).TileBy([N])
    idx = L[i]
    if idx < N:
        z[idx] = x[idx] + y[idx]


@cuda.jit
def numba_transpose(src, dst, M, N):
    i = cuda.blockIdx.x
    j = cuda.threadIdx.x
    L_in = OrderBy(Row(M, N))
    L_out = OrderBy(Col(M, N))
    dst[L_out[i, j]] = src[L_in[i, j]]


@cuda.jit
def numba_matmul(a, b, c, M, N, K):
    i = cuda.blockIdx.x
    j = cuda.threadIdx.x
    L_A = OrderBy(Row(M, K))
    L_B = OrderBy(Row(K, N))
    L_C = OrderBy(Row(M, N))
    acc = 0.0
    for k in range(K):
        acc += a[L_A[i, k]] * b[L_B[k, j]]
    c[L_C[i, j]] = acc


@functools.partial(jax.jit, static_argnums=(1, 2))
def jax_col_gather(x, M, N):
    L = OrderBy(Col(M, N))
    idx = L[:, :]
    return x.reshape(-1)[idx]


@functools.partial(jax.jit, static_argnames=("N",))
def jax_scale(x, N):
    L = OrderBy(Row(N)).TileBy([N])
    offs = L[:]
    return x[offs] * 2


def cutile_copy(a, b, TILE):
    bid = ct.bid(0)
    L = OrderBy(Row(TILE * 64)).TileBy([64], [TILE])
    idx = L[bid, :]
    t = ct.gather(a, idx)
    ct.scatter(b, idx, t)


class _FakeCtKernel:
    """The shape of a ``ct.kernel`` object (its ``_pyfunc``), for the unwrap path without the package."""

    def __init__(self, fn):
        self._pyfunc = fn


cutile_copy_kernel = _FakeCtKernel(cutile_copy)
