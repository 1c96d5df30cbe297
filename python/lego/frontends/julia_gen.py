"""Julia source generator (the published API, §3): ``generate(fn)`` returns ``fn``'s Python source with its
layouts evaluated away and every index expression printed in Julia syntax (lego._printer_base.LEGOJuliaCodePrinter)."""

from __future__ import annotations

from typing import Any

from .._printer_base import LEGOJuliaCodePrinter
from ._sourcegen import SourceGenAdapter, source_generate

__all__ = ["JuliaAdapter", "generate"]


def JuliaAdapter() -> SourceGenAdapter:
    """The Julia adapter (a ``DSLAdapter``)."""
    return SourceGenAdapter(LEGOJuliaCodePrinter)


def generate(fn: Any, **kwargs: Any) -> str:
    return source_generate(fn, LEGOJuliaCodePrinter, **kwargs)
