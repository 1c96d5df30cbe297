// lego-to-arith{assume-bounds=true} states each layout's contract on its inputs (semantics.md: other inputs
// are unspecified) as lego.assume_bounds marked lego.layout_contract: every index of apply / load / store
// below its logical dim, the flat input of apply_inverse below the layout's size (∏n⃗ for expand_by).
// Constants get no fact. Without the option nothing is stated.
// RUN: lego-opt %s --split-input-file --lego-to-arith='assume-bounds=true' | FileCheck %s
// RUN: lego-opt %s --split-input-file --lego-to-arith | FileCheck %s --check-prefix=PLAIN
// Cleanup of the contract only: the user's own fact stays.
// RUN: lego-opt %s --split-input-file --pass-pipeline='builtin.module(lego-to-arith{assume-bounds=true}, lego-materialize-assume-bounds{cleanup=true only-layout-contract=true})' | FileCheck %s --check-prefix=DROP
// lego-lower uses the facts and leaves none of its own behind.
// RUN: lego-opt %s --split-input-file --lego-lower | FileCheck %s --check-prefix=LOWER
// Without the facts the simplifier cannot read B⁻¹ over a symbolic size as unsigned division (x might be
// ≥ 2^63, where affine's signed floor division differs): the affine op stays.
// RUN: lego-opt %s --split-input-file --pass-pipeline='builtin.module(lego-to-arith, canonicalize, cse, lego-arith-simplification)' | FileCheck %s --check-prefix=NOFACTS

// PLAIN-NOT: lego.layout_contract
// NOFACTS-LABEL: func.func @apply

// CHECK-LABEL: func.func @apply
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[N:.*]]: index)
// CHECK: "lego.assume_bounds"(%[[I]], %[[N]]) {lego.layout_contract, operandSegmentSizes = array<i32: 1, 0, 1>}
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: "lego.assume_bounds"(%[[J]], %[[C8]]) {lego.layout_contract, operandSegmentSizes = array<i32: 1, 0, 1>}
// The constant index gets no fact.
// CHECK-NOT: lego.assume_bounds
// CHECK: affine.linearize_index
// DROP-LABEL: func.func @apply
// DROP-NOT: lego.layout_contract
// DROP: lego.assume_bounds %{{.*}} ub : %{{.*}}
// DROP-NOT: lego.layout_contract
// DROP: return
// LOWER-LABEL: func.func @apply
// LOWER: lego.assume_bounds %{{.*}} ub : %{{.*}}
// LOWER-NOT: lego.layout_contract
// LOWER: return
func.func @apply(%i: index, %j: index, %n: index) -> (index, index) {
  %c4 = arith.constant 4 : index
  %c3 = arith.constant 3 : index
  lego.assume_bounds %n ub : %c4
  %l = lego.row [%n, 8] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  %g = lego.apply %l(%c3, %c3) : !lego.layout
  return %f, %g : index, index
}

// -----

