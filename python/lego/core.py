"""Layout primitives (the published API, §1): ``Row, Col, RegP, GenP, OrderBy, GroupBy, TileByLayout`` and the
helpers. Every evaluation (``apply``, ``inv``, ``L[...]``) builds lego IR through the extension module, lowers
it with ``lego-lower`` in-process (bounds and divisibility as facts) and returns SymPy expressions.
"""

from __future__ import annotations

import functools
import math
import numbers
import operator
import os
import sys
import warnings
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union

import sympy

from . import _bridge
from ._bridge import ExprContext, LegoError, cond_desc, to_desc

__all__ = [
    "LayoutBlock",
    "Row",
    "Col",
    "RegP",
    "GenP",
    "OrderBy",
    "GroupBy",
    "TileByLayout",
    "BroadcastRange",
    "TritonRange",
    "lego_arange",
    "get_arange",
    "product",
    "divisibility_constraint",
    "le_constraint",
    "antidiag",
    "antidiag_inv",
    "new_antidiag",
    "LegoError",
]

Size = Union[int, sympy.Expr]
Location = Optional[Tuple[str, int]]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _caller_location() -> Location:
    """File and line of the user's code that built a layout piece: where diagnostics point."""
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back
    if frame is None:
        return None
    return (frame.f_code.co_filename, frame.f_lineno)


# --- SymPy functions of the published API (§1.5) ---------------------------------------------------------


class lego_arange(sympy.Function):
    """``lego_arange(start, stop)``: the 1-D range ``start … stop-1`` (an unevaluated integer function)."""

    nargs = 2

    @classmethod
    def eval(cls, start: Any, stop: Any) -> None:
        return None

    def _eval_is_integer(self) -> bool:
        return True


class BroadcastRange(sympy.Function):
    """``BroadcastRange(expr, dim, total)``: a 1-D range occupying axis ``dim`` of a ``total``-axis broadcast."""

    nargs = 3

    @classmethod
    def eval(cls, expr: Any, dim: Any, total: Any) -> None:
        return None

    def _eval_is_integer(self) -> bool:
        return True

    def _sympystr(self, printer: Any) -> str:
        inner, dim, total = self.args
        slots = ", ".join(":" if k == int(dim) else "None" for k in range(int(total)))
        return f"(({printer._print(inner)})[{slots}])"


TritonRange = BroadcastRange


def get_arange(start: Any, stop: Any) -> lego_arange:
    return lego_arange(start, stop)


# --- helpers (§1.6) ----------------------------------------------------------------------------------------


def product(seq: Iterable[Any]) -> Any:
    return functools.reduce(lambda a, b: a * b, seq, 1)


def divisibility_constraint(a: Any, b: Any) -> sympy.Eq:
    """``a`` is divisible by ``b`` (unevaluated ``Eq(a % b, 0)``)."""
    return sympy.Eq(sympy.Mod(a, b), 0, evaluate=False)


def le_constraint(a: Any, b: Any) -> sympy.StrictLessThan:
    """``a < b``, unevaluated (strict despite the name, as published)."""
    return sympy.StrictLessThan(a, b, evaluate=False)


def antidiag(n: Any, idx: Sequence[Any]) -> sympy.Piecewise:
    """The anti-diagonal order of an n × n array (paper Fig. 7, docs/reference/semantics.md)."""
    i, j = idx
    a = i + j + 1
    mirrored = 2 * n - a
    half = sympy.Rational(1, 2)  # exact for ints as well (a·(a−1) is even)
    return sympy.Piecewise(
        (i + a * (a - 1) * half, a <= n),
        (n * n - n + i - mirrored * (mirrored - 1) * half, True),
    )


def antidiag_inv(n: int, x: int) -> Tuple[int, int]:
    """Numeric inverse of :func:`antidiag` (exact integer square root, not the published float one)."""
    n, x = int(n), int(x)
    upper = x < n * (n + 1) // 2
    z = x if upper else n * n - 1 - x
    a = (math.isqrt(8 * z + 1) + 1) // 2
    d = z - a * (a - 1) // 2
    return (d, a - 1 - d) if upper else (n - 1 - d, n - a + d)


def new_antidiag(n1: Any, n2: Any, idx: Sequence[Any]) -> Any:
    i, j = idx
    return (n1 - 1 - i) * n2 + n2 - 1 - j


# --- sizes and constraints ----------------------------------------------------------------------------------


