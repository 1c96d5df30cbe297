"""The tensor API's compiler (the published API, §2.2, §5.4): a layout's forward map, lowered by ``lego-lower``
to index arithmetic, run in Rust over NumPy buffers (``lego._lego.IndexProgram``, python/src/transform.rs), and
the same arithmetic evaluated with vectorized torch operations for PyTorch tensors.

Where the published package JIT-compiles an MLIR module with ``@transform`` / ``@inverse_transform`` loops
through LLVM, lego-rs lowers the layout once (``lego.apply`` on one symbolic index per dim, bounded by the
dims) and hands the arithmetic DAG to an interpreter that evaluates it over chunks of the array: no LLVM JIT
(no per-layout compile time of tens of milliseconds), no per-element Python, and no O(numel) index table kept
(docs/python.md). Both directions use the forward map only: ``transform`` gathers ``y[k] = x[L(B⁻¹(k))]``,
``inverse_transform`` scatters ``x[L(B⁻¹(k))] = y[k]``.
"""

from __future__ import annotations

import enum
import hashlib
from typing import Any, Dict, List, Optional, Sequence, Tuple

import sympy

from .. import _bridge
from .._bridge import ExprContext, cond_desc, to_desc
from .._lego import IndexProgram
from ..core import LayoutBlock, _free, _merge, product, register_compiler_factory

__all__ = ["LayoutCompiler", "get_compiler", "DType", "_dtype_to_mlir", "_get_mlir_element_type", "compile_program",
           "resolve_bindings", "compile_inverse_program", "torch_index", "_COMPILER_CACHE", "check_bijection", "check_permutation"]


class DType(str, enum.Enum):
    """Element types by their MLIR names (``DType.f32 == "f32"``)."""

    f32 = "f32"
    f64 = "f64"
    f16 = "f16"
    bf16 = "bf16"
    i64 = "i64"
    i32 = "i32"
    i16 = "i16"
    i8 = "i8"
    i1 = "i1"
    ui8 = "ui8"
    ui16 = "ui16"
    ui32 = "ui32"
    ui64 = "ui64"


_NUMPY_NAMES = {
    "float32": "f32", "float64": "f64", "float16": "f16", "int64": "i64", "int32": "i32", "int16": "i16",
    "int8": "i8", "bool": "i1", "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
    "complex64": "complex<f32>", "complex128": "complex<f64>", "bfloat16": "bf16",
}
_MLIR_NAMES = set(_NUMPY_NAMES.values()) | {member.value for member in DType}


def _dtype_to_mlir(dtype: Any) -> str:
    """The MLIR element type of a NumPy / torch dtype or a type string.

    Unlike the published package (which maps every unknown dtype to ``f32`` while the buffer keeps its element
    size, the published API §7.6), an unknown dtype is an error: ``float16``, ``uint16`` and the complex types
    have their own names, and anything else raises ``TypeError``."""
    if isinstance(dtype, DType):
        return dtype.value
    if isinstance(dtype, str):
        if dtype in _MLIR_NAMES:
            return dtype
        if dtype in _NUMPY_NAMES:
            return _NUMPY_NAMES[dtype]
        raise TypeError(f"lego: unknown element type {dtype!r} (known: {', '.join(sorted(_MLIR_NAMES))})")
    name = str(dtype)
    name = name[len("torch."):] if name.startswith("torch.") else name
    if name in _NUMPY_NAMES:
        return _NUMPY_NAMES[name]
    try:
        import numpy

        numpy_name = numpy.dtype(dtype).name
        if numpy_name in _NUMPY_NAMES:
            return _NUMPY_NAMES[numpy_name]
    except TypeError:
        pass
    raise TypeError(f"lego: dtype {dtype!r} has no MLIR element type; use one of "
                    f"{', '.join(sorted(_NUMPY_NAMES))} (the published package silently used f32 here)")


def _get_mlir_element_type(dtype: Any) -> str:
    """The element type's MLIR spelling (a string: lego-rs has no MLIR Python bindings)."""
    return _dtype_to_mlir(dtype)


# --- symbolic dims ------------------------------------------------------------------------------------------


