"""``LegoTensor``, ``annotate`` and ``rearrange`` (the published API, §2.7).

A ``LegoTensor`` wraps a plain tensor ``_data`` with a layout (``LegoLayout``, ``BatchedLayout`` or
``TransposedLayout``) in one of two modes:

* **virtual** (``annotate``): metadata only; ``_data`` holds the values in logical order.
* **physical** (``rearrange``): ``_data`` holds ``layout.transform(logical)``; the tensor still *means* its
  logical values, which every operation respects (an op that needs logical order gathers them back first).

``__torch_dispatch__`` sorts aten ops into tiers: tier 1 (elementwise, clone/copy/fill, comparisons, casts,
dropout) runs on ``_data`` and keeps the layout and mode; tier 2 (``t``, ``transpose``, ``permute``) returns a
virtual tensor with a ``TransposedLayout``; full reductions run on ``_data`` (order does not matter); dim
reductions and tier 4 (``mm``, ``bmm`` → ``torch.ops.lego.*``; ``addmm``) run in logical order; everything else
(tier 3) warns once per op (``'<op>' is not layout-aware. Layout metadata dropped.``) and returns a plain tensor
of the logical values.
"""

from __future__ import annotations

import copyreg
import warnings
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import numpy
import torch
from torch.utils._pytree import tree_flatten, tree_map

from ..frontends.python_mlir import BatchedLayout, LegoLayout
from . import ops as _ops  # noqa: F401 (registers torch.ops.lego.*)

__all__ = ["LegoTensor", "TransposedLayout", "annotate", "rearrange", "as_lego_tensor", "layout_tables"]

aten = torch.ops.aten


class TransposedLayout:
    """The layout of a transposed / permuted LegoTensor: ``base`` with its axes permuted by ``perm`` (the tensor
    axis k is the base's axis ``perm[k]``). Metadata of virtual tensors."""

    def __init__(self, base: Any, perm: Sequence[int]) -> None:
        self._base = base
        self.perm = tuple(int(p) for p in perm)
        self.shape = tuple(base.shape[p] for p in self.perm)

    @property
    def base(self) -> Any:
        return self._base

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        return int(numpy.prod(self.shape)) if self.shape else 1

    def _inverse_perm(self) -> List[int]:
        inverse = [0] * len(self.perm)
        for k, p in enumerate(self.perm):
            inverse[p] = k
        return inverse

    def transform(self, t: Any) -> Any:
        """The base's transform of the un-permuted tensor, permuted back."""
        t = t.reshape(self.shape)
        out = self._base.transform(t.permute(self._inverse_perm()) if isinstance(t, torch.Tensor)
                                   else t.transpose(self._inverse_perm()))
        return out.permute(self.perm) if isinstance(out, torch.Tensor) else out.transpose(self.perm)

    def inverse_transform(self, t: Any) -> Any:
        t = t.reshape(self.shape)
        out = self._base.inverse_transform(t.permute(self._inverse_perm()) if isinstance(t, torch.Tensor)
                                           else t.transpose(self._inverse_perm()))
        return out.permute(self.perm) if isinstance(out, torch.Tensor) else out.transpose(self.perm)

    def compose(self, other: Any) -> Any:
        """A transposed layout composes with nothing (the published ``compose`` returned ``other``, ignoring
        itself: §7.10); ``annotate`` then keeps the new layout."""
        raise ValueError("TransposedLayout.compose: a transposed layout does not compose")

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, TransposedLayout) and self.perm == other.perm and self._base == other._base

    def __hash__(self) -> int:
        return hash((self.perm, self._base))

    def __repr__(self) -> str:
        return f"TransposedLayout(perm={self.perm}, base={self._base!r})"


# --- tables --------------------------------------------------------------------------------------------------


