"""``lego.compile`` and the kernel builders (the published API's §5.1–§5.5) on lego-rs's pipelines.

A kernel is written as MLIR text — a public ``func.func`` holding one ``gpu.launch`` whose body uses lego ops
(``lego.row`` … ``lego.tile_by``, ``lego.apply``, ``lego.apply_inverse``) for every index — and compiled
in-process by ``lego._lego.compile_module`` with one of the registry's pipelines: ``lego-to-nvvm`` (PTX),
``lego-to-rocdl`` (AMDGCN), ``lego-to-llvmspirv`` (OpenCL SPIR-V), ``lego-to-spirv`` (Vulkan SPIR-V, then
``naga`` for WGSL / MSL / GLSL), ``lego-to-wasm``, ``lego-to-llvm``. ``lego-lower`` inside each pipeline turns
the layouts into index arithmetic. ``build_module()`` returns ``(module, text)``: lego-rs's parsed and verified
module (``lego._lego.Module``) and its text (docs/python.md, "Kernel builders")."""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import sympy

from .. import _lego
from ..core import Col, GenP, GroupBy, LayoutBlock, OrderBy, RegP, Row, TileByLayout, product


# --- element types -------------------------------------------------------------------------------------------

# One DType for the package: the published API defines it in lego.backend.compiler (§5.4).
from ..backend.compiler import DType  # noqa: E402


_MLIR_TYPES = {"f32": "f32", "f64": "f64", "f16": "f16", "bf16": "bf16", "i32": "i32", "i64": "i64",
               "i16": "i16", "i8": "i8", "i1": "i1", "ui8": "i8"}


def _dtype_to_mlir(dtype: Union[str, DType, None]) -> str:
    """Element type strings of the published package; an unknown one is f32 (as published)."""
    name = dtype.value if isinstance(dtype, DType) else str(dtype or "f32")
    return _MLIR_TYPES.get(name, "f32")


def _is_float(mlir_type: str) -> bool:
    return mlir_type.startswith("f") or mlir_type == "bf16"


# --- layouts as lego ops ---------------------------------------------------------------------------------------

def _int(value: Any, what: str) -> int:
    value = sympy.sympify(value)
    if not value.is_Integer:
        raise ValueError(f"{what}: the kernel builders need concrete sizes, got {value}")
    return int(value)


def _ints(values: Sequence[Any], what: str) -> str:
    return "[" + ", ".join(str(_int(v, what)) for v in values) + "]"


