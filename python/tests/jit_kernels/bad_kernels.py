"""Kernels the JIT must refuse at decoration time (issue 35, item 3). Each kernel marks the line its error must
point at with a comment ``# error: <kernel name>``; test_jit_errors.py finds the line by that marker."""

import functools

import jax
import triton
import triton.language as tl
from numba import cuda

from lego import OrderBy, Row


# --- Triton ----------------------------------------------------------------------------------------------

@triton.jit
def triton_tile_does_not_verify(x_ptr, y_ptr):
    L = OrderBy(Row(64, 64)).TileBy([2, 2], [16, 16])  # error: triton_tile_does_not_verify
    offsets = tl.arange(0, 16)
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets))


@triton.jit
def triton_wrong_arity(x_ptr, y_ptr):
    pid = tl.program_id(0)
    L = OrderBy(Row(64, 64)).TileBy([4, 4], [16, 16])
    tl.store(y_ptr + L[0, pid, :, :], tl.load(x_ptr + L[0, :, :]))  # error: triton_wrong_arity


@triton.jit
def triton_inv_arity(x_ptr, y_ptr, N):
    pid = tl.program_id(0)
    L = OrderBy(Row(N, N, N))
    a, b = L.inv(pid)  # error: triton_inv_arity
    tl.store(y_ptr + a, tl.load(x_ptr + b))


@triton.jit
def triton_layout_as_value(x_ptr, y_ptr, N):
    L = OrderBy(Row(N))
    n = len(L)  # error: triton_layout_as_value
    tl.store(y_ptr + n, tl.load(x_ptr + n))


@triton.jit
def triton_bad_size(x_ptr, y_ptr, N):
    L = OrderBy(Row(N, 0))  # error: triton_bad_size
    tl.store(y_ptr + L[0, 0], tl.load(x_ptr))


@triton.jit
def triton_item_out_of_range(x_ptr, y_ptr):
    L = OrderBy(Row(4, 8))
    offsets = L[4, :]  # error: triton_item_out_of_range
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets))


# --- Numba, JAX, cuTile, the source generators: the same wrong arity ----------------------------------------

@cuda.jit
def numba_wrong_arity(x, y, N):
    i = cuda.threadIdx.x
    L = OrderBy(Row(N, N))
    y[L[i]] = x[i]  # error: numba_wrong_arity


@functools.partial(jax.jit, static_argnums=(1,))
def jax_wrong_arity(x, N):
    L = OrderBy(Row(N, N))
    idx = L[:]  # error: jax_wrong_arity
    return x.reshape(-1)[idx]


def cutile_wrong_arity(x, y, N):
    L = OrderBy(Row(N, N)).TileBy([N, N])
    tile = L[0, 0, 0]  # error: cutile_wrong_arity
    return tile


def plain_wrong_arity(x, y, N):
    i = 0
    L = OrderBy(Row(N, N))
    idx = L[i, i, i]  # error: plain_wrong_arity
    return idx


# --- twins that must rewrite and run ------------------------------------------------------------------------

@triton.jit
def triton_tile_copy(x_ptr, y_ptr):
    pid = tl.program_id(0)
    L = OrderBy(Row(64, 64)).TileBy([4, 4], [16, 16])
    tl.store(y_ptr + L[0, pid, :, :], tl.load(x_ptr + L[0, pid, :, :]) + 1.0)
