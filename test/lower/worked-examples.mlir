// The worked examples of docs/reference/semantics.md, lowered with constant inputs: after canonicalization each function
// returns the constants the reference states (hand-checked values in the comments).
// RUN: lego-opt %s --lego-to-arith --canonicalize | FileCheck %s
// RUN: lego-opt %s --lego-normalization --lego-to-arith --canonicalize | FileCheck %s
// RUN: lego-opt %s --pass-pipeline='builtin.module(lego-normalization, lego-to-arith, canonicalize)' | FileCheck %s
// RUN: lego-opt %s --lego-lower | FileCheck %s --check-prefix=LOWER

// Paper Fig. 2: group_by [6, 4](order_by(reg_p perm [1, 0] dims [2, 2], rev(3, 2))).
// apply(4, 1): x = B([6,4], (4,1)) = 17; B⁻¹([2,2,3,2], 17) = (1,0,2,1); reg_p(1,0) = B([2,2],(0,1)) = 1;
// rev(2,1) = (3-1-2)·2 + (2-1-1) = 0; order_by: 1·6 + 0 = 6.
// CHECK-LABEL: func.func @fig2
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NOT: lego.
// CHECK: return %[[C6]], %[[C4]], %[[C1]] : index, index, index
func.func @fig2() -> (index, index, index) {
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %p = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout
  %rev = lego.gen_p [3, 2] apply (%i: index, %j: index) {
    %n1m1 = arith.constant 2 : index
    %n2 = arith.constant 2 : index
    %n2m1 = arith.constant 1 : index
    %r = arith.subi %n1m1, %i : index
    %s = arith.muli %r, %n2 : index
    %t = arith.subi %n2m1, %j : index
    %f = arith.addi %s, %t : index
    lego.yield %f : index
  } inv (%x: index) {
    %n1m1 = arith.constant 2 : index
    %n2 = arith.constant 2 : index
    %n2m1 = arith.constant 1 : index
    %q = arith.divui %x, %n2 : index
    %m = arith.remui %x, %n2 : index
    %i = arith.subi %n1m1, %q : index
    %j = arith.subi %n2m1, %m : index
    lego.yield %i, %j : index, index
  } : !lego.layout
  %o = lego.order_by(%p, %rev) : !lego.layout
  %l = lego.group_by [6, 4](%o) : !lego.layout
  %f = lego.apply %l(%c4, %c1) : !lego.layout
  %a, %b = lego.apply_inverse %l(%c6) : !lego.layout -> index, index
  return %f, %a, %b : index, index, index
}

// Paper Fig. 6: O2 = order_by(reg_p perm [0, 2, 1, 3] dims [2, 3, 2, 3]),
// O1 = order_by(reg_p perm [1, 0] dims [2, 2], antidiag(3)), L = group_by [6, 6](O1, O2).
// O2 alone: logical (4, 2) is flat 26 = B([2,3,2,3], (1,1,0,2)); reg_p gives B([2,2,3,3], (1,0,1,2)) = 23.
// L: apply(4, 2): O2 first: 23; B⁻¹([2,2,3,3], 23) = (1,0,1,2); reg_p [1,0](1,0) = 1; antidiag(3)(1,2):
// a = 4 > 3, a' = 2, f = 9 - 3 + 1 - 1 = 6; order_by: 1·9 + 6 = 15. apply_inverse(15) = (4, 2).
// antidiag(3) is written with scf.if (apply) and math.sqrt (inverse: a = (isqrt(8z+1)+1)/2).
// CHECK-LABEL: func.func @fig6
// CHECK-DAG: %[[C23:.*]] = arith.constant 23 : index
// CHECK-DAG: %[[C15:.*]] = arith.constant 15 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NOT: lego.
// CHECK-NOT: scf.
// CHECK: return %[[C23]], %[[C15]], %[[C4]], %[[C2]] : index, index, index, index
func.func @fig6() -> (index, index, index, index) {
  %c4 = arith.constant 4 : index
  %c2 = arith.constant 2 : index
  %c15 = arith.constant 15 : index
  %r2 = lego.reg_p perm [0, 2, 1, 3] dims [2, 3, 2, 3] : !lego.layout
  %o2 = lego.order_by(%r2) : !lego.layout
  %r1 = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout
  %ad = lego.gen_p [3, 3] apply (%i: index, %j: index) {
    %one = arith.constant 1 : index
    %two = arith.constant 2 : index
    %n = arith.constant 3 : index
    %base = arith.constant 6 : index
    %ij = arith.addi %i, %j : index
    %a = arith.addi %ij, %one : index
    %upper = arith.cmpi ule, %a, %n : index
    %f = scf.if %upper -> (index) {
      %am1 = arith.subi %a, %one : index
      %t = arith.muli %a, %am1 : index
      %tri = arith.divui %t, %two : index
      %v = arith.addi %i, %tri : index
      scf.yield %v : index
    } else {
      %twon = arith.constant 6 : index
      %a2 = arith.subi %twon, %a : index
      %a2m1 = arith.subi %a2, %one : index
      %t = arith.muli %a2, %a2m1 : index
      %tri = arith.divui %t, %two : index
      %bi = arith.addi %base, %i : index
      %v = arith.subi %bi, %tri : index
      scf.yield %v : index
    }
    lego.yield %f : index
  } inv (%x: index) {
    %one = arith.constant 1 : index
    %two = arith.constant 2 : index
    %n = arith.constant 3 : index
    %nm1 = arith.constant 2 : index
    %eight = arith.constant 8 : index
    %half = arith.constant 6 : index
    %last = arith.constant 8 : index
    %up = arith.cmpi ult, %x, %half : index
    %mirrored = arith.subi %last, %x : index
    %z = arith.select %up, %x, %mirrored : index
    %z8 = arith.muli %z, %eight : index
    %v = arith.addi %z8, %one : index
    %vi = arith.index_cast %v : index to i64
    %vf = arith.uitofp %vi : i64 to f64
    %sf = math.sqrt %vf : f64
    %si = arith.fptoui %sf : f64 to i64
    %s = arith.index_cast %si : i64 to index
    %s1 = arith.addi %s, %one : index
    %a = arith.divui %s1, %two : index
    %am1 = arith.subi %a, %one : index
    %t = arith.muli %a, %am1 : index
    %tri = arith.divui %t, %two : index
    %d = arith.subi %z, %tri : index
    %ju = arith.subi %am1, %d : index
    %il = arith.subi %nm1, %d : index
    %nma = arith.subi %n, %a : index
    %jl = arith.addi %nma, %d : index
    %i = arith.select %up, %d, %il : index
    %j = arith.select %up, %ju, %jl : index
    lego.yield %i, %j : index, index
  } : !lego.layout
  %o1 = lego.order_by(%r1, %ad) : !lego.layout
  %l = lego.group_by [6, 6](%o1, %o2) : !lego.layout
  %g2 = lego.group_by [6, 6](%o2) : !lego.layout
  %only_o2 = lego.apply %g2(%c4, %c2) : !lego.layout
  %f = lego.apply %l(%c4, %c2) : !lego.layout
  %a, %b = lego.apply_inverse %l(%c15) : !lego.layout -> index, index
  return %only_o2, %f, %a, %b : index, index, index, index
}

