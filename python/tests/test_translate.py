"""lego.translate(layout, language): compilable index functions in lego-translate's ten languages, printed by
lego-translate's own printers. Expected values by hand (the tiled 8x8 of the published API, §1.7:
``(2bx + i)·8 + 2by + j``) and from the definitions of Row / Col; the generated code is run (Python, JavaScript)
or compiled and run (C, C++, Rust, Fortran)."""

import itertools
import shutil
import subprocess
import warnings

import pytest
import sympy as sp

import lego
from lego import Col, GenP, LegoError, OrderBy, Row

M, N = sp.symbols("M N", integer=True, positive=True)

TILED = OrderBy(Row(8, 8)).TileBy([4, 4], [2, 2])


def tiled_expected(bx, by, i, j):
    return (2 * bx + i) * 8 + 2 * by + j


TILED_POINTS = list(itertools.product(range(4), range(4), range(2), range(2)))


def test_every_language_translates():
    assert set(lego._translate.LANGUAGES) == {"cuda", "c", "cpp", "rust", "fortran", "julia", "js", "glsl", "wgsl",
                                              "python"}
    signatures = {
        "c": "static inline uint64_t apply_t(uint64_t i0, uint64_t i1, uint64_t i2, uint64_t i3)",
        "cpp": "inline std::uint64_t apply_t(std::uint64_t i0",
        "cuda": "__host__ __device__ inline unsigned long long apply_t(",
        "rust": "pub fn apply_t(i0: u64, i1: u64, i2: u64, i3: u64) -> u64",
        "fortran": "pure function apply_t(i0, i1, i2, i3) result(r)",
        "julia": "function apply_t(i0::UInt64, i1::UInt64, i2::UInt64, i3::UInt64)::UInt64",
        "js": "function apply_t(i0, i1, i2, i3)",
        "glsl": "uint apply_t(uint i0, uint i1, uint i2, uint i3)",
        "wgsl": "fn apply_t(i0: u32, i1: u32, i2: u32, i3: u32) -> u32",
        "python": "def apply_t(i0, i1, i2, i3):",
    }
    for language, signature in signatures.items():
        text = lego.translate(TILED, language, name="t")
        assert signature in text, (language, text)
        assert "apply_inverse_t" in text, language
        # The domain comment of lego-translate (read from the layout before lowering).
        assert "i0 < 4, i1 < 4, i2 < 2, i3 < 2" in text, language


def test_language_aliases():
    assert lego.translate(TILED, "C++") == lego.translate(TILED, "cpp")
    assert lego.translate(TILED, "javascript") == lego.translate(TILED, "js")


def run_python(text):
    namespace = {}
    exec(compile(text, "<translated>", "exec"), namespace)
    return namespace


def test_python_output_runs_and_matches():
    namespace = run_python(lego.translate(TILED, "python", name="t"))
    for point in TILED_POINTS:
        assert namespace["apply_t"](*point) == tiled_expected(*point)
        assert tuple(namespace["apply_inverse_t"](tiled_expected(*point))) == point


def test_symbolic_sizes_become_trailing_parameters():
    text = lego.translate(OrderBy(Row(M, N)).GroupBy([(M, N)]), "python", name="rm")
    assert "def apply_rm(i0, i1, M, N):" in text
    assert "def apply_inverse_rm(flat, M, N):" in text
    namespace = run_python(text)
    assert namespace["apply_rm"](2, 3, 5, 7) == 2 * 7 + 3
    assert tuple(namespace["apply_inverse_rm"](17, 5, 7)) == (2, 3)


def test_col_major_in_javascript():
    node = shutil.which("node")
    assert node, "node is needed (make setup installs it)"
    text = lego.translate(OrderBy(Col(3, 5)).GroupBy([(3, 5)]), "js", name="cm")
    script = text + "\nconst out = [];\nfor (let i = 0; i < 3; i++) for (let j = 0; j < 5; j++) out.push(apply_cm(i, j));\n" \
                    "for (let x = 0; x < 15; x++) out.push(apply_inverse_cm(x).join(':'));\nconsole.log(out.join(' '));\n"
    printed = subprocess.run([node, "-e", script], capture_output=True, text=True, check=True).stdout.split()
    assert printed[:15] == [str(i + 3 * j) for i in range(3) for j in range(5)]
    assert printed[15:] == [f"{x % 3}:{x // 3}" for x in range(15)]


