"""The older PyTorch integration (the published API, §2.8): ``LegoTensor(data, layout)`` holds data in the
layout's physical order (``as_lego_tensor(t, layout) = LegoTensor(layout.transform(t), layout)``) and sorts
``__torch_function__`` calls by function name: elementwise functions on LegoTensors sharing one layout run on
the physical data and keep the layout; full reductions without a dim run on the physical data; everything else
(mixed layouts, dim reductions, matmul, reshape, …) warns once per name (``… is not layout-aware …``), converts
the LegoTensors with ``to_logical()`` and returns a plain tensor. The newer integration is :mod:`lego.torch`
(``lego.LegoTensor`` is that one)."""

from __future__ import annotations

import warnings
from typing import Any, Dict, Optional, Set

import torch
from torch.utils._pytree import tree_flatten, tree_map

__all__ = ["LegoTensor", "as_lego_tensor"]

ELEMENTWISE = {"add", "sub", "mul", "div", "neg", "abs", "exp", "log", "sigmoid", "tanh", "relu", "sqrt", "rsqrt",
               "reciprocal", "sin", "cos", "pow", "clamp", "where", "float", "half", "double", "int", "__add__",
               "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__", "__neg__",
               "__pow__", "__abs__", "true_divide", "clone"}
FULL_REDUCTIONS = {"sum", "mean", "prod", "max", "min", "norm", "any", "all"}
# Attribute reads and housekeeping that must not be intercepted.
PASSTHROUGH = {"__get__", "__set__", "__repr__", "__format__", "__reduce_ex__", "size", "dim", "numel", "dtype",
               "device", "shape", "requires_grad_", "__len__", "__bool__", "__hash__", "data_ptr", "is_contiguous",
               "element_size", "storage_offset", "stride", "__setstate__", "__deepcopy__", "backward", "__iter__",
               "tolist", "item", "numpy", "__array__", "detach", "to_logical", "to_physical"}

_WARNED: Set[str] = set()


class LegoTensor(torch.Tensor):
    """``LegoTensor(data, layout)``: ``data`` (physical order) as a tensor subclass with ``_lego_layout``."""

    @staticmethod
    def __new__(cls, data: torch.Tensor, layout: Any) -> "LegoTensor":
        out = torch.Tensor._make_subclass(cls, data, data.requires_grad)
        out._lego_layout = layout
        return out

    def __init__(self, data: torch.Tensor, layout: Any) -> None:
        pass

    def _plain(self) -> torch.Tensor:
        return self.as_subclass(torch.Tensor)

    def to_logical(self) -> torch.Tensor:
        return self._lego_layout.inverse_transform(self._plain())

    def to_physical(self) -> torch.Tensor:
        return self._plain().clone()

    @property
    def layout_info(self) -> Dict[str, Any]:
        return {"layout": repr(self._lego_layout), "shape": tuple(self.shape), "physical": True}

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        return f"LegoTensor(layout={self._lego_layout!r}, data={self._plain()!r})"

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Optional[Dict[str, Any]] = None) -> Any:
        kwargs = kwargs or {}
        name = getattr(func, "__name__", str(func))
        if name in PASSTHROUGH:
            with torch._C.DisableTorchFunctionSubclass():
                return func(*args, **kwargs)
        legos = [a for a in tree_flatten((args, kwargs))[0] if isinstance(a, LegoTensor)]
        layout = legos[0]._lego_layout
        shared = all(t._lego_layout is layout or t._lego_layout == layout for t in legos)
        plain = lambda a: a._plain() if isinstance(a, LegoTensor) else a  # noqa: E731
        if shared and name in ELEMENTWISE:
            with torch._C.DisableTorchFunctionSubclass():
                result = func(*tree_map(plain, args), **tree_map(plain, kwargs))
            if isinstance(result, torch.Tensor) and result.shape == legos[0].shape:
                return LegoTensor(result, layout)
            return result
        if len(legos) == 1 and name in FULL_REDUCTIONS and len(args) <= 1 and not kwargs:
            with torch._C.DisableTorchFunctionSubclass():
                return func(legos[0]._plain())
        if name not in _WARNED:
            _WARNED.add(name)
            warnings.warn(f"'{name}' is not layout-aware: LegoTensor arguments are converted to logical order and "
                          f"the result is a plain tensor", UserWarning, stacklevel=2)
        logical = lambda a: a.to_logical() if isinstance(a, LegoTensor) else a  # noqa: E731
        with torch._C.DisableTorchFunctionSubclass():
            return func(*tree_map(logical, args), **tree_map(logical, kwargs))


def as_lego_tensor(t: torch.Tensor, layout: Any) -> LegoTensor:
    """``LegoTensor(layout.transform(t), layout)``."""
    return LegoTensor(layout.transform(t), layout)