def layout_tables(layout: Any, device: Any = "cpu") -> Tuple[torch.Tensor, torch.Tensor]:
    """``(fwd, inv)`` int64 tensors of ``layout`` on ``device`` (gather semantics: ``transform(x) =
    x.flat[fwd]``), cached on the layout object per device."""
    device = torch.device(device)
    cache: Dict[Any, Tuple[torch.Tensor, torch.Tensor]] = layout.__dict__.setdefault("_lego_torch_tables", {})
    if device in cache:
        return cache[device]
    if isinstance(layout, BatchedLayout):
        base_fwd, _ = layout_tables(layout.base)
        rows = torch.arange(layout.batch, dtype=torch.int64)[:, None] * layout.base.numel
        fwd = (rows + base_fwd[None, :]).reshape(-1)
    elif isinstance(layout, LegoLayout):
        fwd = torch.from_numpy(numpy.array(layout.permutation_tables()[0], dtype=numpy.int64))
    else:
        count = int(numpy.prod(layout.shape))
        fwd = torch.as_tensor(layout.transform(numpy.arange(count, dtype=numpy.int64))).reshape(-1).to(torch.int64)
    inv = torch.empty_like(fwd)
    inv[fwd] = torch.arange(fwd.numel(), dtype=torch.int64)
    cache[device] = (fwd.to(device), inv.to(device))
    return cache[device]


def _logical(t: "LegoTensor") -> torch.Tensor:
    """The logical values of ``t`` as a plain tensor (a gather with ``inv`` for physical data)."""
    if not t._is_physical:
        return t._data
    _, inv = layout_tables(t._layout, t._data.device)
    return t._data.reshape(-1)[inv].reshape(t._data.shape)


def _physical(plain: torch.Tensor, layout: Any) -> torch.Tensor:
    fwd, _ = layout_tables(layout, plain.device)
    return plain.reshape(-1)[fwd].reshape(plain.shape)


# --- the tiers ---------------------------------------------------------------------------------------------

_TIER1 = {
    aten.add, aten.sub, aten.mul, aten.div, aten.neg, aten.abs, aten.relu, aten.gelu, aten.silu, aten.sigmoid,
    aten.tanh, aten.sin, aten.cos, aten.exp, aten.log, aten.sqrt, aten.rsqrt, aten.clone, aten.copy_, aten.fill_,
    aten.zero_, aten.eq, aten.ne, aten.lt, aten.le, aten.gt, aten.ge, aten._to_copy, aten.dropout,
    aten.native_dropout, aten.add_, aten.sub_, aten.mul_, aten.div_, aten.relu_, aten.detach, aten.alias,
    aten.threshold_backward, aten.sigmoid_backward, aten.tanh_backward, aten.gelu_backward,
}
_TIER2 = {aten.t, aten.transpose, aten.permute}
_REDUCTIONS = {aten.sum, aten.mean, aten.prod, aten.amax, aten.amin}
_TIER4 = {aten.mm: "mm", aten.bmm: "bmm"}
_LEGO_OPS = {torch.ops.lego.mm, torch.ops.lego.bmm, torch.ops.lego.addmm, torch.ops.lego.permute}

_WARNED: Set[str] = set()


def _same_layout(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b)
    except Exception:
        return False


def _unwrap_logical(args: Any) -> Any:
    return tree_map(lambda a: _logical(a) if isinstance(a, LegoTensor) else a, args)


def _wrap_results(result: Any, shape: torch.Size, layout: Any, physical: bool) -> Any:
    return tree_map(
        lambda r: LegoTensor(r, layout, physical) if isinstance(r, torch.Tensor) and r.shape == shape else r, result)


def _tier1(func: Any, args: Any, kwargs: Dict[str, Any], legos: List["LegoTensor"]) -> Any:
    first = legos[0]
    layout, physical, shape = first._layout, first._is_physical, first.shape
    compatible = all(_same_layout(t._layout, layout) and t._is_physical == physical for t in legos)
    plain_full = [a for a in tree_flatten((args, kwargs))[0]
                  if isinstance(a, torch.Tensor) and not isinstance(a, LegoTensor) and a.dim() > 0]
    if physical and (not compatible or any(a.shape != shape for a in plain_full)):
        # Physical data next to another layout, or broadcasting against a plain tensor: computed in logical
        # order; the result is virtual (logical data) with the first tensor's layout.
        physical, compatible = False, True
        args, kwargs = _unwrap_logical((args, kwargs))
    elif not compatible:
        args, kwargs = _unwrap_logical((args, kwargs))
    else:
        # One layout, one mode: run on the data; a plain full-size tensor is logical: make it physical too.
        def unwrap(a: Any) -> Any:
            if isinstance(a, LegoTensor):
                return a._data
            if physical and isinstance(a, torch.Tensor) and a.dim() > 0:
                return _physical(a, layout)
            return a

        args, kwargs = tree_map(unwrap, (args, kwargs))
    result = func(*args, **kwargs)
    if func.overloadpacket.__name__.endswith("_") and isinstance(first, LegoTensor):
        return first  # in place: the wrapper's data was updated
    return _wrap_results(result, shape, layout, physical)


