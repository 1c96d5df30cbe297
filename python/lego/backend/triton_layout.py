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
gradient and vice versa (:class:`_Move`). Once a layout's kernel is final for an element type and device, later
moves launch the compiled binary through a prepared launcher (``_remember``), skipping the Python-side dispatch.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Dict, List, Optional, Tuple

__all__ = ["NotFusable", "applicable", "emit_source", "optimize", "move", "kernel_for", "TILE", "clear_cache"]

_INT32 = (-(2 ** 31), 2 ** 31 - 1)
_INT64 = (-(2 ** 63), 2 ** 63 - 1)

TILE: Dict[str, int] = {"BR": 64, "BC": 64, "num_warps": 8}
"""The tile of one program (rows × columns of the index space) and its warps when nothing is tuned (small
tensors, Triton's interpreter, CUDA graph capture, ``LEGO_TRITON_TUNE=0``). Smaller dims shrink it (a 1-D layout
gets ``1 × 4096``)."""

# The candidates timed on a tensor's first move (``_choose``): which tile shape suits a layout depends on where its
# offsets fall, and no one shape serves every layout (bench/device/layout_sweep.py on the H100, docs/python.md:
# 64×64 tiles suit transposes, wide ones the XOR swizzle, narrow ones a Z-order scatter).
FORWARD_TILES: List[Dict[str, int]] = [
    {"BR": 64, "BC": 64, "num_warps": 8}, {"BR": 128, "BC": 128, "num_warps": 8}, {"BR": 8, "BC": 512, "num_warps": 4},
    {"BR": 4, "BC": 1024, "num_warps": 4}]
INVERSE_GATHER_TILES: List[Dict[str, int]] = [
    {"BR": 64, "BC": 64, "num_warps": 8}, {"BR": 8, "BC": 512, "num_warps": 4}]
SCATTER_TILES: List[Dict[str, int]] = [
    {"BR": 16, "BC": 64, "num_warps": 4}, {"BR": 4, "BC": 1024, "num_warps": 4}]
TUNE_MIN_NUMEL = 1 << 20
"""Below this many elements a move takes microseconds and the default tile serves."""


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


_CASTS = ("index_cast", "index_castui", "extui", "extsi", "trunci")


