"""CPU kernels built from Python and run (the published API's §5.5, ``lego.backend.cpu_builder``).

A ``CPUKernelBuilder`` writes a ``func.func`` of scalar and memref arguments whose index arithmetic is lego ops
(``lego.apply`` / ``lego.apply_inverse`` on the buffers' layouts); ``compile()`` lowers it in-process with
lego-rs's ``lego-to-llvm`` pipeline (``lego-lower`` inside makes the arithmetic), translates it to LLVM IR
(MLIR's translation, in-process: ``lego._lego.Module.llvm_ir``), compiles that into an object with the LLVM
inside the extension module (``lego._lego.emit_object``, what ``llc`` did), links a shared object with the
system's C compiler driver (``clang-22`` where ``make setup`` installed it, else ``cc``), loads it with ctypes and
returns a callable that runs on NumPy buffers in place. No LLVM installation is needed (the wheel's case).

Targets: ``scalar`` (``lego-to-llvm``, codegen -O2 for a generic x86-64); ``x86`` (``lego-to-x86-vector``:
lego-vectorize with AVX-512 or AVX2 vectors, whichever the host has, LLVM's -O3 middle end without its
vectorizers, codegen -O3 for the host CPU); ``arm-neon`` /
``arm-sve`` (``lego-to-arm-neon`` / ``lego-to-arm-sve``, compiled for aarch64: runnable on an aarch64 host, an
``AArch64Object`` elsewhere); ``cpu``: the host's best of those (docs/python-jit.md).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from .. import _lego
from ..jit.builders import (CPUTarget, KernelContext, LayoutBuffer, _CPU_TARGETS, _Emitter, cpu_pipeline)

__all__ = ["CPUKernelBuilder", "CPUKernelContext", "CPUTarget", "CPUKernel", "AArch64Object", "_CPU_TARGETS",
           "cpu_pipeline", "build_shared_object", "build_object"]

_CTYPES = {"f32": ctypes.c_float, "f64": ctypes.c_double, "i64": ctypes.c_int64, "i32": ctypes.c_int32,
           "i16": ctypes.c_int16, "i8": ctypes.c_int8, "index": ctypes.c_int64, "i1": ctypes.c_bool}
_NUMPY = {"f32": np.float32, "f64": np.float64, "i64": np.int64, "i32": np.int32, "i16": np.int16, "i8": np.int8,
          "i1": np.bool_, "f16": np.float16}


class CPUKernelContext(KernelContext):
    """What a CPU kernel body sees: ``tile_id`` (the grid loop's index), the scalar parameters by name
    (``scalar(name)``), everything of ``KernelContext`` (layout ``load``/``store``, flat access, arithmetic,
    ``for_range``, ``if_``) and ``exp`` / ``sqrt`` / ``rsqrt`` / ``divf`` / ``negf``."""

    def __init__(self, emitter: _Emitter, buffers: Dict[int, Tuple[LayoutBuffer, str]], scalars: Dict[str, Tuple[str, str]],
                 tile_id: Optional[str]) -> None:
        super().__init__(emitter, buffers)
        self.tile_id = tile_id
        self._scalars = scalars

    def scalar(self, name: str) -> str:
        return self._scalars[name][0]

    def _unary(self, op: str, value: str, ty: str) -> str:
        return self._op(f"{op} {value} : {ty}")

    def exp(self, value: str, ty: str = "f32") -> str:
        return self._unary("math.exp", value, ty)

    def sqrt(self, value: str, ty: str = "f32") -> str:
        return self._unary("math.sqrt", value, ty)

    def rsqrt(self, value: str, ty: str = "f32") -> str:
        return self._unary("math.rsqrt", value, ty)

    def negf(self, value: str, ty: str = "f32") -> str:
        return self._unary("arith.negf", value, ty)

    def divf(self, a: str, b: str, ty: str = "f32") -> str:
        return self._op(f"arith.divf {a}, {b} : {ty}")

    def subi(self, a: str, b: str) -> str:
        return self._op(f"arith.subi {a}, {b} : index")

    def const(self, value: float, ty: str) -> str:
        if ty == "index":
            return self.const_index(int(value))
        if ty.startswith("f"):
            return self._op(f"arith.constant {float(value)!r} : {ty}", "cf")
        return self._op(f"arith.constant {int(value)} : {ty}", "ci")


def _tool(name: str) -> str:
    for candidate in (f"{name}-22", name):
        found = shutil.which(candidate)
        if found:
            return found
    path = f"/usr/lib/llvm-22/bin/{name}"
    if os.path.exists(path):
        return path
    raise RuntimeError(f"{name}-22 not found: the CPU kernels compile LLVM IR with Debian's llvm-22 / clang-22 "
                       "(`make setup` installs them)")


def _linker() -> str:
    """clang-22 (make setup); the system C compiler driver links a shared object as well."""
    try:
        return _tool("clang")
    except RuntimeError:
        found = shutil.which("cc") or shutil.which("gcc")
        if found:
            return found
        raise


_SO_CACHE: Dict[str, ctypes.CDLL] = {}


def build_object(llvm_ir: str, opt_level: int = 2, mcpu: Optional[str] = None, triple: Optional[str] = None,
                 attributes: Optional[str] = None, middle_end: bool = False) -> bytes:
    """An object file (position independent) of ``llvm_ir`` for ``triple`` (default: the host's; x86-64 and
    aarch64 are built in), ``mcpu`` (``"native"``: the host's CPU) and target ``attributes`` (``"+sve,+neon"``);
    its bytes. Compiled by the LLVM inside the extension module (what ``llc -O<n> -filetype=obj
    -relocation-model=pic`` did): the wheel needs no LLVM on the machine. ``middle_end``: LLVM's
    ``default<O<n>>`` pipeline first, with its loop and SLP vectorizers off (``opt -O<n>`` before ``llc``)."""
    return _lego.emit_object(llvm_ir, opt_level=int(opt_level), cpu=mcpu or "", triple=triple,
                             features=attributes or "", middle_end=bool(middle_end))


def build_shared_object(llvm_ir: str, opt_level: int = 2, mcpu: Optional[str] = None,
                        attributes: Optional[str] = None, middle_end: bool = False) -> ctypes.CDLL:
    """``build_object`` for the host, then linked with the system's C compiler driver into a shared object (with
    libm: ``math.exp`` becomes a call of ``expf``); loaded with ctypes. Cached per process by the IR and the
    flags."""
    key = hashlib.sha256(f"{opt_level}|{mcpu}|{attributes}|{middle_end}|{llvm_ir}".encode()).hexdigest()
    if key in _SO_CACHE:
        return _SO_CACHE[key]
    work = tempfile.mkdtemp(prefix="lego_cpu_")
    obj, so = (os.path.join(work, f"kernel.{ext}") for ext in ("o", "so"))
    with open(obj, "wb") as handle:
        handle.write(build_object(llvm_ir, opt_level, mcpu, None, attributes, middle_end))
    result = subprocess.run([_linker(), "-shared", obj, "-o", so, "-lm"], capture_output=True, text=True)
    if result.returncode != 0:
        shutil.rmtree(work, ignore_errors=True)
        raise RuntimeError(f"{os.path.basename(_linker())} failed: {result.stderr.strip()}")
    library = ctypes.CDLL(so)
    # The loaded library stays mapped: the files are not needed any more.
    shutil.rmtree(work, ignore_errors=True)
    _SO_CACHE[key] = library
    return library


class CPUKernel:
    """A compiled CPU kernel: ``kernel(scalars…, arrays…)`` runs it on NumPy arrays in place (each C-contiguous,
    of the buffer's element type and element count)."""

    def __init__(self, library: ctypes.CDLL, name: str, scalars: Sequence[Tuple[str, str]],
                 buffers: Sequence[LayoutBuffer], llvm_ir: str, lowered: str, target: str) -> None:
        self.library, self.name, self.llvm_ir, self.lowered, self.target = library, name, llvm_ir, lowered, target
        self._scalars = list(scalars)
        self._buffers = list(buffers)
        function = getattr(library, name)
        argtypes: List[Any] = [_CTYPES[ty] for _, ty in self._scalars]
        for _ in self._buffers:
            # The memref descriptor, expanded: allocated pointer, aligned pointer, offset, size, stride.
            argtypes += [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64]
        function.argtypes = argtypes
        function.restype = None
        self._function = function

    def __call__(self, *args: Any) -> None:
        expected = len(self._scalars) + len(self._buffers)
        if len(args) != expected:
            raise TypeError(f"{self.name}() takes {len(self._scalars)} scalar(s) and {len(self._buffers)} array(s), "
                            f"{len(args)} given")
        values: List[Any] = []
        for (name, ty), value in zip(self._scalars, args):
            values.append(_CTYPES[ty](value))
        for buf, array in zip(self._buffers, args[len(self._scalars):]):
            if not isinstance(array, np.ndarray):
                raise TypeError(f"{self.name}(): buffer arguments are NumPy arrays, got {type(array).__name__}")
            want = _NUMPY.get(buf.element_type)
            if want is not None and array.dtype != np.dtype(want):
                raise TypeError(f"{self.name}(): an array of {array.dtype} where the buffer holds {buf.element_type}")
            if array.size != buf.numel:
                raise ValueError(f"{self.name}(): an array of {array.size} elements where the buffer has {buf.numel}")
            if not array.flags.c_contiguous or not array.flags.writeable:
                raise ValueError(f"{self.name}(): arrays must be C-contiguous and writeable (the kernel works in place)")
            pointer = array.ctypes.data
            values += [pointer, pointer, 0, buf.numel, 1]
        self._function(*values)


class CPUKernelBuilder:
    """``CPUKernelBuilder(buffers, kernel_body, name="kernel", scalar_params=None, grid=None)``: a
    ``func.func @name(scalars…, memref buffers…)``; ``kernel_body(ctx)`` writes its body. With ``grid=(G,)``
    the body runs inside ``for tile_id in range(G)`` (``ctx.tile_id``). ``scalar_params``: names (``f32``) or
    ``(name, type)`` pairs."""

    def __init__(self, buffers: Sequence[LayoutBuffer], kernel_body: Callable[[CPUKernelContext], None],
                 name: str = "kernel", scalar_params: Optional[Sequence[Union[str, Tuple[str, str]]]] = None,
                 grid: Optional[Sequence[int]] = None) -> None:
        self.buffers = list(buffers)
        self.kernel_body = kernel_body
        self.name = name
        self.scalar_params: List[Tuple[str, str]] = [(p, "f32") if isinstance(p, str) else (p[0], p[1])
                                                     for p in (scalar_params or [])]
        self.grid = tuple(int(g) for g in grid) if grid else None
        if self.grid is not None and len(self.grid) != 1:
            raise ValueError(f"CPUKernelBuilder: grid {self.grid}: one dimension (G,) is supported")
        if any(b.shared for b in self.buffers):
            raise ValueError("CPUKernelBuilder: shared (workgroup) buffers exist only in GPU kernels")

    def mlir_text(self) -> str:
        e = _Emitter()
        buffers: Dict[int, Tuple[LayoutBuffer, str]] = {}
        scalars: Dict[str, Tuple[str, str]] = {}
        args = []
        for k, (name, ty) in enumerate(self.scalar_params):
            scalars[name] = (f"%s{k}", ty)
            args.append(f"%s{k}: {ty}")
        for k, buf in enumerate(self.buffers):
            buffers[id(buf)] = (buf, f"%arg{k}")
            args.append(f"%arg{k}: {buf.memref_type}")
        ctx = CPUKernelContext(e, buffers, scalars, None)
        if self.grid is not None:
            ctx.for_range(self.grid[0], lambda tile: self._body_in_tile(ctx, tile))
        else:
            self.kernel_body(ctx)
        lines = [f"func.func @{self.name}({', '.join(args)}) {{"] + e.lines + ["    return", "}"]
        return "\n".join(lines) + "\n"

    def _body_in_tile(self, ctx: CPUKernelContext, tile: str) -> None:
        ctx.tile_id = tile
        self.kernel_body(ctx)

    def build_module(self) -> Tuple[Any, str]:
        """``(module, text)``: the module parsed and verified by lego-rs (``lego._lego.Module``: ``str()``,
        ``functions()``, ``operation_names()``, ``run(pipeline)``, ``llvm_ir()``) and its text."""
        text = self.mlir_text()
        return _lego.parse_module(text, f"<{self.name}>"), text

    def compile(self, target: str = "cpu", opt_level: Optional[int] = None, cpu: Optional[str] = None) -> Any:
        """Lowers with the target's pipeline and builds it. ``x86`` / ``cpu`` on an x86-64 host and ``scalar``
        give a runnable ``CPUKernel``; ``arm-neon`` / ``arm-sve`` on a host that is not aarch64 give an
        ``AArch64Object`` (LLVM IR and an aarch64 object file; calling it raises)."""
        pipeline = cpu_pipeline(target, cpu)
        module, _ = self.build_module()
        try:
            lowered = module.run(pipeline)
            llvm_ir = lowered.llvm_ir()
        except _lego.LegoError as error:
            raise RuntimeError(f"CPU compilation failed ({pipeline}):\n{error}") from error
        vector = _CPU_TARGETS[target].pipeline
        # The scalar baseline at -O2 for a generic x86-64 (no host instructions that would blur the comparison),
        # codegen only; vector targets at -O3 for the host, after LLVM's middle end (unrolling, LICM, instruction
        # combining: bench/cpu measured up to 2.5x from it). LLVM's own vectorizers run on neither: every vector
        # is lego-vectorize's.
        level = opt_level if opt_level is not None else (2 if target == "scalar" else 3)
        middle_end = target != "scalar"
        if vector in ("lego-to-arm-neon", "lego-to-arm-sve"):
            mcpu = cpu or _CPU_TARGETS[target].default_cpu
            attributes = "+sve" if vector == "lego-to-arm-sve" else "+neon"
            import platform
            if platform.machine().lower() not in ("aarch64", "arm64"):
                obj = build_object(llvm_ir, level, mcpu, triple="aarch64-linux-gnu", attributes=attributes,
                                   middle_end=middle_end)
                return AArch64Object(self.name, obj, llvm_ir, str(lowered), target)
            library = build_shared_object(llvm_ir, level, mcpu, attributes=attributes, middle_end=middle_end)
        else:
            # `skx` is the published default name; llc gets the host CPU unless another CPU was asked for, so
            # an AVX2-only host never receives AVX-512 code (the pipeline's isa=host makes the same choice).
            mcpu = "native" if target != "scalar" and cpu in (None, "skx") else cpu
            library = build_shared_object(llvm_ir, level, mcpu, middle_end=middle_end)
        kernel = CPUKernel(library, self.name, self.scalar_params, self.buffers, llvm_ir, str(lowered), target)
        # How the object was made (bench/cpu links the same object into its timing loop).
        kernel.build_options = {"opt_level": level, "mcpu": mcpu, "middle_end": middle_end}
        return kernel


class AArch64Object:
    """An ``arm-neon`` / ``arm-sve`` kernel compiled on a host that cannot run it: ``object_code`` (bytes of an
    aarch64-linux ELF object defining the kernel), ``llvm_ir``, ``lowered`` (the LLVM-dialect module)."""

    def __init__(self, name: str, object_code: bytes, llvm_ir: str, lowered: str, target: str) -> None:
        self.name, self.object_code, self.llvm_ir, self.lowered, self.target = name, object_code, llvm_ir, lowered, target

    def __call__(self, *args: Any) -> None:
        raise RuntimeError(f"{self.name}: compiled for aarch64 (target '{self.target}'); this host cannot run it "
                           "(link .object_code into an aarch64 program, e.g. under qemu-aarch64)")
