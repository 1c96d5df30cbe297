"""What a layout's offsets allow a fused move kernel to assume (lego.backend.triton_layout), read off the
program's full table — never sampled: every fact here is checked at every point of the index space, so the
kernel's hints and box loads are true for the data it moves.

The kernel sees the offsets ``off(r, c)`` of its 2-D index space (``R`` rows, ``C = dims[-1]`` columns).

* **Contiguity** ``(V0, V1)``: along axis ``a``, every aligned group of ``V_a`` consecutive points holds
  consecutive offsets starting at a multiple of ``V_a`` (``V ≤ 16``). Triton is told so
  (``tl.multiple_of`` / ``tl.max_contiguous``) and issues vector loads of up to 16 bytes — a transpose is
  contiguous down the rows, a tiled permutation along the columns.
* **Boxes**: for a tile shape ``BR × BC`` (aligned tiles), the ``W = BR·BC`` sources of every tile fill one
  aligned box of ``BRs × BCs`` elements of the source viewed as rows of ``C`` (``BRs·BCs = W``). A bijection
  puts exactly ``W`` distinct offsets in a box of ``W``, so the tile is a permutation of that box: the kernel
  loads the box with contiguous rows of ``BCs`` and permutes it on chip (``tl.gather``) — for an XOR swizzle or
  a Z-order curve, whose offsets have no contiguous run at all along either axis, this turns a 2-byte gather
  into 16-byte loads.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

MAX_VECTOR = 16
"""Elements per claimed run: 16 bytes of int8; Triton caps a vector at 16 bytes whatever the element type."""

BOX_TILE_SIZES = (4096, 1024)
"""Elements of a box tile (the tile a program permutes on chip): 16 KiB of fp32 at 4096."""

MIN_BOX_ROW = 32
"""The narrowest box row worth loading (64 bytes of fp16)."""

_CHUNK = 1 << 22


def _pow2_divisor_at_most(n: int, cap: int) -> int:
    v = cap
    while v > 1 and n % v:
        v //= 2
    return v


def contiguity(table: Any, columns: int) -> Tuple[int, int]:
    """``(V0, V1)`` of the row-major ``table`` viewed as ``(-1, columns)`` (module docstring)."""
    import numpy

    t2d = table.reshape(-1, columns)
    rows = t2d.shape[0]
    result = []
    for axis in (0, 1):
        best = _pow2_divisor_at_most(rows if axis == 0 else columns, MAX_VECTOR)
        if axis == 1:
            step = max(1, _CHUNK // columns)
            for start in range(0, rows, step):
                block = t2d[start:start + step]
                while best > 1:
                    groups = block.reshape(block.shape[0], columns // best, best)
                    if (groups[..., 0] % best == 0).all() and (numpy.diff(groups, axis=2) == 1).all():
                        break
                    best //= 2
        else:
            step = max(best, (max(1, _CHUNK // columns) // best) * best) if best > 1 else rows
            for start in range(0, rows, step):
                if best == 1:
                    break
                block = t2d[start:start + step]
                while best > 1:
                    groups = block.reshape(block.shape[0] // best, best, columns)
                    if (groups[:, 0, :] % best == 0).all() and (numpy.diff(groups, axis=1) == 1).all():
                        break
                    best //= 2
        result.append(best)
    return result[0], result[1]


def _box_holds(t2d: Any, tile: Tuple[int, int], box: Tuple[int, int], columns: int) -> bool:
    """Every aligned ``tile`` of ``t2d`` has its offsets in one aligned ``box`` (rows of ``columns``)."""
    br, bc = tile
    brs, bcs = box
    rows = t2d.shape[0]
    step = max(br, (max(1, _CHUNK // t2d.shape[1]) // br) * br)
    for start in range(0, rows, step):
        block = t2d[start:start + step]
        groups = block.reshape(block.shape[0] // br, br, t2d.shape[1] // bc, bc)
        # Powers of two (checked by the caller): shifts and masks, not int64 division.
        box_row = groups >> ((columns * brs).bit_length() - 1)
        box_col = (groups & (columns - 1)) >> (bcs.bit_length() - 1)
        for part in (box_row, box_col):
            if not (part.max(axis=(1, 3)) == part.min(axis=(1, 3))).all():
                return False
    return True


def boxes(table: Any, columns: int) -> List[Tuple[Tuple[int, int], Tuple[int, int]]]:
    """``[(tile, box), …]``, at most one per size of ``BOX_TILE_SIZES``, each checked on the whole table
    (candidates are first screened on its first rows, then the survivor verified everywhere)."""
    t2d = table.reshape(-1, columns)
    rows = t2d.shape[0]
    found: List[Tuple[Tuple[int, int], Tuple[int, int]]] = []
    for size in BOX_TILE_SIZES:
        choice = _first_box(t2d, rows, columns, size)
        if choice is not None:
            found.append(choice)
    return found


def _first_box(t2d: Any, rows: int, columns: int, size: int) -> Optional[Tuple[Tuple[int, int], Tuple[int, int]]]:
    if columns & (columns - 1) or rows * columns % size:
        return None
    pairs = []
    bc = min(columns, size)
    while bc >= 16:
        br = size // bc
        if rows % br == 0:
            bcs = min(columns, size)
            while bcs >= MIN_BOX_ROW:
                brs = size // bcs
                pairs.append(((br, bc), (brs, bcs)))
                bcs //= 2
        bc //= 2
    if not pairs:
        return None
    # Screen on the first rows (a multiple of every tile height), then verify the survivor everywhere.
    tallest = max(tile[0] for tile, _ in pairs)
    screen_rows = min(rows, -(-max(1, (1 << 16) // columns) // tallest) * tallest)
    screen = t2d[:screen_rows]
    for tile, box in pairs:
        if _box_holds(screen, tile, box, columns) and _box_holds(t2d, tile, box, columns):
            return tile, box
    return None
