"""The Python-family printers (the published API's module path; they live in lego.jit.printers)."""

from .jit.printers import (CutileCodePrinter, JAXCodePrinter, LEGOPythonCodePrinter, NumbaCUDACodePrinter,
                          TritonCodePrinter)

__all__ = ["LEGOPythonCodePrinter", "TritonCodePrinter", "NumbaCUDACodePrinter", "JAXCodePrinter", "CutileCodePrinter"]
