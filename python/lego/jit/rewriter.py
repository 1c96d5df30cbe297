"""The JIT rewriter (the published API's §4.1): a kernel's Python source is walked statement by statement;
layouts built from its parameters are evaluated at decoration time by lego-rs (``L[...]``, ``L.inv``: lego IR,
``lego-lower``, SymPy back) and every index expression is printed back into the DSL's syntax. The layouts
themselves vanish from the kernel: what the DSL compiles is plain index arithmetic.

Rules (see docs/python.md, "JIT frontends"):
* every parameter, loop variable and runtime-assigned name is a positive integer SymPy symbol;
* ``L = <layout>`` is deleted (the layout lives in the rewriter's environment);
* ``x = <expression using a layout>`` is re-emitted as ``x = <printed simplified expression>``, and
  ``a, b = L.inv(...)`` as one assignment per name;
* every other statement is kept, with each subscript ``L[...]`` that evaluates to an expression replaced by
  the printed expression;
* the adapter's hooks may replace assignments, hoist statements out of loops and post-process the body.
"""

from __future__ import annotations

import ast
import inspect
import os
import sys
import textwrap
from typing import Any, Dict, List, Optional, Set, Tuple

import sympy

from ..core import LayoutBlock
from ._adapter import DSLAdapter


def _symbol_factory(name: str = "s", **assumptions: Any) -> sympy.Symbol:
    assumptions.setdefault("integer", True)
    assumptions.setdefault("positive", True)
    return sympy.Symbol(name, **assumptions)


def _symbol(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, integer=True, positive=True)


