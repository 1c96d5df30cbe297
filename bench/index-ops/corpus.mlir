// Corpus of bench/index-ops/run.sh: one function per case (// ----- separated). Each applies a layout to
// plain function arguments: the in-range facts of the indices come from the layout itself (lego-lower's
// lego-to-arith{assume-bounds=true} states them; docs/reference/semantics.md leaves out-of-range inputs unspecified). The
// symbolic cases but one add what a user knows about their sizes: between 1 and 2^15 (2^10 for the 3-d bricks).

// reference: row [4, 8]
func.func @spec_row(%i: index, %j: index) -> index {
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %l = lego.row [4, 8] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// -----
// reference: col [4, 8]
func.func @spec_col(%i: index, %j: index) -> index {
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %l = lego.col [4, 8] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// -----
// reference worked example 3: tile_by (order_by(row [8, 12])) tile_dims [[2, 4], [4, 3]]
func.func @spec_tile(%a: index, %b: index, %i: index, %j: index) -> index {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %l = lego.tile_by %o tile_dims [[2, 4], [4, 3]] : !lego.layout
  %f = lego.apply %l(%a, %b, %i, %j) : !lego.layout
  return %f : index
}

// -----
// reference worked example 3, inverse
func.func @spec_tile_inverse(%x: index) -> (index, index, index, index) {
  %c96 = arith.constant 96 : index
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %l = lego.tile_by %o tile_dims [[2, 4], [4, 3]] : !lego.layout
  %a, %b, %i, %j = lego.apply_inverse %l(%x) : !lego.layout -> index, index, index, index
  return %a, %b, %i, %j : index, index, index, index
}

// -----
// paper Fig. 2: group_by [6, 4](order_by(reg_p perm [1, 0] dims [2, 2], rev(3, 2)))
func.func @fig2(%i: index, %j: index) -> index {
  %c6 = arith.constant 6 : index
  %c4 = arith.constant 4 : index
  %swap = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout
  %rev = lego.gen_p [3, 2] apply (%a: index, %b: index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %ra = arith.subi %c2, %a : index
    %rb = arith.subi %c1, %b : index
    %row = arith.muli %ra, %c2 : index
    %f = arith.addi %row, %rb : index
    lego.yield %f : index
  } inv (%x: index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %q = arith.divui %x, %c2 : index
    %r = arith.remui %x, %c2 : index
    %a = arith.subi %c2, %q : index
    %b = arith.subi %c1, %r : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %order = lego.order_by(%swap, %rev) : !lego.layout
  %layout = lego.group_by [6, 4](%order) : !lego.layout
  %flat = lego.apply %layout(%i, %j) : !lego.layout
  return %flat : index
}

// -----
// paper Fig. 6: group_by [6, 6](O1, O2), O1 = order_by(reg_p perm [1, 0] dims [2, 2], antidiag(3)),
// O2 = order_by(reg_p perm [0, 2, 1, 3] dims [2, 3, 2, 3])
func.func @fig6(%i: index, %j: index) -> index {
  %c6 = arith.constant 6 : index
  %p2 = lego.reg_p perm [0, 2, 1, 3] dims [2, 3, 2, 3] : !lego.layout
  %o2 = lego.order_by(%p2) : !lego.layout
  %swap = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout
  %anti = lego.gen_p [3, 3] apply (%a: index, %b: index) {
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %n = arith.constant 3 : index
    %two_n = arith.constant 6 : index
    %base = arith.constant 6 : index
    %ab = arith.addi %a, %b : index
    %s = arith.addi %ab, %k1 : index
    %sm1 = arith.subi %s, %k1 : index
    %tri = arith.muli %s, %sm1 : index
    %half = arith.divui %tri, %k2 : index
    %upper = arith.addi %a, %half : index
    %sr = arith.subi %two_n, %s : index
    %srm1 = arith.subi %sr, %k1 : index
    %tri_r = arith.muli %sr, %srm1 : index
    %half_r = arith.divui %tri_r, %k2 : index
    %ba = arith.addi %base, %a : index
    %lower = arith.subi %ba, %half_r : index
    %in_upper = arith.cmpi ule, %s, %n : index
    %f = arith.select %in_upper, %upper, %lower : index
    lego.yield %f : index
  } : !lego.layout
  %o1 = lego.order_by(%swap, %anti) : !lego.layout
  %l = lego.group_by [6, 6](%o1, %o2) : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// -----
// Fig. 1 tiled matmul, A (M×K = 1024×512, 64×32 tiles), row-major: Table I (M/BM, K/BK, BM, BK):(K·BM, BK, K, 1)
func.func @matmul_a_row(%ti: index, %tk: index, %i: index, %k: index) -> index {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %r = lego.row [1024, 512] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %l = lego.tile_by %o tile_dims [[16, 16], [64, 32]] : !lego.layout
  %f = lego.apply %l(%ti, %tk, %i, %k) : !lego.layout
  return %f : index
}

// -----
// Fig. 1 tiled matmul, A column-major
func.func @matmul_a_col(%ti: index, %tk: index, %i: index, %k: index) -> index {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %r = lego.col [1024, 512] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %l = lego.tile_by %o tile_dims [[16, 16], [64, 32]] : !lego.layout
  %f = lego.apply %l(%ti, %tk, %i, %k) : !lego.layout
  return %f : index
}

// -----
// Fig. 1 tiled matmul, B (K×N = 512×256, 32×64 tiles), row-major
func.func @matmul_b_row(%tk: index, %tn: index, %k: index, %n: index) -> index {
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %r = lego.row [512, 256] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %l = lego.tile_by %o tile_dims [[16, 4], [32, 64]] : !lego.layout
  %f = lego.apply %l(%tk, %tn, %k, %n) : !lego.layout
  return %f : index
}

// -----
// Fig. 1 tiled matmul, B column-major
func.func @matmul_b_col(%tk: index, %tn: index, %k: index, %n: index) -> index {
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %r = lego.col [512, 256] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %l = lego.tile_by %o tile_dims [[16, 4], [32, 64]] : !lego.layout
  %f = lego.apply %l(%tk, %tn, %k, %n) : !lego.layout
  return %f : index
}

// -----
// Fig. 1 tiled matmul, C (M×N = 1024×256, 64×64 tiles), row-major
func.func @matmul_c_row(%ti: index, %tn: index, %i: index, %n: index) -> index {
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %r = lego.row [1024, 256] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %l = lego.tile_by %o tile_dims [[16, 4], [64, 64]] : !lego.layout
  %f = lego.apply %l(%ti, %tn, %i, %n) : !lego.layout
  return %f : index
}

// -----
// Fig. 1 tiled matmul, C column-major
func.func @matmul_c_col(%ti: index, %tn: index, %i: index, %n: index) -> index {
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %r = lego.col [1024, 256] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %l = lego.tile_by %o tile_dims [[16, 4], [64, 64]] : !lego.layout
  %f = lego.apply %l(%ti, %tn, %i, %n) : !lego.layout
  return %f : index
}

// -----
// Fig. 8-style 5-d permutation: reg_p perm [0, 3, 1, 4, 2] dims [8, 16, 4, 32, 2]
func.func @permute5(%a: index, %b: index, %c: index, %d: index, %e: index) -> index {
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %p = lego.reg_p perm [0, 3, 1, 4, 2] dims [8, 16, 4, 32, 2] : !lego.layout
  %o = lego.order_by(%p) : !lego.layout
  %l = lego.group_by [8, 16, 4, 32, 2](%o) : !lego.layout
  %f = lego.apply %l(%a, %b, %c, %d, %e) : !lego.layout
  return %f : index
}

// -----
// bricks: tile_by (order_by(row [N, N, N])) tile_dims [[N/B, N/B, N/B], [B, B, B]], N = 64, B = 4
func.func @bricks(%x: index, %y: index, %z: index, %u: index, %v: index, %w: index) -> index {
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %r = lego.row [64, 64, 64] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %l = lego.tile_by %o tile_dims [[16, 16, 16], [4, 4, 4]] : !lego.layout
  %f = lego.apply %l(%x, %y, %z, %u, %v, %w) : !lego.layout
  return %f : index
}

// -----
// bricks, inverse
func.func @bricks_inverse(%f: index) -> (index, index, index, index, index, index) {
  %c262144 = arith.constant 262144 : index
  %r = lego.row [64, 64, 64] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %l = lego.tile_by %o tile_dims [[16, 16, 16], [4, 4, 4]] : !lego.layout
  %x, %y, %z, %u, %v, %w = lego.apply_inverse %l(%f) : !lego.layout -> index, index, index, index, index, index
  return %x, %y, %z, %u, %v, %w : index, index, index, index, index, index
}

// -----
// LUD-style coarsening: group_by [R, R, T, T](order_by(row [R·T, R·T])), R = 4, T = 16
func.func @lud(%a: index, %b: index, %c: index, %d: index) -> index {
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %r = lego.row [64, 64] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %l = lego.group_by [4, 4, 16, 16](%o) : !lego.layout
  %f = lego.apply %l(%a, %b, %c, %d) : !lego.layout
  return %f : index
}

// -----
// symbolic: row [M, N]
func.func @sym_row(%i: index, %j: index, %m: index, %n: index) -> index {
  %c1 = arith.constant 1 : index
  %lim = arith.constant 32768 : index
  lego.assume_bounds %m lb : %c1 ub : %lim
  lego.assume_bounds %n lb : %c1 ub : %lim
  %l = lego.row [%m, %n] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// -----
// symbolic: row [m, n] inverse, and row [m, 8] inverse (no size facts: the layout's contract is enough)
func.func @sym_row_inverse(%x: index, %y: index, %m: index, %n: index) -> (index, index, index, index) {
  %l = lego.row [%m, %n] : !lego.layout
  %i, %j = lego.apply_inverse %l(%x) : !lego.layout -> index, index
  %l8 = lego.row [%m, 8] : !lego.layout
  %a, %b = lego.apply_inverse %l8(%y) : !lego.layout -> index, index
  return %i, %j, %a, %b : index, index, index, index
}

// -----
// symbolic: tiled matmul A row-major, M = MT·BM, K = KT·BK
func.func @sym_matmul_a_row(%ti: index, %tk: index, %i: index, %k: index, %mt: index, %kt: index, %bm: index, %bk: index) -> index {
  %c1 = arith.constant 1 : index
  %lim = arith.constant 32768 : index
  lego.assume_bounds %mt lb : %c1 ub : %lim
  lego.assume_bounds %kt lb : %c1 ub : %lim
  lego.assume_bounds %bm lb : %c1 ub : %lim
  lego.assume_bounds %bk lb : %c1 ub : %lim
  %m = arith.muli %mt, %bm : index
  %kk = arith.muli %kt, %bk : index
  %r = lego.row [%m, %kk] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %l = lego.tile_by %o tile_dims [[%mt, %kt], [%bm, %bk]] : !lego.layout
  %f = lego.apply %l(%ti, %tk, %i, %k) : !lego.layout
  return %f : index
}

// -----
// symbolic: tiled matmul A column-major
func.func @sym_matmul_a_col(%ti: index, %tk: index, %i: index, %k: index, %mt: index, %kt: index, %bm: index, %bk: index) -> index {
  %c1 = arith.constant 1 : index
  %lim = arith.constant 32768 : index
  lego.assume_bounds %mt lb : %c1 ub : %lim
  lego.assume_bounds %kt lb : %c1 ub : %lim
  lego.assume_bounds %bm lb : %c1 ub : %lim
  lego.assume_bounds %bk lb : %c1 ub : %lim
  %m = arith.muli %mt, %bm : index
  %kk = arith.muli %kt, %bk : index
  %r = lego.col [%m, %kk] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %l = lego.tile_by %o tile_dims [[%mt, %kt], [%bm, %bk]] : !lego.layout
  %f = lego.apply %l(%ti, %tk, %i, %k) : !lego.layout
  return %f : index
}

// -----
// symbolic: bricks with N = NB·B
func.func @sym_bricks(%x: index, %y: index, %z: index, %u: index, %v: index, %w: index, %nb: index, %b: index) -> index {
  %c1 = arith.constant 1 : index
  %lim = arith.constant 1024 : index
  lego.assume_bounds %nb lb : %c1 ub : %lim
  lego.assume_bounds %b lb : %c1 ub : %lim
  %n = arith.muli %nb, %b : index
  %r = lego.row [%n, %n, %n] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %l = lego.tile_by %o tile_dims [[%nb, %nb, %nb], [%b, %b, %b]] : !lego.layout
  %f = lego.apply %l(%x, %y, %z, %u, %v, %w) : !lego.layout
  return %f : index
}

// -----
// symbolic: LUD-style coarsening with R, T
func.func @sym_lud(%a: index, %b: index, %c: index, %d: index, %rr: index, %t: index) -> index {
  %c1 = arith.constant 1 : index
  %lim = arith.constant 32768 : index
  lego.assume_bounds %rr lb : %c1 ub : %lim
  lego.assume_bounds %t lb : %c1 ub : %lim
  %rt = arith.muli %rr, %t : index
  %r = lego.row [%rt, %rt] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %l = lego.group_by [%rr, %rr, %t, %t](%o) : !lego.layout
  %f = lego.apply %l(%a, %b, %c, %d) : !lego.layout
  return %f : index
}

// -----
// symbolic: Triton's grouped program-id order as a LEGO inverse (issue 25),
// OrderBy(Col(max(npm / GM, 1), 1), Col(min(GM, npm), npn)).TileBy([npm, npn]) inverted at pid. The layout's
// sizes are consistent (max(npm div GM, 1)·min(GM, npm) = npm, the symbolic-size contract): lego-lower states
// it, and the remainder by max(npm div GM, 1) goes (pid div (min(GM, npm)·npn) is below it).
func.func @sym_grouped_pid(%pid: index, %npm: index, %npn: index, %gm: index) -> (index, index) {
  %c1 = arith.constant 1 : index
  %lim = arith.constant 32768 : index
  lego.assume_bounds %npm lb : %c1 ub : %lim
  lego.assume_bounds %npn lb : %c1 ub : %lim
  lego.assume_bounds %gm lb : %c1 ub : %lim
  %q = arith.divui %npm, %gm : index
  %rows = arith.maxui %q, %c1 : index
  %width = arith.minui %gm, %npm : index
  %a = lego.col [%rows, 1] : !lego.layout
  %b = lego.col [%width, %npn] : !lego.layout
  %o = lego.order_by(%a, %b) : !lego.layout
  %l = lego.tile_by %o tile_dims [[%npm, %npn]] : !lego.layout
  %i, %j = lego.apply_inverse %l(%pid) : !lego.layout -> index, index
  return %i, %j : index, index
}

// -----
// symbolic: the same arithmetic written out (what lego-to-arith prints for the layout above), with the same
// facts but no layout tying the sizes: max(npm div GM, 1)·min(GM, npm) may be below npm (npm = 5, GM = 2),
// so the remainder by max(npm div GM, 1) stays.
func.func @sym_grouped_pid_untied(%pid: index, %npm: index, %npn: index, %gm: index) -> (index, index) {
  %c1 = arith.constant 1 : index
  %lim = arith.constant 32768 : index
  lego.assume_bounds %npm lb : %c1 ub : %lim
  lego.assume_bounds %npn lb : %c1 ub : %lim
  lego.assume_bounds %gm lb : %c1 ub : %lim
  %size = arith.muli %npm, %npn : index
  lego.assume_bounds %pid ub : %size
  %q = arith.divui %npm, %gm : index
  %rows = arith.maxui %q, %c1 : index
  %width = arith.minui %gm, %npm : index
  %wn = arith.muli %width, %npn : index
  %low = arith.remui %pid, %wn : index
  %group = arith.divui %pid, %wn : index
  %j = arith.divui %low, %width : index
  %in = arith.remui %low, %width : index
  %row = arith.remui %group, %rows : index
  %scaled = arith.muli %row, %width : index
  %i = arith.addi %in, %scaled : index
  return %i, %j : index, index
}
