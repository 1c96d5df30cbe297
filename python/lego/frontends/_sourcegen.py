"""The source generators' shared adapter (the published API, §3.1): ``SourceGenAdapter(printer)`` and
``source_generate(fn, printer)``. A generator rewrites a plain Python function with the JIT rewriter
(``lego.jit.rewriter.rewrite``): layout assignments vanish and every index expression is printed in the target
language's expression syntax; the result is the rewritten function's **Python** source (nothing is executed or
compiled). For whole compilable functions of a layout, see :func:`lego.translate`."""

from __future__ import annotations

import ast
import re
from typing import Any, Callable, Dict, List, Set, Tuple

from ..jit._adapter import DSLAdapter
from ..jit.rewriter import rewrite

__all__ = ["SourceGenAdapter", "source_generate"]


_ATOM = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|-?[0-9]+")


class _Deferred:
    """Wraps a target-language printer for the rewriter, which keeps the function as a Python AST: a printed
    expression that is no Python atom (Rust's ``(0..BM)``, C++'s ``std::views::iota``) becomes a placeholder
    name, and :meth:`SourceGenAdapter.compile_and_wrap` puts the text back into the final source."""

    def __init__(self, printer: Any) -> None:
        self.printer = printer
        self.texts: Dict[str, str] = {}

    def doprint(self, expr: Any, *args: Any, **kwargs: Any) -> str:
        text = self.printer.doprint(expr, *args, **kwargs)
        if _ATOM.fullmatch(text):
            return text
        key = f"_lego_source_{len(self.texts)}_"
        self.texts[key] = text
        return key

    def __getattr__(self, name: str) -> Any:
        return getattr(self.printer, name)


class SourceGenAdapter(DSLAdapter):
    """A DSL adapter for source generation: identity unwrap, no runtime variables, ``printer`` (a printer
    class or instance), and the source text returned unchanged (but for the printed expressions)."""

    def __init__(self, printer: Any) -> None:
        self.printer = printer
        self._deferred: List[_Deferred] = []

    def unwrap(self, fn: Any) -> Tuple[Callable, Any, List[Any]]:
        return fn, fn, []

    def find_runtime_vars(self, func_def: ast.FunctionDef) -> Set[str]:
        return set()

    def get_code_printer(self) -> Any:
        deferred = _Deferred(self.printer() if isinstance(self.printer, type) else self.printer)
        self._deferred.append(deferred)
        return deferred

    def compile_and_wrap(self, new_source: str, tree: ast.Module, original_fn: Any, wrappers: List[Any],
                         return_source: bool) -> str:
        texts = {key: text for deferred in self._deferred for key, text in deferred.texts.items()}
        if not texts:
            return new_source
        placeholder = re.compile(r"_lego_source_[0-9]+_")
        lines = []
        for line in new_source.split("\n"):
            # The whole value of an assignment or return needs no parentheses; inside an expression it does.
            whole = re.fullmatch(r"(\s*(?:[A-Za-z_][\w, ]*=|return) )(_lego_source_[0-9]+_)", line)
            if whole and whole.group(2) in texts:
                line = whole.group(1) + texts[whole.group(2)]
            else:
                line = placeholder.sub(lambda m: f"({texts[m.group(0)]})" if m.group(0) in texts else m.group(0), line)
            lines.append(line)
        return "\n".join(lines)


def source_generate(fn: Any, printer: Any, **kwargs: Any) -> str:
    """The rewritten Python source of ``fn`` with index expressions printed by ``printer``."""
    kwargs["return_source"] = True
    return rewrite(fn, SourceGenAdapter(printer), **kwargs)