def optimize(nodes: List[Tuple[str, List[int], int]], result: int,
             ndims: int) -> Tuple[List[Tuple[str, List[int], int]], int]:
    """The DAG rewritten for a tile of ``BR × BC`` lanes (every rule exact on the non-negative operands that
    ``_plan`` then demands, as it demands them of the original):

    * sums are flattened and regrouped by what they depend on: the terms of the row indices only, of the column
      index only, and of both are summed apart, so a Z-order offset costs one ``BR × BC`` addition instead of
      one per column bit (a node of one kind of index is a ``BR × 1`` or ``1 × BC`` vector);
    * bit ``k`` of a sum of two shifted values, ``((a >> k) + (b >> k)) & 1``, is bit ``k`` of ``a ^ b`` (the
      lowering spells an XOR swizzle that way, bit by bit);
    * ``((t >> k) & 1) << k`` is ``t & 2^k``, and a sum of masks of the same ``t`` with disjoint bits is one mask;
    * ``(… + x + …) − (x & (2^k − 1))`` has ``(x >> k) << k`` for ``x`` (whose bounds interval arithmetic keeps non-negative).

    Iterative (no recursion depth the layout controls); common subexpressions are shared."""
    out: List[Tuple[str, List[int], int]] = []
    memo: Dict[Tuple[Any, ...], int] = {}
    deps: List[frozenset] = []
    value: Dict[int, int] = {}
    last = ndims - 1

    def emit(kind: str, ops: List[int], extra: int = 0) -> int:
        if kind in ("const", "bool"):
            key: Tuple[Any, ...] = ("const", int(extra))
        else:
            key = (kind, tuple(ops), extra)
        found = memo.get(key)
        if found is not None:
            return found
        out.append(("const" if kind == "bool" else kind, list(ops), int(extra)))
        index = len(out) - 1
        memo[key] = index
        if kind in ("const", "bool"):
            deps.append(frozenset())
            value[index] = int(extra)
        elif kind == "dim":
            deps.append(frozenset([extra]))
        else:
            deps.append(frozenset().union(*(deps[o] for o in ops)) if ops else frozenset())
        return index

    def shifted(node: int) -> Optional[Tuple[int, int]]:
        """``(t, k)`` when ``node`` is ``t >> k`` by a constant."""
        kind, ops, _ = out[node]
        if kind == "shrui" and ops[1] in value:
            return ops[0], value[ops[1]]
        return None

    def summands(node: int) -> List[int]:
        """The terms of a (new) sum tree, or the node itself."""
        terms: List[int] = []
        stack = [node]
        while stack:
            top = stack.pop()
            if out[top][0] == "addi":
                stack.extend(reversed(out[top][1]))
            else:
                terms.append(top)
        return terms

    def fold(terms: List[int]) -> Optional[int]:
        total: Optional[int] = None
        for term in terms:
            total = term if total is None else emit("addi", [total, term])
        return total

    def build_sum(terms: List[int]) -> int:
        constant = sum(value[t] for t in terms if t in value)
        rest = [t for t in terms if t not in value]
        # Masks of one value with disjoint bits: one mask.
        masks: Dict[int, int] = {}
        kept: List[int] = []
        for term in rest:
            kind, ops, _ = out[term]
            if kind == "andi" and ops[1] in value and value[ops[1]] >= 0:
                mask = value[ops[1]]
                base = ops[0]
                if base in masks and masks[base] & mask == 0:
                    masks[base] |= mask
                    continue
                if base not in masks:
                    masks[base] = mask
                    continue
            kept.append(term)
        for base, mask in masks.items():
            kept.append(emit("andi", [base, emit("const", [], mask)]))
        rows = [t for t in kept if deps[t] and last not in deps[t]]
        columns = [t for t in kept if deps[t] == frozenset([last])]
        both = [t for t in kept if t not in rows and t not in columns]
        if constant:
            (rows if rows else columns if columns else both).append(emit("const", [], constant))
        parts = [p for p in (fold(rows), fold(columns), fold(both)) if p is not None]
        total = fold(parts)
        return total if total is not None else emit("const", [], 0)

    mapped: List[int] = []
    for n, (kind, operands, extra) in enumerate(nodes):
        ops = [mapped[o] for o in operands]
        if kind in _CASTS:
            mapped.append(ops[0])
            continue
        if kind in ("const", "bool", "dim"):
            mapped.append(emit(kind, [], extra))
            continue
        if kind == "addi":
            leaves: List[int] = []
            stack = [n]
            while stack:
                top = stack.pop()
                top_kind, top_ops, _ = nodes[top]
                if top_kind == "addi":
                    stack.extend(reversed(top_ops))
                elif top_kind in _CASTS:
                    stack.append(top_ops[0])
                else:
                    leaves.append(mapped[top])
            mapped.append(build_sum(leaves))
            continue
        if kind == "andi" and value.get(ops[1]) == 1 and out[ops[0]][0] == "addi":
            a, b = out[ops[0]][1]
            sa, sb = shifted(a) or (a, 0), shifted(b) or (b, 0)
            if sa[1] == sb[1] and a not in value and b not in value:
                t = emit("xori", [sa[0], sb[0]])
                bit = t if sa[1] == 0 else emit("shrui", [t, emit("const", [], sa[1])])
                mapped.append(emit("andi", [bit, ops[1]]))
                continue
        if kind == "subi" and out[ops[1]][0] == "andi":
            x, mask_node = out[ops[1]][1]
            mask = value.get(mask_node, -1)
            terms = summands(ops[0])
            if mask > 0 and mask & (mask + 1) == 0 and x in terms:
                # (… + x + …) − (x mod 2^k): x's high part (x >> k) << k in the sum, bounds kept non-negative.
                k = emit("const", [], mask.bit_length())
                terms.remove(x)
                mapped.append(build_sum(terms + [emit("shli", [emit("shrui", [x, k]), k])]))
                continue
        if kind == "shli" and ops[1] in value and out[ops[0]][0] == "andi":
            inner, mask = out[ops[0]][1]
            s_inner = shifted(inner)
            if value.get(mask) == 1 and s_inner is not None and s_inner[1] == value[ops[1]] and 0 <= s_inner[1] < 63:
                mapped.append(emit("andi", [s_inner[0], emit("const", [], 1 << s_inner[1])]))
                continue
        mapped.append(emit(kind, ops, extra))
    # Only what the result needs, renumbered in order.
    live = [False] * len(out)
    live[mapped[result]] = True
    for k in range(len(out) - 1, -1, -1):
        if live[k]:
            for o in out[k][1]:
                live[o] = True
    renumber: Dict[int, int] = {}
    kept_nodes: List[Tuple[str, List[int], int]] = []
    for k, (kind, ops, extra) in enumerate(out):
        if live[k]:
            renumber[k] = len(kept_nodes)
            kept_nodes.append((kind, [renumber[o] for o in ops], extra))
    return kept_nodes, renumber[mapped[result]]


