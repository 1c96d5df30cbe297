"""The torch.compile backend "lego", the planner and the index tables (the published API, §2.7; behaviours of the
published test_torch_compile). Inductor compiles for CPU here; each compile costs seconds, so the cases are few."""

import torch
import torch._dynamo

import lego
import lego.torch.compile  # noqa: F401 (the published import that registers the backend)
from lego.torch import annotate, rearrange
from lego.torch.fusion import make_index_function, make_index_tensor
from lego.torch.planner import layout_cost, plan_layouts

COL = lego.ColMajor((4, 8))
X = torch.arange(32, dtype=torch.float32).reshape(4, 8)


def test_backend_is_registered():
    assert "lego" in torch._dynamo.list_backends()


def test_compiled_pointwise_on_annotated_input_equals_eager():
    torch._dynamo.reset()
    fn = torch.compile(lambda t, u: (t * 2).relu() + u.sigmoid(), backend="lego")
    y = torch.randn(4, 8)
    got = fn(annotate(X, COL), y)
    assert torch.allclose(got, (X * 2).relu() + y.sigmoid())
    # The planner saw the input's layout and propagated it (tier 1).
    layouts = lego.torch.compile.last_layout_map
    assert any(value is COL for key, value in layouts.items() if key != "l_t_")


def test_physical_input_is_compiled_on_its_data():
    torch._dynamo.reset()
    rx = rearrange(X, COL)
    got = torch.compile(lambda t: t + 1, backend="lego")(rx)
    assert torch.equal(got, rx._data + 1)


def test_end_to_end_mm_relu_sum():
    torch._dynamo.reset()
    layout = lego.TiledPermute((64, 32), (8, 8))
    a, b = torch.randn(64, 32), torch.randn(32, 16)
    fn = torch.compile(lambda x, w: torch.ops.lego.mm(x, w).relu().sum(dim=1), backend="lego")
    got = fn(annotate(a, layout), b)
    assert torch.allclose(got, (a @ b).relu().sum(dim=1), atol=1e-4)


def test_layout_cost():
    assert layout_cost(lego.RowMajor((4, 8))) == 0
    # ColMajor (4, 8) fixes exactly the positions with i + 4j == 8i + j: (0, 0) and (3, 7).
    assert layout_cost(COL) == 30


def test_planner_on_a_traced_graph():
    from torch.fx.experimental.proxy_tensor import make_fx

    gm = make_fx(lambda x, y: torch.relu(x) + y)(torch.randn(4, 8), torch.randn(4, 8))
    placeholders = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    layouts = plan_layouts(gm, {placeholders[0]: COL})
    relu = next(n for n in gm.graph.nodes if n.op == "call_function" and n.target == torch.ops.aten.relu.default)
    add = next(n for n in gm.graph.nodes if n.op == "call_function" and n.target == torch.ops.aten.add.Tensor)
    assert layouts[relu.name] is COL and layouts[add.name] is COL
    # Nothing is inserted: the graph computes what it did.
    x, y = torch.randn(4, 8), torch.randn(4, 8)
    assert torch.equal(gm(x, y), torch.relu(x) + y)


def test_index_tables():
    fwd, inv = make_index_function(COL)
    assert fwd.dtype.name == "int64"
    assert fwd.tolist() == [i + 4 * j for i in range(4) for j in range(8)]
    assert (inv[fwd] == range(32)).all()
    tfwd, tinv = make_index_tensor(COL, device="cpu")
    assert tfwd.tolist() == fwd.tolist() and tinv.tolist() == inv.tolist()
