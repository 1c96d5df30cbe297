"""CUDA C source generator (the published API, §3): ``generate(fn)`` returns ``fn``'s Python source with its
layouts evaluated away and every index expression printed in CUDA C syntax (lego._printer_base.LEGOCUDACCodePrinter)."""

from __future__ import annotations

from typing import Any

from .._printer_base import LEGOCUDACCodePrinter
from ._sourcegen import SourceGenAdapter, source_generate

__all__ = ["CUDACAdapter", "generate"]


def CUDACAdapter() -> SourceGenAdapter:
    """The CUDA C adapter (a ``DSLAdapter``)."""
    return SourceGenAdapter(LEGOCUDACCodePrinter)


def generate(fn: Any, **kwargs: Any) -> str:
    return source_generate(fn, LEGOCUDACCodePrinter, **kwargs)
