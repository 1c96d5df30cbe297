"""GPU kernels written as Python functions over layout-addressed buffers (the published ``lego.backend.gpu_dsl``;
docs/gpu-dsl.md).

    from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared

    @gpu_kernel(grid=(N // WG,), block=(WG,))
    def add10(A: Buffer(OrderBy(Row(N)).TileBy([N // WG], [WG]), N),
              Out: Buffer(OrderBy(Row(N)).TileBy([N // WG], [WG]), N)):
        Out[block_id.x, thread_id.x] = A[block_id.x, thread_id.x] + 10.0

    add10.compile(target="cuda", format="assembly")      # a CompileResult (PTX inside)

The decorator returns a ``KernelBuilder`` (lego.jit.builders): the function is parsed with ``ast`` and never
executed; each ``build_module()`` traces its body (lego.backend._gpu_dsl_compiler) into one ``gpu.launch``
whose every buffer index is a ``lego.apply`` of the buffer's layout, and ``compile(target=…)`` runs one of the
registered pipelines (cuda: lego-to-nvvm, rocm: lego-to-rocdl, llvmspirv, intel: lego-to-xevm; vulkan / webgpu /
metal / webgl: lego-to-spirv, then naga). A feature the target lacks is refused, naming both, before any
pipeline runs. cuda alone has asynchronous copies (``async_copy*``: cp.async), mbarriers (``mbarrier_*``) and
thread-block clusters (``gpu_kernel(cluster=…)``, ``cluster_*``: distributed shared memory), lowered as NVVM ops.
``run_cpu(*arrays)`` runs a kernel without barriers or warp operations on the CPU
(``lego-to-llvm``: each block and thread one iteration of a loop nest)."""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import _lego
from ..core import LayoutBlock, OrderBy, Row
from ..jit.builders import (CompileResult, KernelBuilder, KernelContext, LayoutBuffer, _Emitter, _GPU_TARGETS,
                            SPIRV_TARGETS)
from .compiler import DType
from ._gpu_dsl_compiler import (F_ALL_REDUCE, F_ASYNC_COPY, F_BARRIER, F_CLUSTER, F_MBARRIER, F_MMA, F_SHARED,
                                F_SUBGROUP, KernelCompiler)
from ._gpu_dsl_errors import (DSLAssertion, DSLNameError, DSLNotImplemented, DSLTypeError, NotEmulable,
                              TargetFeatureError)

__all__ = ["gpu_kernel", "Registers", "static_range", "Buffer", "Shared", "TensorCore", "DType", "GPUKernel", "TARGETS", "TARGET_FEATURES",
           "TargetFeatureError", "NotEmulable", "DSLNotImplemented", "DSLAssertion", "DSLTypeError", "DSLNameError",
           "block_id", "thread_id", "block_dim", "cluster_id", "F_ASYNC_COPY", "F_MBARRIER", "F_CLUSTER"]

#: Every compile target of the DSL.
TARGETS = ("cuda", "rocm", "llvmspirv", "intel", "vulkan", "webgpu", "webgl", "metal")

