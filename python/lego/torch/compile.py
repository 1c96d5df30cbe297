"""The ``torch.compile`` backend ``"lego"`` (the published API, §2.7): ``torch.compile(fn, backend="lego")``
after ``import lego.torch.compile`` (``import lego.torch`` imports it). The backend records the layouts of the
LegoTensor inputs, runs the planner (:func:`lego.torch.planner.plan_layouts`), materialises the inputs as their
plain data, compiles the graph with inductor's ``compile_fx``, and at call time unwraps LegoTensors to their
``_data``: results equal eager execution on the plain data (physical data stays in physical order). At import it
registers ``lego::mm`` / ``lego::bmm`` as inductor fallbacks (they run as the custom ops)."""

from __future__ import annotations

from typing import Any, Callable, Dict, List

import torch
from torch._dynamo import register_backend

from . import ops as _ops  # noqa: F401 (torch.ops.lego.*)
from .planner import plan_layouts
from .tensor import LegoTensor

__all__ = ["lego_backend", "last_layout_map"]

last_layout_map: Dict[str, Any] = {}
"""The layout map of the most recent compilation (for inspection)."""


def _plain(value: Any) -> Any:
    return value._data if isinstance(value, LegoTensor) else value


@register_backend(name="lego")
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
