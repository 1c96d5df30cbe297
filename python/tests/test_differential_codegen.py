"""Differential test over 1 000 random layouts of lego-algebra's generator (crates/lego-algebra/src/random.rs):
each layout's full table ``[L(B⁻¹(k)) for k]`` comes from the algebra's interpreter
(``lego._lego.random_layout_tables``), and every path of the package must reproduce it at every index:

* ``L[i0, …]`` with symbolic indices (one lowering per layout), evaluated at every index; ``L.inv`` at a
  sampled flat position;
* ``LegoLayout.transform`` / ``create_tensor`` (NumPy path in Rust) and ``inverse_transform``;
* ``lego.translate(layout, "python")`` executed, apply at every index and the inverse at every position;
* a sample run as other languages: lego.translate's JavaScript (node), C (cc) and Rust (rustc) output, and the
  §3 printers' renderings of the symbolic ``L[...]`` (JavaScript, CUDA C as C, Rust), all in one program per
  language so the compile cost is paid once.

Run time is kept small for CI's 2 cores: one symbolic lowering and one translation per layout, one child process
per language."""

import itertools
import shutil
import subprocess

import numpy as np
import pytest
import sympy as sp

import lego
from lego import LegoLayout, _lego
from lego._printer_base import LEGOCCodePrinter, LEGOCUDACCodePrinter, LEGOJSCodePrinter, LEGORustCodePrinter
from lego.jit.printers import LEGOPythonCodePrinter
from test_differential import rebuild

COUNT = 1000
SEED = 2121
JS_SAMPLE = 100  # layouts also run as JavaScript
NATIVE_SAMPLE = 25  # layouts also compiled as C and Rust


def cases():
    return _lego.random_layout_tables(SEED, COUNT, max_numel=256)


def points(dims):
    return list(itertools.product(*[range(d) for d in dims]))


def unravel(flat, dims):
    return tuple(int(v) for v in np.unravel_index(flat, dims)) if dims else ()