def _size(value: Any, what: str = "dimension") -> Any:
    """A size as given (int or SymPy), rejecting non-integers and values ≤ 0 that are known."""
    if isinstance(value, bool):
        raise TypeError(f"{what} size must be an integer or a SymPy expression, got {value!r}")
    if isinstance(value, int):
        if value <= 0:
            raise ValueError(f"{what} sizes must be > 0, got {value}")
        return value
    if isinstance(value, (str, bytes, float, complex)) or value is None:
        # sympify would parse "4" or "M" (a symbol of unknown kind) and accept 2.0: sizes are ints or SymPy.
        raise TypeError(f"{what} size must be an integer or a SymPy expression, got {value!r}")
    try:
        expr = sympy.sympify(value, strict=True)
    except (sympy.SympifyError, TypeError) as error:
        raise TypeError(f"{what} size must be an integer or a SymPy expression, got {value!r}") from error
    if not isinstance(expr, sympy.Expr) or expr.has(sympy.zoo, sympy.oo, -sympy.oo, sympy.nan):
        raise TypeError(f"{what} size must be an integer or a SymPy expression, got {value!r}")
    if expr.is_Number:
        if not expr.is_Integer:
            raise ValueError(f"{what} sizes must be integers, got {value}")
        if expr <= 0:
            raise ValueError(f"{what} sizes must be > 0, got {value}")
        return int(expr)
    if not isinstance(expr, sympy.Expr):
        raise TypeError(f"{what} size must be an integer or a SymPy expression, got {value!r}")
    for symbol in sorted(_free_symbols_of(expr), key=_name):
        # A size is a count: a symbol that SymPy may treat as real would let it "simplify" floor and Mod wrongly.
        if symbol.is_integer is not True:
            raise TypeError(f"{what} size {value}: the symbol {symbol} is not declared integer "
                            f"(use sympy.Symbol({str(symbol)!r}, integer=True, positive=True))")
    return expr


def _sizes(values: Sequence[Any], what: str = "dimension") -> Tuple[Any, ...]:
    return tuple(_size(value, what) for value in values)


def _free(values: Iterable[Any]) -> Set[sympy.Symbol]:
    symbols: Set[sympy.Symbol] = set()
    for value in values:
        if not isinstance(value, int):
            symbols |= _free_symbols_of(sympy.sympify(value))
    return symbols


@functools.lru_cache(maxsize=4096)
def _free_symbols_of(expr: Any) -> frozenset:
    """SymPy recomputes ``free_symbols`` on every access; a layout asks for the same sizes' on every call."""
    return frozenset(expr.free_symbols)


def _name(symbol: Any) -> str:
    """The sort key of a symbol: its name (``str`` of a Symbol, without running SymPy's printer)."""
    return symbol.name if type(symbol) is sympy.Symbol else str(symbol)


Bound = Tuple[Any, Any]


def _merge(bounds: Dict[sympy.Symbol, Bound], symbol: sympy.Symbol, lower: Any, upper: Any) -> None:
    """Tightest wins (``Max`` of lower bounds, ``Min`` of upper bounds)."""
    old_lower, old_upper = bounds.get(symbol, (None, None))
    if lower is not None:
        lower = lower if old_lower is None else sympy.Max(old_lower, lower)
    else:
        lower = old_lower
    if upper is not None:
        upper = upper if old_upper is None else sympy.Min(old_upper, upper)
    else:
        upper = old_upper
    bounds[symbol] = (lower, upper)


def _as_bound(relation: Any) -> Optional[Tuple[sympy.Symbol, Any, Any]]:
    """``(symbol, lb, ub)`` when ``relation`` bounds a single symbol, else ``None`` (it is then a fact).

    A symbol on either side is accepted (``0 < tid`` bounds ``tid``: the published package ignores it,
    the published API, §7.9), and so is a linear left side in one symbol with a numeric coefficient.
    """
    kinds = (sympy.StrictLessThan, sympy.LessThan, sympy.StrictGreaterThan, sympy.GreaterThan, sympy.Equality)
    if not isinstance(relation, kinds):
        return None
    lhs, rhs = relation.lhs, relation.rhs
    kind = type(relation)
    flip = {
        sympy.StrictLessThan: sympy.StrictGreaterThan,
        sympy.LessThan: sympy.GreaterThan,
        sympy.StrictGreaterThan: sympy.StrictLessThan,
        sympy.GreaterThan: sympy.LessThan,
        sympy.Equality: sympy.Equality,
    }
    if not lhs.is_Symbol and rhs.is_Symbol:
        lhs, rhs, kind = rhs, lhs, flip[kind]
    if not lhs.is_Symbol:
        symbols = lhs.free_symbols
        if len(symbols) != 1 or rhs.free_symbols:
            return None
        (symbol,) = symbols
        coefficient = sympy.expand(lhs).coeff(symbol)
        constant = sympy.expand(lhs - coefficient * symbol)
        if not coefficient.is_Number or coefficient == 0 or constant.free_symbols:
            return None
        lhs, rhs = symbol, (rhs - constant) / coefficient
        if coefficient < 0:
            kind = flip[kind]
    if lhs in rhs.free_symbols:
        return None
    if rhs.is_Number and not rhs.is_Integer:
        # x < 2.5 is x < 3, x > 2.5 is x ≥ 3.
        lower_for = {sympy.StrictGreaterThan: sympy.floor(rhs) + 1, sympy.GreaterThan: sympy.ceiling(rhs)}
        upper_for = {sympy.StrictLessThan: sympy.ceiling(rhs), sympy.LessThan: sympy.floor(rhs) + 1}
        if kind in lower_for:
            return (lhs, lower_for[kind], None)
        if kind in upper_for:
            return (lhs, None, upper_for[kind])
        return None
    if kind is sympy.StrictGreaterThan:
        return (lhs, rhs + 1, None)
    if kind is sympy.GreaterThan:
        return (lhs, rhs, None)
    if kind is sympy.StrictLessThan:
        return (lhs, None, rhs)
    if kind is sympy.LessThan:
        return (lhs, None, rhs + 1)
    return (lhs, rhs, rhs + 1)


