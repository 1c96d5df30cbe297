#!/usr/bin/env python3
"""Writes transpose-f16-plain.mlir and transpose-f16-padded.mlir (the same kernel, tile rows of 32 or 34 halves), and
transpose-f16-64-plain.mlir / transpose-f16-64-padded.mlir (one 64×64 tile per block, 4 vectors per thread, rows of
64 or 66 halves), and transpose-f16-x4-plain.mlir / transpose-f16-x4-padded.mlir (the first kernel with four 64×32
tiles per block: 4 vectors per thread): the unrolled 8-element loops are tedious by hand.  python3 bench/gpu/smem/gen_f16.py"""
import os
os.chdir(os.path.dirname(os.path.abspath(__file__)))


def f16(pitch, name, T):
    size = 64*pitch
    L=[]; a=L.append
    a(f"func.func @{name}(%in: memref<67108864xf16>, %out: memref<67108864xf16>) {{")
    a("  %one = arith.constant 1 : index")
    a("  %block_x = arith.constant 4 : index")
    a("  %block_y = arith.constant 64 : index")
    a(f"  %grid_x = arith.constant {8192 // (32*T)} : index")
    a("  %grid_y = arith.constant 128 : index")
    a("  gpu.launch blocks(%bx, %by, %bz) in (%gx = %grid_x, %gy = %grid_y, %gz = %one)")
    a("             threads(%tx, %ty, %tz) in (%sx = %block_x, %sy = %block_y, %sz = %one)")
    atts = ",\n                       ".join(f"%tile{h} : memref<{size}xf16, #gpu.address_space<workgroup>>" for h in range(T))
    a(f"             workgroup({atts}) {{")
    a("    %c4 = arith.constant 4 : index")
    a("    %c8 = arith.constant 8 : index")
    a("    %c32 = arith.constant 32 : index")
    a("    %c64 = arith.constant 64 : index")
    a(f"    %width = arith.constant {32*T} : index")
    for k in range(1,8):
        a(f"    %k{k} = arith.constant {k} : index")
    a("    %matrix = lego.row [8192, 8192] : !lego.layout")
    for h in range(T):
        a(f"    %tile_layout{h} = lego.row [64, {pitch}] : !lego.layout")
        a(f"    %shared{h} = lego.cast_view %tile{h}, %tile_layout{h} : memref<{size}xf16, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f16>")
    a("    %row0 = arith.muli %by, %c64 : index")
    a("    %col0 = arith.muli %bx, %width : index")
    a("    %col8 = arith.muli %tx, %c8 : index")
    a("    %grow = arith.addi %row0, %ty : index")
    for h in range(T):
        a(f"    // Tile {h}: rows by·64 …, columns bx·{32*T} + {32*h} …; thread (tx, ty) loads row ty, columns 8·tx … 8·tx + 7.")
        a(f"    %off{h} = arith.constant {32*h} : index")
        a(f"    %colh{h} = arith.addi %col0, %off{h} : index")
        a(f"    %gcol{h} = arith.addi %colh{h}, %col8 : index")
        a(f"    %src{h} = lego.apply %matrix(%grow, %gcol{h}) : !lego.layout")
        a(f"    %v{h} = vector.load %in[%src{h}] {{alignment = 16}} : memref<67108864xf16>, vector<8xf16>")
    for h in range(T):
        for k in range(8):
            col = "%col8" if k==0 else f"%j{k}"
            if k and h == 0: a(f"    %j{k} = arith.addi %col8, %k{k} : index")
            a(f"    %e{h}_{k} = vector.extract %v{h}[{k}] : f16 from vector<8xf16>")
            a(f"    lego.store %e{h}_{k}, %shared{h}[%ty, {col}] : f16, !lego.view<f16>, index, index")
    a("    gpu.barrier")
    a("    // Thread t = tx + 4·ty reads tile column c = t div 8, rows 8·a … 8·a + 7 (a = t mod 8), and stores them as")
    a("    // one vector to row (tile column) of `out`, columns by·64 + 8·a ….")
    a("    %t4 = arith.muli %ty, %c4 : index")
    a("    %t = arith.addi %tx, %t4 : index")
    a("    %va = arith.remui %t, %c8 : index")
    a("    %c = arith.divui %t, %c8 : index")
    a("    %r8 = arith.muli %va, %c8 : index")
    a("    %ocol = arith.addi %row0, %r8 : index")
    for k in range(1,8):
        a(f"    %i{k} = arith.addi %r8, %k{k} : index")
    for h in range(T):
        for k in range(8):
            row = "%r8" if k==0 else f"%i{k}"
            a(f"    %x{h}_{k} = lego.load %shared{h}[{row}, %c] : !lego.view<f16>, index, index")
        a(f"    %w{h} = vector.from_elements " + ", ".join(f"%x{h}_{k}" for k in range(8)) + " : vector<8xf16>")
        a(f"    %orow{h} = arith.addi %colh{h}, %c : index")
        a(f"    %dst{h} = lego.apply %matrix(%orow{h}, %ocol) : !lego.layout")
        a(f"    vector.store %w{h}, %out[%dst{h}] {{alignment = 16}} : memref<67108864xf16>, vector<8xf16>")
    a("    gpu.terminator")
    a("  }")
    a("  return")
    a("}")
    return "\n".join(L)+"\n"


