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

Errors: a layout that fails while the kernel is rewritten (it does not verify, an index of the wrong arity,
a use the rewriter cannot turn into index arithmetic) raises ``LegoError`` at decoration time, located at the
kernel's own file and line (``filename`` / ``lineno`` attributes, the original error as ``__cause__``); the
rewriter never emits a kernel that still names a layout whose definition it deleted.
"""

from __future__ import annotations

import ast
import copy
import inspect
import os
import sys
import textwrap
from typing import Any, Dict, List, Optional, Set, Tuple

import sympy

from .._lego import LegoError
from ..core import LayoutBlock
from ._adapter import DSLAdapter


def _symbol_factory(name: str = "s", **assumptions: Any) -> sympy.Symbol:
    assumptions.setdefault("integer", True)
    assumptions.setdefault("positive", True)
    return sympy.Symbol(name, **assumptions)


def _symbol(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, integer=True, positive=True)


class KernelSource:
    """Where the kernel's statements are in the user's file: the rewriter's AST has the ``def`` on line 1, and
    line ``n`` of it is line ``n + offset`` of ``filename`` (``offset`` None: lines unknown)."""

    def __init__(self, filename: str, offset: Optional[int], name: str) -> None:
        self.filename = filename
        self.offset = offset
        self.name = name

    def line(self, node: Optional[ast.AST]) -> Optional[int]:
        lineno = getattr(node, "lineno", None)
        if lineno is None or self.offset is None:
            return None
        return lineno + self.offset

    def error(self, node: Optional[ast.AST], message: str, cause: Optional[BaseException] = None) -> LegoError:
        """A ``LegoError`` ``file:line:col: error: lego.jit: …`` for ``node`` of the kernel (the source text of the
        node quoted), with ``filename`` and ``lineno`` set, chained to ``cause``."""
        line = self.line(node)
        column = getattr(node, "col_offset", None)
        where = self.filename
        if line is not None:
            where += f":{line}" + (f":{column + 1}" if column is not None else "")
        text = f"{where}: error: lego.jit: in kernel '{self.name}': {message}"
        if node is not None:
            try:
                text += f"\n    {ast.unparse(node)}"
            except Exception:  # a node the unparser does not know: the location is enough
                pass
        if cause is not None:
            text += f"\n  caused by {type(cause).__name__}: {cause}"
        error = LegoError(text)
        error.filename, error.lineno = self.filename, line
        if cause is not None:
            error.__cause__ = cause
        return error


def _parse_and_normalize(source_fn: Any, original_fn: Any) -> ast.FunctionDef:
    return _parse(source_fn, original_fn)[0]


def _parse(source_fn: Any, original_fn: Any) -> Tuple[ast.FunctionDef, KernelSource]:
    code = getattr(source_fn, "__code__", None) or getattr(original_fn, "__code__", None)
    filename = getattr(code, "co_filename", None) or "<kernel>"
    first_line: Optional[int]
    try:
        lines, first_line = inspect.getsourcelines(source_fn)
        source = "".join(lines)
        filename = inspect.getsourcefile(source_fn) or filename
    except (OSError, TypeError):
        source = getattr(original_fn, "src", None)
        if source is None:
            raise
        first_line = getattr(code, "co_firstlineno", None)
    tree = ast.parse(textwrap.dedent(source))
    func_def = next(node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
    def_line = func_def.lineno
    func_def.decorator_list = []
    ast.increment_lineno(tree, 1 - func_def.lineno)
    # Line 1 of the parsed text is `first_line` of the file; the def was on its line `def_line`.
    offset = None if first_line is None else first_line - 1 + def_line - 1
    name = getattr(source_fn, "__name__", None) or func_def.name
    return func_def, KernelSource(filename, offset, name)


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


_CONSTRUCTOR_NAMES = {"row", "col", "reg_p", "order_by", "tile_by", "group_by", "gen_p"}


def _resolve(node: ast.AST, env: Dict[str, Any]) -> Any:
    """The object a ``Name`` or a ``Name.attr…`` chain denotes in ``env`` (``None`` when it is none: no call is
    made, only attribute lookups)."""
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _resolve(node.value, env)
        if base is not None and (inspect.ismodule(base) or isinstance(base, LayoutBlock)):
            return getattr(base, node.attr, None)
    return None


def _is_layout_object(value: Any) -> bool:
    """A layout, a layout class, a layout method or one of lego's functional layout constructors."""
    if isinstance(value, LayoutBlock) or (isinstance(value, type) and issubclass(value, LayoutBlock)):
        return True
    if isinstance(getattr(value, "__self__", None), LayoutBlock):
        return True
    return (callable(value) and getattr(value, "__name__", None) in _CONSTRUCTOR_NAMES
            and getattr(value, "__module__", "").startswith("lego."))