def _has_dim(func: Any, args: Any, kwargs: Dict[str, Any]) -> bool:
    dim = kwargs.get("dim", args[1] if len(args) > 1 and not isinstance(args[1], torch.dtype) else None)
    return dim not in (None, [], ())


class LegoTensor(torch.Tensor):
    """A tensor with a layout (module docstring). ``LegoTensor(data, layout, is_physical=False)``."""

    _data: torch.Tensor
    _layout: Any
    _is_physical: bool

    @staticmethod
    def __new__(cls, data: torch.Tensor, layout: Any, is_physical: bool = False) -> "LegoTensor":
        if isinstance(data, LegoTensor):
            data = data._data
        if not isinstance(data, torch.Tensor):
            raise TypeError(f"LegoTensor: {type(data).__name__} is not a torch.Tensor")
        out = torch.Tensor._make_wrapper_subclass(cls, data.shape, strides=data.stride(),
                                                  storage_offset=data.storage_offset(), dtype=data.dtype,
                                                  device=data.device, requires_grad=data.requires_grad)
        out._data = data
        out._layout = layout
        out._is_physical = bool(is_physical)
        return out

    def __init__(self, data: torch.Tensor, layout: Any, is_physical: bool = False) -> None:
        pass

    @property
    def lego_layout(self) -> Any:
        return self._layout

    @property
    def is_physical(self) -> bool:
        return self._is_physical

    def to_logical(self) -> torch.Tensor:
        """The logical values as a plain tensor."""
        return _logical(self)

    def to_physical(self) -> torch.Tensor:
        """The data in the layout's physical order (a copy), as a plain tensor of the layout's shape (what
        ``layout.transform`` returns: for a ``Tiled`` view the grid + tile shape)."""
        out = self._data.clone() if self._is_physical else _physical(self._data, self._layout)
        shape = tuple(getattr(self._layout, "shape", out.shape))
        return out.reshape(shape) if shape != tuple(out.shape) and out.numel() == int(numpy.prod(shape)) else out

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        mode = "physical" if self._is_physical else "virtual"
        return (f"LegoTensor(shape={list(self.shape)}, dtype={self.dtype}, device={self.device}, "
                f"layout={self._layout!r}, mode={mode})")

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild, (self._data.detach(), self._layout, self._is_physical))

    def __tensor_flatten__(self) -> Tuple[List[str], Any]:
        return ["_data"], (self._layout, self._is_physical)

    @staticmethod
    def __tensor_unflatten__(inner: Dict[str, torch.Tensor], context: Any, outer_size: Any, outer_stride: Any) -> "LegoTensor":
        layout, physical = context
        return LegoTensor(inner["_data"], layout, physical)

    @classmethod
    def __torch_dispatch__(cls, func: Any, types: Any, args: Any = (), kwargs: Optional[Dict[str, Any]] = None) -> Any:
        kwargs = kwargs or {}
        legos = [a for a in tree_flatten((args, kwargs))[0] if isinstance(a, LegoTensor)]
        packet = func.overloadpacket
        if packet in _TIER1:
            return _tier1(func, args, kwargs, legos)
        first = legos[0]
        if packet in _TIER2:
            data = _logical(first)
            result = func(data, *args[1:], **kwargs)
            rank = first.dim()
            if packet is aten.t:
                perm = [1, 0] if rank == 2 else list(range(rank))
            elif packet is aten.transpose:
                d0, d1 = (a % max(rank, 1) for a in args[1:3])
                perm = list(range(rank))
                perm[d0], perm[d1] = perm[d1], perm[d0]
            else:
                perm = [p % rank for p in args[1]]
            layout = first._layout
            if isinstance(layout, TransposedLayout):  # compose the permutations onto the same base
                perm, layout = [layout.perm[p] for p in perm], layout.base
            return LegoTensor(result, TransposedLayout(layout, perm), False)
        if packet in _REDUCTIONS and len(legos) == 1 and args and args[0] is first:
            if not _has_dim(func, args, kwargs):
                return func(first._data, *args[1:], **kwargs)
            return func(_logical(first), *args[1:], **kwargs)
        if packet in _TIER4:
            plain = _unwrap_logical(args)
            return getattr(torch.ops.lego, _TIER4[packet])(*plain)
        if packet is aten.addmm or packet in _LEGO_OPS:
            # torch.ops.lego.* on a LegoTensor (e.g. inside a compiled graph): the op on the logical values.
            return func(*_unwrap_logical(args), **_unwrap_logical(kwargs))
        name = packet.__name__
        if name not in _WARNED:
            _WARNED.add(name)
            warnings.warn(f"'{name}' is not layout-aware. Layout metadata dropped.", UserWarning, stacklevel=2)
        args, kwargs = _unwrap_logical((args, kwargs))
        return func(*args, **kwargs)


