"""Memory analysis, shared-layout choice and bounds checks of ``@gpu_kernel`` kernels (docs/gpu-dsl.md,
"Memory analysis").

The DSL's trace (``GPUKernel.mlir_text()``) reads the thread and block ids with ``gpu.thread_id``/``gpu.block_id``
inside the launch and wraps each layout in ``lego.order_by``; ``analysis_text`` rewrites it into the form the
analysis passes read — the launch's own id arguments, a single-layout ``order_by`` dropped (it is that layout),
one static ``lego.row`` per shape at the top of the launch (so that a shared tile's accesses share one layout
op) — without changing any address. Then:

* ``analyze_memory(kernels)``: ``lego-analyze-memory``'s per-access table (``report=json``) of each kernel: for
  a shared access its bank-conflict degree, for a global one its sectors per warp request and the ideal;
* ``choose_shared_layout(kernel)``: what ``lego-choose-smem-layout`` chooses for the kernel's 2-D shared tile,
  as a Python layout the kernel can declare (``Shared(layout, n)``): ``Row(R, C + pad)`` for a padding, a
  ``GenP`` XOR swizzle (``swizzle_layout``) for a swizzle;
* ``bounds_violations(kernel)``: the global and shared accesses of the kernel whose index can leave its buffer,
  from ``lego-generate-bounds-checks`` (each buffer index is a ``lego.apply`` of the buffer's layout: the pass
  puts a ``lego.assert_apply_bounds`` before it) and ``lego-external-smt-verifier``, which proves each
  assertion over every block id, thread id and loop iteration under the ``if`` guards or reports it;
* ``lane_costs(kernel)``: the costs ``analyze_memory`` gives, by brute-force enumeration of the threads'
  addresses (a cross-check independent of the pass's Z3 encoding).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Tuple

import sympy

from lego import _lego
from lego.core import GenP, LayoutBlock, Row

__all__ = ["analysis_text", "analyze_memory", "choose_shared_layout", "swizzle_layout", "bounds_violations",
           "lane_costs"]

_IDS = {"thread_id": "t", "block_id": "b", "block_dim": "s", "grid_dim": "g"}


def analysis_text(kernel: Any, name: str = "") -> str:
    """The kernel's traced MLIR in the form the analysis passes read (module docstring); ``name`` renames its
    function (to put several kernels in one module)."""
    t = kernel.mlir_text()
    if name:
        t = t.replace(f"func.func @{kernel.name}(", f"func.func @{name}(", 1)
    for kind, prefix in _IDS.items():
        for axis in "xyz":
            for value in re.findall(r"(%\w+) = gpu\." + kind + " " + axis + r"\n", t):
                t = re.sub(r"\n\s*" + re.escape(value) + r" = gpu\." + kind + " " + axis + r"\n", "\n", t)
                t = re.sub(re.escape(value) + r"\b", "%" + prefix + axis, t)
    for new, old in re.findall(r"(%\w+) = lego\.order_by\((%\w+)\) : !lego\.layout\n", t):
        if re.search(r"lego\.tile_by " + re.escape(new) + r"\b", t):
            continue  # tile_by needs its order_by
        t = re.sub(r"\n\s*" + re.escape(new) + r" = lego\.order_by\(" + re.escape(old) + r"\) : !lego\.layout\n", "\n", t)
        t = re.sub(re.escape(new) + r"\b", old, t)
    rows: Dict[str, str] = {}
    row = r" = lego\.row \[[\d, ]+\] : !lego\.layout(?=\n)"
    for value, dims in re.findall(r"\n\s*(%\w+) = lego\.row \[([\d, ]+)\] : !lego\.layout(?=\n)", t):
        first = rows.setdefault(dims, value)
        if first != value:
            t = re.sub(r"\n\s*" + re.escape(value) + row, "", t)
            t = re.sub(re.escape(value) + r"\b", first, t)
    for dims, value in rows.items():
        t = re.sub(r"\n\s*" + re.escape(value) + row, "", t)
        t = re.sub(r"(gpu\.launch [^\n]*\{\n)", r"\g<1>    " + value + " = lego.row [" + dims + "] : !lego.layout\n", t, count=1)
    return t


def _lego_opt(text: str, args: Sequence[str]) -> Tuple[int, str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "kernels.mlir")
        with open(path, "w") as f:
            f.write(text)
        run = subprocess.run([sys.executable, "-m", "lego._tools", "lego-opt", path, *args, "-o", os.devnull],
                             capture_output=True, text=True, env=dict(os.environ, LEGO_NO_COLOR="1"))
    return run.returncode, run.stdout, run.stderr


def _json_report(stderr: str, key: str) -> List[Dict[str, Any]]:
    for line in stderr.splitlines():
        if line.startswith("{\"" + key + "\""):
            return json.loads(line)[key]
    raise RuntimeError(f"{key}: no report in\n{stderr}")


def analyze_memory(kernels: Dict[str, Any]) -> Dict[str, List[Dict[str, Any]]]:
    """``{name: [access, …]}`` for ``{name: kernel}`` (one ``lego-opt`` run for all): each access
    ``{"op", "space", "bytes", "degree"}`` (shared) or ``{"op", "space", "bytes", "sectors", "ideal_sectors"}``
    (global), in program order; ``"error"`` instead of the cost where the pass cannot analyze it. Names must be
    MLIR identifiers."""
    # A cluster kernel is traced already outlined (a gpu.func carrying nvvm.cluster_dim, no gpu.launch whose
    # ids analysis_text could rewrite): reported as not analyzed rather than guessed.
    from .gpu_dsl import F_CLUSTER

    outlined = {name for name, k in kernels.items() if F_CLUSTER in k.features()}
    text = "\n".join(analysis_text(k, name) for name, k in kernels.items() if name not in outlined)
    # timeout-ms is the Z3 budget of the whole pass (default 10 s): one run over many kernels needs more.
    rc, _, err = _lego_opt(text, ["--lego-analyze-memory=timeout-ms=600000", "--lego-report=json"])
    if rc != 0:
        raise RuntimeError(f"lego-analyze-memory failed:\n{err}")
    out: Dict[str, List[Dict[str, Any]]] = {
        name: [{"op": "*", "space": "any", "bytes": 0, "error": "an outlined cluster kernel"}] for name in outlined}
    for entry in _json_report(err, "lego-analyze-memory"):
        name = entry["kernel"].split("#")[0]
        rows = []
        for a in entry["accesses"]:
            row = {k: a[k] for k in ("op", "space", "bytes", "degree", "sectors", "ideal_sectors", "error") if k in a}
            if a.get("dead") and not {"degree", "sectors"} & set(row):
                # Proved never executed (a guard that no thread passes at these sizes): no request, no cost.
                row["error"] = "never executed (its guard is false for every thread)"
            if not {"degree", "sectors", "error"} & set(row):
                raise RuntimeError(f"lego-analyze-memory: no cost for {a}")
            if a.get("proved") is False:
                row["proved"] = False
            rows.append(row)
        out.setdefault(name, []).extend(rows)
    return out


def swizzle_layout(rows: int, cols: int, bits: int, base: int, shift: int) -> LayoutBlock:
    """``lego.swizzle bits B base M shift S dims [R, C]`` (CuTe's ``Swizzle<B, M, S>`` on the flat index
    ``f = i·C + j``: bits ``[M, M+B)`` XOR bits ``[M+S, M+S+B)``) as a ``GenP``, in integer arithmetic the
    DSL's pipelines lower everywhere: with ``y_k``, ``z_k`` bits ``M+k`` and ``M+S+k`` of ``f``,
    ``f ⊕ … = f + Σ_k 2^(M+k)·z_k·(1 − 2·y_k)``. Its own inverse (``S ≥ B``: the source bits are not changed)."""
    if shift < bits:
        raise ValueError("swizzle_layout: shift must be at least bits")

    def swz(f: Any) -> Any:
        total = f
        for k in range(bits):
            y = sympy.Mod(sympy.floor(f / 2 ** (base + k)), 2)
            z = sympy.Mod(sympy.floor(f / 2 ** (base + shift + k)), 2)
            total += 2 ** (base + k) * z * (1 - 2 * y)
        return total

    def inverse(flat: Any) -> Tuple[Any, Any]:
        g = swz(flat)
        return sympy.floor(g / cols), sympy.Mod(g, cols)

    return GenP([rows, cols], lambda idx: swz(idx[0] * cols + idx[1]), inverse)


def choose_shared_layout(kernel: Any) -> Dict[str, Any]:
    """What ``lego-choose-smem-layout`` chooses for the kernel's (one) 2-D shared tile ``lego.row [R, C]``:
    ``{"chosen": the pass's words, "degree", "original_degree", "layout": a Python layout, "size": elements}``.
    The layout is read back from the rewritten module (the ``lego.swizzle``/``lego.row`` op the views use)."""
    text = analysis_text(kernel)
    rc, _, err = _lego_opt(text, ["--lego-choose-smem-layout", "--lego-report=json"])
    if rc != 0:
        raise RuntimeError(f"lego-choose-smem-layout failed:\n{err}")
    report = _json_report(err, "lego-choose-smem-layout")
    if len(report) != 1:
        raise ValueError(f"choose_shared_layout: expected one searched tile, got {report}\n{err}")
    choice = report[0]
    rows, cols = choice["rows"], choice["cols"]
    rewritten = _lego.parse_module(text, f"<{kernel.name}>").run("builtin.module(lego-choose-smem-layout)").text
    swz = re.search(r"lego\.swizzle bits (\d+) base (\d+) shift (\d+) dims\[(\d+), (\d+)\]", rewritten)
    if "swizzle" in choice["chosen"] and "pair" not in choice["chosen"] and swz:
        b, m, s, r, c = (int(g) for g in swz.groups())
        assert (r, c) == (rows, cols)
        layout, size = swizzle_layout(rows, cols, b, m, s), rows * cols
    else:
        padded = re.search(r"lego\.row\[" + str(rows) + r", (\d+)\]", rewritten)
        if padded is None or "pad" not in choice["chosen"] and int(padded.group(1)) != cols:
            raise NotImplementedError(f"choose_shared_layout: no Python form of {choice['chosen']!r}")
        width = int(padded.group(1))
        layout, size = Row(rows, width), rows * width
    return dict(chosen=choice["chosen"], degree=choice["degree"], original_degree=choice["original_degree"],
                extra_bytes=choice["extra_bytes"], layout=layout, size=size)


def _guarded_text(kernel: Any) -> str:
    """``analysis_text`` with what the SMT verifier needs to see a GPU kernel's bounds as its threads do: the
    launch's ids bounded (``lego.assume_bounds %tx ub : %sx``, …), and each ``lego.apply`` under ``scf.if``
    guards given ``select(guards, index, 0)`` for its indices — the same index where the guards hold, an index
    in bounds where they do not (the access does not run), so the obligation is exactly "guards ⇒ in bounds"."""
    out: List[str] = []
    stack: List[Any] = []  # per open region: its condition value (scf.if / else) or None
    fresh = 0
    for line in analysis_text(kernel).splitlines():
        stripped = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        if stripped.startswith("gpu.launch "):
            out.append(line)
            ids = re.search(r"blocks\((%\w+), (%\w+), (%\w+)\) in \((%\w+) = \S+, (%\w+) = \S+, (%\w+) = \S+\) "
                            r"threads\((%\w+), (%\w+), (%\w+)\) in \((%\w+) = \S+, (%\w+) = \S+, (%\w+) = \S+\)", line)
            if ids:
                g = ids.groups()
                for value, size in list(zip(g[0:3], g[3:6])) + list(zip(g[6:9], g[9:12])):
                    out.append(f"{indent}  lego.assume_bounds {value} ub : {size}")
            stack.append(None)
            continue
        m = re.match(r"(?:%[\w:#]+(?:, %[\w:#]+)* = )?scf\.if (%\w+)(?: -> \(.*\))? \{$", stripped)
        if m:
            stack.append(m.group(1))
        elif stripped == "} else {":
            cond = stack.pop()
            fresh += 1
            # the negation is emitted before the scf.if would be too late in text order; an i1 xori with
            # true right here is inside the else region, where the condition still dominates
            out.append(line)
            out.append(f"{indent}  %bc_true{fresh} = arith.constant true")
            out.append(f"{indent}  %bc_not{fresh} = arith.xori {cond}, %bc_true{fresh} : i1")
            stack.append(f"%bc_not{fresh}")
            continue
        elif stripped.endswith("{"):
            stack.append(None)
        elif stripped.startswith("}"):
            if stack:
                stack.pop()
        conds = [c for c in stack if c]
        a = re.match(r"(%\w+) = lego\.apply (%\w+)\(([^)]*)\) : !lego\.layout$", stripped)
        if a and conds and a.group(3).strip():
            fresh += 1
            cond = conds[0]
            for k, extra in enumerate(conds[1:]):
                out.append(f"{indent}%bc_and{fresh}_{k} = arith.andi {cond}, {extra} : i1")
                cond = f"%bc_and{fresh}_{k}"
            out.append(f"{indent}%bc_zero{fresh} = arith.constant 0 : index")
            args = []
            for k, arg in enumerate(x.strip() for x in a.group(3).split(",")):
                out.append(f"{indent}%bc_sel{fresh}_{k} = arith.select {cond}, {arg}, %bc_zero{fresh} : index")
                args.append(f"%bc_sel{fresh}_{k}")
            line = f"{indent}{a.group(1)} = lego.apply {a.group(2)}({', '.join(args)}) : !lego.layout"
        out.append(line)
    return "\n".join(out) + "\n"


def bounds_violations(kernel: Any) -> List[str]:
    """The kernel's accesses whose index can leave its buffer's layout: ``lego-generate-bounds-checks`` (a
    ``lego.assert_apply_bounds`` before each buffer index's ``lego.apply``) then ``lego-external-smt-verifier``
    (Z3, over every block id, thread id and loop iteration that reaches the access through its ``if`` guards:
    ``_guarded_text``). Each item the verifier's message followed by the ``lego.apply`` it checks and the
    access that uses it; empty when every index is proved in bounds."""
    text = _guarded_text(kernel)
    rc, _, err = _lego_opt(text, ["--lego-generate-bounds-checks", "--lego-external-smt-verifier"])
    if rc == 0 and "error" not in err:
        return []
    lines = text.splitlines()
    found = []
    for m in re.finditer(r"^(\S+):(\d+):(\d+): (error|warning): (.*)$", err, re.M):
        line = int(m.group(2))
        source = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        value = source.split(" = ")[0]
        use = next((x.strip() for x in lines[line:] if value and re.search(re.escape(value) + r"\]", x)), "")
        found.append(f"{m.group(5)}: `{source}` for `{use}`")
    if not found:
        raise RuntimeError(f"bounds checks failed without a diagnostic:\n{err}")
    return found
# --- brute-force lane enumeration (independent of lego-analyze-memory's Z3 encoding) -------------------------

_ACCESS = re.compile(r"(?:(%\w+) = )?(memref|vector)\.(load|store) (?:(%\w+), )?(%\w+)\[([^\]]*)\] : "
                     r"(?:(vector<(\d+)x(\w+)>, )?)?memref<(\d+)x(\w+)(, #gpu\.address_space<workgroup>)?>")
_BIN = {"addi": lambda a, b: a + b, "subi": lambda a, b: a - b, "muli": lambda a, b: a * b,
        "divui": lambda a, b: a // b, "remui": lambda a, b: a % b, "floordivsi": lambda a, b: a // b,
        "divsi": lambda a, b: int(a / b), "remsi": lambda a, b: a - b * int(a / b),
        "ceildivui": lambda a, b: -(-a // b), "ceildivsi": lambda a, b: -(-a // b),
        "andi": lambda a, b: a & b, "ori": lambda a, b: a | b, "xori": lambda a, b: a ^ b,
        "shli": lambda a, b: a << b, "shrsi": lambda a, b: a >> b, "shrui": lambda a, b: a >> b,
        "minui": min, "minsi": min, "maxui": max, "maxsi": max}
_CMP = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "slt": lambda a, b: a < b, "ult": lambda a, b: a < b,
        "sle": lambda a, b: a <= b, "ule": lambda a, b: a <= b, "sgt": lambda a, b: a > b, "ugt": lambda a, b: a > b,
        "sge": lambda a, b: a >= b, "uge": lambda a, b: a >= b}
_BYTES = {"f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i16": 2, "f64": 8, "i64": 8, "i8": 1}


def _tree(lines, k=0):
    """Nested ops of the lowered launch body: a line, or (header line, [region, …]) for an op with regions."""
    body = []
    while k < len(lines):
        s = lines[k].strip()
        k += 1
        if s.startswith("}") and s != "} else {":
            return body, k
        if s == "} else {":
            return body, k - 1
        if s.endswith("{"):
            regions = []
            region, k = _tree(lines, k)
            regions.append(region)
            while k < len(lines) and lines[k].strip() == "} else {":
                region, k = _tree(lines, k + 1)
                regions.append(region)
            body.append((s, regions))
        else:
            body.append(s)
    return body, k


def lane_costs(kernel: Any, num_banks: int = 32, max_work: int = 300_000) -> Optional[List[Optional[int]]]:
    """The cost of each access of the kernel (program order, as ``analyze_memory``) by enumeration: every block,
    thread and loop iteration is run through an interpreter of the index arithmetic of the kernel lowered by
    ``lego-to-arith``; the addresses of one warp's active lanes at one dynamic instance of an access form a
    request; a shared request's degree (phases of 128 bytes of lane data, the largest number of distinct 4-byte
    words one bank serves in one phase), a global request's distinct 32-byte sectors; the most over all
    requests. ``None`` for an access whose index or guard is not integer arithmetic of ids and loop counters
    (a loaded value, a loop-carried value); ``None`` for the whole kernel past ``max_work`` interpreted ops."""
    text = _lego.parse_module(analysis_text(kernel), f"<{kernel.name}>").run("builtin.module(lego-to-arith)").text
    lines = text.splitlines()
    start = next(k for k, l in enumerate(lines) if "gpu.launch " in l)
    launch = lines[start]
    consts: Dict[str, Any] = {}
    for l in lines[:start]:
        c = re.match(r"\s*(%\w+) = arith\.constant (-?\d+|true|false) : (index|i\d+)$", l)
        if c:
            consts[c.group(1)] = {"true": 1, "false": 0}.get(c.group(2), None) if c.group(2) in ("true", "false") \
                else int(c.group(2))
    g = re.search(r"blocks\((%\w+), (%\w+), (%\w+)\) in \((%\w+) = (%\w+), (%\w+) = (%\w+), (%\w+) = (%\w+)\) "
                  r"threads\((%\w+), (%\w+), (%\w+)\) in \((%\w+) = (%\w+), (%\w+) = (%\w+), (%\w+) = (%\w+)\)", launch).groups()
    grid = [consts[g[4]], consts[g[6]], consts[g[8]]]
    block = [consts[g[13]], consts[g[15]], consts[g[17]]]
    body, _ = _tree(lines, start + 1)
    n_access = [0]
    requests: Dict[Tuple[Any, ...], List[Tuple[int, int]]] = {}
    unknown: set = set()
    work = [0]
    lane = [0]
    ids_of: Dict[int, str] = {}

    def count(ops):
        for op in ops:
            if isinstance(op, tuple):
                for r in op[1]:
                    count(r)
            elif _ACCESS.match(op):
                ids_of[id(op)] = n_access[0]
                n_access[0] += 1
    count(body)

    def run(ops, env, it, key):
        for op in ops:
            work[0] += 1
            if work[0] > max_work:
                raise OverflowError
            if isinstance(op, tuple):
                head, regions = op
                f = re.match(r"(?:(%\w+)(?::\d+)? = )?scf\.for (%\w+) = (%\w+) to (%\w+) step (%\w+)(?: iter_args\((.*)\))?", head)
                i = re.match(r"(?:(%\w+)(?::\d+)? = )?scf\.if (%\w+)", head)
                if f:
                    lb, ub, st = (env.get(x) for x in f.group(3, 4, 5))
                    for a in re.findall(r"(%\w+) = ", f.group(6) or ""):
                        env[a] = None
                    if None in (lb, ub, st):
                        mark(regions[0])
                    else:
                        for v in range(lb, ub, st):
                            env[f.group(2)] = v
                            run(regions[0], env, it + (v,), key)
                elif i:
                    c = env.get(i.group(2))
                    if c is None:
                        for r in regions:
                            mark(r)
                    elif c:
                        run(regions[0], env, it, key)
                    elif len(regions) > 1:
                        run(regions[1], env, it, key)
                else:
                    for r in regions:
                        mark(r)
                continue
            a = _ACCESS.match(op)
            if a:
                n = ids_of[id(op)]
                index = [env.get(x.strip()) for x in a.group(6).split(",")]
                if len(index) != 1 or index[0] is None:
                    unknown.add(n)
                else:
                    elem = _BYTES[a.group(11)]
                    nbytes = elem * (int(a.group(8)) if a.group(8) else 1)
                    requests.setdefault((n, key, it), []).append((lane[0], index[0] * elem, nbytes))
                if a.group(1):
                    env[a.group(1)] = None
                continue
            m = re.match(r"(%\w+) = (\w+)\.(\w+) (.*?)(?: : (.*))?$", op)
            if not m:
                continue
            res, dialect, name, args = m.group(1), m.group(2), m.group(3), m.group(4)
            vals = [env.get(x) for x in re.findall(r"%\w+", args)]
            value = None
            if dialect == "arith" and name == "constant":
                c = re.match(r"(-?\d+|true|false)$", args.strip())
                value = None if not c else {"true": 1, "false": 0}.get(c.group(1), None) \
                    if c.group(1) in ("true", "false") else int(c.group(1))
            elif dialect == "arith" and name in _BIN and len(vals) == 2 and None not in vals:
                value = _BIN[name](*vals)
            elif dialect == "arith" and name == "cmpi" and None not in vals:
                value = int(_CMP[args.split(",")[0].strip()](*vals))
            elif dialect == "arith" and name == "select" and None not in vals:
                value = vals[1] if vals[0] else vals[2]
            elif dialect == "arith" and name in ("index_cast", "index_castui", "extui", "extsi", "trunci") and None not in vals:
                value = vals[0]
            env[res] = value

    def mark(ops):
        for op in ops:
            if isinstance(op, tuple):
                for r in op[1]:
                    mark(r)
            elif id(op) in ids_of:
                unknown.add(ids_of[id(op)])

    try:
        for bz in range(grid[2]):
            for by in range(grid[1]):
                for bx in range(grid[0]):
                    for tz in range(block[2]):
                        for ty in range(block[1]):
                            for tx in range(block[0]):
                                env = dict(consts)
                                env.update(zip(g[0:3], (bx, by, bz)))
                                env.update(zip(g[9:12], (tx, ty, tz)))
                                env.update(zip(g[3:9:2], grid))
                                env.update(zip(g[12:18:2], block))
                                linear = tx + block[0] * (ty + block[1] * tz)
                                lane[0] = linear % 32
                                run(body, env, (), (bx, by, bz, linear // 32))
    except OverflowError:
        return None
    shared = {ids_of[id(op)] for op in _flat(body) if _ACCESS.match(op) and _ACCESS.match(op).group(12)}
    costs: List[Optional[int]] = [None if n in unknown else 0 for n in range(n_access[0])]
    for (n, _, _), lanes in requests.items():
        if costs[n] is None:
            continue
        if n in shared:
            per_phase = 128 // max(4, lanes[0][2])
            phases: Dict[int, Dict[int, set]] = {}
            for ln, byte, size in lanes:
                banks = phases.setdefault(ln // per_phase, {})
                for w in range(byte // 4, (byte + size + 3) // 4):
                    banks.setdefault(w % num_banks, set()).add(w)
            worst = max(len(v) for banks in phases.values() for v in banks.values())
            costs[n] = max(costs[n], worst)
        else:
            sectors = {s for _, byte, size in lanes for s in range(byte // 32, (byte + size - 1) // 32 + 1)}
            costs[n] = max(costs[n], len(sectors))
    return costs


def _flat(ops):
    for op in ops:
        if isinstance(op, tuple):
            for r in op[1]:
                yield from _flat(r)
        else:
            yield op