def resolve_bindings(layout: LayoutBlock, shape: Optional[Sequence[int]],
                     dim_bindings: Optional[Dict[Any, int]] = None) -> Dict[sympy.Symbol, int]:
    """Values of the layout's size symbols: ``dim_bindings`` first (keys symbols or names), then the equations
    ``dims[k] == shape[k]`` position by position, each solved once it has a single unknown (``R·T = 120``
    after ``R`` is known). Unresolved symbols → ``ValueError`` ``Cannot resolve symbolic dimension``."""
    symbols = layout._symbols()
    by_name = {str(symbol): symbol for symbol in symbols}
    bindings: Dict[sympy.Symbol, int] = {}
    for key, value in (dim_bindings or {}).items():
        symbol = by_name.get(str(key))
        if symbol is not None:
            bindings[symbol] = int(value)
    dims = [sympy.sympify(d) for d in layout.dims()]
    if shape is not None and len(shape) == len(dims):
        progress = True
        while progress:
            progress = False
            for dim, size in zip(dims, shape):
                known = {k: sympy.Integer(v) for k, v in bindings.items()}
                unknown = sympy.sympify(dim.xreplace(known)).free_symbols
                if len(unknown) != 1:
                    continue
                (symbol,) = unknown
                try:
                    solutions = [s for s in sympy.solve(sympy.Eq(dim.xreplace(known), int(size)), symbol)
                                 if s.is_Integer and s > 0]
                except (NotImplementedError, ValueError, TypeError):
                    continue  # e.g. floor(8/BM) = 2: not solvable for BM
                if len(solutions) == 1:
                    bindings[symbol] = int(solutions[0])
                    progress = True
    missing = sorted(str(s) for s in symbols if s not in bindings)
    if missing:
        raise ValueError(f"Cannot resolve symbolic dimension(s) {', '.join(missing)} of {layout!r}: pass "
                         f"dim_bindings={{{', '.join(f'{m}: ...' for m in missing)}}} or a shape matching the dims")
    return bindings


def _concrete_dims(layout: LayoutBlock, bindings: Dict[sympy.Symbol, int]) -> Tuple[int, ...]:
    out = []
    for dim in layout.dims():
        value = sympy.sympify(sympy.sympify(dim).xreplace({k: sympy.Integer(v) for k, v in bindings.items()}))
        if not value.is_Integer or int(value) <= 0:
            raise ValueError(f"the layout's dim {dim} is {value} with {bindings}: not a positive integer")
        out.append(int(value))
    return tuple(out)


# --- the forward map as a program ------------------------------------------------------------------------

_PREDICATES = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]


class Compiled:
    """A layout's forward map, lowered: the arith DAG (``nodes``, ``result``) over the index space ``dims``, and
    the Rust program running it. Shared by every LayoutCompiler / LegoLayout of an equal layout."""

    def __init__(self, nodes: List[Tuple[str, List[int], int]], result: int, dims: Tuple[int, ...],
                 lego_ir: str, key: str) -> None:
        self.nodes = nodes
        self.result = result
        self.dims = dims
        self.numel = int(product(dims))
        self.program = IndexProgram(nodes, result, list(dims))
        self.lego_ir = lego_ir
        self.key = key
        self.tables: Optional[Tuple[Any, Any]] = None
        self.bijective = False  # set once check_bijection has seen the whole forward table
        self.inverse_program: Optional["Compiled"] = None  # compile_inverse_program's, once asked


_COMPILER_CACHE: Dict[str, Compiled] = {}
_CACHE_LIMIT = 256