def _rebuild(data: torch.Tensor, layout: Any, physical: bool) -> LegoTensor:
    return LegoTensor(data, layout, physical)


def _reduce_layout(layout: LegoLayout) -> Any:
    # LegoLayout caches its compiled program (a Rust object): pickle the definition, recompile on load.
    return (_rebuild_layout, (layout.layout, layout.shape, getattr(layout, "_bindings", None) or None,
                              getattr(layout, "_chain", None)))


def _rebuild_layout(layout: Any, shape: Any, bindings: Any, chain: Any) -> LegoLayout:
    rebuilt = LegoLayout(layout, shape, dim_bindings=bindings)
    rebuilt._chain = chain
    return rebuilt


copyreg.pickle(LegoLayout, _reduce_layout)


# --- annotate / rearrange ------------------------------------------------------------------------------------


class _Wrap(torch.autograd.Function):
    """Wraps a plain tensor into a LegoTensor inside autograd: gradients reach the plain tensor."""

    @staticmethod
    def forward(ctx: Any, data: torch.Tensor, layout: Any, physical: bool) -> LegoTensor:  # type: ignore[override]
        return LegoTensor(data, layout, physical)

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:  # type: ignore[override]
        if isinstance(grad, LegoTensor):
            grad = grad._data if not grad._is_physical else _logical(grad)
        return grad, None, None


def _shape_of(layout: Any) -> Tuple[int, ...]:
    return tuple(layout.shape)


def annotate(t: torch.Tensor, layout: Any) -> LegoTensor:
    """Metadata only: ``t`` as a virtual LegoTensor with ``layout`` (same storage). On a LegoTensor, the layout
    becomes ``t.lego_layout.compose(layout)`` (``layout`` alone when they do not compose); the mode is kept."""
    if isinstance(t, LegoTensor):
        try:
            combined = t.lego_layout.compose(layout)
        except (ValueError, AttributeError, TypeError):
            combined = layout
        return LegoTensor(t._data, combined, t._is_physical)
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"annotate: {type(t).__name__} is not a torch.Tensor")
    if t.numel() != int(numpy.prod(_shape_of(layout))):
        raise ValueError(f"annotate: Tensor numel ({t.numel()}) != layout numel ({int(numpy.prod(_shape_of(layout)))})")
    if t.requires_grad:
        return _Wrap.apply(t, layout, False)
    return LegoTensor(t, layout, False)


def rearrange(t: torch.Tensor, layout: Any) -> LegoTensor:
    """Physical: ``t``'s data permuted into ``layout``'s order (``torch.ops.lego.permute`` with the layout's
    ``fwd`` table, i.e. ``layout.transform``), as a physical LegoTensor of ``t``'s shape; differentiable."""
    if isinstance(t, LegoTensor):
        t = _logical(t)
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"rearrange: {type(t).__name__} is not a torch.Tensor")
    fwd, _ = layout_tables(layout, t.device)
    if t.numel() != fwd.numel():
        raise ValueError(f"rearrange: Tensor numel ({t.numel()}) != layout numel ({fwd.numel()})")
    data = torch.ops.lego.permute(t.reshape(-1), fwd).reshape(t.shape)
    if data.requires_grad:
        return _Wrap.apply(data, layout, True)
    return LegoTensor(data, layout, True)


def as_lego_tensor(t: torch.Tensor, layout: Any) -> LegoTensor:
    """The older published revision's constructor (``lego.as_lego_tensor``, ``LegoTensor(layout.transform(t),
    layout)``): ``t`` in ``layout``'s physical order, i.e. :func:`rearrange` — a physical LegoTensor of ``t``'s
    shape whose ``to_logical()`` gives ``t`` back and whose ``to_physical()`` is ``layout.transform(t)``."""
    return rearrange(t, layout)
