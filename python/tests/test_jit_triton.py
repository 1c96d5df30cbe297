"""Triton frontend (lego.jit, get_kernel_source): the generated source parses, its index expressions equal
lego-algebra's interpreter (lego._lego.algebra_eval) on concrete sizes, block pointers follow the rules of
docs/python.md, and the kernels RUN in Triton's CPU interpreter (TRITON_INTERPRET=1) against NumPy."""

import os

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported: kernels run on the CPU

import ast
import importlib.util
import json
import textwrap

import numpy as np
import pytest
import sympy as sp
import torch
import triton

import lego
from lego import _lego
from lego.jit.triton_jit import extract_block_ptr_metadata
from lego import Col, GenP, OrderBy, RegP, Row

from jit_kernels import triton_kernels as K


# --- helpers -----------------------------------------------------------------------------------------------

def algebra(layout, *index):
    return _lego.algebra_eval(json.dumps(layout), "apply", list(index))[0]


def algebra_inv(layout, flat):
    return _lego.algebra_eval(json.dumps(layout), "inv", [flat])


def tile(inner, *levels):
    return {"op": "tile_by", "inner": {"op": "order_by", "parts": [inner]}, "tile_dims": [list(l) for l in levels]}


class _TL:
    """What an index expression of generated Triton code needs, in NumPy."""
    arange = staticmethod(lambda a, b: np.arange(a, b))
    minimum = staticmethod(np.minimum)
    maximum = staticmethod(np.maximum)


def assignments(src):
    """name → value expression source, for every assignment of the generated function."""
    tree = ast.parse(src)
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            out.setdefault(node.targets[0].id, []).append(ast.unparse(node.value))
    return out


def value(expr_src, **values):
    return eval(expr_src, {"tl": _TL, "np": np}, dict(values))


# --- rewriting, checked against lego-algebra ---------------------------------------------------------------

def test_vecadd_source_and_values():
    src = lego.get_kernel_source(K.vecadd)
    ast.parse(src)
    assert "pid = tl.program_id(0)" in src
    assert "tl.load(" in src and "tl.store(" in src
    assert "OrderBy" not in src and "Row(" not in src and "L[" not in src
    offsets = assignments(src)["offsets"][0]
    N, B = 96, 32
    layout = tile({"op": "row", "dims": [N]}, [N // B], [B])
    for pid in range(N // B):
        got = value(offsets, BLOCK_SIZE=B, pid=pid)
        assert list(got) == [algebra(layout, pid, i) for i in range(B)]


def test_matmul_grouped_pid_order_and_tiles():
    src = lego.get_kernel_source(K.matmul)
    ast.parse(src)
    assert "L_pid" not in src and "L_A" not in src and "TileBy" not in src
    a = assignments(src)
    P, Q, GM = 4, 3, 2  # num_pid_m, num_pid_n
    pid_layout = {"op": "tile_by", "inner": {"op": "order_by", "parts": [
        {"op": "col", "dims": [max(P // GM, 1), 1]}, {"op": "col", "dims": [min(P, GM), Q]}]}, "tile_dims": [[P, Q]]}
    for pid in range(P * Q):
        # Triton's tutorial grouping, written out: the reference the layout must reproduce.
        group = pid // (GM * Q)
        first = group * GM
        size = min(P - first, GM)
        expected = (first + (pid % (GM * Q)) % size, (pid % (GM * Q)) // size)
        env = dict(pid=pid, GM=GM, num_pid_m=P, num_pid_n=Q)
        got = (value(a["pid_m"][0], **env), value(a["pid_n"][0], **env))
        assert got == expected
        assert list(got) == algebra_inv(pid_layout, pid)
    M, N, Kd, BM, BN, BK = 8, 12, 16, 4, 3, 8
    A = tile({"op": "row", "dims": [M, Kd]}, [M // BM, Kd // BK], [BM, BK])
    Bl = tile({"op": "row", "dims": [Kd, N]}, [Kd // BK, N // BN], [BK, BN])
    for pid_m in range(M // BM):
        for k in range(Kd // BK):
            got = value(a["a_ptrs"][0], a_ptr=0, M=M, K=Kd, BM=BM, BK=BK, pid_m=pid_m, k=k)
            want = np.array([[algebra(A, pid_m, k, i, j) for j in range(BK)] for i in range(BM)])
            assert (got == want).all()
    for pid_n in range(N // BN):
        got = value(a["b_ptrs"][0], b_ptr=0, N=N, K=Kd, BN=BN, BK=BK, pid_n=pid_n, k=1)
        want = np.array([[algebra(Bl, 1, pid_n, i, j) for j in range(BN)] for i in range(BK)])
        assert (got == want).all()


@pytest.mark.parametrize("kernel", [K.softmax, K.layernorm])
def test_row_kernels_source(kernel):
    src = lego.get_kernel_source(kernel)
    ast.parse(src)
    assert "OrderBy" not in src
    # L[row, cols] with cols a runtime tensor: n·row + cols
    calls = [n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Call) and ast.unparse(n.func) == "tl.store"]
    address = ast.unparse(calls[0].args[0])
    n_cols = 7
    for row in range(3):
        got = value(address, out_ptr=0, y_ptr=0, n_cols=n_cols, N=n_cols, row=row, cols=np.arange(n_cols))
        want = [algebra({"op": "row", "dims": [3, n_cols]}, row, c) for c in range(n_cols)]
        assert list(got) == want


# --- block pointers ----------------------------------------------------------------------------------------

def _kernel_from(tmp_path, name, body):
    path = tmp_path / f"{name}.py"
    path.write_text("import sympy as sp\nimport triton\nimport triton.language as tl\n"
                    "from lego import *\n\n@triton.jit\n" + textwrap.dedent(body))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def _block_ptr_calls(src):
    return [n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Call) and ast.unparse(n.func) == "tl.make_block_ptr"]


SIZES = dict(M=12, K=8, N=6, D=4, BM=4, BK=2, BN=3, BD=2)
INNER = dict(M=12, K=8, N=6, D=4)

# (Python layout text, dims names, algebra inner layout, expected strides as functions of the sizes, order)
CASES = [
    ("Row(M, K)", "MK", {"op": "row", "dims": [12, 8]}, lambda s: (s["K"], 1), (1, 0)),
    ("Col(M, K)", "MK", {"op": "col", "dims": [12, 8]}, lambda s: (1, s["M"]), (0, 1)),
    ("RegP((M, K), (1, 0))", "MK", {"op": "reg_p", "dims": [12, 8], "perm": [1, 0]}, lambda s: (1, s["M"]), (0, 1)),
    ("Row(M, K, N)", "MKN", {"op": "row", "dims": [12, 8, 6]}, lambda s: (s["K"] * s["N"], s["N"], 1), (2, 1, 0)),
    ("Col(M, K, N)", "MKN", {"op": "col", "dims": [12, 8, 6]}, lambda s: (1, s["M"], s["M"] * s["K"]), (0, 1, 2)),
    ("RegP((M, K, N), (2, 0, 1))", "MKN", {"op": "reg_p", "dims": [12, 8, 6], "perm": [2, 0, 1]},
     lambda s: (s["K"], 1, s["M"] * s["K"]), (1, 0, 2)),
    ("Row(M, K, N, D)", "MKND", {"op": "row", "dims": [12, 8, 6, 4]},
     lambda s: (s["K"] * s["N"] * s["D"], s["N"] * s["D"], s["D"], 1), (3, 2, 1, 0)),
    ("Row(M)", "M", {"op": "row", "dims": [12]}, lambda s: (1,), (0,)),
    ("GenP((M, K), lambda a: a[0] * K + a[1])", "MK", {"op": "row", "dims": [12, 8]}, lambda s: (s["K"], 1), (1, 0)),
]
BLOCK = {"M": "BM", "K": "BK", "N": "BN", "D": "BD"}
TILE = {"M": "t0", "K": "t1", "N": "t2", "D": "t3"}


@pytest.mark.parametrize("text,dims,inner,strides,order", CASES)
def test_block_pointer_cases(tmp_path, text, dims, inner, strides, order):
    grid = ", ".join(f"{d} / {BLOCK[d]}" for d in dims)
    blocks = ", ".join(BLOCK[d] for d in dims)
    tiles = ", ".join(TILE[d] for d in dims)
    params = ", ".join(sorted(set("MKND") | {"BM", "BK", "BN", "BD", "t0", "t1", "t2", "t3"}))
    kernel = _kernel_from(tmp_path, "bp", f"""
    def bp(p, q, {params}):
        L = OrderBy({text}).TileBy([{grid}], [{blocks}])
        ptrs = p + L[{tiles}, {", ".join(":" for _ in dims)}]
        x = tl.load(ptrs, mask=None)
        tl.store(q, x)
    """)
    src = lego.get_kernel_source(kernel, use_block_ptr=True)
    ast.parse(src)
    assert "tl.arange" not in src and "mask" not in src
    (call,) = _block_ptr_calls(src)
    kw = {k.arg: k.value for k in call.keywords}
    env = dict(SIZES, t0=1, t1=2, t2=1, t3=0)
    ev = lambda node: eval(ast.unparse(node), {}, env)
    assert ev(kw["shape"]) == tuple(INNER[d] for d in dims)
    assert ev(kw["strides"]) == strides(SIZES)
    assert ev(kw["order"]) == order
    assert ev(kw["block_shape"]) == tuple(SIZES[BLOCK[d]] for d in dims)
    # Element l of the block sits at Σ (offset_k + l_k)·stride_k: lego-algebra's flat of (tiles, l).
    offsets, block_strides = ev(kw["offsets"]), ev(kw["strides"])
    tile_index = [env[TILE[d]] for d in dims]
    layout = tile(inner, [INNER[d] // SIZES[BLOCK[d]] for d in dims], [SIZES[BLOCK[d]] for d in dims])
    for local in np.ndindex(*[SIZES[BLOCK[d]] for d in dims]):
        flat = sum((o + l) * s for o, l, s in zip(offsets, local, block_strides))
        assert flat == algebra(layout, *tile_index, *local)
    # Dims divide evenly: no boundary check.
    assert "boundary_check" not in src


M_, K_, BM_, BK_ = sp.symbols("M K BM BK", integer=True, positive=True)


@pytest.mark.parametrize("layout,subscripts", [
    (OrderBy(GenP((M_, K_), lambda a: (a[0] * a[1]) % (M_ * K_))).TileBy([M_ / BM_, K_ / BK_], [BM_, BK_]),
     (0, 0, slice(None), slice(None))),
    (OrderBy(Row(M_, K_), Row(K_, M_)).TileBy([M_ / BM_, K_ / BK_, K_ / BK_, M_ / BM_], [BM_, BK_, BK_, BM_]),
     (0, 0, 0, 0, slice(None), slice(None), slice(None), slice(None))),
    (OrderBy(Row(M_, K_)).TileBy([M_ / BM_, K_ / BK_], [BM_ / 2, BK_], [2, 1]), (0, 0, 0, 0, slice(None), slice(None))),
    (OrderBy(Row(M_, K_)).TileBy([M_ / BM_, K_ / BK_], [BM_, BK_]), (0, 0, slice(None))),
])
def test_block_pointer_rejected(layout, subscripts):
    assert extract_block_ptr_metadata(layout, subscripts) is None


def test_block_pointer_rejected_falls_back_to_pointer_arithmetic(tmp_path):
    kernel = _kernel_from(tmp_path, "nl", """
    def nl(p, M, K, BM, BK, t0, t1):
        L = OrderBy(GenP((M, K), lambda a: a[0] * K + (a[1] + a[0]) % K, lambda x: (x // K, (x - x // K) % K))).TileBy([M / BM, K / BK], [BM, BK])
        ptrs = p + L[t0, t1, :, :]
        tl.store(ptrs, 1)
    """)
    src = lego.get_kernel_source(kernel, use_block_ptr=True)
    assert "make_block_ptr" not in src and "tl.arange" in src
    # The swizzled address, against the definition at concrete sizes.
    got = value(assignments(src)["ptrs"][0], p=0, M=8, K=4, BM=2, BK=2, t0=1, t1=1)
    want = [[(2 + i) * 4 + ((2 + j) + (2 + i)) % 4 for j in range(2)] for i in range(2)]
    assert (got == np.array(want)).all()


def test_matmul_block_pointers_hoisted_with_advance():
    src = lego.get_kernel_source(K.matmul, use_block_ptr=True)
    tree = ast.parse(src)
    func = tree.body[0]
    loop = next(s for s in func.body if isinstance(s, ast.For))
    before = func.body[:func.body.index(loop)]
    after = func.body[func.body.index(loop) + 1:]
    names = lambda stmts: [s.targets[0].id for s in stmts if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name)]
    assert "a_ptrs" in names(before) and "b_ptrs" in names(before)
    assert "c_ptrs" in names(after)
    body = [ast.unparse(s) for s in loop.body]
    assert "a_ptrs = tl.advance(a_ptrs, (0, BK))" in body
    assert "b_ptrs = tl.advance(b_ptrs, (BK, 0))" in body
    # Hoisted offsets are the loop's first iteration (k = 0).
    (a_call,) = [c for c in _block_ptr_calls(src) if ast.unparse(c.keywords[0].value) == "a_ptr"]
    offsets = next(k.value for k in a_call.keywords if k.arg == "offsets")
    assert eval(ast.unparse(offsets), {}, dict(BM=4, pid_m=3)) == (12, 0)
    assert "tl.arange" not in src


def test_ceiling_grid_boundary_check_and_start_offset():
    src = lego.get_kernel_source(K.matmul_ceil, use_block_ptr=True)
    ast.parse(src)
    assert src.count("boundary_check=(0, 1)") == 3
    assert "mask" not in src
    # range(1, …): hoisted offsets at k = 1; the operands' order (L + ptr) does not matter.
    calls = {ast.unparse(c.keywords[0].value): c for c in _block_ptr_calls(src)}
    off = lambda c: eval(ast.unparse(next(k.value for k in c.keywords if k.arg == "offsets")), {},
                         dict(BM=4, BN=3, BK=2, pid_m=1, pid_n=2))
    assert off(calls["a_ptr"]) == (4, 2)
    assert off(calls["b_ptr"]) == (2, 6)


# --- kernels run in Triton's interpreter ---------------------------------------------------------------------

def test_vecadd_runs():
    kernel = lego.jit(K.vecadd)
    N = 100
    x = torch.arange(N, dtype=torch.float32)
    y = torch.full((N,), 0.5)
    z = torch.zeros(N)
    kernel[(triton.cdiv(N, 32),)](x, y, z, N, BLOCK_SIZE=32)
    np.testing.assert_allclose(z.numpy(), np.arange(N) + 0.5)


def test_matmul_runs_grouped():
    kernel = lego.jit(K.matmul)
    M, N, Kd = 32, 48, 32
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, Kd), dtype=np.float32)
    b = rng.standard_normal((Kd, N), dtype=np.float32)
    c = torch.zeros(M, N)
    kernel[((M // 16) * (N // 16),)](torch.from_numpy(a), torch.from_numpy(b), c, M, N, Kd, BM=16, BN=16, BK=16, GM=2)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)


def test_softmax_runs():
    kernel = lego.jit(K.softmax)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 13), dtype=np.float32)
    out = torch.zeros(5, 13)
    kernel[(5,)](out, torch.from_numpy(x), 5, 13, BLOCK=16)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out.numpy(), e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_layernorm_runs():
    kernel = lego.jit(K.layernorm)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 10), dtype=np.float32)
    w = rng.standard_normal(10, dtype=np.float32)
    b = rng.standard_normal(10, dtype=np.float32)
    y = torch.zeros(4, 10)
    kernel[(4,)](torch.from_numpy(x), y, torch.from_numpy(w), torch.from_numpy(b), 4, 10, 1e-5, BLOCK=16)
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    np.testing.assert_allclose(y.numpy(), (x - mean) / np.sqrt(var + 1e-5) * w + b, rtol=1e-4, atol=1e-5)


def test_autotune_wrapper_is_reapplied():
    tuned = triton.autotune(configs=[triton.Config({"BLOCK_SIZE": 32})], key=["N"])(K.vecadd)
    kernel = lego.jit(tuned)
    assert isinstance(kernel, triton.runtime.autotuner.Autotuner)
    N = 64
    x, y, z = torch.ones(N), torch.ones(N), torch.zeros(N)
    kernel[lambda meta: (triton.cdiv(N, meta["BLOCK_SIZE"]),)](x, y, z, N)
    np.testing.assert_allclose(z.numpy(), 2.0)


def test_decorator_forms():
    assert callable(lego.jit)
    kernel = lego.jit(use_block_ptr=True)(K.matmul)
    assert hasattr(kernel, "run")  # a Triton (interpreted) function
    assert lego.jit.triton_jit.TritonAdapter("auto").use_block_ptr == "auto"


def test_bench_sources_are_current():
    """bench/triton/generated/lego_generated.py (what the H100 ran) is exactly what lego.jit makes now."""
    import pathlib
    import sys

    bench = pathlib.Path(__file__).resolve().parents[2] / "bench" / "triton"
    sys.path.insert(0, str(bench))
    try:
        import generate
    finally:
        sys.path.remove(str(bench))
    assert generate.render() == (bench / "generated" / "lego_generated.py").read_text()


def test_bench_extra_sources_are_current():
    """bench/triton/generated/lego_blockptr.py and numba_generated.py (what the H100's second run ran) are
    exactly what lego.jit makes now, and every block-pointer kernel holds block pointers."""
    import pathlib
    import sys

    bench = pathlib.Path(__file__).resolve().parents[2] / "bench" / "triton"
    sys.path.insert(0, str(bench))
    try:
        import generate_extra
    finally:
        sys.path.remove(str(bench))
    blockptr, numba = generate_extra.render()
    assert blockptr == (bench / "generated" / "lego_blockptr.py").read_text()
    assert numba == (bench / "generated" / "numba_generated.py").read_text()
    tree = ast.parse(blockptr)
    kernels = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert len(kernels) == 6 and all("tl.make_block_ptr" in ast.unparse(k) for k in kernels)