def _layout_reference(node: ast.AST, env: Dict[str, Any]) -> Optional[ast.AST]:
    """The first name or attribute in ``node`` that denotes a layout object, or ``None``."""
    for child in ast.walk(node):
        if isinstance(child, (ast.Name, ast.Attribute)) and _is_layout_object(_resolve(child, env)):
            return child
    return None


def _parse_expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


class LEGOASTTransformer:
    """Walks one function body (the statement rules of §4.1)."""

    def __init__(self, adapter: DSLAdapter, env: Dict[str, Any], runtime_vars: Set[str], printer: Any,
                 source: Optional[KernelSource] = None) -> None:
        self.adapter = adapter
        self.env = env
        self.runtime_vars = runtime_vars
        self.printer = printer
        self.source = source or KernelSource("<kernel>", None, "kernel")

    # --- expressions --------------------------------------------------------------------------------------

    def evaluate(self, node: ast.AST) -> Any:
        # Compiled at the kernel's own file and line: a layout built here records them (its LegoErrors point
        # at the kernel), and so do tracebacks.
        expression = ast.Expression(body=copy.deepcopy(node))
        if self.source.offset is not None:
            ast.increment_lineno(expression, self.source.offset)
        code = compile(expression, self.source.filename, "eval")
        return eval(code, self.env)

    def print_expr(self, value: Any, node: Optional[ast.AST] = None) -> str:
        try:
            return self.printer.doprint(sympy.simplify(value) if _simplifiable(value) else value)
        except Exception as error:
            raise self.source.error(node, f"the index expression {value} has no form in this DSL", error) from error

    def layout_value(self, node: ast.AST) -> Any:
        """``node`` (an expression that uses a layout) evaluated; any error is the kernel's, located."""
        try:
            return self.evaluate(node)
        except Exception as error:
            raise self.source.error(node, "this use of a layout cannot be evaluated at decoration time",
                                    error) from error

    def index_text(self, node: ast.AST, value: Any) -> Optional[str]:
        """The printed form of a layout expression's value: an index expression or a number (``None`` for
        anything else)."""
        if isinstance(value, bool):
            return None
        if isinstance(value, int):
            return str(value)
        if isinstance(value, sympy.Basic) and _is_index_expr(value):
            return self.print_expr(value, node)
        return None

    def visit_expr(self, node: ast.AST) -> ast.AST:
        """Replaces every subscript of a layout (``L[...]``, ``L.inv(x)[k]``) and every call of a layout method
        (``L.apply(...)``) by the printed expression; one that does not evaluate to an index is an error."""
        transformer = self

        class Subscripts(ast.NodeTransformer):
            def replace(self, sub: ast.AST) -> ast.AST:
                value = transformer.layout_value(sub)
                text = transformer.index_text(sub, value)
                if text is None:
                    raise transformer.source.error(
                        sub, f"this use of a layout gives {type(value).__name__} {value!r}, not an index expression")
                return ast.copy_location(_parse_expr(f"({text})"), sub)

            def visit_Subscript(self, sub: ast.Subscript) -> ast.AST:
                if _uses_layout(sub.value, transformer.env):
                    return self.replace(sub)
                self.generic_visit(sub)
                return sub

            def visit_Call(self, call: ast.Call) -> ast.AST:
                if (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                        and isinstance(transformer.env.get(call.func.value.id), LayoutBlock)):
                    return self.replace(call)
                self.generic_visit(call)
                return call

        return Subscripts().visit(node)

    def check_no_layout_left(self, node: ast.AST) -> None:
        """The emitted ``node`` must not name a layout: its definition was deleted (or it was never valid
        DSL code), so the kernel would fail later with a NameError far from the cause."""
        reference = _layout_reference(node, self.env)
        if reference is not None:
            raise self.source.error(reference, f"'{ast.unparse(reference)}' is a layout used where lego.jit cannot "
                                               f"turn it into index arithmetic (use L[...], L.inv(...) or "
                                               f"L.apply(...) in an expression, or assign the layout to a name)")

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
            self.check_no_layout_left(stmt.test)
            stmt.body = self.body(stmt.body) or [ast.Pass()]
            stmt.orelse = self.body(stmt.orelse)
            return [stmt]
        if isinstance(stmt, (ast.With,)):
            for item in stmt.items:
                item.context_expr = self.visit_expr(item.context_expr)
                self.check_no_layout_left(item.context_expr)
            stmt.body = self.body(stmt.body) or [ast.Pass()]
            return [stmt]
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                out = self.assign_name(stmt, target.id)
            elif isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts):
                out = self.assign_tuple(stmt, [e.id for e in target.elts])
            else:
                out = [self.visit_expr(stmt)]
        else:
            out = [self.visit_expr(stmt)]
        for emitted in out:
            self.check_no_layout_left(emitted)
        return out

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
        except Exception as error:
            reference = _layout_reference(value, self.env)
            if reference is not None and not _uses_layout(value, self.env):
                # Building a layout failed (a bad size, a wrong argument): kept, the kernel would name
                # OrderBy/Row at run time.
                raise self.source.error(stmt, "the layout cannot be built at decoration time", error) from error
            return self._runtime(stmt, [name])
        if isinstance(result, LayoutBlock):
            _check_layout(self, stmt, result)
            self.env[name] = result
            return []
        if isinstance(result, sympy.Basic) and _is_index_expr(result) and _uses_layout(value, self.env):
            self.env[name] = _symbol(name)
            text = self.print_expr(result, stmt)
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
                result = None  # e.g. a tuple mixing a layout with a runtime call: its layout parts are visited
            if isinstance(result, (list, tuple)) and len(result) != len(names) and isinstance(stmt.value, ast.Call):
                raise self.source.error(stmt, f"{len(names)} names for the {len(result)} values of "
                                              f"{ast.unparse(stmt.value)}")
            if (isinstance(result, (list, tuple)) and len(result) == len(names)
                    and all(isinstance(v, sympy.Basic) and _is_index_expr(v) for v in result)):
                out: List[ast.stmt] = []
                texts = [self.print_expr(v, stmt) for v in result]
                for name, text in zip(names, texts):
                    out.append(ast.copy_location(
                        ast.Assign(targets=[ast.Name(name, ast.Store())], value=_parse_expr(text)), stmt))
                for name in names:
                    self.env[name] = _symbol(name)
                return out
        return self._runtime(stmt, names)

    def for_loop(self, stmt: ast.For) -> List[ast.stmt]:
        stmt.iter = self.visit_expr(stmt.iter)
        self.check_no_layout_left(stmt.iter)
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


