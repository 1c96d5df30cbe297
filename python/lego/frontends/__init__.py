"""Frontends of the lego package (the published API, §0). So far: the functional constructors of
:mod:`lego.frontends.python_mlir` and :mod:`lego.frontends.symbolic`; the JIT rewriters and source generators
are not built yet (docs/python.md)."""
