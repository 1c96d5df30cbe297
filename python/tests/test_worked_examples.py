"""The published API's worked examples (§1.7) and those of docs/reference/semantics.md: each value checked by
hand (the arithmetic is in the comments) or against the layout's definition, never copied from our output."""

import sympy as sp

from lego import Col, GenP, GroupBy, OrderBy, RegP, Row, BroadcastRange, lego_arange

M, N, BM, BN, R, T, n, BS = sp.symbols("M N BM BN R T n BS", integer=True, positive=True)
a, b, c, i, j, k, w, q, x = sp.symbols("a b c i j k w q x", integer=True)
pid, pid_m, pid_n = sp.symbols("pid pid_m pid_n", integer=True)


def same(got, expected):
    return sp.simplify(sp.sympify(got) - sp.sympify(expected)) == 0


def test_symbolic_row_major_and_inverse():
    L = OrderBy(Row(M, N)).GroupBy([(M, N)])
    assert same(L[i, j], i * N + j)
    inverse = L.inv(x)
    assert isinstance(inverse, list)
    assert same(inverse[0], sp.floor(x / N)) and same(inverse[1], sp.Mod(x, N))


def test_col_major_4x8():
    L = OrderBy(Col(4, 8)).GroupBy([(4, 8)])
    assert same(L[i, j], 4 * j + i)
    assert same(L.inv(x)[0], sp.Mod(x, 4)) and same(L.inv(x)[1], sp.floor(x / 4))
    # semantics.md example 4: col [4, 8] apply(1, 2) = 1 + 4·2 = 9; row [4, 8] apply(1, 2) = 1·8 + 2 = 10.
    assert L[1, 2] == 9
    assert OrderBy(Row(4, 8)).GroupBy([(4, 8)])[1, 2] == 10


def test_const_tile_identity_shortcut():
    L = OrderBy(Row(8, 8, 8)).TileBy([8, 8, 8])
    assert same(L[a, b, c], 64 * a + 8 * b + c)
    got = L.inv(x)
    expected = [sp.floor(x / 64), sp.floor(sp.Mod(x, 64) / 8), sp.Mod(x, 8)]
    # Equal as functions on the layout's domain: compare at every x < 512.
    for value in range(512):
        assert [g.subs(x, value) for g in got] == [e.subs(x, value) for e in expected]


def test_graphene_regp_5d():
    L = OrderBy(RegP([2] * 5, [4, 1, 3, 2, 0])).GroupBy([(2,) * 5])
    assert same(L[i, j, k, w, q], i + 8 * j + 2 * k + 16 * q + 4 * w)
    # (1,0,1,1,0): 1 + 0 + 2 + 0 + 4 = 7.
    assert L[1, 0, 1, 1, 0] == 7


def test_normal_tile_by():
    L = OrderBy(Row(8, 8, 8)).TileBy([4, 4, 4], [2, 2, 2])
    bx, by, bz = sp.symbols("bx by bz", integer=True)
    assert same(L[bx, by, bz, i, j, k], (2 * bx + i) * 64 + (2 * by + j) * 8 + 2 * bz + k)


def test_bricks_multi_block():
    L = OrderBy(Row(4, 4, 4), Row(2, 2, 2)).TileBy([4, 4, 4], [2, 2, 2])
    bx, by, bz = sp.symbols("bx by bz", integer=True)
    assert same(L[bx, by, bz, i, j, k], (16 * bx + 4 * by + bz) * 8 + 4 * i + 2 * j + k)
    # (16 + 8 + 3)·8 + 4 + 0 + 1 = 221.
    assert L[1, 2, 3, 1, 0, 1] == 221


def test_lud_symbolic_group_by():
    L = OrderBy(Row(R * T, R * T)).GroupBy([(R, R, T, T)])
    ii, jj, ty, tx = sp.symbols("ii jj ty tx", integer=True)
    got = L[ii, jj, ty, tx]
    assert same(got, ii * R * T**2 + jj * T**2 + ty * T + tx)
    # R = T = 4 at (1,2,3,1): 64 + 32 + 12 + 1 = 109.
    assert got.subs({R: 4, T: 4, ii: 1, jj: 2, ty: 3, tx: 1}) == 109


def test_row_6x8_tiled():
    L = OrderBy(Row(6, 8)).TileBy([3, 4], [2, 2])
    bx, by = sp.symbols("bx by", integer=True)
    assert same(L[bx, by, i, j], (2 * bx + i) * 8 + 2 * by + j)
    # (2 + 1)·8 + 4 + 1 = 29.
    assert L[1, 2, 1, 1] == 29


