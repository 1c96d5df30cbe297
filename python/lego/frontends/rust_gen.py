"""Rust source generator (the published API, §3): ``generate(fn)`` returns ``fn``'s Python source with its
layouts evaluated away and every index expression printed in Rust syntax (lego._printer_base.LEGORustCodePrinter)."""

from __future__ import annotations

from typing import Any

from .._printer_base import LEGORustCodePrinter
from ._sourcegen import SourceGenAdapter, source_generate

__all__ = ["RustAdapter", "generate"]


def RustAdapter() -> SourceGenAdapter:
    """The Rust adapter (a ``DSLAdapter``)."""
    return SourceGenAdapter(LEGORustCodePrinter)


def generate(fn: Any, **kwargs: Any) -> str:
    return source_generate(fn, LEGORustCodePrinter, **kwargs)
