"""The tile autotuner (the published API, §2.6): ``lego.autotune(shape)`` (also ``lego.autotune.autotune``) times
``Tiled(shape, tile)`` for candidate tiles and returns the fastest as a TiledView. Results are cached in memory
(``_AUTOTUNE_CACHE``, key ``"{shape}:{device}"``) and in ``~/.cache/lego/autotune_cache.json``."""

from __future__ import annotations

import json
import os
import sys
import time
import types
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .frontends.python_mlir import Tiled, TiledView

__all__ = ["autotune", "clear_cache", "default_candidates"]

_AUTOTUNE_CACHE: Dict[str, Tuple[int, ...]] = {}


def _cache_file() -> str:
    return os.path.join(os.path.expanduser("~"), ".cache", "lego", "autotune_cache.json")


def _load_disk() -> Dict[str, List[int]]:
    try:
        with open(_cache_file()) as handle:
            data = json.load(handle)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _store_disk(key: str, tile: Tuple[int, ...]) -> None:
    data = _load_disk()
    data[key] = list(tile)
    try:
        os.makedirs(os.path.dirname(_cache_file()), exist_ok=True)
        with open(_cache_file(), "w") as handle:
            json.dump(data, handle)
    except OSError:
        pass  # a read-only home: the memory cache still works


def default_candidates(shape: Sequence[int]) -> List[Tuple[int, ...]]:
    """Square tiles from {2, 4, …, 128} dividing every dim."""
    return [(t,) * len(shape) for t in (2, 4, 8, 16, 32, 64, 128) if all(s % t == 0 for s in shape)]


def _time(view: TiledView, data: Any, n_iters: int, device: str) -> float:
    view.transform(data)
    torch = sys.modules.get("torch")
    sync = (lambda: torch.cuda.synchronize()) if torch is not None and device != "cpu" else (lambda: None)
    sync()
    start = time.perf_counter()
    for _ in range(n_iters):
        view.transform(data)
    sync()
    return (time.perf_counter() - start) / max(n_iters, 1)


def autotune(shape: Sequence[int], tile_candidates: Optional[Sequence[Sequence[int]]] = None, n_iters: int = 20,
             device: str = "cpu", force: bool = False) -> TiledView:
    shape = tuple(int(s) for s in shape)
    key = f"{shape}:{device}"
    if not force:
        if key in _AUTOTUNE_CACHE:
            return Tiled(shape, _AUTOTUNE_CACHE[key])
        stored = _load_disk().get(key)
        if stored is not None and len(stored) == len(shape) and all(s % t == 0 for s, t in zip(shape, stored)):
            _AUTOTUNE_CACHE[key] = tuple(stored)
            return Tiled(shape, tuple(stored))
    candidates = [tuple(int(t) for t in c) for c in (tile_candidates or default_candidates(shape))]
    if not candidates:
        raise ValueError(f"autotune: no tile candidate divides {shape} (square tiles of 2..128 were tried); pass "
                         f"tile_candidates")
    numel = 1
    for s in shape:
        numel *= s
    if device == "cpu":
        import numpy

        data: Any = numpy.arange(numel, dtype=numpy.float32).reshape(shape)
    else:
        import torch

        data = torch.arange(numel, dtype=torch.float32, device=device).reshape(shape)
    best, best_time = None, float("inf")
    for tile in candidates:
        view = Tiled(shape, tile)
        elapsed = _time(view, data, n_iters, device)
        if elapsed < best_time:
            best, best_time = tile, elapsed
    assert best is not None
    _AUTOTUNE_CACHE[key] = best
    _store_disk(key, best)
    return Tiled(shape, best)


def clear_cache() -> None:
    """Empties the memory cache and the file cache."""
    _AUTOTUNE_CACHE.clear()
    try:
        os.remove(_cache_file())
    except OSError:
        pass


class _CallableModule(types.ModuleType):
    """``lego.autotune`` is both this module and the function (the published package exports the name both ways)."""

    def __call__(self, *args: Any, **kwargs: Any) -> TiledView:
        return autotune(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
