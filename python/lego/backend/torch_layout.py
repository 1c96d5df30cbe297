"""``sympy_to_torch`` (the published API, §2.8 and §2.2's PyTorch path): a SymPy index expression compiled to
vectorized torch arithmetic. The tensor API itself evaluates the lowered arith DAG directly
(:func:`lego.backend.compiler.torch_index`); this is the published SymPy-level entry point."""

from __future__ import annotations

from typing import Any, Callable, Dict, Sequence

import sympy

__all__ = ["sympy_to_torch"]


def sympy_to_torch(expr: Any, symbols: Sequence[Any]) -> Callable[..., Any]:
    """``f(*values)`` evaluating ``expr`` with ``symbols[k] = values[k]`` (tensors or ints): ``floor(a/b)`` →
    ``torch.div(a, b, rounding_mode="trunc")`` (index arithmetic is non-negative), ``Mod`` → ``%``,
    ``Piecewise`` → nested ``torch.where``, ``Max``/``Min``/``Abs``, non-negative integer powers. A constant
    expression gives a Python int."""
    import torch

    expr = sympy.sympify(expr)
    symbols = list(symbols)

    def tensor(value: Any, like: Any) -> Any:
        if isinstance(value, torch.Tensor):
            return value
        device = like.device if isinstance(like, torch.Tensor) else None
        return torch.as_tensor(value, device=device)

    def build(e: Any) -> Callable[[Dict[Any, Any]], Any]:
        if e.is_Integer:
            constant = int(e)
            return lambda env: constant
        if e.is_Symbol:
            if e not in symbols:
                raise ValueError(f"sympy_to_torch: {e} is not one of the symbols {symbols}")
            return lambda env: env[e]
        if e.is_Rational:
            raise NotImplementedError(f"sympy_to_torch: {e} is not an integer expression")
        if isinstance(e, sympy.floor):
            numerator, denominator = sympy.together(e.args[0]).as_numer_denom()
            n, d = build(numerator), build(denominator)

            def floor_div(env: Dict[Any, Any]) -> Any:
                a, b = n(env), d(env)
                if isinstance(a, int) and isinstance(b, int):
                    return a // b
                return torch.div(tensor(a, b), b, rounding_mode="trunc")

            return floor_div
        if isinstance(e, sympy.ceiling):
            numerator, denominator = sympy.together(e.args[0]).as_numer_denom()
            return build(sympy.floor((numerator + denominator - 1) / denominator))
        if isinstance(e, sympy.Mod):
            a, b = build(e.args[0]), build(e.args[1])
            return lambda env: a(env) % b(env)
        if e.is_Add:
            terms = [build(t) for t in e.args]

            def add(env: Dict[Any, Any]) -> Any:
                total = terms[0](env)
                for term in terms[1:]:
                    total = total + term(env)
                return total

            return add
        if e.is_Mul:
            numerator, denominator = e.as_numer_denom()
            if denominator != 1:
                return build(sympy.floor(e))  # a quotient in index arithmetic is exact: floor division
            factors = [build(f) for f in e.args]

            def mul(env: Dict[Any, Any]) -> Any:
                product = factors[0](env)
                for factor in factors[1:]:
                    product = product * factor(env)
                return product

            return mul
        if e.is_Pow:
            base, exponent = e.args
            if not (exponent.is_Integer and exponent >= 0):
                raise NotImplementedError(f"sympy_to_torch: {e} (only non-negative integer powers)")
            b, k = build(base), int(exponent)
            return lambda env: b(env) ** k
        if isinstance(e, (sympy.Max, sympy.Min)):
            parts = [build(a) for a in e.args]
            pick = torch.maximum if isinstance(e, sympy.Max) else torch.minimum
            scalar = max if isinstance(e, sympy.Max) else min

            def extreme(env: Dict[Any, Any]) -> Any:
                values = [p(env) for p in parts]
                if all(isinstance(v, int) for v in values):
                    return scalar(values)
                like = next(v for v in values if isinstance(v, torch.Tensor))
                out = tensor(values[0], like)
                for value in values[1:]:
                    out = pick(out, tensor(value, like))
                return out

            return extreme
        if isinstance(e, sympy.Abs):
            inner = build(e.args[0])
            return lambda env: abs(inner(env))
        if isinstance(e, sympy.Piecewise):
            pieces = [(build(value), condition) for value, condition in e.args]
            conditions = [None if c == sympy.true else build_condition(c) for _, c in pieces]

            def piecewise(env: Dict[Any, Any]) -> Any:
                result = pieces[-1][0](env)
                for (value, _), condition in reversed(list(zip(pieces[:-1], conditions[:-1]))):
                    if condition is None:
                        result = value(env)
                        continue
                    c, v = condition(env), value(env)
                    if isinstance(c, bool):
                        result = v if c else result
                    else:
                        result = torch.where(c, tensor(v, c), tensor(result, c))
                return result

            return piecewise
        raise NotImplementedError(f"sympy_to_torch: cannot compile {e!r} ({type(e).__name__})")

    def build_condition(c: Any) -> Callable[[Dict[Any, Any]], Any]:
        relations = {sympy.StrictLessThan: "__lt__", sympy.LessThan: "__le__", sympy.StrictGreaterThan: "__gt__",
                     sympy.GreaterThan: "__ge__", sympy.Equality: "__eq__", sympy.Unequality: "__ne__"}
        for kind, method in relations.items():
            if isinstance(c, kind):
                lhs, rhs = build(c.lhs), build(c.rhs)

                def relation(env: Dict[Any, Any], method: str = method) -> Any:
                    a, b = lhs(env), rhs(env)
                    if isinstance(a, int) and isinstance(b, torch.Tensor):
                        a = tensor(a, b)
                    return getattr(a, method)(b)

                return relation
        if isinstance(c, (sympy.And, sympy.Or)):
            parts = [build_condition(a) for a in c.args]
            join = (lambda a, b: a & b) if isinstance(c, sympy.And) else (lambda a, b: a | b)

            def combined(env: Dict[Any, Any]) -> Any:
                out = parts[0](env)
                for part in parts[1:]:
                    out = join(out, part(env))
                return out

            return combined
        raise NotImplementedError(f"sympy_to_torch: cannot compile the condition {c!r}")

    compiled = build(expr)

    def evaluate(*values: Any) -> Any:
        if len(values) != len(symbols):
            raise ValueError(f"sympy_to_torch: expected {len(symbols)} values, got {len(values)}")
        return compiled(dict(zip(symbols, values)))

    return evaluate
