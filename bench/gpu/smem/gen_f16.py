#!/usr/bin/env python3
"""Also writes transpose-f16-128-{plain,padded}.mlir and transpose-f32-vec-{plain,padded}.mlir (vector accesses to
shared memory through lego.apply on the flat tile). Writes transpose-f16-plain.mlir and transpose-f16-padded.mlir (the same kernel, tile rows of 32 or 34 halves), and
transpose-f16-64-plain.mlir / transpose-f16-64-padded.mlir (one 64×64 tile per block, 4 vectors per thread, rows of
64 or 66 halves), and transpose-f16-x4-plain.mlir / transpose-f16-x4-padded.mlir (the first kernel with four 64×32
tiles per block: 4 vectors per thread): the unrolled 8-element loops are tedious by hand.  python3 bench/gpu/smem/gen_f16.py"""
import os
os.chdir(os.path.dirname(os.path.abspath(__file__)))


def launch_header(a, name, block, grid, attributions):
    """Appends the fp16 kernels' common opening: `func.func @name(%in, %out)` over 8192² halves and a `gpu.launch`
    of `block` = (x, y) threads on `grid` = (x, y) blocks with the given workgroup attributions (text)."""
    a(f"func.func @{name}(%in: memref<67108864xf16>, %out: memref<67108864xf16>) {{")
    a("  %one = arith.constant 1 : index")
    a(f"  %block_x = arith.constant {block[0]} : index")
    a(f"  %block_y = arith.constant {block[1]} : index")
    a(f"  %grid_x = arith.constant {grid[0]} : index")
    a(f"  %grid_y = arith.constant {grid[1]} : index")
    a("  gpu.launch blocks(%bx, %by, %bz) in (%gx = %grid_x, %gy = %grid_y, %gz = %one)")
    a("             threads(%tx, %ty, %tz) in (%sx = %block_x, %sy = %block_y, %sz = %one)")
    a(f"             workgroup({attributions}) {{")


