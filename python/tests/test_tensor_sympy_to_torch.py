"""``lego.backend.torch_layout.sympy_to_torch`` (the published API §2.8, the cases of its
test_deep_integration.py; values by hand)."""

import pytest
import sympy as sp
import torch

from lego.backend.torch_layout import sympy_to_torch

i, j, x = sp.symbols("i j x", integer=True, nonnegative=True)


def test_linear():
    f = sympy_to_torch(8 * i + j, [i, j])
    assert f(torch.tensor([0, 1, 2]), torch.tensor([3, 4, 5])).tolist() == [3, 12, 21]


def test_floor_and_mod():
    values = torch.tensor([0, 7, 8, 15, 16, 31])
    assert sympy_to_torch(sp.floor(x / 8), [x])(values).tolist() == [0, 0, 1, 1, 2, 3]
    assert sympy_to_torch(sp.Mod(x, 4), [x])(torch.tensor([0, 1, 4, 5, 11])).tolist() == [0, 1, 0, 1, 3]


def test_piecewise_max_min_power():
    f = sympy_to_torch(sp.Piecewise((x, x < 4), (x + 10, True)), [x])
    assert f(torch.tensor([0, 2, 4, 6])).tolist() == [0, 2, 14, 16]
    assert sympy_to_torch(sp.Max(x, 3), [x])(torch.tensor([1, 5])).tolist() == [3, 5]
    assert sympy_to_torch(sp.Min(x, 3) + x ** 2, [x])(torch.tensor([1, 5])).tolist() == [2, 28]


def test_constant_is_a_python_int():
    result = sympy_to_torch(sp.Integer(42), [])()
    assert result == 42 and isinstance(result, int)


def test_errors():
    with pytest.raises(NotImplementedError):
        sympy_to_torch(sp.sin(x), [x])
    with pytest.raises(ValueError):
        sympy_to_torch(i + j, [i])