def _request(layout: LayoutBlock, bindings: Dict[sympy.Symbol, int], inverse: bool = False) -> Tuple[Any, ...]:
    """The descriptors of ``apply`` on one symbolic index per dim (bounded by the dim), size symbols bound to
    their values: what is lowered, and the cache key. ``inverse``: of ``apply_inverse`` on the offset
    ``r·C + c`` instead (``C = dims[-1]``, ``r`` and ``c`` bounded); the last item is then ``(r, c)``, the
    program's dims, in place of the indices."""
    dims = _concrete_dims(layout, bindings)
    indices = [sympy.Symbol(f"_lego_tr{k}", integer=True) for k in range(len(dims))]
    bounds = layout._build_constraints()
    for symbol, value in bindings.items():
        _merge(bounds, symbol, sympy.Integer(value), sympy.Integer(value + 1))
    for index, dim in zip(indices, dims):
        bounds[index] = (sympy.Integer(0), sympy.Integer(dim))
    offset = [sympy.Symbol("_lego_inv_r", integer=True), sympy.Symbol("_lego_inv_c", integer=True)]
    if inverse:
        bounds[offset[0]] = (sympy.Integer(0), sympy.Integer(int(product(dims)) // dims[-1]))
        bounds[offset[1]] = (sympy.Integer(0), sympy.Integer(dims[-1]))
    facts = list(dict.fromkeys(layout._facts() + layout._user_facts()))
    symbols = set(layout._symbols()) | set(indices) | _free(facts)
    for symbol, (lower, upper) in bounds.items():
        symbols |= {symbol} | _free([b for b in (lower, upper) if b is not None])
    names = tuple(sorted(symbols, key=lambda s: (str(s), s.sort_key())))
    ctx = ExprContext({symbol: k for k, symbol in enumerate(names)})
    desc = layout._emit(ctx)
    bound_descs = tuple((ctx.arguments[s], None if lo is None else to_desc(lo, ctx), None if hi is None else to_desc(hi, ctx))
                        for s, (lo, hi) in sorted(bounds.items(), key=lambda item: str(item[0])))
    fact_descs = tuple(cond_desc(fact, ctx) for fact in facts)
    if inverse:
        return desc, names, to_desc(offset[0] * dims[-1] + offset[1], ctx), bound_descs, fact_descs, dims, offset
    operand = tuple(to_desc(index, ctx) for index in indices)
    return desc, names, operand, bound_descs, fact_descs, dims, indices


def _program_nodes(nodes: List[Any], names: Sequence[sympy.Symbol], indices: Sequence[sympy.Symbol],
                   bindings: Dict[sympy.Symbol, int]) -> List[Tuple[str, List[int], int]]:
    """The lowered DAG as ``IndexProgram`` nodes: an argument is the program's dim ``k`` (``indices[k]``) or a
    size bound to a constant."""
    position = {index: k for k, index in enumerate(indices)}
    program_nodes: List[Tuple[str, List[int], int]] = []
    for kind, operands, extra in nodes:
        if kind == "arg":
            symbol = names[extra]
            if symbol in position:
                program_nodes.append(("dim", [], position[symbol]))
            elif symbol in bindings:
                program_nodes.append(("const", [], int(bindings[symbol])))
            else:
                raise ValueError(f"Cannot resolve symbolic dimension {symbol}: pass dim_bindings")
        elif kind == "cmpi":
            program_nodes.append((kind, list(operands), _PREDICATES.index(extra)))
        else:
            program_nodes.append((kind, list(operands), int(extra) if isinstance(extra, int) else 0))
    return program_nodes


_LAYOUT_KINDS = {"row", "col", "reg_p", "gen_p", "order_by", "group_by", "tile_by"}


def _without_locations(desc: Any) -> Any:
    """A layout descriptor with the source locations dropped: equal layouts built on different lines share
    one compiled program."""
    if isinstance(desc, tuple):
        if len(desc) >= 2 and desc[0] in _LAYOUT_KINDS:
            return (desc[0], None) + tuple(_without_locations(part) for part in desc[2:])
        return tuple(_without_locations(part) for part in desc)
    return desc


def compile_program(layout: LayoutBlock, bindings: Optional[Dict[sympy.Symbol, int]] = None) -> Compiled:
    """The lowered forward map of ``layout`` (sizes bound by ``bindings``), cached process-wide by the SHA-256
    of the request (equal layouts share one)."""
    bindings = bindings or {}
    desc, names, operand, bound_descs, fact_descs, dims, indices = _request(layout, bindings)
    key = hashlib.sha256(repr((_without_locations(desc), [str(n) for n in names], operand, bound_descs, fact_descs)).encode()).hexdigest()
    cached = _COMPILER_CACHE.get(key)
    if cached is not None:
        return cached
    nodes, results, before, _ = _bridge.session().evaluate(desc, len(names), "apply", list(operand), list(bound_descs),
                                                           list(fact_descs), keep_ir=True)
    compiled = Compiled(_program_nodes(nodes, names, indices, bindings), results[0], dims, before or "", key)
    if len(_COMPILER_CACHE) >= _CACHE_LIMIT:
        _COMPILER_CACHE.clear()
    _COMPILER_CACHE[key] = compiled
    return compiled


def compile_inverse_program(layout: LayoutBlock, bindings: Optional[Dict[sympy.Symbol, int]],
                            forward: Compiled) -> Compiled:
    """The inverse map as a program over the *offsets*: ``lin(L⁻¹(p))``, the row-major index of the element stored
    at offset ``p``, with ``p = r·C + c`` split into rows ``r`` and columns ``c`` (``C = dims[-1]``), so that
    ``inverse_transform`` is a gather whose writes run contiguous (lego.backend.triton_layout). The offset is
    handed to ``lego-lower`` as that expression over two bounded indices: the proved simplifier turns
    ``(r·C + c) / C`` into ``r`` and ``mod C`` into ``c`` where it can. Cached on ``forward``."""
    cached = getattr(forward, "inverse_program", None)
    if cached is not None:
        return cached
    bindings = bindings or {}
    desc, names, operand, bound_descs, fact_descs, dims, offset = _request(layout, bindings, inverse=True)
    nodes, results, _, _ = _bridge.session().evaluate(desc, len(names), "inv", operand, list(bound_descs),
                                                      list(fact_descs))
    program_nodes = _program_nodes(nodes, names, offset, bindings)
    if len(results) != len(dims):
        raise ValueError(f"the inverse gave {len(results)} indices for {len(dims)} dims")
    # lin = ((i0·d1 + i1)·d2 + …): the logical row-major position.
    lin = results[0]
    for k in range(1, len(dims)):
        program_nodes.append(("const", [], int(dims[k])))
        program_nodes.append(("muli", [lin, len(program_nodes) - 1], 0))
        program_nodes.append(("addi", [len(program_nodes) - 1, results[k]], 0))
        lin = len(program_nodes) - 1
    inverse = Compiled(program_nodes, lin, (forward.numel // dims[-1], dims[-1]), "", forward.key + ":inverse")
    forward.inverse_program = inverse
    return inverse


# --- NumPy ---------------------------------------------------------------------------------------------------


def _unflatten(dims: Sequence[int], flat: int) -> Tuple[int, ...]:
    """The row-major index of ``flat`` in ``dims`` (how the tensor API enumerates the index space)."""
    index = []
    for dim in reversed(dims):
        flat, digit = divmod(flat, dim)
        index.append(digit)
    return tuple(reversed(index))


def check_permutation(fwd: Any, dims: Sequence[int]) -> None:
    """``ValueError`` unless the forward table ``fwd`` (NumPy int64, ``fwd[k] = L(B⁻¹(k))``) is a permutation of
    ``[0, numel)``: the first offset out of range, or two indices that land on the same offset, are named."""
    import numpy

    numel = int(fwd.size)
    outside = numpy.flatnonzero((fwd < 0) | (fwd >= numel))
    if outside.size:
        k = int(outside[0])
        raise ValueError(f"the layout maps index {_unflatten(dims, k)} to offset {int(fwd[k])}, outside the {numel} "
                         f"elements: it is not a bijection on this shape")
    # Every offset is in range; a permutation iff the last writer of each offset is the only one.
    last = numpy.empty(numel, dtype=numpy.int64)
    last[fwd] = numpy.arange(numel, dtype=numpy.int64)
    clash = numpy.flatnonzero(last[fwd] != numpy.arange(numel, dtype=numpy.int64))
    if clash.size:
        k = int(clash[0])
        other = int(last[fwd[k]])
        raise ValueError(f"the layout maps indices {_unflatten(dims, k)} and {_unflatten(dims, other)} both to offset "
                         f"{int(fwd[k])}: it is not a bijection on this shape")


def program_table(compiled: Compiled) -> Any:
    """The program's value at every point of its index space, row-major (NumPy int64; the forward table
    ``fwd[k] = L(B⁻¹(k))`` of a layout's program)."""
    import numpy

    table = numpy.empty(compiled.numel, dtype=numpy.int64)
    compiled.program.table(table.ctypes.data)
    return table


def check_bijection(compiled: Compiled) -> Optional[Any]:
    """Checks once per compiled layout (O(numel), before any data moves) that its forward map is a bijection
    on its index space; returns the forward table when it had to build it (``None`` when already checked)."""
    if compiled.bijective:
        return None
    fwd = program_table(compiled)
    check_permutation(fwd, compiled.dims)
    compiled.bijective = True
    return fwd


def numpy_run(compiled: Compiled, array: Any, gather: bool, out_shape: Sequence[int], batch: int = 1) -> Any:
    """``transform`` (gather) or ``inverse_transform`` (scatter) of a NumPy array, in Rust. The map is checked to
    be a bijection first: a scatter then writes every element of ``out`` (never uninitialised memory)."""
    import numpy

    source = numpy.ascontiguousarray(array)
    if source.dtype.hasobject:
        raise TypeError(f"lego: cannot transform an array of dtype {source.dtype} (Python objects)")
    if source.size != compiled.numel * batch:
        raise ValueError(f"Tensor numel ({source.size}) != layout numel ({compiled.numel * batch})")
    check_bijection(compiled)
    out = numpy.empty(tuple(out_shape), dtype=source.dtype)
    compiled.program.run(source.ctypes.data, out.ctypes.data, source.dtype.itemsize, gather, batch)
    return out


def permutation_tables(compiled: Compiled) -> Tuple[Any, Any]:
    """``(fwd, inv)`` int64, built once per compiled layout and shared (the published API, §2.3)."""
    import numpy

    if compiled.tables is None:
        fwd = check_bijection(compiled)
        if fwd is None:
            fwd = program_table(compiled)
        inv = numpy.empty_like(fwd)
        inv[fwd] = numpy.arange(compiled.numel, dtype=numpy.int64)
        fwd.setflags(write=False)
        inv.setflags(write=False)
        compiled.tables = (fwd, inv)
    return compiled.tables


# --- PyTorch -----------------------------------------------------------------------------------------------


def torch_index(compiled: Compiled, device: Any) -> Any:
    """The flat offsets ``L(B⁻¹(k))`` as an int64 tensor on ``device``: the DAG evaluated with torch operations
    over broadcast index vectors (dim k is ``arange(d_k)`` shaped ``(1, …, d_k, …, 1)``), so a node depending
    on few dims costs only their product; the result is expanded to the full index space."""
    import torch

    check_bijection(compiled)
    dims = compiled.dims
    rank = len(dims)
    values: List[Any] = []

    def const(value: int) -> Any:
        return torch.tensor(value, dtype=torch.int64, device=device)

    for kind, operands, extra in compiled.nodes:
        args = [values[k] for k in operands]
        if kind in ("const", "bool"):
            value = const(extra)
        elif kind == "dim":
            shape = [1] * rank
            shape[extra] = dims[extra]
            value = torch.arange(dims[extra], dtype=torch.int64, device=device).view(shape)
        elif kind == "addi":
            value = args[0] + args[1]
        elif kind == "subi":
            value = args[0] - args[1]
        elif kind == "muli":
            value = args[0] * args[1]
        elif kind in ("divui", "floordivsi"):
            value = torch.div(args[0], args[1], rounding_mode="floor")
        elif kind == "divsi":
            value = torch.div(args[0], args[1], rounding_mode="trunc")
        elif kind in ("ceildivui", "ceildivsi"):
            value = -torch.div(-args[0], args[1], rounding_mode="floor")
        elif kind == "remui":
            value = torch.remainder(args[0], args[1])
        elif kind == "remsi":
            value = torch.fmod(args[0], args[1])
        elif kind in ("maxui", "maxsi"):
            value = torch.maximum(args[0], args[1])
        elif kind in ("minui", "minsi"):
            value = torch.minimum(args[0], args[1])
        elif kind == "shli":
            value = torch.bitwise_left_shift(args[0], args[1])
        elif kind in ("shrui", "shrsi"):
            value = torch.bitwise_right_shift(args[0], args[1])
        elif kind == "andi":
            value = torch.bitwise_and(args[0], args[1])
        elif kind == "ori":
            value = torch.bitwise_or(args[0], args[1])
        elif kind == "xori":
            value = torch.bitwise_xor(args[0], args[1])
        elif kind == "cmpi":
            a, b = args
            name = _PREDICATES[extra]
            value = {"eq": torch.eq, "ne": torch.ne, "slt": torch.lt, "ult": torch.lt, "sle": torch.le,
                     "ule": torch.le, "sgt": torch.gt, "ugt": torch.gt, "sge": torch.ge, "uge": torch.ge}[name](a, b)
            value = value.to(torch.int64)
        elif kind == "select":
            value = torch.where(args[0] != 0, args[1], args[2])
        elif kind in ("index_cast", "index_castui", "extui", "extsi", "trunci"):
            value = args[0]
        else:
            raise ValueError(f"lego: the index arithmetic holds '{kind}', which the torch path cannot run")
        values.append(value)
    index = values[compiled.result].expand(dims).reshape(-1)
    # Checked unless interval arithmetic proved every offset in range (the check synchronises the device).
    if not compiled.program.in_range and (int(index.min()) < 0 or int(index.max()) >= compiled.numel):
        raise ValueError(f"the layout maps a position outside the {compiled.numel} elements: it is not a bijection "
                         f"on this shape")
    return index


# --- LayoutCompiler (§5.4) -----------------------------------------------------------------------------------


class LayoutCompiler:
    """``LayoutCompiler(layout, shape, dtype="f32", dim_bindings=None)``: the transform of one layout for inputs of
    ``shape`` (the published API, §5.4). ``compile`` lowers once (cached process-wide); the transforms run in
    Rust (any element size: the dtype only names the element type in ``mlir_text``)."""

    def __init__(self, layout: LayoutBlock, shape: Optional[Sequence[int]] = None, dtype: Any = "f32",
                 dim_bindings: Optional[Dict[Any, int]] = None) -> None:
        if not isinstance(layout, LayoutBlock):
            raise TypeError(f"LayoutCompiler: {layout!r} is not a layout")
        self.layout = layout
        self.dtype = _dtype_to_mlir(dtype)
        self.bindings = resolve_bindings(layout, shape, dim_bindings)
        self.sym_list = sorted(self.bindings, key=str)
        self.shape = tuple(int(s) for s in shape) if shape is not None else _concrete_dims(layout, self.bindings)
        self._compiled: Optional[Compiled] = None

    def compile(self, pipeline_name: str = "lego-to-llvm") -> "LayoutCompiler":
        """Lowers the layout (``lego-lower``; ``pipeline_name`` is accepted for the published signature: the
        transform runs the lowered arithmetic in Rust, no LLVM module is built)."""
        if self._compiled is None:
            self._compiled = compile_program(self.layout, self.bindings)
            if self._compiled.numel != int(product(self.shape)):
                raise ValueError(f"the shape {self.shape} has {int(product(self.shape))} elements, the layout "
                                 f"{self._compiled.numel} (numel mismatch)")
        return self

    @property
    def compiled(self) -> Compiled:
        return self.compile()._compiled  # type: ignore[return-value]

    @property
    def mlir_text(self) -> str:
        return self.compiled.lego_ir

    @property
    def dims(self) -> Tuple[int, ...]:
        """The layout's dims with the size symbols bound."""
        return _concrete_dims(self.layout, self.bindings)

    def llvm_module(self, pipeline_name: str = "lego-to-llvm") -> str:
        """The lowered request (``mlir_text``: ``@roundtrip`` taking the bound size symbols, sorted by name, then
        one index per dim, and returning ``apply``) through ``pipeline_name``, in-process: the LLVM-dialect
        module of the forward map (the transforms themselves run the same arithmetic in Rust)."""
        from .. import _lego

        return _lego.compile_module(self.mlir_text, f"builtin.module({pipeline_name})")

    def transform_numpy(self, array: Any) -> Any:
        return numpy_run(self.compiled, array, True, array.shape)

    def inverse_transform_numpy(self, array: Any) -> Any:
        return numpy_run(self.compiled, array, False, array.shape)

    def get_permutation_table(self) -> Tuple[Any, Any]:
        return permutation_tables(self.compiled)


def get_compiler(layout: LayoutBlock, shape: Optional[Sequence[int]] = None, dtype: Any = "f32",
                 dim_bindings: Optional[Dict[Any, int]] = None) -> LayoutCompiler:
    """A compiled LayoutCompiler, kept on the layout object per ``(shape, dtype, bindings)``."""
    key = (None if shape is None else tuple(int(s) for s in shape), _dtype_to_mlir(dtype),
           tuple(sorted((str(k), int(v)) for k, v in (dim_bindings or {}).items())))
    cache = layout.__dict__.setdefault("_lego_compilers", {})
    compiler = cache.get(key)
    if compiler is None:
        compiler = LayoutCompiler(layout, shape, dtype, dim_bindings).compile()
        cache[key] = compiler
    return compiler


# GroupBy.transform (lego.core) compiles through this module; lego.core does not import it (one direction).
register_compiler_factory(get_compiler)