#: Features each target lacks (checked before compiling; docs/gpu-dsl.md, "Targets"), as measured on this
#: repository's pipelines: tensor-core MMA is lowered only to NVVM (nvvm.wmma); gpu.all_reduce only by
#: lego-to-nvvm and lego-to-llvmspirv; gpu.shuffle (every warp operation) only by lego-to-nvvm and
#: lego-to-rocdl (the SPIR-V conversions refuse it: no subgroup-shuffle capability in lego-to-spirv's target
#: environment, no required subgroup size on the LLVM SPIR-V kernels).
#: Asynchronous copies (cp.async), mbarriers and thread-block clusters (distributed shared memory) are lowered
#: to NVVM ops only (sm_80+ for cp.async and mbarriers, sm_90 for clusters): every other target lacks them.
_NO_SHUFFLE = (F_SUBGROUP, F_MMA)
_NVVM_ONLY = (F_ASYNC_COPY, F_MBARRIER, F_CLUSTER)
TARGET_FEATURES: Dict[str, Tuple[str, ...]] = {
    "cuda": (),
    "rocm": (F_MMA, F_ALL_REDUCE) + _NVVM_ONLY,
    "llvmspirv": _NO_SHUFFLE + _NVVM_ONLY,
    "intel": _NO_SHUFFLE + (F_ALL_REDUCE,) + _NVVM_ONLY,
    "vulkan": _NO_SHUFFLE + (F_ALL_REDUCE,) + _NVVM_ONLY,
    "webgpu": _NO_SHUFFLE + (F_ALL_REDUCE,) + _NVVM_ONLY,
    "webgl": _NO_SHUFFLE + (F_ALL_REDUCE,) + _NVVM_ONLY,
    "metal": _NO_SHUFFLE + (F_ALL_REDUCE,) + _NVVM_ONLY,
}


