"""The published module path of the numba_jit frontend: the same module as lego.jit.numba_jit."""

import sys

from ..jit import numba_jit as _module

sys.modules[__name__] = _module