def f16_64(pitch, name):
    """One 64×64 f16 tile per block, 8×16 threads, each thread moving 4 vectors of 8 halves in and 4 out."""
    J = 4
    size = 64*pitch
    L=[]; a=L.append
    a(f"func.func @{name}(%in: memref<67108864xf16>, %out: memref<67108864xf16>) {{")
    a("  %one = arith.constant 1 : index")
    a("  %block_x = arith.constant 8 : index")
    a("  %block_y = arith.constant 16 : index")
    a("  %grid_x = arith.constant 128 : index")
    a("  %grid_y = arith.constant 128 : index")
    a("  gpu.launch blocks(%bx, %by, %bz) in (%gx = %grid_x, %gy = %grid_y, %gz = %one)")
    a("             threads(%tx, %ty, %tz) in (%sx = %block_x, %sy = %block_y, %sz = %one)")
    a(f"             workgroup(%tile : memref<{size}xf16, #gpu.address_space<workgroup>>) {{")
    a("    %c8 = arith.constant 8 : index")
    a("    %c64 = arith.constant 64 : index")
    for k in range(1,8):
        a(f"    %k{k} = arith.constant {k} : index")
    for j in range(1,J):
        a(f"    %q{j} = arith.constant {16*j} : index")
    a("    %matrix = lego.row [8192, 8192] : !lego.layout")
    a(f"    %tile_layout = lego.row [64, {pitch}] : !lego.layout")
    a(f"    %shared = lego.cast_view %tile, %tile_layout : memref<{size}xf16, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f16>")
    a("    %row0 = arith.muli %by, %c64 : index")
    a("    %col0 = arith.muli %bx, %c64 : index")
    a("    %col8 = arith.muli %tx, %c8 : index")
    a("    %gcol = arith.addi %col0, %col8 : index")
    for k in range(1,8):
        a(f"    %j{k} = arith.addi %col8, %k{k} : index")
    a("    // Thread (tx, ty) loads rows ty + 16·j (j = 0 … 3) of the tile, columns 8·tx … 8·tx + 7: four 16-byte loads in flight.")
    for j in range(J):
        r = "%ty" if j == 0 else f"%r{j}"
        if j: a(f"    %r{j} = arith.addi %ty, %q{j} : index")
        a(f"    %grow{j} = arith.addi %row0, {r} : index")
        a(f"    %src{j} = lego.apply %matrix(%grow{j}, %gcol) : !lego.layout")
        a(f"    %v{j} = vector.load %in[%src{j}] {{alignment = 16}} : memref<67108864xf16>, vector<8xf16>")
    for j in range(J):
        r = "%ty" if j == 0 else f"%r{j}"
        for k in range(8):
            col = "%col8" if k==0 else f"%j{k}"
            a(f"    %e{j}_{k} = vector.extract %v{j}[{k}] : f16 from vector<8xf16>")
            a(f"    lego.store %e{j}_{k}, %shared[{r}, {col}] : f16, !lego.view<f16>, index, index")
    a("    gpu.barrier")
    a("    // Thread t = tx + 8·ty reads tile columns c = t div 8 + 16·j, rows 8·a … 8·a + 7 (a = t mod 8), and stores")
    a("    // each as one vector to row bx·64 + c of `out`, columns by·64 + 8·a ….")
    a("    %t8 = arith.muli %ty, %c8 : index")
    a("    %t = arith.addi %tx, %t8 : index")
    a("    %va = arith.remui %t, %c8 : index")
    a("    %c0 = arith.divui %t, %c8 : index")
    a("    %r8 = arith.muli %va, %c8 : index")
    a("    %ocol = arith.addi %row0, %r8 : index")
    for k in range(1,8):
        a(f"    %i{k} = arith.addi %r8, %k{k} : index")
    for j in range(J):
        c = "%c0" if j == 0 else f"%c{j}"
        if j: a(f"    %c{j} = arith.addi %c0, %q{j} : index")
        for k in range(8):
            row = "%r8" if k==0 else f"%i{k}"
            a(f"    %x{j}_{k} = lego.load %shared[{row}, {c}] : !lego.view<f16>, index, index")
        a(f"    %w{j} = vector.from_elements " + ", ".join(f"%x{j}_{k}" for k in range(8)) + " : vector<8xf16>")
        a(f"    %orow{j} = arith.addi %col0, {c} : index")
        a(f"    %dst{j} = lego.apply %matrix(%orow{j}, %ocol) : !lego.layout")
        a(f"    vector.store %w{j}, %out[%dst{j}] {{alignment = 16}} : memref<67108864xf16>, vector<8xf16>")
    a("    gpu.terminator")
    a("  }")
    a("  return")
    a("}")
    return "\n".join(L)+"\n"


