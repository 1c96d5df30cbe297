"""The AST walker of the GPU kernel DSL: a decorated function's body (never executed as Python) becomes ops
emitted through ``lego.jit.builders.KernelContext`` inside the ``gpu.launch`` the ``KernelBuilder`` writes.

Every name is bound to a ``(value, tag)`` pair (docs/gpu-dsl.md, "Value model"): ``ct_int`` / ``ct_float``
hold Python numbers (evaluated at trace time), ``index`` / ``i1`` / ``i32`` / ``f16`` / ``f32`` hold SSA names,
``ct_obj`` a compile-time object (a ``TensorCore``), ``tuple`` the result of ``apply_inverse``, ``memref_2d``
an ``mma_reshape`` view; a tensor-core fragment is tagged with its MLIR type (``!gpu.mma_matrix<…>``, see
``_is_frag``), ``regs`` marks a register array (``Registers``).

Where the published DSL is wrong this walker is right (docs/gpu-dsl.md, "Defects fixed"): index comparisons and
``%`` are signed/floored as in Python, loads have the buffer's element type and stores convert to it, index →
float goes through i64, loop-carried and ``if``-yielded names take the type their updates need, names first
bound inside a runtime ``if`` are dropped after it, tensor-core fragments must match their buffer's element
type."""

from __future__ import annotations

import ast
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from ..core import LayoutBlock
from ._gpu_dsl_errors import DSLAssertion, DSLNameError, DSLNotImplemented, DSLTypeError, NotEmulable

Value = Tuple[Any, str]

_FLOATS = ("f16", "f32", "f64")
_INTS = ("index", "i32", "i1")
_RUNTIME = _FLOATS + ("index", "i32", "i1")

# Features a target may lack (checked before compiling, lego.backend.gpu_dsl.TARGET_FEATURES).
F_SUBGROUP = "warp/subgroup operations"
F_ALL_REDUCE = "workgroup all-reduce (all_reduce_*)"
F_MMA = "tensor-core MMA (TensorCore)"
F_SHARED = "shared (workgroup) memory"
F_BARRIER = "barrier()"
F_F16 = "f16 buffers"
F_ASYNC_COPY = "asynchronous copies (async_copy*)"
F_MBARRIER = "mbarriers (mbarrier_*)"
F_CLUSTER = "thread-block clusters (cluster_*)"

_MAX_WHILE_STEPS = 4096


def _assigned_names(statements: Sequence[ast.stmt]) -> Set[str]:
    """Names a statement list (re)binds, through nested if/for/while (loop variables included)."""
    names: Set[str] = set()
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name):
                names.add(node.value.id)  # a register array's element (buffer names are never locals)
    return names


def _float_literal(value: float, ty: str) -> str:
    """An MLIR float literal: ``repr`` gives ``1e-05`` (no digit after a point: MLIR reads no float), so the
    exponent form always has one; inf / nan are written as their bit patterns."""
    import math
    import struct
    if not math.isfinite(value):
        fmt, width = {"f16": ("<e", "H"), "f32": ("<f", "I"), "f64": ("<d", "Q")}[ty]
        bits = struct.unpack("<" + width, struct.pack(fmt, value))[0]
        return f"0x{bits:X}"
    return f"{value:.17e}"


_WARP_CALLS = {"shuffle_down", "shuffle_up", "shuffle_xor", "shuffle_idx", "broadcast", "subgroup_reduce_add",
               "subgroup_reduce_mul", "subgroup_reduce_max", "subgroup_reduce_min", "warp_prefix_sum",
               "warp_prefix_sum_exclusive"}


def _has_barrier(statements: Sequence[ast.stmt]) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "barrier"
               for statement in statements for n in ast.walk(statement))


def _is_frag(tag: str) -> bool:
    """A tensor-core fragment's tag is its MLIR type (``!gpu.mma_matrix<16x16xf32, "COp">``), so a runtime
    ``for`` carries fragments as iter_args like any runtime value."""
    return tag.startswith("!gpu.mma_matrix<")


def _register_keys(name: str, shape: Tuple[int, ...]) -> List[str]:
    """The env keys of a register array's elements (``acc[3,5]``: not a Python name, so no local collides)."""
    import itertools
    return [f"{name}[{','.join(map(str, idx))}]" for idx in itertools.product(*(range(d) for d in shape))]


class _Scope(dict):
    """Kernel locals: name → (value, tag)."""