def _index_symbol(k: int) -> sympy.Symbol:
    # Fixed names (not sympy.Dummy): equal requests must give equal cache keys.
    return sympy.Symbol(f"_lego_tr{k}", integer=True)


_FLAT = sympy.Symbol("_lego_flat", integer=True)


# --- evaluation ------------------------------------------------------------------------------------------


_CACHE: Dict[Any, Tuple[Any, ...]] = {}
_CACHE_LIMIT = 4096


def _evaluate_cached(layout: Any, argument_names: Tuple[sympy.Symbol, ...], mode: str, operand: Any,
                     bounds: Tuple[Any, ...], facts: Tuple[Any, ...], call_location: Location) -> Tuple[Any, ...]:
    """Results of equal requests are computed once; the call's location (where an error is reported) is not
    part of the key. Errors are not cached."""
    key = (layout, argument_names, mode, operand, bounds, facts)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    nodes, results = _bridge.evaluate(layout, len(argument_names), mode,
                                      list(operand) if mode == "apply" else operand, list(bounds), list(facts),
                                      call_location=call_location)
    values = _bridge.to_sympy(nodes, argument_names)
    result = tuple(values[k] for k in results)
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[key] = result
    return result


def _constant_item(k: int, item: Any, dim: Any, what: str = "index") -> Optional[int]:
    """The value of a constant index item, checked against ``0 ≤ item < dim`` (``dim`` only where it is known);
    ``None`` for a symbolic item. Wrong kinds (a bool, a float, a non-integer SymPy number) → ``TypeError``, a
    constant outside the dimension → ``ValueError`` (lego's contract leaves such positions unspecified)."""
    label = what if what != "index" else f"index {k}"
    if isinstance(item, bool) or item is None:
        raise TypeError(f"{label}: {item!r} is not an index")
    if isinstance(item, (float, complex)):
        raise TypeError(f"{label}: {item!r} is not an integer")
    if isinstance(item, (slice, str)):
        return None
    value: Optional[int] = None
    if isinstance(item, sympy.Basic):
        if item.is_Number or item in (sympy.true, sympy.false):
            if not item.is_Integer:
                raise TypeError(f"{label}: {item} is not an integer")
            value = int(item)
    elif hasattr(item, "__index__"):  # int, numpy integers
        value = operator.index(item)
    elif isinstance(item, numbers.Number):
        raise TypeError(f"{label}: {item!r} is not an integer")
    if value is None:
        return None
    if value < 0:
        raise ValueError(f"{label}: {value} is negative (indices run from 0 to the dimension's size - 1)")
    bound = sympy.sympify(dim)
    if bound.is_Integer and value >= int(bound):
        raise ValueError(f"{label}: {value} is outside the dimension of size {bound}")
    return value


def _slice_bound(k: int, bound: Any, dim: Any, which: str) -> Any:
    """A slice's start / stop: an integer in ``[0, dim]`` where it is a number, else as given."""
    if isinstance(bound, bool) or isinstance(bound, (float, complex)):
        raise TypeError(f"index {k}: slice {which} {bound!r} is not an integer")
    if isinstance(bound, sympy.Basic) and bound.is_Number and not bound.is_Integer:
        raise TypeError(f"index {k}: slice {which} {bound} is not an integer")
    if hasattr(bound, "__index__") or (isinstance(bound, sympy.Basic) and bound.is_Integer):
        value = int(bound)
        size = sympy.sympify(dim)
        if value < 0 or (size.is_Integer and value > int(size)):
            raise ValueError(f"index {k}: slice {which} {value} is outside 0..{size}")
        return value
    return bound