// tile_by (order_by(row [8, 12])) tile_dims [[2, 4], [4, 3]]: apply(1, 2, 3, 1) = (1·4+3)·12 + 2·3+1 = 91,
// and apply_inverse(91) = (1, 2, 3, 1).
// CHECK-LABEL: func.func @tile_by
// CHECK-DAG: %[[C91:.*]] = arith.constant 91 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NOT: lego.
// CHECK: return %[[C91]], %[[C1]], %[[C2]], %[[C3]], %[[C1]] : index, index, index, index, index
func.func @tile_by() -> (index, index, index, index, index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c91 = arith.constant 91 : index
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2, 4], [4, 3]] : !lego.layout
  %f = lego.apply %t(%c1, %c2, %c3, %c1) : !lego.layout
  %i:4 = lego.apply_inverse %t(%c91) : !lego.layout -> (index, index, index, index)
  return %f, %i#0, %i#1, %i#2, %i#3 : index, index, index, index, index
}

// row [4, 8] apply(1, 2) = 1·8 + 2 = 10; col [4, 8] apply(1, 2) = 2·4 + 1 = 9; both inverses give (1, 2).
// CHECK-LABEL: func.func @row_col
// CHECK-DAG: %[[C10:.*]] = arith.constant 10 : index
// CHECK-DAG: %[[C9:.*]] = arith.constant 9 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NOT: lego.
// CHECK: return %[[C10]], %[[C9]], %[[C1]], %[[C2]], %[[C1]], %[[C2]] : index, index, index, index, index, index
func.func @row_col() -> (index, index, index, index, index, index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c9 = arith.constant 9 : index
  %c10 = arith.constant 10 : index
  %row = lego.row [4, 8] : !lego.layout
  %col = lego.col [4, 8] : !lego.layout
  %fr = lego.apply %row(%c1, %c2) : !lego.layout
  %fc = lego.apply %col(%c1, %c2) : !lego.layout
  %ri, %rj = lego.apply_inverse %row(%c10) : !lego.layout -> index, index
  %ci, %cj = lego.apply_inverse %col(%c9) : !lego.layout -> index, index
  return %fr, %fc, %ri, %rj, %ci, %cj : index, index, index, index, index, index
}

// Round trips with symbolic inputs stay in lego-to-arith's output (docs/reference/lowering.md §2: no shortcut):
// apply(inv(x)) = (x div 8)·8 + x mod 8 and inv(apply(i, j)) = ((j + 8i) div 8, (j + 8i) mod 8); lego-lower
// folds them away entirely (the first by rule 7, the second from the layout's input ranges j < 8).
// CHECK-LABEL: func.func @round_trip
// CHECK-SAME: (%[[X:.*]]: index, %[[I:.*]]: index, %[[J:.*]]: index)
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[Q:.*]] = arith.divui %[[X]], %[[C8]] : index
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[X]], %[[C8]] : index
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[Q]], %[[C8]] : index
// CHECK-NEXT: %[[Y:.*]] = arith.addi %[[R]], %[[S]] : index
// CHECK-NEXT: %[[T:.*]] = arith.muli %[[I]], %[[C8]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[J]], %[[T]] : index
// CHECK-NEXT: %[[I2:.*]] = arith.divui %[[F]], %[[C8]] : index
// CHECK-NEXT: %[[J2:.*]] = arith.remui %[[F]], %[[C8]] : index
// CHECK-NEXT: return %[[Y]], %[[I2]], %[[J2]] : index, index, index
// LOWER-LABEL: func.func @round_trip
// LOWER-SAME: (%[[X:.*]]: index, %[[I:.*]]: index, %[[J:.*]]: index)
// LOWER-NEXT: return %[[X]], %[[I]], %[[J]] : index, index, index
func.func @round_trip(%x: index, %i: index, %j: index) -> (index, index, index) {
  %l = lego.row [4, 8] : !lego.layout
  %a, %b = lego.apply_inverse %l(%x) : !lego.layout -> index, index
  %y = lego.apply %l(%a, %b) : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  %i2, %j2 = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  return %y, %i2, %j2 : index, index, index
}
