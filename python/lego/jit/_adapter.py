"""``DSLAdapter`` (the published API's §4.2) and the helpers every JIT frontend shares."""

from __future__ import annotations

import abc
import ast
import atexit
import os
import tempfile
from typing import Any, Callable, Dict, List, Optional, Set, Tuple


class DSLAdapter(abc.ABC):
    """What a DSL tells the rewriter (``lego.jit.rewriter.rewrite``). Abstract: subclass it."""

    @abc.abstractmethod
    def unwrap(self, fn: Any) -> Tuple[Callable, Any, List[Any]]:
        """``(source_fn, original_fn, wrappers)``: the plain function under the DSL's decorator objects."""

    @abc.abstractmethod
    def find_runtime_vars(self, func_def: ast.FunctionDef) -> Set[str]:
        """Names that must not be evaluated at decoration time (device pointers, tensors)."""

    @abc.abstractmethod
    def get_code_printer(self) -> Any:
        """The SymPy printer rendering expressions in the DSL."""

    @abc.abstractmethod
    def compile_and_wrap(self, new_source: str, tree: ast.Module, original_fn: Any, wrappers: List[Any],
                         return_source: bool) -> Any:
        """The source (``return_source``) or the recompiled, re-decorated kernel."""

    def transform_assignment(self, stmt: ast.Assign, env: Dict[str, Any], printer: Any) -> Optional[Tuple[Any, Dict[str, Any]]]:
        return None

    def transform_for_loop(self, for_stmt: ast.For, body: List[ast.stmt], env: Dict[str, Any],
                           printer: Any) -> Optional[Tuple[List[ast.stmt], List[ast.stmt]]]:
        return None

    def post_process_body(self, func_def: ast.FunctionDef) -> None:
        return None

    def get_rewriter_options(self) -> Dict[str, Any]:
        return {}


def try_fn_chain_unwrap(f: Any) -> Tuple[Any, List[Any]]:
    """Follows ``.fn`` (Triton's Autotuner → JITFunction → function): ``(innermost, [outer, outer.fn, …])``."""
    wrappers: List[Any] = []
    while hasattr(f, "fn") and not isinstance(f, type):
        wrappers.append(f)
        f = f.fn
    return f, wrappers


def try_py_func_unwrap(f: Any) -> Tuple[Any, List[Any]]:
    inner = getattr(f, "py_func", None)
    return (inner, [f]) if inner is not None else (f, [])


def try_wrapped_unwrap(f: Any) -> Tuple[Any, List[Any]]:
    inner = getattr(f, "__wrapped__", None)
    return (inner, [f]) if inner is not None else (f, [])


def walk_to_source_fn(f: Any) -> Any:
    while getattr(f, "src_fn", None) is not None and f.src_fn is not f:
        f = f.src_fn
    return f


def temp_dir() -> str:
    path = os.environ.get("LEGO_TEMP_DIR") or os.path.join(tempfile.gettempdir(), "lego_kernels")
    os.makedirs(path, exist_ok=True)
    return path


_FILES_TO_REMOVE: List[str] = []


@atexit.register
def _remove_files() -> None:
    if os.environ.get("LEGO_SAVE_KERNEL"):
        return
    for path in _FILES_TO_REMOVE:
        try:
            os.remove(path)
        except OSError:
            pass


def write_and_exec_temp_file(new_source: str, tree: ast.Module, original_fn: Any,
                             return_source: bool = False) -> Tuple[Any, Any]:
    """Writes the kernel to ``$LEGO_TEMP_DIR/<name>_<id>.py`` (DSLs such as Triton read their kernels' source
    from a file) and executes it there; ``return_source``: ``(source, None)``. The file goes at exit unless
    ``LEGO_SAVE_KERNEL``."""
    name = getattr(original_fn, "__name__", "kernel")
    path = os.path.join(temp_dir(), f"{name}_{id(tree):x}.py")
    with open(path, "w") as handle:
        handle.write(new_source)
    if return_source:
        if not os.environ.get("LEGO_SAVE_KERNEL"):
            os.remove(path)
        return new_source, None
    _FILES_TO_REMOVE.append(path)
    namespace = dict(getattr(original_fn, "__globals__", {}))
    code = compile(new_source, path, "exec")
    exec(code, namespace)
    return namespace, namespace[name]