def _plan(compiled: Any) -> Tuple[List[str], str, bool]:
    """The node statements, the result's name and whether int64 is needed."""
    from .compiler import _PREDICATES as predicate_names

    dims = compiled.dims
    nodes, result = optimize(compiled.nodes, compiled.result, len(dims))
    bounds: List[Tuple[int, int]] = []
    lines: List[str] = []
    for n, (kind, operands, extra) in enumerate(nodes):
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
    lo, hi = bounds[result]
    if lo < 0 or hi >= compiled.numel:
        raise NotFusable("the offsets are not proven inside the array")
    return lines, f"v{result}", wide


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
    box = (int(tile["BRS"]), int(tile["BCS"])) if "BCS" in tile else None
    if box is not None:
        # A box tile is exactly the shape access_plan.boxes checked; it tiles the index space exactly.
        block_r, block_c = int(tile["BR"]), int(tile["BC"])
        if rows % block_r or columns % block_c:
            raise NotFusable("a box tile that does not divide the index space")
    else:
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
    # Contiguity checked on the whole table (access_plan.contiguity), at most one tile long: Triton may then
    # load (or store) the offsets as vectors.
    v0, v1 = getattr(compiled, "contiguity", None) or (1, 1)
    v0, v1 = min(v0, block_r), min(v1, block_c)
    if (v0, v1) != (1, 1) and box is None:
        body.append(f"    off = tl.max_contiguous(tl.multiple_of(off, [{v0}, {v1}]), [{v0}, {v1}])")
    if box is not None:
        brs, bcs = box
        body += [
            "    # The tile's sources fill one aligned box (access_plan.boxes, checked at every offset): load it",
            "    # with contiguous rows, permute it on chip.",
            f"    origin = (tl.min(tl.min(off, axis=1), axis=0) // {bcs}) * {bcs}",
            f"    box_r = origin // {columns}",
            f"    box_c = origin % {columns}",
            f"    box = tl.load(src + base + (box_r + tl.arange(0, {brs}).to(IDX))[:, None] * {columns}"
            f" + (box_c + tl.arange(0, {bcs}).to(IDX))[None, :])",
            f"    local = (off // {columns} - box_r) * {bcs} + (off % {columns} - box_c)",
            f"    moved = tl.gather(tl.reshape(box, [{brs * bcs}]), tl.reshape(local, [{brs * bcs}]).to(tl.int32), 0)",
            f"    tl.store(dst + base + lin, tl.reshape(moved, [BR, BC]))",
        ]
    elif exact:
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
    _TUNED.clear()
    _LAUNCHERS.clear()


