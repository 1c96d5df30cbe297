"""lego.compile and the kernel builders: every target compiles through lego-rs's pipelines (PTX text, AMDGCN
assembly, SPIR-V words validated by naga and converted to WGSL / MSL / GLSL, a wasm module run by node, the
CPU path); permutation tables are checked against lego-algebra's interpreter."""

import json
import shutil
import subprocess

import numpy as np
import pytest

import lego
from lego.backend.compiler import LayoutCompiler
from lego import Col, OrderBy, RegP, Row, _lego
from lego.jit import builders as B


def algebra(layout, *index):
    return _lego.algebra_eval(json.dumps(layout), "apply", list(index))[0]


TILED = OrderBy(Col(8, 16)).TileBy((2, 4), (4, 4))
TILED_JSON = {"op": "tile_by", "inner": {"op": "order_by", "parts": [{"op": "col", "dims": [8, 16]}]},
              "tile_dims": [[2, 4], [4, 4]]}


def test_permutation_kernel_module():
    builder = B.make_permutation_kernel(TILED, (8, 16))
    _, text = builder.build_module()
    assert "gpu.launch" in text and "lego.apply_inverse" in text and "lego.tile_by" in text
    assert "arith.cmpi ult" in text and "func.func @transform(" in text
    assert builder.grid == (2, 1, 1) and builder.block == (64, 1, 1)


def test_cuda_ptx():
    result = lego.compile(TILED, (8, 16), target="cuda", chip="sm_90", features="+ptx80", format="assembly")
    assert "llvm." in result.kernel_source
    ptx = result.metadata["assembly"]
    assert ".target sm_90" in ptx and ".visible .entry transform_kernel(" in ptx
    assert "ld.global" in ptx and "st.global" in ptx
    assert result.metadata["pipeline"] == "lego-to-nvvm" and result.metadata["chip"] == "sm_90"


def test_cuda_target_defaults_and_pipeline_strings():
    cuda = B._GPU_TARGETS["cuda"]
    assert cuda.pipeline_string(chip="sm_90", format="assembly", features="+ptx80") == \
        "builtin.module(lego-to-nvvm{chip=sm_90 format=assembly features=+ptx80})"
    assert B._GPU_TARGETS["rocm"].pipeline_string() == "builtin.module(lego-to-rocdl{chip=gfx900 format=assembly})"
    assert B._GPU_TARGETS["llvmspirv"].pipeline_string(opt_level=3).endswith("opt-level=3})")


def test_rocm_amdgcn(tmp_path):
    result = lego.compile(OrderBy(Row(16, 16)), (16, 16), target="rocm", output_dir=str(tmp_path), name="my_amd_kernel")
    assert "gpu.binary" in result.kernel_source and "rocdl.target" in result.kernel_source
    assert "amdgcn" in result.kernel_source and "my_amd_kernel" in result.kernel_path
    assert result.metadata["pipeline"] == "lego-to-rocdl"
    assert "transform_kernel:" in result.metadata["assembly"]


def test_llvmspirv():
    # As published: the gpu.module keeps its OpenCL-flavoured LLVM kernel (spir_kernelcc); format=bin serializes.
    result = lego.compile(OrderBy(Col(16, 16)), (16, 16), target="llvmspirv")
    assert "spir_kernelcc" in result.kernel_source and result.metadata["pipeline"] == "lego-to-llvmspirv"
    binary = lego.compile(OrderBy(Col(16, 16)), (16, 16), target="llvmspirv", format="bin")
    assert "gpu.binary" in binary.kernel_source


def test_spirv_family_validated_by_naga(tmp_path):
    words, lowered = B.compile_to_spirv(TILED, (8, 16))
    assert words[0] == 0x07230203
    results = lego.compile_all(TILED, (8, 16), output_dir=str(tmp_path))
    assert set(results) == {"vulkan", "webgpu", "metal", "webgl"}
    spv = {r.spv_path for r in results.values()}
    assert len(spv) == 1  # one .spv shared by every target
    assert B.naga_validate(results["vulkan"].spv_path)
    assert results["vulkan"].kernel_source.startswith("<binary SPIR-V: ")
    assert "@compute" in results["webgpu"].kernel_source and "@workgroup_size(64" in results["webgpu"].kernel_source
    assert "kernel void" in results["metal"].kernel_source
    glsl = results["webgl"].kernel_source
    assert "layout(local_size_x = 64" in glsl and "void main()" in glsl
    assert B.naga_validate(results["webgpu"].kernel_path)
    single = lego.compile(TILED, (8, 16), target="webgpu", output_dir=str(tmp_path / "one"))
    assert single.kernel_path.endswith(".wgsl")


