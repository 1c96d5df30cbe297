// lego.strided (docs/ops/strided.md): apply = Σ digit · stride, each index split over its mode's leaves first
// leaf fastest (CuTe's colexicographic order); the inverse of a compact one reads each leaf's digit as
// (y div stride) mod size.
// RUN: lego-opt %s --lego-to-arith | FileCheck %s
// RUN: lego-opt %s --lego-to-arith --canonicalize | FileCheck %s --check-prefix=FOLD
// RUN: lego-opt %s --lego-lower | FileCheck %s --check-prefix=LOWER

// ((4, 2), 8) : ((1, 32), 4): (i mod 4) + (i div 4)·32 + j·4.
// CHECK-LABEL: func.func @hierarchical
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index)
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[LO:.*]] = arith.remui %[[I]], %[[C4]] : index
// CHECK: %[[HI:.*]] = arith.divui %[[I]], %[[C4]] : index
// CHECK: %[[T:.*]] = arith.muli %[[HI]], %[[C32]] : index
// CHECK: %[[S:.*]] = arith.addi %[[LO]], %[[T]] : index
// CHECK: %[[U:.*]] = arith.muli %[[J]], %[[C4]] : index
// CHECK: %[[R:.*]] = arith.addi %[[S]], %[[U]] : index
// CHECK: return %[[R]] : index
func.func @hierarchical(%i: index, %j: index) -> index {
  %l = lego.strided shape [(4, 2), 8] stride [(1, 32), 4] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// lego-lower proves the round trip of a compact one: apply_inverse(apply(i, j)) = (i, j).
// LOWER-LABEL: func.func @round_trip
// LOWER-SAME: (%[[I:.*]]: index, %[[J:.*]]: index)
// LOWER: return %{{.*}}, %[[I]], %[[J]] : index, index, index
func.func @round_trip(%i: index, %j: index) -> (index, index, index) {
  %l = lego.strided shape [(4, 2), 8] stride [(1, 32), 4] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  %a, %b = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  return %f, %a, %b : index, index, index
}

// Hand values: (5, 3) → 1 + 1·32 + 3·4 = 45; inverse(45): leaf (4, 1): 45 mod 4 = 1, leaf (2, 32): 45 div 32 = 1,
// leaf (8, 4): (45 div 4) mod 8 = 3 → (1 + 1·4, 3) = (5, 3). Padded (4, 8):(9, 1) at (1, 2) → 11.
// CuTe's col-major (4, 8):(1, 4) at (1, 2) → 9, like lego.col [4, 8].
// FOLD-LABEL: func.func @hand_values
// FOLD-DAG: %[[C45:.*]] = arith.constant 45 : index
// FOLD-DAG: %[[C5:.*]] = arith.constant 5 : index
// FOLD-DAG: %[[C3:.*]] = arith.constant 3 : index
// FOLD-DAG: %[[C11:.*]] = arith.constant 11 : index
// FOLD-DAG: %[[C9:.*]] = arith.constant 9 : index
// FOLD: return %[[C45]], %[[C5]], %[[C3]], %[[C11]], %[[C9]]
func.func @hand_values() -> (index, index, index, index, index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c45 = arith.constant 45 : index
  %l = lego.strided shape [(4, 2), 8] stride [(1, 32), 4] : !lego.layout
  %f = lego.apply %l(%c5, %c3) : !lego.layout
  %a, %b = lego.apply_inverse %l(%c45) : !lego.layout -> index, index
  %p = lego.strided shape [4, 8] stride [9, 1] : !lego.layout
  %g = lego.apply %p(%c1, %c2) : !lego.layout
  %c = lego.strided shape [4, 8] stride [1, 4] : !lego.layout
  %h = lego.apply %c(%c1, %c2) : !lego.layout
  return %f, %a, %b, %g, %h : index, index, index, index, index
}

// A padded tile as a view: memref of the extent (35), loads at 9i + j.
// CHECK-LABEL: func.func @padded_view
// CHECK: %[[C9:.*]] = arith.constant 9 : index
// CHECK: %[[T:.*]] = arith.muli %arg1, %[[C9]] : index
// CHECK: %[[P:.*]] = arith.addi %[[T]], %arg2 : index
// CHECK: memref.load %arg0[%[[P]]] : memref<35xf32>
func.func @padded_view(%m: memref<35xf32>, %i: index, %j: index) -> f32 {
  %l = lego.strided shape [4, 8] stride [9, 1] : !lego.layout
  %v = lego.cast_view %m, %l : memref<35xf32>, !lego.layout -> !lego.view<f32>
  %x = lego.load %v[%i, %j] : !lego.view<f32>, index, index
  return %x : f32
}

// In chains: a compact strided as a group_by object (group_by [64](strided (8, 8):(8, 1)) at 10 → 10) and
// composed after a swizzle.
// FOLD-LABEL: func.func @in_chains
// FOLD: %[[C10:.*]] = arith.constant 10 : index
// FOLD: return %[[C10]]
func.func @in_chains() -> index {
  %c10 = arith.constant 10 : index
  %s = lego.strided shape [8, 8] stride [8, 1] : !lego.layout
  %g = lego.group_by [64](%s) : !lego.layout
  %f = lego.apply %g(%c10) : !lego.layout
  return %f : index
}
