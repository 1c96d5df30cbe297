"""Backends of the lego package (python-api.md §0). So far: :mod:`lego.backend.symbolic`."""
