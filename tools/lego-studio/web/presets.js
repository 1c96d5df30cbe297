// LEGO Studio's presets: dialect text, parsed by the server like anything typed in the editor.
// test/studio/browser_test.py checks every cell the page draws for each of them against `lego-studio draw`.
const PRESETS = [
 {
  "id": "row",
  "name": "row-major 8 × 8",
  "text": "// Row-major 8 × 8: (i, j) is at 8·i + j.\nfunc.func @row(%p0: index, %p1: index) -> index {\n  %l = lego.row [8, 8] : !lego.layout\n  %flat = lego.apply %l(%p0, %p1) : !lego.layout\n  return %flat : index\n}\n"
 },
 {
  "id": "col",
  "name": "column-major 8 × 8",
  "text": "// Column-major 8 × 8: (i, j) is at i + 8·j.\nfunc.func @col(%p0: index, %p1: index) -> index {\n  %l = lego.col [8, 8] : !lego.layout\n  %flat = lego.apply %l(%p0, %p1) : !lego.layout\n  return %flat : index\n}\n"
 },
 {
  "id": "tiled",
  "name": "tiled 8 × 12 (2 × 4 tiles of 4 × 3)",
  "text": "// An 8 × 12 row-major matrix seen as 2 × 4 tiles of 4 × 3 (logical (ti, tk, i, k)):\n// apply(1, 2, 3, 1) = (1·4 + 3)·12 + 2·3 + 1 = 91 (docs/reference/semantics.md, worked example 3).\nfunc.func @tiled(%p0: index, %p1: index, %p2: index, %p3: index) -> index {\n  %r = lego.row [8, 12] : !lego.layout\n  %o = lego.order_by(%r) : !lego.layout\n  %t = lego.tile_by %o tile_dims [[2, 4], [4, 3]] : !lego.layout\n  %flat = lego.apply %t(%p0, %p1, %p2, %p3) : !lego.layout\n  return %flat : index\n}\n"
 },
 {
  "id": "transposed",
  "name": "transposed 4 × 8",
  "text": "// A 4 × 8 matrix stored as its transpose: (i, j) is at i + 4·j.\nfunc.func @transposed(%p0: index, %p1: index) -> index {\n  %l = lego.reg_p perm [1, 0] dims [4, 8] : !lego.layout\n  %flat = lego.apply %l(%p0, %p1) : !lego.layout\n  return %flat : index\n}\n"
 },
 {
  "id": "swizzle",
  "name": "XOR swizzle 8 × 8",
  "text": "// XOR swizzle of an 8 × 8 tile: (i, j) is at 8·i + (j xor i).\nfunc.func @swizzle(%p0: index, %p1: index) -> index {\n  %s = lego.gen_p [8, 8] apply (%i: index, %j: index) {\n    %c8 = arith.constant 8 : index\n    %row = arith.muli %i, %c8 : index\n    %col = arith.xori %j, %i : index\n    %f = arith.addi %row, %col : index\n    lego.yield %f : index\n  } : !lego.layout\n  %flat = lego.apply %s(%p0, %p1) : !lego.layout\n  return %flat : index\n}\n"
 },
 {
  "id": "morton",
  "name": "Morton (Z-order) 8 × 8",
  "text": "// Morton (Z-order) 8 × 8: the bits of i and j interleaved, j's in the even positions.\nfunc.func @morton(%p0: index, %p1: index) -> index {\n  %z = lego.gen_p [8, 8] apply (%i: index, %j: index) {\n    %c1 = arith.constant 1 : index\n    %c2 = arith.constant 2 : index\n    %c3 = arith.constant 3 : index\n    %c4 = arith.constant 4 : index\n    // bits of j go to even positions, bits of i to odd ones\n    %j0 = arith.andi %j, %c1 : index\n    %j1a = arith.andi %j, %c2 : index\n    %j1 = arith.shli %j1a, %c1 : index\n    %j2a = arith.andi %j, %c4 : index\n    %j2 = arith.shli %j2a, %c2 : index\n    %i0a = arith.andi %i, %c1 : index\n    %i0 = arith.shli %i0a, %c1 : index\n    %i1a = arith.andi %i, %c2 : index\n    %i1 = arith.shli %i1a, %c2 : index\n    %i2a = arith.andi %i, %c4 : index\n    %i2 = arith.shli %i2a, %c3 : index\n    %a = arith.ori %j0, %j1 : index\n    %b = arith.ori %a, %j2 : index\n    %c = arith.ori %b, %i0 : index\n    %d = arith.ori %c, %i1 : index\n    %f = arith.ori %d, %i2 : index\n    lego.yield %f : index\n  } : !lego.layout\n  %flat = lego.apply %z(%p0, %p1) : !lego.layout\n  return %flat : index\n}\n"
 },
 {
  "id": "antidiag",
  "name": "anti-diagonal 6 × 6",
  "text": "// Anti-diagonal order (paper Fig. 7's antidiag(6)): cells numbered by anti-diagonal, then row.\nfunc.func @antidiag(%p0: index, %p1: index) -> index {\n  %ad = lego.gen_p [6, 6] apply (%i: index, %j: index) {\n    %c1 = arith.constant 1 : index\n    %c2 = arith.constant 2 : index\n    %n = arith.constant 6 : index\n    %twon = arith.constant 12 : index\n    %nn_n = arith.constant 30 : index\n    // anti-diagonal a = i + j + 1; above it a(a-1)/2 cells\n    %ij = arith.addi %i, %j : index\n    %a = arith.addi %ij, %c1 : index\n    %am1 = arith.subi %a, %c1 : index\n    %t = arith.muli %a, %am1 : index\n    %tri = arith.divui %t, %c2 : index\n    %upper = arith.addi %i, %tri : index\n    // lower triangle: n*n - n + i - a'(a'-1)/2 with a' = 2n - a\n    %a2 = arith.subi %twon, %a : index\n    %a2m1 = arith.subi %a2, %c1 : index\n    %t2 = arith.muli %a2, %a2m1 : index\n    %tri2 = arith.divui %t2, %c2 : index\n    %base = arith.addi %nn_n, %i : index\n    %lower = arith.subi %base, %tri2 : index\n    %in_upper = arith.cmpi ule, %a, %n : index\n    %f = arith.select %in_upper, %upper, %lower : index\n    lego.yield %f : index\n  } : !lego.layout\n  %flat = lego.apply %ad(%p0, %p1) : !lego.layout\n  return %flat : index\n}\n"
 },
 {
  "id": "fig2",
  "name": "paper Fig. 2",
  "text": "// The LEGO paper's Fig. 2: group_by [6, 4](order_by(reg_p perm [1, 0] dims [2, 2], rev(3, 2))).\n// apply(4, 1) = 6 and apply_inverse(6) = (4, 1) (docs/reference/semantics.md, worked example 1).\nfunc.func @fig2(%p0: index, %p1: index) -> index {\n  %swap = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout\n  // rev(3, 2): f(i, j) = (3-1-i)·2 + (2-1-j); inverse g(x) = (3-1 - x div 2, 2-1 - x mod 2).\n  %rev = lego.gen_p [3, 2] apply (%a: index, %b: index) {\n    %c1 = arith.constant 1 : index\n    %c2 = arith.constant 2 : index\n    %ra = arith.subi %c2, %a : index\n    %rb = arith.subi %c1, %b : index\n    %row = arith.muli %ra, %c2 : index\n    %f = arith.addi %row, %rb : index\n    lego.yield %f : index\n  } inv (%x: index) {\n    %c1 = arith.constant 1 : index\n    %c2 = arith.constant 2 : index\n    %q = arith.divui %x, %c2 : index\n    %r = arith.remui %x, %c2 : index\n    %a = arith.subi %c2, %q : index\n    %b = arith.subi %c1, %r : index\n    lego.yield %a, %b : index, index\n  } : !lego.layout\n  %order = lego.order_by(%swap, %rev) : !lego.layout\n  %layout = lego.group_by [6, 4](%order) : !lego.layout\n  %flat = lego.apply %layout(%p0, %p1) : !lego.layout\n  return %flat : index\n}\n"
 },
 {
  "id": "fig6",
  "name": "paper Fig. 6",
  "text": "// The LEGO paper's Fig. 6: group_by [6, 6](O1, O2), O2 applied first, with\n// O1 = order_by(reg_p perm [1, 0] dims [2, 2], antidiag(3)), O2 = order_by(reg_p perm [0, 2, 1, 3] dims [2, 3, 2, 3]).\n// apply(4, 2) = 15 (docs/reference/semantics.md, worked example 2).\nfunc.func @fig6(%p0: index, %p1: index) -> index {\n  %r2 = lego.reg_p perm [0, 2, 1, 3] dims [2, 3, 2, 3] : !lego.layout\n  %o2 = lego.order_by(%r2) : !lego.layout\n  %r1 = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout\n  %ad = lego.gen_p [3, 3] apply (%i: index, %j: index) {\n    %c1 = arith.constant 1 : index\n    %c2 = arith.constant 2 : index\n    %n = arith.constant 3 : index\n    %twon = arith.constant 6 : index\n    %nn_n = arith.constant 6 : index\n    // anti-diagonal a = i + j + 1; above it a(a-1)/2 cells\n    %ij = arith.addi %i, %j : index\n    %a = arith.addi %ij, %c1 : index\n    %am1 = arith.subi %a, %c1 : index\n    %t = arith.muli %a, %am1 : index\n    %tri = arith.divui %t, %c2 : index\n    %upper = arith.addi %i, %tri : index\n    // lower triangle: n*n - n + i - a'(a'-1)/2 with a' = 2n - a\n    %a2 = arith.subi %twon, %a : index\n    %a2m1 = arith.subi %a2, %c1 : index\n    %t2 = arith.muli %a2, %a2m1 : index\n    %tri2 = arith.divui %t2, %c2 : index\n    %base = arith.addi %nn_n, %i : index\n    %lower = arith.subi %base, %tri2 : index\n    %in_upper = arith.cmpi ule, %a, %n : index\n    %f = arith.select %in_upper, %upper, %lower : index\n    lego.yield %f : index\n  } : !lego.layout\n  %o1 = lego.order_by(%r1, %ad) : !lego.layout\n  %l = lego.group_by [6, 6](%o1, %o2) : !lego.layout\n  %flat = lego.apply %l(%p0, %p1) : !lego.layout\n  return %flat : index\n}\n"
 },
 {
  "id": "nd",
  "name": "3-d col 3 × 4 × 5",
  "text": "// A rank-3 layout, drawn as nested grids: (i, j, k) is at i + 3·j + 12·k.\nfunc.func @nd(%p0: index, %p1: index, %p2: index) -> index {\n  %l = lego.col [3, 4, 5] : !lego.layout\n  %flat = lego.apply %l(%p0, %p1, %p2) : !lego.layout\n  return %flat : index\n}\n"
 }
];
