"""The tensor API (the published API, §2): the functional constructors (§2.1), ``LegoLayout`` (§2.2, §2.3), the
convenience constructors (§2.4), ``Batched`` and ``LegoArray`` (§2.5).

``transform`` of a NumPy array runs the layout's index arithmetic, lowered by ``lego-lower``, in Rust over the
array's buffer (lego.backend.compiler); a torch tensor is transformed by the same arithmetic as vectorized torch
operations on the tensor's device, differentiable. Differences from the published package are listed in
docs/python.md.
"""

from __future__ import annotations

import hashlib
import math
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import sympy

from ..backend.compiler import (Compiled, _concrete_dims, _dtype_to_mlir, compile_inverse_program, compile_program,
                                numpy_run, permutation_tables, resolve_bindings, torch_index)
from ..core import (Col, GenP, GroupBy, LayoutBlock, OrderBy, RegP, Row, TileByLayout, _check_layout_invertible,
                    product)

__all__ = ["row", "col", "reg_p", "order_by", "tile_by", "group_by", "gen_p", "LegoLayout", "RowMajor", "ColMajor",
           "Transposed", "TiledPermute", "Tiled", "TiledView", "Custom", "ZCurve", "Swizzle", "BlockCyclic", "Batched",
           "BatchedLayout", "LegoArray", "_check_layout_invertible"]


# --- §2.1 functional constructors ------------------------------------------------------------------------------


def row(*dims: Any) -> Row:
    return Row(*dims)


def col(*dims: Any) -> Col:
    return Col(*dims)


def reg_p(dims: Sequence[Any], perm: Sequence[int]) -> RegP:
    return RegP(dims, perm)


def order_by(*perms: LayoutBlock) -> OrderBy:
    return OrderBy(*perms)


def tile_by(inner: Any, *groups: Sequence[Any]) -> TileByLayout:
    """``TileByLayout`` of ``inner`` (an OrderBy, or an object with a ``chain``) tiled by ``groups``."""
    chain = [inner] if isinstance(inner, OrderBy) else list(inner.chain)
    flattened = tuple(dim for group in groups for dim in group)
    return TileByLayout(chain, list(groups), [flattened])


def group_by(dims: Sequence[Any], *objects: LayoutBlock) -> GroupBy:
    return GroupBy([tuple(dims)], list(objects))


def gen_p(dims: Sequence[Any], f: Callable[..., Any], finv: Optional[Callable[..., Any]] = None) -> GenP:
    return GenP(dims, f, finv)


# --- helpers -------------------------------------------------------------------------------------------------


def _is_numpy(t: Any) -> bool:
    try:
        import numpy
    except ImportError:  # pragma: no cover - numpy is a dependency of the tensor API
        return False
    return isinstance(t, numpy.ndarray)


def _is_torch(t: Any) -> bool:
    torch = _torch_module()
    return torch is not None and isinstance(t, torch.Tensor)


def _torch_module() -> Any:
    import sys

    return sys.modules.get("torch")


def _unsupported(t: Any) -> TypeError:
    return TypeError(f"Unsupported tensor type: {type(t).__module__}.{type(t).__name__} (a numpy.ndarray or a "
                     f"torch.Tensor)")


def _shape_tuple(shape: Any) -> Tuple[int, ...]:
    if isinstance(shape, (int, sympy.Integer)):
        shape = (shape,)
    out = []
    for entry in shape:
        try:
            value = int(entry)
        except TypeError as error:
            raise ValueError(f"shape entry {entry} is not an integer: pass a concrete shape") from error
        if value <= 0:
            raise ValueError(f"non-positive shape entry {value} in {tuple(shape)}")
        out.append(value)
    return tuple(out)


# --- §2.3 LegoLayout ---------------------------------------------------------------------------------------------


