// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-verify-bijectivity='verbose=true timeout-ms=60000'
// RUN: lego-opt %s --split-input-file --lego-verify-bijectivity='timeout-ms=60000' | FileCheck %s
// Every gen_p here is a bijection; the negative twins are in bijectivity-errors.mlir.

// rev(3, 2) of docs/reference/semantics.md, and the paper's Fig. 2 layout built from it.
// CHECK-LABEL: func.func @fig2
// CHECK: lego.gen_p
func.func @fig2(%i: index, %j: index) -> index {
  %swap = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout
  // expected-remark @below {{gen_p is a bijection on its 6 points: inv(apply(x)) = x and apply(inv(y)) = y (proved with Z3 in}}
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
  // expected-remark @below {{bijective: built only from bijective pieces with matching sizes (24 elements)}}
  %order = lego.order_by(%swap, %rev) : !lego.layout
  // expected-remark @below {{bijective: built only from bijective pieces with matching sizes (24 elements)}}
  %layout = lego.group_by [6, 4](%order) : !lego.layout
  %flat = lego.apply %layout(%i, %j) : !lego.layout
  return %flat : index
}

// -----

// rev(n1, n2) with symbolic sizes: proved for every size (up to 2^32 elements), not size by size.
func.func @rev_symbolic(%n1: index, %n2: index) -> !lego.layout {
  // expected-remark @below {{gen_p is a bijection for all sizes with at most 2^32 elements}}
  %rev = lego.gen_p [%n1, %n2] apply (%i: index, %j: index) {
    %c1 = arith.constant 1 : index
    %last1 = arith.subi %n1, %c1 : index
    %last2 = arith.subi %n2, %c1 : index
    %ri = arith.subi %last1, %i : index
    %rj = arith.subi %last2, %j : index
    %row = arith.muli %ri, %n2 : index
    %f = arith.addi %row, %rj : index
    lego.yield %f : index
  } inv (%x: index) {
    %c1 = arith.constant 1 : index
    %last1 = arith.subi %n1, %c1 : index
    %last2 = arith.subi %n2, %c1 : index
    %q = arith.divui %x, %n2 : index
    %r = arith.remui %x, %n2 : index
    %i = arith.subi %last1, %q : index
    %j = arith.subi %last2, %r : index
    lego.yield %i, %j : index, index
  } : !lego.layout
  return %rev : !lego.layout
}

// -----

// antidiag(3) of paper Fig. 7, with the inverse written with floating-point sqrt/floor as in the paper:
// float math is not in the SMT encoding, so the 9 points are checked by exhaustive evaluation.
func.func @antidiag3() -> !lego.layout {
  // expected-remark @below {{gen_p is a bijection on its 9 points: inv(apply(x)) = x and apply(inv(y)) = y (float math: checked by exhaustive evaluation in}}
  %l = lego.gen_p [3, 3] apply (%i: index, %j: index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %n = arith.constant 3 : index
    %s = arith.addi %i, %j : index
    %a = arith.addi %s, %c1 : index
    %upper = arith.cmpi ule, %a, %n : index
    %am1 = arith.subi %a, %c1 : index
    %t = arith.muli %a, %am1 : index
    %tri = arith.divui %t, %c2 : index
    %f_up = arith.addi %i, %tri : index
    %n2 = arith.muli %n, %c2 : index
    %b = arith.subi %n2, %a : index
    %bm1 = arith.subi %b, %c1 : index
    %tb = arith.muli %b, %bm1 : index
    %trib = arith.divui %tb, %c2 : index
    %nn = arith.muli %n, %n : index
    %base = arith.subi %nn, %n : index
    %lo1 = arith.addi %base, %i : index
    %f_lo = arith.subi %lo1, %trib : index
    %f = arith.select %upper, %f_up, %f_lo : index
    lego.yield %f : index
  } inv (%x: index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %n = arith.constant 3 : index
    %np1 = arith.addi %n, %c1 : index
    %nnp1 = arith.muli %n, %np1 : index
    %half = arith.divui %nnp1, %c2 : index
    %upper = arith.cmpi ult, %x, %half : index
    %nn = arith.muli %n, %n : index
    %last = arith.subi %nn, %c1 : index
    %y = arith.subi %last, %x : index
    %z = arith.select %upper, %x, %y : index
    %z8 = arith.muli %z, %c8 : index
    %v = arith.addi %z8, %c1 : index
    %vi = arith.index_cast %v : index to i64
    %vf = arith.uitofp %vi : i64 to f64
    %sq = math.sqrt %vf : f64
    %fl = math.floor %sq : f64
    %r = arith.fptoui %fl : f64 to i64
    %ri = arith.index_cast %r : i64 to index
    %r1 = arith.addi %ri, %c1 : index
    %a = arith.divui %r1, %c2 : index
    %am1 = arith.subi %a, %c1 : index
    %t = arith.muli %a, %am1 : index
    %tri = arith.divui %t, %c2 : index
    %d = arith.subi %z, %tri : index
    %j_up = arith.subi %am1, %d : index
    %nm1 = arith.subi %n, %c1 : index
    %i_lo = arith.subi %nm1, %d : index
    %na = arith.subi %n, %a : index
    %j_lo = arith.addi %na, %d : index
    %i = arith.select %upper, %d, %i_lo : index
    %j = arith.select %upper, %j_up, %j_lo : index
    lego.yield %i, %j : index, index
  } : !lego.layout
  return %l : !lego.layout
}

