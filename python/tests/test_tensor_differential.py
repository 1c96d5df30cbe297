"""Differential test of the transform against the reference algebra (crates/lego-algebra): 1 000 random layouts
of its generator, rebuilt with the public Python classes; the whole table `[L(B⁻¹(k)) for k]` computed by the
algebra's interpreter (`lego._lego.random_layout_tables`) must equal `create_tensor` through our pipeline (NumPy
path in Rust, torch path for every tenth layout), and `inverse_transform` must undo `transform`."""

import numpy as np
import torch

from lego import LegoLayout, _lego
from test_differential import rebuild

COUNT = 1000
SEED = 2111


def test_transform_matches_the_reference_algebra():
    checked = 0
    for n, (description, dims, expected) in enumerate(_lego.random_layout_tables(SEED, COUNT, max_numel=256)):
        layout = LegoLayout(rebuild(description), tuple(dims))
        got = np.asarray(layout.create_tensor(np.int64)).reshape(-1).tolist()
        assert got == list(expected), (description, dims)
        x = np.arange(len(expected), dtype=np.float64) * 3 + 1
        assert np.array_equal(layout.inverse_transform(layout.transform(x)).reshape(-1), x), description
        if n % 10 == 0:
            t = torch.from_numpy(x)
            y = layout.transform(t)
            assert y.reshape(-1).tolist() == x[list(expected)].tolist(), description
            assert torch.equal(layout.inverse_transform(y).reshape(-1), t)
        checked += 1
    assert checked == COUNT
