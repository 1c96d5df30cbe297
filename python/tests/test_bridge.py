"""SymPy ↔ index arithmetic (the published API, §5.6): the arith DAG → SymPy table, and SymPy forms lowered through
the pipeline (values checked by evaluating the expected function by hand)."""

import warnings

import sympy as sp

from lego import GenP, OrderBy, Row, _bridge

x, y = sp.symbols("x y", integer=True)
N = sp.Symbol("N", integer=True, positive=True)


def convert(nodes, arguments=(x, y)):
    return _bridge.to_sympy(nodes, list(arguments))


def test_arith_to_sympy_constant_and_add():
    assert convert([("const", [], 42)]) == [42]
    values = convert([("arg", [], 0), ("const", [], 3), ("addi", [0, 1], None)])
    assert values[-1] == x + 3


def test_arith_to_sympy_division_and_bits():
    nodes = [
        ("arg", [], 0),  # 0: x
        ("const", [], 3),  # 1
        ("shrui", [0, 1], None),  # 2: x >> 3 = floor(x/8)
        ("const", [], 7),  # 3
        ("andi", [0, 3], None),  # 4: x & 7 = x mod 8
        ("shli", [0, 1], None),  # 5: x << 3 = 8x
        ("divui", [0, 1], None),  # 6
        ("remui", [0, 1], None),  # 7
        ("ceildivui", [0, 1], None),  # 8
        ("const", [], 6),  # 9
        ("andi", [0, 9], None),  # 10: not a mask: opaque
    ]
    values = convert(nodes)
    assert values[2] == sp.floor(x / 8)
    assert values[4] == sp.Mod(x, 8)
    assert values[5] == 8 * x
    assert values[6] == sp.floor(x / 3)
    assert values[7] == sp.Mod(x, 3)
    assert values[8] == sp.ceiling(x / 3)
    assert values[10] == _bridge.bitand(x, 6)


def test_arith_to_sympy_compare_and_select():
    nodes = [
        ("arg", [], 0),
        ("arg", [], 1),
        ("cmpi", [0, 1], "ult"),
        ("select", [2, 0, 1], None),
        ("bool", [], 1),
        ("andi", [2, 4], None),
    ]
    values = convert(nodes)
    assert values[2] == sp.Lt(x, y)
    assert values[3] == sp.Piecewise((x, x < y), (y, True))
    assert values[5] == sp.Lt(x, y)


def test_sympy_forms_lower_through_the_pipeline():
    # f(i) over 8 positions with Abs, Max, ceiling and Piecewise; the expected table is computed by hand.
    def f(idx):
        i = idx[0]
        return sp.Piecewise((sp.Abs(i - 3) + sp.Max(i, 2), i < 4), (sp.ceiling(i / 2) * 2 + 4, True))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no inverse: apply-only
        g = GenP((8,), f)
    # i = 0..3: |i-3| + max(i,2) = 3+2, 2+2, 1+2, 0+3; i = 4..7: ceil(i/2)·2 + 4 = 8, 10, 10, 12.
    assert [g[i] for i in range(8)] == [5, 4, 3, 3, 8, 10, 10, 12]


def test_symbolic_sizes_with_min_max_and_powers():
    L = OrderBy(Row(sp.Max(N, 2), N**2)).GroupBy([(sp.Max(N, 2), N**2)])
    got = L[x, y]
    assert got.subs({N: 3, x: 1, y: 5}) == 1 * 9 + 5