class LegoLayout:
    """``LegoLayout(layout, shape=None, dim_bindings=None)``: a layout applied to arrays of ``shape`` (§2.3).

    ``transform(t)`` gathers ``y.flat[k] = t.flat[L(B⁻¹(d⃗, k))]`` (d⃗ the layout's dims), ``inverse_transform``
    scatters it back; results have ``shape``."""

    def __init__(self, layout: Any, shape: Optional[Sequence[Any]] = None,
                 dim_bindings: Optional[Dict[Any, int]] = None) -> None:
        if not isinstance(layout, LayoutBlock):
            raise TypeError(f"LegoLayout: {layout!r} is not a layout (Row, Col, RegP, GenP, OrderBy, GroupBy, TileBy)")
        self._layout = layout
        if shape is None:
            dims = layout.dims()
            if any(not isinstance(d, int) and not sympy.sympify(d).is_Integer for d in dims):
                if not dim_bindings:
                    raise ValueError(f"LegoLayout: the layout's dims {tuple(dims)} are symbolic: pass shape=(...) "
                                     f"(solved position by position) or dim_bindings={{symbol: value}}")
                bindings = resolve_bindings(layout, None, dim_bindings)
                shape = _concrete_dims(layout, bindings)
            else:
                shape = dims
        self._shape = _shape_tuple(shape)
        self._bindings = resolve_bindings(layout, self._shape, dim_bindings) if layout._symbols() else {}
        self._compiled_: Optional[Compiled] = None
        self._chain: Optional[List["LegoLayout"]] = None  # compose: apply these in order
        self._digest: Optional[str] = None

    # Basic properties.
    @property
    def layout(self) -> LayoutBlock:
        return self._layout

    @property
    def shape(self) -> Tuple[int, ...]:
        return self._shape

    @property
    def numel(self) -> int:
        return int(product(self._shape))

    @property
    def rank(self) -> int:
        return len(self._shape)

    @property
    def _compiled(self) -> Compiled:
        if self._compiled_ is None:
            compiled = compile_program(self._layout, self._bindings)
            if compiled.numel != self.numel:
                raise ValueError(f"the layout has {compiled.numel} elements (dims {compiled.dims}), the shape "
                                 f"{self._shape} {self.numel}: numel mismatch")
            self._compiled_ = compiled
        return self._compiled_

    def _inverse_program(self) -> Compiled:
        """The inverse map over the offsets (the CUDA path's scatter as a gather; checked there before use)."""
        _check_layout_invertible(self._layout)
        return compile_inverse_program(self._layout, self._bindings, self._compiled)

    def compile(self) -> "LegoLayout":
        """Lowers the layout now (otherwise on first use)."""
        self._compiled
        return self

    # Transforms.
    def transform(self, t: Any) -> Any:
        if self._chain is not None:
            for part in self._chain:
                t = part.transform(t)
            return t
        return self._run(t, gather=True)

    __call__ = transform

    def inverse_transform(self, t: Any) -> Any:
        if self._chain is not None:
            for part in reversed(self._chain):
                t = part.inverse_transform(t)
            return t
        _check_layout_invertible(self._layout)
        return self._run(t, gather=False)

    def _run(self, t: Any, gather: bool) -> Any:
        if _is_numpy(t):
            return numpy_run(self._compiled, t, gather, self._shape)
        if _is_torch(t):
            return self._torch_run(t, gather)
        raise _unsupported(t)

    def _torch_run(self, t: Any, gather: bool, batch: Optional[int] = None) -> Any:
        expected = self.numel * (batch or 1)
        if t.numel() != expected:
            raise ValueError(f"Tensor numel ({t.numel()}) != layout numel ({expected})")
        # CUDA tensors: one fused Triton kernel per layout (lego.backend.triton_layout); the chain of int64
        # element-wise operations and a gather below stays the fallback (CPU tensors, no Triton, arithmetic the
        # emitter cannot prove safe).
        from ..backend import triton_layout

        if triton_layout.applicable(t):
            try:
                out = triton_layout.move(self._compiled, t, gather, batch or 1, inverse=self._inverse_program)
                return out.reshape(self._shape) if batch is None else out.reshape(batch, self.numel)
            except triton_layout.NotFusable:
                pass
        index = torch_index(self._compiled, t.device)
        if batch is None:
            flat = t.reshape(-1)
            out = flat[index] if gather else flat.new_zeros(flat.shape).scatter(0, index, flat)
            return out.reshape(self._shape)
        rows = t.reshape(batch, self.numel)
        if gather:
            out = rows[:, index]
        else:
            out = rows.new_zeros(rows.shape).scatter(1, index.expand(batch, -1), rows)
        return out

    def create_tensor(self, dtype: Any = None) -> Any:
        """The table of the layout: ``transform(arange(numel, dtype))``."""
        if _is_torch_dtype(dtype):
            import torch

            return self.transform(torch.arange(self.numel, dtype=dtype))
        import numpy

        return self.transform(numpy.arange(self.numel, dtype=numpy.float32 if dtype is None else dtype))

    def get_mlir(self, dtype: Any = "f32") -> str:
        """The lego IR that is lowered for the transform (``lego.apply`` of the layout on one index per dim),
        with the element type in a comment (lego-rs runs the lowered arithmetic itself: there is no memref
        module)."""
        return f"// lego transform of {self!r}, element type {_dtype_to_mlir(dtype)}\n{self._compiled.lego_ir}"

    def benchmark(self, t: Any, n_iters: int = 100) -> Dict[str, float]:
        self.transform(t)
        times = []
        for _ in range(n_iters):
            start = time.perf_counter()
            result = self.transform(t)
            if _is_torch(result) and result.device.type == "cuda":
                _torch_module().cuda.synchronize()
            times.append((time.perf_counter() - start) * 1e3)
        mean = sum(times) / len(times)
        std = math.sqrt(sum((x - mean) ** 2 for x in times) / len(times))
        return {"mean_ms": mean, "min_ms": min(times), "max_ms": max(times), "std_ms": std, "n_iters": n_iters}

    # Tables, identity, equality.
    def permutation_tables(self) -> Tuple[Any, Any]:
        """``(fwd, inv)`` int64 (built on request and shared process-wide; ``transform`` never builds them)."""
        if self._chain is not None:
            import numpy

            fwd = self.transform(numpy.arange(self.numel, dtype=numpy.int64)).reshape(-1)
            inv = numpy.empty_like(fwd)
            inv[fwd] = numpy.arange(self.numel, dtype=numpy.int64)
            return fwd, inv
        return permutation_tables(self._compiled)

    def _fwd_digest(self) -> str:
        if self._digest is None:
            import numpy

            fwd = self.transform(numpy.arange(self.numel, dtype=numpy.int64))
            self._digest = hashlib.sha256(numpy.ascontiguousarray(fwd).tobytes()).hexdigest()
        return self._digest

    @property
    def is_identity(self) -> bool:
        import numpy

        fwd = self.transform(numpy.arange(self.numel, dtype=numpy.int64)).reshape(-1)
        return bool(numpy.array_equal(fwd, numpy.arange(self.numel)))

    def __eq__(self, other: Any) -> Any:
        if not isinstance(other, LegoLayout):
            return NotImplemented
        return self._shape == other._shape and self._fwd_digest() == other._fwd_digest()

    def __hash__(self) -> int:
        return hash((self._shape, self._fwd_digest()))

    def compose(self, other: "LegoLayout") -> "LegoLayout":
        """``self`` then ``other``: ``a.compose(b).transform(x) == b.transform(a.transform(x))`` (the documented
        contract; the published package computes the reverse, the published API §7.1). Both paths (NumPy, torch),
        ``==`` and ``hash`` use the composition."""
        if not isinstance(other, LegoLayout):
            raise TypeError(f"compose: {other!r} is not a LegoLayout")
        if other.shape != self.shape:
            raise ValueError(f"Shape mismatch: {self.shape} vs {other.shape}")
        result = LegoLayout(self._layout, self._shape, dim_bindings=self._bindings or None)
        result._chain = list(self._chain or [self]) + list(other._chain or [other])
        return result

    # Arrays and DLPack.
    def as_array(self, t: Any) -> "LegoArray":
        return LegoArray(self.transform(t), self)

    def to_dlpack(self, t: Any) -> Any:
        result = self.transform(t)
        return result.__dlpack__() if hasattr(result, "__dlpack__") else result

    def from_dlpack(self, obj: Any) -> "LegoArray":
        import numpy

        if hasattr(obj, "__dlpack__"):
            array = numpy.from_dlpack(obj)
        else:  # a raw capsule: torch can import it
            import torch.utils.dlpack

            array = torch.utils.dlpack.from_dlpack(obj).cpu().numpy()
        return LegoArray(array, self)

    def __repr__(self) -> str:
        return f"LegoLayout(shape={self._shape}, layout={type(self._layout).__name__})"


