"""The published module path lego.backend.naga: the same module as lego.jit.builders (docs/python.md)."""

import sys

from ..jit import builders as _module

sys.modules[__name__] = _module
