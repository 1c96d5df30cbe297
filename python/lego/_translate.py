"""``lego.translate(layout, language)``: a layout as compilable index functions in one of the ten languages of
lego-translate (CUDA C, C, C++, Rust, Fortran, Julia, JavaScript, GLSL, WGSL, Python), printed by
lego-translate's own printers inside the extension (python/src/translate.rs; docs/translate.md describes the
output of each language). Not part of the published package (docs/python.md).

The functions are ``apply_<name>(i0, …, i<r-1>, <size symbols>)`` and, when the layout is invertible,
``apply_inverse_<name>(flat, <size symbols>)`` returning the ``r`` indices (the language's tuple / out
parameters / struct, as lego-translate prints multi-result functions). Size symbols come in name order.
"""

from __future__ import annotations

from typing import Any, Iterator, List, Optional, Sequence, Tuple

import sympy

from . import _bridge
from ._bridge import ExprContext, cond_desc, to_desc
from .core import GenP, GroupBy, LayoutBlock, OrderBy, TileByLayout

__all__ = ["translate", "LANGUAGES"]


def _pieces(layout: LayoutBlock) -> Iterator[LayoutBlock]:
    yield layout
    children: List[LayoutBlock] = []
    if isinstance(layout, TileByLayout):
        children = list(layout._input_chain)
    elif isinstance(layout, GroupBy):
        children = list(layout.objects)
    elif isinstance(layout, OrderBy):
        children = list(layout.perms) + [element for element in layout.chain if element is not layout]
    for child in children:
        yield from _pieces(child)


def has_inverse(layout: LayoutBlock) -> bool:
    """Whether every GenP of ``layout`` has an inverse (given or derived)."""
    return all(piece.has_inverse for piece in _pieces(layout) if isinstance(piece, GenP))


def _as_layout(layout: Any) -> LayoutBlock:
    if isinstance(layout, LayoutBlock):
        return layout
    inner = getattr(layout, "layout", None)  # a LegoLayout wraps a core layout
    if isinstance(inner, LayoutBlock):
        return inner
    raise TypeError(f"lego.translate: {layout!r} is not a layout (Row, Col, RegP, GenP, OrderBy, GroupBy, TileBy or "
                    "a LegoLayout)")


def _request(layout: LayoutBlock, name: str, mode: str, leading: Sequence[sympy.Symbol],
             leading_names: Sequence[str]) -> Tuple[Any, ...]:
    bounds = layout._build_constraints()
    facts = list(dict.fromkeys(layout._facts() + layout._user_facts()))
    symbols = set(layout._symbols())
    for symbol, (lower, upper) in bounds.items():
        symbols |= {symbol} | {s for b in (lower, upper) if b is not None for s in sympy.sympify(b).free_symbols}
    for fact in facts:
        symbols |= fact.free_symbols
    sizes = sorted(symbols, key=lambda s: (str(s), s.sort_key()))
    arguments = list(leading) + sizes
    ctx = ExprContext({symbol: k for k, symbol in enumerate(arguments)})
    bound_descs = [
        (ctx.arguments[symbol], None if lower is None else to_desc(lower, ctx),
         None if upper is None else to_desc(upper, ctx))
        for symbol, (lower, upper) in sorted(bounds.items(), key=lambda item: str(item[0]))
    ]
    fact_descs = [cond_desc(fact, ctx) for fact in facts]
    if mode == "apply":
        operand: Any = [to_desc(symbol, ctx) for symbol in leading]
    else:
        operand = to_desc(leading[0], ctx)
    params = list(leading_names) + [str(symbol) for symbol in sizes]
    return (name, params, layout._emit(ctx), len(arguments), mode, operand, bound_descs, fact_descs)


def translate(layout: Any, language: str, name: str = "layout", inverse: Optional[bool] = None,
              assert_bounds: bool = False, index_bitwidth: Optional[int] = None) -> str:
    """Source code of ``layout``'s index functions in ``language`` (``cuda, c, cpp, rust, fortran, julia, js,
    glsl, wgsl, python``; ``"c++"``, ``"javascript"`` also accepted), lowered by lego-lower (proved and
    strength-reduced) and printed by lego-translate's printers.

    ``inverse``: also print ``apply_inverse_<name>`` (default: when every GenP has an inverse; ``True`` for
    an apply-only GenP raises ``ValueError``). ``assert_bounds`` and ``index_bitwidth`` are lego-translate's
    ``--assert-bounds`` and ``--index-bitwidth`` (docs/translate.md). A value the language cannot hold, or a
    layout that does not verify, raises :class:`lego.LegoError` with the diagnostic."""
    layout = _as_layout(layout)
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"lego.translate: the name must be an identifier, got {name!r}")
    invertible = has_inverse(layout)
    if inverse is None:
        inverse = invertible
    elif inverse and not invertible:
        raise ValueError("lego.translate: the layout has a GenP with no inverse; pass inverse=False")
    rank = len(layout.dims())
    indices = [sympy.Symbol(f"_lego_translate_i{k}", integer=True) for k in range(rank)]
    functions = [_request(layout, f"apply_{name}", "apply", indices, [f"i{k}" for k in range(rank)])]
    if inverse:
        flat = sympy.Symbol("_lego_translate_flat", integer=True)
        functions.append(_request(layout, f"apply_inverse_{name}", "inv", [flat], ["flat"]))
    # Equal requests print equal text: translated once (a symbolic inverse costs lego-lower's simplifier
    # hundreds of ms). Errors are not cached.
    key = (repr(functions), language, bool(assert_bounds), index_bitwidth, name)
    cached = _CACHE.get(key)
    if cached is None:
        cached = _bridge._lego.translate(_bridge.session(), functions, language, assert_bounds=assert_bounds,
                                         index_bitwidth=index_bitwidth, source=name)
        if len(_CACHE) >= 256:
            _CACHE.clear()
        _CACHE[key] = cached
    return cached


_CACHE: dict = {}


LANGUAGES: Tuple[str, ...] = tuple(_bridge._lego.translate_languages())
"""The language names :func:`translate` accepts, one per language."""
