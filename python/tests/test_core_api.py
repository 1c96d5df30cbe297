"""The lego.core surface (the published API, §1.1–§1.6): constructors, validation errors, chaining, GenP's inverse
derivation, constraints and the helpers."""

import warnings

import pytest
import sympy as sp

import lego
from lego import (
    BroadcastRange,
    Col,
    GenP,
    GroupBy,
    OrderBy,
    RegP,
    Row,
    TileByLayout,
    TritonRange,
    antidiag,
    antidiag_inv,
    divisibility_constraint,
    get_arange,
    le_constraint,
    lego_arange,
    new_antidiag,
    product,
)

M, N, BM = sp.symbols("M N BM", integer=True, positive=True)
i, j, x = sp.symbols("i j x", integer=True)


def test_top_level_exports_core():
    for name in lego.core.__all__:
        assert hasattr(lego, name), name
    assert lego.Row is lego.core.Row


def test_primitive_dims():
    assert Row(4, 8).dims() == (4, 8)
    assert Col(M, N).dims() == (M, N)
    assert RegP([2, 3], [1, 0]).dims() == (2, 3)
    assert RegP([2, 3], [1, 0])._perm_vector == [1, 0]
    assert OrderBy(Row(4, 8), Col(3)).dims() == (4, 8, 3)


def test_regp_validation():
    with pytest.raises(ValueError, match="perm length"):
        RegP((4, 8), (0,))
    with pytest.raises(ValueError, match="not a valid permutation"):
        RegP((4, 8), (0, 0))


def test_non_positive_dims_rejected():
    for bad in (0, -3):
        with pytest.raises(ValueError, match="must be > 0"):
            Row(4, bad)
    with pytest.raises(ValueError, match="must be > 0"):
        OrderBy(Row(8)).TileBy([0])


def test_apply_rank_mismatch():
    L = OrderBy(Row(4, 8)).GroupBy([(4, 8)])
    with pytest.raises(ValueError, match="Input index dimension mismatch. Expected 2, got 3"):
        L.apply(1, 2, 3)
    with pytest.raises(ValueError, match="Input index dimension mismatch. Expected 2, got 1"):
        L[1]


def test_apply_and_getitem_agree():
    L = OrderBy(Row(4, 8)).GroupBy([(4, 8)])
    assert L.apply(1, 2) == L[1, 2] == 10
    assert isinstance(L.apply(1, 2), sp.Integer)
    assert sp.simplify(L.apply(i, j) - (8 * i + j)) == 0


def test_index_items_str_and_expressions():
    L = OrderBy(Row(M, N)).GroupBy([(M, N)])
    # str items become integer symbols.
    assert sp.simplify(L["a", "b"] - (sp.Symbol("a", integer=True) * N + sp.Symbol("b", integer=True))) == 0
    # An expression item is substituted back after simplification (the published API, §1.4).
    pid_m = sp.Symbol("pid_m", integer=True)
    assert sp.simplify(L[pid_m * 2, j] - (2 * pid_m * N + j)) == 0


def test_orderby_in_place_chain():
    ob = OrderBy(Row(4, 8))
    result = ob.OrderBy(Col(4, 8))
    assert result is ob
    assert len(ob.chain) == 2 and ob.chain[0] is ob


def test_then_is_non_mutating():
    ob = OrderBy(Row(4, 8))
    chained = ob.then(Col(3, 5))  # sizes may differ, the rank may not
    assert chained is not ob
    assert ob.chain == [ob]
    assert len(chained.chain) == 2
    assert chained.chain[1].perms[0].dims() == (3, 5)
    assert chained.chain[0].perms == ob.perms
    with pytest.raises(ValueError, match="Dimension count mismatch"):
        ob.then(Row(32))


def test_group_by_from_chain():
    ob = OrderBy(Row(4, 8)).then(Col(4, 8))
    g = ob.GroupBy([(4, 8)])
    assert isinstance(g, GroupBy)
    assert g.d == 2 and g.dims() == (4, 8)
    assert len(g.objects) == 2


