// lego-to-arith{assume-bounds=true} states each layout's contract on its inputs (docs/reference/semantics.md: other inputs
// are unspecified) as lego.assume_bounds marked lego.layout_contract: every index of apply / load / store
// below its logical dim, the flat input of apply_inverse below the layout's size (∏n⃗ for expand_by).
// Constants get no fact. Without the option nothing is stated.
// RUN: lego-opt %s --split-input-file --lego-to-arith='assume-bounds=true' | FileCheck %s
// RUN: lego-opt %s --split-input-file --lego-to-arith | FileCheck %s --check-prefix=PLAIN
// Cleanup of the contract only: the user's own fact stays.
// RUN: lego-opt %s --split-input-file --pass-pipeline='builtin.module(lego-to-arith{assume-bounds=true}, lego-materialize-assume-bounds{cleanup=true only-layout-contract=true})' | FileCheck %s --check-prefix=DROP
// lego-lower uses the facts and leaves none of its own behind.
// RUN: lego-opt %s --split-input-file --lego-lower | FileCheck %s --check-prefix=LOWER
// Without the facts the output is plain unsigned arithmetic too (no affine op in any case).
// RUN: lego-opt %s --split-input-file --pass-pipeline='builtin.module(lego-to-arith, canonicalize, cse, lego-arith-simplification)' | FileCheck %s --check-prefix=NOFACTS

// PLAIN-NOT: lego.layout_contract
// NOFACTS-LABEL: func.func @apply

// CHECK-LABEL: func.func @apply
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[N:.*]]: index)
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: "lego.assume_bounds"(%[[I]], %[[N]]) {lego.layout_contract, operandSegmentSizes = array<i32: 1, 0, 1>}
// CHECK: "lego.assume_bounds"(%[[J]], %[[C8]]) {lego.layout_contract, operandSegmentSizes = array<i32: 1, 0, 1>}
// The constant index gets no fact.
// CHECK-NOT: lego.assume_bounds
// CHECK: arith.muli %[[I]], %[[C8]]
// DROP-LABEL: func.func @apply
// DROP-NOT: lego.layout_contract
// DROP: lego.assume_bounds %{{.*}} ub : %{{.*}}
// DROP-NOT: lego.layout_contract
// DROP: return
// lego-lower consumes the user's fact as well (docs/reference/lowering.md §3).
// LOWER-LABEL: func.func @apply
// LOWER-NOT: lego.
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
// CHECK-DAG: %[[C10:.*]] = arith.constant 10 : index
// CHECK: %[[SIZE:.*]] = arith.muli %[[N]], %{{.*}} : index
// CHECK: "lego.assume_bounds"(%[[X]], %[[SIZE]]) {lego.layout_contract
// CHECK: arith.divui %[[X]], %{{.*}} : index
// CHECK: "lego.assume_bounds"(%[[Y]], %[[C10]]) {lego.layout_contract
// (x div 8, x mod 8) is a shift and a mask; expand_by's inverse likewise.
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
// NOFACTS-NOT: affine.
// NOFACTS: arith.divui %{{.*}}, %{{.*}} : index
// NOFACTS: arith.remui %{{.*}}, %{{.*}} : index
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
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: "lego.assume_bounds"(%[[I]], %[[C4]]) {lego.layout_contract
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
// examples/transpose-smem.mlir): the computed index gets its fact too. Expanded, k + 33·u + 264·t costs as
// much as the lowering's (u + t·8)·33 + k, so lego-lower keeps the lego-to-arith form (docs/reference/lowering.md §3),
// strength-reduced.
// CHECK-LABEL: func.func @nested
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[R:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: "lego.assume_bounds"(%[[R]], %[[C32]]) {lego.layout_contract
// LOWER-LABEL: func.func @nested
// LOWER-SAME: (%[[T:.*]]: index, %[[U:.*]]: index, %[[K:.*]]: index)
// LOWER-DAG: %[[C3:.*]] = arith.constant 3 : index
// LOWER-DAG: %[[C33:.*]] = arith.constant 33 : index
// LOWER: %[[A:.*]] = arith.shli %[[T]], %[[C3]] : index
// LOWER-NEXT: %[[R:.*]] = arith.addi %[[U]], %[[A]] : index
// LOWER-NEXT: %[[B:.*]] = arith.muli %[[R]], %[[C33]] : index
// LOWER-NEXT: %[[F:.*]] = arith.addi %[[K]], %[[B]] : index
// LOWER-NEXT: return %[[F]] : index
func.func @nested(%t: index, %u: index, %k: index) -> index {
  %inner = lego.row [4, 8] : !lego.layout
  %r = lego.apply %inner(%t, %u) : !lego.layout
  %smem = lego.row [32, 33] : !lego.layout
  %f = lego.apply %smem(%r, %k) : !lego.layout
  return %f : index
}