class LayoutBlock:
    """Base of every layout: ``dims()``, ``apply``, ``inv``, ``L[...]``."""

    _loc: Location = None
    user_constraints: List[Any] = []

    def dims(self) -> Tuple[Any, ...]:
        raise NotImplementedError

    # What subclasses provide.
    def _emit(self, ctx: ExprContext) -> Tuple[Any, ...]:
        raise NotImplementedError

    def _symbols(self) -> Set[sympy.Symbol]:
        return _free(self.dims())

    def _facts(self) -> List[Any]:
        return []

    def _all_constraints(self) -> List[Any]:
        return list(self.user_constraints)

    # Constraints (§1.4).
    def _build_constraints(self) -> Dict[sympy.Symbol, Bound]:
        """``symbol → (lb, ub)``: lb inclusive, ub exclusive (``None``: unbounded)."""
        bounds: Dict[sympy.Symbol, Bound] = {}
        for symbol in sorted(self._symbols(), key=_name):
            _merge(bounds, symbol, sympy.Integer(1), None)
        for relation in self._all_constraints():
            bound = _as_bound(relation)
            if bound is not None:
                _merge(bounds, *bound)
        return bounds

    def _user_facts(self) -> List[Any]:
        return [relation for relation in self._all_constraints() if _as_bound(relation) is None]

    # Evaluation.
    def _run(self, mode: str, operand: Sequence[Any], extra_bounds: Dict[sympy.Symbol, Bound]) -> Tuple[Any, ...]:
        bounds = self._build_constraints()
        for symbol, (lower, upper) in extra_bounds.items():
            _merge(bounds, symbol, lower, upper)
        facts = list(dict.fromkeys(self._facts() + self._user_facts()))  # each fact once
        symbols: Set[sympy.Symbol] = set(self._symbols())
        for value in list(operand) + facts:
            symbols |= _free([value])
        for symbol, (lower, upper) in bounds.items():
            symbols |= {symbol} | _free([b for b in (lower, upper) if b is not None])
        names = tuple(sorted(symbols, key=lambda s: (_name(s), s.sort_key())))
        ctx = ExprContext({symbol: k for k, symbol in enumerate(names)})
        layout = self._emit(ctx)
        bound_descs = tuple(
            (ctx.arguments[symbol],
             None if lower is None else to_desc(lower, ctx),
             None if upper is None else to_desc(upper, ctx))
            for symbol, (lower, upper) in sorted(bounds.items(), key=lambda item: _name(item[0]))
        )
        fact_descs = tuple(cond_desc(fact, ctx) for fact in facts)
        if mode == "apply":
            operand_desc: Any = tuple(to_desc(value, ctx) for value in operand)
        else:
            operand_desc = to_desc(operand[0], ctx)
        return _evaluate_cached(layout, names, mode, operand_desc, bound_descs, fact_descs, _caller_location())

    def _check_rank(self, count: int) -> None:
        expected = len(self.dims())
        if count != expected:
            raise ValueError(f"Input index dimension mismatch. Expected {expected}, got {count}")

    def apply(self, *idx: Any) -> Any:
        """The flat position of logical index ``idx`` (a SymPy expression)."""
        return self._index(idx)

    def __getitem__(self, key: Any) -> Any:
        return self._index(key if isinstance(key, tuple) else (key,))

    def _index(self, items: Sequence[Any]) -> Any:
        self._check_rank(len(items))
        dims = self.dims()
        slice_count = sum(isinstance(item, slice) for item in items)
        operand: List[Any] = []
        extra: Dict[sympy.Symbol, Bound] = {}
        substitutions: Dict[sympy.Symbol, Any] = {}
        slice_rank = 0
        for k, (item, dim) in enumerate(zip(items, dims)):
            constant = _constant_item(k, item, dim)
            if constant is not None:
                operand.append(constant)
                continue
            dummy = _index_symbol(k)
            operand.append(dummy)
            if isinstance(item, slice):
                start = 0 if item.start is None else _slice_bound(k, item.start, dim, "start")
                stop = dim if item.stop is None else _slice_bound(k, item.stop, dim, "stop")
                extra[dummy] = (sympy.sympify(start), sympy.sympify(stop))
                substitutions[dummy] = BroadcastRange(lego_arange(start, stop), slice_rank, slice_count)
                slice_rank += 1
                continue
            if isinstance(item, str):
                item = sympy.Symbol(item, integer=True)
            try:
                expr = sympy.sympify(item)
            except (sympy.SympifyError, TypeError) as error:
                raise TypeError(f"index {k}: {item!r} is not an int, SymPy expression, str or slice") from error
            if not isinstance(expr, sympy.Expr) or expr.has(sympy.zoo, sympy.oo, -sympy.oo, sympy.nan, sympy.I):
                # sympify turns [0] into a Tuple and accepts I and oo: no index.
                raise TypeError(f"index {k}: {item!r} is not an int, SymPy expression, str or slice")
            extra[dummy] = (sympy.Integer(0), sympy.sympify(dim))
            substitutions[dummy] = expr
        (result,) = self._run("apply", operand, extra)
        return result.xreplace(substitutions) if substitutions else result

    def inv(self, flat: Any) -> List[Any]:
        """The logical index stored at flat position ``flat`` (a list of SymPy expressions, one per dim)."""
        size = product(sympy.sympify(dim) for dim in self.dims())
        constant = _constant_item(0, flat, size, "flat position")
        if constant is not None:
            results = self._run("inv", [constant], {})
            return list(results)
        try:
            expr = sympy.Symbol(flat, integer=True) if isinstance(flat, str) else sympy.sympify(flat)
        except (sympy.SympifyError, TypeError) as error:
            raise TypeError(f"flat position: {flat!r} is not an int, SymPy expression or str") from error
        if not isinstance(expr, sympy.Expr) or expr.has(sympy.zoo, sympy.oo, -sympy.oo, sympy.nan, sympy.I):
            raise TypeError(f"flat position: {flat!r} is not an int, SymPy expression or str")
        results = self._run("inv", [_FLAT], {_FLAT: (sympy.Integer(0), size)})
        return [result.xreplace({_FLAT: expr}) for result in results]

    # IR, for inspection (LEGO_DEBUG prints the same).
    def mlir(self, lowered: bool = False) -> str:
        """The lego IR of ``apply`` on symbolic indices (``lowered=True``: after lego-lower)."""
        items = [_index_symbol(k) for k in range(len(self.dims()))]
        bounds = {item: (sympy.Integer(0), sympy.sympify(dim)) for item, dim in zip(items, self.dims())}
        all_bounds = self._build_constraints()
        for symbol, (lower, upper) in bounds.items():
            _merge(all_bounds, symbol, lower, upper)
        symbols = set(self._symbols()) | set(items) | set(all_bounds)
        names = tuple(sorted(symbols, key=_name))
        ctx = ExprContext({symbol: k for k, symbol in enumerate(names)})
        bound_descs = [
            (ctx.arguments[s], None if lo is None else to_desc(lo, ctx), None if hi is None else to_desc(hi, ctx))
            for s, (lo, hi) in all_bounds.items()
        ]
        facts = [cond_desc(fact, ctx) for fact in self._facts() + self._user_facts()]
        before, after = _bridge.module_text(self._emit(ctx), len(names), "apply",
                                            [to_desc(item, ctx) for item in items], bound_descs, facts)
        return after if lowered else before


