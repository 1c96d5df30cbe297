"""The published module path of the adapters (the published API, §3.1 and §4.2): ``DSLAdapter`` and the unwrap
helpers live in :mod:`lego.jit._adapter`, ``SourceGenAdapter`` / ``source_generate`` in
:mod:`lego.frontends._sourcegen`."""

from ..jit._adapter import (DSLAdapter, try_fn_chain_unwrap, try_py_func_unwrap, try_wrapped_unwrap,
                            walk_to_source_fn, write_and_exec_temp_file)
from ._sourcegen import SourceGenAdapter, source_generate

__all__ = ["DSLAdapter", "SourceGenAdapter", "source_generate", "try_fn_chain_unwrap", "try_py_func_unwrap",
           "try_wrapped_unwrap", "walk_to_source_fn", "write_and_exec_temp_file"]
