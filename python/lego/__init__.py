"""lego: the LEGO layout algebra on the lego-rs compiler (docs/python.md).

Layouts built from ``Row, Col, RegP, GenP, OrderBy, GroupBy, TileBy`` are evaluated by lego-rs in-process:
the layout becomes lego IR, ``lego-lower`` turns it into simplified index arithmetic, and the result comes back
as SymPy expressions.
"""

import sys as _sys

from . import core
from ._lego import LegoError, __version__
from .core import *  # noqa: F401,F403 (the published package star-exports lego.core)
from .core import __all__ as _core_all
from ._translate import translate
from .frontends import cuda_c_gen, cxx_gen, fortran_gen, glsl_gen, js_gen, julia_gen, rust_gen  # the source generators (§3)
from .frontends.python_mlir import col, gen_p, group_by, order_by, reg_p, row, tile_by
from .frontends.python_mlir import (Batched, BatchedLayout, BlockCyclic, ColMajor, Custom, LegoArray, LegoLayout,
                                    RowMajor, Swizzle, Tiled, TiledPermute, TiledView, Transposed, ZCurve)
from . import autotune
from . import jit  # noqa: E402 (the JIT frontends: lego.jit is callable, docs/python.md)
from .jit import cutile_jit, get_cutile_kernel_source, get_kernel_source  # noqa: E402
from .jit.builders import CompileResult, DType, GPUTarget, KernelBuilder, LayoutBuffer, compile, compile_all  # noqa: E402,A001

__all__ = list(_core_all) + ["core", "__version__", "row", "col", "reg_p", "order_by", "tile_by", "group_by",
                              "gen_p", "LegoLayout", "RowMajor", "ColMajor", "Transposed", "TiledPermute", "Tiled",
                              "TiledView", "Custom", "ZCurve", "Swizzle", "BlockCyclic", "Batched", "BatchedLayout",
                              "LegoArray", "autotune", "DType", "translate", "rust_gen", "cxx_gen", "fortran_gen",
                              "julia_gen", "cuda_c_gen", "js_gen", "glsl_gen"]

# lego.torch (annotate, rearrange, LegoTensor; the published API, §0 rev B): imported with lego when torch already
# is, else on first use of these names (module __getattr__), so `import lego` does not import torch.
_TORCH_NAMES = ("annotate", "rearrange", "LegoTensor", "as_lego_tensor")
if "torch" in _sys.modules:
    from .torch import LegoTensor, annotate, as_lego_tensor, rearrange  # noqa: E402


def __getattr__(name):
    if name in _TORCH_NAMES:
        from . import torch as _lego_torch

        return getattr(_lego_torch, name)
    raise AttributeError(f"module 'lego' has no attribute {name!r}")
