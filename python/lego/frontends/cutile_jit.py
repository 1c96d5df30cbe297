"""The published module path of the cutile_jit frontend: the same module as lego.jit.cutile_jit."""

import sys

from ..jit import cutile_jit as _module

sys.modules[__name__] = _module