@pytest.mark.needs_rust_toolchain  # compiles the generated Rust with rustc
def test_every_path_matches_the_reference_algebra(tmp_path):
    js_lines, c_functions, c_calls, rust_functions, rust_calls = [], [], [], [], []
    js_expected, native_expected, c_expected = [], [], []
    kinds = set()
    for n, (description, dims, table) in enumerate(cases()):
        kinds.add(description[0])
        dims = tuple(dims)
        layout = rebuild(description)
        where = (n, description, dims)
        every = points(dims)
        assert len(every) == len(table)

        # L[...] on symbolic indices, evaluated at every index.
        names = [sp.Symbol(f"i{k}", integer=True) for k in range(len(dims))]
        expr = layout[tuple(f"i{k}" for k in range(len(dims)))]
        # Printed by the package's Python printer: SymPy's own lambdify prints -6*Mod(i, 2) as "-6*i % 2".
        function = sp.lambdify(names, expr, modules="math", printer=LEGOPythonCodePrinter)
        assert [int(function(*p)) for p in every] == list(table), where
        # L.inv at one sampled position (a concrete lowering).
        flat = table[(7 * n) % len(table)]
        assert layout.inv(flat) == list(every[(7 * n) % len(table)]), where

        # The transform: the table is create_tensor; inverse_transform undoes transform.
        tensor_layout = LegoLayout(layout, dims)
        assert np.asarray(tensor_layout.create_tensor(np.int64)).reshape(-1).tolist() == list(table), where
        data = np.arange(len(table), dtype=np.float32) * 2 + 1
        assert np.array_equal(tensor_layout.inverse_transform(tensor_layout.transform(data)).reshape(-1), data), where

        # lego.translate's Python, run.
        namespace = {}
        exec(compile(lego.translate(layout, "python", name="f"), "<translated>", "exec"), namespace)
        assert [namespace["apply_f"](*p) for p in every] == list(table), where
        inverse = namespace["apply_inverse_f"]
        for k, value in enumerate(table):
            got = inverse(value)
            got = tuple(got) if isinstance(got, tuple) else (got,)
            assert got == every[k], where

        # Samples for the other languages.
        if n < JS_SAMPLE:
            js_lines.append(lego.translate(layout, "js", name=f"l{n}"))
            printed = LEGOJSCodePrinter().doprint(expr)
            params = ", ".join(str(s) for s in names)
            js_lines.append(f"function p{n}({params}) {{ return {printed}; }}")
            for k, p in enumerate(every):
                args = ", ".join(map(str, p))
                js_lines.append(f"out.push([apply_l{n}({args}), p{n}({args}), "
                                f"[apply_inverse_l{n}({table[k]})].flat().join(':')].join(' '));")
                js_expected.append(f"{table[k]} {table[k]} {':'.join(map(str, p))}")
        if n < NATIVE_SAMPLE:
            params_c = ", ".join(f"long long i{k}" for k in range(len(dims)))
            c_functions.append(lego.translate(layout, "c", name=f"l{n}").split("#include <stdint.h>", 1)[1])
            c_functions.append(f"static long long p{n}({params_c}) {{ return {LEGOCUDACCodePrinter().doprint(expr)}; }}")
            c_functions.append(f"static long long q{n}({params_c}) {{ return {LEGOCCodePrinter().doprint(expr)}; }}")
            params_r = ", ".join(f"i{k}: i64" for k in range(len(dims)))
            rust_functions.append(lego.translate(layout, "rust", name=f"l{n}"))
            rust_functions.append(f"#[allow(unused_parens)]\nfn p{n}({params_r}) -> i64 {{ {LEGORustCodePrinter().doprint(expr)} }}")
            for k, p in enumerate(every):
                args = ", ".join(map(str, p))
                c_calls.append(f'  printf("%llu %lld %lld\\n", (unsigned long long)apply_l{n}({args}), p{n}({args}), q{n}({args}));')
                rust_calls.append(f'    println!("{{}} {{}}", apply_l{n}({", ".join(f"{v}u64" for v in p)}), '
                                  f'p{n}({", ".join(f"{v}i64" for v in p)}));')
                native_expected.append(f"{table[k]} {table[k]}")
                c_expected.append(f"{table[k]} {table[k]} {table[k]}")
    # The generator reached every constructor the Python layer rebuilds.
    assert {"order_by", "group_by", "tile_by"} <= kinds

    node = shutil.which("node")
    assert node, "node is needed (make setup installs it)"
    script = "const out = [];\n" + "\n".join(js_lines) + "\nconsole.log(out.join('\\n'));\n"
    (tmp_path / "all.js").write_text(script)
    out = subprocess.run([node, str(tmp_path / "all.js")], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == js_expected

    cc = shutil.which("cc")
    assert cc, "cc is needed"
    c_source = ("#include <stdint.h>\n#include <stdio.h>\n" + "\n".join(c_functions)
                + "\nint main(void) {\n" + "\n".join(c_calls) + "\n  return 0;\n}\n")
    (tmp_path / "all.c").write_text(c_source)
    subprocess.run([cc, "-std=c99", "-O0", "all.c", "-o", "all_c"], check=True, capture_output=True, cwd=tmp_path)
    out = subprocess.run([str(tmp_path / "all_c")], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == c_expected

    rustc = shutil.which("rustc")
    assert rustc, "rustc is needed"
    rust_source = "\n".join(rust_functions) + "\nfn main() {\n" + "\n".join(rust_calls) + "\n}\n"
    (tmp_path / "all.rs").write_text(rust_source)
    subprocess.run([rustc, "--edition", "2021", "-C", "opt-level=0", "all.rs", "-o", "all_rs"], check=True,
                   capture_output=True, cwd=tmp_path)
    out = subprocess.run([str(tmp_path / "all_rs")], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == native_expected