def _grad_enabled() -> bool:
    import torch

    return torch.is_grad_enabled()


def _interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "") not in ("", "0")


def kernel_for(compiled: Any, batch: int = 1, tile: Optional[Dict[str, int]] = None) -> Tuple[Any, Dict[str, int]]:
    """``(triton kernel, launch parameters)`` of ``compiled``, cached per (layout and shape, batch width, tile,
    interpreter mode); Triton itself caches the binaries per element type and device."""
    tile_key = tuple(sorted((TILE if tile is None else tile).items()))
    key = (compiled.key, batch * compiled.numel > _INT32[1], tile_key, getattr(compiled, "contiguity", None),
           _interpreting())
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


_TUNED: Dict[Tuple[Any, ...], Tuple[Any, bool, Dict[str, int]]] = {}


def _candidates(compiled: Any, gather: bool) -> List[Tuple[Any, bool, Dict[str, int]]]:
    """``(program, gather, tile)`` choices that move the data the same way. The scatter direction runs either as the scatter or as a gather through the inverse map (when it was
    checked, ``_check_inverse``), whose writes are contiguous."""
    if gather:
        return [(compiled, True, tile) for tile in FORWARD_TILES + _box_tiles(compiled)]
    inverse = getattr(compiled, "inverse_gather", None)
    gathers = [(inverse, True, tile) for tile in INVERSE_GATHER_TILES + _box_tiles(inverse)] if inverse else []
    return gathers + [(compiled, False, tile) for tile in SCATTER_TILES]


def _box_tiles(program: Any) -> List[Dict[str, int]]:
    """The box tiles ``access_plan.boxes`` found and checked for ``program`` (gather only)."""
    return [{"BR": br, "BC": bc, "BRS": brs, "BCS": bcs, "num_warps": 8 if br * bc >= 4096 else 4}
            for (br, bc), (brs, bcs) in (getattr(program, "boxes", None) or [])]


def _plan_access(program: Any, table: Optional[Any]) -> None:
    """Once per program: its contiguity and boxes (lego.backend.access_plan), from its full table."""
    if getattr(program, "contiguity", None) is not None:
        return
    from . import access_plan
    from .compiler import program_table

    if table is None:
        table = program_table(program)
    columns = program.dims[-1]
    program.boxes = access_plan.boxes(table, columns) if program.numel >= TUNE_MIN_NUMEL else []
    program.contiguity = access_plan.contiguity(table, columns)


def _run(choice: Tuple[Any, bool, Dict[str, int]], src: Any, dst: Any, batch: int) -> Any:
    """Launches ``choice`` through Triton's dispatch; returns what Triton returns (the compiled kernel, or
    ``None`` under the interpreter)."""
    program, gather, tile = choice
    kernel, launch = kernel_for(program, batch, tile)
    return kernel[(launch["grid"], batch)](src, dst, GATHER=gather, BR=launch["BR"], BC=launch["BC"],
                                           num_warps=launch["num_warps"])


# --- prepared launchers ------------------------------------------------------------------------------------------
# Once a layout's candidate is final for an element type and device, later moves skip the Python-side dispatch:
# the autograd Function (when no gradient is wanted), the checks and caches of ``move``, the tuner's lookup and
# Triton's own argument binding and specialization. ``transform`` on the H100 spent 55-106 us of host time per call
# through that dispatch, as long as an fp16 8192² move takes on the GPU (bench/device/transform_overhead.py), so a
# few calls in a row were host-bound. The launcher calls the compiled binary's own runner
# (``CompiledKernel[grid](*args)``, the arguments as Triton binds them: pointers, then the constexprs), prepared
# once with its grid and constants.

_LAUNCHERS: Dict[Tuple[Any, ...], Any] = {}


def _launcher_key(compiled: Any, src: Any, gather: bool, batch: int) -> Tuple[Any, ...]:
    return (compiled.key, gather, batch, src.dtype, src.device)


