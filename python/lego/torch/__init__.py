"""PyTorch integration (the published API, §2.7): ``annotate``, ``rearrange``, ``LegoTensor`` with its dispatch
tiers (:mod:`lego.torch.tensor`), the custom ops ``torch.ops.lego.*`` (:mod:`lego.torch.ops`), the
``torch.compile`` backend ``"lego"`` (:mod:`lego.torch.compile`), the planner (:mod:`lego.torch.planner`), index
tables (:mod:`lego.torch.fusion`) and the tile autotuner (:mod:`lego.torch.autotune`). Importing it imports
torch."""

from . import ops
from . import compile  # noqa: F401 (registers the torch.compile backend "lego")
from .tensor import LegoTensor, TransposedLayout, annotate, as_lego_tensor, layout_tables, rearrange

__all__ = ["annotate", "rearrange", "as_lego_tensor", "LegoTensor", "TransposedLayout", "layout_tables", "ops"]
