"""The glsl printer of the source generators (the published API's module path; lego._printer_base)."""

from ._printer_base import LEGOGLSLCodePrinter

__all__ = ['LEGOGLSLCodePrinter']
