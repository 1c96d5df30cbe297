"""The rust printer of the source generators (the published API's module path; lego._printer_base)."""

from ._printer_base import LEGORustCodePrinter

__all__ = ['LEGORustCodePrinter']