def _is_torch_dtype(dtype: Any) -> bool:
    torch = _torch_module()
    return torch is not None and isinstance(dtype, torch.dtype)


# --- §2.4 convenience constructors -------------------------------------------------------------------------------


def RowMajor(shape: Sequence[int]) -> LegoLayout:
    shape = _shape_tuple(shape)
    return LegoLayout(GroupBy([shape], [OrderBy(Row(*shape))]), shape)


def ColMajor(shape: Sequence[int]) -> LegoLayout:
    shape = _shape_tuple(shape)
    return LegoLayout(GroupBy([shape], [OrderBy(Col(*shape))]), shape)


def Transposed(shape: Sequence[int]) -> LegoLayout:
    shape = _shape_tuple(shape)
    return LegoLayout(GroupBy([shape], [OrderBy(RegP(shape, list(reversed(range(len(shape))))))]), shape)


def Custom(obj: LayoutBlock, shape: Optional[Sequence[int]] = None) -> LegoLayout:
    return LegoLayout(obj, shape)


def _tile_grid(shape: Tuple[int, ...], tile: Sequence[Any]) -> Tuple[int, ...]:
    tile = tuple(int(t) for t in tile)
    if len(tile) != len(shape):
        raise ValueError(f"tile_shape {tile} must have the same rank as shape {shape}")
    if any(t <= 0 for t in tile):
        raise ValueError(f"tile sizes must be > 0, got {tile}")
    return tile


