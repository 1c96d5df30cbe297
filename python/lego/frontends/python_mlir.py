"""The tensor API module (the published API, §2). So far only its functional constructors (§2.1), which mirror the
dialect ops; ``LegoLayout`` and the convenience constructors are not built yet (docs/python.md)."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from ..core import GenP, GroupBy, LayoutBlock, OrderBy, RegP, Row, Col, TileByLayout

__all__ = ["row", "col", "reg_p", "order_by", "tile_by", "group_by", "gen_p"]


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