def _check_layout(transformer: LEGOASTTransformer, stmt: ast.stmt, layout: LayoutBlock) -> None:
    """A layout assigned in a kernel is verified where it is defined (its IR built and lowered once on symbolic
    indices), so a layout that does not verify fails on its own line even if the kernel never indexes it."""
    try:
        layout.mlir(lowered=True)
    except Exception as error:
        raise transformer.source.error(stmt, "the layout does not verify", error) from error


def _simplifiable(value: Any) -> bool:
    # The pipeline's expressions are already simplified; SymPy's simplify on big floor/Mod trees is slow
    # and may reshape them: only tidy small ones.
    return isinstance(value, sympy.Expr) and sympy.count_ops(value) <= 12


def rewrite(fn: Any, adapter: DSLAdapter, **kwargs: Any) -> Any:
    """Rewrites ``fn`` for ``adapter``'s DSL; ``return_source=True`` returns the generated source."""
    source_fn, original_fn, wrappers = adapter.unwrap(fn)
    func_def, source = _parse(source_fn, original_fn)
    env = _build_eval_env(source_fn, func_def)
    runtime_vars = adapter.find_runtime_vars(func_def)
    printer = adapter.get_code_printer()
    transformer = LEGOASTTransformer(adapter, env, runtime_vars, printer, source)
    func_def.body = transformer.body(func_def.body) or [ast.Pass()]
    adapter.post_process_body(func_def)
    tree = ast.Module(body=[func_def], type_ignores=[])
    ast.fix_missing_locations(tree)
    new_source = ast.unparse(tree) + "\n"
    if os.environ.get("LEGO_DEBUG"):
        print(f"// lego.jit: generated kernel {func_def.name}\n{new_source}", file=sys.stderr)
    return adapter.compile_and_wrap(new_source, tree, original_fn, wrappers,
                                    return_source=kwargs.get("return_source", False))
