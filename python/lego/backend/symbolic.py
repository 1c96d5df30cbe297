"""The MLIR round trip under its published name (the published API, §5.6): ``simplify_via_mlir``."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import sympy

from ..core import LayoutBlock

__all__ = ["simplify_via_mlir", "arith_to_sympy"]


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


def arith_to_sympy(mlir: str, arguments: Optional[Sequence[Any]] = None, pipeline: str = "") -> Union[Any, List[Any]]:
    """The values the first ``func.func`` of ``mlir`` (module text) returns, as SymPy (§5.6 step 5): one
    expression for one result, else a list. ``arguments`` are the SymPy values of the function's arguments
    (default: integer symbols ``arg0, arg1, …``); ``pipeline`` runs first (e.g. ``"lego-lower"``: then the
    module may use lego ops). The published function reads MLIR Python binding objects; this package has no
    MLIR Python bindings, so it reads text (docs/python.md, "Differences"). A module that does not parse or
    verify raises :class:`lego.LegoError` with the located diagnostic."""
    from .. import _bridge

    nodes, results, count = _bridge._lego.arith_nodes(_bridge.session(), mlir, pipeline=pipeline)
    if arguments is None:
        arguments = [sympy.Symbol(f"arg{k}", integer=True) for k in range(count)]
    elif len(arguments) != count:
        raise ValueError(f"arith_to_sympy: the function has {count} arguments, got {len(arguments)} values")
    values = _bridge.to_sympy(nodes, list(arguments))
    out = [values[k] for k in results]
    return out[0] if len(out) == 1 else out
