"""The tensor API (the published API §2.1–§2.6; behaviours of its tests test_tensor_api.py, test_jit_host.py,
test_compiler_pipeline_param.py and the §2 parts of test_pytorch_improvements.py). Expected tables are written by
hand from the definitions of §2.2/§2.4, or computed here by independent NumPy / bit arithmetic."""

import inspect
import warnings

import numpy as np
import pytest
import sympy as sp

import lego
from lego import (Batched, BatchedLayout, BlockCyclic, Col, ColMajor, Custom, GenP, GroupBy, LegoArray, LegoLayout,
                  OrderBy, RegP, Row, RowMajor, Swizzle, Tiled, TiledPermute, TiledView, Transposed, ZCurve)
from lego.backend import compiler
from lego.backend.compiler import DType, LayoutCompiler, _dtype_to_mlir, get_compiler
from lego.frontends import python_mlir
from lego.frontends.python_mlir import col, gen_p, group_by, order_by, reg_p, row, tile_by


def table(layout, dtype=np.int64):
    return np.asarray(layout.create_tensor(dtype)).reshape(-1).tolist()


# --- §2.3 basics ---------------------------------------------------------------------------------------------


def test_row_major_is_the_identity():
    layout = RowMajor((4, 8))
    assert table(layout) == list(range(32))
    assert layout.is_identity
    assert layout.shape == (4, 8) and layout._shape == (4, 8)
    assert layout.numel == 32 and RowMajor((2, 3, 4)).rank == 3


def test_col_major_table_is_fortran_order_and_round_trips():
    layout = ColMajor((4, 8))
    expected = np.arange(32).reshape((4, 8), order="F")
    assert np.array_equal(layout.create_tensor(np.float32), expected)
    assert layout.create_tensor(np.float32)[0, 1] == 4
    assert not layout.is_identity
    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    assert np.array_equal(layout.inverse_transform(layout.transform(x)), x)
    assert table(ColMajor((3, 4))) == [0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11]


def test_transposed_equals_col_major():
    assert table(Transposed((3, 4))) == [0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11]
    assert table(Transposed((2, 3, 4))) == table(ColMajor((2, 3, 4)))


def test_three_d_and_reg_p_layouts():
    # RegP((2,3,4), [2,0,1]): offset = B((4,2,3), (k, i, j)) = 6k + 3i + j.
    layout = LegoLayout(GroupBy([(2, 3, 4)], [OrderBy(RegP((2, 3, 4), [2, 0, 1]))]))
    expected = [6 * k + 3 * i + j for i in range(2) for j in range(3) for k in range(4)]
    assert table(layout) == expected
    # 3-D column-major: i + 2j + 6k.
    assert table(ColMajor((2, 3, 4))) == [i + 2 * j + 6 * k for i in range(2) for j in range(3) for k in range(4)]


def test_transform_gathers_and_inverse_scatters():
    """y.flat[k] = x.flat[fwd[k]], and inverse_transform is its exact inverse (§2.2)."""
    layout = TiledPermute((4, 4), (2, 2))
    x = np.arange(100, 116)
    fwd, inv = layout.permutation_tables()
    assert np.array_equal(layout.transform(x).ravel(), x[fwd])
    assert np.array_equal(fwd[inv], np.arange(16)) and np.array_equal(inv[fwd], np.arange(16))
    assert np.array_equal(layout.inverse_transform(layout.transform(x)).ravel(), x)
    assert np.array_equal(layout(x), layout.transform(x))


def test_flat_input_and_numel_and_type_errors():
    layout = ColMajor((4, 8))
    assert layout.transform(np.arange(32)).shape == (4, 8)
    with pytest.raises(ValueError, match="numel"):
        layout.transform(np.arange(16))
    with pytest.raises(TypeError, match="Unsupported tensor type"):
        layout.transform([1, 2, 3])
    with pytest.raises((TypeError, AttributeError)):
        LegoLayout("not a layout", (4,)).create_tensor(np.float32)
    with pytest.raises(ValueError, match="non-positive"):
        LegoLayout(OrderBy(Row(4, 8)), (4, 0))


