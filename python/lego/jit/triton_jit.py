"""Triton frontend (the published API's §4.3): ``@lego.jit`` above ``@triton.jit`` (and ``@triton.autotune``).

``use_block_ptr=True`` turns ``v = ptr + L[tile indices, :, :]`` over a two-level TileBy whose inner layout is
linear into ``tl.make_block_ptr``; inside ``for k in range(s, …)`` such a pointer is created once before the loop
and moved by ``tl.advance`` at the end of each iteration; loads and stores of it get ``boundary_check`` instead
of ``mask``."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Set, Tuple

import sympy

from ..core import OrderBy, TileByLayout
from ._adapter import DSLAdapter, try_fn_chain_unwrap, walk_to_source_fn, write_and_exec_temp_file
from .printers import TritonCodePrinter
from .rewriter import _parse_expr, _symbol, rewrite

_MEMORY_OPS = {"load", "store", "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor",
               "atomic_xchg", "atomic_cas"}
_PRIMES = [101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167, 173, 179, 181, 191, 193, 197]


@dataclass
class BlockPtrInfo:
    shape: Tuple[Any, ...]
    strides: Tuple[Any, ...]
    offsets: Tuple[Any, ...]
    block_shape: Tuple[Any, ...]
    order: Tuple[int, ...]
    boundary_dims: Tuple[int, ...]


def _called_name(call: ast.Call) -> Optional[str]:
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "tl":
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _is_linear(expr: Any, indices: List[sympy.Symbol]) -> Optional[List[Any]]:
    """The coefficient of each index when ``expr`` is ``Σ c_k·i_k`` (no constant, no index inside floor/Mod)."""
    expanded = sympy.expand(expr)
    coefficients = []
    rest = expanded
    for index in indices:
        c = expanded.coeff(index, 1)
        if c == 0 or c.free_symbols & set(indices):
            return None
        coefficients.append(c)
        rest = rest - c * index
    if sympy.simplify(rest) != 0:
        return None
    return coefficients


def extract_block_ptr_metadata(L: Any, subscripts: Any, env: Optional[Dict[str, Any]] = None) -> Optional[BlockPtrInfo]:
    """The block-pointer description of ``L[subscripts]``, or ``None`` when the rules of §4.3 do not hold."""
    if not isinstance(L, TileByLayout) or len(L._tile_groups) != 2:
        return None
    items = list(subscripts) if isinstance(subscripts, (tuple, list)) else [subscripts]
    grid, block = L._tile_groups
    d = len(grid)
    if len(block) != d or len(items) != 2 * d:
        return None
    tile_items, range_items = items[:d], items[d:]
    if any(isinstance(i, slice) for i in tile_items) or not all(
            isinstance(i, slice) and i.start is None and i.stop is None for i in range_items):
        return None
    perms = [perm for element in L._input_chain for perm in element.perms]
    if len(perms) != 1:
        return None  # several perms side by side: not one strided array
    inner = OrderBy(*perms)
    shape = tuple(sympy.sympify(s) for s in inner.dims())
    if len(shape) != d:
        return None
    indices = [sympy.Symbol(f"_lego_bp{k}", integer=True, nonnegative=True) for k in range(d)]
    try:
        expr = inner.apply(*indices)
    except Exception:
        return None
    strides = _is_linear(expr, indices)
    if strides is None:
        return None
    free = sorted(set().union(*[sympy.sympify(s).free_symbols for s in strides]), key=lambda s: s.name)
    substitution = {symbol: _PRIMES[k % len(_PRIMES)] for k, symbol in enumerate(free)}
    weights = [int(sympy.sympify(s).subs(substitution)) for s in strides]
    order = tuple(sorted(range(d), key=lambda k: (weights[k], -k)))
    block_shape = tuple(sympy.sympify(b) for b in block)
    offsets = tuple(sympy.sympify(t) * b for t, b in zip(tile_items, block_shape))
    boundary = tuple(k for k in range(d)
                     if sympy.simplify(sympy.sympify(grid[k]) * block_shape[k] - shape[k]) != 0)
    return BlockPtrInfo(shape, tuple(strides), offsets, block_shape, order, boundary)


def _tuple_text(values: Any, printer: Any) -> str:
    texts = [printer.doprint(v) if not isinstance(v, int) else str(v) for v in values]
    return "(" + ", ".join(texts) + ("," if len(texts) == 1 else "") + ")"


class TritonAdapter(DSLAdapter):
    def __init__(self, use_block_ptr: Any = False) -> None:
        self.use_block_ptr = use_block_ptr
        self.block_ptrs: Dict[str, BlockPtrInfo] = {}

    def unwrap(self, fn: Any) -> Tuple[Any, Any, List[Any]]:
        inner, wrappers = try_fn_chain_unwrap(fn)
        return walk_to_source_fn(inner), inner, wrappers

    def find_runtime_vars(self, func_def: ast.FunctionDef) -> Set[str]:
        names: Set[str] = set()
        for node in ast.walk(func_def):
            if isinstance(node, ast.Call) and _called_name(node) in _MEMORY_OPS:
                if node.args and isinstance(node.args[0], ast.Name):
                    names.add(node.args[0].id)
        return names

    def get_code_printer(self) -> Any:
        return TritonCodePrinter()

    # Block pointers.
    def transform_assignment(self, stmt: ast.Assign, env: Dict[str, Any], printer: Any) -> Any:
        if not self.use_block_ptr:
            return None
        target = stmt.targets[0]
        value = stmt.value
        if not isinstance(target, ast.Name) or not isinstance(value, ast.BinOp) or not isinstance(value.op, ast.Add):
            return None
        for ptr, sub in ((value.left, value.right), (value.right, value.left)):
            if not isinstance(sub, ast.Subscript):
                continue
            try:
                layout = eval(compile(ast.Expression(sub.value), "<lego-rewrite>", "eval"), env)
                key = eval(compile(ast.Expression(sub.slice), "<lego-rewrite>", "eval"), env)
            except Exception:
                continue
            if isinstance(key, slice) or not isinstance(key, tuple):
                key = (key,)
            info = extract_block_ptr_metadata(layout, key, env)
            if info is None:
                continue
            text = (f"tl.make_block_ptr(base={ast.unparse(ptr)}, shape={_tuple_text(info.shape, printer)}, "
                    f"strides={_tuple_text(info.strides, printer)}, offsets={_tuple_text(info.offsets, printer)}, "
                    f"block_shape={_tuple_text(info.block_shape, printer)}, order={_tuple_text(info.order, printer)})")
            node = ast.copy_location(ast.Assign(targets=[ast.Name(target.id, ast.Store())], value=_parse_expr(text)), stmt)
            node._lego_block_ptr = info  # type: ignore[attr-defined]
            self.block_ptrs[target.id] = info
            return node, {target.id: _symbol(target.id)}
        return None

    def transform_for_loop(self, for_stmt: ast.For, body: List[ast.stmt], env: Dict[str, Any], printer: Any) -> Any:
        if not self.use_block_ptr or not isinstance(for_stmt.target, ast.Name):
            return None
        var = for_stmt.target.id
        start: Any = 0
        it = for_stmt.iter
        if isinstance(it, ast.Call) and len(it.args) >= 2:
            try:
                start = eval(compile(ast.Expression(it.args[0]), "<lego-rewrite>", "eval"), env)
            except Exception:
                start = sympy.Symbol(ast.unparse(it.args[0]), integer=True)
        hoisted: List[ast.stmt] = []
        new_body: List[ast.stmt] = []
        advances: List[ast.stmt] = []
        for stmt in body:
            info = getattr(stmt, "_lego_block_ptr", None)
            loop_symbols = [s for s in set().union(*[sympy.sympify(o).free_symbols for o in info.offsets])
                            if s.name == var] if info is not None else []
            if not loop_symbols:
                new_body.append(stmt)
                continue
            v = loop_symbols[0]
            name = stmt.targets[0].id
            call = stmt.value
            offsets = tuple(sympy.expand(sympy.sympify(o).subs(v, start)) for o in info.offsets)
            deltas = tuple(sympy.diff(sympy.sympify(o), v) for o in info.offsets)
            for keyword in call.keywords:
                if keyword.arg == "offsets":
                    keyword.value = _parse_expr(_tuple_text(offsets, printer))
            hoisted.append(stmt)
            advances.append(ast.Assign(targets=[ast.Name(name, ast.Store())],
                                       value=_parse_expr(f"tl.advance({name}, {_tuple_text(deltas, printer)})")))
        return hoisted, new_body + advances

    def post_process_body(self, func_def: ast.FunctionDef) -> None:
        if not self.block_ptrs:
            return
        for node in ast.walk(func_def):
            if (isinstance(node, ast.Call) and _called_name(node) in ("load", "store") and node.args
                    and isinstance(node.args[0], ast.Name) and node.args[0].id in self.block_ptrs):
                info = self.block_ptrs[node.args[0].id]
                node.keywords = [k for k in node.keywords if k.arg not in ("mask", "boundary_check")]
                if info.boundary_dims:
                    node.keywords.append(ast.keyword("boundary_check", _parse_expr(
                        "(" + ", ".join(map(str, info.boundary_dims)) + ("," if len(info.boundary_dims) == 1 else "") + ")")))

    def compile_and_wrap(self, new_source: str, tree: ast.Module, original_fn: Any, wrappers: List[Any],
                         return_source: bool) -> Any:
        if return_source:
            return new_source
        _, fn = write_and_exec_temp_file(new_source, tree, original_fn)
        import triton
        from triton.runtime.autotuner import Autotuner

        for wrapper in reversed(wrappers):
            if isinstance(wrapper, Autotuner):
                fn = triton.autotune(configs=wrapper.configs, key=list(wrapper.keys))(fn)
            else:
                fn = triton.jit(fn)
        return fn


def jit(fn: Any = None, use_block_ptr: Any = False, **kwargs: Any) -> Any:
    """``@lego.jit`` / ``@lego.jit(use_block_ptr=True)`` above ``@triton.jit``."""
    if fn is None:
        return lambda f: jit(f, use_block_ptr=use_block_ptr, **kwargs)
    return rewrite(fn, TritonAdapter(use_block_ptr=use_block_ptr), **kwargs)


def get_kernel_source(fn: Any, use_block_ptr: Any = False) -> str:
    """The generated Triton source of ``fn`` (nothing is compiled)."""
    return jit(fn, use_block_ptr=use_block_ptr, return_source=True)