def test_shared_memory_barrier_loop_kernel():
    """A KernelBuilder of its own: a 32-element tile staged through workgroup memory (reversed by a RegP
    layout), with a loop carrying a sum."""
    src = B.LayoutBuffer(OrderBy(Row(4, 32)), (4, 32))
    dst = B.LayoutBuffer(OrderBy(Col(4, 32)), (4, 32))
    tile = B.LayoutBuffer(OrderBy(RegP((32,), (0,))), (32,), shared=True)

    def body(ctx):
        row, col = ctx.block_id.x, ctx.thread_id.x
        ctx.store(ctx.load(src, [row, col]), tile, [col])
        ctx.barrier()
        zero = ctx.const_f32(0.0)
        (total,) = ctx.for_range(2, lambda k, acc: ctx.addf(acc, ctx.load(tile, [col])), init_vals=[(zero, "f32")])
        ctx.store(total, dst, [row, col])

    builder = B.KernelBuilder([src, dst, tile], body, name="staged", grid=(4,), block=(32,))
    assert builder.grid == (4, 1, 1) and builder.block == (32, 1, 1)
    ptx = builder.compile(target="cuda", chip="sm_80", features="+ptx70", format="assembly").metadata["assembly"]
    assert ".shared" in ptx and "bar.sync" in ptx
    words, _ = B.compile_to_spirv(builder)
    assert words[0] == 0x07230203


def test_elementwise_kernel():
    a = B.LayoutBuffer(OrderBy(Row(64)), (64,), "f32")
    b = B.LayoutBuffer(OrderBy(Row(64)), (64,), "f32")
    c = B.LayoutBuffer(OrderBy(Row(64)), (64,), "f32")
    builder = B.make_elementwise_kernel([a, b, c], lambda ctx, gid: ctx.store_raw(ctx.addf(ctx.load_raw(a), ctx.load_raw(b)), c))
    assert "add.rn.f32" in builder.compile(target="cuda", chip="sm_90", format="assembly").metadata["assembly"]


def test_load_raw_needs_gid():
    a = B.LayoutBuffer(OrderBy(Row(4)), (4,))
    with pytest.raises(ValueError):
        B.KernelBuilder([a], lambda ctx: ctx.load_raw(a)).build_module()


def test_cpu_layout_compiler_against_algebra():
    compiler = lego.compile(TILED, (8, 16), target="cpu")
    x = np.arange(128, dtype=np.float32)
    out = compiler.transform_numpy(x.reshape(8, 16))
    # transform: element gid of src lands at the row-major position of the logical index inv(L, gid);
    # equivalently out[logical] = src[L(logical)].
    for index in np.ndindex(2, 4, 4, 4):
        assert out.reshape(-1)[np.ravel_multi_index(index, (2, 4, 4, 4))] == algebra(TILED_JSON, *index)
    np.testing.assert_array_equal(compiler.inverse_transform_numpy(out), x.reshape(8, 16))
    assert compiler.compile() is compiler  # the tensor API's LayoutCompiler: one class for the package
    assert isinstance(compiler, LayoutCompiler) and B.LayoutCompiler is LayoutCompiler
    llvm = compiler.llvm_module()
    assert "llvm.func @roundtrip" in llvm and "lego." not in llvm


def test_cpu_symbolic_dims_resolved_or_error():
    import sympy as sp

    M, N = sp.symbols("M N", integer=True, positive=True)
    compiler = B.get_compiler(OrderBy(Row(M, N)), (3, 4))
    assert compiler.dims == (3, 4)
    # the symbolic forward map in LLVM: (M, N, i, j) -> i·N + j, the size symbols first (sorted by name)
    assert "llvm.func @roundtrip(%arg0: i64, %arg1: i64, %arg2: i64, %arg3: i64)" in compiler.llvm_module()
    assert "llvm.mul %arg2, %arg1" in compiler.llvm_module()
    with pytest.raises(ValueError, match="Cannot resolve symbolic dimension"):
        B.get_compiler(OrderBy(Row(M * N, 2)), (12, 2))


@pytest.mark.parametrize("target,pipeline", [("x86", "lego-to-x86-vector"), ("arm-neon", "lego-to-arm-neon"),
                                             ("arm-sve", "lego-to-arm-sve")])
def test_vector_cpu_targets_point_to_kernels(target, pipeline):
    with pytest.raises(ValueError, match=f"{pipeline}.*compiles loop kernels"):
        lego.compile(OrderBy(Row(4)), (4,), target=target)


def test_unknown_target():
    with pytest.raises(ValueError, match="Unknown target 'opencl'"):
        lego.compile(OrderBy(Row(4)), (4,), target="opencl")


