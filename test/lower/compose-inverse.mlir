// lego.compose and lego.inverse (docs/ops/compose.md, docs/ops/inverse.md).
// RUN: lego-opt %s --lego-to-arith | FileCheck %s
// RUN: lego-opt %s --lego-to-arith --canonicalize | FileCheck %s --check-prefix=FOLD

// apply(inverse(L)) lowers to exactly the ops of apply_inverse(L): the same lines, in the same order, for both
// functions (L = group_by [32](order_by(col [4, 8])), rank 1).
// CHECK-LABEL: func.func @apply_of_inverse
// CHECK-NEXT:    %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT:    %[[A:.*]] = arith.remui %arg0, %[[C32]] : index
// CHECK-NEXT:    %[[B:.*]] = arith.divui %[[A]], %[[C4]] : index
// CHECK-NEXT:    %[[C:.*]] = arith.remui %[[A]], %[[C4]] : index
// CHECK-NEXT:    %[[D:.*]] = arith.muli %[[C]], %[[C8]] : index
// CHECK-NEXT:    %[[E:.*]] = arith.addi %[[B]], %[[D]] : index
// CHECK-NEXT:    return %[[E]] : index
func.func @apply_of_inverse(%x: index) -> index {
  %c = lego.col [4, 8] : !lego.layout
  %o = lego.order_by(%c) : !lego.layout
  %l = lego.group_by [32](%o) : !lego.layout
  %inv = lego.inverse %l : !lego.layout
  %f = lego.apply %inv(%x) : !lego.layout
  return %f : index
}

// CHECK-LABEL: func.func @apply_inverse
// CHECK-NEXT:    %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT:    %[[A:.*]] = arith.remui %arg0, %[[C32]] : index
// CHECK-NEXT:    %[[B:.*]] = arith.divui %[[A]], %[[C4]] : index
// CHECK-NEXT:    %[[C:.*]] = arith.remui %[[A]], %[[C4]] : index
// CHECK-NEXT:    %[[D:.*]] = arith.muli %[[C]], %[[C8]] : index
// CHECK-NEXT:    %[[E:.*]] = arith.addi %[[B]], %[[D]] : index
// CHECK-NEXT:    return %[[E]] : index
func.func @apply_inverse(%x: index) -> index {
  %c = lego.col [4, 8] : !lego.layout
  %o = lego.order_by(%c) : !lego.layout
  %l = lego.group_by [32](%o) : !lego.layout
  %i = lego.apply_inverse %l(%x) : !lego.layout -> index
  return %i : index
}

// Rank 2: apply(inverse(L)) is apply_inverse(L) followed by the row-major flatten of its indices, i.e. the
// same ops as apply(row dims(L), apply_inverse(L, x)). L = col [4, 8]: x → (x mod 4, x div 4) → 8·(x mod 4) + x div 4.
// CHECK-LABEL: func.func @rank2_inverse
// CHECK-NEXT:    %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[Q:.*]] = arith.divui %arg0, %[[C4]] : index
// CHECK-NEXT:    %[[R:.*]] = arith.remui %arg0, %[[C4]] : index
// CHECK-NEXT:    %[[S:.*]] = arith.muli %[[R]], %[[C8]] : index
// CHECK-NEXT:    %[[F:.*]] = arith.addi %[[Q]], %[[S]] : index
// CHECK-NEXT:    return %[[F]] : index
func.func @rank2_inverse(%x: index) -> index {
  %l = lego.col [4, 8] : !lego.layout
  %inv = lego.inverse %l : !lego.layout
  %f = lego.apply %inv(%x) : !lego.layout
  return %f : index
}

// CHECK-LABEL: func.func @rank2_apply_inverse_then_row
// CHECK-NEXT:    %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[Q:.*]] = arith.divui %arg0, %[[C4]] : index
// CHECK-NEXT:    %[[R:.*]] = arith.remui %arg0, %[[C4]] : index
// CHECK-NEXT:    %[[S:.*]] = arith.muli %[[R]], %[[C8]] : index
// CHECK-NEXT:    %[[F:.*]] = arith.addi %[[Q]], %[[S]] : index
// CHECK-NEXT:    return %[[F]] : index
func.func @rank2_apply_inverse_then_row(%x: index) -> index {
  %l = lego.col [4, 8] : !lego.layout
  %i, %j = lego.apply_inverse %l(%x) : !lego.layout -> index, index
  %row = lego.row [4, 8] : !lego.layout
  %f = lego.apply %row(%i, %j) : !lego.layout
  return %f : index
}

// Hand values. compose(col [4, 8], row [8, 4]) at (3, 2): row gives 14 = (1, 6) over [4, 8], col gives
// 6·4 + 1 = 25; its inverse at 25 gives (3, 2) back. inverse(col [4, 8]) at 9: (1, 2) → 1·8 + 2 = 10, and
// apply_inverse of it at 10 gives 9. inverse(inverse(L)) has L's values: col [4, 8] at (1, 2) = 9, at flat 10.
// Ranks may differ: compose(rev(3, 2) as a gen_p, row [6]) at 1 → rev(0, 1) = 4.
// FOLD-LABEL: func.func @hand_values
// FOLD-DAG: %[[C25:.*]] = arith.constant 25 : index
// FOLD-DAG: %[[C3:.*]] = arith.constant 3 : index
// FOLD-DAG: %[[C2:.*]] = arith.constant 2 : index
// FOLD-DAG: %[[C10:.*]] = arith.constant 10 : index
// FOLD-DAG: %[[C9:.*]] = arith.constant 9 : index
// FOLD-DAG: %[[C4:.*]] = arith.constant 4 : index
// FOLD: return %[[C25]], %[[C3]], %[[C2]], %[[C10]], %[[C9]], %[[C9]], %[[C4]]
func.func @hand_values() -> (index, index, index, index, index, index, index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c9 = arith.constant 9 : index
  %c10 = arith.constant 10 : index
  %col = lego.col [4, 8] : !lego.layout
  %row = lego.row [8, 4] : !lego.layout
  %c = lego.compose %col, %row : !lego.layout
  %f = lego.apply %c(%c3, %c2) : !lego.layout
  %r, %s = lego.apply_inverse %c(%f) : !lego.layout -> index, index
  %inv = lego.inverse %col : !lego.layout
  %g = lego.apply %inv(%c9) : !lego.layout
  %h = lego.apply_inverse %inv(%c10) : !lego.layout -> index
  %twice = lego.inverse %inv : !lego.layout
  %k = lego.apply %twice(%c10) : !lego.layout
  %rev = lego.gen_p [3, 2] apply (%a: index, %b: index) {
    %one = arith.constant 1 : index
    %two = arith.constant 2 : index
    %ra = arith.subi %two, %a : index
    %rb = arith.subi %one, %b : index
    %m = arith.muli %ra, %two : index
    %y = arith.addi %m, %rb : index
    lego.yield %y : index
  } : !lego.layout
  %flat = lego.row [6] : !lego.layout
  %cr = lego.compose %rev, %flat : !lego.layout
  %e = lego.apply %cr(%c1) : !lego.layout
  return %f, %r, %s, %g, %h, %k, %e : index, index, index, index, index, index, index
}
