"""The layout planner of the ``"lego"`` compile backend (the published API, §2.7): ``layout_cost(layout)`` (the
number of positions a layout moves: 0 for RowMajor) and ``plan_layouts(gm, layout_map)``, which propagates the
layouts of a graph's inputs (``layout_map``: node name → layout) through the nodes the dispatch tiers keep a
layout for — tier 1 (elementwise: the first input's layout), tier 2 (transposes: a ``TransposedLayout``) and
tier 4 (``mm``/``bmm``: the first operand's layout, as the published planner records it) — and recompiles the
graph module. Like the published planner it inserts no rearrangement (§7.10); the map is what a future cost
model would read."""

from __future__ import annotations

import operator
from typing import Any, Dict, Optional

import numpy
import torch

from .tensor import TransposedLayout, layout_tables

__all__ = ["layout_cost", "plan_layouts"]

TIER1 = {"add", "sub", "mul", "div", "truediv", "neg", "abs", "relu", "gelu", "silu", "sigmoid", "tanh", "sin",
         "cos", "exp", "log", "sqrt", "rsqrt", "clone", "copy_", "fill_", "zero_", "eq", "ne", "lt", "le", "gt",
         "ge", "_to_copy", "dropout", "native_dropout", "contiguous", "to", "float", "half", "double"}
TIER2 = {"t", "transpose", "permute"}
TIER4 = {"mm", "bmm", "matmul"}


def layout_cost(layout: Any) -> int:
    """Positions ``i`` with ``fwd[i] != i``."""
    fwd, _ = layout_tables(layout, "cpu")
    return int((fwd != torch.arange(fwd.numel())).sum())


def _name(node: torch.fx.Node) -> Optional[str]:
    target = node.target
    if node.op == "call_method":
        return str(target)
    if node.op != "call_function":
        return None
    packet = getattr(target, "overloadpacket", None)
    if packet is not None:
        return packet.__name__
    if target in (operator.add, operator.iadd):
        return "add"
    if target in (operator.mul, operator.imul):
        return "mul"
    if target in (operator.sub, operator.isub):
        return "sub"
    if target in (operator.truediv, operator.itruediv):
        return "div"
    if target is operator.neg:
        return "neg"
    if target is operator.matmul:
        return "matmul"
    return getattr(target, "__name__", None)


def _permutation(name: str, node: torch.fx.Node, rank: int) -> Optional[list]:
    if name == "t":
        return [1, 0] if rank == 2 else list(range(rank))
    if name == "transpose" and len(node.args) >= 3 and all(isinstance(a, int) for a in node.args[1:3]):
        perm = list(range(rank))
        d0, d1 = node.args[1] % rank, node.args[2] % rank
        perm[d0], perm[d1] = perm[d1], perm[d0]
        return perm
    if name == "permute":
        dims = node.args[1] if len(node.args) == 2 and isinstance(node.args[1], (list, tuple)) else node.args[1:]
        if all(isinstance(d, int) for d in dims):
            return [d % rank for d in dims]
    return None


def plan_layouts(gm: torch.fx.GraphModule, layout_map: Dict[str, Any]) -> Dict[str, Any]:
    """Fills ``layout_map`` for the nodes downstream of laid-out inputs; returns it (``gm`` is recompiled)."""
    for node in gm.graph.nodes:
        name = _name(node)
        if name is None:
            continue
        inputs = [a for a in node.all_input_nodes if a.name in layout_map]
        if not inputs:
            continue
        layout = layout_map[inputs[0].name]
        if name in TIER1 or name in TIER4:
            layout_map[node.name] = layout
        elif name in TIER2:
            rank = len(getattr(layout, "shape", ()))
            perm = _permutation(name, node, rank)
            if perm is not None:
                if isinstance(layout, TransposedLayout):
                    perm, layout = [layout.perm[p] for p in perm], layout.base
                layout_map[node.name] = TransposedLayout(layout, perm)
    gm.recompile()
    return layout_map
