"""JavaScript source generator (the published API, §3): ``generate(fn)`` returns ``fn``'s Python source with its
layouts evaluated away and every index expression printed in JavaScript syntax (lego._printer_base.LEGOJSCodePrinter)."""

from __future__ import annotations

from typing import Any

from .._printer_base import LEGOJSCodePrinter
from ._sourcegen import SourceGenAdapter, source_generate

__all__ = ["JSAdapter", "generate"]


def JSAdapter() -> SourceGenAdapter:
    """The JavaScript adapter (a ``DSLAdapter``)."""
    return SourceGenAdapter(LEGOJSCodePrinter)


def generate(fn: Any, **kwargs: Any) -> str:
    return source_generate(fn, LEGOJSCodePrinter, **kwargs)