def test_group_by_chain_semantics():
    # group_by [4, 8](row, col): the last object is applied first (semantics.md): x = row(i, j) = 8i + j,
    # then col's apply at B⁻¹((4,8), x) = (x div 8, x mod 8) = (i, j): i + 4j.
    g = OrderBy(Row(4, 8)).then(Col(4, 8)).GroupBy([(4, 8)])
    values = [g[p // 8, p % 8] for p in range(32)]
    assert sorted(values) == list(range(32))


def test_tile_by_fields():
    t = OrderBy(Row(8, 8)).TileBy((2, 2), (4, 4))
    assert isinstance(t, TileByLayout) and isinstance(t, GroupBy)
    assert t._dims == (2, 2, 4, 4)
    assert t.dims() == (2, 2, 4, 4)
    assert t.tile_shape == [2, 2]
    assert t._tile_groups == [(2, 2), (4, 4)]
    single = OrderBy(Row(8)).TileBy([8])
    assert single.tile_shape == [1]


def test_genp_derives_inverse():
    g = GenP((4, 8), lambda a: a[0] * 8 + a[1])
    assert g.has_inverse
    assert [g.inv(p) for p in (0, 9, 31)] == [[0, 0], [1, 1], [3, 7]]


def test_genp_derivation_is_correct_for_increasing_weights():
    # the published API, §7.5: the published derivation maps 5 to (5, 0); a[0] + 4·a[1] at (1, 1) is 5.
    g = GenP((4, 8), lambda a: a[0] + 4 * a[1])
    assert g.has_inverse
    assert g.inv(5) == [1, 1]
    for p in range(32):
        assert g[tuple(g.inv(p))] == p


def test_genp_rank1_solve():
    g = GenP((8,), lambda a: 7 - a[0])
    assert g.has_inverse
    assert g.inv(2) == [5]


def test_genp_warns_when_inverse_cannot_be_derived():
    with pytest.warns(UserWarning, match="could not derive inverse"):
        g = GenP((4,), lambda a: sp.Piecewise((a[0], a[0] < 2), (5 - a[0], True)))
    assert not g.has_inverse
    # Apply still works: 0, 1, then 5-2 = 3, 5-3 = 2.
    assert [g[p] for p in range(4)] == [0, 1, 3, 2]
    with pytest.warns(UserWarning, match="could not derive inverse"):
        # Not a mixed radix of (4, 8): 16·a[0] + a[1] is injective but leaves gaps.
        assert not GenP((4, 8), lambda a: 16 * a[0] + a[1]).has_inverse


def test_genp_explicit_inverse_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = GenP((4, 8), lambda a: a[0] + 4 * a[1], lambda f: (sp.Mod(f, 4), sp.floor(f / 4)))
    assert g.has_inverse and g.inv(5) == [1, 1]


def test_genp_symbolic_dims():
    g = GenP((M, N), lambda a: a[0] * N + a[1])
    assert g.has_inverse
    inverse = g.inv(x)
    assert [v.subs({N: 8, x: 21}) for v in inverse] == [2, 5]


def test_build_constraints():
    L = OrderBy(Row(M, N)).GroupBy([(M, N)], user_constraints=[M > 0, N < 100])
    constraints = L._build_constraints()
    assert constraints[M][0] == 1
    assert constraints[N][1] == 100
    assert constraints[N][0] == 1


def test_constraint_forms():
    T = sp.Symbol("T", integer=True, positive=True)
    L = OrderBy(Row(T)).GroupBy([(T,)], user_constraints=[T <= 64, T >= 4])
    lower, upper = L._build_constraints()[T]
    assert lower == 4 and upper == 65
    # §7.9: a constant on the left is not ignored (0 < tid bounds tid).
    tid = sp.Symbol("tid", integer=True)
    L = OrderBy(Row(T)).GroupBy([(T,)], user_constraints=[le_constraint(0, tid), 2 * tid < 10])
    assert L._build_constraints()[tid] == (1, 5)


def test_user_bound_simplifies():
    # With N < 8 known, i < N and j < 8 give i·8 + j < 64: x div 64 of the apply is 0.
    L = OrderBy(Row(N, 8)).GroupBy([(N, 8)], user_constraints=[N <= 8])
    assert sp.simplify(L[i, j] - (8 * i + j)) == 0


def test_divisibility_fact_is_used():
    # A tile dim M // BM states M mod BM == 0 (the published API, §1.3); lowering must accept it as a fact.
    L = OrderBy(Row(M)).TileBy([M // BM], [BM], user_constraints=[divisibility_constraint(M, BM)])
    p = sp.Symbol("p", integer=True)
    assert sp.simplify(L[p, i] - (BM * p + i)) == 0


def test_helpers():
    assert product([2, 3, 4]) == 24
    assert product([]) == 1
    eq = divisibility_constraint(M, BM)
    assert isinstance(eq, sp.Eq) and eq.lhs == sp.Mod(M, BM) and eq.rhs == 0
    lt = le_constraint(i, N)
    assert isinstance(lt, sp.StrictLessThan)
    assert TritonRange is BroadcastRange
    r = get_arange(0, 128)
    assert isinstance(r, lego_arange) and r.args == (0, 128)
    assert str(BroadcastRange(get_arange(0, 64), 0, 2)) == "((lego_arange(0, 64))[:, None])"
    assert str(BroadcastRange(get_arange(0, 64), 1, 2)) == "((lego_arange(0, 64))[None, :])"
    assert new_antidiag(3, 4, (0, 0)) == 11


def test_antidiag_table_and_inverse():
    # semantics.md: antidiag(4) by rows [0 1 3 6] [2 4 7 10] [5 8 11 13] [9 12 14 15].
    table = [[antidiag(4, (r, c)) for c in range(4)] for r in range(4)]
    assert table == [[0, 1, 3, 6], [2, 4, 7, 10], [5, 8, 11, 13], [9, 12, 14, 15]]
    for r in range(4):
        for c in range(4):
            assert antidiag_inv(4, table[r][c]) == (r, c)


def test_antidiag_genp_through_the_pipeline():
    # The Piecewise body is lowered to arith.select; inverse given numerically is not expressible, so the
    # layout is apply-only.
    with pytest.warns(UserWarning, match="could not derive inverse"):
        g = GenP((4, 4), lambda a: antidiag(4, a))
    assert [[g[r, c] for c in range(4)] for r in range(4)] == [[0, 1, 3, 6], [2, 4, 7, 10], [5, 8, 11, 13],
                                                               [9, 12, 14, 15]]


def test_repeated_calls_are_cached_and_equal():
    L = OrderBy(Row(M, N)).GroupBy([(M, N)])
    first = L[i, j]
    assert L[i, j] == first
    assert L.inv(x) == L.inv(x)


def test_mlir_text():
    text = OrderBy(Row(8, 8)).TileBy([2, 2], [4, 4]).mlir()
    assert "lego.row" in text and "lego.order_by" in text and "lego.tile_by" in text
    lowered = OrderBy(Col(4, 8)).GroupBy([(4, 8)]).mlir(lowered=True)
    assert "lego." not in lowered and "arith." in lowered
