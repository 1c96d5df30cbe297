"""Fortran source generator (the published API, §3): ``generate(fn)`` returns ``fn``'s Python source with its
layouts evaluated away and every index expression printed in Fortran syntax (lego._printer_base.LEGOFortranCodePrinter)."""

from __future__ import annotations

from typing import Any

from .._printer_base import LEGOFortranCodePrinter
from ._sourcegen import SourceGenAdapter, source_generate

__all__ = ["FortranAdapter", "generate"]


def FortranAdapter() -> SourceGenAdapter:
    """The Fortran adapter (a ``DSLAdapter``)."""
    return SourceGenAdapter(LEGOFortranCodePrinter)


def generate(fn: Any, **kwargs: Any) -> str:
    return source_generate(fn, LEGOFortranCodePrinter, **kwargs)
