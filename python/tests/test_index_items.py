"""Index items and size symbols that the package must refuse (issue 35, item 2; docs/python.md, "Index items"):
a wrong kind is a TypeError, a constant outside the dimension a ValueError. Before the fix ``OrderBy(Row(8,16))``
gave ``[1.5, 0] → 24.0``, ``[-1, 0] → -16`` and ``[8, 0] → 128`` and ``Row(q, 8)`` accepted a real q."""

import numpy as np
import pytest
import sympy as sp

from lego import Col, GenP, OrderBy, Row

L = OrderBy(Row(8, 16))


@pytest.mark.parametrize("item", [1.5, 2.0, np.float64(1.0), sp.Float(1.5), sp.Rational(1, 2), True, None, 1j])
def test_non_integer_numbers_are_type_errors(item):
    with pytest.raises(TypeError, match="index 0"):
        L[item, 0]


@pytest.mark.parametrize("item,text", [(-1, "-1 is negative"), (8, "8 is outside the dimension of size 8"),
                                       (sp.Integer(-3), "-3 is negative"), (np.int64(9), "9 is outside")])
def test_constants_outside_the_dimension_are_value_errors(item, text):
    with pytest.raises(ValueError, match=f"index 0: {text}"):
        L[item, 0]


def test_the_second_position_is_checked_against_its_own_dimension():
    with pytest.raises(ValueError, match="index 1: 16 is outside the dimension of size 16"):
        L[0, 16]
    with pytest.raises(ValueError, match="index 1"):
        L.apply(0, -1)


def test_twin_integers_in_range_still_evaluate():
    # Row(8, 16): i·16 + j, by hand.
    assert L[7, 15] == 127
    assert L[np.int64(1), sp.Integer(2)] == 18
    assert L.apply(3, 4) == 52
    i = sp.Symbol("i", integer=True)
    assert sp.simplify(L[i, 5] - (16 * i + 5)) == 0


def test_slice_bounds():
    with pytest.raises(TypeError, match="slice start"):
        L[0.5:4, 0]
    with pytest.raises(ValueError, match="slice stop 9 is outside 0..8"):
        L[0:9, 0]
    assert L[0:8, 0] is not None  # the whole dimension is a valid range


def test_inv_checks_its_flat_position():
    with pytest.raises(TypeError, match="flat position"):
        L.inv(2.5)
    with pytest.raises(ValueError, match="flat position: 128 is outside"):
        L.inv(128)
    with pytest.raises(ValueError, match="negative"):
        L.inv(-1)
    assert L.inv(127) == [7, 15]


@pytest.mark.parametrize("make", [lambda q: Row(q, 8), lambda q: Col(8, 2 * q), lambda q: GenP((q,), lambda a: a[0]),
                                  lambda q: OrderBy(Row(8, 8)).TileBy([q, 2], [4, 4])])
def test_size_symbols_must_be_integer(make):
    with pytest.raises(TypeError, match="the symbol q is not declared integer"):
        make(sp.Symbol("q", real=True))
    with pytest.raises(TypeError, match="not declared integer"):
        make(sp.Symbol("q"))


def test_twin_integer_size_symbols_are_accepted():
    q = sp.Symbol("q", integer=True, positive=True)
    assert Row(q, 8).dims() == (q, 8)
    i = sp.Symbol("i", integer=True)
    # Row(q, 8) at (i, 3): 8·i + 3.
    assert sp.simplify(OrderBy(Row(q, 8))[i, 3] - (8 * i + 3)) == 0
