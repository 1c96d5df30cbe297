"""SymPy code printers of the source generators (the published API, §3.2): each renders ``floor(a/b)``,
``Mod``, ``lego_arange`` and ``BroadcastRange`` (and small powers) in its language's expression syntax. They
print *expressions* for the generators (``lego.rust_gen`` and friends); whole compilable functions of a layout
come from :func:`lego.translate`, which prints through lego-translate.

``LEGOStaticLangMixin`` supplies the static languages' defaults: a ``BroadcastRange`` prints as its inner range
``(inner)`` (no slicing), ``floor(a/b)`` as ``((a) / (b))`` and ``Mod(a, b)`` as ``((a) % (b))`` — integer
division and remainder, exact for the non-negative index arithmetic layouts produce. Every printer accepts
``settings={...}`` as a keyword (SymPy's printer settings).
"""

from __future__ import annotations

from typing import Any, Tuple

import sympy
from sympy.printing.c import C99CodePrinter
from sympy.printing.cxx import CXX17CodePrinter
from sympy.printing.fortran import FCodePrinter
from sympy.printing.glsl import GLSLPrinter
from sympy.printing.jscode import JavascriptCodePrinter
from sympy.printing.julia import JuliaCodePrinter
from sympy.printing.rust import RustCodePrinter

__all__ = [
    "LEGOStaticLangMixin",
    "LEGORustCodePrinter",
    "LEGOCXXCodePrinter",
    "LEGOCCodePrinter",
    "LEGOCUDACCodePrinter",
    "LEGOFortranCodePrinter",
    "LEGOJuliaCodePrinter",
    "LEGOJSCodePrinter",
    "LEGOGLSLCodePrinter",
]


def _quotient(expr: Any) -> Tuple[Any, Any]:
    """``(a, b)`` of ``floor(a/b)`` (``b`` = 1 when the argument is no quotient)."""
    numerator, denominator = sympy.fraction(sympy.together(expr.args[0]))
    return numerator, denominator


class LEGOStaticLangMixin:
    """Defaults of the static-language printers: ``(inner)``, ``((a) / (b))``, ``((a) % (b))``."""

    def _print_BroadcastRange(self, expr: Any) -> str:
        return f"({self._print(expr.args[0])})"

    def _print_floor(self, expr: Any) -> str:
        a, b = _quotient(expr)
        if b == 1:
            return self._print(expr.args[0])
        return f"(({self._print(a)}) / ({self._print(b)}))"

    def _print_Mod(self, expr: Any) -> str:
        a, b = expr.args
        return f"(({self._print(a)}) % ({self._print(b)}))"

    def _print_lego_arange(self, expr: Any) -> str:
        start, stop = expr.args
        return f"/* arange({self._print(start)}, {self._print(stop)}) */"


def _exponent(expr: Any) -> Any:
    return expr.args[1]


class LEGORustCodePrinter(LEGOStaticLangMixin, RustCodePrinter):
    """Rust: ``(s..e)`` ranges; ``x**2`` → ``(x * x)``, ``x**-1`` → ``(1.0 / x)``, ``x**0.5`` →
    ``(x as f64).sqrt()``, other powers ``(x as f64).powi(e)``."""

    def _print_lego_arange(self, expr: Any) -> str:
        start, stop = expr.args
        return f"({self._print(start)}..{self._print(stop)})"

    def _print_Pow(self, expr: Any) -> str:
        base, exp = expr.args
        b = self._print(base)
        if exp == 2:
            return f"({b} * {b})"
        if exp == -1:
            return f"(1.0 / {b})"
        if exp == sympy.Rational(1, 2):
            return f"({b} as f64).sqrt()"
        return f"({b} as f64).powi({self._print(exp)})"


class LEGOCXXCodePrinter(LEGOStaticLangMixin, CXX17CodePrinter):
    """C++17: ``std::views::iota(s, e)``; powers through ``std::sqrt`` / ``std::cbrt`` / ``std::pow`` of a
    ``double``."""

    def _print_lego_arange(self, expr: Any) -> str:
        start, stop = expr.args
        return f"std::views::iota({self._print(start)}, {self._print(stop)})"

    def _print_Pow(self, expr: Any) -> str:
        base, exp = expr.args
        b = self.parenthesize(base, 50)
        if exp == 2:
            return f"{b} * {b}"
        if exp == -1:
            return f"1.0 / {b}"
        if exp == sympy.Rational(1, 2):
            return f"std::sqrt(static_cast<double>({self._print(base)}))"
        if exp == sympy.Rational(1, 3):
            return f"std::cbrt(static_cast<double>({self._print(base)}))"
        return f"std::pow(static_cast<double>({self._print(base)}), {self._print(exp)})"


