// expand_by (partial tiles, paper Fig. 9): apply(s⃗) = B(n⃗, j⃗) with j⃗ = B⁻¹(m⃗, apply(L, s⃗)) when every
// j_k < n_k, else -1 ("no element"); inv(x) = inv(L, B(m⃗, B⁻¹(n⃗, x))). The logical index is that of L,
// whose rank need not be len(n⃗); a view of an expand_by holds Π n⃗ elements.
// NOTE: needs the dialect's layout_shape / cast_view fix for expand_by (rank = rank(L), memref size = Π n⃗).
// RUN: lego-opt %s --lego-to-arith --canonicalize | FileCheck %s

// A 4x4 tile over a 10-element vector: positions 10..15 have no element.
// (2, 1) → 2·4 + 1 = 9 → 9; (3, 1) → 13 → -1; inverse(9) → (2, 1).
// CHECK-LABEL: func.func @partial_tile
// CHECK-DAG: %[[C9:.*]] = arith.constant 9 : index
// CHECK-DAG: %[[NONE:.*]] = arith.constant -1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: return %[[C9]], %[[NONE]], %[[C2]], %[[C1]]
func.func @partial_tile() -> (index, index, index, index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c9 = arith.constant 9 : index
  %tile = lego.row [4, 4] : !lego.layout
  %e = lego.expand_by %tile dims [10] to [16] : !lego.layout
  %in = lego.apply %e(%c2, %c1) : !lego.layout
  %out = lego.apply %e(%c3, %c1) : !lego.layout
  %i, %j = lego.apply_inverse %e(%c9) : !lego.layout -> index, index
  return %in, %out, %i, %j : index, index, index, index
}

// 2-d: col [4, 4] expanded from [3, 4]: (i, j) → x = j·4 + i, j⃗ = B⁻¹([4, 4], x) = (j, i);
// inside iff j < 3: (1, 2) → 2·4+1 = 9 → (2, 1) → 2·4 + 1 = 9; (1, 3) → 13 → (3, 1) → -1 (no element:
// accesses there are the program's to guard; this one is only lowered, never run).
// CHECK-LABEL: func.func @partial_view
// CHECK-SAME: (%[[M:.*]]: memref<12xf32>
// CHECK-DAG: %[[C9:.*]] = arith.constant 9 : index
// CHECK-DAG: %[[NONE:.*]] = arith.constant -1 : index
// CHECK: memref.load %[[M]][%[[C9]]] : memref<12xf32>
// CHECK: memref.store %{{.*}}, %[[M]][%[[NONE]]] : memref<12xf32>
func.func @partial_view(%m: memref<12xf32>) -> f32 {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %r = lego.col [4, 4] : !lego.layout
  %e = lego.expand_by %r dims [3, 4] to [4, 4] : !lego.layout
  %v = lego.cast_view %m, %e : memref<12xf32>, !lego.layout -> !lego.view<f32>
  %x = lego.load %v[%c1, %c2] : !lego.view<f32>, index, index
  lego.store %x, %v[%c1, %c3] : f32, !lego.view<f32>, index, index
  return %x : f32
}