def TiledPermute(shape: Sequence[int], tile_shape: Sequence[int]) -> LegoLayout:
    """Tile-contiguous order: tiles in row-major order, each tile's elements row-major; output keeps ``shape``."""
    shape = _shape_tuple(shape)
    tile = _tile_grid(shape, tile_shape)
    for size, t in zip(shape, tile):
        if size % t:
            raise ValueError(f"shape {shape} is not divisible by tile_shape {tile} ({size} % {t} != 0)")
    grid = tuple(size // t for size, t in zip(shape, tile))
    return LegoLayout(OrderBy(Row(*shape)).TileBy(grid, tile), shape)


def _factors(n: int) -> List[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


class TiledView:
    """``Tiled(shape, tile_shape)``: a pure reshape + axis permutation (no lowering): the input reshaped to
    ``(g0, t0, g1, t1, …)`` and transposed to ``(g0, g1, …, t0, t1, …)``; ``shape = grid + tile``."""

    def __init__(self, shape: Sequence[int], tile_shape: Sequence[int]) -> None:
        self.original_shape = _shape_tuple(shape)
        self.tile_shape = _tile_grid(self.original_shape, tile_shape)
        for size, t in zip(self.original_shape, self.tile_shape):
            if size % t:
                raise ValueError(f"tile {t} does not divide {size}: choose one of its factors {_factors(size)}")
        self.tile_grid = tuple(size // t for size, t in zip(self.original_shape, self.tile_shape))
        self.shape = self.tile_grid + self.tile_shape

    @property
    def numel(self) -> int:
        return int(product(self.original_shape))

    @property
    def rank(self) -> int:
        return len(self.shape)

    def _split(self) -> Tuple[int, ...]:
        return tuple(x for g, t in zip(self.tile_grid, self.tile_shape) for x in (g, t))

    def _forward_axes(self) -> Tuple[int, ...]:
        r = len(self.tile_grid)
        return tuple(2 * k for k in range(r)) + tuple(2 * k + 1 for k in range(r))

    def _check(self, t: Any, count: int) -> None:
        if count != self.numel:
            raise ValueError(f"Tensor numel ({count}) != layout numel ({self.numel})")

    def transform(self, t: Any) -> Any:
        if _is_numpy(t):
            self._check(t, t.size)
            return t.reshape(self._split()).transpose(self._forward_axes()).copy()
        if _is_torch(t):
            self._check(t, t.numel())
            return t.reshape(self._split()).permute(self._forward_axes()).contiguous()
        raise _unsupported(t)

    __call__ = transform

    def inverse_transform(self, t: Any) -> Any:
        axes = self._forward_axes()
        back = tuple(axes.index(k) for k in range(len(axes)))
        if _is_numpy(t):
            self._check(t, t.size)
            return t.reshape(self.shape).transpose(back).reshape(self.original_shape).copy()
        if _is_torch(t):
            self._check(t, t.numel())
            return t.reshape(self.shape).permute(back).reshape(self.original_shape).contiguous()
        raise _unsupported(t)

    def create_tensor(self, dtype: Any = None) -> Any:
        import numpy

        return self.transform(numpy.arange(self.numel, dtype=numpy.float32 if dtype is None else dtype))

    def get_mlir(self, dtype: Any = "f32") -> str:
        return TiledPermute(self.original_shape, self.tile_shape).get_mlir(dtype)

    def __repr__(self) -> str:
        return f"TiledView(shape={self.original_shape}, tile={self.tile_shape})"


def Tiled(shape: Sequence[int], tile_shape: Sequence[int]) -> TiledView:
    return TiledView(shape, tile_shape)


def _shifted(value: Any, k: int) -> Any:
    """``⌊value / 2^k⌋``, unevaluated."""
    if k == 0:
        return value
    return sympy.floor(sympy.Mul(value, sympy.Rational(1, 2 ** k), evaluate=False), evaluate=False)


def _bits(value: Any, k: int) -> Any:
    """Bit ``k`` of a non-negative integer expression, as floor/Mod arithmetic. Built unevaluated: SymPy's
    automatic simplification of nested floor/Mod (assumption queries) made constructing a 12-bit Swizzle take
    tens of milliseconds; lego-lower simplifies the arithmetic anyway."""
    shifted = value if k == 0 else sympy.floor(sympy.Mul(value, sympy.Rational(1, 2 ** k), evaluate=False),
                                               evaluate=False)
    return sympy.Mod(shifted, 2, evaluate=False)


def _sum(terms: Sequence[Any]) -> Any:
    terms = list(terms)
    return terms[0] if len(terms) == 1 else sympy.Add(*terms, evaluate=False)


def _scaled(term: Any, factor: int) -> Any:
    return term if factor == 1 else sympy.Mul(factor, term, evaluate=False)


def _log2_exact(n: int) -> Optional[int]:
    return n.bit_length() - 1 if n > 0 and n & (n - 1) == 0 else None


def ZCurve(shape: Sequence[int]) -> LegoLayout:
    """Z-order (Morton) layout of a 2-D array: row index bits in the even bit positions, column bits in the odd.

    A bijection on ``[0, n·m)`` only when ``n = 2^a``, ``m = 2^b`` with ``a == b`` or ``a == b + 1``; other shapes
    raise ``ValueError`` (the published package accepts them and reads out of bounds, the published API §7.2)."""
    shape = _shape_tuple(shape)
    if len(shape) != 2:
        raise ValueError(f"ZCurve is defined for 2D shapes, got {shape}")
    n, m = shape
    a, b = _log2_exact(n), _log2_exact(m)
    if a is None or b is None or not (a == b or a == b + 1):
        raise ValueError(
            f"ZCurve{shape} is not a bijection on {n * m} elements: the Z-order curve needs n = 2^a rows and m = 2^b "
            f"columns with a == b or a == b + 1 (e.g. (4, 4), (8, 4)); pad the array to such a shape or use "
            f"TiledPermute")
    nb = max(math.ceil(math.log2(max(n, m, 2))), 1)

    def forward(idx: Sequence[Any]) -> Any:
        i, j = idx
        return _sum([_scaled(_bits(i, k), 4 ** k) for k in range(nb)] + [_scaled(_bits(j, k), 2 * 4 ** k) for k in range(nb)])

    def inverse(flat: Any) -> Tuple[Any, Any]:
        i = _sum([_scaled(_bits(flat, 2 * k), 2 ** k) for k in range(nb)])
        j = _sum([_scaled(_bits(flat, 2 * k + 1), 2 ** k) for k in range(nb)])
        return i, j

    return LegoLayout(GroupBy([shape], [OrderBy(GenP(shape, forward, inverse))]), shape)


def Swizzle(shape: Sequence[int], num_bits: Optional[int] = None) -> LegoLayout:
    """XOR swizzle: ``L(i, j) = i·ncols + (j XOR (i mod 2^num_bits))`` (default ``num_bits = ⌊log2 ncols⌋``).

    A bijection only when ``2^num_bits`` divides ``ncols``; otherwise ``ValueError`` (the published package maps
    two rows onto the same offsets, the published API §7.3)."""
    shape = _shape_tuple(shape)
    if len(shape) != 2:
        raise ValueError(f"Swizzle is defined for 2D shapes, got {shape}")
    nrows, ncols = shape
    if num_bits is None:
        num_bits = int(math.floor(math.log2(ncols))) if ncols > 1 else 0
    num_bits = int(num_bits)
    if num_bits < 0:
        raise ValueError(f"Swizzle: num_bits must be >= 0, got {num_bits}")
    group = 2 ** num_bits
    if ncols % group:
        best = (ncols & -ncols).bit_length() - 1
        raise ValueError(
            f"Swizzle{shape} with num_bits={num_bits} is not a bijection: the XOR permutes aligned groups of "
            f"{group} columns and {ncols} columns is not a multiple of {group}; pass num_bits <= {best} "
            f"(2**num_bits must divide ncols) or pad the columns to a multiple of {group}")

    def xor_low(value: Any, key: Any) -> Any:
        # value XOR key for key < 2^num_bits: the high part of value kept, the low bits added mod 2.
        if not num_bits:
            return value
        high = sympy.Add(value, sympy.Mul(-1, sympy.Mod(value, group, evaluate=False), evaluate=False), evaluate=False)
        # Bit k of the XOR: the parity of ⌊value/2^k⌋ + ⌊key/2^k⌋.
        low = [_scaled(sympy.Mod(sympy.Add(_shifted(value, k), _shifted(key, k), evaluate=False), 2, evaluate=False),
                       2 ** k) for k in range(num_bits)]
        return _sum([high] + low)

    def forward(idx: Sequence[Any]) -> Any:
        i, j = idx
        return sympy.Add(sympy.Mul(i, ncols, evaluate=False), xor_low(j, i), evaluate=False)

    def inverse(flat: Any) -> Tuple[Any, Any]:
        r = sympy.floor(sympy.Mul(flat, sympy.Rational(1, ncols), evaluate=False), evaluate=False)
        return r, xor_low(sympy.Mod(flat, ncols, evaluate=False), r)

    return LegoLayout(GroupBy([shape], [OrderBy(GenP(shape, forward, inverse))]), shape)


def BlockCyclic(shape: Sequence[int], block_size: int, num_procs: int) -> LegoLayout:
    """1-D block-cyclic distribution grouped by owner (ScaLAPACK style): block ``⌊i/bs⌋`` goes to process
    ``blk mod P`` as its ``⌊blk/P⌋``-th local block.

    A bijection only when ``bs·P`` divides the length; otherwise ``ValueError`` (the published package produces
    out-of-range or duplicate offsets, the published API §7.4)."""
    shape = _shape_tuple(shape)
    if len(shape) != 1:
        raise ValueError(f"BlockCyclic is defined for 1D shapes, got {shape}")
    (n,) = shape
    bs, procs = int(block_size), int(num_procs)
    if bs <= 0 or procs <= 0:
        raise ValueError(f"BlockCyclic: block_size and num_procs must be > 0, got {bs}, {procs}")
    if n % (bs * procs):
        raise ValueError(
            f"BlockCyclic(({n},), block_size={bs}, num_procs={procs}) is not a bijection: every process must own "
            f"the same number of whole blocks, so block_size * num_procs = {bs * procs} must divide {n}; pad the "
            f"array to {math.ceil(n / (bs * procs)) * bs * procs} elements or choose other sizes")
    local_blocks = n // bs // procs

    def forward(idx: Sequence[Any]) -> Any:
        (i,) = idx
        blk = sympy.floor(i / bs)
        return sympy.Mod(blk, procs) * local_blocks * bs + sympy.floor(blk / procs) * bs + sympy.Mod(i, bs)

    def inverse(flat: Any) -> Tuple[Any]:
        p = sympy.floor(flat / (local_blocks * bs))
        rest = sympy.Mod(flat, local_blocks * bs)
        return ((sympy.floor(rest / bs) * procs + p) * bs + sympy.Mod(rest, bs),)

    return LegoLayout(GroupBy([shape], [OrderBy(GenP(shape, forward, inverse))]), shape)


# --- §2.5 Batched and LegoArray ---------------------------------------------------------------------------------


class BatchedLayout:
    """``Batched(base, batch_shape)``: ``base`` applied to every batch row. ``base`` is a ``LegoLayout`` (its
    lowered program runs over the whole batch at once) or any other layout the published package batches: a
    ``TiledView`` (``Tiled(...)``), a ``TransposedLayout`` — anything with ``shape`` and ``transform`` — which is
    applied through its permutation table (``fwd = base.transform(arange)``, ``inv`` its inverse), the same
    gather per row."""

    def __init__(self, base: Any, batch_shape: Sequence[int]) -> None:
        if not isinstance(base, LegoLayout) and not (hasattr(base, "shape") and callable(getattr(base, "transform", None))):
            raise TypeError(f"Batched: {base!r} is not a layout (a LegoLayout, a TiledView from Tiled(...), or an "
                            f"object with shape and transform)")
        self._base = base
        self.batch_shape = _shape_tuple(batch_shape)
        self.shape = self.batch_shape + tuple(base.shape)
        # The shape inverse_transform returns: a TiledView's input shape differs from its output shape.
        self._logical_shape = self.batch_shape + tuple(getattr(base, "original_shape", base.shape))
        self._tables: Optional[Tuple[Any, Any]] = None

    @property
    def base(self) -> Any:
        return self._base

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        return int(product(self.shape))

    @property
    def batch(self) -> int:
        return int(product(self.batch_shape))

    def _base_tables(self) -> Tuple[Any, Any]:
        """``(fwd, inv)`` of a base that is not a LegoLayout, from its own transform of ``arange``."""
        if self._tables is None:
            import numpy

            count = int(product(self._base.shape))
            fwd = numpy.asarray(self._base.transform(numpy.arange(count, dtype=numpy.int64))).reshape(-1)
            # A base that is not a permutation of 0..count-1 would leave entries of `inv` unwritten.
            if fwd.size != count or (count and (fwd.min() < 0 or fwd.max() >= count)):
                raise ValueError(f"Batched: the base layout is not a bijection on this shape: it maps outside "
                                 f"the {count} elements")
            hits = numpy.bincount(fwd, minlength=count)
            if count and hits.max() > 1:
                value = int(numpy.argmax(hits > 1))
                first, second = (int(k) for k in numpy.flatnonzero(fwd == value)[:2])
                raise ValueError(f"Batched: the base layout is not a bijection on this shape: indices {first} and "
                                 f"{second} both map to {value}")
            inv = numpy.empty_like(fwd)
            inv[fwd] = numpy.arange(count, dtype=numpy.int64)
            self._tables = (fwd, inv)
        return self._tables

    def _run_table(self, t: Any, gather: bool) -> Any:
        fwd, inv = self._base_tables()
        table = fwd if gather else inv
        shape = self.shape if gather else self._logical_shape
        if _is_numpy(t):
            if t.size != self.numel:
                raise ValueError(f"Tensor numel ({t.size}) != layout numel ({self.numel})")
            return t.reshape(self.batch, -1)[:, table].reshape(shape)
        if _is_torch(t):
            if t.numel() != self.numel:
                raise ValueError(f"Tensor numel ({t.numel()}) != layout numel ({self.numel})")
            index = _torch_module().as_tensor(table, device=t.device)
            return t.reshape(self.batch, -1)[:, index].reshape(shape)
        raise _unsupported(t)

    def _run(self, t: Any, gather: bool) -> Any:
        if not isinstance(self._base, LegoLayout):
            return self._run_table(t, gather)
        parts = self._base._chain or [self._base]
        for part in (parts if gather else list(reversed(parts))):
            if not gather:
                _check_layout_invertible(part._layout)
            if _is_numpy(t):
                t = numpy_run(part._compiled, t, gather, self.shape, batch=self.batch)
            elif _is_torch(t):
                t = part._torch_run(t, gather, batch=self.batch).reshape(self.shape)
            else:
                raise _unsupported(t)
        return t

    def transform(self, t: Any) -> Any:
        return self._run(t, True)

    __call__ = transform

    def inverse_transform(self, t: Any) -> Any:
        return self._run(t, False)

    def __repr__(self) -> str:
        return f"BatchedLayout(batch={self.batch_shape}, base={self._base!r})"


def Batched(base: Any, batch_shape: Sequence[int]) -> BatchedLayout:
    return BatchedLayout(base, batch_shape)


class LegoArray:
    """``LegoArray(data, layout)``: physical data (``layout.transform`` of a logical array) with its layout;
    ``numpy.asarray`` gives the logical array back."""

    def __init__(self, data: Any, layout: Any) -> None:
        import numpy

        self.data = numpy.asarray(data)
        self.layout = layout

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        logical = self.to_logical()
        return logical if dtype is None else logical.astype(dtype, copy=False)

    @property
    def shape(self) -> Tuple[int, ...]:
        return tuple(self.layout.shape)

    @property
    def dtype(self) -> Any:
        return self.data.dtype

    def to_logical(self) -> Any:
        return self.layout.inverse_transform(self.data)

    def to_physical(self) -> Any:
        return self.data.copy()

    def __repr__(self) -> str:
        return f"LegoArray(shape={self.shape}, dtype={self.dtype}, layout={self.layout!r})"
