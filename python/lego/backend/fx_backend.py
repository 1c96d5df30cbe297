"""The older module of the ``torch.compile`` backend ``"lego"`` (the published API, §2.8). The published one
passed the graph unchanged to inductor; here the name is the backend of :mod:`lego.torch.compile` (planner,
inductor, LegoTensors unwrapped), registered by importing this module too."""

from ..torch.compile import lego_backend

__all__ = ["lego_backend"]
