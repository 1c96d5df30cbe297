"""Index tables of a layout for fused kernels (the published API, §2.7): ``make_index_function(layout)`` →
``(fwd, inv)`` NumPy int64, ``make_index_tensor(layout, device)`` → the same as torch tensors on ``device``
(gather semantics: ``transform(x) = x.flat[fwd]``, ``inv[fwd] = arange``)."""

from __future__ import annotations

from typing import Any, Tuple

import numpy
import torch

from .tensor import layout_tables

__all__ = ["make_index_function", "make_index_tensor"]


def make_index_function(layout: Any) -> Tuple[numpy.ndarray, numpy.ndarray]:
    fwd, inv = layout_tables(layout, "cpu")
    return fwd.numpy().copy(), inv.numpy().copy()


def make_index_tensor(layout: Any, device: Any = "cpu") -> Tuple[torch.Tensor, torch.Tensor]:
    return layout_tables(layout, device)