class _Primitive(LayoutBlock):
    _kind = ""

    def __init__(self, *dims: Any) -> None:
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])
        if not dims:
            raise ValueError(f"{type(self).__name__} needs at least one dimension")
        self._dims = _sizes(dims)
        self._loc = _caller_location()

    def dims(self) -> Tuple[Any, ...]:
        return self._dims

    def _emit(self, ctx: ExprContext) -> Tuple[Any, ...]:
        return (self._kind, self._loc, tuple(to_desc(dim, ctx) for dim in self._dims))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(map(str, self._dims))})"


class Row(_Primitive):
    """``Row(*dims)``: row-major (``lego.row``)."""

    _kind = "row"


class Col(_Primitive):
    """``Col(*dims)``: column-major (``lego.col``)."""

    _kind = "col"


class RegP(LayoutBlock):
    """``RegP(nd, perm)``: row-major over the dims permuted by ``perm`` (``lego.reg_p``)."""

    def __init__(self, nd: Sequence[Any], perm: Sequence[int]) -> None:
        nd = tuple(nd)
        perm_list = [int(p) for p in perm]
        if len(perm_list) != len(nd):
            raise ValueError(f"RegP: perm length {len(perm_list)} does not match the {len(nd)} dims")
        if sorted(perm_list) != list(range(len(nd))):
            raise ValueError(f"RegP: {perm_list} is not a valid permutation of 0..{len(nd) - 1}")
        self._dims = _sizes(nd)
        self._perm_vector = perm_list
        self._loc = _caller_location()

    def dims(self) -> Tuple[Any, ...]:
        return self._dims

    def _emit(self, ctx: ExprContext) -> Tuple[Any, ...]:
        return ("reg_p", self._loc, tuple(to_desc(dim, ctx) for dim in self._dims), tuple(self._perm_vector))

    def __repr__(self) -> str:
        return f"RegP({list(self._dims)}, {self._perm_vector})"


