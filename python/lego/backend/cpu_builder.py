"""The published module path lego.backend.cpu_builder: the same module as lego.jit.builders (docs/python.md)."""

import sys

from ..jit import builders as _module

sys.modules[__name__] = _module