def compile_and_run(tmp_path, language, text, main, suffix, command):
    source = tmp_path / f"translated{suffix}"
    source.write_text(text + main)
    binary = tmp_path / "translated"
    tool = shutil.which(command[0])
    assert tool, f"{command[0]} is needed (make setup installs it)"
    subprocess.run([tool, *command[1:], str(source), "-o", str(binary)], check=True, capture_output=True, cwd=tmp_path)
    return subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout.split()


EXPECTED_TABLE = [str(tiled_expected(*point)) for point in TILED_POINTS]
EXPECTED_INVERSE = [":".join(map(str, point)) for point in TILED_POINTS]


def test_c_output_compiles_and_matches(tmp_path):
    main = r"""
#include <stdio.h>
int main(void) {
  for (uint64_t a = 0; a < 4; a++) for (uint64_t b = 0; b < 4; b++) for (uint64_t c = 0; c < 2; c++)
    for (uint64_t d = 0; d < 2; d++) printf("%llu\n", (unsigned long long)apply_t(a, b, c, d));
  for (uint64_t a = 0; a < 4; a++) for (uint64_t b = 0; b < 4; b++) for (uint64_t c = 0; c < 2; c++)
    for (uint64_t d = 0; d < 2; d++) {
      uint64_t r0, r1, r2, r3;
      apply_inverse_t(apply_t(a, b, c, d), &r0, &r1, &r2, &r3);
      printf("%llu:%llu:%llu:%llu\n", (unsigned long long)r0, (unsigned long long)r1, (unsigned long long)r2,
             (unsigned long long)r3);
    }
  return 0;
}
"""
    out = compile_and_run(tmp_path, "c", lego.translate(TILED, "c", name="t"), main, ".c", ["cc", "-std=c99", "-Wall", "-Werror"])
    assert out == EXPECTED_TABLE + EXPECTED_INVERSE


def test_cpp_output_compiles_and_matches(tmp_path):
    main = r"""
#include <cstdio>
int main() {
  for (std::uint64_t a = 0; a < 4; a++) for (std::uint64_t b = 0; b < 4; b++) for (std::uint64_t c = 0; c < 2; c++)
    for (std::uint64_t d = 0; d < 2; d++) {
      auto [r0, r1, r2, r3] = apply_inverse_t(apply_t(a, b, c, d));
      std::printf("%llu %llu:%llu:%llu:%llu\n", (unsigned long long)apply_t(a, b, c, d), (unsigned long long)r0,
                  (unsigned long long)r1, (unsigned long long)r2, (unsigned long long)r3);
    }
}
"""
    out = compile_and_run(tmp_path, "cpp", lego.translate(TILED, "cpp", name="t"), main, ".cpp", ["c++", "-std=c++17"])
    assert out[0::2] == EXPECTED_TABLE and out[1::2] == EXPECTED_INVERSE


@pytest.mark.needs_rust_toolchain
def test_rust_output_compiles_and_matches(tmp_path):
    main = r"""
fn main() {
    for a in 0..4u64 { for b in 0..4u64 { for c in 0..2u64 { for d in 0..2u64 {
        let (r0, r1, r2, r3) = apply_inverse_t(apply_t(a, b, c, d));
        println!("{} {}:{}:{}:{}", apply_t(a, b, c, d), r0, r1, r2, r3);
    }}}}
}
"""
    out = compile_and_run(tmp_path, "rust", lego.translate(TILED, "rust", name="t"), main, ".rs", ["rustc", "--edition", "2021"])
    assert out[0::2] == EXPECTED_TABLE and out[1::2] == EXPECTED_INVERSE


def test_fortran_output_compiles_and_matches(tmp_path):
    main = """
program main
  use lego_t
  use, intrinsic :: iso_fortran_env, only: int64
  implicit none
  integer(int64) :: a, b, c, d, r0, r1, r2, r3
  do a = 0, 3; do b = 0, 3; do c = 0, 1; do d = 0, 1
    call apply_inverse_t(apply_t(a, b, c, d), r0, r1, r2, r3)
    print '(I0, 1X, I0, ":", I0, ":", I0, ":", I0)', apply_t(a, b, c, d), r0, r1, r2, r3
  end do; end do; end do; end do
end program main
"""
    text = lego.translate(TILED, "fortran", name="t")
    assert "module lego_t" in text
    out = compile_and_run(tmp_path, "fortran", text, main, ".f90", ["gfortran"])
    assert out[0::2] == EXPECTED_TABLE and out[1::2] == EXPECTED_INVERSE