def _parse_and_normalize(source_fn: Any, original_fn: Any) -> ast.FunctionDef:
    try:
        source = inspect.getsource(source_fn)
    except (OSError, TypeError):
        source = getattr(original_fn, "src", None)
        if source is None:
            raise
    tree = ast.parse(textwrap.dedent(source))
    func_def = next(node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
    func_def.decorator_list = []
    ast.increment_lineno(tree, 1 - func_def.lineno)
    return func_def


def _parameter_names(func_def: ast.FunctionDef) -> List[str]:
    args = func_def.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    if args.vararg:
        names.append(args.vararg.arg)
    if args.kwarg:
        names.append(args.kwarg.arg)
    return names


def _build_eval_env(original_fn: Any, func_def: ast.FunctionDef) -> Dict[str, Any]:
    env: Dict[str, Any] = dict(getattr(original_fn, "__globals__", {}))
    closure = getattr(original_fn, "__closure__", None)
    code = getattr(original_fn, "__code__", None)
    if closure and code is not None:
        for name, cell in zip(code.co_freevars, closure):
            try:
                env[name] = cell.cell_contents
            except ValueError:
                pass
    env["sp"] = sympy
    env["Symbol"] = _symbol_factory
    for name in _parameter_names(func_def):
        env[name] = _symbol(name)
    return env


def _is_index_expr(value: Any) -> bool:
    # A Symbol is also a SymPy Boolean: exclude only relations and logic.
    boolean = (sympy.Rel, sympy.logic.boolalg.BooleanFunction, sympy.logic.boolalg.BooleanAtom)
    return isinstance(value, sympy.Expr) and not isinstance(value, boolean)


def _uses_layout(node: ast.AST, env: Dict[str, Any]) -> bool:
    return any(isinstance(n, ast.Name) and isinstance(env.get(n.id), LayoutBlock) for n in ast.walk(node))


def _parse_expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


class LEGOASTTransformer:
    """Walks one function body (the statement rules of §4.1)."""

    def __init__(self, adapter: DSLAdapter, env: Dict[str, Any], runtime_vars: Set[str], printer: Any) -> None:
        self.adapter = adapter
        self.env = env
        self.runtime_vars = runtime_vars
        self.printer = printer

    # --- expressions --------------------------------------------------------------------------------------

    def evaluate(self, node: ast.AST) -> Any:
        code = compile(ast.Expression(body=node), "<lego-rewrite>", "eval")
        return eval(code, self.env)

    def print_expr(self, value: Any) -> str:
        return self.printer.doprint(sympy.simplify(value) if _simplifiable(value) else value)

    def visit_expr(self, node: ast.AST) -> ast.AST:
        """Replaces every subscript that evaluates to a SymPy expression by the printed expression."""
        transformer = self

        class Subscripts(ast.NodeTransformer):
            def visit_Subscript(self, sub: ast.Subscript) -> ast.AST:
                if _uses_layout(sub.value, transformer.env):
                    try:
                        value = transformer.evaluate(sub)
                    except Exception:
                        value = None
                    if isinstance(value, sympy.Basic) and _is_index_expr(value):
                        return ast.copy_location(_parse_expr(f"({transformer.print_expr(value)})"), sub)
                self.generic_visit(sub)
                return sub

        return Subscripts().visit(node)

    # --- statements ---------------------------------------------------------------------------------------

    def body(self, statements: List[ast.stmt]) -> List[ast.stmt]:
        out: List[ast.stmt] = []
        for stmt in statements:
            out.extend(self.statement(stmt))
        return out

    def statement(self, stmt: ast.stmt) -> List[ast.stmt]:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            return [stmt]
        if isinstance(stmt, ast.For):
            return self.for_loop(stmt)
        if isinstance(stmt, (ast.While, ast.If)):
            stmt.test = self.visit_expr(stmt.test)
            stmt.body = self.body(stmt.body) or [ast.Pass()]
            stmt.orelse = self.body(stmt.orelse)
            return [stmt]
        if isinstance(stmt, (ast.With,)):
            stmt.body = self.body(stmt.body) or [ast.Pass()]
            return [stmt]
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                return self.assign_name(stmt, target.id)
            if isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts):
                return self.assign_tuple(stmt, [e.id for e in target.elts])
        return [self.visit_expr(stmt)]

    def _runtime(self, stmt: ast.Assign, names: List[str]) -> List[ast.stmt]:
        stmt.value = self.visit_expr(stmt.value)
        for name in names:
            self.env[name] = _symbol(name)
        return [stmt]

    def assign_name(self, stmt: ast.Assign, name: str) -> List[ast.stmt]:
        value = stmt.value
        # `x = Symbol()`: the symbol gets the variable's name.
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "Symbol"
                and not value.args and not value.keywords):
            value.args = [ast.Constant(name)]
        replaced = self.adapter.transform_assignment(stmt, self.env, self.printer)
        if replaced is not None:
            node, updates = replaced
            self.env.update(updates)
            return [] if node is None else (list(node) if isinstance(node, list) else [node])
        if name in self.runtime_vars:
            return self._runtime(stmt, [name])
        try:
            result = self.evaluate(value)
        except Exception:
            return self._runtime(stmt, [name])
        if isinstance(result, LayoutBlock):
            self.env[name] = result
            return []
        if isinstance(result, sympy.Basic) and _is_index_expr(result) and _uses_layout(value, self.env):
            self.env[name] = _symbol(name)
            text = self.print_expr(result)
            if text == name:
                return []
            return [ast.copy_location(ast.Assign(targets=[ast.Name(name, ast.Store())], value=_parse_expr(text)), stmt)]
        if isinstance(result, sympy.Symbol) and isinstance(value, ast.Call):
            # `x = Symbol("x")`: a symbol of the environment, nothing to emit.
            self.env[name] = result
            return []
        return self._runtime(stmt, [name])

    def assign_tuple(self, stmt: ast.Assign, names: List[str]) -> List[ast.stmt]:
        if not any(n in self.runtime_vars for n in names) and _uses_layout(stmt.value, self.env):
            try:
                result = self.evaluate(stmt.value)
            except Exception:
                result = None
            if (isinstance(result, (list, tuple)) and len(result) == len(names)
                    and all(isinstance(v, sympy.Basic) and _is_index_expr(v) for v in result)):
                out: List[ast.stmt] = []
                texts = [self.print_expr(v) for v in result]
                for name, text in zip(names, texts):
                    out.append(ast.copy_location(
                        ast.Assign(targets=[ast.Name(name, ast.Store())], value=_parse_expr(text)), stmt))
                for name in names:
                    self.env[name] = _symbol(name)
                return out
        return self._runtime(stmt, names)

    def for_loop(self, stmt: ast.For) -> List[ast.stmt]:
        stmt.iter = self.visit_expr(stmt.iter)
        if isinstance(stmt.target, ast.Name):
            self.env[stmt.target.id] = sympy.Symbol(stmt.target.id, integer=True, nonnegative=True)
        body = self.body(stmt.body)
        hoisted: List[ast.stmt] = []
        result = self.adapter.transform_for_loop(stmt, body, self.env, self.printer)
        if result is not None:
            hoisted, body = result
        stmt.body = body or [ast.Pass()]
        stmt.orelse = self.body(stmt.orelse)
        return list(hoisted) + [stmt]


def _simplifiable(value: Any) -> bool:
    # The pipeline's expressions are already simplified; SymPy's simplify on big floor/Mod trees is slow
    # and may reshape them: only tidy small ones.
    return isinstance(value, sympy.Expr) and sympy.count_ops(value) <= 12


def rewrite(fn: Any, adapter: DSLAdapter, **kwargs: Any) -> Any:
    """Rewrites ``fn`` for ``adapter``'s DSL; ``return_source=True`` returns the generated source."""
    source_fn, original_fn, wrappers = adapter.unwrap(fn)
    func_def = _parse_and_normalize(source_fn, original_fn)
    env = _build_eval_env(source_fn, func_def)
    runtime_vars = adapter.find_runtime_vars(func_def)
    printer = adapter.get_code_printer()
    transformer = LEGOASTTransformer(adapter, env, runtime_vars, printer)
    func_def.body = transformer.body(func_def.body) or [ast.Pass()]
    adapter.post_process_body(func_def)
    tree = ast.Module(body=[func_def], type_ignores=[])
    ast.fix_missing_locations(tree)
    new_source = ast.unparse(tree) + "\n"
    if os.environ.get("LEGO_DEBUG"):
        print(f"// lego.jit: generated kernel {func_def.name}\n{new_source}", file=sys.stderr)
    return adapter.compile_and_wrap(new_source, tree, original_fn, wrappers,
                                    return_source=kwargs.get("return_source", False))