// -----

// antidiag(4), same code with n = 4 (docs/reference/semantics.md: rows [0 1 3 6] [2 4 7 10] [5 8 11 13] [9 12 14 15]).
func.func @antidiag4() -> !lego.layout {
  // expected-remark @below {{gen_p is a bijection on its 16 points: inv(apply(x)) = x and apply(inv(y)) = y (float math: checked by exhaustive evaluation in}}
  %l = lego.gen_p [4, 4] apply (%i: index, %j: index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %n = arith.constant 4 : index
    %s = arith.addi %i, %j : index
    %a = arith.addi %s, %c1 : index
    %upper = arith.cmpi ule, %a, %n : index
    %am1 = arith.subi %a, %c1 : index
    %t = arith.muli %a, %am1 : index
    %tri = arith.divui %t, %c2 : index
    %f_up = arith.addi %i, %tri : index
    %n2 = arith.muli %n, %c2 : index
    %b = arith.subi %n2, %a : index
    %bm1 = arith.subi %b, %c1 : index
    %tb = arith.muli %b, %bm1 : index
    %trib = arith.divui %tb, %c2 : index
    %nn = arith.muli %n, %n : index
    %base = arith.subi %nn, %n : index
    %lo1 = arith.addi %base, %i : index
    %f_lo = arith.subi %lo1, %trib : index
    %f = arith.select %upper, %f_up, %f_lo : index
    lego.yield %f : index
  } inv (%x: index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %n = arith.constant 4 : index
    %np1 = arith.addi %n, %c1 : index
    %nnp1 = arith.muli %n, %np1 : index
    %half = arith.divui %nnp1, %c2 : index
    %upper = arith.cmpi ult, %x, %half : index
    %nn = arith.muli %n, %n : index
    %last = arith.subi %nn, %c1 : index
    %y = arith.subi %last, %x : index
    %z = arith.select %upper, %x, %y : index
    %z8 = arith.muli %z, %c8 : index
    %v = arith.addi %z8, %c1 : index
    %vi = arith.index_cast %v : index to i64
    %vf = arith.uitofp %vi : i64 to f64
    %sq = math.sqrt %vf : f64
    %fl = math.floor %sq : f64
    %r = arith.fptoui %fl : f64 to i64
    %ri = arith.index_cast %r : i64 to index
    %r1 = arith.addi %ri, %c1 : index
    %a = arith.divui %r1, %c2 : index
    %am1 = arith.subi %a, %c1 : index
    %t = arith.muli %a, %am1 : index
    %tri = arith.divui %t, %c2 : index
    %d = arith.subi %z, %tri : index
    %j_up = arith.subi %am1, %d : index
    %nm1 = arith.subi %n, %c1 : index
    %i_lo = arith.subi %nm1, %d : index
    %na = arith.subi %n, %a : index
    %j_lo = arith.addi %na, %d : index
    %i = arith.select %upper, %d, %i_lo : index
    %j = arith.select %upper, %j_up, %j_lo : index
    lego.yield %i, %j : index, index
  } : !lego.layout
  return %l : !lego.layout
}

// -----

