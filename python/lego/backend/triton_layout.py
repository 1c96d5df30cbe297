"""The tensor API's fused path for torch tensors on CUDA (docs/python.md, "The CUDA path"): one Triton kernel
per layout, generated here from the layout's lowered index arithmetic (the arith DAG ``lego-lower`` returns,
``Compiled.nodes``), instead of the fallback's chain of element-wise int64 torch operations over the whole
index space followed by a gather (``lego.backend.compiler.torch_index``).

The kernel views the layout's index space ``d⃗`` (the dims, e.g. ``(g0, g1, t0, t1)`` for a TiledPermute) as a
2-D array of ``R = d0·…·d_{r-2}`` rows and ``C = d_{r-1}`` columns and gives each program one ``BR × BC`` tile of
it. Row ``r`` is split into the leading indices by division by constants, on a ``[BR, 1]`` vector; the last
index is the ``[1, BC]`` column vector; every node of the DAG is one Triton expression on these broadcast
tensors, so a node that depends on the row indices only costs ``BR`` operations, not ``BR·BC``.

* ``transform`` (gather): ``dst[k] = src[L(i⃗)]`` with ``k = r·C + c`` — writes contiguous along the row;
  Triton's coalescing analysis sees the source offsets' contiguity (along the rows for a transpose) and moves
  the tile through shared memory between a coalesced load and a coalesced store.
* ``inverse_transform`` (scatter): ``dst[L(i⃗)] = src[k]`` — the same arithmetic, reads contiguous. Exact
  because the layouts are bijections (the lowering checks ``in_range``).

The kernel source is cached per lowered layout (``Compiled.key``: layout and shape), Triton caches the binary
per element type and device. Index arithmetic is int32 when interval arithmetic over the DAG proves every
value fits, else int64; a DAG the emitter cannot prove safe (a division of a possibly negative value, …) is
not fused (``NotFusable``) and the caller falls back. Autograd: ``transform``'s backward is the scatter of the
gradient and vice versa (:class:`_Move`).
"""

from __future__ import annotations

import os
import threading
from typing import Any, Dict, List, Optional, Tuple

__all__ = ["NotFusable", "applicable", "emit_source", "move", "kernel_for", "TILE", "clear_cache"]

_INT32 = (-(2 ** 31), 2 ** 31 - 1)
_INT64 = (-(2 ** 63), 2 ** 63 - 1)

TILE: Dict[str, int] = {"BR": 64, "BC": 64, "num_warps": 4}
"""The tile of one program (rows × columns of the index space) and its warps; bench/device/run_device.py
measures alternatives. Smaller dims shrink it (a 1-D layout gets ``1 × 4096``)."""


class NotFusable(Exception):
    """The layout's arithmetic is outside what the Triton emitter handles; the caller uses the fallback."""


def _pow2_at_least(n: int) -> int:
    return 1 << max(int(n) - 1, 0).bit_length()


# --- source emission ----------------------------------------------------------------------------------------


