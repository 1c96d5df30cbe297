"""The published module path of the triton_jit frontend: the same module as lego.jit.triton_jit."""

import sys

from ..jit import triton_jit as _module

sys.modules[__name__] = _module
