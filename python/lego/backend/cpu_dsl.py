"""The CPU kernel DSL (the published API's §5.5, ``lego.backend.cpu_dsl``): a Python function written over
``Buffer`` parameters becomes a ``CPUKernelBuilder`` kernel (lego ops for the indices, ``lego-to-llvm``, LLVM,
a shared object run through ctypes; ``lego.backend.cpu_builder``).

    @cpu_kernel(grid=(N // 8,), tile=(8,))
    def saxpy(a: float, x: Buffer[N], y: Buffer[N]):
        for i in tile_range:
            y[i] = a * x[i] + y[i]

    saxpy.compile()(2.5, x, y)     # x, y: float32 NumPy arrays of N elements, y updated in place

What the body may hold: ``for v in tile_range:`` (the tile ``tile_id·T + j``, ``j < T``, inside the grid
loop), ``for v in range(stop)`` / ``range(start, stop[, step])`` (nested, with floating values assigned before
the loop and updated inside carried through it), assignments to names, ``buf[i] = …`` / ``buf[i, j] += …``
(multi-dimensional buffers are addressed through their layout, ``Row`` by default, or the one given as
``Buffer[4, 8, layout]``), ``+ - * /`` on floats (mixed f32/f64 operands are computed in f64, as in C), ``+ - * // %`` on indices,
comparisons ``< <= > >= == !=``, ``a if cond else b`` (``arith.select``) and ``if cond: … else: …`` (``scf.if``;
names reassigned in a branch carry on after it), elements of integer buffers as subscripts (``x[idx[i]]``), an
index stored into an integer buffer, unary ``-``, ``exp sqrt rsqrt``
(bare or as ``math.…``), ``min max``, ``float(i)``, numbers, and names of the function's globals that hold
numbers. Anything else is a ``SyntaxError`` at its line.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..core import LayoutBlock, OrderBy, Row
from ..jit.builders import LayoutBuffer
from .cpu_builder import CPUKernel, CPUKernelBuilder, CPUKernelContext

__all__ = ["cpu_kernel", "Buffer", "tile_range", "CPUDSLKernel"]


class _BufferType:
    """``Buffer[16]``, ``Buffer[4, 8]``, ``Buffer[4, 8, "f64"]``, ``Buffer[4, 8, Col(4, 8)]``."""

    def __init__(self, dims: Tuple[int, ...], dtype: str = "f32", layout: Optional[LayoutBlock] = None) -> None:
        self.dims = dims
        self.dtype = dtype
        self.layout = layout

    def __repr__(self) -> str:
        return f"Buffer[{', '.join(map(str, self.dims))}]"


class _BufferFactory:
    def __getitem__(self, key: Any) -> _BufferType:
        parts = key if isinstance(key, tuple) else (key,)
        dims = tuple(int(p) for p in parts if isinstance(p, int) or hasattr(p, "__index__"))
        dtype = next((p for p in parts if isinstance(p, str)), "f32")
        layout = next((p for p in parts if isinstance(p, LayoutBlock)), None)
        if not dims:
            raise TypeError(f"Buffer[{key!r}]: give the dims, e.g. Buffer[16] or Buffer[4, 8]")
        return _BufferType(dims, dtype, layout)


Buffer = _BufferFactory()


class _TileRange:
    def __repr__(self) -> str:
        return "tile_range"


tile_range = _TileRange()

_FLOAT_CALLS = {"exp": "exp", "sqrt": "sqrt", "rsqrt": "rsqrt"}
_INTEGER_ELEMENTS = ("i8", "i16", "i32", "i64")


def _is_product(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)


class _Translator:
    """Python AST → calls on a ``CPUKernelContext``. Values are ``(ssa, type)``."""

    def __init__(self, fn: Any, tree: ast.FunctionDef, params: List[Tuple[str, Any]], tile: Optional[int],
                 first_line: int) -> None:
        self.fn = fn
        self.tree = tree
        self.params = params
        self.tile = tile
        self.first_line = first_line
        self.globals = dict(fn.__globals__)
        if fn.__closure__:
            self.globals.update(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__)))

    def error(self, node: ast.AST, message: str) -> SyntaxError:
        line = self.first_line + getattr(node, "lineno", 1) - 1
        return SyntaxError(f"{self.fn.__code__.co_filename}:{line}: cpu_kernel {self.fn.__name__}: {message}")

    def run(self, ctx: CPUKernelContext, buffers: Dict[str, LayoutBuffer], scalars: Dict[str, str]) -> None:
        self.ctx = ctx
        self.buffers = buffers
        env: Dict[str, Tuple[str, str]] = {name: (ctx.scalar(name), ty) for name, ty in scalars.items()}
        self.block(self.tree.body, env)

    # statements
    def block(self, statements: Sequence[ast.stmt], env: Dict[str, Tuple[str, str]]) -> None:
        for statement in statements:
            self.statement(statement, env)

    def statement(self, node: ast.stmt, env: Dict[str, Tuple[str, str]]) -> None:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstring
        if isinstance(node, ast.Pass):
            return
        if isinstance(node, ast.For):
            return self.loop(node, env)
        if isinstance(node, ast.If):
            return self.branch(node, env)
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            return self.assign(node.targets[0], self.expr(node.value, env), env, node)
        if isinstance(node, ast.AugAssign):
            current = self.expr(node.target, env) if not isinstance(node.target, ast.Name) else self.name(node.target, env)
            value = self.binop(node.op, current, self.expr(node.value, env), node, _is_product(node.value))
            return self.assign(node.target, value, env, node)
        raise self.error(node, f"statement {type(node).__name__} is not part of the CPU DSL")

    def assign(self, target: ast.expr, value: Tuple[str, str], env: Dict[str, Tuple[str, str]], node: ast.AST) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
            return
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id in self.buffers:
            buf = self.buffers[target.value.id]
            value = self.convert(value, buf.element_type, node)
            flat = self.address(buf, target, env)
            self.ctx.store_flat(value[0], buf, flat)
            return
        raise self.error(node, "assign to a name or to buffer[index]")

    def loop(self, node: ast.For, env: Dict[str, Tuple[str, str]]) -> None:
        if node.orelse or not isinstance(node.target, ast.Name):
            raise self.error(node, "loops are `for name in tile_range:` or `for name in range(...)`")
        ctx = self.ctx
        var = node.target.id
        if isinstance(node.iter, ast.Name) and node.iter.id == "tile_range":
            if self.tile is None:
                raise self.error(node, "tile_range needs @cpu_kernel(grid=(G,), tile=(T,))")
            start, stop, step = None, self.tile, None
        elif isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name) and node.iter.func.id == "range":
            bounds = [self.index(a, env) for a in node.iter.args]
            if not 1 <= len(bounds) <= 3:
                raise self.error(node, "range takes 1 to 3 arguments")
            start, stop, step = (None, bounds[0], None) if len(bounds) == 1 else (bounds + [None])[:3]
        else:
            raise self.error(node, "loops are `for name in tile_range:` or `for name in range(...)`")
        # Floating values assigned before the loop and again inside it are carried through it (scf.for iter_args).
        assigned = {t.id for s in node.body for t in ast.walk(s) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
        carried = [name for name in assigned if name in env and name != var]
        init = [(env[name][0], env[name][1]) for name in carried]
        tile_based = isinstance(node.iter, ast.Name)

        def body(iv: str, *carries: str) -> List[str]:
            inner = dict(env)
            for name, value in zip(carried, carries):
                inner[name] = (value, env[name][1])
            if tile_based:
                base = ctx.muli(ctx.tile_id, ctx.const_index(self.tile))
                inner[var] = (ctx.addi(base, iv), "index")
            else:
                value = iv
                if step is not None:
                    value = ctx.muli(value, step)
                if start is not None:
                    value = ctx.addi(start, value)
                inner[var] = (value, "index")
            self.block(node.body, inner)
            return [inner[name][0] for name in carried]

        trips = stop
        if not tile_based and (start is not None or step is not None):
            # trip count ⌈(stop − start) / step⌉ (step > 0)
            span = ctx.subi(stop, start) if start is not None else stop
            trips = ctx._op(f"arith.ceildivui {span}, {step} : index") if step is not None else span
        if isinstance(trips, int):
            trips = ctx.const_index(trips)
        results = ctx.for_range(trips, body, init)
        for name, value in zip(carried, results):
            env[name] = (value, env[name][1])

    def branch(self, node: ast.If, env: Dict[str, Tuple[str, str]]) -> None:
        """``if c: … [else: …]`` → ``scf.if``. Names bound before the ``if`` and reassigned in a branch are its
        results (the other branch yields them unchanged), so ``k = k + 1`` under a condition carries on after it
        (stream compaction's output count). Names first bound inside a branch stay local to it."""
        cond = self.expr(node.test, env)
        if cond[1] != "i1":
            raise self.error(node, "the condition of an `if` is a comparison")
        assigned = {t.id for s in node.body + node.orelse for t in ast.walk(s)
                    if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
        carried = sorted(name for name in assigned if name in env)
        e = self.ctx._e
        types = [env[name][1] for name in carried]

        def region(statements: Sequence[ast.stmt]) -> None:
            inner = dict(env)
            saved = e.indent
            e.indent += "  "
            self.block(statements, inner)
            if carried:
                values = [self.convert(inner[name], ty, node)[0] for name, ty in zip(carried, types)]
                e.emit(f"scf.yield {', '.join(values)} : {', '.join(types)}")
            e.indent = saved

        if not carried:
            e.emit(f"scf.if {cond[0]} {{")
            region(node.body)
            if node.orelse:
                e.emit("} else {")
                region(node.orelse)
            e.emit("}")
            return
        result = e.fresh("r")
        head = result if len(carried) == 1 else f"{result}:{len(carried)}"
        e.emit(f"{head} = scf.if {cond[0]} -> ({', '.join(types)}) {{")
        region(node.body)
        e.emit("} else {")
        region(node.orelse)
        e.emit("}")
        for k, (name, ty) in enumerate(zip(carried, types)):
            env[name] = (result if len(carried) == 1 else f"{result}#{k}", ty)

    # expressions
    def name(self, node: ast.Name, env: Dict[str, Tuple[str, str]]) -> Tuple[str, str]:
        if node.id in env:
            return env[node.id]
        value = self.globals.get(node.id)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(node, f"name '{node.id}' is not a loop variable, local, scalar parameter or number")
        return self.constant(value)

    def constant(self, value: Any) -> Tuple[str, str]:
        if isinstance(value, float):
            return self.ctx.const(value, "f32"), "f32"
        return self.ctx.const_index(int(value)), "index"

    def index(self, node: ast.expr, env: Dict[str, Tuple[str, str]]) -> str:
        value = self.expr(node, env)
        if value[1] in _INTEGER_ELEMENTS:
            # An element of an integer buffer used as a subscript (a gather or scatter through idx[i]).
            return self.ctx._op(f"arith.index_cast {value[0]} : {value[1]} to index")
        if value[1] != "index":
            raise self.error(node, "an index (integer) expression is needed here")
        return value[0]

    def address(self, buf: LayoutBuffer, node: ast.Subscript, env: Dict[str, Tuple[str, str]]) -> str:
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        indices = [self.index(p, env) for p in parts]
        if len(indices) == 1 and len(buf.shape) != 1:
            return indices[0]  # flat access
        if len(indices) != len(buf.shape):
            raise self.error(node, f"{len(indices)} subscripts for a buffer of dims {buf.shape}")
        if len(indices) == 1 and buf.layout is None:
            return indices[0]
        return self.ctx.apply(buf.layout or OrderBy(Row(*buf.shape)), *indices)

    def convert(self, value: Tuple[str, str], ty: str, node: ast.AST) -> Tuple[str, str]:
        if value[1] == ty:
            return value
        if value[1] == "index" and ty.startswith("f"):
            as_int = self.ctx._op(f"arith.index_cast {value[0]} : index to i64")
            return self.ctx._op(f"arith.sitofp {as_int} : i64 to {ty}"), ty
        if value[1] == "index" and ty in _INTEGER_ELEMENTS:
            return self.ctx._op(f"arith.index_cast {value[0]} : index to {ty}"), ty
        if value[1].startswith("f") and ty.startswith("f"):
            op = "arith.extf" if int(value[1][1:]) < int(ty[1:]) else "arith.truncf"
            return self.ctx._op(f"{op} {value[0]} : {value[1]} to {ty}"), ty
        raise self.error(node, f"cannot use a {value[1]} value where {ty} is needed")

    def binop(self, op: ast.operator, a: Tuple[str, str], b: Tuple[str, str], node: ast.AST,
              beside_product: bool = False) -> Tuple[str, str]:
        ctx = self.ctx
        if a[1] == "index" and b[1] == "index":
            ops = {ast.Add: "addi", ast.Sub: "subi", ast.Mult: "muli", ast.FloorDiv: "divui", ast.Mod: "remui"}
            if type(op) not in ops:
                raise self.error(node, f"{type(op).__name__} on indices")
            return ctx._op(f"arith.{ops[type(op)]} {a[0]}, {b[0]} : index"), "index"
        ty = self.common_float(a, b, node)
        a, b = self.convert(a, ty, node), self.convert(b, ty, node)
        ops = {ast.Add: "addf", ast.Sub: "subf", ast.Mult: "mulf", ast.Div: "divf"}
        if type(op) not in ops:
            raise self.error(node, f"{type(op).__name__} on floating values")
        # C's default floating-point contraction (clang's -ffp-contract=on): a product and the sum or difference
        # it is an operand of, in one expression, may become one fused multiply-add; a product stored in a
        # name first is not fused with a later sum. LLVM fuses an fmul and an fadd that both carry `contract`.
        contract = isinstance(op, ast.Mult) or (isinstance(op, (ast.Add, ast.Sub)) and beside_product)
        flags = " fastmath<contract>" if contract else ""
        return ctx._op(f"arith.{ops[type(op)]} {a[0]}, {b[0]}{flags} : {ty}"), ty

    def common_float(self, a: Tuple[str, str], b: Tuple[str, str], node: ast.AST) -> str:
        """The type both operands of a floating operation are converted to: the wider float, as in C and NumPy
        (``f32 · f64`` is an ``f64`` product; taking the left operand's type truncated the f64 one)."""
        floats = [t for t in (a[1], b[1]) if t.startswith("f")]
        if not floats:
            raise self.error(node, f"cannot combine a {a[1]} and a {b[1]} value")
        return max(floats, key=lambda t: int(t[1:]))

    def compare(self, node: ast.Compare, env: Dict[str, Tuple[str, str]]) -> Tuple[str, str]:
        if len(node.ops) != 1:
            raise self.error(node, "one comparison at a time (a < b, not a < b < c)")
        a, b = self.expr(node.left, env), self.expr(node.comparators[0], env)
        op = type(node.ops[0])
        if a[1] == "index" and b[1] == "index":
            predicates = {ast.Lt: "slt", ast.LtE: "sle", ast.Gt: "sgt", ast.GtE: "sge", ast.Eq: "eq", ast.NotEq: "ne"}
            if op not in predicates:
                raise self.error(node, f"{op.__name__} on indices")
            return self.ctx._op(f"arith.cmpi {predicates[op]}, {a[0]}, {b[0]} : index"), "i1"
        ty = self.common_float(a, b, node)
        a, b = self.convert(a, ty, node), self.convert(b, ty, node)
        # Ordered predicates (false on NaN) except !=, which is true on NaN: C's semantics of each operator.
        predicates = {ast.Lt: "olt", ast.LtE: "ole", ast.Gt: "ogt", ast.GtE: "oge", ast.Eq: "oeq", ast.NotEq: "une"}
        if op not in predicates:
            raise self.error(node, f"{op.__name__} on floating values")
        return self.ctx._op(f"arith.cmpf {predicates[op]}, {a[0]}, {b[0]} : {ty}"), "i1"

    def expr(self, node: ast.expr, env: Dict[str, Tuple[str, str]]) -> Tuple[str, str]:
        ctx = self.ctx
        if isinstance(node, ast.Compare):
            return self.compare(node, env)
        if isinstance(node, ast.IfExp):
            cond = self.expr(node.test, env)
            if cond[1] != "i1":
                raise self.error(node, "the condition of `x if c else y` is a comparison")
            a, b = self.expr(node.body, env), self.expr(node.orelse, env)
            if a[1] != b[1]:
                ty = "index" if a[1] == b[1] == "index" else self.common_float(a, b, node)
                a, b = self.convert(a, ty, node), self.convert(b, ty, node)
            return ctx._op(f"arith.select {cond[0]}, {a[0]}, {b[0]} : {a[1]}"), a[1]
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return self.constant(node.value)
        if isinstance(node, ast.Name):
            return self.name(node, env)
        if isinstance(node, ast.BinOp):
            return self.binop(node.op, self.expr(node.left, env), self.expr(node.right, env), node,
                              _is_product(node.left) or _is_product(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            value = self.expr(node.operand, env)
            if value[1] == "index":
                return ctx.subi(ctx.const_index(0), value[0]), "index"
            return ctx.negf(value[0], value[1]), value[1]
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in self.buffers:
            buf = self.buffers[node.value.id]
            return ctx.load_flat(buf, self.address(buf, node, env)), buf.element_type
        if isinstance(node, ast.Call) and not node.keywords:
            func = node.func
            fname = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            args = [self.expr(a, env) for a in node.args]
            if fname in _FLOAT_CALLS and len(args) == 1:
                value = self.convert(args[0], args[0][1] if args[0][1] != "index" else "f32", node)
                return getattr(ctx, _FLOAT_CALLS[fname])(value[0], value[1]), value[1]
            if fname == "float" and len(args) == 1:
                return self.convert(args[0], "f32", node)
            if fname in ("min", "max") and len(args) == 2:
                a, b = args
                if a[1] == "index" and b[1] == "index":
                    return ctx._op(f"arith.{fname}ui {a[0]}, {b[0]} : index"), "index"
                ty = self.common_float(a, b, node)
                a, b = self.convert(a, ty, node), self.convert(b, ty, node)
                return ctx._op(f"arith.{'minimumf' if fname == 'min' else 'maximumf'} {a[0]}, {b[0]} : {ty}"), ty
        raise self.error(node, f"expression {ast.dump(node)[:60]} is not part of the CPU DSL")


class CPUDSLKernel:
    """The object ``@cpu_kernel`` returns: ``build_module()``, ``mlir_text``, ``compile(target="cpu")``; calling
    it compiles once (``cpu``) and runs."""

    def __init__(self, fn: Any, grid: Optional[Sequence[int]], tile: Optional[Sequence[int]]) -> None:
        self.fn = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        source = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(source)
        definition = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
        # co_firstlineno is the first decorator's line: the def's own line in the dedented source is mapped back.
        first_line = fn.__code__.co_firstlineno - ((definition.decorator_list[0].lineno - 1) if definition.decorator_list else 0)
        # Python evaluated the annotations when it defined the function; string ones (PEP 563) are evaluated here.
        scope = dict(fn.__globals__)
        if fn.__closure__:
            scope.update(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__)))
        hints = {}
        for a in definition.args.args:
            hint = fn.__annotations__.get(a.arg)
            hints[a.arg] = eval(hint, scope) if isinstance(hint, str) else hint
        self.buffers: Dict[str, LayoutBuffer] = {}
        self.scalars: Dict[str, str] = {}
        for name, hint in hints.items():
            if isinstance(hint, _BufferType):
                self.buffers[name] = LayoutBuffer(hint.layout, hint.dims, hint.dtype)
            elif hint in (float, None):
                self.scalars[name] = "f32"
            elif hint is int:
                self.scalars[name] = "index"
            else:
                raise TypeError(f"cpu_kernel {fn.__name__}: parameter '{name}' is annotated {hint!r}; use float, "
                                "int or Buffer[...]")
        order = list(hints)
        scalar_names = [n for n in order if n in self.scalars]
        buffer_names = [n for n in order if n in self.buffers]
        if order != scalar_names + buffer_names:
            raise TypeError(f"cpu_kernel {fn.__name__}: scalar parameters come before the buffers")
        self.grid = tuple(int(g) for g in grid) if grid else None
        self.tile = tuple(int(t) for t in tile) if tile else None
        if self.tile is not None and len(self.tile) != 1:
            raise ValueError(f"cpu_kernel {fn.__name__}: tile {self.tile}: one dimension (T,) is supported")
        translator = _Translator(fn, definition, [], self.tile[0] if self.tile else None, first_line)
        buffers = [self.buffers[n] for n in buffer_names]

        def body(ctx: CPUKernelContext) -> None:
            translator.run(ctx, self.buffers, self.scalars)

        grid = self.grid if self.grid is not None else ((1,) if self.tile is not None else None)
        self.builder = CPUKernelBuilder(buffers, body, name=fn.__name__,
                                        scalar_params=[(n, self.scalars[n]) for n in scalar_names], grid=grid)
        self._compiled: Dict[str, CPUKernel] = {}

    @property
    def mlir_text(self) -> str:
        return self.builder.mlir_text()

    def build_module(self) -> Tuple[Any, str]:
        """``(module, text)``: lego-rs's parsed and verified module and its text (a ``func.func`` named after the
        function, memref arguments)."""
        return self.builder.build_module()

    def compile(self, target: str = "cpu", opt_level: Optional[int] = None, cpu: Optional[str] = None) -> Any:
        key = f"{target}|{opt_level}|{cpu}"
        if key not in self._compiled:
            self._compiled[key] = self.builder.compile(target=target, opt_level=opt_level, cpu=cpu)
        return self._compiled[key]

    def __call__(self, *args: Any) -> None:
        self.compile()(*args)


def cpu_kernel(fn: Any = None, *, grid: Optional[Sequence[int]] = None, tile: Optional[Sequence[int]] = None) -> Any:
    """``@cpu_kernel`` or ``@cpu_kernel(grid=(G,), tile=(T,))``."""
    if fn is None:
        return lambda f: CPUDSLKernel(f, grid, tile)
    return CPUDSLKernel(fn, grid, tile)
