"""GLSL source generator (the published API, §3): ``generate(fn)`` returns ``fn``'s Python source with its
layouts evaluated away and every index expression printed in GLSL syntax (lego._printer_base.LEGOGLSLCodePrinter)."""

from __future__ import annotations

from typing import Any

from .._printer_base import LEGOGLSLCodePrinter
from ._sourcegen import SourceGenAdapter, source_generate

__all__ = ["GLSLAdapter", "generate"]


def GLSLAdapter() -> SourceGenAdapter:
    """The GLSL adapter (a ``DSLAdapter``)."""
    return SourceGenAdapter(LEGOGLSLCodePrinter)


def generate(fn: Any, **kwargs: Any) -> str:
    return source_generate(fn, LEGOGLSLCodePrinter, **kwargs)
