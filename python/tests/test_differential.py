"""Differential test against the reference algebra (crates/lego-algebra): random layouts from its generator,
rebuilt with the public Python classes, evaluated through our pipeline (`L[ints]`, `L.inv(int)`) and compared
with the algebra's interpreter, whose values the extension's test hook `lego._lego.random_layouts` returns."""

import sympy as sp

from lego import Col, GenP, GroupBy, OrderBy, RegP, Row, _lego
from lego.core import TileByLayout

COUNT = 200
SEED = 21


def rebuild(description):
    """The Python layout of a description (python/src/differential.rs documents the forms)."""
    kind = description[0]
    if kind == "row":
        return Row(*description[1])
    if kind == "col":
        return Col(*description[1])
    if kind == "reg_p":
        return RegP(description[1], description[2])
    if kind == "rev":
        n1, n2 = description[1], description[2]
        return GenP(
            (n1, n2),
            lambda idx: (n1 - 1 - idx[0]) * n2 + (n2 - 1 - idx[1]),
            lambda flat: (n1 - 1 - sp.floor(flat / n2), n2 - 1 - sp.Mod(flat, n2)),
        )
    if kind == "order_by":
        return OrderBy(*[rebuild(part) for part in description[1]])
    if kind == "group_by":
        return GroupBy([tuple(description[1])], [rebuild(obj) for obj in description[2]])
    if kind == "tile_by":
        inner = rebuild(description[1])
        assert isinstance(inner, OrderBy)
        levels = [tuple(level) for level in description[2]]
        return TileByLayout([inner], levels, [tuple(d for level in levels for d in level)])
    raise AssertionError(f"unknown description {description!r}")


def test_random_layouts_match_the_reference_algebra():
    cases = _lego.random_layouts(SEED, COUNT, max_numel=256, max_depth=2, samples=3)
    assert len(cases) == COUNT
    kinds = set()
    for description, dims, forward, backward in cases:
        kinds.add(description[0])
        layout = rebuild(description)
        assert tuple(layout.dims()) == tuple(dims), description
        for index, flat in forward:
            assert layout[tuple(index)] == flat, (description, index)
        for flat, index in backward:
            assert layout.inv(flat) == list(index), (description, flat)
    # The generator reached every constructor the Python layer rebuilds.
    assert {"order_by", "group_by", "tile_by"} <= kinds


def test_random_layouts_are_deterministic():
    first = _lego.random_layouts(5, 3)
    second = _lego.random_layouts(5, 3)
    assert first == second
