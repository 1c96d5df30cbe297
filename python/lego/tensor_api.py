"""The legacy tensor API module (the published API, §2.9): the names of :mod:`lego.frontends.python_mlir`
(``LegoLayout(layout, shape=None)``, ``RowMajor``, ``ColMajor``, ``Tiled``, ``Custom``, ``get_mlir``,
``benchmark``) with the newer semantics (outputs reshaped to the layout's shape; any core layout accepted)."""

from .frontends.python_mlir import ColMajor, Custom, LegoLayout, RowMajor, Tiled, TiledPermute, TiledView

__all__ = ["LegoLayout", "RowMajor", "ColMajor", "Tiled", "TiledView", "TiledPermute", "Custom"]