def _derive_inverse(nd: Tuple[Any, ...], expr: Any, indices: Sequence[sympy.Symbol],
                    flat: sympy.Symbol) -> Optional[List[Any]]:
    """The inverse of a gen_p's ``f`` (the published API, §1.2), or ``None`` when it cannot be derived.

    Unlike the published derivation (which assumes the weights decrease left to right, §7.5), a linear ``f``
    is accepted only when its weights form a mixed radix of the dims in *some* order (weight 1, then the
    product of the dims below), and each index is then ``⌊(flat − r)/c_k⌋ mod n_k`` (no mod for the
    outermost): correct for ``a[0] + 4·a[1]`` as well.
    """
    dim_symbols = _free(nd)
    allowed = dim_symbols | {flat}
    try:
        if len(indices) == 1:
            solutions = sympy.solve(sympy.Eq(expr, flat), indices[0])
            if len(solutions) != 1:
                return None
            (solution,) = solutions
            if solution.has(sympy.Piecewise) or not solution.free_symbols <= allowed:
                return None
            return [solution]
        expanded = sympy.expand(expr)
        coefficients = [expanded.coeff(x) for x in indices]
        if any(c == 0 or c.free_symbols & set(indices) for c in coefficients):
            return None
        rest = sympy.expand(expanded - sum(c * x for c, x in zip(coefficients, indices)))
        if rest.free_symbols & set(indices) or rest.has(sympy.Piecewise):
            return None
        remaining = list(range(len(indices)))
        order: List[int] = []
        weight: Any = sympy.Integer(1)
        while remaining:
            match = next((k for k in remaining if sympy.simplify(coefficients[k] - weight) == 0), None)
            if match is None:
                return None
            order.append(match)
            remaining.remove(match)
            weight = weight * nd[match]
        shifted = flat - rest
        inverse: List[Any] = [None] * len(indices)
        for position, k in enumerate(order):
            quotient = sympy.floor(shifted / coefficients[k])
            inverse[k] = quotient if position == len(order) - 1 else sympy.Mod(quotient, nd[k])
        if any(not value.free_symbols <= allowed for value in inverse):
            return None
        return inverse
    except (NotImplementedError, ValueError, TypeError):
        return None


class GenP(LayoutBlock):
    """``GenP(nd, f_apply, f_inv=None)``: a general permutation given by SymPy functions (``lego.gen_p``).

    ``f_apply(idx_tuple)`` returns the flat position, ``f_inv(flat)`` the index tuple. Without ``f_inv`` an
    inverse is derived (§1.2); if that fails, a ``UserWarning`` ("could not derive inverse") is issued and
    the layout is apply-only (``has_inverse`` is False).
    """

    def __init__(self, nd: Sequence[Any], f_apply: Any, f_inv: Any = None) -> None:
        self._dims = _sizes(tuple(nd))
        self._loc = _caller_location()
        self._indices = tuple(sympy.Symbol(f"_lego_g{k}", integer=True, nonnegative=True) for k in range(len(self._dims)))
        self._flat = sympy.Symbol("_lego_gflat", integer=True, nonnegative=True)
        self.f_apply = f_apply
        self.f_inv = f_inv
        self._apply_expr = sympy.sympify(f_apply(self._indices) if callable(f_apply) else f_apply)
        inverse: Optional[List[Any]]
        if f_inv is not None:
            produced = f_inv(self._flat)
            produced = produced if isinstance(produced, (tuple, list)) else (produced,)
            if len(produced) != len(self._dims):
                raise ValueError(f"GenP: f_inv returns {len(produced)} values for {len(self._dims)} dims")
            inverse = [sympy.sympify(value) for value in produced]
        else:
            inverse = _derive_inverse(self._dims, self._apply_expr, self._indices, self._flat)
            if inverse is None:
                warnings.warn(f"GenP: could not derive inverse of {self._apply_expr}; the layout has no inverse",
                              UserWarning, stacklevel=2)
        self._inv_exprs = inverse

    @property
    def has_inverse(self) -> bool:
        return self._inv_exprs is not None

    def dims(self) -> Tuple[Any, ...]:
        return self._dims

    def _symbols(self) -> Set[sympy.Symbol]:
        symbols = _free(self._dims) | (self._apply_expr.free_symbols - set(self._indices))
        for value in self._inv_exprs or []:
            symbols |= value.free_symbols - {self._flat}
        return symbols

    def _emit(self, ctx: ExprContext) -> Tuple[Any, ...]:
        apply_ctx = ExprContext(ctx.arguments, {x: k for k, x in enumerate(self._indices)})
        inverse = None
        if self._inv_exprs is not None:
            inv_ctx = ExprContext(ctx.arguments, {self._flat: 0})
            inverse = tuple(to_desc(value, inv_ctx) for value in self._inv_exprs)
        return ("gen_p", self._loc, tuple(to_desc(dim, ctx) for dim in self._dims),
                to_desc(self._apply_expr, apply_ctx), inverse)

    def __repr__(self) -> str:
        return f"GenP({list(self._dims)}, {self._apply_expr})"