@pytest.mark.needs_wasm_ld  # links the wasm32 object
def test_wasm_module_runs_in_node(tmp_path):
    wasm = lego.compile(TILED, (8, 16), target="wasm")
    assert wasm[:4] == b"\0asm"
    path = tmp_path / "apply.wasm"
    path.write_bytes(wasm)
    indices = [list(i) for i in np.ndindex(2, 4, 4, 4)][::7]
    script = (f"const m = new WebAssembly.Module(require('fs').readFileSync('{path}'));"
              "const i = new WebAssembly.Instance(m, {});"
              f"console.log(JSON.stringify({json.dumps(indices)}.map(x => Number(i.exports.apply(...x.map(BigInt))))));")
    out = subprocess.run([shutil.which("node") or "node", "-e", script], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [algebra(TILED_JSON, *i) for i in indices]


def test_compile_result_fields():
    r = B.CompileResult("cuda")
    assert r.kernel_path == "" and r.metadata == {}
    assert B.LayoutBuffer(OrderBy(Row(4, 4)), (4, 4), "i32").dtype is B.DType.i32
    assert B._dtype_to_mlir("nonsense") == "f32"


# --- GenP layouts inside the builders; build_module's handle --------------------------------------------------

from lego import GenP  # noqa: E402
from lego.backend.cpu_builder import CPUKernelBuilder  # noqa: E402

# rev(3, 2): both axes reversed, f(i, j) = (2 - i)·2 + (1 - j), inverse written by hand.
REV = GenP((3, 2), lambda a: (2 - a[0]) * 2 + (1 - a[1]), lambda x: (2 - x // 2, 1 - x % 2))
# a mixed radix with the inverse derived: f(a) = a0 + 4·a1 over (4, 8), inv(x) = (x mod 4, ⌊x/4⌋).
RADIX = GenP((4, 8), lambda a: a[0] + 4 * a[1])


def test_build_module_returns_the_verified_module():
    module, text = B.make_permutation_kernel(OrderBy(Row(4, 8)), (4, 8)).build_module()
    assert module.functions() == ["transform"]
    assert module.verify()
    names = module.operation_names()
    assert "gpu.launch" in names and "lego.apply_inverse" in names and names[0] == "builtin.module"
    assert "func.func @transform" in str(module) and "func.func @transform" in text
    lowered = module.run("builtin.module(lego-lower)")
    assert not any(n.startswith("lego.") for n in lowered.operation_names())


def test_genp_in_the_gpu_builder_compiles():
    module, text = B.make_permutation_kernel(RADIX, (4, 8)).build_module()
    assert "lego.gen_p [4, 8] apply" in text and "} inv (" in text
    result = lego.compile(REV, (3, 2), target="rocm")
    assert "amdgcn" in result.kernel_source and result.metadata["pipeline"] == "lego-to-rocdl"
    ptx = lego.compile(RADIX, (4, 8), target="cuda", format="assembly").metadata["assembly"]
    assert ".entry" in ptx or ".visible" in ptx


def _run_cpu(layout, dims, forward):
    """A CPU kernel storing src[flat] at out[row-major(inv(layout, flat))] (forward=False) or reading
    src[layout(i, j)] into out[i, j] (forward=True); run, returns out."""
    n = int(np.prod(dims))
    src, out = B.LayoutBuffer(None, (n,)), B.LayoutBuffer(None, (n,))
    row = OrderBy(Row(*dims))

    def body(ctx):
        def step(flat):
            if forward:
                idx = ctx.apply_inverse(row, flat)
                ctx.store_flat(ctx.load_flat(src, ctx.apply(layout, *idx)), out, flat)
            else:
                idx = ctx.apply_inverse(layout, flat)
                ctx.store_flat(ctx.load_flat(src, flat), out, ctx.apply(row, *idx))
        ctx.for_range(n, step)

    kernel = CPUKernelBuilder([src, out], body, name="genp").compile("scalar")
    x = np.arange(n, dtype=np.float32) + 100
    y = np.zeros(n, dtype=np.float32)
    kernel(x, y)
    return x, y


def test_genp_kernels_run_against_the_hand_formulas():
    x, y = _run_cpu(REV, (3, 2), forward=True)
    for i in range(3):
        for j in range(2):
            assert y[i * 2 + j] == x[(2 - i) * 2 + (1 - j)]
    x, y = _run_cpu(REV, (3, 2), forward=False)
    for flat in range(6):
        assert y[(2 - flat // 2) * 2 + (1 - flat % 2)] == x[flat]
    x, y = _run_cpu(RADIX, (4, 8), forward=False)  # the derived inverse, lowered
    for flat in range(32):
        assert y[(flat % 4) * 8 + flat // 4] == x[flat]
    x, y = _run_cpu(RADIX, (4, 8), forward=True)
    for i in range(4):
        for j in range(8):
            assert y[i * 8 + j] == x[i + 4 * j]
