"""A malformed layout never crashes the interpreter (issue 21, item 5): random malformed descriptors handed to
the extension's entry points, and random layouts with bad sizes (zero, negative, beyond 2^63, symbolic,
mismatched) built with the public classes, are evaluated (``L[...]``, ``inv``, ``lego.translate``,
``LegoLayout.transform``) in a child interpreter. Every call must return or raise a Python exception: a Rust
panic or an MLIR failure that escaped as an abort would kill the child (a signal, no final line)."""

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(r'''
    import random
    import warnings

    import numpy as np
    import sympy as sp

    import lego
    from lego import GenP, GroupBy, OrderBy, RegP, Row, Col, _lego
    from lego.core import TileByLayout

    warnings.simplefilter("ignore")
    rng = random.Random(21)
    M = sp.Symbol("M", integer=True, positive=True)
    INTS = [0, 1, 2, 3, 4, 7, 8, -1, -8, 2**31, 2**32, 2**62, 2**63 - 1, 2**63, 2**64, 2**70, -2**63]
    KINDS = ["int", "arg", "barg", "add", "mul", "sub", "floordiv", "mod", "ceildiv", "max", "min", "select",
             "cmp", "and", "or", "not", "bool", "row", "col", "reg_p", "gen_p", "order_by", "group_by", "tile_by",
             "bogus"]

    def junk(depth=0):
        """A random descriptor-shaped value: mostly well-formed tuples with wrong kinds, arities and values."""
        choice = rng.random()
        if depth > 3 or choice < 0.25:
            return rng.choice(INTS + [None, "x", 1.5, (), []])
        kind = rng.choice(KINDS)
        arity = rng.randint(0, 4)
        items = [junk(depth + 1) for _ in range(arity)]
        if rng.random() < 0.3:
            items = [tuple(junk(depth + 1) for _ in range(rng.randint(0, 3)))] + items
        return (kind, *items)

    def size():
        return rng.choice([1, 2, 3, 4, 8, 0, -2, 2**40, 2**63, M, M + 1, M // 2])

    def primitive():
        rank = rng.randint(1, 3)
        dims = [size() for _ in range(rank)]
        kind = rng.choice(["row", "col", "reg_p", "gen_p"])
        if kind == "row":
            return Row(*dims)
        if kind == "col":
            return Col(*dims)
        if kind == "reg_p":
            perm = list(range(rank))
            rng.shuffle(perm)
            return RegP(dims, perm)
        return GenP(dims[:1], lambda a: a[0] * rng.choice([1, 2, -1]) + rng.choice([0, 1]))

    def layout():
        inner = OrderBy(*[primitive() for _ in range(rng.randint(1, 2))])
        dims = inner.dims()
        shape = rng.random()
        if shape < 0.4:
            group = tuple(size() if rng.random() < 0.3 else d for d in dims)
            return GroupBy([group], [inner])
        if shape < 0.8:
            levels = [tuple(size() for _ in dims) for _ in range(rng.randint(1, 2))]
            if rng.random() < 0.2:
                levels.append((size(),))
            return TileByLayout([inner], levels, [tuple(d for level in levels for d in level)])
        return inner

    session = _lego.Session()
    calls = 0
    for _ in range(200):
        calls += 1
        try:
            session.evaluate(junk(), rng.randint(0, 3), rng.choice(["apply", "inv", "x"]),
                             rng.choice([[junk()], junk(), []]), [junk()] if rng.random() < 0.3 else [],
                             [junk()] if rng.random() < 0.3 else [])
        except Exception:
            pass
        try:
            _lego.translate(session, [(junk(), ["a"], junk(), 1, "apply", [junk()], [], [])], "c")
        except Exception:
            pass

    for _ in range(60):
        try:
            built = layout()
        except Exception:
            continue
        rank = len(built.dims())
        for attempt in (
            lambda: built[tuple(rng.choice([0, 1, 2**40, -1, "i", slice(None)]) for _ in range(rank))],
            lambda: built.inv(rng.choice([0, 5, 2**40, "x"])),
            lambda: lego.translate(built, rng.choice(["c", "glsl", "python", "rust"])),
            lambda: lego.LegoLayout(built).transform(np.arange(16)),
        ):
            calls += 1
            try:
                attempt()
            except Exception:
                pass
    print("survived", calls)
''')


def test_malformed_layouts_never_crash_the_interpreter():
    child = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=600)
    assert child.returncode == 0, (child.returncode, child.stderr[-3000:])
    assert child.stdout.strip().startswith("survived "), child.stdout[-2000:]