class OrderBy(LayoutBlock):
    """``OrderBy(*perms)``: the perms side by side (``lego.order_by``); ``chain`` for GroupBy / TileBy."""

    def __init__(self, *perms: LayoutBlock) -> None:
        if not perms:
            raise ValueError("OrderBy needs at least one layout")
        for perm in perms:
            if not isinstance(perm, LayoutBlock):
                raise TypeError(f"OrderBy: {perm!r} is not a layout")
        self.perms = tuple(perms)
        self.chain: List[OrderBy] = [self]
        self._loc = _caller_location()

    def dims(self) -> Tuple[Any, ...]:
        return tuple(dim for perm in self.perms for dim in perm.dims())

    def _symbols(self) -> Set[sympy.Symbol]:
        symbols: Set[sympy.Symbol] = set()
        for element in self.chain:
            for perm in element.perms:
                symbols |= perm._symbols()
        return symbols

    def _facts(self) -> List[Any]:
        return [fact for element in self.chain for perm in element.perms for fact in perm._facts()]

    def _all_constraints(self) -> List[Any]:
        return [c for element in self.chain for perm in element.perms for c in perm._all_constraints()]

    def _emit_own(self, ctx: ExprContext) -> Tuple[Any, ...]:
        return ("order_by", self._loc, tuple(perm._emit(ctx) for perm in self.perms))

    def _emit(self, ctx: ExprContext) -> Tuple[Any, ...]:
        if len(self.chain) == 1:
            return self._emit_own(ctx)
        # A chain evaluated on its own: its elements grouped over the first element's dims.
        return ("group_by", self._loc, tuple(to_desc(dim, ctx) for dim in self.dims()),
                tuple(element._emit_own(ctx) for element in self.chain))

    def OrderBy(self, *perms: LayoutBlock) -> "OrderBy":
        """Appends ``OrderBy(*perms)`` to this chain in place and returns ``self`` (published behaviour)."""
        self.chain.append(OrderBy(*perms))
        return self

    def then(self, *perms: LayoutBlock) -> "OrderBy":
        """A new OrderBy whose chain is this chain plus ``OrderBy(*perms)``; this one is unchanged."""
        following = OrderBy(*perms)
        if len(following.dims()) != len(self.dims()):
            raise ValueError(
                f"Dimension count mismatch: the chain has rank {len(self.dims())}, the new OrderBy rank "
                f"{len(following.dims())}"
            )
        result = OrderBy(*self.perms)
        result.chain = list(self.chain) + [following]
        return result

    def GroupBy(self, group_dims: Sequence[Sequence[Any]], user_constraints: Sequence[Any] = ()) -> "GroupBy":
        return GroupBy(group_dims, list(self.chain), list(user_constraints))

    def TileBy(self, *groups: Sequence[Any], user_constraints: Sequence[Any] = ()) -> "TileByLayout":
        flattened = tuple(dim for group in groups for dim in group)
        return TileByLayout(list(self.chain), list(groups), [flattened], list(user_constraints))

    def __repr__(self) -> str:
        text = f"OrderBy({', '.join(map(repr, self.perms))})"
        for element in self.chain[1:]:
            text += f".then({', '.join(map(repr, element.perms))})"
        return text


def _emit_object(obj: LayoutBlock, ctx: ExprContext) -> Tuple[Any, ...]:
    return obj._emit_own(ctx) if isinstance(obj, OrderBy) else obj._emit(ctx)


class GroupBy(LayoutBlock):
    """``GroupBy(group_dims, objects, user_constraints=[])``: ``lego.group_by`` over the flattened dims."""

    def __init__(self, group_dims: Sequence[Sequence[Any]], objects: Sequence[LayoutBlock],
                 user_constraints: Sequence[Any] = ()) -> None:
        groups = [tuple(group) if isinstance(group, (tuple, list)) else (group,) for group in group_dims]
        if not groups:
            raise ValueError("GroupBy needs at least one group of dims")
        self.group_dims = groups
        self._dims = _sizes(tuple(dim for group in groups for dim in group))
        self.objects = list(objects)
        for obj in self.objects:
            if not isinstance(obj, LayoutBlock):
                raise TypeError(f"GroupBy: {obj!r} is not a layout")
        self.user_constraints = list(user_constraints)
        self.d = len(groups[0])
        self._loc = _caller_location()

    def dims(self) -> Tuple[Any, ...]:
        return self._dims

    def _symbols(self) -> Set[sympy.Symbol]:
        symbols = _free(self._dims)
        for obj in self.objects:
            symbols |= obj._symbols()
        return symbols

    def _facts(self) -> List[Any]:
        return [fact for obj in self.objects for fact in obj._facts()]

    def _all_constraints(self) -> List[Any]:
        return list(self.user_constraints) + [c for obj in self.objects for c in obj._all_constraints()]

    def _emit(self, ctx: ExprContext) -> Tuple[Any, ...]:
        return ("group_by", self._loc, tuple(to_desc(dim, ctx) for dim in self._dims),
                tuple(_emit_object(obj, ctx) for obj in self.objects))

    def __repr__(self) -> str:
        return f"GroupBy({self.group_dims}, {self.objects!r})"

    # The published GroupBy conveniences (§1.8): the tensor API's transform, compiled once per shape.
    def transform(self, array: Any) -> Any:
        """``array`` gathered through this layout (lego.backend.compiler); the result keeps ``array``'s shape."""
        return _compiler_for(self, array.shape).transform_numpy(array)

    def inverse_transform(self, array: Any) -> Any:
        _check_layout_invertible(self)
        return _compiler_for(self, array.shape).inverse_transform_numpy(array)


