"""The functional constructors (the published API, §2.1), ``simplify_via_mlir`` (§5.6) and ``LEGO_DEBUG``."""

import sympy as sp

import lego
from lego import GenP, GroupBy, OrderBy, RegP, Row, TileByLayout
from lego.backend.symbolic import simplify_via_mlir
from lego.frontends import symbolic

i, j, x = sp.symbols("i j x", integer=True)
N = sp.Symbol("N", integer=True, positive=True)


def test_functional_constructors():
    assert isinstance(lego.row(4, 8), lego.Row) and lego.row(4, 8).dims() == (4, 8)
    assert isinstance(lego.col(4, 8), lego.Col)
    assert lego.reg_p((2, 3), (1, 0))._perm_vector == [1, 0]
    ob = lego.order_by(lego.row(8, 8))
    assert isinstance(ob, OrderBy)
    tiled = lego.tile_by(ob, (2, 2), (4, 4))
    assert isinstance(tiled, TileByLayout) and tiled._dims == (2, 2, 4, 4) and tiled.tile_shape == [2, 2]
    grouped = lego.group_by((4, 8), lego.order_by(lego.col(4, 8)))
    assert isinstance(grouped, GroupBy) and grouped.dims() == (4, 8)
    # F-order table: entry (i, j) of col [4, 8] holds i + 4j.
    assert [grouped[p // 8, p % 8] for p in range(32)] == [r + 4 * c for r in range(4) for c in range(8)]
    g = lego.gen_p((4,), lambda a: 3 - a[0], lambda f: (3 - f,))
    assert isinstance(g, GenP) and g.inv(1) == [2]


def test_order_by_col_tile_identity_is_f_order():
    L = lego.order_by(lego.col(4, 8)).TileBy((4, 8))
    assert [L[p // 8, p % 8] for p in range(32)] == [r + 4 * c for r in range(4) for c in range(8)]


def test_simplify_via_mlir_apply_and_inv():
    L = OrderBy(Row(N, 8)).GroupBy([(N, 8)])
    got = simplify_via_mlir(L, "apply", [i, j], constraints={i: (0, N), j: (0, 8)})
    assert sp.simplify(got - (8 * i + j)) == 0
    inverse = simplify_via_mlir(L, "inv", [x], constraints={x: (0, 8 * N)})
    assert [v.subs(x, 29) for v in inverse] == [3, 5]
    assert simplify_via_mlir(L, "apply", [2, 3]) == 19
    assert symbolic.simplify_via_mlir is simplify_via_mlir
    assert symbolic.OrderBy is OrderBy


def test_gen_p_identity():
    g = GenP((8,), lambda a: a[0])
    assert g.has_inverse
    assert g[i] == i and g.inv(x) == [x]


def test_lego_debug_prints_the_ir(monkeypatch, capsys):
    monkeypatch.setenv("LEGO_DEBUG", "1")
    # A layout no other test evaluates (results are cached per request).
    assert OrderBy(RegP([3, 5], [1, 0])).GroupBy([(3, 5)])[2, 4] == 4 * 3 + 2
    err = capsys.readouterr().err
    assert "lego.reg_p" in err and "after lego-lower" in err