def test_inverse_transform_needs_an_inverse():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = GenP((8,), lambda a: sp.Piecewise((a[0], a[0] < 4), (11 - a[0], True)))
    assert any("could not derive inverse" in str(w.message) for w in caught)
    assert not g.has_inverse
    layout = LegoLayout(GroupBy([(8,)], [OrderBy(g)]))
    assert table(layout) == [0, 1, 2, 3, 7, 6, 5, 4]  # the forward map still works
    with pytest.raises(ValueError, match="no inverse"):
        layout.inverse_transform(np.arange(8))


def test_repr_call_and_mlir_text():
    layout = ColMajor((4, 8))
    assert repr(layout) == "LegoLayout(shape=(4, 8), layout=GroupBy)"
    assert "lego.col" in layout.get_mlir()
    assert "lego.row" in RowMajor((4, 8)).get_mlir()
    assert "lego.tile_by" in TiledPermute((4, 4), (2, 2)).get_mlir("f64")


def test_order_by_col_tile_by_gives_the_fortran_table():
    layout = LegoLayout(order_by(col(4, 8)).TileBy((4, 8)))
    assert np.array_equal(layout.create_tensor(np.int64), np.arange(32).reshape((4, 8), order="F"))


def test_functional_constructors_mirror_the_classes():
    assert isinstance(row(4, 8), Row) and isinstance(col(4, 8), Col)
    assert reg_p((2, 3), (1, 0))._perm_vector == [1, 0]
    t = tile_by(order_by(row(8, 8)), (2, 2), (4, 4))
    assert t._dims == (2, 2, 4, 4) and t.tile_shape == [2, 2]
    g = group_by((4, 8), order_by(col(4, 8)))
    assert g.dims() == (4, 8)
    assert isinstance(gen_p((4,), lambda a: a[0], lambda x: (x,)), GenP)
    # tile_by over a chain: every chain element's perms.
    assert table(LegoLayout(t, (8, 8))) == table(TiledPermute((8, 8), (4, 4)))


def test_compose_applies_self_then_other():
    """§7.1: a.compose(b).transform(x) == b.transform(a.transform(x)) (the published package does the reverse)."""
    a = ColMajor((2, 2))
    b = Swizzle((2, 2), num_bits=1)
    x = np.array([10, 20, 30, 40])
    assert a.transform(x).ravel().tolist() == [10, 30, 20, 40]
    assert b.transform(x).ravel().tolist() == [10, 20, 40, 30]
    composed = a.compose(b)
    assert composed.transform(x).ravel().tolist() == [10, 30, 40, 20]
    assert np.array_equal(composed.inverse_transform(composed.transform(x)).ravel(), x)
    assert composed == a.compose(b) and hash(composed) == hash(a.compose(b))
    assert composed != a and composed != b
    assert a.compose(a) == RowMajor((2, 2))  # a transpose twice
    with pytest.raises(ValueError, match="Shape mismatch"):
        a.compose(RowMajor((4,)))


def test_eq_and_hash():
    assert RowMajor((4, 8)) == RowMajor((4, 8))
    assert RowMajor((4, 8)) != ColMajor((4, 8))
    assert hash(RowMajor((4, 8))) == hash(RowMajor((4, 8)))
    assert ColMajor((3, 4)) == Transposed((3, 4))
    assert len({RowMajor((4, 8)), RowMajor((4, 8)), ColMajor((4, 8))}) == 2
    assert RowMajor((4, 8)).__eq__(3) is NotImplemented


# --- LayoutCompiler (§5.4, test_jit_host.py) -------------------------------------------------------------------