# The tensor API's compiler (lego.backend.compiler) imports this module; this module never imports it (nor the
# tensor API): the compiler registers its factory here when it is imported, which `import lego` always does.
_COMPILER_FACTORY: Optional[Any] = None


def register_compiler_factory(factory: Any) -> None:
    """``factory(layout, shape)`` → a compiled ``LayoutCompiler`` (``lego.backend.compiler.get_compiler``)."""
    global _COMPILER_FACTORY
    _COMPILER_FACTORY = factory


def _compiler_for(layout: LayoutBlock, shape: Any) -> Any:
    if _COMPILER_FACTORY is None:
        raise RuntimeError("lego.core: the tensor API's compiler is not loaded (import lego, or lego.backend.compiler)")
    return _COMPILER_FACTORY(layout, shape)


def _check_layout_invertible(layout: LayoutBlock) -> None:
    """``ValueError`` (``no inverse``) when a GenP inside ``layout`` has no inverse."""
    stack: List[Any] = [layout]
    while stack:
        node = stack.pop()
        if isinstance(node, GenP) and not node.has_inverse:
            raise ValueError(f"the layout contains {node!r}, which has no inverse: inverse_transform needs one "
                             f"(pass f_inv to GenP)")
        if isinstance(node, OrderBy):
            stack.extend(perm for element in node.chain for perm in element.perms)
        elif isinstance(node, GroupBy):
            stack.extend(node.objects)


def _divisibility(size: Any) -> Optional[Any]:
    """``A mod B == 0`` for a tile dim written ``floor(A/B)`` or ``A/B``."""
    if isinstance(size, int):
        return None
    expr = sympy.sympify(size)
    inner = expr.args[0] if isinstance(expr, sympy.floor) else expr
    numerator, denominator = sympy.together(inner).as_numer_denom()
    if denominator == 1:
        return None
    return sympy.Eq(sympy.Mod(numerator, denominator), 0, evaluate=False)


class TileByLayout(GroupBy):
    """``OrderBy(...).TileBy(*groups)``: ``lego.tile_by`` of one order_by of every chain element's perms."""

    def __init__(self, input_chain: Sequence[OrderBy], tile_groups: Sequence[Sequence[Any]],
                 group_dims: Sequence[Sequence[Any]], user_constraints: Sequence[Any] = ()) -> None:
        super().__init__(group_dims, list(input_chain), user_constraints)
        self._input_chain = list(input_chain)
        self._tile_groups = [tuple(group) if isinstance(group, (tuple, list)) else (group,) for group in tile_groups]
        if not self._tile_groups:
            raise ValueError("TileBy needs at least one group of tile dims")
        for group in self._tile_groups:
            _sizes(group, "tile")
        self.tile_shape = [len(self._tile_groups[0])] * len(self._tile_groups)
        self._loc = _caller_location()

    def _facts(self) -> List[Any]:
        facts = super()._facts()
        for group in self._tile_groups:
            for size in group:
                fact = _divisibility(size)
                if fact is not None:
                    facts.append(fact)
        return facts

    def _emit(self, ctx: ExprContext) -> Tuple[Any, ...]:
        perms = tuple(perm._emit(ctx) for element in self._input_chain for perm in element.perms)
        inner = ("order_by", self._loc, perms)
        levels = tuple(tuple(to_desc(_size(dim, "tile"), ctx) for dim in group) for group in self._tile_groups)
        return ("tile_by", self._loc, inner, levels)

    def __repr__(self) -> str:
        chain = self._input_chain[0] if self._input_chain else None
        return f"{chain!r}.TileBy({', '.join(map(str, self._tile_groups))})"
