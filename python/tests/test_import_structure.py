"""lego.core, lego.backend.compiler and lego.frontends.python_mlir import each other in one direction only
(issue 35, item 7): python_mlir → compiler → core, python_mlir → core. Checked two ways: an AST scan of every
import statement in the three files (module level and inside functions), and each module imported first in a
fresh interpreter, with GroupBy.transform (core's method that compiles through the backend) still working."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import lego

PACKAGE = Path(lego.__file__).resolve().parent
MODULES = {
    "lego.core": PACKAGE / "core.py",
    "lego.backend.compiler": PACKAGE / "backend" / "compiler.py",
    "lego.frontends.python_mlir": PACKAGE / "frontends" / "python_mlir.py",
}
ALLOWED = {("lego.frontends.python_mlir", "lego.backend.compiler"), ("lego.frontends.python_mlir", "lego.core"),
           ("lego.backend.compiler", "lego.core")}


def imported_modules(module, path):
    """Every module named by an import anywhere in ``path`` (relative imports resolved against ``module``)."""
    package = module.rsplit(".", 1)[0].split(".")
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package[:len(package) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}  # `from ..backend import compiler`
    return found


def edges():
    return {(source, target) for source, path in MODULES.items() for target in imported_modules(source, path)
            if target in MODULES and target != source}


def test_imports_among_the_three_go_one_way():
    assert edges() <= ALLOWED, sorted(edges() - ALLOWED)


def test_the_scan_sees_function_level_imports():
    # The scan must catch what the old cycle was: a function-level import inside core.
    source = "def f():\n    from .backend.compiler import get_compiler\n    from .frontends import python_mlir\n"
    path = Path(os.environ.get("TMPDIR", "/tmp")) / "lego_scan_probe.py"
    path.write_text(source)
    try:
        assert imported_modules("lego.core", path) >= {"lego.backend.compiler", "lego.frontends.python_mlir"}
    finally:
        path.unlink()


PROBE = """
import importlib, sys
import numpy as np
importlib.import_module(sys.argv[1])
from lego import GroupBy, OrderBy, Col
x = np.arange(6.0).reshape(2, 3)
layout = GroupBy([(2, 3)], [OrderBy(Col(2, 3))])
y = layout.transform(x)
# Col(2, 3): y.flat[k] = x.flat[i + 2·j] for k = 3·i + j (by hand: [[0, 2, 4], [1, 3, 5]]).
assert y.tolist() == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]], y
assert layout.inverse_transform(y).tolist() == x.tolist()
print("ok")
"""


@pytest.mark.parametrize("first", sorted(MODULES))
def test_each_module_imports_first_in_a_fresh_interpreter(first):
    result = subprocess.run([sys.executable, "-c", PROBE, first], capture_output=True, text=True, timeout=120,
                            env=dict(os.environ))
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr
