#!/usr/bin/env python3
"""python-fuzz: the Python door of lego-fuzz (issue 35, item 5). Random cases through the public Python API:

* ``layout``   — random layouts (lego-algebra's generator, and our own: Row / Col / RegP / GenP / OrderBy /
  TileBy / GroupBy with small random sizes, some deliberately wrong), evaluated by ``L[...]``, ``L.inv``,
  ``LegoLayout.transform`` / ``inverse_transform`` / ``permutation_tables``, ``Batched``, ``compose``, the torch
  path; compared with lego-algebra's interpreter (``lego._lego.algebra_eval``, ``random_layout_tables``);
* ``builtin``  — Swizzle / ZCurve / BlockCyclic / TiledPermute / ColMajor / Transposed with random shapes,
  compared with their formulas evaluated in NumPy;
* ``items``    — bad index items (floats, negatives, out of range, huge, None, strings, slices, wrong arity);
* ``tensors``  — bad tensors (wrong size, dtype, order, rank, type) into the transforms;
* ``sizes``    — bad sizes into the constructors;
* ``jit``      — small random Triton kernels through ``@lego.jit`` run in Triton's interpreter
  (``TRITON_INTERPRET=1``), compared with the algebra's table; and kernels that must be refused.

A finding is an exception other than ``LegoError`` / ``ValueError`` / ``TypeError`` (or one of those where a
result is required), a disagreement with the reference, an invalid layout accepted where lego-algebra refuses it,
a hang (a case past ``--timeout`` seconds), or a worker process that dies. Cases run in a worker process that
is restarted after a hang or a crash. Each distinct finding is written to ``--out`` as a JSON reproducer whose
``command`` field reruns the case (``--replay SEED``).

    python3 bench/fuzz/python_fuzz.py --seconds 1200 --seed 1 --out target/fuzz-python
    python3 bench/fuzz/python_fuzz.py --replay 12345      # one case, in-process, with its traceback
"""

from __future__ import annotations

import argparse
import json
import os
import random
import select
import subprocess
import sys
import time
import traceback
from typing import Any, Dict, List, Optional, Tuple

HERE = os.path.abspath(__file__)
KINDS = ["layout", "layout", "layout", "builtin", "items", "tensors", "sizes", "jit"]


class Finding(Exception):
    """A case's verdict that something is wrong (the message is the finding)."""


# --- layouts as source text and as lego-algebra JSON ------------------------------------------------------------


def _flatten(dims: List[int], index: List[int]) -> int:
    flat = 0
    for d, i in zip(dims, index):
        flat = flat * d + i
    return flat


def _unflatten(dims: List[int], flat: int) -> List[int]:
    out = []
    for d in reversed(dims):
        flat, r = divmod(flat, d)
        out.append(r)
    return list(reversed(out))


