"""The MLIR round trip under its published name (the published API, §5.6): ``simplify_via_mlir``."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import sympy

from ..core import LayoutBlock

__all__ = ["simplify_via_mlir"]


def simplify_via_mlir(layout: LayoutBlock, mode: str, args: Union[Sequence[Any], Any],
                      constraints: Optional[Dict[sympy.Symbol, Tuple[Any, Any]]] = None) -> Union[Any, List[Any]]:
    """``layout`` at ``args`` through lego IR and ``lego-lower``: one expression for ``mode='apply'`` (``args``
    one index expression per dim), a list for ``mode='inv'`` (``args`` the flat position, or a one-element
    list). ``constraints`` maps symbols to ``(lb, ub)`` (lb inclusive, ub exclusive, either ``None``), added to
    the layout's own (dim symbols ≥ 1, user constraints). The arguments are used as they are: unlike
    ``L[...]`` no bound is stated for them unless ``constraints`` gives one."""
    extra = dict(constraints or {})
    if mode == "apply":
        items = list(args)
        layout._check_rank(len(items))
        (result,) = layout._run("apply", items, extra)
        return result
    if mode == "inv":
        flat = args[0] if isinstance(args, (list, tuple)) else args
        return list(layout._run("inv", [flat], extra))
    raise ValueError(f"simplify_via_mlir: mode must be 'apply' or 'inv', got {mode!r}")
