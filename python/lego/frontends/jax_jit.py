"""The published module path of the jax_jit frontend: the same module as lego.jit.jax_jit."""

import sys

from ..jit import jax_jit as _module

sys.modules[__name__] = _module
