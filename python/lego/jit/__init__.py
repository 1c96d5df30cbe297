"""JIT frontends and kernel builders (docs/python.md, "JIT frontends" and "Kernel builders").

* ``lego.jit`` (Triton), ``lego.jit.numba_jit``, ``lego.jit.jax_jit``, ``lego.jit.cutile_jit``: kernels whose
  index arithmetic is written with layouts, rewritten into plain DSL code at decoration time.
* ``lego.compile``, ``KernelBuilder``, ``compile_all``: GPU/CPU kernels built from Python through lego-rs's
  pipelines (``lego.jit.builders``).
"""

from ._adapter import DSLAdapter, write_and_exec_temp_file
from .cutile_jit import CutileAdapter, cutile_jit, get_cutile_kernel_source
from .rewriter import rewrite
from .triton_jit import BlockPtrInfo, TritonAdapter, extract_block_ptr_metadata, get_kernel_source
from .triton_jit import jit as _triton_jit


import sys as _sys
import types as _types


class _CallableModule(_types.ModuleType):
    """``lego.jit`` is this package and, called, the Triton decorator: ``@lego.jit``,
    ``@lego.jit(use_block_ptr=True)``, while ``lego.jit.numba_jit`` etc. stay reachable."""

    def __call__(self, fn=None, use_block_ptr=False, **kwargs):
        return _triton_jit(fn, use_block_ptr=use_block_ptr, **kwargs)


_sys.modules[__name__].__class__ = _CallableModule
jit = _triton_jit

__all__ = ["DSLAdapter", "write_and_exec_temp_file", "rewrite", "jit", "get_kernel_source", "TritonAdapter",
           "BlockPtrInfo", "extract_block_ptr_metadata", "cutile_jit", "get_cutile_kernel_source", "CutileAdapter"]


def __getattr__(name):
    if name in ("numba_jit", "jax_jit", "builders"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
