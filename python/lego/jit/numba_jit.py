"""Numba CUDA frontend (the published API's §4.4): ``@lego.jit.numba_jit.jit`` above ``@cuda.jit``."""

from __future__ import annotations

import ast
from typing import Any, List, Set, Tuple

from ._adapter import DSLAdapter, try_py_func_unwrap
from .printers import NumbaCUDACodePrinter
from .rewriter import rewrite


class NumbaCUDAAdapter(DSLAdapter):
    def unwrap(self, fn: Any) -> Tuple[Any, Any, List[Any]]:
        inner, wrappers = try_py_func_unwrap(fn)
        return inner, inner, wrappers

    def find_runtime_vars(self, func_def: ast.FunctionDef) -> Set[str]:
        return set()

    def get_code_printer(self) -> Any:
        return NumbaCUDACodePrinter()

    def compile_and_wrap(self, new_source: str, tree: ast.Module, original_fn: Any, wrappers: List[Any],
                         return_source: bool) -> Any:
        if return_source:
            return new_source
        namespace = dict(original_fn.__globals__)
        # Numba reads a kernel's source only for error messages: an in-memory file name is enough.
        exec(compile(tree, "<lego-numba>", "exec"), namespace)
        fn = namespace[original_fn.__name__]
        if wrappers:
            from numba import cuda

            fn = cuda.jit(fn)
        return fn


def jit(fn: Any = None, **kwargs: Any) -> Any:
    if fn is None:
        return lambda f: jit(f, **kwargs)
    return rewrite(fn, NumbaCUDAAdapter(), **kwargs)


def get_kernel_source(fn: Any) -> str:
    return jit(fn, return_source=True)
