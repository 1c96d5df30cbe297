#!/usr/bin/env python3
"""Writes transpose-f16-plain.mlir and transpose-f16-padded.mlir (the same kernel, tile rows of 32 or 34 halves):
the unrolled 8-element loops are tedious by hand.  python3 bench/gpu/smem/gen_f16.py"""
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


def header(path):
    """The hand-written comment block at the top of an existing file (kept when regenerating)."""
    with open(path, encoding="utf-8") as file:
        text = file.read()
    return text[:text.index("func.func")]


for path, pitch in (("transpose-f16-plain.mlir", 32), ("transpose-f16-padded.mlir", 34)):
    head = header(path)
    with open(path, "w", encoding="utf-8") as file:
        file.write(head + f16(pitch, "transpose_f16", 2))