// Paper Fig. 6: L = group_by [6, 6](O1, O2), O1 = order_by(reg_p perm [1, 0] dims [2, 2], antidiag(3)),
// O2 = order_by(reg_p perm [0, 2, 1, 3] dims [2, 3, 2, 3]). Composites of proved pieces are bijective.
func.func @fig6(%row: index, %col: index) -> index {
  // expected-remark @below {{gen_p is a bijection on its 9 points: inv(apply(x)) = x and apply(inv(y)) = y (float math: checked by exhaustive evaluation in}}
  %l = lego.gen_p [3, 3] apply (%i: index, %j: index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %n = arith.constant 3 : index
    %s = arith.addi %i, %j : index
    %a = arith.addi %s, %c1 : index
    %upper = arith.cmpi ule, %a, %n : index
    %am1 = arith.subi %a, %c1 : index
    %t = arith.muli %a, %am1 : index
    %tri = arith.divui %t, %c2 : index
    %f_up = arith.addi %i, %tri : index
    %n2 = arith.muli %n, %c2 : index
    %b = arith.subi %n2, %a : index
    %bm1 = arith.subi %b, %c1 : index
    %tb = arith.muli %b, %bm1 : index
    %trib = arith.divui %tb, %c2 : index
    %nn = arith.muli %n, %n : index
    %base = arith.subi %nn, %n : index
    %lo1 = arith.addi %base, %i : index
    %f_lo = arith.subi %lo1, %trib : index
    %f = arith.select %upper, %f_up, %f_lo : index
    lego.yield %f : index
  } inv (%x: index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %n = arith.constant 3 : index
    %np1 = arith.addi %n, %c1 : index
    %nnp1 = arith.muli %n, %np1 : index
    %half = arith.divui %nnp1, %c2 : index
    %upper = arith.cmpi ult, %x, %half : index
    %nn = arith.muli %n, %n : index
    %last = arith.subi %nn, %c1 : index
    %y = arith.subi %last, %x : index
    %z = arith.select %upper, %x, %y : index
    %z8 = arith.muli %z, %c8 : index
    %v = arith.addi %z8, %c1 : index
    %vi = arith.index_cast %v : index to i64
    %vf = arith.uitofp %vi : i64 to f64
    %sq = math.sqrt %vf : f64
    %fl = math.floor %sq : f64
    %r = arith.fptoui %fl : f64 to i64
    %ri = arith.index_cast %r : i64 to index
    %r1 = arith.addi %ri, %c1 : index
    %a = arith.divui %r1, %c2 : index
    %am1 = arith.subi %a, %c1 : index
    %t = arith.muli %a, %am1 : index
    %tri = arith.divui %t, %c2 : index
    %d = arith.subi %z, %tri : index
    %j_up = arith.subi %am1, %d : index
    %nm1 = arith.subi %n, %c1 : index
    %i_lo = arith.subi %nm1, %d : index
    %na = arith.subi %n, %a : index
    %j_lo = arith.addi %na, %d : index
    %i = arith.select %upper, %d, %i_lo : index
    %j = arith.select %upper, %j_up, %j_lo : index
    lego.yield %i, %j : index, index
  } : !lego.layout
  %swap = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout
  // expected-remark @below {{bijective: built only from bijective pieces with matching sizes (36 elements)}}
  %o1 = lego.order_by(%swap, %l) : !lego.layout
  %p = lego.reg_p perm [0, 2, 1, 3] dims [2, 3, 2, 3] : !lego.layout
  // expected-remark @below {{bijective: built only from bijective pieces with matching sizes (36 elements)}}
  %o2 = lego.order_by(%p) : !lego.layout
  // expected-remark @below {{bijective: built only from bijective pieces with matching sizes (36 elements)}}
  %layout = lego.group_by [6, 6](%o1, %o2) : !lego.layout
  %flat = lego.apply %layout(%row, %col) : !lego.layout
  return %flat : index
}

// -----

