"""A short tour of the lego Python package (docs/python.md): layouts built in Python, evaluated by lego-rs.

Run: `make python-demo` (or `.venv/bin/python python/examples/demo.py` after `make python`).
"""

import sympy as sp

from lego import Col, OrderBy, Row

M, N, BM, BN = sp.symbols("M N BM BN", integer=True, positive=True)
pid_m, pid_n, i, j, x = sp.symbols("pid_m pid_n i j x", integer=True)

# Triton's classic tiling of an M × N row-major matrix into BM × BN blocks.
tiled = OrderBy(Row(M, N)).TileBy((M // BM, N // BN), (BM, BN))
print("tiled[pid_m, pid_n, i, j] =", tiled[pid_m, pid_n, i, j])
print("tiled[pid_m, pid_n, :, :] =", tiled[pid_m, pid_n, :, :])
print("tiled.inv(x)              =", tiled.inv(x))

# The same with concrete sizes: the lowered arithmetic folds to numbers.
concrete = OrderBy(Row(8, 16)).TileBy((2, 2), (4, 8))
print("concrete[1, 1, 2, 3] =", concrete[1, 1, 2, 3], " inv(107) =", concrete.inv(107))

# Column-major inside a GroupBy, and the lego IR it becomes before lowering.
col = OrderBy(Col(4, 8)).GroupBy([(4, 8)])
print("col[i, j] =", col[i, j], " col.inv(x) =", col.inv(x))
print(col.mlir())

# The tensor API: a NumPy array rearranged tile by tile (the layout's lowered index arithmetic, run in Rust).
import numpy as np  # noqa: E402

from lego import Swizzle, TiledPermute  # noqa: E402

tiles = TiledPermute((4, 4), (2, 2))
print("TiledPermute((4, 4), (2, 2)).transform(arange(16)) =", tiles.transform(np.arange(16)).ravel().tolist())
print("Swizzle((4, 4)) table =", Swizzle((4, 4)).create_tensor(np.int64).ravel().tolist())