def _remember(compiled: Any, choice: Tuple[Any, bool, Dict[str, int]], binary: Any, src: Any, gather: bool,
              batch: int) -> None:
    """Keeps a launcher for ``binary`` (what ``_run`` returned for ``choice``) when it is a compiled kernel whose
    runner Triton exposes; otherwise (the interpreter, another Triton) the full path keeps serving."""
    if binary is None or _interpreting() or not callable(getattr(binary, "__getitem__", None)):
        return
    program, _, tile = choice
    _, launch = kernel_for(program, batch, tile)
    try:
        runner = binary[(launch["grid"], batch, 1)]
    except Exception:  # an interface this module does not know: stay on the full path
        return
    constants = (choice[1], launch["BR"], launch["BC"])

    def launcher(flat_src: Any, flat_dst: Any) -> None:
        runner(flat_src, flat_dst, *constants)

    _LAUNCHERS[_launcher_key(compiled, src, gather, batch)] = launcher


def _prepared(compiled: Any, src: Any, gather: bool, batch: int) -> Optional[Any]:
    """The launcher of ``_remember`` for this move, when one exists and the call matches what it was compiled for:
    a contiguous source aligned to 16 bytes (Triton specializes pointers on it; the destination is a fresh
    allocation) on the current device (the runner launches on the current device's current stream)."""
    if not _LAUNCHERS:
        return None
    launcher = _LAUNCHERS.get(_launcher_key(compiled, src, gather, batch))
    if launcher is None or not src.is_contiguous() or src.data_ptr() % 16 or not _on_current_device(src):
        return None
    return launcher


def _move_prepared(compiled: Any, src: Any, gather: bool, batch: int) -> Optional[Any]:
    """The move of flat ``src`` through its prepared launcher into a fresh tensor; ``None`` when there is none
    (a launcher exists only for a batch ``_launch`` accepted)."""
    launcher = _prepared(compiled, src, gather, batch)
    if launcher is None:
        return None
    import torch

    dst = torch.empty_like(src)
    launcher(src, dst)
    return dst


def _on_current_device(src: Any) -> bool:
    import torch

    return src.device.type == "cuda" and src.device.index == torch.cuda.current_device()


def _tuning(src: Any) -> bool:
    import torch

    if os.environ.get("LEGO_TRITON_TUNE", "") == "0" or _interpreting() or src.device.type != "cuda":
        return False
    return not torch.cuda.is_current_stream_capturing()


def _choose(compiled: Any, gather: bool, src: Any, dst: Any,
            batch: int) -> Tuple[Tuple[Any, bool, Dict[str, int]], bool]:
    """The fastest candidate for this layout, element type and device, timed once on the tensors at hand (every
    candidate writes the same ``dst``), like ``triton.autotune``; cached for the process. With whether the choice is
    final: not when tuning was wanted but could not run now (the interpreter, a CUDA graph capture,
    ``LEGO_TRITON_TUNE=0``), so that no launcher is prepared for an untuned default."""
    import torch

    small = compiled.numel * batch < TUNE_MIN_NUMEL
    if small or not _tuning(src):
        inverse = getattr(compiled, "inverse_gather", None)
        default = (compiled, True, TILE) if gather else (inverse, True, TILE) if inverse else (compiled, False, TILE)
        return default, small
    candidates = _candidates(compiled, gather)
    key = (compiled.key, gather, batch * compiled.numel > _INT32[1], src.dtype, src.device.index)
    with _LOCK:
        chosen = _TUNED.get(key)
    if chosen is not None:
        return chosen, True
    for choice in candidates:
        _run(choice, src, dst, batch)  # compiles
        _run(choice, src, dst, batch)
    # Interleaved rounds, best of each: a clock or neighbour change during tuning then hits every candidate.
    best = [float("inf")] * len(candidates)
    for _ in range(4):
        for index, choice in enumerate(candidates):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(2):
                _run(choice, src, dst, batch)
            end.record()
            end.synchronize()
            best[index] = min(best[index], start.elapsed_time(end))
    chosen = candidates[min(range(len(candidates)), key=best.__getitem__)]
    with _LOCK:
        _TUNED[key] = chosen
    return chosen, True


