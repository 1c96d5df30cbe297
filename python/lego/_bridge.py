"""SymPy <-> the extension module's descriptors (python/src/desc.rs, python/src/readback.rs).

SymPy sizes, index expressions and gen_p bodies become nested tuples that the Rust side turns into arith ops
inside the lego IR it builds (the published API, §5.6, "SymPy → index arithmetic"); the lowered arithmetic comes
back as a DAG of arith nodes that :func:`to_sympy` turns into SymPy (§5.6 step 5).
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import sympy

try:
    from . import _lego
except ImportError as error:
    if "cannot open shared object" in str(error):
        # A development build (linked to the system's LLVM 22) on a machine without it.
        raise ImportError(
            f"lego's extension module cannot load: {error}. This build links LLVM 22's libMLIR.so; install the "
            "self-contained wheel (`make wheel`) or LLVM 22 (`make setup`): docs/python.md, Installing"
        ) from error
    # The source tree, without the built extension module.
    raise ImportError(
        "lego's extension module lego._lego is not built here: install the package (pip install ./python, "
        "or `make python`; docs/python.md)"
    ) from error
from ._lego import LegoError

Descriptor = Tuple[Any, ...]


class ExprContext:
    """How symbols of an expression map to the function's arguments (``arg``) or, inside a gen_p region, to
    the region's arguments (``barg``)."""

    def __init__(self, arguments: Mapping[sympy.Symbol, int], block: Optional[Mapping[sympy.Symbol, int]] = None):
        self.arguments = arguments
        self.block = block or {}
        self._key: Optional[Tuple[Any, Any]] = None

    def key(self) -> Tuple[Any, Any]:
        """The mapping as a hashable value (contexts are not changed after they are made)."""
        if self._key is None:
            self._key = (tuple(self.arguments.items()), tuple(self.block.items()))
        return self._key


def _unsupported(expr: Any) -> NotImplementedError:
    return NotImplementedError(f"lego cannot lower {expr!r} ({type(expr).__name__}) to index arithmetic")


def _may_be_negative(expr: Any) -> bool:
    """Whether SymPy cannot prove ``expr`` ≥ 0 (a difference in a gen_p inverse: ``⌊x/4⌋ − x mod 4``)."""
    return sympy.sympify(expr).is_nonnegative is not True


def _floor_mod(a: Any, b: Any, ctx: "ExprContext") -> Tuple[Any, ...]:
    """SymPy's ``Mod(a, b)`` (floor semantics, b > 0). The IR's remainder is unsigned (layout arithmetic is on
    non-negative values): a dividend that may be negative is taken through ``b − 1 − ((−a − 1) mod b)``, on
    non-negative values only (found by bench/fuzz/python_fuzz.py: ``Mod(−1, 6)`` gave 3, the unsigned rest
    of 2^64 − 1)."""
    if not _may_be_negative(a):
        return ("mod", to_desc(a, ctx), to_desc(b, ctx))
    a_desc, b_desc = to_desc(a, ctx), to_desc(b, ctx)
    flipped = ("sub", ("sub", ("int", 0), a_desc), ("int", 1))
    negative = ("sub", ("sub", b_desc, ("int", 1)), ("mod", flipped, b_desc))
    return ("select", ("cmp", "lt", a_desc, ("int", 0)), negative, ("mod", a_desc, b_desc))


def _floor_div(a: Any, b: Any, ctx: "ExprContext") -> Tuple[Any, ...]:
    """``⌊a / b⌋`` (b > 0); a dividend that may be negative as ``−((−a − 1) div b) − 1``, as for Mod."""
    if not _may_be_negative(a):
        return ("floordiv", to_desc(a, ctx), to_desc(b, ctx))
    a_desc, b_desc = to_desc(a, ctx), to_desc(b, ctx)
    flipped = ("sub", ("sub", ("int", 0), a_desc), ("int", 1))
    negative = ("sub", ("sub", ("int", 0), ("floordiv", flipped, b_desc)), ("int", 1))
    return ("select", ("cmp", "lt", a_desc, ("int", 0)), negative, ("floordiv", a_desc, b_desc))


def to_desc(expr: Any, ctx: ExprContext) -> Descriptor:
    """An index-arithmetic descriptor of ``expr`` (an int or a SymPy integer expression)."""
    if isinstance(expr, sympy.Basic):
        # Every call of a layout describes the same size expressions again: remembered per (expression,
        # argument numbering). Errors are not cached (lru_cache does not keep exceptions).
        return _to_desc_memo(expr, ctx.key())
    return _to_desc(expr, ctx)


@functools.lru_cache(maxsize=8192)
def _to_desc_memo(expr: Any, key: Tuple[Any, Any]) -> Descriptor:
    return _to_desc(expr, ExprContext(dict(key[0]), dict(key[1])))


