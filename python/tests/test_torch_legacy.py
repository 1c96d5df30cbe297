"""The older PyTorch integration (the published API, §2.8; behaviours of the published test_deep_integration and
test_pytorch_improvements): ``sympy_to_torch``, the physical-order ``LegoTensor`` of ``lego.backend.torch_tensor``
with its name-based dispatch, the legacy module paths. Expected values by hand."""

import warnings

import sympy as sp
import torch

import lego
from lego.backend import torch_tensor
from lego.backend.torch_layout import sympy_to_torch

i, j, x = sp.symbols("i j x", integer=True)
COL = lego.ColMajor((4, 8))
X = torch.arange(32, dtype=torch.float32).reshape(4, 8)


def test_sympy_to_torch():
    assert sympy_to_torch(8 * i + j, [i, j])(torch.tensor([0, 1, 2]), torch.tensor([3, 4, 5])).tolist() == [3, 12, 21]
    assert sympy_to_torch(sp.floor(x / 8), [x])(torch.tensor([0, 7, 8, 15, 16, 31])).tolist() == [0, 0, 1, 1, 2, 3]
    assert sympy_to_torch(sp.Mod(x, 4), [x])(torch.tensor([0, 1, 4, 5, 11])).tolist() == [0, 1, 0, 1, 3]
    piecewise = sp.Piecewise((x, x < 4), (x + 10, True))
    assert sympy_to_torch(piecewise, [x])(torch.tensor([0, 2, 4, 6])).tolist() == [0, 2, 14, 16]
    constant = sympy_to_torch(sp.Integer(42), [])()
    assert constant == 42 and type(constant) is int
    assert sympy_to_torch(sp.Max(x, 3) + x ** 2, [x])(torch.tensor([1, 5])).tolist() == [4, 30]
    # The layout's own lowered inverse, evaluated on a tensor: ColMajor((4, 8)).inv(p) = (p mod 4, ⌊p/4⌋).
    p = sp.Symbol("p", integer=True)
    row, column = COL.layout.inv(p)
    positions = torch.arange(32)
    assert sympy_to_torch(row, [p])(positions).tolist() == [k % 4 for k in range(32)]
    assert sympy_to_torch(column, [p])(positions).tolist() == [k // 4 for k in range(32)]


def test_old_lego_tensor_state_and_round_trip():
    lt = torch_tensor.as_lego_tensor(X, COL)
    assert isinstance(lt, torch_tensor.LegoTensor) and lt._lego_layout is COL
    assert not hasattr(lt, "_fwd_perm") and not hasattr(lt, "_inv_perm")
    assert lt.to_physical().tolist() == [[i + 4 * j for j in range(8)] for i in range(4)]
    assert torch.equal(lt.to_logical(), X)
    assert lt.layout_info["shape"] == (4, 8)


def test_old_lego_tensor_dispatch_by_name():
    torch_tensor._WARNED.clear()
    lt = torch_tensor.as_lego_tensor(X, COL)
    for result in (lt + 1, lt * 2, -lt, torch.relu(lt), torch.exp(lt)):
        assert isinstance(result, torch_tensor.LegoTensor) and result._lego_layout is COL
    assert torch.equal((lt * 2).to_logical(), X * 2)
    assert float(lt.sum()) == 496.0 and float(lt.mean()) == 15.5
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert torch.equal(lt.sum(dim=1), X.sum(dim=1))
        assert torch.equal(lt @ torch.eye(8), X)
        reshaped = lt.reshape(32)
        lt.reshape(32)
    assert type(reshaped) is torch.Tensor and torch.equal(reshaped, X.reshape(32))
    assert len(caught) == 3 and all("layout-aware" in str(w.message) for w in caught)
    other = torch_tensor.as_lego_tensor(X, lego.Swizzle((4, 8)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mixed = lt + other
    assert type(mixed) is torch.Tensor and torch.equal(mixed, 2 * X)


def test_legacy_module_paths():
    from lego import tensor_api
    from lego.backend import fx_backend

    assert tensor_api.RowMajor is lego.RowMajor and tensor_api.LegoLayout is lego.LegoLayout
    assert fx_backend.lego_backend is lego.torch.compile.lego_backend
    assert "lego" in torch._dynamo.list_backends()
