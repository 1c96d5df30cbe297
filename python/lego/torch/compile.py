"""The ``torch.compile`` backend ``"lego"`` (the published API, §2.7): ``torch.compile(fn, backend="lego")``
after ``import lego.torch.compile`` (``import lego.torch`` imports it). The backend records the layouts of the
LegoTensor inputs, runs the planner (:func:`lego.torch.planner.plan_layouts`), materialises the inputs as their
plain data, compiles the graph with inductor's ``compile_fx``, and at call time unwraps LegoTensors to their
``_data``: results equal eager execution on the plain data (physical data stays in physical order). At import it
registers ``lego::mm`` / ``lego::bmm`` as inductor fallbacks (they run as the custom ops)."""

from __future__ import annotations

from typing import Any, Callable, Dict, List

import torch

from . import ops as _ops  # noqa: F401 (torch.ops.lego.*)
from .planner import plan_layouts
from .tensor import LegoTensor

__all__ = ["lego_backend", "last_layout_map"]

last_layout_map: Dict[str, Any] = {}
"""The layout map of the most recent compilation (for inspection)."""


def _plain(value: Any) -> Any:
    return value._data if isinstance(value, LegoTensor) else value


def lego_backend(gm: torch.fx.GraphModule, example_inputs: List[Any]) -> Callable[..., Any]:
    from torch._inductor.compile_fx import compile_fx

    placeholders = [node for node in gm.graph.nodes if node.op == "placeholder"]
    layout_map: Dict[str, Any] = {}
    for node, example in zip(placeholders, example_inputs):
        if isinstance(example, LegoTensor):
            layout_map[node.name] = example.lego_layout
    plan_layouts(gm, layout_map)
    last_layout_map.clear()
    last_layout_map.update(layout_map)
    compiled = compile_fx(gm, [_plain(example) for example in example_inputs])

    def run(*args: Any) -> Any:
        return compiled(*[_plain(arg) for arg in args])

    return run


def _register_fallbacks() -> None:
    try:
        from torch._inductor.lowering import make_fallback

        for op in (torch.ops.lego.mm.default, torch.ops.lego.bmm.default):
            try:
                make_fallback(op)
            except (AssertionError, RuntimeError, ValueError):
                pass  # already a fallback (custom ops are, by default, in recent torch)
    except ImportError:
        pass


_register_fallbacks()


def _register_backend() -> None:
    """Registers ``"lego"`` with dynamo exactly once, whatever the import order of lego and torch.

    Two routes lead here. (1) ``import torch`` then ``import lego`` (or ``import lego.torch``): this module is
    imported eagerly and registers the name. (2) ``import lego`` then ``import torch`` then
    ``torch.compile(backend="lego")``: dynamo finds the name through the ``torch_dynamo_backends`` entry point
    of the installed package, imports this module to load ``lego_backend`` and then registers it itself —
    registering here as well made dynamo fail with ``AssertionError: duplicate name: lego``. So: register
    unless the name is registered already or dynamo holds an entry point for it (route 2: dynamo registers
    the loaded function right after this import)."""
    from torch._dynamo.backends import registry

    compiler_fns = getattr(registry, "_COMPILER_FNS", None)
    backends = getattr(registry, "_BACKENDS", None)
    if compiler_fns is None or backends is None:  # a dynamo without these tables: register, tolerate a repeat
        try:
            registry.register_backend(compiler_fn=lego_backend, name="lego")
        except AssertionError:
            pass
        return
    if "lego" in compiler_fns or backends.get("lego") is not None:
        return
    registry.register_backend(compiler_fn=lego_backend, name="lego")


_register_backend()
