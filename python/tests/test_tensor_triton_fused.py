"""The tensor API's fused CUDA path (lego.backend.triton_layout): one Triton kernel per layout. Run here under
Triton's interpreter (TRITON_INTERPRET=1 on CPU tensors, LEGO_TRITON_LAYOUT=1 forcing the path) against NumPy's
own formulation of each layout; the H100 numbers are in docs/python.md.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

SCRIPT = textwrap.dedent("""
    import numpy as np, torch, lego
    from lego import ColMajor, Swizzle, TiledPermute, ZCurve, LegoLayout, OrderBy, GenP
    from lego.backend import triton_layout

    def check(layout, want_fwd, dtype=torch.float32):
        n = layout.numel
        x = torch.arange(n, dtype=dtype).reshape(layout.shape)
        y = layout.transform(x)
        assert torch.equal(y.reshape(-1).to(torch.int64), torch.as_tensor(want_fwd)), (layout, y.reshape(-1)[:16])
        back = layout.inverse_transform(y)
        assert torch.equal(back.reshape(-1), x.reshape(-1)), layout
        return y

    # transform gathers: y[i, j] = x.flat[L(i, j)]. ColMajor 8 x 16: L(i, j) = i + 8 j.
    i, j = np.meshgrid(np.arange(8), np.arange(16), indexing="ij")
    check(ColMajor((8, 16)), (i + 8 * j).reshape(-1))
    check(ColMajor((8, 16)), (i + 8 * j).reshape(-1), torch.float16)
    # TiledPermute 16 x 16 in 4 x 4 tiles: L(i, j) = (tile row-major) * 16 + (row-major inside the tile).
    i, j = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    check(TiledPermute((16, 16), (4, 4)), (((i // 4) * 4 + j // 4) * 16 + (i % 4) * 4 + j % 4).reshape(-1))
    # Swizzle and ZCurve: the expected table from NumPy's fancy indexing of the package's own NumPy path
    # (the NumPy path is checked against hand formulas in test_tensor_api.py).
    for layout in (Swizzle((8, 32), 3), ZCurve((16, 16))):
        want = layout.transform(np.arange(layout.numel, dtype=np.float64)).reshape(-1).astype(np.int64)
        check(layout, want)
    assert triton_layout._KERNELS, "the fused path was not taken"
    # inverse_transform ran as a gather through the inverse map (checked against the forward table).
    for layout in (ColMajor((8, 16)), Swizzle((8, 32), 3), ZCurve((16, 16)), TiledPermute((16, 16), (4, 4))):
        assert layout._compiled.inverse_gather, layout

    # A GenP whose inverse function is wrong (the forward map is a bijection, a transpose): the inverse gather is
    # refused by the check and the scatter gives the right answer.
    wrong = LegoLayout(OrderBy(GenP((4, 4), lambda a: a[1] * 4 + a[0], lambda v: (v // 4, v % 4))), (4, 4))
    i4, j4 = np.meshgrid(np.arange(4), np.arange(4), indexing="ij")
    y = check(wrong, (j4 * 4 + i4).reshape(-1))
    assert wrong._compiled.inverse_gather is False

    # Autograd: transform's backward scatters the gradient (d/dx sum(w * T(x)) = T^-1(w)).
    layout = ColMajor((8, 16))
    x = torch.randn(8, 16, requires_grad=True)
    w = torch.randn(8, 16)
    (layout.transform(x) * w).sum().backward()
    assert torch.allclose(x.grad, layout.inverse_transform(w)), "gradient"

    # Not a bijection: refused before any kernel runs, two colliding indices named.
    bad = LegoLayout(OrderBy(GenP((4, 4), lambda a: a[0] + a[1], lambda v: (v, 0))), (4, 4))
    try:
        bad.inverse_transform(torch.arange(16.0))
    except ValueError as error:
        assert "not a bijection" in str(error), error
    else:
        raise AssertionError("a non-bijective layout moved data")
    print("fused ok")
""")


def _under_the_interpreter(script, tmp_path):
    """``script``'s stdout, run in a fresh process under Triton's interpreter with the fused path forced."""
    env = dict(os.environ, TRITON_INTERPRET="1", LEGO_TRITON_LAYOUT="1")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=900,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stdout


def test_fused_path_matches_numpy_under_the_interpreter(tmp_path):
    assert "fused ok" in _under_the_interpreter(SCRIPT, tmp_path)


def test_emitted_source_is_one_kernel_with_constant_divisions():
    import lego
    from lego.backend import triton_layout

    layout = lego.TiledPermute((64, 64), (8, 8))
    source, launch = triton_layout.emit_source(layout._compiled)
    assert source.count("@triton.jit") == 1
    assert "tl.load" in source and "tl.store" in source
    assert launch["grid"] >= 1 and launch["BR"] * launch["BC"] <= 64 * 64


def _evaluate(nodes, result, dims):
    """The DAG over the whole index space with NumPy int64 (the reference for the optimizer)."""
    grids = np.meshgrid(*[np.arange(d, dtype=np.int64) for d in dims], indexing="ij")
    ops = {"addi": np.add, "subi": np.subtract, "muli": np.multiply, "divui": np.floor_divide,
           "divsi": np.floor_divide, "floordivsi": np.floor_divide, "remui": np.remainder, "remsi": np.remainder,
           "shli": np.left_shift, "shrui": np.right_shift, "shrsi": np.right_shift, "andi": np.bitwise_and,
           "ori": np.bitwise_or, "xori": np.bitwise_xor, "maxsi": np.maximum, "minsi": np.minimum}
    values = []
    for kind, operands, extra in nodes:
        args = [values[k] for k in operands]
        if kind in ("const", "bool"):
            values.append(np.int64(extra))
        elif kind == "dim":
            values.append(grids[extra])
        elif kind in ("index_cast", "index_castui", "extui", "extsi", "trunci"):
            values.append(args[0])
        elif kind in ops:
            values.append(ops[kind](*args))
        else:
            pytest.fail(f"the reference evaluator lacks {kind}")
    return np.broadcast_to(values[result], tuple(dims))


def _layouts():
    import lego

    return [lego.Swizzle((64, 64)), lego.Swizzle((64, 64), 3), lego.Swizzle((32, 128), 5), lego.ZCurve((32, 32)),
            lego.ZCurve((64, 32)), lego.ColMajor((48, 20)), lego.TiledPermute((64, 64), (8, 16)),
            lego.RowMajor((7, 9))]


@pytest.mark.parametrize("index", range(8))
def test_optimized_dag_equals_the_lowered_one(index):
    """optimize() (XOR recognition, merged masks, sums regrouped by the indices they use) against the DAG
    lego-lower returned, at every point of the index space, for the forward and the inverse program."""
    from lego.backend import triton_layout
    from lego.backend.compiler import compile_inverse_program

    layout = _layouts()[index]
    forward = layout._compiled
    inverse = compile_inverse_program(layout._layout, layout._bindings, forward)
    for program in (forward, inverse):
        nodes, result = triton_layout.optimize(program.nodes, program.result, len(program.dims))
        want = _evaluate(program.nodes, program.result, program.dims)
        got = _evaluate(nodes, result, program.dims)
        assert np.array_equal(got, want), (layout, program.dims)
        assert len(nodes) <= len(program.nodes) + 2


def test_inverse_program_undoes_the_forward_map():
    from lego.backend.compiler import compile_inverse_program

    for layout in _layouts():
        forward = layout._compiled
        inverse = compile_inverse_program(layout._layout, layout._bindings, forward)
        fwd = _evaluate(forward.nodes, forward.result, forward.dims).reshape(-1)
        inv = _evaluate(inverse.nodes, inverse.result, inverse.dims).reshape(-1)
        assert np.array_equal(inv[fwd], np.arange(forward.numel)), layout


def test_swizzle_offsets_cost_three_tile_operations():
    """The XOR swizzle's offset, bit by bit in the lowered DAG, is i << 13 plus (i ^ j) & 8191 once optimized:
    three operations on the BR × BC tile (a row-only or column-only node costs a vector, not a tile)."""
    import lego
    from lego.backend import triton_layout

    program = lego.Swizzle((8192, 8192))._compiled
    nodes, result = triton_layout.optimize(program.nodes, program.result, 2)
    kinds = sorted(kind for kind, _, _ in nodes if kind not in ("const", "dim"))
    assert kinds == ["addi", "andi", "shli", "xori"], nodes


def test_access_plan_contiguity_and_boxes_by_hand():
    """Facts derived by hand for each layout's offsets, then one offset moved so the fact breaks (the check
    reads every point: a single wrong offset must lower the claim)."""
    from lego.backend import access_plan

    i, j = np.meshgrid(np.arange(64), np.arange(64), indexing="ij")
    transpose = (i + 64 * j).reshape(-1)  # ColMajor: consecutive down a column, stride 64 along a row
    assert access_plan.contiguity(transpose, 64) == (16, 1)
    # A 32 x 32 tile at (r0, c0) reads rows c0..c0+31, columns r0..r0+31 of the source: a 32 x 32 box.
    assert access_plan._box_holds(transpose.reshape(64, 64), (32, 32), (32, 32), 64)
    assert ((32, 32), (32, 32)) in access_plan.boxes(transpose, 64)
    # A 16 x 64 tile reads 64 source rows, 16 columns each: not a 16 x 64 box.
    assert not access_plan._box_holds(transpose.reshape(64, 64), (16, 64), (16, 64), 64)
    swizzle = (i * 64 + (i ^ j)).reshape(-1)  # XOR of the column with the row: no run of 2 anywhere ...
    assert access_plan.contiguity(swizzle, 64) == (1, 1)
    # ... but row i of a 1 x 64 tile reads exactly row i of the source (i ^ j covers 0..63): a 1 x 64 box,
    # and a 16 x 64 tile the 16 x 64 box of its own rows.
    assert ((16, 64), (16, 64)) in access_plan.boxes(swizzle, 64)
    tiled = (((i // 8) * 8 + j // 8) * 64 + (i % 8) * 8 + j % 8).reshape(-1)  # 8 x 8 tiles, row-major inside
    assert access_plan.contiguity(tiled, 64) == (1, 8)
    broken = tiled.copy()
    broken[[4, 5, 6, 7]] = broken[[6, 7, 4, 5]]  # 0 1 2 3 6 7 4 5: pairs stay runs, quads do not
    assert access_plan.contiguity(broken, 64) == (1, 2)
    broken = swizzle.copy()
    far = 63 * 64 + 7
    broken[[3, far]] = broken[[far, 3]]  # one element of row 0 now comes from row 63: no box of 16 rows holds
    assert ((16, 64), (16, 64)) not in access_plan.boxes(broken, 64)


def test_a_box_tile_that_does_not_divide_the_index_space_is_not_fused():
    """A box kernel has no masks (each tile is one whole checked box): a box tile that leaves a remainder row or
    column must be refused with NotFusable (the caller's fallback), never emitted as a kernel that skips it."""
    import lego
    from lego.backend import triton_layout

    program = lego.ColMajor((64, 64))._compiled
    whole = {"BR": 32, "BC": 32, "BRS": 32, "BCS": 32, "num_warps": 4}
    assert "tl.gather" in triton_layout.emit_source(program, tile=whole)[0]
    for br, bc in ((24, 32), (32, 48), (64, 128)):
        with pytest.raises(triton_layout.NotFusable, match="does not divide the index space"):
            triton_layout.emit_source(program, tile=dict(whole, BR=br, BC=bc, BRS=br, BCS=bc))


BOX_SCRIPT = textwrap.dedent("""
    import numpy as np, torch, lego
    from lego.backend import triton_layout, access_plan
    from lego.backend.compiler import program_table, compile_inverse_program

    runs = 0
    for layout in (lego.Swizzle((64, 64)), lego.ZCurve((64, 64)), lego.ColMajor((64, 64)),
                   lego.TiledPermute((64, 64), (8, 8))):
        for program in (layout._compiled, compile_inverse_program(layout._layout, layout._bindings, layout._compiled)):
            table = program_table(program)
            x = torch.randn(program.numel)
            want = x[torch.as_tensor(table)]  # the gather dst[k] = src[off(k)], from the table
            program.contiguity = access_plan.contiguity(table, program.dims[-1])
            source, _ = triton_layout.emit_source(program)
            if program.contiguity != (1, 1):
                assert "tl.max_contiguous" in source, program.contiguity
            dst = torch.empty_like(x)
            triton_layout._run((program, True, triton_layout.TILE), x, dst, 1)
            assert torch.equal(dst, want), ("hinted", layout)
            for (br, bc), (brs, bcs) in access_plan.boxes(table, program.dims[-1]):
                tile = {"BR": br, "BC": bc, "BRS": brs, "BCS": bcs, "num_warps": 4}
                assert "tl.gather" in triton_layout.emit_source(program, tile=tile)[0]
                dst = torch.full_like(x, float("nan"))
                triton_layout._run((program, True, tile), x, dst, 1)
                assert torch.equal(dst, want), ("box", layout, tile)
                runs += 1
    assert runs >= 8, runs
    print("box ok", runs)
""")


def test_box_and_hinted_kernels_match_the_table_under_the_interpreter(tmp_path):
    assert "box ok" in _under_the_interpreter(BOX_SCRIPT, tmp_path)


class _FakeTriton:
    """Stands in for Triton on CPU tensors: the JIT kernel (``kernel[grid](..., GATHER=, BR=, BC=, num_warps=)``,
    which returns the compiled binary) and the binary's runner (``binary[grid](src, dst, GATHER, BR, BC)``). Both
    move the data by the program's table, so a launcher that passed the wrong constants gives a wrong result; both
    record which path ran."""

    def __init__(self):
        self.calls = []

    def move(self, program, src, dst, gather):
        from lego.backend.compiler import program_table

        table = torch.as_tensor(program_table(program))
        if gather:
            dst.copy_(src[table])
        else:
            dst[table] = src

    def kernel_for(self, program, batch=1, tile=None):
        fake = self

        class Binary:
            def __getitem__(self, grid):
                def runner(src, dst, gather, br, bc):
                    fake.calls.append(("runner", grid, br, bc))
                    fake.move(program, src, dst, gather)
                return runner

        class Kernel:
            def __getitem__(self, grid):
                def dispatch(src, dst, GATHER, BR, BC, num_warps):
                    fake.calls.append(("dispatch", grid, BR, BC))
                    fake.move(program, src, dst, GATHER)
                    return Binary()
                return dispatch

        return Kernel(), {"grid": 3, "BR": 16, "BC": 32, "num_warps": 4}

    def paths(self):
        paths = [call[0] for call in self.calls]
        self.calls.clear()
        return paths


@pytest.fixture
def fake_triton(monkeypatch):
    from lego.backend import triton_layout

    fake = _FakeTriton()
    triton_layout.clear_cache()
    monkeypatch.setenv("LEGO_TRITON_LAYOUT", "1")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setattr(triton_layout, "kernel_for", fake.kernel_for)
    monkeypatch.setattr(triton_layout, "_on_current_device", lambda src: True)
    yield fake
    triton_layout.clear_cache()


def test_later_moves_launch_the_compiled_binary_directly(fake_triton):
    import lego
    from lego.backend import triton_layout

    layout = lego.ColMajor((8, 16))
    x = torch.arange(128, dtype=torch.float32).reshape(8, 16)
    want = torch.as_tensor(layout.transform(x.numpy()))
    for expected in (["dispatch"], ["runner"], ["runner"]):
        assert torch.equal(layout.transform(x), want)
        assert fake_triton.paths() == expected
    # The scatter direction runs as the gather through the checked inverse map: its own launcher.
    for expected in (["dispatch"], ["runner"]):
        assert torch.equal(layout.inverse_transform(want), x)
        assert fake_triton.paths() == expected
    # Another element type: Triton compiles another binary, so the first call dispatches again.
    for expected in (["dispatch"], ["runner"]):
        assert torch.equal(layout.transform(x.half()), want.half())
        assert fake_triton.paths() == expected
    # A source not aligned to 16 bytes does not match the binary's pointer specialization: full path.
    shifted = torch.arange(129, dtype=torch.float32)[1:].sub_(1)
    assert shifted.data_ptr() % 16
    assert torch.equal(layout.transform(shifted.reshape(8, 16)), want)
    assert fake_triton.paths() == ["dispatch"]
    # A gradient wanted: the autograd Function runs (its forward may use the launcher) and the gradient is right.
    leaf = x.clone().requires_grad_()
    out = layout.transform(leaf)
    assert out.grad_fn is not None and torch.equal(out.detach(), want)
    weight = torch.randn(8, 16)
    (out * weight).sum().backward()
    assert torch.equal(leaf.grad, torch.as_tensor(layout.inverse_transform(weight.numpy())))
    fake_triton.paths()
    triton_layout.clear_cache()
    layout.transform(x)
    assert fake_triton.paths() == ["dispatch"], "clear_cache keeps a launcher"


def test_no_launcher_is_kept_for_an_untuned_default(fake_triton, monkeypatch):
    import lego
    from lego.backend import triton_layout

    # Big enough to want tuning, which cannot run here (CPU tensors): the default tile serves, every time
    # through the full path, so the first call on a GPU later still tunes.
    monkeypatch.setattr(triton_layout, "TUNE_MIN_NUMEL", 1)
    layout = lego.ColMajor((8, 16))
    x = torch.arange(128, dtype=torch.float32).reshape(8, 16)
    for _ in range(3):
        assert torch.equal(layout.transform(x), torch.as_tensor(layout.transform(x.numpy())))
    assert fake_triton.paths() == ["dispatch"] * 3
    assert not triton_layout._LAUNCHERS
