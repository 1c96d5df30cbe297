"""SymPy code printers of the JIT frontends (the published API's §3.2 rows for Triton, Numba CUDA, JAX and
cuTile): Python syntax, with ``lego_arange`` / ``BroadcastRange`` rendered for each DSL.

``floor(a/b)`` prints as ``((a)//(b))``; small integer powers of an index print as products (a DSL tensor may
have no ``**``)."""

from __future__ import annotations

from typing import Any, Dict, Optional

import sympy
from sympy.printing.pycode import PythonCodePrinter

from ..core import BroadcastRange, lego_arange


class LEGOPythonCodePrinter(PythonCodePrinter):
    """Python printer; ``do_broadcast`` renders a ``BroadcastRange`` over several axes as NumPy-style slicing."""

    arange_name = "lego_arange"

    def __init__(self, settings: Optional[Dict[str, Any]] = None, do_broadcast: bool = True) -> None:
        settings = dict(settings or {})
        settings.setdefault("fully_qualified_modules", False)
        super().__init__(settings)
        self.do_broadcast = do_broadcast

    def _print_floor(self, expr: Any) -> str:
        numerator, denominator = sympy.fraction(sympy.together(expr.args[0]))
        if denominator != 1:
            return f"(({self._print(numerator)})//({self._print(denominator)}))"
        return f"(({self._print(expr.args[0])})//(1))"

    def _print_ceiling(self, expr: Any) -> str:
        numerator, denominator = sympy.fraction(sympy.together(expr.args[0]))
        return f"((({self._print(numerator)}) + ({self._print(denominator)}) - 1)//({self._print(denominator)}))"

    def _print_Mod(self, expr: Any) -> str:
        a, b = expr.args
        return f"(({self._print(a)}) % ({self._print(b)}))"

    def _print_Pow(self, expr: Any, rational: bool = False) -> str:
        base, exp = expr.args
        if exp.is_Integer and 1 < int(exp) <= 4:
            return "(" + "*".join([self.parenthesize(base, 100)] * int(exp)) + ")"
        return super()._print_Pow(expr, rational=rational)

    def _print_Max(self, expr: Any) -> str:
        return self._nested("max", expr.args)

    def _print_Min(self, expr: Any) -> str:
        return self._nested("min", expr.args)

    def _nested(self, name: str, args: Any) -> str:
        text = self._print(args[-1])
        for arg in reversed(args[:-1]):
            text = f"{name}({self._print(arg)}, {text})"
        return text

    def _print_lego_arange(self, expr: Any) -> str:
        start, stop = expr.args
        return f"{self.arange_name}({self._print(start)}, {self._print(stop)})"

    def _print_BroadcastRange(self, expr: Any) -> str:
        inner, dim, total = expr.args
        text = self._print(inner)
        if int(total) > 1 and self.do_broadcast:
            axes = ", ".join(":" if k == int(dim) else "None" for k in range(int(total)))
            return f"(({text})[{axes}])"
        return f"({text})"


class TritonCodePrinter(LEGOPythonCodePrinter):
    arange_name = "tl.arange"

    def _print_Max(self, expr: Any) -> str:
        return self._nested("tl.maximum", expr.args)

    def _print_Min(self, expr: Any) -> str:
        return self._nested("tl.minimum", expr.args)


class NumbaCUDACodePrinter(LEGOPythonCodePrinter):
    arange_name = "range"

    def _print_BroadcastRange(self, expr: Any) -> str:
        return f"({self._print(expr.args[0])})"


class JAXCodePrinter(LEGOPythonCodePrinter):
    arange_name = "jnp.arange"


class CutileCodePrinter(LEGOPythonCodePrinter):
    def _print_lego_arange(self, expr: Any) -> str:
        start, stop = expr.args
        if start == 0:
            return f"ct.arange({self._print(stop)}, dtype=ct.int32)"
        return f"(ct.arange({self._print(stop - start)}, dtype=ct.int32) + {self._print(start)})"


__all__ = ["LEGOPythonCodePrinter", "TritonCodePrinter", "NumbaCUDACodePrinter", "JAXCodePrinter",
           "CutileCodePrinter", "lego_arange", "BroadcastRange"]
