"""The older PyTorch integration's SymPy → torch compiler (the published API, §2.8 / §2.2):
``sympy_to_torch(expr, symbols)`` returns a function of one tensor (or number) per symbol, in ``symbols``' order,
that evaluates ``expr`` with vectorized torch arithmetic on the inputs' device: ``floor(a/b)`` → floor division,
``Mod`` → ``torch.remainder``, ``Piecewise`` → nested ``torch.where``, ``Max``/``Min``/``Abs``, integer powers,
relations and ``And``/``Or``/``Not``. A constant expression returns a Python int. Other SymPy →
``NotImplementedError``. (The tensor API's own torch path evaluates the lowered arith DAG instead:
``lego.backend.compiler.torch_index``.)"""

from __future__ import annotations

from typing import Any, Callable, Dict, Sequence

import sympy
import torch

__all__ = ["sympy_to_torch"]


def _floor_div(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    return torch.div(torch.as_tensor(a), b, rounding_mode="floor")


def _eval(expr: Any, env: Dict[sympy.Symbol, Any]) -> Any:
    if expr.is_Integer:
        return int(expr)
    if expr.is_Symbol:
        if expr not in env:
            raise NotImplementedError(f"sympy_to_torch: no value for the symbol {expr}")
        return env[expr]
    if expr in (sympy.true, sympy.false):
        return bool(expr)
    if isinstance(expr, sympy.floor):
        numerator, denominator = sympy.fraction(sympy.together(expr.args[0]))
        return _floor_div(_eval(numerator, env), _eval(denominator, env))
    if isinstance(expr, sympy.ceiling):
        numerator, denominator = sympy.fraction(sympy.together(expr.args[0]))
        a, b = _eval(numerator, env), _eval(denominator, env)
        return -_floor_div(-a, b)
    if isinstance(expr, sympy.Mod):
        a, b = (_eval(arg, env) for arg in expr.args)
        return a % b if isinstance(a, int) and isinstance(b, int) else torch.remainder(torch.as_tensor(a), b)
    if expr.is_Add:
        total: Any = 0
        for arg in expr.args:
            total = total + _eval(arg, env)
        return total
    if expr.is_Mul:
        numerator, denominator = sympy.fraction(expr)
        if denominator != 1:
            return _floor_div(_eval(numerator, env), _eval(denominator, env))
        product: Any = 1
        for arg in expr.args:
            product = product * _eval(arg, env)
        return product
    if expr.is_Pow:
        base, exponent = expr.args
        if exponent.is_Integer and int(exponent) >= 0:
            value = _eval(base, env)
            result: Any = 1
            for _ in range(int(exponent)):
                result = result * value
            return result
        raise NotImplementedError(f"sympy_to_torch: the power {expr} (only non-negative integer exponents)")
    if isinstance(expr, (sympy.Max, sympy.Min)):
        values = [_eval(arg, env) for arg in expr.args]
        combine = torch.maximum if isinstance(expr, sympy.Max) else torch.minimum
        result = values[0]
        for value in values[1:]:
            if isinstance(result, int) and isinstance(value, int):
                result = max(result, value) if isinstance(expr, sympy.Max) else min(result, value)
            else:
                result = combine(torch.as_tensor(result), torch.as_tensor(value))
        return result
    if isinstance(expr, sympy.Abs):
        value = _eval(expr.args[0], env)
        return abs(value) if isinstance(value, int) else torch.abs(value)
    if isinstance(expr, sympy.Piecewise):
        (value, condition), rest = expr.args[0], expr.args[1:]
        if condition == sympy.true or not rest:
            return _eval(value, env)
        otherwise = _eval(sympy.Piecewise(*rest), env)
        return torch.where(torch.as_tensor(_eval(condition, env)), torch.as_tensor(_eval(value, env)),
                           torch.as_tensor(otherwise))
    relations = {sympy.StrictLessThan: "__lt__", sympy.LessThan: "__le__", sympy.StrictGreaterThan: "__gt__",
                 sympy.GreaterThan: "__ge__", sympy.Equality: "__eq__", sympy.Unequality: "__ne__"}
    for kind, method in relations.items():
        if isinstance(expr, kind):
            return getattr(torch.as_tensor(_eval(expr.lhs, env)), method)(_eval(expr.rhs, env))
    if isinstance(expr, (sympy.And, sympy.Or)):
        values = [torch.as_tensor(_eval(arg, env)) for arg in expr.args]
        result = values[0]
        for value in values[1:]:
            result = (result & value) if isinstance(expr, sympy.And) else (result | value)
        return result
    if isinstance(expr, sympy.Not):
        return ~torch.as_tensor(_eval(expr.args[0], env))
    raise NotImplementedError(f"sympy_to_torch: {expr!r} ({type(expr).__name__}) has no torch form")


def sympy_to_torch(expr: Any, symbols: Sequence[sympy.Symbol]) -> Callable[..., Any]:
    """``expr`` as a function of ``symbols``' values (tensors or ints)."""
    expr = sympy.sympify(expr)
    symbols = list(symbols)

    def evaluate(*values: Any) -> Any:
        if len(values) != len(symbols):
            raise ValueError(f"sympy_to_torch: {len(symbols)} values expected, got {len(values)}")
        return _eval(expr, dict(zip(symbols, values)))

    return evaluate