@pytest.mark.parametrize("layout,shape,expected", [
    (OrderBy(Row(4, 8)), (4, 8), [8 * i + j for i in range(4) for j in range(8)]),
    (OrderBy(Col(4, 8)), (4, 8), [i + 4 * j for i in range(4) for j in range(8)]),
    (OrderBy(RegP((4, 8), (0, 1))), (4, 8), list(range(32))),
    (OrderBy(RegP((4, 8), (1, 0))), (4, 8), [i + 4 * j for i in range(4) for j in range(8)]),
    (OrderBy(Row(4), Row(8)), (4, 8), list(range(32))),
    # Row(4) then Col(2,3): i·6 + (j + 2k).
    (OrderBy(Row(4), Col(2, 3)), (4, 2, 3), [6 * i + j + 2 * k for i in range(4) for j in range(2) for k in range(3)]),
    (OrderBy(Row(1)), (1,), [0]),
    (OrderBy(Row(2, 3, 2, 2)), (2, 3, 2, 2), list(range(24))),
])
def test_layout_compiler_round_trips(layout, shape, expected):
    compiler_ = LayoutCompiler(layout, shape, "i64").compile()
    fwd, inv = compiler_.get_permutation_table()
    assert fwd.tolist() == expected
    x = np.arange(1000, 1000 + len(expected), dtype=np.int64).reshape(shape)
    y = compiler_.transform_numpy(x)
    assert y.shape == x.shape and y.ravel().tolist() == [1000 + e for e in expected]
    assert np.array_equal(compiler_.inverse_transform_numpy(y), x)


def test_non_power_of_two_tiles():
    """12×15 tiled by [4,5],[3,3]: entry (bx,by,i,j) is (3bx+i)·15 + 3by+j (semantics of tile_by)."""
    layout = OrderBy(Row(12, 15)).TileBy([4, 5], [3, 3])
    expected = [(3 * bx + i) * 15 + 3 * by + j for bx in range(4) for by in range(5) for i in range(3) for j in range(3)]
    assert table(LegoLayout(layout, (12, 15))) == expected
    x = np.arange(180.0).reshape(12, 15)
    L = LegoLayout(layout, (12, 15))
    assert np.array_equal(L.inverse_transform(L.transform(x)), x)


def test_gen_p_compiles():
    g = GenP((4, 8), lambda a: (3 - a[0]) * 8 + (7 - a[1]), lambda x: (3 - sp.floor(x / 8), 7 - sp.Mod(x, 8)))
    assert table(LegoLayout(GroupBy([(4, 8)], [OrderBy(g)]))) == list(range(31, -1, -1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.int8, np.uint16, np.float16,
                                   np.complex64, np.complex128, np.bool_])
def test_every_element_size(dtype):
    """§7.6: the transform moves elements of the array's own size (the published JIT used f32 for unknown dtypes)."""
    layout = ColMajor((5, 6))
    x = (np.arange(30) % 7).astype(dtype).reshape(5, 6)
    assert np.array_equal(layout.transform(x), x.reshape(-1)[np.arange(30).reshape((5, 6), order="F").ravel()].reshape(5, 6))
    assert layout.transform(x).dtype == x.dtype


def test_non_contiguous_input():
    x = np.arange(64.0).reshape(8, 8)[:, ::2]  # a view with a stride
    layout = ColMajor((8, 4))
    assert np.array_equal(layout.transform(x), np.ascontiguousarray(x).ravel()[table(layout)].reshape(8, 4))


