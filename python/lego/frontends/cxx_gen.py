"""C++17 source generator (the published API, §3): ``generate(fn)`` returns ``fn``'s Python source with its
layouts evaluated away and every index expression printed in C++17 syntax (lego._printer_base.LEGOCXXCodePrinter)."""

from __future__ import annotations

from typing import Any

from .._printer_base import LEGOCXXCodePrinter
from ._sourcegen import SourceGenAdapter, source_generate

__all__ = ["CXXAdapter", "generate"]


def CXXAdapter() -> SourceGenAdapter:
    """The C++17 adapter (a ``DSLAdapter``)."""
    return SourceGenAdapter(LEGOCXXCodePrinter)


def generate(fn: Any, **kwargs: Any) -> str:
    return source_generate(fn, LEGOCXXCodePrinter, **kwargs)
