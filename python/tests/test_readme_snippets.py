"""The published package's README snippets that failed in ours (issue: `pip install lego` on any machine), run as
written there, each checked against NumPy / torch computed independently here.

The three that failed: `Batched(Tiled((8, 8), tile_shape=(4, 4)), batch_shape=(32,))` (TypeError: not a LegoLayout),
`lego.as_lego_tensor(x, layout)` with `.to_logical()` (no such name), and `import lego; import torch;
torch.compile(fn, backend="lego")` (`AssertionError: duplicate name: lego` inside dynamo).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest


def tiled_by_hand(x: np.ndarray, tile: tuple) -> np.ndarray:
    """(8, 8) in 4 × 4 tiles: (g0, g1, t0, t1) = x[g0·4 + t0, g1·4 + t1], by index loops."""
    (n, m), (a, b) = x.shape, tile
    out = np.empty((n // a, m // b, a, b), dtype=x.dtype)
    for g0 in range(n // a):
        for g1 in range(m // b):
            for t0 in range(a):
                for t1 in range(b):
                    out[g0, g1, t0, t1] = x[g0 * a + t0, g1 * b + t1]
    return out


def test_batched_tiled_snippet():
    from lego import Batched, Tiled

    layout = Batched(Tiled((8, 8), tile_shape=(4, 4)), batch_shape=(32,))
    assert layout.shape == (32, 2, 2, 4, 4)
    x = np.random.default_rng(0).standard_normal((32, 8, 8)).astype(np.float32)
    y = layout.transform(x)
    assert y.shape == (32, 2, 2, 4, 4)
    for batch in (0, 17, 31):
        np.testing.assert_array_equal(y[batch], tiled_by_hand(x[batch], (4, 4)))
    np.testing.assert_array_equal(layout.inverse_transform(y).reshape(32, 8, 8), x)


def test_batched_refuses_what_is_not_a_layout():
    from lego import Batched

    with pytest.raises(TypeError, match="not a layout"):
        Batched("row-major", batch_shape=(2,))


def test_as_lego_tensor_snippet():
    torch = pytest.importorskip("torch")
    import lego

    x = torch.arange(64.0).reshape(8, 8)
    layout = lego.ColMajor((8, 8))
    t = lego.as_lego_tensor(x, layout)
    # Logical view: the data as given; physical: column-major order, x.t() flattened (by torch itself).
    assert torch.equal(t.to_logical(), x)
    assert torch.equal(t.to_physical().reshape(-1), x.t().contiguous().reshape(-1))
    assert isinstance(t, lego.LegoTensor)


@pytest.mark.parametrize("order", ["lego-first", "torch-first"])
def test_torch_compile_backend_registered_once(order):
    """In a fresh interpreter: the README's import order and the other, one torch.compile each."""
    pytest.importorskip("torch")
    imports = "import lego\nimport torch" if order == "lego-first" else "import torch\nimport lego"
    script = textwrap.dedent("""
        {imports}
        def fn(x):
            return (x * 2.0).relu().sum()
        compiled = torch.compile(fn, backend="lego")
        x = torch.linspace(-3.0, 3.0, 64)
        got, want = compiled(x), fn(x)
        assert torch.allclose(got, want), (got, want)
        from torch._dynamo import list_backends
        assert "lego" in list_backends(exclude_tags=()), list_backends(exclude_tags=())
        print("ok", float(got))
    """).format(imports=imports)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    # sum(relu(2x)) over linspace(-3, 3, 64), computed with NumPy.
    xs = np.linspace(-3.0, 3.0, 64, dtype=np.float32)
    assert abs(float(result.stdout.split()[1]) - float(np.maximum(2 * xs, 0).sum())) < 1e-3
    assert "duplicate name" not in result.stderr
