"""Backends of the lego package (the published API, §0). So far: :mod:`lego.backend.symbolic`."""