def test_apply_only_gen_p_has_no_inverse_function():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        layout = GenP((4,), lambda a: sp.Piecewise((a[0], a[0] < 2), (5 - a[0], True)))
    text = lego.translate(layout, "python", name="g")
    assert "apply_inverse_g" not in text
    assert [run_python(text)["apply_g"](k) for k in range(4)] == [0, 1, 3, 2]
    with pytest.raises(ValueError, match="no inverse"):
        lego.translate(layout, "python", inverse=True)


def test_translate_errors():
    with pytest.raises(ValueError, match="unknown language 'cobol'.*cuda, c, cpp"):
        lego.translate(TILED, "cobol")
    with pytest.raises(ValueError, match="index-bitwidth"):
        lego.translate(TILED, "rust", index_bitwidth=32)
    with pytest.raises(TypeError, match="is not a layout"):
        lego.translate("Row(4)", "c")
    with pytest.raises(ValueError, match="identifier"):
        lego.translate(TILED, "c", name="not a name")
    # A layout too large for GLSL's 32-bit uint: the printer's located diagnostic, as a LegoError.
    big = OrderBy(Row(2**20, 2**13)).GroupBy([(2**20, 2**13)])
    with pytest.raises(LegoError, match="GLSL"):
        lego.translate(big, "glsl")
    # A layout that does not verify.
    from lego import GroupBy
    with pytest.raises(LegoError, match="does not match the number of elements"):
        lego.translate(GroupBy([(4, 8)], [OrderBy(Row(3, 5))]), "c")


def test_assert_bounds_checks_the_domain():
    namespace = run_python(lego.translate(TILED, "python", name="t", assert_bounds=True))
    assert namespace["apply_t"](3, 3, 1, 1) == tiled_expected(3, 3, 1, 1)
    with pytest.raises(Exception, match="i0 < 4"):
        namespace["apply_t"](4, 0, 0, 0)


def test_cuda_output_runs_as_host_code(tmp_path):
    # __host__ __device__ functions are host functions too (as lego-translate's own tests run them).
    main = r"""
#include <cstdio>
int main() {
  for (unsigned long long a = 0; a < 4; a++) for (unsigned long long b = 0; b < 4; b++)
    for (unsigned long long c = 0; c < 2; c++) for (unsigned long long d = 0; d < 2; d++) {
      unsigned long long r0, r1, r2, r3;
      apply_inverse_t(apply_t(a, b, c, d), r0, r1, r2, r3);
      std::printf("%llu %llu:%llu:%llu:%llu\n", apply_t(a, b, c, d), r0, r1, r2, r3);
    }
}
"""
    text = "#define __host__\n#define __device__\n" + lego.translate(TILED, "cuda", name="t")
    out = compile_and_run(tmp_path, "cuda", text, main, ".cpp", ["c++", "-std=c++17"])
    assert out[0::2] == EXPECTED_TABLE and out[1::2] == EXPECTED_INVERSE


def test_glsl_and_wgsl_output_validate(tmp_path):
    glslang, naga = shutil.which("glslangValidator"), shutil.which("naga")
    assert glslang and naga, "glslangValidator and naga are needed (make setup installs them)"
    glsl = ("#version 450\n" + lego.translate(TILED, "glsl", name="t")
            + "\nlayout(local_size_x = 64) in;\nlayout(std430, binding = 0) buffer Data { uint d[]; };\n"
              "void main() {\n  uint r0, r1, r2, r3;\n  apply_inverse_t(apply_t(d[0], d[1], d[2], d[3]), r0, r1, r2, r3);\n"
              "  d[4] = r0 + r1 + r2 + r3;\n}\n")
    (tmp_path / "t.comp").write_text(glsl)
    subprocess.run([glslang, str(tmp_path / "t.comp")], check=True, capture_output=True)
    wgsl = (lego.translate(TILED, "wgsl", name="t")
            + "\n@group(0) @binding(0) var<storage, read_write> d: array<u32>;\n@compute @workgroup_size(64)\n"
              "fn main() {\n  d[4] = apply_inverse_t(apply_t(d[0], d[1], d[2], d[3])).r0;\n}\n")
    (tmp_path / "t.wgsl").write_text(wgsl)
    subprocess.run([naga, str(tmp_path / "t.wgsl")], check=True, capture_output=True)


def test_translate_accepts_a_lego_layout():
    assert lego.translate(lego.ColMajor((4, 8)), "python", name="c") == \
        lego.translate(lego.ColMajor((4, 8)).layout, "python", name="c")
    namespace = run_python(lego.translate(lego.ColMajor((4, 8)), "python", name="c"))
    assert [namespace["apply_c"](i, j) for i in range(4) for j in range(8)] == \
        [i + 4 * j for i in range(4) for j in range(8)]