def _interval(kind: str, args: List[Tuple[int, int]], extra: int) -> Tuple[int, int]:
    """Bounds of a node's value from its operands' bounds (only for the operations the emitter accepts)."""
    if kind in ("addi", "subi", "muli"):
        (a0, a1), (b0, b1) = args
        if kind == "addi":
            return a0 + b0, a1 + b1
        if kind == "subi":
            return a0 - b1, a1 - b0
        products = [a0 * b0, a0 * b1, a1 * b0, a1 * b1]
        return min(products), max(products)
    if kind in ("divui", "divsi", "floordivsi"):
        (a0, a1), (b0, b1) = args
        return a0 // b1, a1 // b0
    if kind in ("ceildivui", "ceildivsi"):
        (a0, a1), (b0, b1) = args
        return -((-a0) // b1), -((-a1) // b0)
    if kind in ("remui", "remsi"):
        (a0, a1), (b0, b1) = args
        return 0, min(a1, b1 - 1)
    if kind == "shli":
        (a0, a1), (b0, b1) = args
        return a0 << b0, a1 << b1
    if kind in ("shrui", "shrsi"):
        (a0, a1), (b0, b1) = args
        return a0 >> b1, a1 >> b0
    if kind == "andi":
        (a0, a1), (b0, b1) = args
        return 0, min(a1, b1)
    if kind in ("ori", "xori"):
        (a0, a1), (b0, b1) = args
        return 0, (1 << max(a1, b1).bit_length()) - 1
    if kind in ("maxsi", "maxui"):
        (a0, a1), (b0, b1) = args
        return max(a0, b0), max(a1, b1)
    if kind in ("minsi", "minui"):
        (a0, a1), (b0, b1) = args
        return min(a0, b0), min(a1, b1)
    if kind in ("cmpi", "bool"):
        return 0, 1
    if kind == "select":
        (_, _), (a0, a1), (b0, b1) = args
        return min(a0, b0), max(a1, b1)
    raise NotFusable(f"the index arithmetic holds '{kind}'")


_BINARY = {"addi": "+", "subi": "-", "muli": "*", "divui": "//", "divsi": "//", "floordivsi": "//",
           "remui": "%", "remsi": "%", "shli": "<<", "shrui": ">>", "shrsi": ">>", "andi": "&", "ori": "|",
           "xori": "^"}
_PREDICATES = {"eq": "==", "ne": "!=", "slt": "<", "ult": "<", "sle": "<=", "ule": "<=", "sgt": ">", "ugt": ">",
               "sge": ">=", "uge": ">="}
# Operations whose Triton form (C semantics: truncating division, remainder with the dividend's sign, shifts
# of signed integers) equals the MLIR op only on non-negative operands and positive divisors.
_NEEDS_NON_NEGATIVE = {"divui", "divsi", "floordivsi", "remui", "remsi", "shli", "shrui", "shrsi", "andi", "ori",
                       "xori", "ceildivui", "ceildivsi"}


def _plan(compiled: Any) -> Tuple[List[str], str, bool]:
    """The node statements, the result's name and whether int64 is needed."""
    from .compiler import _PREDICATES as predicate_names

    dims = compiled.dims
    bounds: List[Tuple[int, int]] = []
    lines: List[str] = []
    for n, (kind, operands, extra) in enumerate(compiled.nodes):
        args = [bounds[k] for k in operands]
        names = [f"v{k}" for k in operands]
        if kind in ("const", "bool"):
            bounds.append((int(extra), int(extra)))
            lines.append(f"v{n} = {int(extra)}")
            continue
        if kind == "dim":
            bounds.append((0, dims[extra] - 1))
            lines.append(f"v{n} = i{extra}")
            continue
        if kind in ("index_cast", "index_castui", "extui", "extsi", "trunci"):
            bounds.append(args[0])
            lines.append(f"v{n} = v{operands[0]}")
            continue
        if kind in _NEEDS_NON_NEGATIVE:
            if any(lo < 0 for lo, _ in args) or (kind in ("divui", "divsi", "floordivsi", "remui", "remsi",
                                                          "ceildivui", "ceildivsi") and args[1][0] <= 0):
                raise NotFusable(f"'{kind}' on a possibly negative operand or divisor")
        bounds.append(_interval(kind, args, extra))
        if kind in _BINARY:
            lines.append(f"v{n} = {names[0]} {_BINARY[kind]} {names[1]}")
        elif kind in ("ceildivui", "ceildivsi"):
            lines.append(f"v{n} = ({names[0]} + {names[1]} - 1) // {names[1]}")
        elif kind in ("maxsi", "maxui"):
            lines.append(f"v{n} = tl.maximum({names[0]}, {names[1]})")
        elif kind in ("minsi", "minui"):
            lines.append(f"v{n} = tl.minimum({names[0]}, {names[1]})")
        elif kind == "cmpi":
            lines.append(f"v{n} = ({names[0]} {_PREDICATES[predicate_names[extra]]} {names[1]}).to(IDX)")
        elif kind == "select":
            lines.append(f"v{n} = tl.where({names[0]} != 0, {names[1]}, {names[2]})")
        lo, hi = bounds[-1]
        if lo < _INT64[0] or hi > _INT64[1]:
            raise NotFusable("an intermediate value overflows int64")
    wide = any(lo < _INT32[0] or hi > _INT32[1] for lo, hi in bounds)
    lo, hi = bounds[compiled.result]
    if lo < 0 or hi >= compiled.numel:
        raise NotFusable("the offsets are not proven inside the array")
    return lines, f"v{compiled.result}", wide


def emit_source(compiled: Any, name: str = "lego_layout_move", batch: int = 1,
                tile: Optional[Dict[str, int]] = None) -> Tuple[str, Dict[str, int]]:
    """The Triton source of the layout's move kernel and its launch parameters (``BR``, ``BC``, ``num_warps``,
    ``grid``). ``NotFusable`` when the arithmetic cannot be emitted safely."""
    tile = dict(TILE if tile is None else tile)
    dims = tuple(compiled.dims)
    numel = compiled.numel
    columns = dims[-1]
    rows = numel // columns
    lines, result, wide = _plan(compiled)
    wide = wide or numel * batch > _INT32[1]
    block_c = min(_pow2_at_least(columns), int(tile["BC"]) if rows > 1 else 4096)
    block_r = min(_pow2_at_least(rows), max(int(tile["BR"]) * int(tile["BC"]) // block_c, 1))
    tiles_c = -(-columns // block_c)
    tiles_r = -(-rows // block_r)
    exact = rows % block_r == 0 and columns % block_c == 0
    idx = "tl.int64" if wide else "tl.int32"
    body = [
        "import triton",
        "import triton.language as tl",
        "",
        f"IDX: tl.constexpr = {idx}",
        "",
        "",
        "@triton.jit",
        f"def {name}(src, dst, GATHER: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):",
        f"    # index space {dims}: {rows} rows x {columns} columns, tiles of BR x BC",
        "    pid = tl.program_id(0)",
        f"    pid_r = pid // {tiles_c}",
        f"    pid_c = pid % {tiles_c}",
        f"    base = tl.program_id(1).to(IDX) * {numel}",
        "    r = (pid_r * BR).to(IDX) + tl.arange(0, BR).to(IDX)",
        "    c = (pid_c * BC).to(IDX) + tl.arange(0, BC).to(IDX)",
        "    rr = r[:, None]",
        "    cc = c[None, :]",
    ]
    stride = 1
    for k in range(len(dims) - 2, -1, -1):
        part = "rr" if stride == 1 else f"(rr // {stride})"
        body.append(f"    i{k} = {part} % {dims[k]}" if k else f"    i{k} = {part}")
        stride *= dims[k]
    body.append(f"    i{len(dims) - 1} = cc")
    body += ["    " + line for line in lines]
    body.append(f"    off = {result} + tl.zeros([BR, BC], dtype=IDX)")
    body.append(f"    lin = rr * {columns} + cc")
    if exact:
        body += ["    if GATHER:",
                 "        tl.store(dst + base + lin, tl.load(src + base + off))",
                 "    else:",
                 "        tl.store(dst + base + off, tl.load(src + base + lin))"]
    else:
        body += [f"    mask = (rr < {rows}) & (cc < {columns})",
                 "    if GATHER:",
                 "        tl.store(dst + base + lin, tl.load(src + base + off, mask=mask), mask=mask)",
                 "    else:",
                 "        tl.store(dst + base + off, tl.load(src + base + lin, mask=mask), mask=mask)"]
    launch = {"BR": block_r, "BC": block_c, "num_warps": int(tile["num_warps"]), "grid": tiles_r * tiles_c}
    return "\n".join(body) + "\n", launch


# --- kernels, cached ---------------------------------------------------------------------------------------------

_KERNELS: Dict[Tuple[Any, ...], Any] = {}
_LOCK = threading.Lock()


def clear_cache() -> None:
    _KERNELS.clear()


def _interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "") not in ("", "0")


def kernel_for(compiled: Any, batch: int = 1, tile: Optional[Dict[str, int]] = None) -> Tuple[Any, Dict[str, int]]:
    """``(triton kernel, launch parameters)`` of ``compiled``, cached per (layout and shape, batch width, tile,
    interpreter mode); Triton itself caches the binaries per element type and device."""
    tile_key = tuple(sorted((TILE if tile is None else tile).items()))
    key = (compiled.key, batch * compiled.numel > _INT32[1], tile_key, _interpreting())
    with _LOCK:
        cached = _KERNELS.get(key)
    if cached is not None:
        if isinstance(cached, NotFusable):
            raise cached
        return cached
    try:
        source, launch = emit_source(compiled, batch=batch, tile=tile)
    except NotFusable as error:
        with _LOCK:
            _KERNELS[key] = error
        raise
    from ..jit._adapter import temp_dir

    # Triton reads a kernel's source from its file: write it out, then execute it from there.
    path = os.path.join(temp_dir(), f"lego_layout_{compiled.key[:16]}_{len(_KERNELS)}.py")
    with open(path, "w") as handle:
        handle.write(source)
    namespace: Dict[str, Any] = {"__name__": f"lego_layout_{compiled.key[:16]}"}
    exec(compile(source, path, "exec"), namespace)
    entry = (namespace["lego_layout_move"], launch)
    with _LOCK:
        _KERNELS[key] = entry
    return entry


def applicable(t: Any) -> bool:
    """Whether the fused path serves ``t``: a CUDA tensor and an importable Triton (``LEGO_TRITON_LAYOUT=0``
    switches it off; ``LEGO_TRITON_LAYOUT=1`` forces it on any device, for Triton's interpreter)."""
    mode = os.environ.get("LEGO_TRITON_LAYOUT", "")
    if mode == "0":
        return False
    if mode != "1" and getattr(t.device, "type", None) != "cuda":
        return False
    try:
        import triton  # noqa: F401
    except ImportError:
        return False
    return True


def _launch(compiled: Any, src: Any, gather: bool, batch: int) -> Any:
    import torch

    kernel, launch = kernel_for(compiled, batch)
    src = src.contiguous()
    dst = torch.empty_like(src)
    if batch > 65535:
        raise NotFusable("more than 65535 batch rows")
    kernel[(launch["grid"], batch)](src, dst, GATHER=gather, BR=launch["BR"], BC=launch["BC"],
                                    num_warps=launch["num_warps"])
    return dst


def _make_move() -> Any:
    import torch

    class _Move(torch.autograd.Function):
        """The fused gather (or scatter); its gradient is the scatter (gather) of the incoming gradient."""

        @staticmethod
        def forward(ctx: Any, src: Any, compiled: Any, gather: bool, batch: int) -> Any:  # type: ignore[override]
            ctx.lego = (compiled, gather, batch)
            return _launch(compiled, src, gather, batch)

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:  # type: ignore[override]
            compiled, gather, batch = ctx.lego
            return _Move.apply(grad, compiled, not gather, batch), None, None, None

    return _Move


_MOVE: List[Any] = []


def _require_bijection(compiled: Any) -> None:
    """The kernels write every output element exactly once only for a bijection (the scatter's destinations,
    the gather's sources): checked once per compiled layout on its permutation table (O(n), on the CPU), so no
    path returns memory the kernel did not write. ``ValueError`` naming two indices that collide."""
    if getattr(compiled, "bijection_checked", False):
        return
    import numpy

    count = compiled.numel
    fwd = numpy.empty(count, dtype=numpy.int64)
    compiled.program.table(fwd.ctypes.data)  # every entry: the forward map of each index
    if count and (int(fwd.min()) < 0 or int(fwd.max()) >= count):
        raise ValueError(f"the layout maps a position outside the {count} elements: it is not a bijection on this shape")
    hits = numpy.bincount(fwd, minlength=count)
    if count and int(hits.max()) > 1:
        value = int(numpy.argmax(hits > 1))
        first, second = (int(k) for k in numpy.flatnonzero(fwd == value)[:2])
        raise ValueError(f"the layout is not a bijection on this shape: indices {first} and {second} both map to {value}")
    compiled.bijection_checked = True


def move(compiled: Any, t: Any, gather: bool, batch: int = 1) -> Any:
    """``transform`` (``gather``) or ``inverse_transform`` of ``t`` (``batch`` rows of ``compiled.numel``), flat,
    differentiable. ``NotFusable`` before any work when the layout cannot be fused."""
    if t.numel() != compiled.numel * batch:
        raise ValueError(f"Tensor numel ({t.numel()}) != layout numel ({compiled.numel * batch})")
    kernel_for(compiled, batch)  # NotFusable here, before autograd records anything
    _require_bijection(compiled)
    if not _MOVE:
        _MOVE.append(_make_move())
    return _MOVE[0].apply(t.reshape(-1), compiled, gather, batch)
