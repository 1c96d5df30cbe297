"""cuTile frontend (the published API's §4.4): above ``@ct.kernel`` (``cuda.tile``). The source path
(``get_cutile_kernel_source``, ``cutile_jit(..., return_source=True)``) needs no package; compiling needs
NVIDIA's ``cuda-tile`` package and a GPU (not installed in this repository's test environment)."""

from __future__ import annotations

import ast
from typing import Any, List, Set, Tuple

from ._adapter import (DSLAdapter, try_fn_chain_unwrap, try_py_func_unwrap, try_wrapped_unwrap, walk_to_source_fn,
                       write_and_exec_temp_file)
from .printers import CutileCodePrinter
from .rewriter import rewrite

_MEMORY_OPS = {"load", "store", "gather", "scatter", "atomic_add", "atomic_cas", "atomic_xchg"}


class CutileAdapter(DSLAdapter):
    def unwrap(self, fn: Any) -> Tuple[Any, Any, List[Any]]:
        if getattr(fn, "_pyfunc", None) is not None:
            inner, wrappers = fn._pyfunc, [fn]
        else:
            inner, wrappers = try_fn_chain_unwrap(fn)
            if not wrappers:
                inner, wrappers = try_py_func_unwrap(fn)
            if not wrappers:
                inner, wrappers = try_wrapped_unwrap(fn)
        return walk_to_source_fn(inner), inner, wrappers

    def find_runtime_vars(self, func_def: ast.FunctionDef) -> Set[str]:
        names: Set[str] = set()
        for node in ast.walk(func_def):
            if isinstance(node, ast.Call):
                func = node.func
                name = (func.attr if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                        and func.value.id == "ct" else func.id if isinstance(func, ast.Name) else None)
                if name in _MEMORY_OPS and node.args and isinstance(node.args[0], ast.Name):
                    names.add(node.args[0].id)
        return names

    def get_code_printer(self) -> Any:
        return CutileCodePrinter()

    def compile_and_wrap(self, new_source: str, tree: ast.Module, original_fn: Any, wrappers: List[Any],
                         return_source: bool) -> Any:
        if return_source:
            return new_source
        _, fn = write_and_exec_temp_file(new_source, tree, original_fn)
        if wrappers:
            try:
                import cuda.tile as ct
            except ImportError as error:
                raise RuntimeError("cutile_jit: compiling needs NVIDIA's cuda-tile package (cuda.tile); "
                                   "get_cutile_kernel_source works without it") from error
            for _ in wrappers:
                fn = ct.kernel(fn)
        return fn


def cutile_jit(fn: Any = None, **kwargs: Any) -> Any:
    if fn is None:
        return lambda f: cutile_jit(f, **kwargs)
    return rewrite(fn, CutileAdapter(), **kwargs)


def get_cutile_kernel_source(fn: Any) -> str:
    return cutile_jit(fn, return_source=True)


jit = cutile_jit