HEAD_64_PLAIN = """// fp16 transpose out = inᵀ of an 8192×8192 matrix with 128-bit global accesses (vector<8xf16>), more work per
// thread than transpose-f16-plain.mlir: one plain row-major shared tile of 64×64 halves (`lego.row [64, 64]`) per
// block, 8×16 threads, each thread loading 4 vectors (rows ty + 16·j, halves 8·tx … 8·tx + 7) and storing 4
// (tile columns t div 8 + 16·j, rows 8·(t mod 8) …, t = tx + 8·ty). Block (bx, by) moves rows by·64 …, columns
// bx·64 …. A warp reads 4 rows × 128 bytes and writes 4 rows × 128 bytes: 16 sectors each (ideal 16).
//
// Compiled as is, lego-analyze-memory reports the column reads 8-way bank conflicts (rows 8·a + k, a = 0 … 7, are
// 256 words apart: one bank); with --lego-choose-smem-layout the tile becomes an XOR swizzle and every shared access
// conflict-free (bench/gpu/smem/make_ptx.py compiles both). Generated by bench/gpu/smem/gen_f16.py.

"""

HEAD_64_PADDED = """// The fp16 64×64-tile transpose of transpose-f16-64-plain.mlir with the tile padded by hand to 66 halves (one
// 4-byte word) a row, what a programmer would write. The column reads stay 2-way: rows 8·a + k and 8·(a + 4) + k
// are 32·33 = 1056 words apart (a multiple of 32); no padding of whole words per row does better with this thread
// mapping (8·a·p mod 32 takes at most 4 values). Generated by bench/gpu/smem/gen_f16.py.

"""


def header(path):
    """The hand-written comment block at the top of an existing file (kept when regenerating)."""
    with open(path, encoding="utf-8") as file:
        text = file.read()
    return text[:text.index("func.func")]


for path, pitch in (("transpose-f16-plain.mlir", 32), ("transpose-f16-padded.mlir", 34)):
    head = header(path)
    with open(path, "w", encoding="utf-8") as file:
        file.write(head + f16(pitch, "transpose_f16", 2))
for path, pitch, head in (("transpose-f16-64-plain.mlir", 64, HEAD_64_PLAIN), ("transpose-f16-64-padded.mlir", 66, HEAD_64_PADDED)):
    with open(path, "w", encoding="utf-8") as file:
        file.write(head + f16_64(pitch, "transpose_f16_64"))

HEAD_X4 = """// fp16 transpose of transpose-f16-{0}.mlir with four 64×32 tiles per block instead of two (block (bx, by) moves
// rows by·64 …, columns bx·128 …; 4×64 threads, each with four 16-byte loads in flight and four 16-byte stores):
// more work per thread, the same per-tile access pattern, so the same predictions ({1}).
// Generated by bench/gpu/smem/gen_f16.py.

"""
for path, pitch, what in (("transpose-f16-x4-plain.mlir", 32, "plain: 4-way stores, 8-way column reads; chosen: (5, 1, 5), conflict-free"),
                          ("transpose-f16-x4-padded.mlir", 34, "padded by hand to 34 halves a row: 2-way")):
    with open(path, "w", encoding="utf-8") as file:
        file.write(HEAD_X4.format(path[len("transpose-f16-x4-"):-len(".mlir")], what) + f16(pitch, "transpose_f16_x4", 4))