def _numel(dims: List[int]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def _small_dims(rng: random.Random, rank: int, limit: int = 48) -> List[int]:
    dims = [rng.choice([1, 2, 2, 3, 4, 4, 5, 6, 8]) for _ in range(rank)]
    while _numel(dims) > limit:
        dims[rng.randrange(rank)] = max(1, dims[rng.randrange(rank)] // 2)
    return dims


# GenP functions: (source of f_apply, source of f_inv or None, integer evaluator, is_bijection, inverse correct).
def _genp(rng: random.Random, dims: List[int]) -> Tuple[str, Optional[str], Any, bool]:
    r = len(dims)
    kind = rng.choice(["reverse", "radix", "skew", "sum", "double"] if r == 2 else ["reverse", "radix", "double"])
    if kind == "reverse":
        f = " + ".join(f"({dims[k] - 1} - a[{k}]) * {_numel(dims[k + 1:])}" for k in range(r))
        return f"lambda a: {f}", None, lambda idx: sum((dims[k] - 1 - idx[k]) * _numel(dims[k + 1:]) for k in range(r)), True
    if kind == "radix":
        order = list(range(r))
        rng.shuffle(order)
        weights = {}
        w = 1
        for k in order:
            weights[k] = w
            w *= dims[k]
        f = " + ".join(f"{weights[k]} * a[{k}]" for k in range(r))
        return f"lambda a: {f}", None, lambda idx: sum(weights[k] * idx[k] for k in range(r)), True
    if kind == "skew":  # (i, j) → i + n0·((i + j) mod n1): a bijection, with a written inverse
        n0, n1 = dims
        f = f"lambda a: a[0] + {n0} * sp.Mod(a[0] + a[1], {n1})"
        inv = f"lambda x: (sp.Mod(x, {n0}), sp.Mod(sp.floor(x / {n0}) - sp.Mod(x, {n0}), {n1}))"
        return f, inv, lambda idx: idx[0] + n0 * ((idx[0] + idx[1]) % n1), True
    if kind == "sum":  # the collision
        return "lambda a: a[0] + a[1]", "lambda x: (x, 0)", lambda idx: idx[0] + idx[1], dims[0] == 1 or dims[1] == 1
    # double: 2·row-major (out of range unless numel is 1)
    f = " + ".join(f"2 * {_numel(dims[k + 1:])} * a[{k}]" for k in range(r))
    return f"lambda a: {f}", None, lambda idx: 2 * _flatten(dims, idx), _numel(dims) == 1


def _leaf(rng: random.Random) -> Tuple[str, Dict[str, Any], List[int]]:
    rank = rng.choice([1, 1, 2, 2, 3])
    dims = _small_dims(rng, rank)
    kind = rng.choice(["row", "row", "col", "reg_p", "gen_p"])
    text = ", ".join(map(str, dims))
    if kind == "row":
        return f"Row({text})", {"op": "row", "dims": dims}, dims
    if kind == "col":
        return f"Col({text})", {"op": "col", "dims": dims}, dims
    if kind == "reg_p":
        perm = list(range(rank))
        rng.shuffle(perm)
        return f"RegP(({text},), {perm})", {"op": "reg_p", "perm": perm, "dims": dims}, dims
    f, inv, evaluate, _ = _genp(rng, dims)
    table = [evaluate(_unflatten(dims, k)) for k in range(_numel(dims))]
    src = f"GenP(({text},), {f}" + (f", {inv})" if inv else ")")
    return src, {"op": "gen_p", "dims": dims, "kind": "table", "apply": table}, dims


def _factor_split(rng: random.Random, n: int) -> Tuple[int, int]:
    divisors = [d for d in range(1, n + 1) if n % d == 0]
    d = rng.choice(divisors)
    return n // d, d


def random_layout(rng: random.Random) -> Tuple[str, Dict[str, Any], List[int]]:
    """A layout as source text (names of lego and ``sp``), its lego-algebra JSON and its dims."""
    parts = [_leaf(rng) for _ in range(rng.choice([1, 1, 2]))]
    src = "OrderBy(" + ", ".join(p[0] for p in parts) + ")"
    desc: Dict[str, Any] = {"op": "order_by", "parts": [p[1] for p in parts]}
    dims = [d for p in parts for d in p[2]]
    shape = rng.random()
    if shape < 0.35 and len(dims) <= 3:
        # TileBy: a grid and a block per dim (a factorization), sometimes broken.
        grid, block = zip(*[_factor_split(rng, d) for d in dims])
        grid, block = list(grid), list(block)
        if rng.random() < 0.2:
            block[rng.randrange(len(block))] += rng.choice([1, 2])
        levels = [grid, block]
        if rng.random() < 0.3:
            levels = [list(dims)]
        src += ".TileBy(" + ", ".join(str(level) for level in levels) + ")"
        desc = {"op": "tile_by", "inner": desc, "tile_dims": levels}
        dims = [d for level in levels for d in level]
    elif shape < 0.5:
        # GroupBy over the same elements in another shape (sometimes the wrong count).
        total = _numel(dims)
        a, b = _factor_split(rng, total)
        group = [a, b] if rng.random() < 0.7 else [total]
        if rng.random() < 0.15:
            group[0] += 1
        src = f"GroupBy([{tuple(group)!r}], [{src}])"
        desc = {"op": "group_by", "dims": group, "objects": [desc]}
        dims = group
    return src, desc, dims


def description_source(description: Any) -> str:
    """Source text of a lego-algebra generator description (python/src/differential.rs's forms)."""
    kind = description[0]
    if kind in ("row", "col"):
        return f"{kind.capitalize()}({', '.join(map(str, description[1]))})"
    if kind == "reg_p":
        return f"RegP({tuple(description[1])!r}, {list(description[2])})"
    if kind == "rev":
        n1, n2 = description[1], description[2]
        return (f"GenP(({n1}, {n2}), lambda a: ({n1} - 1 - a[0]) * {n2} + ({n2} - 1 - a[1]), "
                f"lambda x: ({n1} - 1 - sp.floor(x / {n2}), {n2} - 1 - sp.Mod(x, {n2})))")
    if kind == "order_by":
        return "OrderBy(" + ", ".join(description_source(p) for p in description[1]) + ")"
    if kind == "group_by":
        return (f"GroupBy([{tuple(description[1])!r}], [" + ", ".join(description_source(o) for o in description[2])
                + "])")
    if kind == "tile_by":
        levels = [tuple(level) for level in description[2]]
        flat = tuple(d for level in levels for d in level)
        return f"TileByLayout([{description_source(description[1])}], {levels!r}, [{flat!r}])"
    raise ValueError(f"unknown description {description!r}")


NAMESPACE_SOURCE = "import sympy as sp\nfrom lego import *\nfrom lego.core import TileByLayout\n"


def namespace() -> Dict[str, Any]:
    ns: Dict[str, Any] = {}
    exec(NAMESPACE_SOURCE, ns)
    return ns


# --- the reference ------------------------------------------------------------------------------------------


def algebra_table(desc: Dict[str, Any], dims: List[int]) -> Optional[List[int]]:
    """The whole table by lego-algebra's interpreter, or ``None`` when it refuses the layout."""
    from lego import _lego

    text = json.dumps(desc)
    try:
        return [_lego.algebra_eval(text, "apply", _unflatten(dims, k))[0] for k in range(_numel(dims))]
    except Exception:
        return None


WRONG_INVERSE = "lambda x: (x, 0)"


def invertible(layout: Any) -> bool:
    from lego.core import _check_layout_invertible

    try:
        _check_layout_invertible(layout)
    except ValueError:
        return False
    return True


def is_permutation(table: List[int]) -> bool:
    return sorted(table) == list(range(len(table)))


ALLOWED = None  # set in run_case: (LegoError, ValueError, TypeError)


def allowed_errors() -> Tuple[type, ...]:
    from lego import LegoError

    return (LegoError, ValueError, TypeError)


def expect_refusal(what: str, call: Any) -> None:
    try:
        call()
    except allowed_errors():
        return
    raise Finding(f"{what}: accepted (expected LegoError/ValueError/TypeError)")


def check_tensor_paths(ll: Any, table: List[int], rng: random.Random, torch_too: bool, inverse: bool) -> None:
    import numpy as np

    n = len(table)
    got = np.asarray(ll.create_tensor(np.int64)).reshape(-1).tolist()
    if got != table:
        raise Finding(f"create_tensor {got} != algebra {table}")
    x = np.arange(n, dtype=np.float64) * 3 + 1
    y = ll.transform(x)
    if y.reshape(-1).tolist() != x[table].tolist():
        raise Finding("transform disagrees with the algebra's table")
    if not inverse:  # a GenP without an inverse: inverse_transform refuses (docs/python.md)
        expect_refusal("inverse_transform without an inverse", lambda: ll.inverse_transform(y))
    elif not np.array_equal(ll.inverse_transform(y).reshape(-1), x):
        raise Finding("inverse_transform(transform(x)) != x")
    fwd, inv = ll.permutation_tables()
    if list(fwd) != table or [table[i] for i in inv] != list(range(n)):
        raise Finding("permutation_tables disagree with the algebra's table")
    import lego

    batched = lego.Batched(ll, (2,)).transform(np.concatenate([x, x + 1000]))
    if batched.reshape(2, -1).tolist() != [x[table].tolist(), (x + 1000)[table].tolist()]:
        raise Finding("Batched transform disagrees")
    composed = ll.compose(ll).transform(x).reshape(-1).tolist()
    if composed != x[table][table].tolist():
        raise Finding("compose disagrees: a.compose(b) must be b after a")
    if torch_too:
        import torch

        t = torch.from_numpy(x)
        ty = ll.transform(t)
        if ty.reshape(-1).tolist() != x[table].tolist():
            raise Finding("torch transform disagrees")
        if inverse and not torch.equal(ll.inverse_transform(ty).reshape(-1), t):
            raise Finding("torch inverse_transform(transform(x)) != x")


def check_indices(layout: Any, dims: List[int], table: List[int], rng: random.Random, inverse_ok: bool) -> None:
    n = len(table)
    for _ in range(3):
        k = rng.randrange(n)
        index = _unflatten(dims, k)
        got = layout[tuple(index)]
        if got != table[k]:
            raise Finding(f"L{index} = {got}, algebra {table[k]}")
    if inverse_ok and is_permutation(table):
        position = {v: k for k, v in enumerate(table)}
        for _ in range(2):
            flat = rng.randrange(n)
            got = layout.inv(flat)
            if list(got) != _unflatten(dims, position[flat]):
                raise Finding(f"L.inv({flat}) = {got}, algebra {_unflatten(dims, position[flat])}")


def case_layout(rng: random.Random) -> str:
    from lego import LegoLayout, _lego

    ns = namespace()
    if rng.random() < 0.4:
        description, dims, expected = _lego.random_layout_tables(rng.randrange(2**32), 1, max_numel=128)[0]
        src, dims, table = description_source(description), list(dims), list(expected)
        inverse_ok = True
    else:
        src, desc, dims = random_layout(rng)
        table = algebra_table(desc, dims)
        inverse_ok = True
    layout = eval(src, ns)
    inverse_ok = inverse_ok and invertible(layout)
    if WRONG_INVERSE in src:
        # The collision's written inverse is wrong on purpose: where a bijection needs it (group_by, tile_by,
        # inv) lego-lower's check refuses the layout; a refusal is right, a wrong value is not.
        try:
            if table is not None and is_permutation(table):
                check_indices(layout, dims, table, rng, False)
            LegoLayout(layout, tuple(dims)).create_tensor(__import__("numpy").int64)
        except allowed_errors():
            return "refused"
        if table is None or not is_permutation(table):
            raise Finding(f"{src}: a layout that is not a bijection transformed without a word")
        return "ok"
    if table is None or not is_permutation(table):
        # The algebra refuses it, or it is not a bijection: every tensor path must refuse it.
        expect_refusal(f"{src}: transform of a layout the algebra refuses or that is not a bijection",
                       lambda: LegoLayout(layout, tuple(dims)).transform(__import__("numpy").arange(_numel(dims))))
        expect_refusal(f"{src}: permutation_tables", lambda: LegoLayout(layout, tuple(dims)).permutation_tables())
        return "refused"
    check_indices(layout, dims, table, rng, inverse_ok)
    check_tensor_paths(LegoLayout(layout, tuple(dims)), table, rng, torch_too=rng.random() < 0.25,
                       inverse=invertible(layout))
    return "ok"


# --- built-in constructors against their formulas ------------------------------------------------------------


def case_builtin(rng: random.Random) -> str:
    import numpy as np

    import lego

    kind = rng.choice(["Swizzle", "ZCurve", "BlockCyclic", "TiledPermute", "ColMajor", "Transposed"])
    n, m = rng.choice([1, 2, 3, 4, 6, 8, 16]), rng.choice([1, 2, 3, 4, 6, 8, 16])
    if kind == "Swizzle":
        bits = rng.choice([None, 0, 1, 2, 3, -1])
        make = lambda: lego.Swizzle((n, m), bits)  # noqa: E731
        b = (int(np.floor(np.log2(m))) if m > 1 else 0) if bits is None else bits
        valid = b >= 0 and m % (2 ** b) == 0
        ref = lambda i, j: i * m + (j ^ (i % (2 ** b)))  # noqa: E731
    elif kind == "ZCurve":
        make = lambda: lego.ZCurve((n, m))  # noqa: E731
        a, c = np.log2(n), np.log2(m)
        valid = a == int(a) and c == int(c) and (a == c or a == c + 1)
        nb = max(int(np.ceil(np.log2(max(n, m, 2)))), 1)
        ref = lambda i, j: sum(((i >> k) & 1) << (2 * k) | ((j >> k) & 1) << (2 * k + 1) for k in range(nb))  # noqa: E731
    elif kind == "BlockCyclic":
        bs, procs = rng.choice([0, 1, 2, 3]), rng.choice([0, 1, 2, 4])
        length = n * m
        make = lambda: lego.BlockCyclic((length,), bs, procs)  # noqa: E731
        valid = bs > 0 and procs > 0 and length % (bs * procs) == 0
        local = length // bs // procs if valid else 0

        def ref(i: int, _: int = 0) -> int:
            blk = i // bs
            return (blk % procs) * local * bs + (blk // procs) * bs + i % bs
    elif kind == "TiledPermute":
        tn, tm = rng.choice([1, 2, 3, 4]), rng.choice([1, 2, 3, 4])
        make = lambda: lego.TiledPermute((n, m), (tn, tm))  # noqa: E731
        valid = n % tn == 0 and m % tm == 0

        def ref(i: int, j: int) -> int:  # tiles row-major, elements row-major inside: gather from (i, j) of…
            return -1  # computed below from the grid/tile decomposition
    elif kind == "ColMajor":
        make = lambda: lego.ColMajor((n, m))  # noqa: E731
        valid = True
        ref = lambda i, j: i + n * j  # noqa: E731
    else:
        make = lambda: lego.Transposed((n, m))  # noqa: E731
        valid = True
        ref = lambda i, j: j * n + i  # noqa: E731
    if not valid:
        expect_refusal(f"{kind} {n}x{m}: an invalid shape", lambda: make().create_tensor(np.int64))
        return "refused"
    layout = make()
    got = np.asarray(layout.create_tensor(np.int64)).reshape(-1).tolist()
    if kind == "BlockCyclic":
        expected = [ref(i) for i in range(n * m)]
    elif kind == "TiledPermute":
        # transform's gather over the index space (n/tn, m/tm, tn, tm): offset of (gi, gj, ti, tj) in row-major
        # (n, m) is (gi·tn + ti)·m + gj·tm + tj.
        gn, gm = n // tn, m // tm
        expected = [(gi * tn + ti) * m + gj * tm + tj for gi in range(gn) for gj in range(gm)
                    for ti in range(tn) for tj in range(tm)]
    else:
        expected = [ref(i, j) for i in range(n) for j in range(m)]
    if got != expected:
        raise Finding(f"{kind} {n}x{m}: {got} != formula {expected}")
    return "ok"


# --- bad index items, tensors and sizes ---------------------------------------------------------------------


def _bad_item(rng: random.Random, dim: int) -> Any:
    import numpy as np
    import sympy as sp

    return rng.choice([
        1.5, 2.0, -1, dim, dim + 7, 2 ** 70, -(2 ** 70), None, "i", "", True, np.int64(dim - 1), np.float32(1),
        sp.Float(0.5), sp.Rational(1, 3), sp.Integer(dim - 1), sp.Symbol("q"), sp.Symbol("r", real=True),
        sp.oo, sp.nan, sp.I, slice(None), slice(0, dim), slice(-1, None), slice(0.5, 2), slice(0, dim + 1),
        slice(2, 1), slice(None, None, 2), [0], (0,), object(), 1j, b"x", Ellipsis,
    ])


def case_items(rng: random.Random) -> str:
    import sympy as sp

    from lego import LegoLayout

    ns = namespace()
    src, desc, dims = random_layout(rng)
    table = algebra_table(desc, dims)
    layout = eval(src, ns)
    count = len(dims) + rng.choice([0, 0, 0, -1, 1])
    items = [(_bad_item(rng, dims[k % len(dims)]) if rng.random() < 0.5 else rng.randrange(dims[k % len(dims)]))
             for k in range(max(count, 0))]
    try:
        value = layout[tuple(items)]
    except allowed_errors():
        return "refused"
    except NotImplementedError:
        return "refused"  # a SymPy construct with no index form (published behaviour, docs/python.md)
    # Accepted: integers in range must give the algebra's value; the rest must be an expression.
    if len(items) != len(dims):
        raise Finding(f"{src}[{items!r}]: wrong arity accepted")
    ints = [isinstance(i, int) and not isinstance(i, bool) or isinstance(i, sp.Integer) or type(i).__name__ == "int64"
            for i in items]
    for item, dim in zip(items, dims):
        if isinstance(item, (float, complex)) or (isinstance(item, sp.Basic) and item.is_Number and not item.is_Integer):
            raise Finding(f"{src}[{items!r}]: a non-integer item accepted ({value})")
        if (isinstance(item, int) or isinstance(item, sp.Integer)) and not 0 <= int(item) < dim:
            raise Finding(f"{src}[{items!r}]: an item outside its dimension accepted ({value})")
    if all(ints) and table is not None and is_permutation(table):
        k = _flatten(dims, [int(i) for i in items])
        if value != table[k]:
            raise Finding(f"{src}[{items!r}] = {value}, algebra {table[k]}")
    if table is not None and is_permutation(table) and rng.random() < 0.5:
        flat = _bad_item(rng, len(table))
        try:
            layout.inv(flat)
        except (*allowed_errors(), NotImplementedError):
            pass
    LegoLayout  # noqa: B018 (imported for the namespace's side effects)
    return "ok"


def _bad_tensor(rng: random.Random, n: int) -> Tuple[Any, Optional[Any]]:
    """A tensor and the logical flat values its transform must gather (``None``: it must be refused)."""
    import numpy as np
    import torch

    choice = rng.randrange(12)
    base = np.arange(n, dtype=np.float64) + 0.5
    if choice == 0:
        return np.arange(n + rng.choice([1, -1, 5]), dtype=np.float32), None
    if choice == 1:
        return np.array([object()] * n), None
    if choice == 2:
        return np.array(["a"] * n), np.array(["a"] * n)
    if choice == 3:
        big = np.arange(2 * n, dtype=np.float64)
        return big[::2], big[::2].copy()  # non-contiguous: gathered in its logical order
    if choice == 4:
        return np.asfortranarray(base.reshape(n, 1).T), base
    if choice == 5:
        return base.astype(np.float16), base.astype(np.float16)
    if choice == 6:
        return base.astype(np.complex128), base.astype(np.complex128)
    if choice == 7:
        return (base > 3), (base > 3)
    if choice == 8:
        return base.tolist(), None  # a list: not a tensor
    if choice == 9:
        return torch.from_numpy(base).to(torch.float16), torch.from_numpy(base).to(torch.float16)
    if choice == 10:
        return np.float64(1.0) if n != 1 else None, None
    return torch.arange(n + 3), None


def case_tensors(rng: random.Random) -> str:
    import numpy as np
    import torch

    from lego import LegoLayout

    ns = namespace()
    for _ in range(20):
        src, desc, dims = random_layout(rng)
        table = algebra_table(desc, dims)
        if table is not None and is_permutation(table):
            break
    else:
        return "skipped"
    if WRONG_INVERSE in src:
        return "skipped"
    layout = eval(src, ns)
    ll = LegoLayout(layout, tuple(dims))
    t, logical = _bad_tensor(rng, len(table))
    if t is None:
        return "skipped"
    for direction in ("transform", "inverse_transform") if invertible(layout) else ("transform",):
        try:
            out = getattr(ll, direction)(t)
        except allowed_errors():
            if logical is not None:
                raise Finding(f"{src}.{direction}({type(t).__name__} {getattr(t, 'dtype', '')}): refused a valid "
                              f"tensor")
            continue
        if logical is None:
            raise Finding(f"{src}.{direction}({type(t).__name__}): accepted a tensor it must refuse")
        flat = out.reshape(-1)
        values = flat.tolist() if isinstance(flat, torch.Tensor) else list(flat)
        source = logical.reshape(-1).tolist() if isinstance(logical, torch.Tensor) else list(np.asarray(logical).reshape(-1))
        if direction == "transform":
            expected = [source[k] for k in table]
        else:
            expected = [None] * len(table)
            for k, offset in enumerate(table):
                expected[offset] = source[k]
        if [str(v) for v in values] != [str(v) for v in expected]:
            raise Finding(f"{src}.{direction} of {type(t).__name__} {getattr(t, 'dtype', '')}: {values} != {expected}")
    return "ok"


def case_sizes(rng: random.Random) -> str:
    import sympy as sp

    ns = namespace()
    bad = rng.choice([0, -1, 1.5, "4", None, True, sp.Symbol("q"), sp.Symbol("q", real=True), sp.Float(2.0),
                      sp.Rational(3, 2), 2 ** 64, 2 ** 40, sp.oo, sp.nan, [], (2, 2), object()])
    ns["bad"] = bad
    src = rng.choice(["Row(4, bad)", "Col(bad)", "RegP((bad, 2), [1, 0])", "GenP((bad,), lambda a: a[0])",
                      "OrderBy(Row(8)).TileBy([bad], [8])", "OrderBy(Row(4, 4)).TileBy([2, 2], [bad, 2])",
                      "GroupBy([(bad,)], [OrderBy(Row(16))])", "OrderBy(Row(bad, 2))"])
    try:
        layout = eval(src, ns)
        value = layout[tuple(0 for _ in layout.dims())]
    except (*allowed_errors(), NotImplementedError, OverflowError):
        return "refused"
    # Accepted: only a valid positive integer size (a big one, or an integer symbol) may be.
    if isinstance(bad, bool) or (isinstance(bad, (int, sp.Integer)) and int(bad) <= 0) or isinstance(bad, (float, str)):
        raise Finding(f"{src} with {bad!r}: accepted ({value})")
    return "ok"


# --- the JIT --------------------------------------------------------------------------------------------------


KERNEL_TEMPLATE = '''
import sympy as sp
import triton
import triton.language as tl
from lego import *


@triton.jit
def kernel(x_ptr, y_ptr):
    pid = tl.program_id(0)
    L = {layout}
    offsets = {index}
    tl.store(y_ptr + {out}, tl.load(x_ptr + offsets))
'''


def case_jit(rng: random.Random) -> str:
    import importlib.util
    import tempfile

    import numpy as np
    import torch

    import lego

    # Powers of two (tl.arange needs them), rank 1 or 2, Row / Col / OrderBy of both / a TileBy.
    dims = [rng.choice([1, 2, 4, 8]) for _ in range(rng.choice([1, 2]))]
    text = ", ".join(map(str, dims))
    leaf = rng.choice(["Row", "Col"])
    layout_src = f"OrderBy({leaf}({text}))"
    desc: Dict[str, Any] = {"op": "order_by", "parts": [{"op": leaf.lower(), "dims": dims}]}
    if rng.random() < 0.4:
        grid, block = zip(*[(d // b, b) for d in dims for b in [rng.choice([x for x in (1, 2, 4, 8) if d % x == 0])]])
        layout_src += f".TileBy({list(grid)}, {list(block)})"
        desc = {"op": "tile_by", "inner": desc, "tile_dims": [list(grid), list(block)]}
        dims = list(grid) + list(block)
    rank = len(dims)
    bad = rng.random() < 0.25
    # The kernel: program pid takes index pid of the first dim, slices for the rest (or all slices: grid 1).
    use_pid = rank > 1 and rng.random() < 0.5
    items = (["pid"] if use_pid else []) + [":"] * (rank - (1 if use_pid else 0))
    if bad:
        items = rng.choice([items + [":"], items[:-1] or ["0", "0"], ["0"] * (rank - 1) + [str(dims[-1])]])
    slice_dims = dims[1:] if use_pid else dims
    slices = len(slice_dims)
    terms = []
    for k, d in enumerate(slice_dims):
        stride = _numel(slice_dims[k + 1:])
        where = ", ".join(":" if q == k else "None" for q in range(slices))
        terms.append(f"tl.arange(0, {d})[{where}] * {stride}")
    out = " + ".join(terms) if terms else "0"
    if use_pid:
        out = f"pid * {_numel(slice_dims)} + " + out
    source = KERNEL_TEMPLATE.format(layout=layout_src, index=f"L[{', '.join(items)}]", out=out)
    directory = tempfile.mkdtemp(prefix="lego-fuzz-jit-")
    path = os.path.join(directory, "fuzz_kernel.py")
    with open(path, "w") as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location(f"fuzz_kernel_{rng.randrange(10**9)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    try:
        kernel = lego.jit(module.kernel)
    except lego.LegoError as error:
        if not bad:
            raise Finding(f"a valid kernel refused: {error}\n{source}")
        if path not in str(error):
            raise Finding(f"the refusal does not name the kernel's file: {error}")
        return "refused"
    if bad:
        raise Finding(f"a kernel with a bad index decorated fine:\n{source}")
    table = algebra_table(desc, dims)
    assert table is not None
    n = len(table)
    x = torch.arange(n, dtype=torch.float32) + 0.25
    y = torch.full((n,), -1.0)
    kernel[(dims[0] if use_pid else 1,)](x, y)
    expected = (x.numpy()[np.array(table)]).tolist()
    if y.tolist() != expected:
        raise Finding(f"kernel output {y.tolist()} != algebra gather {expected}\n{source}")
    return "ok"


CASES = {"layout": case_layout, "builtin": case_builtin, "items": case_items, "tensors": case_tensors,
         "sizes": case_sizes, "jit": case_jit}


def run_case(seed: int) -> Dict[str, Any]:
    """One case, in this process: ``{"kind", "outcome": ok|refused|skipped|finding, "detail"}``."""
    import warnings

    rng = random.Random(seed)
    kind = rng.choice(KINDS)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outcome = CASES[kind](rng)
        return {"seed": seed, "kind": kind, "outcome": outcome}
    except Finding as finding:
        return {"seed": seed, "kind": kind, "outcome": "finding", "class": "disagreement", "detail": str(finding)}
    except Exception as error:  # noqa: BLE001 (every other exception is a finding)
        from lego import LegoError

        if isinstance(error, (LegoError, ValueError, TypeError)) and kind in ("items", "sizes", "tensors"):
            # An allowed error escaping where the case did not expect one: still allowed (a refusal).
            return {"seed": seed, "kind": kind, "outcome": "refused"}
        if isinstance(error, (LegoError, ValueError, TypeError)):
            return {"seed": seed, "kind": kind, "outcome": "finding", "class": "unexpected-refusal",
                    "detail": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc()}
        return {"seed": seed, "kind": kind, "outcome": "finding", "class": f"uncaught-{type(error).__name__}",
                "detail": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc()}


# --- driver -----------------------------------------------------------------------------------------------------


def worker() -> None:
    for line in sys.stdin:
        result = run_case(int(line))
        sys.stdout.write(json.dumps(result, default=str) + "\n")
        sys.stdout.flush()


class Worker:
    def __init__(self) -> None:
        env = dict(os.environ, TRITON_INTERPRET="1", JAX_PLATFORMS="cpu")
        self.process = subprocess.Popen([sys.executable, HERE, "--worker"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    def run(self, seed: int, timeout: float) -> Dict[str, Any]:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(f"{seed}\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            self.stop()
            return {"seed": seed, "outcome": "finding", "class": "hang", "detail": f"no answer in {timeout} s"}
        line = self.process.stdout.readline()
        if not line:
            code = self.process.wait()
            tail = self.process.stderr.read()[-4000:] if self.process.stderr else ""
            return {"seed": seed, "outcome": "finding", "class": "crash", "detail": f"worker exit {code}",
                    "traceback": tail}
        return json.loads(line)

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


def _key(result: Dict[str, Any]) -> str:
    import re

    detail = re.sub(r"[0-9]+", "N", result.get("detail", "").split("\n")[0])[:120]
    return f"{result.get('class')}|{result.get('kind')}|{detail}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="time budget (default 60)")
    parser.add_argument("--cases", type=int, default=0, help="stop after this many cases (0: the time budget)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the case sequence")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds one case may take (default 60)")
    parser.add_argument("--out", default="target/fuzz-python", help="folder for reproducers")
    parser.add_argument("--replay", type=int, help="run one case seed in this process and print its traceback")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker()
        return 0
    if args.replay is not None:
        os.environ.setdefault("TRITON_INTERPRET", "1")
        result = run_case(args.replay)
        print(json.dumps({k: v for k, v in result.items() if k != "traceback"}, indent=1, default=str))
        if "traceback" in result:
            print(result["traceback"])
        return 1 if result["outcome"] == "finding" else 0
    os.makedirs(args.out, exist_ok=True)
    sequence = random.Random(args.seed)
    counts: Dict[str, int] = {}
    findings: Dict[str, Dict[str, Any]] = {}
    start = time.monotonic()
    work = Worker()
    runs = 0
    try:
        while time.monotonic() - start < args.seconds and (not args.cases or runs < args.cases):
            seed = sequence.randrange(2 ** 40)
            result = work.run(seed, args.timeout)
            runs += 1
            outcome = result["outcome"] if result["outcome"] != "finding" else f"finding:{result['class']}"
            counts[outcome] = counts.get(outcome, 0) + 1
            if result["outcome"] == "finding":
                key = _key(result)
                if key not in findings:
                    findings[key] = result
                    result["command"] = f"python3 bench/fuzz/python_fuzz.py --replay {seed}"
                    name = f"{result['class']}-{seed}.json"
                    with open(os.path.join(args.out, name), "w") as handle:
                        json.dump(result, handle, indent=1, default=str)
                    print(f"finding {name}: {result.get('detail', '')[:200]}", flush=True)
                if result["class"] in ("hang", "crash"):
                    work = Worker()
    finally:
        work.stop()
    elapsed = time.monotonic() - start
    summary = {"seed": args.seed, "seconds": round(elapsed, 1), "runs": runs, "outcomes": counts,
               "distinct_findings": len(findings)}
    with open(os.path.join(args.out, "summary.json"), "w") as handle:
        json.dump(summary, handle, indent=1)
    print(json.dumps(summary))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