def f16(pitch, name, T):
    size = 64*pitch
    L=[]; a=L.append
    atts = ",\n                       ".join(f"%tile{h} : memref<{size}xf16, #gpu.address_space<workgroup>>" for h in range(T))
    launch_header(a, name, (4, 64), (8192 // (32*T), 128), atts)
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
    launch_header(a, name, (8, 16), (128, 128), f"%tile : memref<{size}xf16, #gpu.address_space<workgroup>>")
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


def f16_128(layout, name, rows=128, J=4):
    """fp16 transpose through one `rows`×128 tile per block with vector accesses to shared memory: each thread stores
    its J global vector<8xf16> rows into the tile as vector<8xf16> (16 bytes) and reads 8 rows × 4 columns of the
    tile as eight vector<4xf16> (8 bytes) loads, turned into 4 output vectors with vector.shuffle. The tile index
    of every shared access is `lego.apply %tile_layout(r, c)` on the flat workgroup memref. `layout`: the layout
    op's text (`lego.row [R, 128]`, a padding `lego.row [R, 128 + p]`, or a swizzle); its size gives the memref's."""
    pitch = 128
    if layout.startswith("lego.row"):
        pitch = int(layout.split("[")[1].split("]")[0].split(",")[1])
    size = rows * pitch
    threads = rows * 16 // J          # vector<8xf16> row chunks (16 a row) over J per thread
    ty_size = threads // 16
    groups = rows // 8                 # row groups of 8 on the column side
    L = []; a = L.append
    memref = f"memref<{size}xf16, #gpu.address_space<workgroup>>"
    launch_header(a, name, (16, ty_size), (64, 8192 // rows), f"%tile : {memref}")
    for value in sorted({2, 4, 8, 16, 128, rows, groups}):
        a(f"    %c{value} = arith.constant {value} : index")
    for k in range(1, 8):
        if k not in (2, 4):
            a(f"    %c{k} = arith.constant {k} : index")
    a("    %matrix = lego.row [8192, 8192] : !lego.layout")
    a(f"    %tile_layout = {layout} : !lego.layout")
    a(f"    %row0 = arith.muli %by, %c{rows} : index")
    a("    %col0 = arith.muli %bx, %c128 : index")
    a("    %col8 = arith.muli %tx, %c8 : index")
    a("    %gcol = arith.addi %col0, %col8 : index")
    a(f"    // Thread (tx, ty) loads rows ty + {ty_size}·j (j < {J}) of the tile, halves 8·tx … 8·tx + 7: a warp reads two")
    a("    // 256-byte rows; each vector goes to the tile as one 16-byte store.")
    for j in range(J):
        r = "%ty" if j == 0 else f"%r{j}"
        if j:
            a(f"    %q{j} = arith.constant {ty_size * j} : index")
            a(f"    %r{j} = arith.addi %ty, %q{j} : index")
        a(f"    %grow{j} = arith.addi %row0, {r} : index")
        a(f"    %src{j} = lego.apply %matrix(%grow{j}, %gcol) : !lego.layout")
        a(f"    %v{j} = vector.load %in[%src{j}] {{alignment = 16}} : memref<67108864xf16>, vector<8xf16>")
    for j in range(J):
        r = "%ty" if j == 0 else f"%r{j}"
        a(f"    %s{j} = lego.apply %tile_layout({r}, %col8) : !lego.layout")
        a(f"    vector.store %v{j}, %tile[%s{j}] {{alignment = 16}} : {memref}, vector<8xf16>")
    a("    gpu.barrier")
    a(f"    // Thread t = tx + 16·ty: lane l = t mod 32, warp w = t div 32; column quad q = 2·w + l mod 2 (tile columns")
    a(f"    // 4·q … 4·q + 3), row group g = (l div 2) mod {groups} + … (tile rows 8·g … 8·g + 7). It reads 8 rows × 4 halves")
    a("    // (eight 8-byte loads) and writes 4 output vectors: rows col0 + 4·q + m of `out`, halves row0 + 8·g …")
    a("    %t16 = arith.muli %ty, %c16 : index")
    a("    %t = arith.addi %tx, %t16 : index")
    a("    %qlo = arith.remui %t, %c2 : index")
    a("    %half_t = arith.divui %t, %c2 : index")
    a(f"    %g = arith.remui %half_t, %c{groups} : index")
    a(f"    %qhi = arith.divui %half_t, %c{groups} : index")
    a("    %qhi2 = arith.muli %qhi, %c2 : index")
    a("    %q = arith.addi %qhi2, %qlo : index")
    a("    %c = arith.muli %q, %c4 : index")
    a("    %r8 = arith.muli %g, %c8 : index")
    a("    %ocol = arith.addi %row0, %r8 : index")
    colj = 0
    for k in range(8):
        row = "%r8" if k == 0 else f"%i{k}"
        if k:
            a(f"    %i{k} = arith.addi %r8, %c{k} : index")
        a(f"    %a{k} = lego.apply %tile_layout({row}, %c) : !lego.layout")
        a(f"    %x{k} = vector.load %tile[%a{k}] {{alignment = 8}} : {memref}, vector<4xf16>")
    for p in range(4):
        a(f"    %y{p} = vector.shuffle %x{2*p}, %x{2*p+1} [0, 4, 1, 5, 2, 6, 3, 7] : vector<4xf16>, vector<4xf16>")
    for h in range(2):
        a(f"    %z{h} = vector.shuffle %y{2*h}, %y{2*h+1} [0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15] : vector<8xf16>, vector<8xf16>")
    for m in range(4):
        idx = ", ".join(str(i) for i in [4*m, 4*m+1, 4*m+2, 4*m+3, 16+4*m, 16+4*m+1, 16+4*m+2, 16+4*m+3])
        a(f"    %w{m} = vector.shuffle %z0, %z1 [{idx}] : vector<16xf16>, vector<16xf16>")
        col = "%c" if m == 0 else f"%cm{m}"
        if m:
            a(f"    %cm{m} = arith.addi %c, %c{m} : index")
        a(f"    %orow{m} = arith.addi %col0, {col} : index")
        a(f"    %dst{m} = lego.apply %matrix(%orow{m}, %ocol) : !lego.layout")
        a(f"    vector.store %w{m}, %out[%dst{m}] {{alignment = 16}} : memref<67108864xf16>, vector<8xf16>")
    a("    gpu.terminator")
    a("  }")
    a("  return")
    a("}")
    return "\n".join(L) + "\n"


HEAD_128 = """// fp16 transpose out = inᵀ of an 8192×8192 matrix through a {what} shared tile of {rows}×128 halves, with vector
// accesses everywhere: 128-bit global loads and stores (vector<8xf16>), 16-byte shared stores (one per global
// vector) and 8-byte shared loads (vector<4xf16>: 4 tile columns of one row), the tile index of each shared access
// being `lego.apply %tile_layout(r, c)` on the flat workgroup memref. Block (bx, by): rows by·{rows} …, columns
// bx·128 …; 16×{ty} threads. A warp reads two 256-byte rows of `in` and writes two 256-byte rows of `out`.
// {note}
// Generated by bench/gpu/smem/gen_f16.py.

"""
for path, layout, what, note in (
        ("transpose-f16-128-plain.mlir", "lego.row [128, 128]", "plain row-major",
         "As written, the column reads are 8-way bank conflicts; with --lego-choose-smem-layout the tile becomes an XOR\n"
         "// swizzle that keeps every 8-half chunk whole (M ≥ 3) and all shared accesses conflict-free."),
        ("transpose-f16-128-padded.mlir", "lego.row [128, 136]", "hand-padded (136 halves a row: 16-byte rows kept aligned)",
         "Padding by 4 words keeps the 16-byte stores aligned; the 8-byte column reads stay 8-way: a phase of 16 lanes reads\n"
         "// 8 rows 8 apart (2 column quads each), and 8·(64 + 4k) words ≡ 0 (mod 32) for every padding of whole 16-byte units\n"
         "// (4k words): the 8 rows start on the same bank.")):
    with open(path, "w", encoding="utf-8") as file:
        file.write(HEAD_128.format(what=what, rows=128, ty=32, note=note) + f16_128(layout, "transpose_f16_128"))


def f32_vec(layout, name):
    """fp32 transpose through one 64×64 tile per block with 16-byte accesses everywhere: each thread stores its 4
    global vector<4xf32> rows into the tile as vector<4xf32>, then reads 4 rows × 4 columns of the tile as four
    vector<4xf32> loads and writes their transpose (a 4×4 shuffle in registers) as 4 output vectors."""
    pitch = 64
    if layout.startswith("lego.row"):
        pitch = int(layout.split("[")[1].split("]")[0].split(",")[1])
    size = 64 * pitch
    L = []; a = L.append
    memref = f"memref<{size}xf32, #gpu.address_space<workgroup>>"
    a(f"func.func @{name}(%in: memref<67108864xf32>, %out: memref<67108864xf32>) {{")
    a("  %one = arith.constant 1 : index")
    a("  %block_x = arith.constant 16 : index")
    a("  %block_y = arith.constant 16 : index")
    a("  %grid = arith.constant 128 : index")
    a("  gpu.launch blocks(%bx, %by, %bz) in (%gx = %grid, %gy = %grid, %gz = %one)")
    a("             threads(%tx, %ty, %tz) in (%sx = %block_x, %sy = %block_y, %sz = %one)")
    a(f"             workgroup(%tile : {memref}) {{")
    for value in (1, 2, 3, 4, 16, 64):
        a(f"    %c{value} = arith.constant {value} : index")
    a("    %matrix = lego.row [8192, 8192] : !lego.layout")
    a(f"    %tile_layout = {layout} : !lego.layout")
    a("    %row0 = arith.muli %by, %c64 : index")
    a("    %col0 = arith.muli %bx, %c64 : index")
    a("    %col4 = arith.muli %tx, %c4 : index")
    a("    %gcol = arith.addi %col0, %col4 : index")
    a("    // Thread (tx, ty) loads rows ty + 16·j (j < 4) of the tile, floats 4·tx … 4·tx + 3: a warp reads two 256-byte")
    a("    // rows; each vector goes to the tile as one 16-byte store.")
    for j in range(4):
        r = "%ty" if j == 0 else f"%r{j}"
        if j:
            a(f"    %q{j} = arith.constant {16 * j} : index")
            a(f"    %r{j} = arith.addi %ty, %q{j} : index")
        a(f"    %grow{j} = arith.addi %row0, {r} : index")
        a(f"    %src{j} = lego.apply %matrix(%grow{j}, %gcol) : !lego.layout")
        a(f"    %v{j} = vector.load %in[%src{j}] {{alignment = 16}} : memref<67108864xf32>, vector<4xf32>")
    for j in range(4):
        r = "%ty" if j == 0 else f"%r{j}"
        a(f"    %s{j} = lego.apply %tile_layout({r}, %col4) : !lego.layout")
        a(f"    vector.store %v{j}, %tile[%s{j}] {{alignment = 16}} : {memref}, vector<4xf32>")
    a("    gpu.barrier")
    a("    // Thread t = tx + 16·ty: lane l = t mod 32, warp w = t div 32; row group g = l mod 16 (tile rows 4·g … 4·g + 3),")
    a("    // column quad q = 2·w + l div 16 (tile columns 4·q … 4·q + 3). It reads 4 rows × 4 floats and writes 4 output")
    a("    // vectors: rows col0 + 4·q + m of `out`, floats row0 + 4·g …; a warp writes two 256-byte rows per store.")
    a("    %t16 = arith.muli %ty, %c16 : index")
    a("    %t = arith.addi %tx, %t16 : index")
    a("    %g = arith.remui %t, %c16 : index")
    a("    %q = arith.divui %t, %c16 : index")
    a("    %c = arith.muli %q, %c4 : index")
    a("    %r4 = arith.muli %g, %c4 : index")
    a("    %ocol = arith.addi %row0, %r4 : index")
    for k in range(4):
        row = "%r4" if k == 0 else f"%i{k}"
        if k:
            a(f"    %i{k} = arith.addi %r4, %c{k} : index")
        a(f"    %a{k} = lego.apply %tile_layout({row}, %c) : !lego.layout")
        a(f"    %x{k} = vector.load %tile[%a{k}] {{alignment = 16}} : {memref}, vector<4xf32>")
    a("    %y0 = vector.shuffle %x0, %x1 [0, 4, 1, 5, 2, 6, 3, 7] : vector<4xf32>, vector<4xf32>")
    a("    %y1 = vector.shuffle %x2, %x3 [0, 4, 1, 5, 2, 6, 3, 7] : vector<4xf32>, vector<4xf32>")
    for m in range(4):
        a(f"    %w{m} = vector.shuffle %y0, %y1 [{2*m}, {2*m+1}, {8+2*m}, {8+2*m+1}] : vector<8xf32>, vector<8xf32>")
        col = "%c" if m == 0 else f"%cm{m}"
        if m:
            a(f"    %cm{m} = arith.addi %c, %c{m} : index")
        a(f"    %orow{m} = arith.addi %col0, {col} : index")
        a(f"    %dst{m} = lego.apply %matrix(%orow{m}, %ocol) : !lego.layout")
        a(f"    vector.store %w{m}, %out[%dst{m}] {{alignment = 16}} : memref<67108864xf32>, vector<4xf32>")
    a("    gpu.terminator")
    a("  }")
    a("  return")
    a("}")
    return "\n".join(L) + "\n"


HEAD_F32V = """// fp32 transpose out = inᵀ of an 8192×8192 matrix through a {what} shared tile of 64×64 floats, with 16-byte
// accesses everywhere: global loads and stores of vector<4xf32>, one 16-byte shared store per global vector and
// 16-byte shared loads (4 tile columns of one row, vector<4xf32>), the tile index of each shared access being
// `lego.apply %tile_layout(r, c)` on the flat workgroup memref. Block (bx, by): rows by·64 …, columns bx·64 …;
// 16×16 threads, each moving 4 vectors in and 4 out (a 4×4 transpose in registers). A warp reads two 256-byte rows
// of `in` and writes two 256-byte rows of `out` per instruction.
// {note}
// Generated by bench/gpu/smem/gen_f16.py.

"""
for path, layout, what, note in (
        ("transpose-f32-vec-plain.mlir", "lego.row [64, 64]", "plain row-major",
         "As written, the column reads are 8-way bank conflicts; with --lego-choose-smem-layout the tile becomes an XOR\n"
         "// swizzle that keeps every 4-float chunk whole (M ≥ 2) and all shared accesses conflict-free."),
        ("transpose-f32-vec-padded.mlir", "lego.row [64, 68]", "hand-padded (68 floats a row: 16-byte rows kept aligned)",
         "Padding by 4 words keeps the 16-byte accesses aligned; the column reads stay 4-way: the 8 lanes of a phase read\n"
         "// rows 4 apart, 4·68 words ≡ 16 (mod 32), so they start at 2 distinct bank offsets (any 4k-word padding: at most 2).")):
    with open(path, "w", encoding="utf-8") as file:
        file.write(HEAD_F32V.format(what=what, note=note) + f32_vec(layout, "transpose_f32_vec"))
