// lego-materialize-assume-bounds in the published form (docs/reference/lowering.md §6): an upper bound on a block
// argument becomes `arith.remui %x, %d {lego.materialized}` right after the fact, used by the later uses of %x
// in the same block (not by earlier ones, not inside nested regions); the fact (and a condition it leaves
// unused) is erased; every other lego.assume_bounds is erased (lower bounds are dropped); other lego.assume
// ops stay. cleanup=true replaces each materialized remui by its left operand, nothing else.
// Expected lines derived by hand from §6.
// RUN: lego-opt %s --split-input-file --lego-materialize-assume-bounds | FileCheck %s
// RUN: lego-opt %s --split-input-file --lego-materialize-assume-bounds --lego-materialize-assume-bounds='cleanup=true' | FileCheck %s --check-prefix=CLEAN
// Upstream range analysis reads the remui: x < 16 decides the comparison and the division.
// RUN: lego-opt %s --split-input-file --pass-pipeline='builtin.module(lego-materialize-assume-bounds, func.func(int-range-optimizations), lego-materialize-assume-bounds{cleanup=true}, canonicalize)' | FileCheck %s --check-prefix=OPT

// Regression (issue 12): the release build crashed here (a context reference outliving its owner). A
// lower-bound-only fact is erased; nothing else changes.
// CHECK-LABEL: func.func @lb_only
// CHECK-SAME: (%[[X:.*]]: index)
// CHECK-NEXT: return
// CLEAN-LABEL: func.func @lb_only
// CLEAN-NEXT: return
func.func @lb_only(%x: index) {
  lego.assume_bounds %x lb: %x
  return
}

// -----

// Block argument, same block: the use after the fact reads the remui; the use before it and the use in a
// nested region keep %x.
// CHECK-LABEL: func.func @block_argument
// CHECK-SAME: (%[[X:.*]]: index, %[[D:.*]]: index)
// CHECK: %[[EARLY:.*]] = arith.addi %[[X]], %[[C1:.*]] : index
// CHECK-NEXT: %[[B:.*]] = arith.remui %[[X]], %[[D]] {lego.materialized} : index
// CHECK-NEXT: %[[LATE:.*]] = arith.addi %[[B]], %[[C1]] : index
// CHECK-NEXT: scf.execute_region
// CHECK-NEXT: arith.addi %[[X]], %[[C1]] : index
// CHECK-NOT: lego.assume_bounds
// CHECK: return %[[EARLY]], %[[LATE]]
// CLEAN-LABEL: func.func @block_argument
// CLEAN-SAME: (%[[X:.*]]: index, %[[D:.*]]: index)
// CLEAN-NOT: arith.remui
// CLEAN-NOT: lego.
// CLEAN: %[[LATE:.*]] = arith.addi %[[X]], %{{.*}} : index
// CLEAN-NOT: arith.remui
// CLEAN: return %{{.*}}, %[[LATE]]
func.func @block_argument(%x: index, %d: index) -> (index, index, index) {
  %c1 = arith.constant 1 : index
  %early = arith.addi %x, %c1 : index
  lego.assume_bounds %x ub : %d
  %late = arith.addi %x, %c1 : index
  %n = scf.execute_region -> index {
    %in = arith.addi %x, %c1 : index
    scf.yield %in : index
  }
  return %early, %late, %n : index, index, index
}

// -----

// A fact inside a nested region on the region's own block argument: materialized there, for the uses after
// it in that block.
// CHECK-LABEL: func.func @nested_region
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[B:.*]] = arith.remui %[[IV]], %[[D:.*]] {lego.materialized} : index
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[B]]]
func.func @nested_region(%m: memref<?xf32>, %n: index, %d: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    lego.assume_bounds %i lb : %c0 ub : %d
    memref.store %v, %m[%i] : memref<?xf32>
  }
  return
}

// -----

// A fact on a computed value is erased and materializes nothing.
// CHECK-LABEL: func.func @computed_value
// CHECK-NOT: lego.assume_bounds
// CHECK-NOT: arith.remui
// CHECK: return
func.func @computed_value(%x: index, %d: index) -> index {
  %c1 = arith.constant 1 : index
  %y = arith.addi %x, %c1 : index
  lego.assume_bounds %y lb : %c1 ub : %d
  %z = arith.muli %y, %y : index
  return %z : index
}

// -----

// lego.assume of `cmpi ult` (or slt) on a block argument: the same remui, the assume and its cmpi erased; a
// lego.assume of another predicate stays (its cmpi now reads the remui, a later use in the block).
// CHECK-LABEL: func.func @assume_cmpi
// CHECK-SAME: (%[[X:.*]]: index, %[[D:.*]]: index)
// CHECK-NEXT: %[[B:.*]] = arith.remui %[[X]], %[[D]] {lego.materialized} : index
// CHECK-NEXT: %[[Q:.*]] = arith.cmpi uge, %[[B]], %[[D]] : index
// CHECK-NEXT: lego.assume %[[Q]]
// CHECK-NEXT: %[[Z:.*]] = arith.muli %[[B]], %[[B]] : index
// CHECK-NEXT: return %[[Z]]
func.func @assume_cmpi(%x: index, %d: index) -> index {
  %p = arith.cmpi ult, %x, %d : index
  lego.assume %p
  %q = arith.cmpi uge, %x, %d : index
  lego.assume %q
  %z = arith.muli %x, %x : index
  return %z : index
}

// -----

// What upstream does with it: x < 16 makes `x ult 16` true and `x div 16` zero.
// OPT-LABEL: func.func @with_int_range
// OPT-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// OPT-DAG: %[[TRUE:.*]] = arith.constant true
// OPT-NOT: lego.
// OPT-NOT: arith.remui
// OPT: return %[[ZERO]], %[[TRUE]]
func.func @with_int_range(%x: index) -> (index, i1) {
  %c16 = arith.constant 16 : index
  lego.assume_bounds %x ub : %c16
  %lt = arith.cmpi ult, %x, %c16 : index
  %d = arith.divui %x, %c16 : index
  return %d, %lt : index, i1
}