// apply_inverse: flat < n·8 (a symbolic size), flat < 10 for an expand_by [10] to [16].
// CHECK-LABEL: func.func @inverse
// CHECK-SAME: (%[[X:.*]]: index, %[[N:.*]]: index, %[[Y:.*]]: index)
// CHECK: %[[SIZE:.*]] = arith.muli %[[N]], %{{.*}} : index
// CHECK: "lego.assume_bounds"(%[[X]], %[[SIZE]]) {lego.layout_contract
// CHECK: affine.delinearize_index %[[X]]
// CHECK: %[[C10:.*]] = arith.constant 10 : index
// CHECK: "lego.assume_bounds"(%[[Y]], %[[C10]]) {lego.layout_contract
// With x < 2^63 and x < n·8, B⁻¹ is a shift and a mask; expand_by's inverse likewise.
// LOWER-LABEL: func.func @inverse
// LOWER-SAME: (%[[X:.*]]: index, %[[N:.*]]: index, %[[Y:.*]]: index)
// LOWER-NOT: lego.
// LOWER-NOT: affine.
// LOWER-DAG: %[[C7:.*]] = arith.constant 7 : index
// LOWER-DAG: %[[C3:.*]] = arith.constant 3 : index
// LOWER-DAG: %[[C2:.*]] = arith.constant 2 : index
// LOWER-DAG: %[[J:.*]] = arith.andi %[[X]], %[[C7]] : index
// LOWER-DAG: %[[I:.*]] = arith.shrui %[[X]], %[[C3]] : index
// LOWER-DAG: %[[B:.*]] = arith.andi %[[Y]], %[[C3]] : index
// LOWER-DAG: %[[A:.*]] = arith.shrui %[[Y]], %[[C2]] : index
// LOWER: return %[[I]], %[[J]], %[[A]], %[[B]]
// NOFACTS-LABEL: func.func @inverse
// NOFACTS: affine.delinearize_index %{{.*}} into (%{{.*}}, 8)
func.func @inverse(%x: index, %n: index, %y: index) -> (index, index, index, index) {
  %l = lego.row [%n, 8] : !lego.layout
  %i, %j = lego.apply_inverse %l(%x) : !lego.layout -> index, index
  %tile = lego.row [4, 4] : !lego.layout
  %e = lego.expand_by %tile dims [10] to [16] : !lego.layout
  %a, %b = lego.apply_inverse %e(%y) : !lego.layout -> index, index
  return %i, %j, %a, %b : index, index, index, index
}

// -----

// load / store through a view: the view's layout bounds the element indices.
// CHECK-LABEL: func.func @view
// CHECK-SAME: (%[[M:.*]]: memref<32xf32>, %[[I:.*]]: index, %[[J:.*]]: index)
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: "lego.assume_bounds"(%[[I]], %[[C4]]) {lego.layout_contract
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: "lego.assume_bounds"(%[[J]], %[[C8]]) {lego.layout_contract
// CHECK: memref.load
// CHECK: "lego.assume_bounds"(%[[J]], %{{.*}}) {lego.layout_contract
// CHECK: "lego.assume_bounds"(%[[I]], %{{.*}}) {lego.layout_contract
// CHECK: memref.store
// LOWER-LABEL: func.func @view
// LOWER-NOT: lego.
// LOWER: return
func.func @view(%m: memref<32xf32>, %i: index, %j: index) {
  %l = lego.col [4, 8] : !lego.layout
  %v = lego.cast_view %m, %l : memref<32xf32>, !lego.layout -> !lego.view<f32>
  %x = lego.load %v[%i, %j] : !lego.view<f32>, index, index
  lego.store %x, %v[%j, %i] : f32, !lego.view<f32>, index, index
  return
}

// -----

// An apply feeding another (a tile's position in a padded shared-memory row, as in
// examples/transpose-smem.mlir): the computed index gets its fact too, and that use does not stop
// lego-lower from folding the two linearizations into plain arithmetic.
// CHECK-LABEL: func.func @nested
// CHECK: %[[R:.*]] = affine.linearize_index disjoint [%{{.*}}, %{{.*}}] by (4, 8)
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: "lego.assume_bounds"(%[[R]], %[[C32]]) {lego.layout_contract
// LOWER-LABEL: func.func @nested
// LOWER-SAME: (%[[T:.*]]: index, %[[U:.*]]: index, %[[K:.*]]: index)
// LOWER-NOT: affine.
// LOWER-DAG: %[[C264:.*]] = arith.constant 264 : index
// LOWER-DAG: %[[C33:.*]] = arith.constant 33 : index
// LOWER-DAG: %[[A:.*]] = arith.muli %[[T]], %[[C264]] : index
// LOWER-DAG: %[[B:.*]] = arith.muli %[[U]], %[[C33]] : index
// LOWER: %[[S:.*]] = arith.addi %[[A]], %[[B]] : index
// LOWER: %[[F:.*]] = arith.addi %[[S]], %[[K]] : index
// LOWER: return %[[F]] : index
func.func @nested(%t: index, %u: index, %k: index) -> index {
  %inner = lego.row [4, 8] : !lego.layout
  %r = lego.apply %inner(%t, %u) : !lego.layout
  %smem = lego.row [32, 33] : !lego.layout
  %f = lego.apply %smem(%r, %k) : !lego.layout
  return %f : index
}