class _Ids:
    """``block_id`` / ``thread_id`` / ``block_dim`` as names a kernel body may refer to (the tracer reads
    ``.x/.y/.z`` off the syntax; these objects only make the names importable and linters quiet)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


block_id, thread_id, block_dim = _Ids("block_id"), _Ids("thread_id"), _Ids("block_dim")
cluster_id = _Ids("cluster_id")


@dataclass
class _BufferType:
    dims: Tuple[int, ...]
    shared: bool
    dtype: Any = DType.f32
    layout: Optional[LayoutBlock] = None


def _buffer_type(args: Sequence[Any], shared: bool, dtype: Any) -> _BufferType:
    if args and isinstance(args[0], LayoutBlock):
        layout, dims = args[0], tuple(int(d) for d in args[1:])
        if not dims:
            raise TypeError("Buffer(layout, *dims): give the element counts after the layout")
    else:
        layout, dims = None, tuple(int(d) for d in args)
    if not dims:
        raise TypeError("a buffer needs its dims, e.g. Buffer[N] or Buffer(layout, N)")
    if isinstance(dtype, str):
        dtype = DType(dtype)
    return _BufferType(dims, shared, dtype, layout)


class Buffer:
    """A global buffer parameter: ``Buffer[N]``, ``Buffer[M, K]`` (``Row`` layout) or ``Buffer(layout, *dims,
    dtype=DType.f32)``."""

    def __class_getitem__(cls, key: Any) -> _BufferType:
        return _buffer_type(key if isinstance(key, tuple) else (key,), False, DType.f32)

    def __new__(cls, *args: Any, dtype: Any = DType.f32) -> _BufferType:  # type: ignore[misc]
        return _buffer_type(args, False, dtype)


class Shared:
    """A shared (workgroup) buffer parameter: ``Shared[T]``, ``Shared(layout, *dims, dtype=DType.f32)``."""

    def __class_getitem__(cls, key: Any) -> _BufferType:
        return _buffer_type(key if isinstance(key, tuple) else (key,), True, DType.f32)

    def __new__(cls, *args: Any, dtype: Any = DType.f32) -> _BufferType:  # type: ignore[misc]
        return _buffer_type(args, True, dtype)


def static_range(*args: int) -> range:
    """Inside a kernel, ``for v in static_range(…)`` is unrolled at trace time (compile-time int bounds; ``v``
    is a compile-time int in each copy of the body). Outside a kernel it is ``range``."""
    return range(*args)


class Registers:
    """Inside a kernel, ``r = Registers(d0, d1, …[, init=0.0])`` is a per-thread register array indexed only by
    compile-time ints (``r[i, j]`` with ``i``, ``j`` from ``static_range``): its elements are SSA values, carried
    through runtime loops and ifs like scalar locals. Only the kernel tracer gives it meaning."""

    def __init__(self, *dims: int, init: float = 0.0) -> None:
        raise TypeError("Registers(...) is only meaningful inside a @gpu_kernel body")


class TensorCore:
    """``TensorCore(tile_m, tile_n, tile_k, a_dtype="f16", c_dtype="f32")``: created outside the kernel and
    used inside through ``tc.zero() / load_a / load_b / mma / store`` (warp-collective ``gpu.subgroup_mma_*``).
    A/B fragments load from buffers of ``a_dtype``, accumulators store to buffers of ``c_dtype``."""

    def __init__(self, tile_m: int = 16, tile_n: int = 16, tile_k: int = 16, a_dtype: str = "f16",
                 c_dtype: str = "f32") -> None:
        self.tile_m, self.tile_n, self.tile_k = int(tile_m), int(tile_n), int(tile_k)
        self.a_dtype, self.c_dtype = str(a_dtype), str(c_dtype)
        if (self.tile_m, self.tile_n, self.tile_k) != (16, 16, 16) or self.a_dtype != "f16" or self.c_dtype not in ("f16", "f32"):
            raise ValueError("TensorCore: the WMMA shape 16×16×16 with f16 inputs and an f16/f32 accumulator is supported")

    def __repr__(self) -> str:
        return f"TensorCore({self.tile_m}, {self.tile_n}, {self.tile_k}, {self.a_dtype!r}, {self.c_dtype!r})"


class GPUKernel(KernelBuilder):
    """What ``@gpu_kernel`` returns: a ``KernelBuilder`` whose body is the traced function."""

    def __init__(self, fn: Any, grid: Sequence[int], block: Sequence[int],
                 cluster: Optional[Sequence[int]] = None) -> None:
        self._fn = fn
        self.cluster: Optional[Tuple[int, int, int]] = None
        if cluster is not None:
            c = tuple(list(cluster) + [1] * (3 - len(cluster)))[:3]
            g = tuple(list(grid) + [1] * (3 - len(grid)))[:3]
            if any(k < 1 or n % k for k, n in zip(c, g)):
                raise ValueError(f"gpu_kernel: the grid {g} must be a multiple of the cluster {c}")
            self.cluster = c
        self._filename = fn.__code__.co_filename
        source = textwrap.dedent(inspect.getsource(fn))
        self._source_lines = source.splitlines()
        module = ast.parse(source)
        if not module.body or not isinstance(module.body[0], ast.FunctionDef):
            raise DSLNotImplemented("gpu_kernel: the decorated object must be a plain def",
                                    (self._filename, fn.__code__.co_firstlineno, 1, None))
        self._tree: ast.FunctionDef = module.body[0]
        # co_firstlineno is the line of the first decorator, which is line 1 of the dedented source.
        self._first_line = fn.__code__.co_firstlineno
        scope = dict(fn.__globals__)
        if fn.__closure__:
            scope.update(zip(fn.__code__.co_freevars, (cell.cell_contents for cell in fn.__closure__)))
        self._scope = scope
        self._param_buffers: Dict[str, LayoutBuffer] = {}
        buffers: List[LayoutBuffer] = []
        for arg in self._tree.args.args:
            annotation = fn.__annotations__.get(arg.arg)
            if isinstance(annotation, str):
                annotation = eval(annotation, scope)  # noqa: S307 (the kernel's own source)
            if not isinstance(annotation, _BufferType):
                raise AssertionError(f"Expected Buffer[…] or Shared[…] for '{arg.arg}'")
            layout = annotation.layout if annotation.layout is not None else OrderBy(Row(*annotation.dims))
            buf = LayoutBuffer(layout, annotation.dims, dtype=annotation.dtype, shared=annotation.shared)
            self._param_buffers[arg.arg] = buf
            buffers.append(buf)
        self._features: Dict[str, str] = {}
        self._spirv_target = False
        super().__init__(buffers, self._trace, name=fn.__name__, grid=tuple(grid), block=tuple(block))
        # Check the body's syntax once now, so that unsupported Python is reported where the kernel is defined.
        self.mlir_text()

    # the attributes bench_utils reads (docs/gpu-dsl.md, "bench_utils")
    @property
    def _name(self) -> str:
        return self.name

    @property
    def _buffers(self) -> List[LayoutBuffer]:
        return self.buffers

    @property
    def _global_bufs(self) -> List[LayoutBuffer]:
        return [b for b in self.buffers if not b.shared]

    @property
    def _shared_bufs(self) -> List[LayoutBuffer]:
        return [b for b in self.buffers if b.shared]

    @property
    def _grid(self) -> Tuple[int, ...]:
        return self.grid

    @property
    def _block(self) -> Tuple[int, ...]:
        return self.block

    def _trace(self, ctx: KernelContext) -> None:
        compiler = KernelCompiler(self, ctx)
        compiler.run()
        self._features = compiler.features

    def features(self) -> Dict[str, str]:
        """The optional features the body uses: feature → ``file:line`` of its first use."""
        self.mlir_text()
        features = dict(self._features)
        if self.cluster is not None:
            features.setdefault(F_CLUSTER, f"{self._filename}:{self._first_line}")
        return features

    # --- thread-block clusters ---------------------------------------------------------------------------------

    def mlir_text(self) -> str:
        """``KernelBuilder.mlir_text`` (a ``gpu.launch``); a kernel with ``cluster=`` is written already outlined
        instead: a ``gpu.module`` whose ``gpu.func`` carries ``nvvm.cluster_dim`` (``.explicitcluster`` /
        ``.reqnctapercluster`` in the PTX, so a launch without cluster attributes runs it in clusters:
        gpu-kernel-outlining does not carry a launch's attributes to the kernel) and a host function that
        ``gpu.launch_func`` launches it with the cluster dims."""
        if self.cluster is None:
            return super().mlir_text()
        e = _Emitter()
        buffers: Dict[int, Tuple[LayoutBuffer, str]] = {}
        args, operands, shared = [], [], []
        for k, buf in enumerate(self.buffers):
            if buf.shared:
                buffers[id(buf)] = (buf, f"%shm{k}")
                shared.append(f"%shm{k} : memref<{buf.numel}x{buf.element_type}, #gpu.address_space<workgroup>>")
            else:
                buffers[id(buf)] = (buf, f"%arg{k}")
                args.append(f"%arg{k}: {buf.memref_type}")
                operands.append(f"%arg{k} : {buf.memref_type}")
        e.indent = "      "
        for prefix, op in (("b", "block_id"), ("t", "thread_id"), ("s", "block_dim"), ("g", "grid_dim")):
            for axis in "xyz":
                e.emit(f"%{prefix}{axis} = gpu.{op} {axis}")
        ctx = KernelContext(e, buffers)
        self.kernel_body(ctx)
        kernel = f"{self.name}_kernel"
        sizes = lambda v: ", ".join(str(int(x)) for x in v)  # noqa: E731
        attribution = f" workgroup({', '.join(shared)})" if shared else ""
        lines = ["module attributes {gpu.container_module} {",
                 f"  gpu.module @{kernel} {{",
                 f"    gpu.func @{kernel}({', '.join(args)}){attribution} kernel attributes "
                 f"{{known_block_size = array<i32: {sizes(self.block)}>, known_grid_size = array<i32: {sizes(self.grid)}>, "
                 f"nvvm.cluster_dim = array<i32: {sizes(self.cluster)}>}} {{"]
        lines += e.lines + ["      gpu.return", "    }", "  }",
                            f"  func.func @{self.name}({', '.join(args)}) {{"]
        dims = []
        for what, values in (("cl", self.cluster), ("gr", self.grid), ("bl", self.block)):
            for axis, v in zip("xyz", values):
                lines.append(f"    %{what}_{axis} = arith.constant {int(v)} : index")
            dims.append(", ".join(f"%{what}_{axis}" for axis in "xyz"))
        lines.append(f"    gpu.launch_func @{kernel}::@{kernel} clusters in ({dims[0]}) blocks in ({dims[1]}) "
                     f"threads in ({dims[2]}) args({', '.join(operands)})")
        lines += ["    return", "  }", "}"]
        text = "\n".join(lines) + "\n"
        return text.replace(", 3>", ", #gpu.address_space<workgroup>>") if shared else text

    def check_target(self, target: str) -> None:
        """Raises ``TargetFeatureError`` if the body uses a feature ``target`` lacks."""
        lacking = TARGET_FEATURES.get(target, ())
        for feature, where in self.features().items():
            if feature in lacking:
                raise TargetFeatureError(target, feature, where)

    def compile(self, target: str = "webgpu", **kwargs: Any) -> CompileResult:
        if target in TARGET_FEATURES:
            self.check_target(target)
        # The trace depends on the target family for math functions and index → float casts (the tracer).
        self._spirv_target = target in SPIRV_TARGETS
        try:
            return super().compile(target=target, **kwargs)
        finally:
            self._spirv_target = False

    # --- CPU emulation ----------------------------------------------------------------------------------------

    def cpu_mlir_text(self) -> str:
        """The kernel as a CPU function: a loop nest over blocks (z, y, x) and threads (z, y, x) around the body;
        shared buffers are stack arrays. A barrier outside runtime ``if``/``for`` regions splits the thread loops
        there (every thread of the block finishes the phase before any starts the next; locals live across it in
        per-thread arrays), a ``for`` with a compile-time trip count around barriers is unrolled. Raises
        ``NotEmulable`` for other barriers, warp and tensor-core operations."""
        e = _Emitter()
        buffers: Dict[int, Tuple[LayoutBuffer, str]] = {}
        args = []
        for k, buf in enumerate(self.buffers):
            if not buf.shared:
                buffers[id(buf)] = (buf, f"%arg{k}")
                args.append(f"%arg{k}: {buf.memref_type}")
        e.emit("%emu_c0 = arith.constant 0 : index")
        e.emit("%emu_c1 = arith.constant 1 : index")
        for k, buf in enumerate(self.buffers):
            if buf.shared:
                buffers[id(buf)] = (buf, f"%shm{k}")
                e.emit(f"%shm{k} = memref.alloca() : memref<{buf.numel}x{buf.element_type}>")
        ids: Dict[str, str] = {}
        loops = [("block_id", "z", self.grid[2]), ("block_id", "y", self.grid[1]), ("block_id", "x", self.grid[0]),
                 ("thread_id", "z", self.block[2]), ("thread_id", "y", self.block[1]), ("thread_id", "x", self.block[0])]
        for axis, size in zip("xyz", self.block):
            e.emit(f"%bd{axis} = arith.constant {size} : index")
            ids[f"block_dim.{axis}"] = f"%bd{axis}"
        for kind, axis, size in loops:
            e.emit(f"%n{kind[0]}{axis} = arith.constant {size} : index")
        entry = [len(e.lines)]  # where per-thread spill arrays are allocated (before every loop)

        def open_loops(nest: Sequence[Tuple[str, str, int]]) -> None:
            for kind, axis, size in nest:
                iv = e.fresh(f"{kind[0]}{axis}_")
                e.emit(f"scf.for {iv} = %emu_c0 to %n{kind[0]}{axis} step %emu_c1 {{")
                e.indent += "  "
                ids[f"{kind}.{axis}"] = iv

        def close_loops(count: int) -> None:
            for _ in range(count):
                e.indent = e.indent[:-2]
                e.emit("}")

        open_loops(loops)
        threads = loops[3:]
        nthreads = self.block[0] * self.block[1] * self.block[2]

        def linear_tid() -> str:
            # (tz·by + ty)·bx + tx, the index of this thread's slot in a spill array
            by, bx = e.fresh("c"), e.fresh("c")
            e.emit(f"{by} = arith.constant {self.block[1]} : index")
            e.emit(f"{bx} = arith.constant {self.block[0]} : index")
            zy = e.fresh("tid")
            e.emit(f"{zy} = arith.muli {ids['thread_id.z']}, {by} : index")
            zy2 = e.fresh("tid")
            e.emit(f"{zy2} = arith.addi {zy}, {ids['thread_id.y']} : index")
            row = e.fresh("tid")
            e.emit(f"{row} = arith.muli {zy2}, {bx} : index")
            t = e.fresh("tid")
            e.emit(f"{t} = arith.addi {row}, {ids['thread_id.x']} : index")
            return t

        def on_barrier(env: Dict[str, Any]) -> None:
            """A barrier between phases: every runtime local goes to a per-thread array, the thread loops end
            (all threads of the block have run the phase) and start again, and the locals come back."""
            spills = []
            tid = linear_tid()
            for name, (value, tag) in list(env.items()):
                parts = [(v, "index") for v in value] if tag == "tuple" else [(value, tag)] if tag in ("index", "i32", "i1", "f16", "f32") else []
                if tag not in ("tuple", "index", "i32", "i1", "f16", "f32", "ct_int", "ct_float", "ct_obj", "regs"):
                    raise NotEmulable(f"the local '{name}' ({tag}) cannot live across a barrier in the CPU emulation")
                slots = []
                for v, ty in parts:
                    arr = e.fresh("spill")
                    e.lines.insert(entry[0], f"    {arr} = memref.alloca() : memref<{nthreads}x{ty}>")
                    entry[0] += 1
                    e.emit(f"memref.store {v}, {arr}[{tid}] : memref<{nthreads}x{ty}>")
                    slots.append((arr, ty))
                if slots:
                    spills.append((name, tag, slots))
            close_loops(len(threads))
            open_loops(threads)
            tid = linear_tid()
            for name, tag, slots in spills:
                loaded = []
                for arr, ty in slots:
                    v = e.fresh("fill")
                    e.emit(f"{v} = memref.load {arr}[{tid}] : memref<{nthreads}x{ty}>")
                    loaded.append(v)
                env[name] = (loaded, "tuple") if tag == "tuple" else (loaded[0], tag)
        def alloca(ty: str) -> str:
            arr = e.fresh("spill")
            e.lines.insert(entry[0], f"    {arr} = memref.alloca() : memref<{nthreads}x{ty}>")
            entry[0] += 1
            return arr

        def op(text: str) -> str:
            name = e.fresh("w")
            e.emit(f"{name} = {text}")
            return name

        def lane_of(tid: str) -> str:
            return op(f"arith.remui {tid}, {op('arith.constant 32 : index')} : index")

        def on_lane() -> str:
            return lane_of(linear_tid())

        def on_shuffle(mode: str, x: Tuple[str, str], off: str, env: Dict[str, Any]) -> Tuple[str, str, str]:
            """gpu.shuffle (width 32) between phases: every lane's operand and offset go to per-thread arrays,
            the phase ends, each lane reads its source lane's slot (its own operand where the source is outside
            the warp, as the hardware returns)."""
            value, ty = x
            tid = linear_tid()
            values, offsets = alloca(ty), alloca("i32")
            e.emit(f"memref.store {value}, {values}[{tid}] : memref<{nthreads}x{ty}>")
            e.emit(f"memref.store {off}, {offsets}[{tid}] : memref<{nthreads}xi32>")
            on_barrier(env)
            tid = linear_tid()
            own = op(f"memref.load {values}[{tid}] : memref<{nthreads}x{ty}>")
            k = op(f"arith.index_cast {op(f'memref.load {offsets}[{tid}] : memref<{nthreads}xi32>')} : i32 to index")
            lane = lane_of(tid)
            src = {"down": lambda: op(f"arith.addi {lane}, {k} : index"),
                   "up": lambda: op(f"arith.subi {lane}, {k} : index"),
                   "xor": lambda: op(f"arith.xori {lane}, {k} : index"),
                   "idx": lambda: k}[mode]()
            zero, width, total = (op(f"arith.constant {c} : index") for c in (0, 32, nthreads))
            slot = op(f"arith.addi {op(f'arith.subi {tid}, {lane} : index')}, {src} : index")
            valid = op(f"arith.andi {op(f'arith.cmpi sge, {src}, {zero} : index')}, "
                       f"{op(f'arith.cmpi slt, {src}, {width} : index')} : i1")
            valid = op(f"arith.andi {valid}, {op(f'arith.cmpi slt, {slot}, {total} : index')} : i1")
            slot = op(f"arith.select {valid}, {slot}, {tid} : index")
            other = op(f"memref.load {values}[{slot}] : memref<{nthreads}x{ty}>")
            return op(f"arith.select {valid}, {other}, {own} : {ty}"), valid, own

        # shared buffers are plain (default memory space) memrefs here
        shared_copy = {id(b): LayoutBuffer(b.layout, b.shape, b.dtype, shared=False) for b in self.buffers if b.shared}
        for key, plain in shared_copy.items():
            buffers[id(plain)] = (plain, buffers.pop(key)[1])
        ctx = KernelContext(e, buffers)
        compiler = KernelCompiler(self, ctx, mode="cpu", ids=ids)
        # loads/stores go through the KernelContext by buffer identity: map the shared parameters to plain views
        compiler.k = _SharedAsPlain(self, shared_copy)
        compiler.layouts = {name: buf.layout for name, buf in compiler.k._param_buffers.items()}
        compiler.on_barrier = on_barrier
        compiler.on_shuffle = on_shuffle
        compiler.on_lane = on_lane
        compiler.run()
        close_loops(len(loops))
        return "\n".join([f"func.func @{self.name}({', '.join(args)}) {{"] + e.lines + ["    return", "}"]) + "\n"

    def run_cpu(self, *arrays: np.ndarray) -> None:
        """Runs the kernel on the CPU (``lego-to-llvm``) over NumPy arrays, one per global buffer in parameter
        order, in place."""
        from .cpu_builder import CPUKernel, build_shared_object

        text = self.cpu_mlir_text()
        module = _lego.parse_module(text, f"<{self.name} on the CPU>")
        lowered = module.run("builtin.module(lego-to-llvm)")
        library = build_shared_object(lowered.llvm_ir(), 2, None)
        CPUKernel(library, self.name, [], self._global_bufs, "", "", "cpu")(*arrays)


class _SharedAsPlain:
    """The kernel seen by the CPU-emulation tracer: the same source and scope, shared parameters replaced by
    default-memory-space buffers (stack arrays)."""

    def __init__(self, kernel: GPUKernel, plain: Dict[int, LayoutBuffer]) -> None:
        self._kernel = kernel
        self._param_buffers = {n: plain.get(id(b), b) for n, b in kernel._param_buffers.items()}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._kernel, name)


def gpu_kernel(grid: Sequence[int], block: Sequence[int], cluster: Optional[Sequence[int]] = None) -> Any:
    """``@gpu_kernel(grid=(gx[, gy[, gz]]), block=(bx[, by[, bz]])[, cluster=(cx[, cy[, cz]])])``: the function
    becomes a ``GPUKernel`` (a ``KernelBuilder``). ``grid`` counts blocks; ``cluster`` (cuda, sm_90) groups them
    in thread-block clusters of cx × cy × cz blocks (the grid a multiple of it)."""
    grid = tuple(int(g) for g in grid)
    block = tuple(int(b) for b in block)
    cluster = tuple(int(c) for c in cluster) if cluster is not None else None

    def decorate(fn: Any) -> GPUKernel:
        return GPUKernel(fn, grid, block, cluster)

    return decorate
