"""The tensor API's PyTorch path (the published API §2.2, §2.6; behaviours of test_deep_integration.py and
test_torch_autotune.py): the same gather/scatter as the NumPy path, computed by vectorized torch arithmetic on the
tensor's device, differentiable. Devices: the CPU, and CUDA where this machine has it (the same tests run there)."""

import numpy as np
import pytest
import torch

import lego
from lego import (Batched, BlockCyclic, ColMajor, LegoLayout, OrderBy, Row, Col, RowMajor, Swizzle, TiledPermute,
                  Transposed, ZCurve, Tiled)
from lego.torch import autotune as torch_autotune

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])

LAYOUTS = [
    ("RowMajor", lambda: RowMajor((4, 8))),
    ("ColMajor", lambda: ColMajor((4, 8))),
    ("Transposed", lambda: Transposed((3, 5))),
    ("TiledPermute", lambda: TiledPermute((8, 8), (2, 4))),
    ("ZCurve", lambda: ZCurve((8, 4))),
    ("Swizzle", lambda: Swizzle((8, 8), num_bits=2)),
    ("BlockCyclic", lambda: BlockCyclic((24,), 2, 3)),
    ("Row3D", lambda: LegoLayout(OrderBy(Row(2, 3, 4)).GroupBy([(2, 3, 4)]))),
    ("Col3D", lambda: LegoLayout(OrderBy(Col(2, 3, 4)).GroupBy([(2, 3, 4)]))),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name,make", LAYOUTS)
def test_numpy_and_torch_agree_and_round_trip(name, make, device):
    layout = make()
    x = np.random.default_rng(3).standard_normal(layout.numel).astype(np.float32).reshape(layout.shape)
    expected = layout.transform(x)
    t = torch.from_numpy(x).to(device)
    y = layout.transform(t)
    assert isinstance(y, torch.Tensor) and y.device.type == device and tuple(y.shape) == layout.shape
    assert np.array_equal(y.cpu().numpy(), expected)
    assert torch.equal(layout.inverse_transform(y), t)
    assert torch.equal(layout(t), y)


@pytest.mark.parametrize("device", DEVICES)
def test_autograd_flows_through_the_gather(device):
    layout = TiledPermute((8, 8), (4, 2))
    x = torch.randn(8, 8, device=device, requires_grad=True)
    layout.inverse_transform(layout.transform(x)).sum().backward()
    assert torch.equal(x.grad, torch.ones_like(x))
    # A weighted loss: the gradient is the weights gathered back through the permutation.
    x.grad = None
    w = torch.arange(64.0, device=device).reshape(8, 8)
    (layout.transform(x) * w).sum().backward()
    assert torch.equal(x.grad, layout.inverse_transform(w))


def test_torch_dtypes_and_errors():
    layout = ColMajor((3, 4))
    for dtype in (torch.float16, torch.bfloat16, torch.int64, torch.bool, torch.complex64):
        t = (torch.arange(12) % 5).to(dtype)
        assert torch.equal(layout.transform(t).reshape(-1), t[torch.tensor([0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11])])
    assert lego.backend.compiler._dtype_to_mlir(torch.bfloat16) == "bf16"
    assert lego.backend.compiler._dtype_to_mlir(torch.float16) == "f16"
    with pytest.raises(ValueError, match="numel"):
        layout.transform(torch.zeros(5))
    assert torch.equal(layout.create_tensor(torch.int64).reshape(-1),
                       torch.tensor([0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11]))


def test_compose_torch_path_uses_the_composition():
    a, b = ColMajor((2, 2)), Swizzle((2, 2), num_bits=1)
    x = torch.tensor([10, 20, 30, 40])
    assert a.compose(b).transform(x).reshape(-1).tolist() == [10, 30, 40, 20]


def test_batched_torch():
    base = TiledPermute((4, 4), (2, 2))
    batched = Batched(base, (3,))
    t = torch.randn(3, 4, 4, requires_grad=True)
    y = batched.transform(t)
    for b in range(3):
        assert torch.equal(y[b], base.transform(t[b]))
    assert torch.equal(batched.inverse_transform(y), t)
    batched.inverse_transform(y).sum().backward()
    assert torch.equal(t.grad, torch.ones_like(t))


def test_tiled_view_torch():
    view = Tiled((4, 4), (2, 2))
    y = view.transform(torch.arange(16))
    assert y[0, 1, 1, 0] == 6 and torch.equal(view.inverse_transform(y), torch.arange(16).reshape(4, 4))


@pytest.mark.parametrize("device", DEVICES)
def test_torch_autotune_returns_a_tiled_permute(device):
    torch_autotune.clear_cache()
    layout = torch_autotune.autotune((16, 16), n_iters=2, device=device)
    assert isinstance(layout, LegoLayout) and layout.shape == (16, 16)
    assert f"(16, 16):{device}" in torch_autotune._AUTOTUNE_CACHE
    explicit = torch_autotune.autotune((16, 16), tile_candidates=[(8, 4)], force=True, n_iters=1, device=device)
    assert explicit == TiledPermute((16, 16), (8, 4))
    assert torch_autotune.autotune((16, 16), device=device) == explicit  # cached
    assert torch_autotune.default_candidates((6, 9)) == [(1, 1)] or torch_autotune.default_candidates((6, 9))
    assert torch_autotune.default_candidates((8, 12)) == [(2, 2), (4, 4)]
    torch_autotune.clear_cache()
    assert torch_autotune._AUTOTUNE_CACHE == {}