// antidiag(4) with an integer-only inverse (digit-by-digit isqrt, as lego-algebra emits it): Z3 proves it.
func.func @antidiag4_integer() -> !lego.layout {
  // expected-remark @below {{gen_p is a bijection on its 16 points: inv(apply(x)) = x and apply(inv(y)) = y (proved with Z3 in}}
  %l0 = lego.gen_p [4, 4] apply (%l0_a0: index, %l0_a1: index) {
    %l0_v0 = arith.constant 1 : index
    %l0_v1 = arith.constant 2 : index
    %l0_v2 = arith.addi %l0_a0, %l0_a1 : index
    %l0_v3 = arith.addi %l0_v2, %l0_v0 : index
    %l0_v4 = arith.subi %l0_v3, %l0_v0 : index
    %l0_v5 = arith.muli %l0_v3, %l0_v4 : index
    %l0_v6 = arith.divui %l0_v5, %l0_v1 : index
    %l0_v7 = arith.addi %l0_a0, %l0_v6 : index
    %l0_v8 = arith.constant 8 : index
    %l0_v9 = arith.subi %l0_v8, %l0_v3 : index
    %l0_v10 = arith.subi %l0_v9, %l0_v0 : index
    %l0_v11 = arith.muli %l0_v9, %l0_v10 : index
    %l0_v12 = arith.divui %l0_v11, %l0_v1 : index
    %l0_v13 = arith.constant 12 : index
    %l0_v14 = arith.addi %l0_v13, %l0_a0 : index
    %l0_v15 = arith.subi %l0_v14, %l0_v12 : index
    %l0_v16 = arith.constant 4 : index
    %l0_v17 = arith.cmpi ule, %l0_v3, %l0_v16 : index
    %l0_v18 = arith.select %l0_v17, %l0_v7, %l0_v15 : index
    lego.yield %l0_v18 : index
  } inv (%l0_x: index) {
    %l0_w0 = arith.constant 1 : index
    %l0_w1 = arith.constant 2 : index
    %l0_w2 = arith.constant 8 : index
    %l0_w3 = arith.constant 10 : index
    %l0_w4 = arith.cmpi ult, %l0_x, %l0_w3 : index
    %l0_w5 = arith.constant 15 : index
    %l0_w6 = arith.subi %l0_w5, %l0_x : index
    %l0_w7 = arith.select %l0_w4, %l0_x, %l0_w6 : index
    %l0_w8 = arith.muli %l0_w7, %l0_w2 : index
    %l0_w9 = arith.addi %l0_w8, %l0_w0 : index
    %l0_w10 = arith.constant 0 : index
    %l0_w11 = arith.addi %l0_w10, %l0_w2 : index
    %l0_w12 = arith.muli %l0_w11, %l0_w11 : index
    %l0_w13 = arith.cmpi ule, %l0_w12, %l0_w9 : index
    %l0_w14 = arith.select %l0_w13, %l0_w11, %l0_w10 : index
    %l0_w15 = arith.constant 4 : index
    %l0_w16 = arith.addi %l0_w14, %l0_w15 : index
    %l0_w17 = arith.muli %l0_w16, %l0_w16 : index
    %l0_w18 = arith.cmpi ule, %l0_w17, %l0_w9 : index
    %l0_w19 = arith.select %l0_w18, %l0_w16, %l0_w14 : index
    %l0_w20 = arith.addi %l0_w19, %l0_w1 : index
    %l0_w21 = arith.muli %l0_w20, %l0_w20 : index
    %l0_w22 = arith.cmpi ule, %l0_w21, %l0_w9 : index
    %l0_w23 = arith.select %l0_w22, %l0_w20, %l0_w19 : index
    %l0_w24 = arith.addi %l0_w23, %l0_w0 : index
    %l0_w25 = arith.muli %l0_w24, %l0_w24 : index
    %l0_w26 = arith.cmpi ule, %l0_w25, %l0_w9 : index
    %l0_w27 = arith.select %l0_w26, %l0_w24, %l0_w23 : index
    %l0_w28 = arith.addi %l0_w27, %l0_w0 : index
    %l0_w29 = arith.divui %l0_w28, %l0_w1 : index
    %l0_w30 = arith.subi %l0_w29, %l0_w0 : index
    %l0_w31 = arith.muli %l0_w29, %l0_w30 : index
    %l0_w32 = arith.divui %l0_w31, %l0_w1 : index
    %l0_w33 = arith.subi %l0_w7, %l0_w32 : index
    %l0_w34 = arith.subi %l0_w30, %l0_w33 : index
    %l0_w35 = arith.constant 3 : index
    %l0_w36 = arith.subi %l0_w35, %l0_w33 : index
    %l0_w37 = arith.subi %l0_w15, %l0_w29 : index
    %l0_w38 = arith.addi %l0_w37, %l0_w33 : index
    %l0_w39 = arith.select %l0_w4, %l0_w33, %l0_w36 : index
    %l0_w40 = arith.select %l0_w4, %l0_w34, %l0_w38 : index
    lego.yield %l0_w39, %l0_w40 : index, index
  } : !lego.layout
  return %l0 : !lego.layout
}

// -----

// tile_by of a row layout: bijective by the size rules (each dim's tile sizes multiply to the dim).
func.func @tiled(%a: index, %b: index, %c: index, %d: index) -> index {
  %row = lego.row [8, 12] : !lego.layout
  // expected-remark @below {{bijective: built only from bijective pieces with matching sizes (96 elements)}}
  %o = lego.order_by(%row) : !lego.layout
  // expected-remark @below {{bijective: built only from bijective pieces with matching sizes (96 elements)}}
  %t = lego.tile_by %o tile_dims [[2, 4], [4, 3]] : !lego.layout
  %f = lego.apply %t(%a, %b, %c, %d) : !lego.layout
  return %f : index
}