def test_symbolic_dims_with_and_without_bindings():
    R, C = sp.symbols("R C", integer=True, positive=True)
    layout = OrderBy(Row(R, C))
    by_shape = LayoutCompiler(layout, (3, 4), "f32").compile()
    assert by_shape.bindings == {R: 3, C: 4}
    assert by_shape.get_permutation_table()[0].tolist() == list(range(12))
    by_bindings = LayoutCompiler(OrderBy(Col(R, C)), (12,), "f32", dim_bindings={R: 3, C: 4}).compile()
    assert by_bindings.get_permutation_table()[0].tolist() == [i + 3 * j for i in range(3) for j in range(4)]
    # R·T = 120 once R is known (iterative solving).
    T = sp.Symbol("T", integer=True, positive=True)
    assert LayoutCompiler(OrderBy(Row(R, R * T)), (4, 120)).bindings == {R: 4, T: 30}
    with pytest.raises(ValueError, match="Cannot resolve symbolic dimension"):
        LayoutCompiler(OrderBy(Row(R, C)), (12,))
    with pytest.raises(ValueError, match="symbolic"):
        LegoLayout(OrderBy(Row(R, C)))
    # A LegoLayout with symbolic dims and a shape (the published package fails in int(), §7.12).
    assert table(LegoLayout(OrderBy(Col(R, C)), (2, 3))) == [0, 2, 4, 1, 3, 5]
    # A symbolic TileBy.
    M, N, BM, BN = sp.symbols("M N BM BN", integer=True, positive=True)
    tiled = OrderBy(Row(M, N)).TileBy((M // BM, N // BN), (BM, BN))
    L = LegoLayout(tiled, (2, 2, 4, 8), dim_bindings={M: 8, N: 16})
    assert table(L) == table(LegoLayout(OrderBy(Row(8, 16)).TileBy((2, 2), (4, 8))))


def test_compile_signature_and_caches():
    assert inspect.signature(LayoutCompiler.compile).parameters["pipeline_name"].default == "lego-to-llvm"
    layout = OrderBy(Row(6, 10)).TileBy((3, 5), (2, 2))
    first = LayoutCompiler(layout, (6, 10), "f32").compile()
    size = len(compiler._COMPILER_CACHE)
    second = LayoutCompiler(OrderBy(Row(6, 10)).TileBy((3, 5), (2, 2)), (6, 10), "f32").compile()
    assert len(compiler._COMPILER_CACHE) == size
    fwd1, inv1 = first.get_permutation_table()
    fwd2, inv2 = second.get_permutation_table()
    assert fwd1 is fwd2 and inv1 is inv2
    assert get_compiler(layout, (6, 10)) is get_compiler(layout, (6, 10))


def test_dtype_map():
    assert _dtype_to_mlir(np.float32) == "f32" and _dtype_to_mlir(np.dtype("float64")) == "f64"
    assert _dtype_to_mlir(np.bool_) == "i1" and _dtype_to_mlir(np.uint8) == "ui8"
    assert _dtype_to_mlir(np.float16) == "f16" and _dtype_to_mlir(np.uint16) == "ui16"
    assert _dtype_to_mlir("bf16") == "bf16" and _dtype_to_mlir(DType.i32) == "i32"
    assert _dtype_to_mlir(np.complex64) == "complex<f32>"
    with pytest.raises(TypeError, match="element type|MLIR"):
        _dtype_to_mlir(object)
    with pytest.raises(TypeError):
        _dtype_to_mlir("f13")


def test_no_table_is_kept_by_transform():
    """The transform keeps only vectors of the inner block (≤ 2^14 elements each), never O(numel)."""
    layout = ZCurve((1024, 1024))
    layout.transform(np.zeros((1024, 1024), np.float32))
    compiled = layout._compiled
    assert compiled.tables is None
    assert compiled.program.cache_bytes <= 8 * 1024 * 8
    scalars, invariant, vector, block, streaming = compiled.program.summary()
    assert block == 1024 and not streaming and vector <= 2  # Σ bits(i) + Σ bits(j): one vector addition


# --- §2.4 constructors --------------------------------------------------------------------------------------


def test_tiled_permute():
    layout = TiledPermute((4, 4), (2, 2))
    assert layout.shape == (4, 4)
    assert layout.transform(np.arange(16)).ravel().tolist() == [0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15]
    x = np.arange(64.0).reshape(8, 8)
    L = TiledPermute((8, 8), (2, 4))
    # By hand: tile (bi, bj) row-major, inside it row-major: element (bi·2+i, bj·4+j).
    expected = [x[bi * 2 + i, bj * 4 + j] for bi in range(4) for bj in range(2) for i in range(2) for j in range(4)]
    assert L.transform(x).ravel().tolist() == expected
    assert np.array_equal(L.inverse_transform(L.transform(x)), x)
    assert hasattr(lego, "TiledPermute")
    with pytest.raises(ValueError, match="same rank"):
        TiledPermute((4, 4), (2,))
    with pytest.raises(ValueError, match="must be > 0"):
        TiledPermute((4, 4), (0, 2))
    with pytest.raises(ValueError, match="not divisible"):
        TiledPermute((4, 4), (3, 2))


def test_tiled_view():
    view = Tiled((8, 8), (4, 4))
    assert isinstance(view, TiledView) and view.shape == (2, 2, 4, 4)
    assert view.original_shape == (8, 8) and view.tile_grid == (2, 2) and view.tile_shape == (4, 4)
    small = Tiled((4, 4), (2, 2))
    y = small.transform(np.arange(16))
    assert y[0, 1, 1, 0] == 6  # tile (0,1), element (1,0): row 1, column 2
    assert np.array_equal(small.inverse_transform(y), np.arange(16).reshape(4, 4))
    assert repr(small) == "TiledView(shape=(4, 4), tile=(2, 2))"
    assert "lego.tile_by" in small.get_mlir()
    with pytest.raises(ValueError, match="must be > 0"):
        Tiled((8, 8), (0, 4))
    with pytest.raises(ValueError, match="factors"):
        Tiled((8, 8), (3, 4))


def z_reference(n, m):
    """Bit interleaving by hand: row bits at even positions, column bits at odd."""
    bits = max((max(n, m, 2) - 1).bit_length(), 1)

    def z(i, j):
        return sum(((i >> k) & 1) << (2 * k) | ((j >> k) & 1) << (2 * k + 1) for k in range(bits))

    return [z(i, j) for i in range(n) for j in range(m)]


def test_zcurve():
    assert table(ZCurve((2, 2))) == [0, 2, 1, 3]
    assert table(ZCurve((4, 4))) == [0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15]
    for shape in [(4, 2), (8, 4), (16, 16), (32, 16), (1, 1), (2, 1)]:
        assert table(ZCurve(shape)) == z_reference(*shape), shape
        x = np.arange(shape[0] * shape[1], dtype=np.float32).reshape(shape)
        assert np.array_equal(ZCurve(shape).inverse_transform(ZCurve(shape).transform(x)), x)
    with pytest.raises(ValueError, match="2D"):
        ZCurve((4, 4, 4))


def test_swizzle():
    assert table(Swizzle((4, 4))) == [0, 1, 2, 3, 5, 4, 7, 6, 10, 11, 8, 9, 15, 14, 13, 12]
    for shape, bits in [((8, 8), None), ((16, 32), 3), ((6, 8), 2), ((4, 6), 1), ((3, 1), None)]:
        ncols = shape[1]
        nb = bits if bits is not None else (ncols.bit_length() - 1)
        expected = [i * ncols + (j ^ (i % 2 ** nb)) for i in range(shape[0]) for j in range(ncols)]
        assert table(Swizzle(shape, bits)) == expected, shape
    a = np.arange(16.0).reshape(4, 4)
    s = Swizzle((4, 4))
    assert np.array_equal(s.transform(s.transform(a)), a)  # self-inverse
    assert np.array_equal(s.inverse_transform(s.transform(a)), a)
    # Each row of a 32×32 float tile reads 32 different banks (offset mod 32).
    t = np.asarray(Swizzle((32, 32)).create_tensor(np.int64))
    columns = np.stack([t[:, j] % 32 for j in range(32)])
    assert all(len(set(columns[j].tolist())) == 32 for j in range(32))
    with pytest.raises(ValueError, match="2D"):
        Swizzle((16,))


def block_cyclic_reference(n, bs, procs):
    local = n // bs // procs
    return [(i // bs % procs) * local * bs + (i // bs // procs) * bs + i % bs for i in range(n)]


def test_block_cyclic():
    assert table(BlockCyclic((16,), 2, 2)) == [0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15]
    for n, bs, procs in [(24, 3, 2), (12, 2, 3), (8, 8, 1), (30, 1, 5)]:
        expected = block_cyclic_reference(n, bs, procs)
        assert sorted(expected) == list(range(n))
        assert table(BlockCyclic((n,), bs, procs)) == expected
        x = np.arange(n)
        layout = BlockCyclic((n,), bs, procs)
        assert np.array_equal(layout.inverse_transform(layout.transform(x)), x)
    with pytest.raises(ValueError):
        BlockCyclic((4, 4), 2, 2)


def test_custom():
    layout = Custom(OrderBy(Col(3, 5)).GroupBy([(3, 5)]), (3, 5))
    assert table(layout) == table(ColMajor((3, 5)))


# --- §2.5 ------------------------------------------------------------------------------------------------------


def test_batched():
    base = ColMajor((3, 4))
    batched = Batched(base, (5,))
    assert isinstance(batched, BatchedLayout)
    assert batched.shape == (5, 3, 4) and batched.rank == 3 and batched.numel == 60
    t = np.random.default_rng(1).standard_normal((5, 3, 4))
    y = batched.transform(t)
    for b in range(5):
        assert np.array_equal(y[b], base.transform(t[b]))
    assert np.array_equal(batched.inverse_transform(y), t)
    two = Batched(TiledPermute((4, 4), (2, 2)), (2, 3))
    u = np.arange(96).reshape(2, 3, 4, 4)
    assert np.array_equal(two.inverse_transform(two(u)), u)
    assert repr(batched).startswith("BatchedLayout(batch=(5,), base=LegoLayout(")
    with pytest.raises(TypeError):
        batched.transform([0] * 60)


def test_lego_array_and_dlpack():
    layout = ColMajor((3, 4))
    a = np.arange(12.0).reshape(3, 4)
    arr = layout.as_array(a)
    assert isinstance(arr, LegoArray)
    assert np.array_equal(np.asarray(arr), a)
    assert arr.shape == (3, 4) and arr.dtype == np.float64
    assert np.array_equal(arr.to_physical(), layout.transform(a))
    assert np.array_equal(arr.to_logical(), a)
    assert repr(arr).startswith("LegoArray(shape=(3, 4), dtype=float64, layout=LegoLayout(")
    capsule = layout.to_dlpack(a)
    assert type(capsule).__name__ == "PyCapsule"
    imported = layout.from_dlpack(layout.transform(a))
    assert isinstance(imported, LegoArray) and np.array_equal(np.asarray(imported), a)


# --- §2.6 ------------------------------------------------------------------------------------------------------


def test_autotune(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    lego.autotune.clear_cache()
    view = lego.autotune((16, 32), n_iters=2)
    assert isinstance(view, TiledView) and view.tile_shape in [(t, t) for t in (2, 4, 8, 16)]
    assert lego.autotune._AUTOTUNE_CACHE["(16, 32):cpu"] == view.tile_shape
    assert (tmp_path / ".cache" / "lego" / "autotune_cache.json").exists()
    again = lego.autotune.autotune((16, 32), tile_candidates=[(16, 16)])  # cached: candidates not used
    assert again.tile_shape == view.tile_shape
    forced = lego.autotune.autotune((16, 32), tile_candidates=[(16, 16)], force=True, n_iters=1)
    assert forced.tile_shape == (16, 16)
    assert lego.autotune.default_candidates((12, 8)) == [(2, 2), (4, 4)]
    with pytest.raises(ValueError):
        lego.autotune((7, 9), force=True)
    lego.autotune.clear_cache()
    assert lego.autotune._AUTOTUNE_CACHE == {}
    assert not (tmp_path / ".cache" / "lego" / "autotune_cache.json").exists()


def test_top_level_exports():
    for name in ["LegoLayout", "RowMajor", "ColMajor", "TiledPermute", "Custom", "Transposed", "ZCurve", "Swizzle",
                 "BlockCyclic", "Batched", "BatchedLayout", "LegoArray", "Tiled", "TiledView", "autotune", "row",
                 "col", "reg_p", "order_by", "tile_by", "group_by", "gen_p", "DType"]:
        assert hasattr(lego, name), name
    for name in python_mlir.__all__:
        assert hasattr(python_mlir, name)


# --- the Rust program: chunking, grouping, the rewrites ---------------------------------------------------------


@pytest.mark.parametrize("make,reference", [
    (lambda: ColMajor((256, 512)), lambda x: x.reshape(-1)[np.arange(256 * 512).reshape((256, 512), order="F").ravel()]),
    (lambda: ColMajor((37, 300)), lambda x: x.reshape(-1)[np.arange(37 * 300).reshape((37, 300), order="F").ravel()]),
    (lambda: TiledPermute((256, 128), (16, 32)),
     lambda x: x.reshape(16, 16, 4, 32).transpose(0, 2, 1, 3).ravel()),
    (lambda: Swizzle((128, 256)),
     lambda x: x.reshape(-1)[[i * 256 + (j ^ (i % 128)) for i in range(128) for j in range(256)]]),
    (lambda: ZCurve((128, 128)), lambda x: x.reshape(-1)[z_reference(128, 128)]),
    # A 1-D layout longer than the cached inner block (2^14): the last dim is streamed.
    (lambda: BlockCyclic((40000,), 8, 5), lambda x: x[block_cyclic_reference(40000, 8, 5)]),
    (lambda: ColMajor((3, 20000)), lambda x: x.reshape(-1)[np.arange(60000).reshape((3, 20000), order="F").ravel()]),
])
def test_large_layouts_against_numpy_references(make, reference):
    layout = make()
    x = np.arange(layout.numel, dtype=np.float64).reshape(layout.shape) * 7 % 1000003
    assert np.array_equal(layout.transform(x).reshape(-1), reference(x).reshape(-1))
    assert np.array_equal(layout.inverse_transform(layout.transform(x)), x)


def test_rewrites_leave_few_vector_operations():
    """Per element: TiledPermute and ZCurve one vector addition, Swizzle (i ^ j) & mask plus the row (three)."""
    assert TiledPermute((4096, 4096), (64, 64))._compiled.program.summary()[2] == 1
    assert ZCurve((4096, 4096))._compiled.program.summary()[2] == 1
    assert Swizzle((4096, 4096))._compiled.program.summary()[2] == 3
    dump = "\n".join(Swizzle((4096, 4096))._compiled.program.dump())
    assert "Xor" in dump and "Const(4095)" in dump
    # Interval arithmetic proves the offsets in range (no per-chunk check) for these, not for a map that leaves it.
    for layout in (Swizzle((64, 64)), ZCurve((64, 64)), TiledPermute((64, 64), (8, 8)), ColMajor((3, 5))):
        assert layout._compiled.program.in_range
    outside = LegoLayout(GroupBy([(4,)], [OrderBy(GenP((4,), lambda a: 2 * a[0], lambda x: (sp.floor(x / 2),)))]))
    assert not outside._compiled.program.in_range


def test_group_by_conveniences():
    """§1.8: GroupBy.transform / inverse_transform keep the input's shape."""
    g = OrderBy(Col(4, 8)).GroupBy([(4, 8)])
    x = np.arange(32.0).reshape(4, 8)
    y = g.transform(x)
    assert y.shape == (4, 8) and y.ravel().tolist() == [i + 4 * j for i in range(4) for j in range(8)]
    assert np.array_equal(g.inverse_transform(y), x)
    t = OrderBy(Row(8, 8)).TileBy((2, 2), (4, 4))
    z = t.transform(np.arange(64).reshape(8, 8))
    assert z.shape == (8, 8) and z.ravel()[:8].tolist() == [0, 1, 2, 3, 8, 9, 10, 11]
