"""The published package's defects of the tensor API (the published API §7.1–§7.4, §7.6, §7.12) and what lego-rs
does instead: a correct result or a ValueError/TypeError that says what to do. Each test would fail against the
published behaviour (the values it rejects are the published ones, computed by hand from §7)."""

import numpy as np
import pytest
import sympy as sp

from lego import BlockCyclic, ColMajor, GenP, GroupBy, LegoLayout, OrderBy, Swizzle, ZCurve, Row, Col


@pytest.mark.parametrize("shape", [(2, 4), (4, 8), (8, 2), (3, 3), (6, 4), (4, 1)])
def test_zcurve_rejects_shapes_it_does_not_biject(shape):
    with pytest.raises(ValueError, match="not a bijection.*pad"):
        ZCurve(shape)


@pytest.mark.parametrize("shape", [(2, 2), (4, 4), (4, 2), (8, 4), (2, 1), (1, 1)])
def test_zcurve_twin_accepts_bijective_shapes(shape):
    table = np.asarray(ZCurve(shape).create_tensor(np.int64)).ravel()
    assert sorted(table.tolist()) == list(range(shape[0] * shape[1]))


def test_swizzle_rejects_non_power_of_two_columns():
    # Published: Swizzle((4,6)) maps rows 2 and 3 onto offsets 18, 19 twice and reaches 25 >= 24.
    with pytest.raises(ValueError, match="num_bits <= 1"):
        Swizzle((4, 6))
    with pytest.raises(ValueError, match="not a bijection"):
        Swizzle((4, 8), num_bits=4)
    table = np.asarray(Swizzle((4, 6), num_bits=1).create_tensor(np.int64)).ravel()
    assert sorted(table.tolist()) == list(range(24))


@pytest.mark.parametrize("n,bs,procs", [(12, 2, 4), (5, 2, 2), (10, 4, 2)])
def test_block_cyclic_rejects_uneven_distributions(n, bs, procs):
    with pytest.raises(ValueError, match="must divide"):
        BlockCyclic((n,), bs, procs)


def test_unknown_dtypes_move_their_own_element_size():
    """§7.6: float16 / uint16 / complex keep their width (the published JIT moved them as f32)."""
    layout = ColMajor((4, 4))
    for dtype in (np.float16, np.uint16, np.complex128, np.dtype("V3")):
        x = np.arange(16).astype(np.uint8).astype(dtype) if dtype != np.dtype("V3") else \
            np.frombuffer(bytes(range(48)), dtype="V3")
        expected = x.reshape(-1)[np.arange(16).reshape((4, 4), order="F").ravel()]
        assert np.array_equal(layout.transform(x).reshape(-1), expected)
    with pytest.raises(TypeError, match="Python objects"):
        layout.transform(np.array([object()] * 16))


def test_symbolic_layout_with_a_shape():
    """§7.12: LegoLayout over symbolic dims with a concrete shape binds them (published: a SymPy TypeError)."""
    M, N = sp.symbols("M N", integer=True, positive=True)
    layout = LegoLayout(OrderBy(Col(M, N)).GroupBy([(M, N)]), (2, 4))
    assert np.asarray(layout.create_tensor(np.int64)).ravel().tolist() == [0, 2, 4, 6, 1, 3, 5, 7]


def test_a_non_bijective_custom_layout_is_caught_not_read_out_of_bounds():
    """A user GenP that leaves the range: a ValueError before any element is read, on both paths."""
    import torch

    g = GenP((4,), lambda a: 2 * a[0], lambda x: (sp.floor(x / 2),))
    layout = LegoLayout(GroupBy([(4,)], [OrderBy(g)]))
    with pytest.raises(ValueError, match="not a bijection"):
        layout.transform(np.arange(4.0))
    with pytest.raises(ValueError, match="not a bijection"):
        layout.transform(torch.arange(4.0))
