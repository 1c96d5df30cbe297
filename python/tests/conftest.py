"""Session checks shared by every test file.

`make wheel-test` runs these tests in a venv that has only the built wheel installed and sets
LEGO_EXPECT_PACKAGE_UNDER to that venv: the session then refuses to start unless the `lego` it imports is the
wheel's (not a source tree or another venv's copy), so a passing run really tested the wheel.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    # Tests whose oracle is a tool of the build machine that `make wheel-test` hides on purpose (it proves the
    # wheel needs none of them): deselected there by name (test/wheel/run-hidden.sh), run by `make pytest`.
    config.addinivalue_line("markers", "needs_rust_toolchain: compiles generated Rust with rustc")
    config.addinivalue_line("markers", "needs_wasm_ld: links a wasm32 object with wasm-ld (Debian's lld-22)")
    config.addinivalue_line("markers", "needs_host_compilers: builds C with gcc and clang-22 (the CPU dashboard)")


def pytest_sessionstart(session: pytest.Session) -> None:
    expected = os.environ.get("LEGO_EXPECT_PACKAGE_UNDER")
    if not expected:
        return
    import lego

    where = Path(lego.__file__).resolve()
    if not where.is_relative_to(Path(expected).resolve()):
        raise pytest.UsageError(f"imported lego from {where}, not from the venv under test {expected}")
