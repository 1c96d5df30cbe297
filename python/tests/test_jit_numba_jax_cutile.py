"""Numba CUDA (run by Numba's CUDA simulator, NUMBA_ENABLE_CUDASIM=1), JAX (on the CPU) and cuTile (source
only: cuTile needs NVIDIA's cuda-tile package and a GPU) frontends. Index expressions are checked against
lego-algebra's interpreter, results against NumPy."""

import os

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # before numba.cuda is imported
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import ast
import json

import numpy as np

from lego import _lego
from lego.jit import cutile_jit, get_cutile_kernel_source, jax_jit, numba_jit
from lego.jit._adapter import DSLAdapter

from jit_kernels import other_kernels as K


def algebra(layout, *index):
    return _lego.algebra_eval(json.dumps(layout), "apply", list(index))[0]


def assignment(src, name):
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name:
            return ast.unparse(node.value)
    raise AssertionError(f"no assignment to {name} in\n{src}")


def test_adapter_is_abstract():
    import pytest

    with pytest.raises(TypeError):
        DSLAdapter()


def test_numba_vecadd_source_and_run():
    src = numba_jit.get_kernel_source(K.numba_vecadd)
    ast.parse(src)
    assert "idx = i\n" in src and "OrderBy" not in src and "L =" not in src
    kernel = numba_jit.jit(K.numba_vecadd)
    N = 100
    x = np.arange(N, dtype=np.float32)
    y = np.full(N, 2.0, dtype=np.float32)
    z = np.zeros(N, dtype=np.float32)
    kernel[4, 32](x, y, z, N)
    np.testing.assert_allclose(z, x + 2.0)


def test_numba_transpose_indices_and_run():
    src = numba_jit.get_kernel_source(K.numba_transpose)
    tree = ast.parse(src)
    (store,) = [n for n in ast.walk(tree) if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Subscript)]
    out_index = ast.unparse(store.targets[0].slice)
    in_index = ast.unparse(store.value.slice)
    M, N = 3, 5
    for i in range(M):
        for j in range(N):
            assert eval(out_index, {}, dict(i=i, j=j, M=M, N=N)) == algebra({"op": "col", "dims": [M, N]}, i, j)
            assert eval(in_index, {}, dict(i=i, j=j, M=M, N=N)) == algebra({"op": "row", "dims": [M, N]}, i, j)
    kernel = numba_jit.jit(K.numba_transpose)
    a = np.arange(M * N, dtype=np.float32)
    out = np.zeros(M * N, dtype=np.float32)
    kernel[M, N](a, out, M, N)
    np.testing.assert_array_equal(out.reshape(N, M), a.reshape(M, N).T)


def test_numba_matmul_runs():
    kernel = numba_jit.jit(K.numba_matmul)
    rng = np.random.default_rng(3)
    M, N, Kd = 4, 6, 5
    a = rng.standard_normal(M * Kd).astype(np.float32)
    b = rng.standard_normal(Kd * N).astype(np.float32)
    c = np.zeros(M * N, dtype=np.float32)
    kernel[M, N](a, b, c, M, N, Kd)
    np.testing.assert_allclose(c.reshape(M, N), a.reshape(M, Kd) @ b.reshape(Kd, N), rtol=1e-5, atol=1e-5)


def test_jax_static_arguments_and_run():
    src = jax_jit.get_kernel_source(K.jax_col_gather)
    ast.parse(src)
    idx = assignment(src, "idx")
    assert "jnp.arange(0, M)" in idx and "jnp.arange(0, N)" in idx
    M, N = 3, 4
    got = eval(idx, {"jnp": np}, dict(M=M, N=N))
    assert got.tolist() == [[algebra({"op": "col", "dims": [M, N]}, i, j) for j in range(N)] for i in range(M)]
    fn = jax_jit.jit(K.jax_col_gather)
    x = np.arange(M * N, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(fn(x, M, N)), x.reshape(N, M).T)  # col-major read = transpose


def test_jax_static_argnames():
    src = jax_jit.get_kernel_source(K.jax_scale)
    assert "offs = jnp.arange(0, N)" in src
    fn = jax_jit.jit(K.jax_scale)
    np.testing.assert_array_equal(np.asarray(fn(np.ones(3, np.float32), N=3)), 2.0)


def test_cutile_source():
    src = get_cutile_kernel_source(K.cutile_copy_kernel)
    ast.parse(src)
    idx = assignment(src, "idx")
    assert "ct.arange(TILE, dtype=ct.int32)" in idx
    assert "OrderBy" not in src and "tl." not in src and "jnp." not in src

    class ct:
        int32 = None
        arange = staticmethod(lambda n, dtype=None: np.arange(n))

    TILE = 8
    layout = {"op": "tile_by", "inner": {"op": "order_by", "parts": [{"op": "row", "dims": [TILE * 64]}]},
              "tile_dims": [[64], [TILE]]}
    for bid in (0, 5, 63):
        got = eval(idx, {"ct": ct}, dict(TILE=TILE, bid=bid))
        assert got.tolist() == [algebra(layout, bid, t) for t in range(TILE)]
    # Same text through cutile_jit(return_source=True) on the bare function.
    assert cutile_jit(K.cutile_copy, return_source=True) == get_cutile_kernel_source(K.cutile_copy)


def test_unwrap_helpers_and_temp_file(tmp_path, monkeypatch):
    from lego.jit import _adapter as A

    class Fn:
        pass

    inner = lambda: 0  # noqa: E731
    outer, middle = Fn(), Fn()
    outer.fn, middle.fn = middle, inner
    assert A.try_fn_chain_unwrap(outer) == (inner, [outer, middle])
    assert A.try_fn_chain_unwrap(inner) == (inner, [])
    wrapped = Fn()
    wrapped.py_func = inner
    assert A.try_py_func_unwrap(wrapped) == (inner, [wrapped])
    wrapped.__wrapped__ = inner
    assert A.try_wrapped_unwrap(wrapped) == (inner, [wrapped])
    monkeypatch.setenv("LEGO_TEMP_DIR", str(tmp_path))
    monkeypatch.delenv("LEGO_SAVE_KERNEL", raising=False)
    source = "def k(a):\n    return a + 1\n"
    tree = ast.parse(source)
    assert A.write_and_exec_temp_file(source, tree, K.numba_matmul.py_func, return_source=True) == (source, None)
    assert list(tmp_path.iterdir()) == []  # removed unless LEGO_SAVE_KERNEL

    def k(a):
        return a

    namespace, fn = A.write_and_exec_temp_file(source, tree, k)
    assert fn(1) == 2 and fn.__code__.co_filename.startswith(str(tmp_path))


def test_lego_debug_prints_the_kernel(monkeypatch, capsys):
    monkeypatch.setenv("LEGO_DEBUG", "1")
    numba_jit.get_kernel_source(K.numba_vecadd)
    assert "def numba_vecadd" in capsys.readouterr().err


def test_gpu_ir_builder():
    from lego import OrderBy, Row
    from lego.jit import builders as B

    _, text = B.GPUIRBuilder(OrderBy(Row(4, 8)), (4, 8)).build_module()
    assert "gpu.launch" in text and "lego." in text and "arith.cmpi" in text
    words, _ = B.compile_to_spirv(B.GPUIRBuilder(OrderBy(Row(4, 8)), (4, 8)))
    assert words[0] == 0x07230203
