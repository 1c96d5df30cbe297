"""JAX frontend (the published API's §4.4): above ``@jax.jit`` or ``functools.partial(jax.jit, static_argnums=…)``;
the static/donated arguments of the wrapper are kept."""

from __future__ import annotations

import ast
from typing import Any, Dict, List, Set, Tuple

from ._adapter import DSLAdapter, try_wrapped_unwrap
from .printers import JAXCodePrinter
from .rewriter import rewrite


def _jit_options(wrapper: Any) -> Dict[str, Any]:
    info = getattr(wrapper, "_jit_info", None)
    if info is None:
        return {}
    options: Dict[str, Any] = {}
    for name in ("static_argnums", "static_argnames", "donate_argnums"):
        value = getattr(info, name, None)
        if value:
            options[name] = tuple(value)
    return options


class JAXAdapter(DSLAdapter):
    def unwrap(self, fn: Any) -> Tuple[Any, Any, List[Any]]:
        inner, wrappers = try_wrapped_unwrap(fn)
        return inner, inner, wrappers

    def find_runtime_vars(self, func_def: ast.FunctionDef) -> Set[str]:
        return set()

    def get_code_printer(self) -> Any:
        return JAXCodePrinter()

    def compile_and_wrap(self, new_source: str, tree: ast.Module, original_fn: Any, wrappers: List[Any],
                         return_source: bool) -> Any:
        if return_source:
            return new_source
        namespace = dict(original_fn.__globals__)
        exec(compile(tree, "<lego-jax>", "exec"), namespace)
        fn = namespace[original_fn.__name__]
        if wrappers:
            import jax

            fn = jax.jit(fn, **_jit_options(wrappers[0]))
        return fn


def jit(fn: Any = None, **kwargs: Any) -> Any:
    if fn is None:
        return lambda f: jit(f, **kwargs)
    return rewrite(fn, JAXAdapter(), **kwargs)


def get_kernel_source(fn: Any) -> str:
    return jit(fn, return_source=True)
