"""Every tensor-API path refuses a layout that is not a bijection on the shape before any data moves (issue 35,
item 2): a ValueError ("not a bijection on this shape") naming two indices that collide, never duplicated
elements or memory the transform did not write.

The colliding layout is the issue's: ``GenP((4,4), a0 + a1)`` maps both (0, 1) and (1, 0) to offset 1 (by hand:
0 + 1 = 1 + 0), and row-major enumeration meets (0, 1) first."""

import numpy as np
import pytest
import sympy as sp

import lego
from lego import GenP, GroupBy, LegoArray, LegoLayout, OrderBy, Row

COLLIDE = r"indices \(0, 1\) and \(1, 0\) both to offset 1: it is not a bijection on this shape"


def _diagonal_sum():
    # A fresh object per test: nothing cached from another test can hide a missing check.
    return LegoLayout(OrderBy(GenP((4, 4), lambda a: a[0] + a[1], lambda x: (x, 0))), (4, 4))


def _transpose():
    return LegoLayout(OrderBy(GenP((4, 4), lambda a: 4 * a[1] + a[0], lambda x: (sp.Mod(x, 4), sp.floor(x / 4)))),
                      (4, 4))


def test_numpy_transform_refuses_a_collision():
    with pytest.raises(ValueError, match=COLLIDE):
        _diagonal_sum().transform(np.arange(16.0))


def test_numpy_inverse_transform_refuses_instead_of_returning_unwritten_memory():
    with pytest.raises(ValueError, match=COLLIDE):
        _diagonal_sum().inverse_transform(np.arange(16.0))


def test_permutation_tables_refuse_instead_of_an_unwritten_inverse():
    with pytest.raises(ValueError, match=COLLIDE):
        _diagonal_sum().permutation_tables()


def test_permutation_tables_refuse_an_offset_out_of_range():
    # 5·i + j over (4, 4): in row-major order (3, 1) is the first index past 15 (5·3 + 1 = 16).
    layout = LegoLayout(OrderBy(GenP((4, 4), lambda a: 5 * a[0] + a[1], lambda x: (sp.floor(x / 5), sp.Mod(x, 5)))),
                        (4, 4))
    with pytest.raises(ValueError, match=r"index \(3, 1\) to offset 16, outside the 16 elements: it is not a "
                                         r"bijection on this shape"):
        layout.permutation_tables()


def test_core_groupby_transform_refuses():
    layout = GroupBy([(4, 4)], [OrderBy(GenP((4, 4), lambda a: a[0] + a[1], lambda x: (x, 0)))])
    with pytest.raises(ValueError, match=COLLIDE):
        layout.transform(np.arange(16.0).reshape(4, 4))
    with pytest.raises(ValueError, match=COLLIDE):
        layout.inverse_transform(np.arange(16.0).reshape(4, 4))


def test_batched_numpy_refuses():
    batched = lego.Batched(_diagonal_sum(), (3,))
    with pytest.raises(ValueError, match=COLLIDE):
        batched.transform(np.arange(48.0))
    with pytest.raises(ValueError, match=COLLIDE):
        lego.Batched(_diagonal_sum(), (3,)).inverse_transform(np.arange(48.0))


def test_lego_array_refuses():
    with pytest.raises(ValueError, match=COLLIDE):
        np.asarray(LegoArray(np.arange(16.0).reshape(4, 4), _diagonal_sum()))


@pytest.mark.parametrize("order", ["bad_first", "bad_second"])
def test_compose_refuses(order):
    good, bad = _transpose(), _diagonal_sum()
    composed = bad.compose(good) if order == "bad_first" else good.compose(bad)
    with pytest.raises(ValueError, match=COLLIDE):
        composed.transform(np.arange(16.0))
    composed = bad.compose(good) if order == "bad_first" else good.compose(bad)
    with pytest.raises(ValueError, match=COLLIDE):
        composed.permutation_tables()


def test_torch_paths_refuse():
    import torch
    with pytest.raises(ValueError, match=COLLIDE):
        _diagonal_sum().transform(torch.arange(16.0))
    with pytest.raises(ValueError, match=COLLIDE):
        _diagonal_sum().inverse_transform(torch.arange(16.0))
    with pytest.raises(ValueError, match=COLLIDE):
        lego.Batched(_diagonal_sum(), (2,)).transform(torch.arange(32.0))
    from lego.torch import rearrange

    with pytest.raises(ValueError, match=COLLIDE):
        rearrange(torch.arange(16.0).reshape(4, 4), _diagonal_sum())


def test_twin_a_bijection_still_transforms_on_every_path():
    """The check must not fire on a bijection: 4·j + i over (4, 4) is the transpose (NumPy's ``.T``)."""
    x = np.arange(16.0)
    expected = x.reshape(4, 4).T
    assert np.array_equal(_transpose().transform(x), expected)
    assert np.array_equal(_transpose().inverse_transform(expected.ravel()), x.reshape(4, 4))
    fwd, inv = _transpose().permutation_tables()
    assert fwd.tolist() == expected.ravel().astype(int).tolist()
    assert np.array_equal(fwd[inv], np.arange(16))
    batched = lego.Batched(_transpose(), (2,)).transform(np.arange(32.0))
    assert np.array_equal(batched, np.stack([expected, expected + 16]))
    assert np.array_equal(np.asarray(LegoArray(expected, _transpose())), x.reshape(4, 4))
    # Transpose then transpose is the identity.
    assert np.array_equal(_transpose().compose(_transpose()).transform(x), x.reshape(4, 4))


def test_twin_torch_bijection():
    import torch
    x = torch.arange(16.0)
    assert torch.equal(_transpose().transform(x), x.reshape(4, 4).T)
    assert torch.equal(_transpose().inverse_transform(x.reshape(4, 4).T.reshape(-1)), x.reshape(4, 4))
