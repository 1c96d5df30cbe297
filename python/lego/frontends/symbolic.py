"""Pure symbolic use (the published API, §0): the core classes and ``simplify_via_mlir``."""

from ..backend.symbolic import simplify_via_mlir
from ..core import *  # noqa: F401,F403
from ..core import __all__ as _core_all

__all__ = list(_core_all) + ["simplify_via_mlir"]