def _to_desc(expr: Any, ctx: ExprContext) -> Descriptor:
    if isinstance(expr, bool):
        raise _unsupported(expr)
    if isinstance(expr, int):
        return ("int", expr)
    expr = sympy.sympify(expr)
    if expr.is_Integer:
        return ("int", int(expr))
    if expr.is_Symbol:
        if expr in ctx.block:
            return ("barg", ctx.block[expr])
        if expr in ctx.arguments:
            return ("arg", ctx.arguments[expr])
        raise LegoError(f"internal error: symbol {expr} has no argument")
    if expr.is_Add:
        positive, negative = [], []
        for term in expr.args:
            coefficient, rest = term.as_coeff_Mul()
            if coefficient.is_negative:
                negative.append(to_desc(-term, ctx))
            else:
                positive.append(to_desc(term, ctx))
        total = ("add", tuple(positive)) if positive else ("int", 0)
        if len(positive) == 1:
            total = positive[0]
        if not negative:
            return total
        subtrahend = negative[0] if len(negative) == 1 else ("add", tuple(negative))
        return ("sub", total, subtrahend)
    if expr.is_Pow and expr.args[1].is_negative:
        # A quotient is a Mul with a denominator (M / BM); a bare negative power is no index arithmetic (§5.6).
        raise NotImplementedError(f"lego cannot lower the power {expr} (only non-negative integer exponents)")
    if expr.is_Mul or expr.is_Pow or expr.is_Rational:
        numerator, denominator = expr.as_numer_denom()
        if denominator != 1:
            # A quotient in a size (M / BM) is exact by contract: floor division.
            return ("floordiv", to_desc(numerator, ctx), to_desc(denominator, ctx))
        if expr.is_Pow:
            base, exponent = expr.args
            if exponent.is_Integer and exponent > 0:
                return ("mul", (to_desc(base, ctx),) * int(exponent))
            raise NotImplementedError(f"lego cannot lower the power {expr} (only non-negative integer exponents)")
        coefficient, rest = expr.as_coeff_Mul()
        if coefficient.is_negative:
            return ("sub", ("int", 0), to_desc(-expr, ctx))
        return ("mul", tuple(to_desc(factor, ctx) for factor in expr.args))
    if isinstance(expr, sympy.floor):
        numerator, denominator = sympy.together(expr.args[0]).as_numer_denom()
        if denominator == 1:
            return to_desc(numerator, ctx)
        return _floor_div(numerator, denominator, ctx)
    if isinstance(expr, sympy.ceiling):
        numerator, denominator = sympy.together(expr.args[0]).as_numer_denom()
        if denominator == 1:
            return to_desc(numerator, ctx)
        return ("ceildiv", to_desc(numerator, ctx), to_desc(denominator, ctx))
    if isinstance(expr, sympy.Mod):
        return _floor_mod(expr.args[0], expr.args[1], ctx)
    if isinstance(expr, sympy.Max):
        return ("max", tuple(to_desc(arg, ctx) for arg in expr.args))
    if isinstance(expr, sympy.Min):
        return ("min", tuple(to_desc(arg, ctx) for arg in expr.args))
    if isinstance(expr, sympy.Abs):
        inner = to_desc(expr.args[0], ctx)
        return ("select", ("cmp", "lt", inner, ("int", 0)), ("sub", ("int", 0), inner), inner)
    if isinstance(expr, sympy.Piecewise):
        return _piecewise(list(expr.args), ctx, expr)
    raise _unsupported(expr)


def _piecewise(pieces: List[Any], ctx: ExprContext, whole: Any) -> Descriptor:
    (value, condition), rest = pieces[0], pieces[1:]
    if condition == sympy.true or not rest:
        # The last piece of a Piecewise without a True condition is taken as the default (the layout's
        # inputs are in range, where a well-formed Piecewise covers every case).
        return to_desc(value, ctx)
    return ("select", cond_desc(condition, ctx), to_desc(value, ctx), _piecewise(rest, ctx, whole))


_RELATIONS = {
    sympy.StrictLessThan: "lt",
    sympy.LessThan: "le",
    sympy.StrictGreaterThan: "gt",
    sympy.GreaterThan: "ge",
    sympy.Equality: "eq",
    sympy.Unequality: "ne",
}


def cond_desc(cond: Any, ctx: ExprContext) -> Descriptor:
    """A condition descriptor of a SymPy relational / boolean."""
    if cond in (True, sympy.true):
        return ("bool", True)
    if cond in (False, sympy.false):
        return ("bool", False)
    for kind, name in _RELATIONS.items():
        if isinstance(cond, kind):
            return ("cmp", name, to_desc(cond.lhs, ctx), to_desc(cond.rhs, ctx))
    if isinstance(cond, sympy.And):
        return ("and", tuple(cond_desc(arg, ctx) for arg in cond.args))
    if isinstance(cond, sympy.Or):
        return ("or", tuple(cond_desc(arg, ctx) for arg in cond.args))
    if isinstance(cond, sympy.Not):
        return ("not", cond_desc(cond.args[0], ctx))
    raise _unsupported(cond)


# --- arith DAG -> SymPy --------------------------------------------------------------------------------

bitand = sympy.Function("bitand")
bitor = sympy.Function("bitor")
bitxor = sympy.Function("bitxor")