class _Emitter:
    """SSA text of one function body."""

    def __init__(self) -> None:
        self.lines: List[str] = []
        self.counter = 0
        self.indent = "    "

    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"%{prefix}{self.counter}"

    def emit(self, line: str) -> None:
        self.lines.append(self.indent + line)

    def layout(self, layout: LayoutBlock) -> str:
        """The lego ops building ``layout``; returns its SSA name."""
        if isinstance(layout, Row) or isinstance(layout, Col):
            name = self.fresh("l")
            kind = "row" if isinstance(layout, Row) else "col"
            self.emit(f"{name} = lego.{kind} {_ints(layout.dims(), kind)} : !lego.layout")
            return name
        if isinstance(layout, RegP):
            name = self.fresh("l")
            self.emit(f"{name} = lego.reg_p perm {list(layout._perm_vector)} dims {_ints(layout.dims(), 'reg_p')} : !lego.layout")
            return name
        if isinstance(layout, TileByLayout):
            perms = [self.layout(p) for element in layout._input_chain for p in element.perms]
            inner = self.fresh("l")
            self.emit(f"{inner} = lego.order_by({', '.join(perms)}) : !lego.layout")
            name = self.fresh("l")
            levels = ", ".join(_ints(group, "tile_by") for group in layout._tile_groups)
            self.emit(f"{name} = lego.tile_by {inner} tile_dims [{levels}] : !lego.layout")
            return name
        if isinstance(layout, GroupBy):
            objects = []
            for obj in layout.objects:
                if isinstance(obj, OrderBy):
                    parts = [self.layout(p) for p in obj.perms]
                    o = self.fresh("l")
                    self.emit(f"{o} = lego.order_by({', '.join(parts)}) : !lego.layout")
                    objects.append(o)
                else:
                    objects.append(self.layout(obj))
            name = self.fresh("l")
            self.emit(f"{name} = lego.group_by {_ints(layout.dims(), 'group_by')}({', '.join(objects)}) : !lego.layout")
            return name
        if isinstance(layout, OrderBy):
            if len(layout.chain) > 1:
                return self.layout(GroupBy([layout.dims()], list(layout.chain)))
            parts = [self.layout(p) for p in layout.perms]
            name = self.fresh("l")
            self.emit(f"{name} = lego.order_by({', '.join(parts)}) : !lego.layout")
            return name
        if isinstance(layout, GenP):
            return self.gen_p(layout)
        raise TypeError(f"{layout!r} is not a layout")


    def gen_p(self, layout: GenP) -> str:
        """``lego.gen_p`` with its ``apply`` region (and ``inv`` when the layout has an inverse) written from the
        SymPy bodies, as the tensor API emits them (lego._bridge.to_desc), as arith text."""
        from .._bridge import ExprContext, to_desc

        dims = _ints(layout.dims(), "gen_p")
        name = self.fresh("l")
        saved = self.indent
        args = [f"%ga{self.counter}_{k}" for k in range(len(layout._indices))]
        self.emit(f"{name} = lego.gen_p {dims} apply ({', '.join(f'{a}: index' for a in args)}) {{")
        self.indent = saved + "  "
        ctx = ExprContext({}, {x: k for k, x in enumerate(layout._indices)})
        flat = self._desc(to_desc(layout._apply_expr, ctx), args)
        self.emit(f"lego.yield {flat} : index")
        self.indent = saved
        if layout._inv_exprs is not None:
            x = f"%gx{self.counter}"
            self.emit(f"}} inv ({x}: index) {{")
            self.indent = saved + "  "
            ctx = ExprContext({}, {layout._flat: 0})
            values = [self._desc(to_desc(e, ctx), [x]) for e in layout._inv_exprs]
            self.emit(f"lego.yield {', '.join(values)} : {', '.join('index' for _ in values)}")
            self.indent = saved
        self.emit("} : !lego.layout")
        return name

    _BINARY = {"sub": "subi", "floordiv": "divui", "ceildiv": "ceildivui", "mod": "remui"}
    _NARY = {"add": "addi", "mul": "muli", "max": "maxui", "min": "minui"}
    _CMP = {"lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge", "eq": "eq", "ne": "ne"}

    def _desc(self, desc: Tuple[Any, ...], block: List[str]) -> str:
        """arith ops (index) of a lego._bridge descriptor; region arguments are ``block``. Divisions are
        unsigned: a gen_p's indices are non-negative."""
        kind = desc[0]

        def op(text: str, ty: str = "index") -> str:
            out = self.fresh("g")
            self.emit(f"{out} = {text} : {ty}")
            return out

        if kind == "int":
            return op(f"arith.constant {int(desc[1])}")
        if kind == "bool":
            return op(f"arith.constant {'true' if desc[1] else 'false'}", "i1")
        if kind == "barg":
            return block[desc[1]]
        if kind == "arg":
            raise ValueError("kernel builders need concrete sizes: a GenP body with a size symbol")
        if kind in self._NARY:
            values = [self._desc(d, block) for d in desc[1]]
            acc = values[0]
            for value in values[1:]:
                acc = op(f"arith.{self._NARY[kind]} {acc}, {value}")
            return acc
        if kind in self._BINARY:
            a, b = self._desc(desc[1], block), self._desc(desc[2], block)
            return op(f"arith.{self._BINARY[kind]} {a}, {b}")
        if kind == "cmp":
            a, b = self._desc(desc[2], block), self._desc(desc[3], block)
            out = self.fresh("g")
            self.emit(f"{out} = arith.cmpi {self._CMP[desc[1]]}, {a}, {b} : index")
            return out
        if kind == "select":
            c, a, b = (self._desc(d, block) for d in desc[1:4])
            return op(f"arith.select {c}, {a}, {b}")
        raise NotImplementedError(f"GenP in a kernel builder: the expression kind '{kind}' has no arith form here")


def _as_layout(layout_or_dims: Any, shape: Optional[Sequence[int]]) -> LayoutBlock:
    if isinstance(layout_or_dims, LayoutBlock):
        return layout_or_dims
    dims = tuple(shape or layout_or_dims)
    return OrderBy(Row(*dims))


# --- buffers, context ------------------------------------------------------------------------------------------

@dataclass
class LayoutBuffer:
    layout: Any
    shape: Sequence[int]
    dtype: Union[DType, str] = DType.f32
    shared: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.dtype, str):
            self.dtype = DType(self.dtype) if self.dtype in DType._value2member_map_ else DType.f32
        self.shape = tuple(int(s) for s in self.shape)

    @property
    def numel(self) -> int:
        return int(np.prod(self.shape))

    @property
    def element_type(self) -> str:
        return _dtype_to_mlir(self.dtype)

    @property
    def memref_type(self) -> str:
        space = ", 3" if self.shared else ""
        return f"memref<{self.numel}x{self.element_type}{space}>"


class _Dim3:
    def __init__(self, x: str, y: str, z: str) -> None:
        self.x, self.y, self.z = x, y, z