def test_col_inner_tiled():
    L = OrderBy(Col(8, 8)).TileBy([4, 4], [2, 2])
    bx, by = sp.symbols("bx by", integer=True)
    assert same(L[bx, by, i, j], (2 * by + j) * 8 + 2 * bx + i)
    # (4 + 0)·8 + 2 + 1 = 35.
    assert L[1, 2, 1, 0] == 35


def test_symbolic_tiles_with_floor_dims():
    L = OrderBy(Row(M, N)).TileBy((M // BM, N // BN), (BM, BN))
    got = L[pid_m, pid_n, i, j]
    assert same(got, (BM * pid_m + i) * N + BN * pid_n + j)
    # M=8, N=16, BM=4, BN=8 at (1,1,2,3): (4 + 2)·16 + 8 + 3 = 107.
    assert got.subs({M: 8, N: 16, BM: 4, BN: 8, pid_m: 1, pid_n: 1, i: 2, j: 3}) == 107
    inverse = L.inv(x)
    assert [v.subs({M: 8, N: 16, BM: 4, BN: 8, x: 107}) for v in inverse] == [1, 1, 2, 3]


def test_concrete_tile_slices():
    L = OrderBy(Row(8, 16)).TileBy((2, 2), (4, 8))
    got = L[1, 1, :, :]
    r0 = BroadcastRange(lego_arange(0, 4), 0, 2)
    r1 = BroadcastRange(lego_arange(0, 8), 1, 2)
    assert same(got, 72 + 16 * r0 + r1)
    grid = [[int(got.subs({r0: row, r1: col})) for col in range(8)] for row in range(4)]
    assert grid == [list(range(72, 80)), list(range(88, 96)), list(range(104, 112)), list(range(120, 128))]
    assert L.inv(107) == [1, 1, 2, 3]


def test_one_d_block_slice():
    L = OrderBy(Row(n)).TileBy([n / BS], [BS])
    assert same(L[pid, :], BS * pid + BroadcastRange(lego_arange(0, BS), 0, 1))


def test_identity_tile_1d():
    L = OrderBy(Row(N)).TileBy([N])
    assert same(L[i], i)
    assert same(L[:], BroadcastRange(lego_arange(0, N), 0, 1))


def test_grouped_pid_order():
    P, Q, GM = 4, 3, 2
    L = OrderBy(Col(sp.Max(P // GM, 1), 1), Col(sp.Min(P, GM), Q)).TileBy([P, Q])
    got = [tuple(L.inv(p)) for p in range(12)]
    assert got == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 0), (3, 0), (2, 1), (3, 1), (2, 2), (3, 2)]


def test_large_row():
    L = OrderBy(Row(1024, 1024)).GroupBy([(1024, 1024)])
    assert same(L[a, b], 1024 * a + b)


def _rev(idx):
    # rev(3, 2): f(i, j) = (3-1-i)·2 + (2-1-j)
    return (2 - idx[0]) * 2 + (1 - idx[1])


def _rev_inv(flat):
    return (2 - sp.floor(flat / 2), 1 - sp.Mod(flat, 2))


def test_paper_fig2():
    # semantics.md worked example 1: apply(4, 1) = 6 and apply_inverse(6) = (4, 1).
    L = GroupBy([(6, 4)], [OrderBy(RegP([2, 2], [1, 0]), GenP((3, 2), _rev, _rev_inv))])
    assert L[4, 1] == 6
    assert L.inv(6) == [4, 1]
    # A bijection on 24 elements: apply(inv(x)) = x for every x.
    assert sorted(L[p // 4, p % 4] for p in range(24)) == list(range(24))


def test_paper_tile_example_3():
    # semantics.md example 3: tile_by (order_by(row [8, 12])) [[2, 4], [4, 3]]: apply(1,2,3,1) = (4+3)·12 + 6+1.
    L = OrderBy(Row(8, 12)).TileBy([2, 4], [4, 3])
    assert L[1, 2, 3, 1] == 91


def test_round_trip_tiled_8x8_and_bricks():
    for L in (OrderBy(Row(8, 8)).TileBy([4, 4], [2, 2]),
              OrderBy(Row(4, 4, 4), Row(2, 2, 2)).TileBy([4, 4, 4], [2, 2, 2])):
        forward = L.inv(x)
        for value in range(64):
            index = [int(v.subs(x, value)) for v in forward]
            assert L[tuple(index)] == value


def test_lud_inverse_with_user_constraints():
    L = OrderBy(Row(R * T, R * T)).GroupBy([(R, R, T, T)], user_constraints=[R > 0, T > 0])
    inverse = L.inv(x)
    for value in range(256):
        index = [int(v.subs({R: 4, T: 4, x: value})) for v in inverse]
        # x = ii·64 + jj·16 + ty·4 + tx for R = T = 4.
        assert index == [value // 64, (value // 16) % 4, (value // 4) % 4, value % 4]
