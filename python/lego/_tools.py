"""The console scripts ``lego-opt``, ``lego-translate`` and ``lego-studio`` that ``pip install`` puts on PATH.

Each runs the tool's driver inside the extension module (the module holds the one copy of MLIR and LLVM the
wheel carries; three more binaries would carry three more). The same as the tools built from the repository::

    $ lego-opt --version
    $ python -m lego._tools lego-opt examples/paper-fig2.mlir --lego-lower
"""

from __future__ import annotations

import sys
from typing import List, NoReturn, Optional

__all__ = ["lego_opt", "lego_translate", "lego_studio", "run"]

TOOLS = ("lego-opt", "lego-translate", "lego-studio")


def run(name: str, arguments: Optional[List[str]] = None) -> int:
    """Runs tool ``name`` with ``arguments`` (default: this process's ``sys.argv[1:]``); the exit status."""
    from lego import _lego

    if name not in TOOLS:
        raise ValueError(f"no tool {name!r}: the tools are {', '.join(TOOLS)}")
    args = list(sys.argv[1:] if arguments is None else arguments)
    # How the tool starts itself again (lego-studio's worker processes): this interpreter, this module.
    self_command = [sys.executable, "-m", "lego._tools", name]
    sys.stdout.flush()
    sys.stderr.flush()
    return int(_lego.run_tool(name, args, self_command))


def _main(name: str) -> NoReturn:
    try:
        status = run(name)
    except KeyboardInterrupt:
        status = 130
    sys.exit(status)


def lego_opt() -> NoReturn:
    """``lego-opt``: parse, verify, run passes (docs/README.md)."""
    _main("lego-opt")


def lego_translate() -> NoReturn:
    """``lego-translate``: layouts as index functions in ten languages."""
    _main("lego-translate")


def lego_studio() -> NoReturn:
    """``lego-studio``: draw a layout, or serve LEGO Studio."""
    _main("lego-studio")


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in TOOLS:
        sys.exit(f"usage: python -m lego._tools {{{'|'.join(TOOLS)}}} ARGUMENTS...")
    tool = sys.argv.pop(1)
    _main(tool)