class KernelContext:
    """What a kernel body sees: launch ids, layout arithmetic, buffer access, arithmetic and control flow.
    Values are SSA names (strings)."""

    def __init__(self, emitter: _Emitter, buffers: Dict[int, Tuple[LayoutBuffer, str]]) -> None:
        self._e = emitter
        self._buffers = buffers
        self._layouts: Dict[int, LayoutBlock] = {id(b): b.layout for b, _ in buffers.values()}
        self.block_id = _Dim3("%bx", "%by", "%bz")
        self.thread_id = _Dim3("%tx", "%ty", "%tz")
        self.block_dim = _Dim3("%sx", "%sy", "%sz")
        self.grid_dim = _Dim3("%gx", "%gy", "%gz")
        self.gid: Optional[str] = None

    def _op(self, text: str, prefix: str = "v") -> str:
        name = self._e.fresh(prefix)
        self._e.emit(f"{name} = {text}")
        return name

    # constants and arithmetic
    def const_index(self, value: int) -> str:
        return self._op(f"arith.constant {int(value)} : index", "c")

    def const_f32(self, value: float) -> str:
        return self._op(f"arith.constant {float(value)!r} : f32", "cf")

    def addi(self, a: str, b: str) -> str:
        return self._op(f"arith.addi {a}, {b} : index")

    def muli(self, a: str, b: str) -> str:
        return self._op(f"arith.muli {a}, {b} : index")

    add, mul = addi, muli

    def addf(self, a: str, b: str, ty: str = "f32") -> str:
        return self._op(f"arith.addf {a}, {b} : {ty}")

    def subf(self, a: str, b: str, ty: str = "f32") -> str:
        return self._op(f"arith.subf {a}, {b} : {ty}")

    def mulf(self, a: str, b: str, ty: str = "f32") -> str:
        return self._op(f"arith.mulf {a}, {b} : {ty}")

    def lt(self, a: str, b: str) -> str:
        return self._op(f"arith.cmpi ult, {a}, {b} : index")

    def eq(self, a: str, b: str) -> str:
        return self._op(f"arith.cmpi eq, {a}, {b} : index")

    # layouts
    def apply(self, layout: LayoutBlock, *idx: str) -> str:
        l = self._e.layout(layout)
        return self._op(f"lego.apply {l}({', '.join(idx)}) : !lego.layout")

    def apply_inverse(self, layout: LayoutBlock, flat: str) -> List[str]:
        l = self._e.layout(layout)
        names = [self._e.fresh("i") for _ in layout.dims()]
        types = ", ".join("index" for _ in names)
        self._e.emit(f"{', '.join(names)} = lego.apply_inverse {l}({flat}) : !lego.layout -> {types}")
        return names

    def set_layout(self, buf: LayoutBuffer, layout: LayoutBlock) -> None:
        self._layouts[id(buf)] = layout

    # memory
    def _memref(self, buf: LayoutBuffer) -> str:
        return self._buffers[id(buf)][1]

    def load_flat(self, buf: LayoutBuffer, flat: str) -> str:
        return self._op(f"memref.load {self._memref(buf)}[{flat}] : {buf.memref_type}")

    def store_flat(self, value: str, buf: LayoutBuffer, flat: str) -> None:
        self._e.emit(f"memref.store {value}, {self._memref(buf)}[{flat}] : {buf.memref_type}")

    def load(self, buf: LayoutBuffer, indices: Sequence[str]) -> str:
        return self.load_flat(buf, self.apply(self._layouts[id(buf)], *indices))

    def store(self, value: str, buf: LayoutBuffer, indices: Sequence[str]) -> None:
        self.store_flat(value, buf, self.apply(self._layouts[id(buf)], *indices))

    def load_raw(self, buf: LayoutBuffer) -> str:
        if self.gid is None:
            raise ValueError("load_raw needs the global id (make_elementwise_kernel)")
        return self.load_flat(buf, self.gid)

    def store_raw(self, value: str, buf: LayoutBuffer) -> None:
        if self.gid is None:
            raise ValueError("store_raw needs the global id (make_elementwise_kernel)")
        self.store_flat(value, buf, self.gid)

    def barrier(self) -> None:
        self._e.emit("gpu.barrier")

    # control flow
    def if_(self, cond: str, then: Callable[[], None]) -> None:
        self._e.emit(f"scf.if {cond} {{")
        saved = self._e.indent
        self._e.indent += "  "
        then()
        self._e.indent = saved
        self._e.emit("}")

    def for_range(self, n: Union[int, str], body: Callable[..., Any], init_vals: Optional[Sequence[Tuple[str, str]]] = None) -> List[str]:
        """``for i in range(n)``; ``init_vals``: ``[(value, type)]`` carried, ``body(i, *carries)`` returns the
        next carries. Returns the final carries."""
        upper = n if isinstance(n, str) else self.const_index(n)
        zero, one = self.const_index(0), self.const_index(1)
        iv = self._e.fresh("k")
        init_vals = list(init_vals or [])
        results = [self._e.fresh("r") for _ in init_vals]
        carries = [self._e.fresh("a") for _ in init_vals]
        head = f"scf.for {iv} = {zero} to {upper} step {one}"
        if init_vals:
            head += " iter_args(" + ", ".join(f"{c} = {v}" for c, (v, _) in zip(carries, init_vals)) + ") -> (" + \
                    ", ".join(t for _, t in init_vals) + ")"
            head = f"{', '.join(results)} = " + head if len(results) == 1 else f"{results[0]}:{len(results)} = " + head
        self._e.emit(head + " {")
        saved = self._e.indent
        self._e.indent += "  "
        out = body(iv, *carries)
        if init_vals:
            out = list(out) if isinstance(out, (list, tuple)) else [out]
            self._e.emit("scf.yield " + ", ".join(out) + " : " + ", ".join(t for _, t in init_vals))
        self._e.indent = saved
        self._e.emit("}")
        if len(results) > 1:
            return [f"{results[0]}#{k}" for k in range(len(results))]
        return results

    def tile_loop(self, layout: LayoutBlock, body: Callable[[List[str], str], None]) -> None:
        """``body(indices, flat)`` for every flat position of ``layout``."""
        total = int(product(_int(d, "tile_loop") for d in layout.dims()))

        def step(flat: str) -> None:
            body(self.apply_inverse(layout, flat), flat)

        self.for_range(total, lambda iv: step(iv))


class KernelBuilder:
    """One GPU kernel over ``buffers``; ``kernel_body(ctx)`` writes its body."""

    def __init__(self, buffers: Sequence[LayoutBuffer], kernel_body: Callable[[KernelContext], None],
                 name: str = "kernel", workgroup_size: int = 64, grid: Optional[Sequence[int]] = None,
                 block: Optional[Sequence[int]] = None) -> None:
        self.buffers = list(buffers)
        self.kernel_body = kernel_body
        self.name = name
        self.workgroup_size = int(workgroup_size)
        globals_ = [b for b in self.buffers if not b.shared]
        if grid is not None and block is not None:
            self.grid = tuple(list(grid) + [1] * (3 - len(grid)))[:3]
            self.block = tuple(list(block) + [1] * (3 - len(block)))[:3]
        else:
            n = globals_[0].numel if globals_ else 1
            self.grid = (-(-n // self.workgroup_size), 1, 1)
            self.block = (self.workgroup_size, 1, 1)

    @staticmethod
    def global_id_1d(ctx: KernelContext) -> str:
        return ctx.addi(ctx.muli(ctx.block_id.x, ctx.block_dim.x), ctx.thread_id.x)

    def mlir_text(self) -> str:
        e = _Emitter()
        buffers: Dict[int, Tuple[LayoutBuffer, str]] = {}
        args = []
        for k, buf in enumerate(self.buffers):
            if not buf.shared:
                buffers[id(buf)] = (buf, f"%arg{k}")
                args.append(f"%arg{k}: {buf.memref_type}")
        header = [f"func.func @{self.name}({', '.join(args)}) {{"]
        consts = [f"  %grid_{a} = arith.constant {v} : index" for a, v in zip("xyz", self.grid)]
        consts += [f"  %block_{a} = arith.constant {v} : index" for a, v in zip("xyz", self.block)]
        shared = [b for b in self.buffers if b.shared]
        attribution = ""
        if shared:
            names = []
            for k, buf in enumerate(self.buffers):
                if buf.shared:
                    buffers[id(buf)] = (buf, f"%shm{k}")
                    names.append(f"%shm{k} : memref<{buf.numel}x{buf.element_type}, #gpu.address_space<workgroup>>")
            attribution = " workgroup(" + ", ".join(names) + ")"
        launch = ("  gpu.launch blocks(%bx, %by, %bz) in (%gx = %grid_x, %gy = %grid_y, %gz = %grid_z) "
                  f"threads(%tx, %ty, %tz) in (%sx = %block_x, %sy = %block_y, %sz = %block_z){attribution} {{")
        ctx = KernelContext(e, buffers)
        self.kernel_body(ctx)
        body = e.lines
        text = "\n".join(header + consts + [launch] + body + ["    gpu.terminator", "  }", "  return", "}"]) + "\n"
        if shared:
            text = text.replace(", 3>", ", #gpu.address_space<workgroup>>")
        return text

    def build_module(self) -> Tuple[Any, str]:
        """``(module, text)``: the module parsed and verified by lego-rs, held in its own MLIR context
        (``lego._lego.Module``: ``str()``, ``functions()``, ``operation_names()``, ``verify()``, ``run(pipeline)``,
        ``llvm_ir()``; the published API's ``(ctx, module)`` pair, whose first element owns the context), and
        the module's text."""
        text = self.mlir_text()
        return _lego.parse_module(text, f"<{self.name}>"), text

    def compile(self, target: str = "webgpu", **kwargs: Any) -> "CompileResult":
        if target in _GPU_TARGETS:
            return _GPU_TARGETS[target].compile(self, **kwargs)
        if target in SPIRV_TARGETS:
            return compile_to_target(self, target=target, output_dir=kwargs.get("output_dir"),
                                     name=kwargs.get("name", self.name))
        raise ValueError(f"Unknown target '{target}'. Supported: {', '.join(sorted(_all_target_names()))}")


def make_elementwise_kernel(buffers: Sequence[LayoutBuffer], body: Callable[[KernelContext, str], None],
                            name: str = "kernel", workgroup_size: int = 64) -> KernelBuilder:
    def kernel_body(ctx: KernelContext) -> None:
        gid = KernelBuilder.global_id_1d(ctx)
        ctx.gid = gid
        bound = ctx.const_index(buffers[0].numel)
        ctx.if_(ctx.lt(gid, bound), lambda: body(ctx, gid))

    return KernelBuilder(buffers, kernel_body, name=name, workgroup_size=workgroup_size)


def make_permutation_kernel(layout: Any, shape: Optional[Sequence[int]] = None, dtype: Any = "f32",
                            workgroup_size: int = 64) -> KernelBuilder:
    """``dst[B(d, apply_inverse(L, gid))] = src[gid]``: the forward transform, one element per thread
    (kernel ``transform``, buffers ``[src, dst]``)."""
    layout = _as_layout(layout, shape)
    dims = tuple(_int(d, "make_permutation_kernel") for d in layout.dims())
    shape = tuple(shape or dims)
    src = LayoutBuffer(layout, shape, dtype)
    dst = LayoutBuffer(OrderBy(Row(*dims)), shape, dtype)

    def body(ctx: KernelContext, gid: str) -> None:
        idx = ctx.apply_inverse(layout, gid)
        flat = ctx.apply(OrderBy(Row(*dims)), *idx)
        ctx.store_flat(ctx.load_flat(src, gid), dst, flat)

    return make_elementwise_kernel([src, dst], body, name="transform", workgroup_size=workgroup_size)


class GPUIRBuilder:
    """The published permutation-kernel builder of the SPIR-V path: ``build_module()`` of
    ``make_permutation_kernel(layout, shape, dtype_str, workgroup_size)``."""

    def __init__(self, layout: Any, shape: Optional[Sequence[int]] = None, dtype_str: str = "f32",
                 workgroup_size: int = 64) -> None:
        self.builder = make_permutation_kernel(layout, shape, dtype_str, workgroup_size)

    def build_module(self) -> Tuple[Any, str]:
        return self.builder.build_module()


# --- results, targets ------------------------------------------------------------------------------------------

@dataclass
class CompileResult:
    target: str
    kernel_path: str = ""
    kernel_source: str = ""
    spv_path: str = ""
    metadata: Dict[str, Any] = field(default_factory=dict)


def _unescape_mlir_string(text: str) -> bytes:
    out = bytearray()
    k = 0
    while k < len(text):
        c = text[k]
        if c == "\\" and k + 2 < len(text) + 1 and re.match(r"[0-9A-Fa-f]{2}", text[k + 1:k + 3] or ""):
            out.append(int(text[k + 1:k + 3], 16))
            k += 3
        elif c == "\\" and k + 1 < len(text):
            out.append(ord(text[k + 1]))
            k += 2
        else:
            out.extend(c.encode())
            k += 1
    return bytes(out)


def kernel_assembly(lowered: str) -> List[str]:
    """The ``assembly = "…"`` strings of the ``gpu.binary`` ops (PTX, AMDGCN), unescaped."""
    return [_unescape_mlir_string(m).decode("utf-8", "replace")
            for m in re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', lowered)]


def _nvidia_chip() -> Tuple[str, str]:
    features = {7: "+ptx70", 8: "+ptx78", 9: "+ptx80", 10: "+ptx85", 11: "+ptx86", 12: "+ptx87"}
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10)
        major, minor = out.stdout.strip().splitlines()[0].split(".")
        return f"sm_{major}{minor}", features.get(int(major), "+ptx80")
    except Exception:
        return "sm_80", "+ptx78"


class GPUTarget:
    def __init__(self, name: str, pipeline: str, default_chip: Any, default_format: str,
                 default_features: Optional[str] = None, tmp_prefix: str = "lego_gpu_") -> None:
        self.name = name
        self.pipeline = pipeline
        self._default_chip = default_chip
        self.default_format = default_format
        self._default_features = default_features
        self.tmp_prefix = tmp_prefix

    @property
    def default_chip(self) -> str:
        return self._default_chip() if callable(self._default_chip) else self._default_chip

    @property
    def default_features(self) -> Optional[str]:
        f = self._default_features
        return f() if callable(f) else f

    def pipeline_string(self, chip: Optional[str] = None, format: Optional[str] = None,
                        features: Optional[str] = None, opt_level: Optional[int] = None) -> str:
        options = f"chip={chip or self.default_chip} format={format or self.default_format}"
        features = features if features is not None else self.default_features
        if features:
            options += f" features={features}"
        if opt_level is not None:
            options += f" opt-level={opt_level}"
        return f"builtin.module({self.pipeline}{{{options}}})"

    def register(self) -> "GPUTarget":
        _GPU_TARGETS[self.name] = self
        return self

    def compile(self, builder: KernelBuilder, chip: Optional[str] = None, format: Optional[str] = None,
                features: Optional[str] = None, opt_level: Optional[int] = None, output_dir: Optional[str] = None,
                name: Optional[str] = None, **_: Any) -> CompileResult:
        pipeline = self.pipeline_string(chip, format, features, opt_level)
        _, text = builder.build_module()
        try:
            lowered = _lego.compile_module(text, pipeline)
        except _lego.LegoError as error:
            raise RuntimeError(f"{self.name} compilation failed ({pipeline}): {error}") from error
        out = output_dir or tempfile.mkdtemp(prefix=self.tmp_prefix)
        os.makedirs(out, exist_ok=True)
        path = os.path.join(out, f"{name or builder.name}.mlir")
        with open(path, "w") as handle:
            handle.write(lowered)
        metadata: Dict[str, Any] = {"pipeline": self.pipeline, "chip": chip or self.default_chip,
                                    "format": format or self.default_format, "grid": builder.grid,
                                    "block": builder.block}
        assembly = kernel_assembly(lowered)
        if assembly:
            metadata["assembly"] = assembly[0]
        return CompileResult(self.name, kernel_path=path, kernel_source=lowered, metadata=metadata)


def _cuda_format() -> str:
    # A fatbin needs CUDA's ptxas; without it the PTX text (format=assembly) is the output.
    return "fatbin" if shutil.which("ptxas") else "assembly"


_GPU_TARGETS: Dict[str, GPUTarget] = {}
GPUTarget("cuda", "lego-to-nvvm", lambda: _nvidia_chip()[0], _cuda_format(), lambda: _nvidia_chip()[1],
          "lego_cuda_").register()
GPUTarget("rocm", "lego-to-rocdl", "gfx900", "assembly").register()
GPUTarget("llvmspirv", "lego-to-llvmspirv", "generic", "assembly").register()
# Intel GPUs (XeVM; the GPU kernel DSL's `intel` target, docs/gpu-dsl.md).
GPUTarget("intel", "lego-to-xevm", "bmg", "assembly", tmp_prefix="lego_intel_").register()

SPIRV_TARGETS = ("vulkan", "webgpu", "metal", "webgl")


def _all_target_names() -> List[str]:
    return list(_GPU_TARGETS) + list(SPIRV_TARGETS) + ["cpu", "wasm"]


# --- SPIR-V family and naga -------------------------------------------------------------------------------------

class NagaError(RuntimeError):
    pass


def _find_naga_binary() -> str:
    here = os.path.join(os.path.dirname(os.path.dirname(__file__)), "bin", "naga")
    if os.path.isfile(here) and os.access(here, os.X_OK):
        return here
    found = shutil.which("naga")
    if found:
        return found
    raise FileNotFoundError("naga not found (install naga-cli: `cargo install naga-cli`, or `make setup`)")


def naga_convert(src: str, dst: str, extra_args: Optional[Sequence[str]] = None) -> str:
    result = subprocess.run([_find_naga_binary(), *(extra_args or []), src, dst], capture_output=True, text=True)
    if result.returncode != 0:
        raise NagaError(f"naga {src} -> {dst} failed: {result.stderr.strip()}")
    return dst


def naga_validate(path: str) -> bool:
    return subprocess.run([_find_naga_binary(), path], capture_output=True).returncode == 0


def spv_bytes_to_file(words: Sequence[int], path: str) -> str:
    with open(path, "wb") as handle:
        handle.write(np.asarray(words, dtype="<u4").tobytes())
    return path


def _builder_of(layout_or_builder: Any, shape: Optional[Sequence[int]], dtype: Any,
                workgroup_size: int) -> KernelBuilder:
    if isinstance(layout_or_builder, KernelBuilder):
        return layout_or_builder
    if isinstance(layout_or_builder, GPUIRBuilder):
        return layout_or_builder.builder
    return make_permutation_kernel(layout_or_builder, shape, dtype, workgroup_size)


def compile_to_spirv(layout_or_builder: Any, shape: Optional[Sequence[int]] = None, dtype: Any = "f32",
                     workgroup_size: int = 64) -> Tuple[List[int], str]:
    """``(words, lowered_text)``: ``lego-to-spirv``'s module attribute ``lego.spirv_binary``."""
    builder = _builder_of(layout_or_builder, shape, dtype, workgroup_size)
    _, text = builder.build_module()
    try:
        lowered = _lego.compile_module(text, "builtin.module(lego-to-spirv)")
    except _lego.LegoError as error:
        raise RuntimeError(f"SPIR-V compilation failed: {error}") from error
    match = re.search(r'lego\.spirv_binary = "([0-9, ]+)"', lowered)
    if not match:
        raise RuntimeError("SPIR-V compilation produced no lego.spirv_binary attribute")
    words = [int(w) for w in match.group(1).split(",")]
    # The pipeline lowers for a SPIR-V 1.5 target environment (the ABI lowering lists the StorageBuffer
    # variables in the entry point's interface, which only SPIR-V ≥ 1.4 allows), but the VCE update then
    # writes the minimal version the ops need (1.0) into the header: spirv-val rejects such a module. The
    # header gets the environment's version back.
    if len(words) > 1 and words[1] < _SPIRV_ENV_VERSION:
        words[1] = _SPIRV_ENV_VERSION
    return words, lowered


_SPIRV_ENV_VERSION = 0x00010500  # SPIR-V 1.5, the version of lego-to-spirv's target environment


def compile_to_target(layout_or_builder: Any, shape: Optional[Sequence[int]] = None, target: str = "webgpu",
                      dtype: Any = "f32", output_dir: Optional[str] = None, name: str = "kernel",
                      workgroup_size: int = 64, _spv: Optional[Tuple[str, str]] = None) -> CompileResult:
    if target not in SPIRV_TARGETS:
        raise ValueError(f"Unknown target '{target}' (SPIR-V targets: {', '.join(SPIRV_TARGETS)})")
    out = output_dir or tempfile.mkdtemp(prefix="lego_spirv_")
    os.makedirs(out, exist_ok=True)
    if _spv is None:
        words, lowered = compile_to_spirv(layout_or_builder, shape, dtype, workgroup_size)
        spv = spv_bytes_to_file(words, os.path.join(out, f"{name}.spv"))
    else:
        spv, lowered = _spv
    metadata = {"pipeline": "lego-to-spirv"}
    if target == "vulkan":
        return CompileResult(target, kernel_path=spv, kernel_source=f"<binary SPIR-V: {os.path.getsize(spv)} bytes>",
                             spv_path=spv, metadata=metadata)
    try:
        _find_naga_binary()
    except FileNotFoundError as error:
        raise RuntimeError(str(error)) from error
    extension = {"webgpu": "wgsl", "metal": "metal", "webgl": "comp"}[target]
    path = os.path.join(out, f"{name}.{extension}")
    extra: List[str] = []
    if target == "webgl":
        entry = re.search(r"@compute[^\n]*\nfn (\w+)", open(naga_convert(spv, os.path.join(out, f"{name}.entry.wgsl"))).read())
        extra = ["--shader-stage", "compute"] + (["--entry-point", entry.group(1)] if entry else [])
    naga_convert(spv, path, extra)
    return CompileResult(target, kernel_path=path, kernel_source=open(path).read(), spv_path=spv, metadata=metadata)


def compile_all(layout_or_builder: Any, shape: Optional[Sequence[int]] = None, targets: Optional[Sequence[str]] = None,
                dtype: Any = "f32", output_dir: Optional[str] = None, name: str = "kernel",
                workgroup_size: int = 64) -> Dict[str, CompileResult]:
    """Every SPIR-V target from **one** ``.spv``."""
    targets = list(targets or SPIRV_TARGETS)
    out = output_dir or tempfile.mkdtemp(prefix="lego_spirv_")
    os.makedirs(out, exist_ok=True)
    words, lowered = compile_to_spirv(layout_or_builder, shape, dtype, workgroup_size)
    spv = spv_bytes_to_file(words, os.path.join(out, f"{name}.spv"))
    return {t: compile_to_target(None, target=t, output_dir=out, name=name, _spv=(spv, lowered)) for t in targets}


# --- CPU ------------------------------------------------------------------------------------------------------

class CPUTarget:
    def __init__(self, name: str, pipeline: str, default_cpu: Optional[str] = None) -> None:
        self.name, self.pipeline, self.default_cpu = name, pipeline, default_cpu

    def pipeline_string(self, cpu: Optional[str] = None) -> str:
        cpu = cpu or self.default_cpu
        return f"builtin.module({self.pipeline}{{cpu={cpu}}})" if cpu else f"builtin.module({self.pipeline})"


def _host_is_aarch64() -> bool:
    import platform
    return platform.machine().lower() in ("aarch64", "arm64")


def _host_has_sve() -> bool:
    try:
        with open("/proc/cpuinfo") as handle:
            return " sve" in handle.read()
    except OSError:
        return False


_CPU_TARGETS: Dict[str, CPUTarget] = {
    # The vector pipelines (docs/passes/lego-to-x86-vector.md, lego-to-arm-neon.md, lego-to-arm-sve.md).
    "x86": CPUTarget("x86", "lego-to-x86-vector", "skx"),
    "arm-neon": CPUTarget("arm-neon", "lego-to-arm-neon", "cortex-a76"),
    "arm-sve": CPUTarget("arm-sve", "lego-to-arm-sve", "neoverse-v1"),
    # `cpu`: the host's best vector pipeline (the published package's `cpu` is always x86).
    "cpu": (CPUTarget("cpu", "lego-to-arm-sve", "neoverse-v1") if _host_is_aarch64() and _host_has_sve() else
            CPUTarget("cpu", "lego-to-arm-neon", "cortex-a76") if _host_is_aarch64() else
            CPUTarget("cpu", "lego-to-x86-vector", "skx")),
    # `scalar`: lego-to-llvm, the baseline the vector targets are compared with.
    "scalar": CPUTarget("scalar", "lego-to-llvm"),
}
_BUILT_CPU_PIPELINES = {"lego-to-llvm", "lego-to-x86-vector", "lego-to-arm-neon", "lego-to-arm-sve"}


def cpu_pipeline(target: str, cpu: Optional[str] = None) -> str:
    """The pipeline text of a CPU target (``builtin.module(<pipeline>{cpu=<cpu>})`` when a CPU is known)."""
    if target not in _CPU_TARGETS:
        raise ValueError(f"Unknown CPU target '{target}'. Available: {sorted(_CPU_TARGETS)}")
    t = _CPU_TARGETS[target]
    if t.pipeline not in _BUILT_CPU_PIPELINES:
        raise NotImplementedError(f"CPU target '{target}' needs the pipeline '{t.pipeline}', which lego-rs has not "
                                  "built; use target 'scalar' (lego-to-llvm)")
    # lego-to-llvm has no `cpu` option (the published package appended one anyway, spec defect D10).
    return t.pipeline_string(cpu) if t.default_cpu else t.pipeline_string()


def _layout_function(layout: LayoutBlock, name: str = "apply") -> str:
    e = _Emitter()
    rank = len(layout.dims())
    args = ", ".join(f"%i{k}: index" for k in range(rank))
    l = e.layout(layout)
    e.emit(f"%flat = lego.apply {l}({', '.join(f'%i{k}' for k in range(rank))}) : !lego.layout")
    e.emit("return %flat : index")
    return f"func.func @{name}({args}) -> index {{\n" + "\n".join(e.lines) + "\n}\n"


# One LayoutCompiler for the package: the tensor API's (lego.backend.compiler, §5.4). `lego.compile(...,
# target="cpu")` returns it; its `llvm_module()` is the LLVM-dialect module of the layout's forward map.
from ..backend.compiler import LayoutCompiler, get_compiler as _tensor_get_compiler  # noqa: E402


def get_compiler(layout: Any, shape: Optional[Sequence[int]] = None, dtype: Any = "f32",
                 dim_bindings: Optional[Dict[Any, int]] = None) -> LayoutCompiler:
    """``lego.backend.compiler.get_compiler`` on ``layout`` (a bare layout, or dims, as ``lego.compile``
    takes them)."""
    return _tensor_get_compiler(_as_layout(layout, shape), shape, dtype, dim_bindings)


def compile_to_wasm(layout: Any, shape: Optional[Sequence[int]] = None) -> bytes:
    """A wasm32 object (``lego-to-wasm``) exporting ``apply``; linked with ``wasm-ld`` into a module."""
    layout = _as_layout(layout, shape)
    lowered = _lego.compile_module(_layout_function(layout), "builtin.module(lego-to-wasm)")
    match = re.search(r'lego\.wasm_binary = "([A-Za-z0-9+/=]+)"', lowered)
    if not match:
        raise RuntimeError("lego-to-wasm produced no lego.wasm_binary attribute")
    obj = base64.b64decode(match.group(1))
    linker = shutil.which("wasm-ld") or shutil.which("wasm-ld-22") or (
        "/usr/lib/llvm-22/bin/wasm-ld" if os.path.exists("/usr/lib/llvm-22/bin/wasm-ld") else None)
    if linker is None:
        raise RuntimeError("wasm-ld not found (Debian's lld-22): needed to link the wasm32 object")
    with tempfile.TemporaryDirectory() as tmp:
        o, w = os.path.join(tmp, "apply.o"), os.path.join(tmp, "apply.wasm")
        open(o, "wb").write(obj)
        result = subprocess.run([linker, "--no-entry", o, "-o", w], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"wasm-ld failed: {result.stderr.strip()}")
        return open(w, "rb").read()


def compile(layout_or_builder: Any, shape: Optional[Sequence[int]] = None, target: str = "cpu", dtype: Any = "f32",
            **kwargs: Any) -> Any:
    """``lego.compile``: a ``LayoutCompiler`` (cpu), wasm bytes, or a ``CompileResult`` (GPU / SPIR-V)."""
    if target == "cpu":
        return get_compiler(layout_or_builder, shape, dtype, kwargs.get("dim_bindings"))
    if target == "wasm":
        return compile_to_wasm(layout_or_builder, shape)
    if target in _GPU_TARGETS:
        builder = layout_or_builder if isinstance(layout_or_builder, KernelBuilder) else make_permutation_kernel(
            layout_or_builder, shape, dtype, kwargs.pop("workgroup_size", 64))
        return builder.compile(target=target, **kwargs)
    if target in SPIRV_TARGETS:
        return compile_to_target(layout_or_builder, shape, target=target, dtype=dtype,
                                 output_dir=kwargs.get("output_dir"), name=kwargs.get("name", "kernel"),
                                 workgroup_size=kwargs.get("workgroup_size", 64))
    if target in ("x86", "arm-neon", "arm-sve"):
        # The vector pipelines vectorize loops; a layout's forward map has none (target="cpu" compiles it).
        raise ValueError(f"target '{target}' ({_CPU_TARGETS[target].pipeline}) compiles loop kernels: use "
                         f"@cpu_kernel or CPUKernelBuilder(...).compile(target='{target}'); a layout compiles with "
                         "target='cpu'")
    raise ValueError(f"Unknown target '{target}'. Supported: {', '.join(sorted(_all_target_names()))}")


# Names of the published modules lego.backend.naga / spirv this module also stands for.
convert = naga_convert
validate = naga_validate


def spv_to_wgsl(spv: str, out: Optional[str] = None) -> str:
    return naga_convert(spv, out or os.path.splitext(spv)[0] + ".wgsl")


def spv_to_metal(spv: str, out: Optional[str] = None) -> str:
    return naga_convert(spv, out or os.path.splitext(spv)[0] + ".metal")


def spv_to_glsl(spv: str, out: Optional[str] = None, entry_point: Optional[str] = None) -> str:
    out = out or os.path.splitext(spv)[0] + ".comp"
    if entry_point is None:
        wgsl = open(spv_to_wgsl(spv, out + ".wgsl")).read()
        found = re.search(r"@compute[^\n]*\nfn (\w+)", wgsl)
        entry_point = found.group(1) if found else "main"
    return naga_convert(spv, out, ["--shader-stage", "compute", "--entry-point", entry_point])