_COMPARISONS = {
    "eq": sympy.Eq,
    "ne": sympy.Ne,
    "slt": sympy.Lt,
    "ult": sympy.Lt,
    "sle": sympy.Le,
    "ule": sympy.Le,
    "sgt": sympy.Gt,
    "ugt": sympy.Gt,
    "sge": sympy.Ge,
    "uge": sympy.Ge,
}


def _power_of_two_mask(value: Any) -> Optional[int]:
    if value.is_Integer and int(value) > 0 and (int(value) + 1) & int(value) == 0:
        return int(value) + 1
    return None


def to_sympy(nodes: Sequence[Tuple[str, List[int], Any]], arguments: Sequence[Any]) -> List[Any]:
    """SymPy values of every node of the DAG the extension returns (operands come first)."""
    values: List[Any] = []
    boolean: List[bool] = []
    for kind, operands, extra in nodes:
        args = [values[k] for k in operands]
        is_bool = False
        if kind == "const":
            value = sympy.Integer(extra)
        elif kind == "bool":
            value, is_bool = sympy.true if extra else sympy.false, True
        elif kind == "arg":
            value = arguments[extra]
        elif kind == "addi":
            value = args[0] + args[1]
        elif kind == "subi":
            value = args[0] - args[1]
        elif kind == "muli":
            value = args[0] * args[1]
        elif kind in ("divui", "divsi", "floordivsi"):
            value = sympy.floor(args[0] / args[1])
        elif kind in ("ceildivui", "ceildivsi"):
            value = sympy.ceiling(args[0] / args[1])
        elif kind in ("remui", "remsi"):
            value = sympy.Mod(args[0], args[1])
        elif kind in ("maxui", "maxsi"):
            value = sympy.Max(*args)
        elif kind in ("minui", "minsi"):
            value = sympy.Min(*args)
        elif kind == "shli":
            value = args[0] * 2 ** args[1]
        elif kind in ("shrui", "shrsi"):
            value = sympy.floor(args[0] / 2 ** args[1])
        elif kind in ("andi", "ori", "xori"):
            both_bool = all(boolean[k] for k in operands)
            if both_bool:
                combine = {"andi": sympy.And, "ori": sympy.Or, "xori": sympy.Xor}[kind]
                value, is_bool = combine(*args), True
            elif kind == "andi" and _power_of_two_mask(args[1]) is not None:
                value = sympy.Mod(args[0], _power_of_two_mask(args[1]))
            elif kind == "andi" and _power_of_two_mask(args[0]) is not None:
                value = sympy.Mod(args[1], _power_of_two_mask(args[0]))
            else:
                value = {"andi": bitand, "ori": bitor, "xori": bitxor}[kind](*args)
        elif kind == "cmpi":
            value, is_bool = _COMPARISONS[extra](args[0], args[1]), True
        elif kind == "select":
            condition, if_true, if_false = args
            if condition == sympy.true:
                value = if_true
            elif condition == sympy.false:
                value = if_false
            else:
                value = sympy.Piecewise((if_true, condition), (if_false, True))
            is_bool = boolean[operands[1]] and boolean[operands[2]]
        elif kind in ("index_cast", "index_castui", "extui", "extsi", "trunci"):
            value = args[0]
            is_bool = boolean[operands[0]]
        else:
            raise LegoError(f"internal error: the extension returned an unknown node kind '{kind}'")
        values.append(value)
        boolean.append(is_bool)
    return values


# --- the session of this thread --------------------------------------------------------------------------

_local = threading.local()


def session() -> Any:
    """The thread's :class:`lego._lego.Session` (an MLIR context cannot move between threads)."""
    current = getattr(_local, "session", None)
    if current is None:
        current = _lego.Session()
        _local.session = current
    return current


def drop_session() -> None:
    """Forget this thread's context (after an internal error, the published API, §5.6)."""
    _local.session = None


def evaluate(layout: Descriptor, argument_count: int, mode: str, operand: Any, bounds: List[Any], facts: List[Any],
             debug_label: str = "", call_location: Optional[Tuple[str, int]] = None) -> Tuple[List[Any], List[int]]:
    """Runs one request through the extension; returns ``(nodes, results)``. ``call_location`` (file, line) is
    where the user asked for the evaluation: the location of the apply / apply_inverse op."""
    debug = bool(os.environ.get("LEGO_DEBUG"))
    try:
        nodes, results, before, after = session().evaluate(layout, argument_count, mode, operand, bounds, facts,
                                                            keep_ir=debug, call_location=call_location)
    except LegoError:
        raise
    except Exception:
        drop_session()
        raise
    if debug:
        print(f"// lego: {debug_label} {mode}: lego IR\n{before}\n// after lego-lower\n{after}", file=sys.stderr)
    return nodes, results


def module_text(layout: Descriptor, argument_count: int, mode: str, operand: Any, bounds: List[Any],
                facts: List[Any]) -> Tuple[str, str]:
    """The lego IR of a request and its lowered form (for inspection and tests)."""
    _, _, before, after = session().evaluate(layout, argument_count, mode, operand, bounds, facts, keep_ir=True)
    return before, after


Bounds = Dict[sympy.Symbol, Tuple[Any, Any]]