def _launch(compiled: Any, src: Any, gather: bool, batch: int) -> Any:
    import torch

    if batch > 65535:
        raise NotFusable("more than 65535 batch rows")
    src = src.contiguous()
    prepared = _move_prepared(compiled, src, gather, batch)
    if prepared is not None:
        return prepared
    dst = torch.empty_like(src)
    choice, final = _choose(compiled, gather, src, dst, batch)
    binary = _run(choice, src, dst, batch)
    if final:
        _remember(compiled, choice, binary, src, gather, batch)
    return dst


def _check_inverse(compiled: Any, inverse_factory: Optional[Any], batch: int,
                   forward_table: Optional[Any] = None) -> None:
    """Once per compiled layout: the inverse map's program (``compiler.compile_inverse_program``), kept in
    ``compiled.inverse_gather`` only if it is fusable and undoes the forward map at every offset (a ``GenP``'s
    inverse is the user's function: it is checked, not trusted); otherwise ``False`` and the scatter serves."""
    if getattr(compiled, "inverse_gather", None) is not None:
        return
    from .._bridge import LegoError
    from .compiler import program_table

    chosen: Any = False
    if inverse_factory is not None:
        try:
            candidate = inverse_factory()
            kernel_for(candidate, batch)
            if forward_table is None:
                forward_table = program_table(compiled)
            inverse_table = program_table(candidate)
            import numpy

            chunk = 1 << 22
            exact = True
            for start in range(0, compiled.numel, chunk):
                stop = min(start + chunk, compiled.numel)
                if not numpy.array_equal(inverse_table[forward_table[start:stop]],
                                         numpy.arange(start, stop, dtype=numpy.int64)):
                    exact = False
                    break
            chosen = candidate if exact else False
            if exact:
                _plan_access(candidate, inverse_table)
        except (NotFusable, LegoError, ValueError, TypeError, IndexError, NotImplementedError):
            chosen = False
    compiled.inverse_gather = chosen


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


def _require_bijection(compiled: Any) -> Optional[Any]:
    """The kernels write every output element exactly once only for a bijection (the scatter's destinations,
    the gather's sources): ``compiler.check_bijection``, once per compiled layout, so no path returns memory the
    kernel did not write. The forward table when it was built now (``_check_inverse`` reuses it)."""
    from .compiler import check_bijection

    return check_bijection(compiled)


def move(compiled: Any, t: Any, gather: bool, batch: int = 1, inverse: Optional[Any] = None) -> Any:
    """``transform`` (``gather``) or ``inverse_transform`` of ``t`` (``batch`` rows of ``compiled.numel``), flat,
    differentiable. ``NotFusable`` before any work when the layout cannot be fused. ``inverse``: a callable
    returning the inverse map's program (``compiler.compile_inverse_program``); with it, the scatter direction
    (and the gather's gradient) runs as a gather too."""
    if t.numel() != compiled.numel * batch:
        raise ValueError(f"Tensor numel ({t.numel()}) != layout numel ({compiled.numel * batch})")
    # A prepared launcher exists only once every check below has passed for this layout and batch.
    if _LAUNCHERS and not (t.requires_grad and _grad_enabled()):
        prepared = _move_prepared(compiled, t.reshape(-1), gather, batch)
        if prepared is not None:
            return prepared
    kernel_for(compiled, batch)  # NotFusable here, before autograd records anything
    table = _require_bijection(compiled)
    _plan_access(compiled, table)
    _check_inverse(compiled, inverse, batch, table)
    if not _MOVE:
        _MOVE.append(_make_move())
    return _MOVE[0].apply(t.reshape(-1), compiled, gather, batch)