class KernelCompiler:
    """One trace of a kernel body. ``mode`` is ``"gpu"`` (gpu.* ops for ids, barriers, shuffles) or ``"cpu"``
    (the ids are the emulation loops' induction variables; GPU-only operations raise ``NotEmulable``)."""

    def __init__(self, kernel: Any, ctx: Any, mode: str = "gpu", ids: Optional[Dict[str, str]] = None) -> None:
        self.k = kernel
        self.ctx = ctx
        self.e = ctx._e
        self.mode = mode
        self.ids = ids or {}
        self.features: Dict[str, str] = {}
        # how many runtime regions (scf.for / scf.if bodies) enclose the op being traced
        self.depth = 0
        # CPU mode: called at a barrier at depth 0 (splits the emulation's thread loops there)
        self.on_barrier: Optional[Callable[[_Scope], None]] = None
        # CPU mode: a warp shuffle at depth 0 (mode, value, i32 offset) → (result, valid, own value); lane_id()
        self.on_shuffle: Optional[Callable[[str, Value, str, _Scope], Tuple[str, str, str]]] = None
        self.on_lane: Optional[Callable[[], str]] = None
        self._env: _Scope = _Scope()
        self.layouts: Dict[str, LayoutBlock] = {name: buf.layout for name, buf in kernel._param_buffers.items()}

    # --- locations and errors ---------------------------------------------------------------------------------

    def where(self, node: ast.AST) -> str:
        return f"{self.k._filename}:{self.line(node)}"

    def line(self, node: ast.AST) -> int:
        return self.k._first_line + getattr(node, "lineno", 1) - 1

    def _loc(self, node: ast.AST) -> Tuple[str, int, int, Optional[str]]:
        line = self.line(node)
        text = self.k._source_lines[line - self.k._first_line] if 0 <= line - self.k._first_line < len(self.k._source_lines) else None
        return (self.k._filename, line, getattr(node, "col_offset", 0) + 1, text)

    def not_impl(self, node: ast.AST, message: str) -> DSLNotImplemented:
        return DSLNotImplemented(message, self._loc(node))

    def assertion(self, node: ast.AST, message: str) -> DSLAssertion:
        return DSLAssertion(message, self._loc(node))

    def type_error(self, node: ast.AST, message: str) -> DSLTypeError:
        return DSLTypeError(message, self._loc(node))

    def use(self, feature: str, node: ast.AST) -> None:
        self.features.setdefault(feature, self.where(node))

    def gpu_only(self, what: str, node: ast.AST) -> None:
        if self.mode == "cpu":
            raise NotEmulable(f"{what} at {self.where(node)} cannot run in the CPU emulation")

    # --- entry ------------------------------------------------------------------------------------------------

    def run(self) -> None:
        env: _Scope = _Scope()
        body = self.k._tree.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            body = body[1:]  # docstring
        self.block(body, env)

    # --- emission helpers -------------------------------------------------------------------------------------

    def op(self, text: str) -> str:
        return self.ctx._op(text)

    def const(self, value: Any, tag: str) -> str:
        if tag == "index":
            return self.ctx.const_index(int(value))
        if tag in _FLOATS:
            return self.op(f"arith.constant {_float_literal(float(value), tag)} : {tag}")
        if tag == "i1":
            return self.op(f"arith.constant {'true' if value else 'false'}")
        return self.op(f"arith.constant {int(value)} : {tag}")

    def capture(self, fn: Callable[[], Any]) -> Tuple[List[str], Any]:
        """Runs ``fn`` with the emitter writing into a fresh list (a region body being traced)."""
        saved_lines, saved_indent = self.e.lines, self.e.indent
        self.e.lines, self.e.indent = [], saved_indent + "  "
        self.depth += 1
        try:
            result = fn()
            return self.e.lines, result
        finally:
            self.depth -= 1
            self.e.lines, self.e.indent = saved_lines, saved_indent

    def into(self, lines: List[str], fn: Callable[[], Any]) -> Any:
        """Appends more ops to an already captured region body."""
        saved_lines, saved_indent = self.e.lines, self.e.indent
        self.e.lines, self.e.indent = lines, saved_indent + "  "
        self.depth += 1
        try:
            return fn()
        finally:
            self.depth -= 1
            self.e.lines, self.e.indent = saved_lines, saved_indent

    # --- conversions ------------------------------------------------------------------------------------------

    def materialise(self, v: Value, like: Optional[str] = None) -> Value:
        """A compile-time number as a runtime value (of type ``like`` when given)."""
        value, tag = v
        if tag == "ct_int":
            ty = like if like in _RUNTIME else "index"
            return self.const(value, ty), ty
        if tag == "ct_float":
            ty = like if like in _FLOATS else "f32"
            return self.const(value, ty), ty
        return v

    def convert(self, v: Value, ty: str, node: ast.AST) -> Value:
        """``v`` as a ``ty`` value (index/i32/i1 ↔ floats, float widths, index ↔ i32)."""
        if v[1] in ("ct_int", "ct_float"):
            if ty in _INTS and v[1] == "ct_float":
                raise self.type_error(node, f"a float constant {v[0]!r} where an integer ({ty}) is needed")
            return self.materialise(v, ty)
        value, tag = v
        if tag == ty:
            return v
        if tag not in _RUNTIME:
            raise self.type_error(node, f"a {tag} value where {ty} is needed")
        if tag in _FLOATS and ty in _FLOATS:
            op = "arith.extf" if _FLOATS.index(tag) < _FLOATS.index(ty) else "arith.truncf"
            return self.op(f"{op} {value} : {tag} to {ty}"), ty
        if tag in ("index", "i32", "i1") and ty in _FLOATS:
            if tag == "index":
                # through i64, not i32 (the published DSL wraps indices ≥ 2³¹) — except on the SPIR-V family,
                # whose kernels have 32-bit indices and no Int64 capability (nothing to wrap there)
                wide = "i32" if getattr(self.k, "_spirv_target", False) and self.mode == "gpu" else "i64"
                value = self.op(f"arith.index_cast {value} : index to {wide}")
                tag = wide
            op = "arith.uitofp" if tag == "i1" else "arith.sitofp"
            return self.op(f"{op} {value} : {tag} to {ty}"), ty
        if tag == "index" and ty == "i32":
            return self.op(f"arith.index_cast {value} : index to i32"), "i32"
        if tag == "i32" and ty == "index":
            return self.op(f"arith.index_cast {value} : i32 to index"), "index"
        if tag == "i1" and ty in ("index", "i32"):
            wide = self.op(f"arith.extui {value} : i1 to i32")
            return self.convert((wide, "i32"), ty, node)
        if tag in ("index", "i32") and ty == "i1":
            zero = self.const(0, tag)
            return self.op(f"arith.cmpi ne, {value}, {zero} : {tag}"), "i1"
        if tag in _FLOATS and ty in ("index", "i32"):
            raise self.type_error(node, f"a {tag} value where an integer ({ty}) is needed (no implicit float → int)")
        raise self.type_error(node, f"cannot convert {tag} to {ty}")

    def index(self, node: ast.expr, env: _Scope) -> str:
        v = self.expr(node, env)
        if v[1] in ("ct_float",) or v[1] in _FLOATS:
            raise self.type_error(node, f"an index is needed here, got a {v[1]} value")
        return self.convert(v, "index", node)[0]

    # --- statements -------------------------------------------------------------------------------------------

    def block(self, statements: Sequence[ast.stmt], env: _Scope) -> None:
        for statement in statements:
            if self.mode == "cpu" and self.on_shuffle is not None and not self.depth and \
                    isinstance(statement, (ast.Assign, ast.AugAssign, ast.Expr)):
                self._hoisted(statement, env)
            else:
                self.statement(statement, env)

    def _hoisted(self, statement: ast.stmt, env: _Scope) -> None:
        """CPU mode: each warp operation of the statement first goes to a temporary of its own (the emulation
        ends a phase there, so no operand computed before it may be used after it), then the statement runs on
        the temporaries."""
        temps: List[ast.stmt] = []
        compiler = self

        class Hoist(ast.NodeTransformer):
            def visit_Call(self, node: ast.Call) -> ast.AST:
                self.generic_visit(node)
                if isinstance(node.func, ast.Name) and node.func.id in _WARP_CALLS:
                    name = f"__warp{len(temps)}"
                    temps.append(ast.copy_location(ast.Assign(targets=[ast.Name(name, ast.Store())], value=node), node))
                    return ast.copy_location(ast.Name(name, ast.Load()), node)
                return node

        import copy
        rewritten = Hoist().visit(copy.deepcopy(statement))
        self._env = env
        for temp in temps:
            compiler.statement(temp, env)
        compiler.statement(rewritten, env)
        for k in range(len(temps)):
            env.pop(f"__warp{k}", None)

    def statement(self, node: ast.stmt, env: _Scope) -> None:
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1:
                raise self.assertion(node, "one assignment target per statement (a = b = e is not supported)")
            target = node.targets[0]
            if isinstance(target, ast.Tuple):
                rhs = self.expr(node.value, env)
                if rhs[1] != "tuple":
                    raise self.assertion(node, "Tuple unpack requires tuple-valued RHS")
                if len(rhs[0]) != len(target.elts) or not all(isinstance(t, ast.Name) for t in target.elts):
                    raise self.assertion(node, f"Tuple unpack: {len(target.elts)} names for {len(rhs[0])} values")
                for name_node, value in zip(target.elts, rhs[0]):
                    env[name_node.id] = (value, "index")
                return
            return self.assign(target, self.expr(node.value, env), env, node)
        if isinstance(node, ast.AugAssign):
            if isinstance(node.target, ast.Name):
                if node.target.id not in env:
                    raise DSLNameError(f"Undefined: {node.target.id}", self.k._filename, self.line(node))
                current = env[node.target.id]
            elif isinstance(node.target, ast.Subscript):
                current = self.expr(ast.Subscript(value=node.target.value, slice=node.target.slice, ctx=ast.Load(),
                                                  lineno=node.lineno, col_offset=node.col_offset), env)
            else:
                raise self.not_impl(node, f"Assign to {type(node.target).__name__}")
            value = self.binop(node.op, current, self.expr(node.value, env), node)
            return self.assign(node.target, value, env, node)
        if isinstance(node, ast.For):
            return self.for_(node, env)
        if isinstance(node, ast.If):
            return self.if_(node, env)
        if isinstance(node, ast.While):
            return self.while_(node, env)
        if isinstance(node, ast.Expr):
            self.expr(node.value, env)
            return
        raise self.not_impl(node, f"Statement {type(node).__name__}")

    def assign(self, target: ast.expr, value: Value, env: _Scope, node: ast.AST) -> None:
        if isinstance(target, ast.Name):
            if value[1] == "regs_new":
                return self.bind_registers(target.id, value[0], env, node)
            if value[1] == "regs":
                raise self.type_error(node, "a register array is not a value (copy its elements one by one)")
            if target.id in env and env[target.id][1] == "regs":
                raise self.type_error(node, f"'{target.id}' is a register array; assign its elements")
            env[target.id] = value
            return
        if isinstance(target, ast.Subscript) and self._is_registers(target, env):
            key = self.register_key(target, env)
            if value[1] not in _RUNTIME + ("ct_int", "ct_float") and not _is_frag(value[1]):
                raise self.type_error(node, f"a {value[1]} value cannot be held in a register array")
            env[key] = value
            return
        if isinstance(target, ast.Subscript):
            name, buf = self.buffer_of(target, node)
            flat = self.address(name, buf, target, env)
            stored = self.convert(value, buf.element_type, node)
            self.ctx.store_flat(stored[0], buf, flat)
            return
        raise self.not_impl(node, f"Assign to {type(target).__name__}")

    def _carried(self, names: Set[str], env: _Scope) -> List[str]:
        names = set(names)
        for n in list(names):
            if n in env and env[n][1] == "regs":
                names |= {k for k in _register_keys(n, env[n][0])}
        return sorted(n for n in names if n in env and (env[n][1] in _RUNTIME + ("ct_int", "ct_float") or _is_frag(env[n][1])))

    def for_(self, node: ast.For, env: _Scope) -> None:
        it = node.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "static_range" and not node.orelse:
            return self.static_for(node, env)
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range") or node.orelse:
            raise self.assertion(node, "for loops are `for v in range(...)` or `for v in static_range(...)`")
        if not isinstance(node.target, ast.Name):
            raise self.assertion(node, "the loop variable must be a plain name")
        if not 1 <= len(it.args) <= 3:
            raise self.assertion(node, "range takes 1 to 3 arguments")
        bounds = [self.index(a, env) for a in it.args]
        lb, ub, step = (self.const(0, "index"), bounds[0], self.const(1, "index")) if len(bounds) == 1 else \
            (bounds[0], bounds[1], bounds[2] if len(bounds) == 3 else self.const(1, "index"))
        var = node.target.id
        if self.mode == "cpu" and self.on_barrier is not None and _has_barrier(node.body) and \
                all(self.expr(a, env)[1] == "ct_int" for a in it.args):
            # The emulation splits its thread loops at each barrier, which it can only do outside runtime
            # regions: a compile-time trip count lets it unroll the loop instead.
            for k in range(*[self.expr(a, env)[0] for a in it.args]):
                env[var] = (k, "ct_int")
                self.block(node.body, env)
            env.pop(var, None)
            return
        carried = [n for n in self._carried(_assigned_names(node.body), env) if n != var]
        types = {n: self.materialise(env[n])[1] if env[n][1] in ("ct_int", "ct_float") else env[n][1] for n in carried}
        inits = {n: self.convert(env[n], types[n], node)[0] for n in carried}

        def trace(types: Dict[str, str]) -> Tuple[List[str], Dict[str, Value], str, List[str]]:
            iv = self.e.fresh("k")
            args = {n: self.e.fresh("a") for n in carried}

            def body() -> Dict[str, Value]:
                inner = _Scope(env)
                for n in carried:
                    inner[n] = (args[n], types[n])
                inner[var] = (iv, "index")
                self.block(node.body, inner)
                return {n: inner[n] for n in carried}

            lines, final = self.capture(body)
            return lines, final, iv, [args[n] for n in carried]

        lines, final, iv, args = trace(types)
        # An int-initialised accumulator that the body makes a float is carried as that float (the published
        # DSL yields the float into an index iter_arg: invalid IR); the body is traced again with that type.
        widened = {n: final[n][1] for n in carried if final[n][1] in _FLOATS and types[n] not in _FLOATS}
        if widened:
            types = {**types, **widened}
            inits = {n: self.convert((inits[n], env[n][1]) if env[n][1] not in ("ct_int", "ct_float") else env[n], types[n], node)[0]
                     if n in widened else inits[n] for n in carried}
            lines, final, iv, args = trace(types)
        yields = self.into(lines, lambda: [self.convert(final[n], types[n], node)[0] for n in carried])
        results = [self.e.fresh("r") for _ in carried]
        head = f"scf.for {iv} = {lb} to {ub} step {step}"
        if carried:
            head += " iter_args(" + ", ".join(f"{a} = {inits[n]}" for a, n in zip(args, carried)) + ") -> (" + \
                ", ".join(types[n] for n in carried) + ")"
            head = (f"{results[0]} = " if len(results) == 1 else f"{results[0]}:{len(results)} = ") + head
            self.into(lines, lambda: self.e.emit("scf.yield " + ", ".join(yields) + " : " + ", ".join(types[n] for n in carried)))
        self.e.emit(head + " {")
        self.e.lines.extend(lines)
        self.e.emit("}")
        for k, n in enumerate(carried):
            env[n] = (results[0] if len(results) == 1 else f"{results[0]}#{k}", types[n])

    def if_(self, node: ast.If, env: _Scope) -> None:
        cond = self.expr(node.test, env)
        if cond[1] in ("ct_int", "ct_float"):
            self.block(node.body if cond[0] else node.orelse, env)
            return
        c = self.convert(cond, "i1", node.test)[0]
        names = self._carried(_assigned_names(node.body) | _assigned_names(node.orelse), env)
        before = {n: env[n] for n in names}

        def branch(statements: Sequence[ast.stmt]) -> Callable[[], Dict[str, Value]]:
            def run() -> Dict[str, Value]:
                inner = _Scope(env)
                self.block(statements, inner)
                return {n: inner[n] for n in names}
            return run

        then_lines, then_final = self.capture(branch(node.body))
        else_lines, else_final = self.capture(branch(node.orelse))
        if not names:
            self.e.emit(f"scf.if {c} {{")
            self.e.lines.extend(then_lines)
            if node.orelse:
                self.e.emit("} else {")
                self.e.lines.extend(else_lines)
            self.e.emit("}")
            return
        types: Dict[str, str] = {}
        for n in names:
            tags = {then_final[n][1], else_final[n][1], before[n][1]}
            if any(_is_frag(t) for t in tags):
                if len(tags) > 1:
                    raise self.type_error(node, f"'{n}' is {' / '.join(sorted(tags))} on the two paths of this if")
                types[n] = tags.pop()
                continue
            runtime = {t for t in tags if t in _RUNTIME}
            floats = [t for t in _FLOATS if t in runtime or (t == "f32" and "ct_float" in tags)]
            if floats:
                types[n] = floats[-1]
            elif runtime:
                if len(runtime) > 1:
                    raise self.type_error(node, f"'{n}' is {' / '.join(sorted(runtime))} on the two paths of this if")
                types[n] = runtime.pop()
            else:
                types[n] = "f32" if "ct_float" in tags else "index"
        then_vals = self.into(then_lines, lambda: [self.convert(then_final[n], types[n], node)[0] for n in names])
        else_vals = self.into(else_lines, lambda: [self.convert(else_final[n], types[n], node)[0] for n in names])
        tys = ", ".join(types[n] for n in names)
        results = self.e.fresh("y")
        head = f"{results} = " if len(names) == 1 else f"{results}:{len(names)} = "
        self.e.emit(f"{head}scf.if {c} -> ({tys}) {{")
        self.e.lines.extend(then_lines)
        self.e.emit(f"  scf.yield {', '.join(then_vals)} : {tys}")
        self.e.emit("} else {")
        self.e.lines.extend(else_lines)
        self.e.emit(f"  scf.yield {', '.join(else_vals)} : {tys}")
        self.e.emit("}")
        for k, n in enumerate(names):
            env[n] = (results if len(names) == 1 else f"{results}#{k}", types[n])

    def while_(self, node: ast.While, env: _Scope) -> None:
        if node.orelse:
            raise self.not_impl(node, "Statement While with else")
        for _ in range(_MAX_WHILE_STEPS):
            cond = self.expr(node.test, env)
            if cond[1] not in ("ct_int", "ct_float"):
                raise self.assertion(node, "Runtime while not supported — use for + range()")
            if not cond[0]:
                return
            self.block(node.body, env)
        raise self.assertion(node, f"while loop still running after {_MAX_WHILE_STEPS} unrolled iterations")

    # --- compile-time unrolling and register arrays -------------------------------------------------------------
    # ``for v in static_range(…)`` is unrolled at trace time (v is a compile-time int in each copy of the body).
    # ``r = Registers(d0, d1, …[, init=0.0])`` is a per-thread array indexed only by compile-time ints: each
    # element is an ordinary local under the key ``r[i,j]`` (an SSA value, never memory), so a runtime ``for``
    # carries, and a runtime ``if`` yields, exactly the elements its body assigns (``_carried``).

    def static_for(self, node: ast.For, env: _Scope) -> None:
        if not isinstance(node.target, ast.Name):
            raise self.assertion(node, "the loop variable must be a plain name")
        args = list(node.iter.args)
        if not 1 <= len(args) <= 3 or node.iter.keywords:
            raise self.assertion(node, "static_range takes 1 to 3 positional arguments")
        bounds = [self.expr(a, env) for a in args]
        if any(b[1] != "ct_int" for b in bounds):
            raise self.type_error(node, "static_range bounds must be compile-time ints (use range for a runtime loop)")
        var = node.target.id
        for k in range(*[b[0] for b in bounds]):
            env[var] = (k, "ct_int")
            self.block(node.body, env)
        env.pop(var, None)

    def b_static_range(self, node: ast.Call, env: _Scope) -> Value:
        raise self.assertion(node, "static_range(...) is only an iterable of a for loop")

    def b_Registers(self, node: ast.Call, env: _Scope) -> Value:
        dims = [self.expr(a, env) for a in node.args]
        if not dims or any(d[1] != "ct_int" or d[0] <= 0 for d in dims):
            raise self.type_error(node, "Registers(d0, d1, …) takes positive compile-time int dimensions")
        init: Value = (0.0, "ct_float")
        for kw in node.keywords:
            if kw.arg != "init":
                raise self.assertion(node, f"Registers() has no keyword '{kw.arg}'")
            init = self.expr(kw.value, env)
            if init[1] not in _RUNTIME + ("ct_int", "ct_float") and not _is_frag(init[1]):
                raise self.type_error(node, f"a {init[1]} value cannot be held in a register array")
        return (tuple(d[0] for d in dims), init), "regs_new"

    def bind_registers(self, name: str, spec: Tuple[Tuple[int, ...], Value], env: _Scope, node: ast.AST) -> None:
        shape, init = spec
        if name in env and env[name][1] == "regs":
            for key in _register_keys(name, env[name][0]):
                env.pop(key, None)
        elif name in env:
            raise self.type_error(node, f"'{name}' is already a {env[name][1]} local")
        env[name] = (shape, "regs")
        for key in _register_keys(name, shape):
            env[key] = init

    def b_fma(self, node: ast.Call, env: _Scope) -> Value:
        """``fma(a, b, c)`` = a·b + c, contractible: ``arith.mulf``/``addf`` with ``fastmath<contract>`` (one
        fma.rn.f32 on CUDA; ``math.fma`` would become a libdevice call there). The tracer never contracts a
        plain ``a * b + c``."""
        args = [self._float(a, env) for a in self._args(node, 3, 3)]
        ty = max((v[1] for v in args), key=_FLOATS.index)
        a, b, c = (self.convert(v, ty, node)[0] for v in args)
        product = self.op(f"arith.mulf {a}, {b} fastmath<contract> : {ty}")
        return self.op(f"arith.addf {product}, {c} fastmath<contract> : {ty}"), ty

    def _is_registers(self, node: ast.Subscript, env: _Scope) -> bool:
        return isinstance(node.value, ast.Name) and node.value.id in env and env[node.value.id][1] == "regs"

    def register_key(self, node: ast.Subscript, env: _Scope) -> str:
        name = node.value.id  # type: ignore[attr-defined]
        shape = env[name][0]
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(parts) != len(shape):
            raise self.type_error(node, f"{name}[…] takes {len(shape)} indices, got {len(parts)}")
        idx = []
        for p, d in zip(parts, shape):
            v = self.expr(p, env)
            if v[1] != "ct_int":
                raise self.type_error(node, f"a register array is indexed by compile-time ints only "
                                            f"(use static_range); got a {v[1]} index")
            if not 0 <= v[0] < d:
                raise self.type_error(node, f"{name}[…] index {v[0]} out of range 0..{d - 1}")
            idx.append(v[0])
        return f"{name}[{','.join(map(str, idx))}]"

    # --- buffers ----------------------------------------------------------------------------------------------

    def buffer_of(self, node: ast.Subscript, where: ast.AST) -> Tuple[str, Any]:
        if not isinstance(node.value, ast.Name) or node.value.id not in self.k._param_buffers:
            what = node.value.id if isinstance(node.value, ast.Name) else type(node.value).__name__
            raise self.type_error(where, f"'{what}' is not a buffer parameter of the kernel (only buffers are subscripted)")
        return node.value.id, self.k._param_buffers[node.value.id]

    def address(self, name: str, buf: Any, node: ast.Subscript, env: _Scope) -> str:
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        layout = self.layouts[name]
        rank = len(layout.dims())
        if len(parts) != rank:
            raise self.type_error(node, f"{name}[…] takes {rank} indices (its layout's rank), got {len(parts)}")
        indices = [self.index(p, env) for p in parts]
        return self.ctx.apply(layout, *indices)

    def load(self, node: ast.Subscript, env: _Scope) -> Value:
        if self._is_registers(node, env):
            return env[self.register_key(node, env)]
        name, buf = self.buffer_of(node, node)
        if buf.shared:
            self.use(F_SHARED, node)
        flat = self.address(name, buf, node, env)
        return self.ctx.load_flat(buf, flat), buf.element_type

    # --- expressions ------------------------------------------------------------------------------------------

    def name(self, node: ast.Name, env: _Scope) -> Value:
        if node.id in env:
            return env[node.id]
        if node.id in self.k._param_buffers:
            raise DSLNameError(f"Undefined: {node.id} (a buffer is not a value; subscript it)", self.k._filename,
                               self.line(node))
        scope = self.k._scope
        if node.id not in scope:
            raise DSLNameError(f"Undefined: {node.id}", self.k._filename, self.line(node))
        value = scope[node.id]
        from .gpu_dsl import TensorCore  # noqa: WPS433 (cycle)
        if isinstance(value, bool):
            return int(value), "ct_int"
        if isinstance(value, int):
            return value, "ct_int"
        if isinstance(value, float):
            return value, "ct_float"
        if isinstance(value, TensorCore):
            return value, "ct_obj"
        raise self.type_error(node, f"Unsupported type for '{node.id}': {type(value)}")

    def python_value(self, node: ast.expr, env: _Scope) -> Any:
        """A layout (or other Python object) argument: evaluated as Python in the outer scope plus the
        kernel's compile-time locals."""
        scope = dict(self.k._scope)
        scope.update({n: v[0] for n, v in env.items() if v[1] in ("ct_int", "ct_float", "ct_obj")})
        try:
            return eval(compile(ast.Expression(body=node), self.k._filename, "eval"), scope)  # noqa: S307 (trusted kernel source)
        except Exception as error:  # noqa: BLE001
            raise self.type_error(node, f"cannot evaluate {ast.unparse(node)} at compile time: {error}") from error

    def expr(self, node: ast.expr, env: _Scope) -> Value:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool):
                return int(node.value), "ct_int"
            if isinstance(node.value, int):
                return node.value, "ct_int"
            if isinstance(node.value, float):
                return node.value, "ct_float"
            raise self.not_impl(node, f"Expr Constant {node.value!r}")
        if isinstance(node, ast.Name):
            return self.name(node, env)
        if isinstance(node, ast.BinOp):
            return self.binop(node.op, self.expr(node.left, env), self.expr(node.right, env), node)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                v = self.expr(node.operand, env)
                if v[1] in ("ct_int", "ct_float"):
                    return -v[0], v[1]
                zero = (0.0, "ct_float") if v[1] in _FLOATS else (0, "ct_int")
                return self.binop(ast.Sub(), zero, v, node)
            if isinstance(node.op, ast.UAdd):
                return self.expr(node.operand, env)
            raise self.not_impl(node, f"UnaryOp {type(node.op).__name__}")
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1:
                raise self.assertion(node, "chained comparisons are not supported (a < b < c)")
            return self.compare(node.ops[0], self.expr(node.left, env), self.expr(node.comparators[0], env), node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Subscript):
            return self.load(node, env)
        if isinstance(node, ast.Call):
            return self.call(node, env)
        raise self.not_impl(node, f"Expr {type(node).__name__}")

    _GPU_IDS = {"block_id": "gpu.block_id", "thread_id": "gpu.thread_id", "block_dim": "gpu.block_dim"}

    def attribute(self, node: ast.Attribute) -> Value:
        if isinstance(node.value, ast.Name) and node.value.id in self._GPU_IDS and node.attr in ("x", "y", "z"):
            key = f"{node.value.id}.{node.attr}"
            if self.mode == "cpu":
                return self.ids[key], "index"
            return self.op(f"{self._GPU_IDS[node.value.id]} {node.attr}"), "index"
        if isinstance(node.value, ast.Name) and node.value.id == "cluster_id" and node.attr in ("x", "y", "z"):
            return self.cluster_attribute(node)
        raise self.not_impl(node, f"Attribute {ast.dump(node)}")

    _INT_OPS = {ast.Add: "addi", ast.Sub: "subi", ast.Mult: "muli"}
    _FLOAT_OPS = {ast.Add: "addf", ast.Sub: "subf", ast.Mult: "mulf", ast.Div: "divf"}
    _BIT_OPS = {ast.BitAnd: "andi", ast.BitOr: "ori", ast.BitXor: "xori", ast.LShift: "shli", ast.RShift: "shrsi"}

    def binop(self, op: ast.operator, a: Value, b: Value, node: ast.AST) -> Value:
        kind = type(op)
        if a[1] in ("ct_int", "ct_float") and b[1] in ("ct_int", "ct_float"):
            return self._fold(op, a, b, node)
        for v in (a, b):
            if v[1] not in _RUNTIME + ("ct_int", "ct_float"):
                raise self.type_error(node, f"{kind.__name__} on a {v[1]} value")
        if kind in self._BIT_OPS:
            if any(v[1] in _FLOATS or v[1] == "ct_float" for v in (a, b)):
                raise self.type_error(node, f"{kind.__name__} on floating values")
            x, y = self.convert(a, "i32", node)[0], self.convert(b, "i32", node)[0]
            return self.op(f"arith.{self._BIT_OPS[kind]} {x}, {y} : i32"), "i32"
        floats = [v[1] for v in (a, b) if v[1] in _FLOATS]
        if floats or kind is ast.Div or a[1] == "ct_float" or b[1] == "ct_float":
            ty = max(floats, key=_FLOATS.index) if floats else "f32"
            if kind not in self._FLOAT_OPS:
                raise self.type_error(node, f"{kind.__name__} on floating values (supported: + - * /)")
            x, y = self.convert(a, ty, node)[0], self.convert(b, ty, node)[0]
            return self.op(f"arith.{self._FLOAT_OPS[kind]} {x}, {y} : {ty}"), ty
        x, y = self.convert(a, "index", node)[0], self.convert(b, "index", node)[0]
        if kind in self._INT_OPS:
            return self.op(f"arith.{self._INT_OPS[kind]} {x}, {y} : index"), "index"
        if kind is ast.FloorDiv:
            return self.op(f"arith.floordivsi {x}, {y} : index"), "index"
        if kind is ast.Mod:
            # Python's floored modulo (the published DSL's remui treats a negative left side as huge)
            return self.floor_mod(x, y), "index"
        raise self.type_error(node, f"{kind.__name__} on indices (supported: + - * // % & | ^ << >>)")

    def floor_mod(self, x: str, y: str) -> str:
        r = self.op(f"arith.remsi {x}, {y} : index")
        zero = self.const(0, "index")
        nonzero = self.op(f"arith.cmpi ne, {r}, {zero} : index")
        r_neg = self.op(f"arith.cmpi slt, {r}, {zero} : index")
        y_neg = self.op(f"arith.cmpi slt, {y}, {zero} : index")
        differ = self.op(f"arith.xori {r_neg}, {y_neg} : i1")
        fix = self.op(f"arith.andi {nonzero}, {differ} : i1")
        shifted = self.op(f"arith.addi {r}, {y} : index")
        return self.op(f"arith.select {fix}, {shifted}, {r} : index")

    def _fold(self, op: ast.operator, a: Value, b: Value, node: ast.AST) -> Value:
        import operator as o
        table = {ast.Add: o.add, ast.Sub: o.sub, ast.Mult: o.mul, ast.Div: o.truediv, ast.FloorDiv: o.floordiv,
                 ast.Mod: o.mod, ast.Pow: o.pow, ast.BitAnd: o.and_, ast.BitOr: o.or_, ast.BitXor: o.xor,
                 ast.LShift: o.lshift, ast.RShift: o.rshift}
        if type(op) not in table:
            raise self.not_impl(node, f"BinOp {type(op).__name__}")
        try:
            result = table[type(op)](a[0], b[0])
        except (ZeroDivisionError, TypeError, ValueError, OverflowError) as error:
            raise self.type_error(node, f"compile-time {type(op).__name__}: {error}") from error
        return result, "ct_float" if isinstance(result, float) else "ct_int"

    _CMP_F = {ast.Lt: "olt", ast.LtE: "ole", ast.Gt: "ogt", ast.GtE: "oge", ast.Eq: "oeq", ast.NotEq: "one"}
    _CMP_I = {ast.Lt: "slt", ast.LtE: "sle", ast.Gt: "sgt", ast.GtE: "sge", ast.Eq: "eq", ast.NotEq: "ne"}

    def compare(self, op: ast.cmpop, a: Value, b: Value, node: ast.AST) -> Value:
        kind = type(op)
        if kind not in self._CMP_F:
            raise self.not_impl(node, f"Compare {kind.__name__}")
        if a[1] in ("ct_int", "ct_float") and b[1] in ("ct_int", "ct_float"):
            import operator as o
            fn = {ast.Lt: o.lt, ast.LtE: o.le, ast.Gt: o.gt, ast.GtE: o.ge, ast.Eq: o.eq, ast.NotEq: o.ne}[kind]
            return int(fn(a[0], b[0])), "ct_int"
        floats = [v[1] for v in (a, b) if v[1] in _FLOATS]
        if floats or "ct_float" in (a[1], b[1]):
            ty = max(floats, key=_FLOATS.index) if floats else "f32"
            x, y = self.convert(a, ty, node)[0], self.convert(b, ty, node)[0]
            return self.op(f"arith.cmpf {self._CMP_F[kind]}, {x}, {y} : {ty}"), "i1"
        # signed, as Python compares (the published DSL compares indices unsigned: tx - 2 >= 0 held for tx < 2)
        ty = "i32" if a[1] == "i32" and b[1] in ("i32", "ct_int") or b[1] == "i32" and a[1] == "ct_int" else "index"
        x, y = self.convert(a, ty, node)[0], self.convert(b, ty, node)[0]
        return self.op(f"arith.cmpi {self._CMP_I[kind]}, {x}, {y} : {ty}"), "i1"

    # --- calls ------------------------------------------------------------------------------------------------

    def call(self, node: ast.Call, env: _Scope) -> Value:
        if isinstance(node.func, ast.Attribute):
            return self.method(node, env)
        if not isinstance(node.func, ast.Name):
            raise self.not_impl(node, f"Call {ast.dump(node.func)}")
        fname = node.func.id
        handler = getattr(self, f"b_{fname}", None)
        if handler is None:
            raise self.not_impl(node, f"Unknown function: {fname}")
        return handler(node, env)

    def _args(self, node: ast.Call, lo: int, hi: int) -> List[ast.expr]:
        args = list(node.args) + [kw.value for kw in node.keywords]
        if not lo <= len(args) <= hi:
            raise self.assertion(node, f"{node.func.id}() takes {lo}" + (f" to {hi}" if hi != lo else "") +
                                 f" arguments, got {len(args)}")
        return args

    def _float(self, node: ast.expr, env: _Scope) -> Value:
        v = self.expr(node, env)
        if v[1] in _FLOATS:
            return v
        return self.convert(v, "f32", node)

    def b_barrier(self, node: ast.Call, env: _Scope) -> Value:
        self._args(node, 0, 0)
        self.use(F_BARRIER, node)
        if self.mode == "cpu":
            if self.on_barrier is None or self.depth:
                raise NotEmulable(f"barrier() at {self.where(node)} inside a runtime if/for cannot run in the CPU "
                                  "emulation (it splits the thread loops at top-level barriers only)")
            self.on_barrier(env)
            return 0, "ct_int"
        self.ctx.barrier()
        return 0, "ct_int"

    def b_apply(self, node: ast.Call, env: _Scope) -> Value:
        if not node.args:
            raise self.assertion(node, "apply(L, i0, …) needs a layout")
        layout = self._layout(node.args[0], env)
        return self.ctx.apply(layout, *[self.index(a, env) for a in node.args[1:]]), "index"

    def b_apply_inverse(self, node: ast.Call, env: _Scope) -> Value:
        args = self._args(node, 2, 2)
        layout = self._layout(args[0], env)
        return self.ctx.apply_inverse(layout, self.index(args[1], env)), "tuple"

    def b_set_layout(self, node: ast.Call, env: _Scope) -> Value:
        args = self._args(node, 2, 2)
        if not isinstance(args[0], ast.Name) or args[0].id not in self.k._param_buffers:
            raise self.type_error(node, "set_layout(B, L): B must be a buffer parameter")
        self.layouts[args[0].id] = self._layout(args[1], env)
        return 0, "ct_int"

    def _layout(self, node: ast.expr, env: _Scope) -> LayoutBlock:
        layout = self.python_value(node, env)
        if not isinstance(layout, LayoutBlock):
            raise self.type_error(node, f"a LEGO layout is needed here, got {type(layout).__name__}")
        return layout

    def b_lane_id(self, node: ast.Call, env: _Scope) -> Value:
        self._args(node, 0, 0)
        if self.mode == "cpu" and self.on_lane is not None:
            return self.on_lane(), "index"
        self.gpu_only("lane_id()", node)
        return self.op("gpu.lane_id"), "index"

    def b_warp_size(self, node: ast.Call, env: _Scope) -> Value:
        self._args(node, 0, 0)
        self.gpu_only("warp_size()", node)
        return self.op("gpu.subgroup_size : index"), "index"


    def shuffle(self, mode: str, value: Value, offset: Value, node: ast.AST) -> Tuple[str, str, str, str]:
        """``gpu.shuffle`` (width 32): (result, valid flag, type, the shuffled value as seen after the shuffle:
        the CPU emulation ends a phase at each shuffle, so the operand must be re-read from there on)."""
        self.use(F_SUBGROUP, node)
        x = value if value[1] in _FLOATS else self.convert(value, "f32", node)
        off = self.convert(offset, "i32", node)[0]
        if self.mode == "cpu":
            if self.on_shuffle is None or self.depth:
                raise NotEmulable(f"a warp operation at {self.where(node)} inside a runtime if/for cannot run in the "
                                  "CPU emulation (it emulates warp operations at the top level only)")
            result, valid, own = self.on_shuffle(mode, x, off, self._env)
            return result, valid, x[1], own
        width = self.const(32, "i32")
        name = self.e.fresh("sh")
        self.e.emit(f"{name}:2 = gpu.shuffle {mode} {x[0]}, {off}, {width} : {x[1]}")
        return f"{name}#0", f"{name}#1", x[1], x[0]

    def _shuffle_builtin(self, mode: str) -> Callable[[ast.Call, _Scope], Value]:
        def handler(node: ast.Call, env: _Scope) -> Value:
            args = self._args(node, 2, 2)
            v, _, ty, _ = self.shuffle(mode, self._float(args[0], env), self.expr(args[1], env), node)
            return v, ty
        return handler

    def b_shuffle_down(self, node: ast.Call, env: _Scope) -> Value:
        return self._shuffle_builtin("down")(node, env)

    def b_shuffle_up(self, node: ast.Call, env: _Scope) -> Value:
        return self._shuffle_builtin("up")(node, env)

    def b_shuffle_xor(self, node: ast.Call, env: _Scope) -> Value:
        return self._shuffle_builtin("xor")(node, env)

    def b_shuffle_idx(self, node: ast.Call, env: _Scope) -> Value:
        return self._shuffle_builtin("idx")(node, env)

    def b_broadcast(self, node: ast.Call, env: _Scope) -> Value:
        args = self._args(node, 1, 2)
        lane = self.expr(args[1], env) if len(args) == 2 else (0, "ct_int")
        v, _, ty, _ = self.shuffle("idx", self._float(args[0], env), lane, node)
        return v, ty

    _REDUCE = {"add": "addf", "mul": "mulf", "max": "maximumf", "min": "minimumf"}

    def _subgroup_reduce(self, kind: str, node: ast.Call, env: _Scope) -> Value:
        # A 5-step xor butterfly: every lane ends with the warp's result. The pipelines have no f32
        # gpu.subgroup_reduce lowering on every target, gpu.shuffle they all have.
        (arg,) = self._args(node, 1, 1)
        v = self._float(arg, env)
        for offset in (16, 8, 4, 2, 1):
            other, _, ty, own = self.shuffle("xor", v, (offset, "ct_int"), node)
            v = (self.op(f"arith.{self._REDUCE[kind]} {own}, {other} : {ty}"), ty)
        return v

    def b_subgroup_reduce_add(self, node: ast.Call, env: _Scope) -> Value:
        return self._subgroup_reduce("add", node, env)

    def b_subgroup_reduce_mul(self, node: ast.Call, env: _Scope) -> Value:
        return self._subgroup_reduce("mul", node, env)

    def b_subgroup_reduce_max(self, node: ast.Call, env: _Scope) -> Value:
        return self._subgroup_reduce("max", node, env)

    def b_subgroup_reduce_min(self, node: ast.Call, env: _Scope) -> Value:
        return self._subgroup_reduce("min", node, env)

    _ALL_REDUCE = {"add": "add", "mul": "mul", "max": "maxnumf", "min": "minnumf"}

    def _all_reduce(self, kind: str, node: ast.Call, env: _Scope) -> Value:
        (arg,) = self._args(node, 1, 1)
        v = self._float(arg, env)
        self.use(F_ALL_REDUCE, node)
        self.gpu_only("all_reduce", node)
        return self.op(f"gpu.all_reduce {self._ALL_REDUCE[kind]} {v[0]} uniform {{}} : ({v[1]}) -> ({v[1]})"), v[1]

    def b_all_reduce_add(self, node: ast.Call, env: _Scope) -> Value:
        return self._all_reduce("add", node, env)

    def b_all_reduce_mul(self, node: ast.Call, env: _Scope) -> Value:
        return self._all_reduce("mul", node, env)

    def b_all_reduce_max(self, node: ast.Call, env: _Scope) -> Value:
        return self._all_reduce("max", node, env)

    def b_all_reduce_min(self, node: ast.Call, env: _Scope) -> Value:
        return self._all_reduce("min", node, env)

    def _scan(self, v: Value, node: ast.AST) -> Value:
        for offset in (1, 2, 4, 8, 16):
            other, valid, ty, own = self.shuffle("up", v, (offset, "ct_int"), node)
            total = self.op(f"arith.addf {own}, {other} : {ty}")
            v = (self.op(f"arith.select {valid}, {total}, {own} : {ty}"), ty)
        return v

    def b_warp_prefix_sum(self, node: ast.Call, env: _Scope) -> Value:
        (arg,) = self._args(node, 1, 1)
        return self._scan(self._float(arg, env), node)

    def b_warp_prefix_sum_exclusive(self, node: ast.Call, env: _Scope) -> Value:
        (arg,) = self._args(node, 1, 1)
        v = self._float(arg, env)
        other, valid, ty, _ = self.shuffle("up", v, (1, "ct_int"), node)
        zero = self.const(0.0, ty)
        return self._scan((self.op(f"arith.select {valid}, {other}, {zero} : {ty}"), ty), node)

    _GLSL = {"exp": "Exp", "sqrt": "Sqrt", "rsqrt": "InverseSqrt"}

    def _math(self, fn: str, node: ast.Call, env: _Scope) -> Value:
        (arg,) = self._args(node, 1, 1)
        v = self._float(arg, env)
        if getattr(self.k, "_spirv_target", False) and self.mode == "gpu":
            # lego-to-spirv's convert-gpu-to-spirv has no math patterns (math.exp fails to legalize): for the
            # SPIR-V family the GLSL.std.450 instruction is emitted directly (already legal there).
            return self.op(f"spirv.GL.{self._GLSL[fn]} {v[0]} : {v[1]}"), v[1]
        return self.op(f"math.{fn} {v[0]} : {v[1]}"), v[1]

    def b_exp(self, node: ast.Call, env: _Scope) -> Value:
        return self._math("exp", node, env)

    def b_sqrt(self, node: ast.Call, env: _Scope) -> Value:
        return self._math("sqrt", node, env)

    def b_rsqrt(self, node: ast.Call, env: _Scope) -> Value:
        return self._math("rsqrt", node, env)

    # --- tensor cores -----------------------------------------------------------------------------------------

    def b_mma_reshape(self, node: ast.Call, env: _Scope) -> Value:
        args = self._args(node, 3, 3)
        if not isinstance(args[0], ast.Name) or args[0].id not in self.k._param_buffers:
            raise self.type_error(node, "mma_reshape(B, rows, cols): B must be a buffer parameter")
        buf = self.k._param_buffers[args[0].id]
        rows, cols = (self.expr(a, env) for a in args[1:])
        if rows[1] != "ct_int" or cols[1] != "ct_int" or rows[0] * cols[0] != buf.numel:
            raise self.type_error(node, f"mma_reshape: rows × cols must be compile-time and equal {buf.numel}")
        self.use(F_MMA, node)
        self.gpu_only("mma_reshape", node)
        space = ", #gpu.address_space<workgroup>" if buf.shared else ""
        src = self.ctx._memref(buf)
        ty = f"memref<{rows[0]}x{cols[0]}x{buf.element_type}{space}>"
        # the buffer's own element type and memory space (the published view was always f32, space dropped)
        name = self.op(f"memref.reinterpret_cast {src} to offset: [0], sizes: [{rows[0]}, {cols[0]}], "
                       f"strides: [{cols[0]}, 1] : memref<{buf.numel}x{buf.element_type}{space}> to {ty}")
        return (name, ty, buf.element_type), "memref_2d"

    def method(self, node: ast.Call, env: _Scope) -> Value:
        func = node.func
        assert isinstance(func, ast.Attribute)
        receiver = self.expr(func.value, env) if isinstance(func.value, ast.Name) else (None, "")
        if receiver[1] != "ct_obj":
            raise self.not_impl(node, f"Method call: {ast.unparse(func.value)}.{func.attr}")
        tc = receiver[0]
        handler = getattr(self, f"tc_{func.attr}", None)
        if handler is None:
            raise self.not_impl(node, f"Method call: {ast.unparse(func.value)}.{func.attr}")
        self.use(F_MMA, node)
        self.gpu_only("a tensor-core operation", node)
        return handler(tc, node, [a for a in node.args], env)

    def _frag(self, tc: Any, which: str) -> str:
        m, n, k = tc.tile_m, tc.tile_n, tc.tile_k
        shape, ty = {"AOp": ((m, k), tc.a_dtype), "BOp": ((k, n), tc.a_dtype), "COp": ((m, n), tc.c_dtype)}[which]
        return f'!gpu.mma_matrix<{shape[0]}x{shape[1]}x{ty}, "{which}">'

    def tc_zero(self, tc: Any, node: ast.Call, args: List[ast.expr], env: _Scope) -> Value:
        zero = self.const(0.0, tc.c_dtype)  # in the accumulator's type (published: always an f32 constant)
        return self.op(f"gpu.subgroup_mma_constant_matrix {zero} : {self._frag(tc, 'COp')}"), self._frag(tc, 'COp')

    def _view(self, node: ast.expr, env: _Scope) -> Tuple[str, str, str]:
        v = self.expr(node, env)
        if v[1] != "memref_2d":
            raise self.type_error(node, "tensor-core loads and stores take an mma_reshape(...) view")
        return v[0]

    def _load(self, tc: Any, which: str, node: ast.Call, args: List[ast.expr], env: _Scope) -> Value:
        if len(args) != 4:
            raise self.assertion(node, f"load_{which[0].lower()}(view, row, col, ld)")
        view, ty, elem = self._view(args[0], env)
        if elem != tc.a_dtype:
            # The published DSL loaded f16 fragments from f32 data: the f32 bits were read as f16 (wrong results).
            raise self.type_error(node, f"TensorCore {tc.a_dtype} fragments load from a {tc.a_dtype} buffer; "
                                        f"this buffer holds {elem} (give it dtype={tc.a_dtype!r})")
        row, col = self.index(args[1], env), self.index(args[2], env)
        ld = self.expr(args[3], env)
        if ld[1] != "ct_int":
            raise self.type_error(node, "the leading dimension must be a compile-time integer")
        return self.op(f"gpu.subgroup_mma_load_matrix {view}[{row}, {col}] {{leadDimension = {ld[0]} : index}} : "
                       f"{ty} -> {self._frag(tc, which)}"), self._frag(tc, which)

    def tc_load_a(self, tc: Any, node: ast.Call, args: List[ast.expr], env: _Scope) -> Value:
        return self._load(tc, "AOp", node, args, env)

    def tc_load_b(self, tc: Any, node: ast.Call, args: List[ast.expr], env: _Scope) -> Value:
        return self._load(tc, "BOp", node, args, env)

    def tc_mma(self, tc: Any, node: ast.Call, args: List[ast.expr], env: _Scope) -> Value:
        if len(args) != 3:
            raise self.assertion(node, "mma(a, b, c)")
        a, b, c = (self.expr(x, env) for x in args)
        if not all(_is_frag(v[1]) for v in (a, b, c)):
            raise self.type_error(node, "mma(a, b, c) takes fragments")
        return self.op(f"gpu.subgroup_mma_compute {a[0]}, {b[0]}, {c[0]} : {self._frag(tc, 'AOp')}, "
                       f"{self._frag(tc, 'BOp')} -> {self._frag(tc, 'COp')}"), self._frag(tc, 'COp')

    def tc_store(self, tc: Any, node: ast.Call, args: List[ast.expr], env: _Scope) -> Value:
        if len(args) != 5:
            raise self.assertion(node, "store(frag, view, row, col, ld)")
        frag = self.expr(args[0], env)
        view, ty, elem = self._view(args[1], env)
        if elem != tc.c_dtype:
            raise self.type_error(node, f"TensorCore {tc.c_dtype} accumulators store to a {tc.c_dtype} buffer; this buffer holds {elem}")
        row, col = self.index(args[2], env), self.index(args[3], env)
        ld = self.expr(args[4], env)
        if ld[1] != "ct_int":
            raise self.type_error(node, "the leading dimension must be a compile-time integer")
        self.e.emit(f"gpu.subgroup_mma_store_matrix {frag[0]}, {view}[{row}, {col}] {{leadDimension = {ld[0]} : index}} : "
                    f"{self._frag(tc, 'COp')}, {ty}")
        return 0, "ct_int"

    # --- asynchronous copies, mbarriers, thread-block clusters (cuda only) ------------------------------------
    #
    # Lowered to NVVM dialect ops in the traced module (docs/gpu-dsl.md, "Asynchronous copies, mbarriers and
    # clusters"): the buffer element's address is the memref's aligned pointer (memref.extract_aligned_pointer_
    # as_index) plus the layout's flat index (llvm.getelementptr), in the address space the instruction needs.

    _ELEM_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i32": 4, "i64": 8, "i16": 2, "i8": 1}

    def _async_feature(self, feature: str, what: str, node: ast.AST) -> None:
        self.use(feature, node)
        self.gpu_only(what, node)

    def _fixed_ops(self, node: ast.Call, feature: str, what: str, *ops: str) -> Value:
        """A builtin without arguments that stands for a fixed sequence of NVVM ops."""
        self._args(node, 0, 0)
        self._async_feature(feature, what, node)
        for op in ops:
            self.e.emit(op)
        return 0, "ct_int"

    def _element_pointer(self, node: ast.expr, env: _Scope, shared: bool, what: str) -> Tuple[str, Any]:
        """``B[i, …]`` as an LLVM pointer to that element: ``!llvm.ptr<3>`` for a shared buffer, ``!llvm.ptr<1>``
        (global, through a generic → global address-space cast) for a global one."""
        if not isinstance(node, ast.Subscript):
            raise self.type_error(node, f"{what}: give a buffer element, e.g. s[tx]")
        name, buf = self.buffer_of(node, node)
        if buf.shared != shared:
            raise self.type_error(node, f"{what}: '{name}' must be a {'shared' if shared else 'global'} buffer")
        flat = self.address(name, buf, node, env)
        memref = self.ctx._memref(buf)
        base = self.op(f"memref.extract_aligned_pointer_as_index {memref} : {buf.memref_type} -> index")
        base64 = self.op(f"arith.index_cast {base} : index to i64")
        if shared:
            ptr, ty = self.op(f"llvm.inttoptr {base64} : i64 to !llvm.ptr<3>"), "!llvm.ptr<3>"
        else:
            generic = self.op(f"llvm.inttoptr {base64} : i64 to !llvm.ptr")
            ptr, ty = self.op(f"llvm.addrspacecast {generic} : !llvm.ptr to !llvm.ptr<1>"), "!llvm.ptr<1>"
        offset = self.op(f"arith.index_cast {flat} : index to i64")
        elem = buf.element_type
        return self.op(f"llvm.getelementptr {ptr}[{offset}] : ({ty}, i64) -> {ty}, {elem}"), buf

    def _ct_int(self, node: ast.expr, env: _Scope, what: str) -> int:
        v = self.expr(node, env)
        if v[1] != "ct_int":
            raise self.type_error(node, f"{what} must be a compile-time integer")
        return int(v[0])

    def b_async_copy(self, node: ast.Call, env: _Scope) -> Value:
        """``async_copy(s[j], A[i], count=1)``: ``cp.async`` of ``count`` consecutive elements (4, 8 or 16
        bytes) from global ``A`` to shared ``s``; completes at ``async_copy_wait`` / an ``async_copy_arrive``
        mbarrier phase."""
        args = self._args(node, 2, 3)
        self._async_feature(F_ASYNC_COPY, "async_copy()", node)
        count = self._ct_int(args[2], env, "async_copy's element count") if len(args) == 3 else 1
        dst, dbuf = self._element_pointer(args[0], env, True, "async_copy's destination")
        src, sbuf = self._element_pointer(args[1], env, False, "async_copy's source")
        if dbuf.element_type != sbuf.element_type:
            raise self.type_error(node, f"async_copy: {sbuf.element_type} source, {dbuf.element_type} destination")
        size = count * self._ELEM_BYTES.get(dbuf.element_type, 0)
        if size not in (4, 8, 16):
            raise self.type_error(node, f"async_copy copies 4, 8 or 16 bytes; {count} × {dbuf.element_type} is {size}")
        cache = "cg" if size == 16 else "ca"  # .cg (L2 only) exists for 16-byte copies only
        self.e.emit(f"nvvm.cp.async.shared.global {dst}, {src}, {size}, cache = {cache} : !llvm.ptr<3>, !llvm.ptr<1>")
        return 0, "ct_int"

    def b_async_copy_commit(self, node: ast.Call, env: _Scope) -> Value:
        return self._fixed_ops(node, F_ASYNC_COPY, "async_copy_commit()", "nvvm.cp.async.commit.group")

    def b_async_copy_wait(self, node: ast.Call, env: _Scope) -> Value:
        """``async_copy_wait(n=0)``: waits until at most ``n`` committed groups of this thread are pending."""
        args = self._args(node, 0, 1)
        self._async_feature(F_ASYNC_COPY, "async_copy_wait()", node)
        n = self._ct_int(args[0], env, "async_copy_wait's group count") if args else 0
        self.e.emit(f"nvvm.cp.async.wait.group {n}")
        return 0, "ct_int"

    def _mbarrier(self, node: ast.expr, env: _Scope, what: str) -> str:
        ptr, buf = self._element_pointer(node, env, True, what)
        if buf.element_type != "i64":
            raise self.type_error(node, f"{what}: an mbarrier is an i64 shared buffer element (Shared(n, dtype=DType.i64))")
        return ptr

    def b_mbarrier_init(self, node: ast.Call, env: _Scope) -> Value:
        """``mbarrier_init(bar[k], count)``: the mbarrier expects ``count`` arrivals per phase."""
        args = self._args(node, 2, 2)
        self._async_feature(F_MBARRIER, "mbarrier_init()", node)
        ptr = self._mbarrier(args[0], env, "mbarrier_init")
        count = self.convert(self.expr(args[1], env), "i32", node)[0]
        self.e.emit(f"nvvm.mbarrier.init {ptr}, {count} : !llvm.ptr<3>, i32")
        return 0, "ct_int"

    def b_mbarrier_arrive(self, node: ast.Call, env: _Scope) -> Value:
        (arg,) = self._args(node, 1, 1)
        self._async_feature(F_MBARRIER, "mbarrier_arrive()", node)
        ptr = self._mbarrier(arg, env, "mbarrier_arrive")
        self.op(f"nvvm.mbarrier.arrive {ptr} : !llvm.ptr<3> -> i64")
        return 0, "ct_int"

    def b_mbarrier_wait(self, node: ast.Call, env: _Scope) -> Value:
        """``mbarrier_wait(bar[k], parity)``: waits for the completion of the phase of parity ``parity`` (0, 1)
        (``mbarrier.try_wait.parity`` in a loop)."""
        args = self._args(node, 2, 2)
        self._async_feature(F_MBARRIER, "mbarrier_wait()", node)
        ptr = self._mbarrier(args[0], env, "mbarrier_wait")
        parity = self.convert(self.expr(args[1], env), "i32", node)[0]
        ticks = self.const(10_000_000, "i32")
        self.e.emit(f"nvvm.mbarrier.try_wait.parity {ptr}, {parity}, {ticks} : !llvm.ptr<3>, i32, i32")
        return 0, "ct_int"

    def b_async_copy_arrive(self, node: ast.Call, env: _Scope) -> Value:
        """``async_copy_arrive(bar[k])``: this thread's arrival on the mbarrier happens when its earlier
        ``async_copy``s complete (``cp.async.mbarrier.arrive.noinc``: counts as one of the phase's arrivals)."""
        (arg,) = self._args(node, 1, 1)
        self._async_feature(F_ASYNC_COPY, "async_copy_arrive()", node)
        self.use(F_MBARRIER, node)
        ptr = self._mbarrier(arg, env, "async_copy_arrive")
        self.e.emit(f"nvvm.cp.async.mbarrier.arrive {ptr} {{noinc = true}} : !llvm.ptr<3>")
        return 0, "ct_int"

    def cluster_attribute(self, node: ast.Attribute) -> Value:
        """``cluster_id.x/y/z``: the cluster's index in the grid (of clusters)."""
        self._async_feature(F_CLUSTER, "cluster_id", node)
        return self.op(f"gpu.cluster_id {node.attr}"), "index"

    def b_cluster_rank(self, node: ast.Call, env: _Scope) -> Value:
        """``cluster_rank()``: this block's rank in its cluster (``%cluster_ctarank``)."""
        self._args(node, 0, 0)
        self._async_feature(F_CLUSTER, "cluster_rank()", node)
        rank = self.op("nvvm.read.ptx.sreg.cluster.ctarank : i32")
        return self.op(f"arith.index_cast {rank} : i32 to index"), "index"

    def b_cluster_arrive(self, node: ast.Call, env: _Scope) -> Value:
        return self._fixed_ops(node, F_CLUSTER, "cluster_arrive()", "nvvm.cluster.arrive")

    def b_cluster_wait(self, node: ast.Call, env: _Scope) -> Value:
        return self._fixed_ops(node, F_CLUSTER, "cluster_wait()", "nvvm.cluster.wait")

    def b_cluster_barrier(self, node: ast.Call, env: _Scope) -> Value:
        """``cluster_barrier()``: every thread of every block of the cluster (``barrier.cluster.arrive`` +
        ``barrier.cluster.wait``: release/acquire, so shared-memory writes before it are seen by the cluster)."""
        return self._fixed_ops(node, F_CLUSTER, "cluster_barrier()", "nvvm.cluster.arrive", "nvvm.cluster.wait")

    def _remote(self, node: ast.Call, target: ast.expr, rank: ast.expr, env: _Scope, what: str) -> Tuple[str, Any]:
        self._async_feature(F_CLUSTER, what, node)
        ptr, buf = self._element_pointer(target, env, True, what)
        r = self.convert(self.expr(rank, env), "i32", node)[0]
        return self.op(f"nvvm.mapa {ptr}, {r} : !llvm.ptr<3> -> !llvm.ptr<7>"), buf

    def b_cluster_load(self, node: ast.Call, env: _Scope) -> Value:
        """``cluster_load(s[i], rank)``: element ``i`` of shared buffer ``s`` of the cluster's block ``rank``
        (distributed shared memory: ``mapa`` + ``ld.shared::cluster``)."""
        args = self._args(node, 2, 2)
        ptr, buf = self._remote(node, args[0], args[1], env, "cluster_load()")
        return self.op(f"llvm.load {ptr} : !llvm.ptr<7> -> {buf.element_type}"), buf.element_type

    def b_cluster_store(self, node: ast.Call, env: _Scope) -> Value:
        """``cluster_store(s[i], rank, value)``: writes element ``i`` of block ``rank``'s shared buffer ``s``."""
        args = self._args(node, 3, 3)
        ptr, buf = self._remote(node, args[0], args[1], env, "cluster_store()")
        value = self.convert(self.expr(args[2], env), buf.element_type, node)[0]
        self.e.emit(f"llvm.store {value}, {ptr} : {buf.element_type}, !llvm.ptr<7>")
        return 0, "ct_int"