class LEGOCCodePrinter(C99CodePrinter):
    """C99: ``floor(a/b)`` → ``((a)/(b))`` (integer division), ``Mod`` as SymPy prints it; powers ``x*x``,
    ``1.0/x``, ``sqrt``, ``cbrt``, ``pow``."""

    def _print_floor(self, expr: Any) -> str:
        a, b = _quotient(expr)
        if b == 1:
            return self._print(expr.args[0])
        return f"(({self._print(a)})/({self._print(b)}))"

    def _print_Mod(self, expr: Any) -> str:
        # SymPy's C99 form (floored, for operands of unknown sign) without its enclosing parentheses is wrong
        # inside a product: SymPy prints -6*Mod(i, 2) as "-6*((i % 2) + 2) % 2", which C reads as
        # ((-6*((i % 2) + 2)) % 2). The published printer inherits that; here the form is parenthesized.
        return f"({super()._print_Mod(expr)})"

    def _print_Pow(self, expr: Any) -> str:
        base, exp = expr.args
        b = self.parenthesize(base, 50)
        if exp == 2:
            return f"{b}*{b}"
        if exp == -1:
            return f"1.0/{b}"
        if exp == sympy.Rational(1, 2):
            return f"sqrt({self._print(base)})"
        if exp == sympy.Rational(1, 3):
            return f"cbrt({self._print(base)})"
        return f"pow({self._print(base)}, {self._print(exp)})"


    # Not in the published printer (its table has no entry): a range as the CUDA C printer writes it rather
    # than SymPy's "unsupported" error.
    def _print_lego_arange(self, expr: Any) -> str:
        start, stop = expr.args
        return f"/* arange({self._print(start)}, {self._print(stop)}) */"

    def _print_BroadcastRange(self, expr: Any) -> str:
        return f"({self._print(expr.args[0])})"


class LEGOCUDACCodePrinter(LEGOCCodePrinter):
    """CUDA C (the C printer): ``((a) % (b))``, ``/* arange(s, e) */`` (a range has no CUDA C value),
    ``(inner)``."""

    def _print_Mod(self, expr: Any) -> str:
        a, b = expr.args
        return f"(({self._print(a)}) % ({self._print(b)}))"


class LEGOFortranCodePrinter(LEGOStaticLangMixin, FCodePrinter):
    """Fortran (standard 95 by default, free form): ``mod(a, b)``, the implied-do array
    ``(/ (i, i = s, e-1) /)``; ``(x**2)``, ``sqrt(dble(x))``, ``((x)**(e))``."""

    def __init__(self, settings: Any = None) -> None:
        settings = dict(settings or {})
        settings.setdefault("source_format", "free")
        super().__init__(settings)

    def _format_code(self, lines: Any) -> Any:
        # An expression for a generated line: no Fortran line continuation (the generator's output is Python
        # source with the expression in it).
        return lines

    def _print_Mod(self, expr: Any) -> str:
        a, b = expr.args
        return f"mod({self._print(a)}, {self._print(b)})"

    def _print_lego_arange(self, expr: Any) -> str:
        start, stop = expr.args
        return f"(/ (i, i = {self._print(start)}, {self._print(stop - 1)}) /)"

    def _print_Pow(self, expr: Any) -> str:
        base, exp = expr.args
        if exp == 2:
            return f"({self._print(base)}**2)"
        if exp == sympy.Rational(1, 2):
            return f"sqrt(dble({self._print(base)}))"
        return f"(({self._print(base)})**({self._print(exp)}))"


class LEGOJuliaCodePrinter(LEGOStaticLangMixin, JuliaCodePrinter):
    """Julia: ``div(a, b)``, ``mod(a, b)``, ranges ``(s:e-1)``."""

    def _print_floor(self, expr: Any) -> str:
        a, b = _quotient(expr)
        if b == 1:
            return self._print(expr.args[0])
        return f"div({self._print(a)}, {self._print(b)})"

    def _print_Mod(self, expr: Any) -> str:
        a, b = expr.args
        return f"mod({self._print(a)}, {self._print(b)})"

    def _print_lego_arange(self, expr: Any) -> str:
        start, stop = expr.args
        return f"({self._print(start)}:{self._print(stop - 1)})"


class LEGOJSCodePrinter(LEGOStaticLangMixin, JavascriptCodePrinter):
    """JavaScript (Number): ``Math.floor((a) / (b))``, ``((a) % (b))``, a range as
    ``Array.from({length: e - s}, (_, i) => i + s)``."""

    def _print_floor(self, expr: Any) -> str:
        a, b = _quotient(expr)
        if b == 1:
            return self._print(expr.args[0])
        return f"Math.floor(({self._print(a)}) / ({self._print(b)}))"

    def _print_lego_arange(self, expr: Any) -> str:
        start, stop = expr.args
        return f"Array.from({{length: {self._print(stop)} - {self._print(start)}}}, (_, i) => i + {self._print(start)})"


class LEGOGLSLCodePrinter(LEGOStaticLangMixin, GLSLPrinter):
    """GLSL: ``((a) / (b))``, ``((a) % (b))`` (unsigned integer division), ``/* arange(s, e) */``."""
