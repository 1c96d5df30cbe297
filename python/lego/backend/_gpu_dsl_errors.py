"""Located errors of the GPU kernel DSL (lego.backend.gpu_dsl).

The published DSL raises bare ``NotImplementedError`` / ``AssertionError`` / ``TypeError`` with the texts of
the contract (docs/gpu-dsl.md, "Diagnostics"); here each is *also* a ``SyntaxError`` carrying the kernel's file
and line, so ``except NotImplementedError`` keeps working and the message points at the offending line."""

from __future__ import annotations

from typing import Optional, Tuple


def _location(filename: str, line: int, col: int = 0, text: Optional[str] = None) -> Tuple[str, int, int, Optional[str]]:
    return (filename, line, col + 1, text)


class DSLNotImplemented(SyntaxError, NotImplementedError):
    """Python the kernel language does not have (``Statement Return``, ``Expr Lambda`` …)."""


class DSLAssertion(SyntaxError, AssertionError):
    """A construct used the wrong way (``Runtime while not supported — use for + range()`` …)."""


class DSLTypeError(SyntaxError, TypeError):
    """A value of the wrong type (``Unsupported type for 'x': <class 'list'>``, f32 where an index is needed …)."""


class DSLNameError(NameError):
    """``Undefined: <name>``; NameError cannot also be a SyntaxError (CPython layouts), so the location is in
    the message and in ``filename`` / ``lineno``."""

    def __init__(self, message: str, filename: str, lineno: int) -> None:
        super().__init__(f"{message} ({filename}, line {lineno})")
        self.filename, self.lineno = filename, lineno


class TargetFeatureError(ValueError):
    """A kernel uses a feature its compile target lacks; raised before any pipeline runs."""

    def __init__(self, target: str, feature: str, where: str) -> None:
        super().__init__(f"target '{target}' does not support {feature} (used at {where})")
        self.target, self.feature, self.where = target, feature, where


class NotEmulable(RuntimeError):
    """The kernel uses something the CPU emulation cannot run (barriers, warp operations, tensor cores)."""
