"""The PyTorch tile autotuner (the published API, §2.6): ``autotune(shape, ...)`` times ``TiledPermute(shape,
tile)`` transforms of a float32 tensor on ``device`` (CUDA synchronised) and returns the fastest as a LegoLayout.
Memory cache only (``_AUTOTUNE_CACHE``); ``clear_cache()`` empties it."""

from __future__ import annotations

import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..frontends.python_mlir import LegoLayout, TiledPermute

__all__ = ["autotune", "clear_cache", "default_candidates"]

_AUTOTUNE_CACHE: Dict[str, Tuple[int, ...]] = {}


def default_candidates(shape: Sequence[int]) -> List[Tuple[int, ...]]:
    """Equal tiles from {2, 4, …, 128} dividing every dim; none → ``(min(4, s) for each s)`` when that divides."""
    found = [(t,) * len(shape) for t in (2, 4, 8, 16, 32, 64, 128) if all(s % t == 0 for s in shape)]
    if not found:
        fallback = tuple(min(4, s) for s in shape)
        if all(s % t == 0 for s, t in zip(shape, fallback)):
            found = [fallback]
        else:
            found = [tuple(1 for _ in shape)]
    return found


def autotune(shape: Sequence[int], tile_candidates: Optional[Sequence[Sequence[int]]] = None, n_iters: int = 20,
             device: str = "cpu", force: bool = False) -> LegoLayout:
    import torch

    shape = tuple(int(s) for s in shape)
    key = f"{shape}:{device}"
    if not force and key in _AUTOTUNE_CACHE:
        return TiledPermute(shape, _AUTOTUNE_CACHE[key])
    candidates = [tuple(int(t) for t in c) for c in (tile_candidates or default_candidates(shape))]
    if not candidates:
        raise ValueError(f"autotune: no tile candidates for {shape}")
    numel = 1
    for s in shape:
        numel *= s
    data: Any = torch.arange(numel, dtype=torch.float32, device=device).reshape(shape)
    sync = torch.cuda.synchronize if torch.device(device).type == "cuda" else (lambda: None)
    best, best_time = None, float("inf")
    for tile in candidates:
        layout = TiledPermute(shape, tile)
        layout.transform(data)
        sync()
        start = time.perf_counter()
        for _ in range(n_iters):
            layout.transform(data)
        sync()
        elapsed = time.perf_counter() - start
        if elapsed < best_time:
            best, best_time = tile, elapsed
    assert best is not None
    _AUTOTUNE_CACHE[key] = best
    return TiledPermute(shape, best)


def clear_cache() -> None:
    _AUTOTUNE_CACHE.clear()
