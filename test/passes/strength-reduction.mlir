// RUN: lego-opt %s --lego-strength-reduction | FileCheck %s
// RUN: lego-opt %s --pass-pipeline='builtin.module(lego-strength-reduction, canonicalize)' | FileCheck %s --check-prefix=CANON

// CHECK-LABEL: func.func @powers_of_two
// CHECK-SAME: (%[[X:.*]]: index)
func.func @powers_of_two(%x: index) -> (index, index, index, index) {
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  // CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
  // CHECK-DAG: %[[MUL:.*]] = arith.shli %[[X]], %[[C3]] : index
  %a = arith.muli %x, %c8 : index
  // The constant may be on either side of a multiplication.
  // CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
  // CHECK-DAG: %[[MUL2:.*]] = arith.shli %[[X]], %[[C4]] : index
  %b = arith.muli %c16, %x : index
  // CHECK-DAG: %[[DIV:.*]] = arith.shrui %[[X]], %[[C3]]{{.*}} : index
  %c = arith.divui %x, %c8 : index
  // CHECK-DAG: %[[C15:.*]] = arith.constant 15 : index
  // CHECK-DAG: %[[REM:.*]] = arith.andi %[[X]], %[[C15]] : index
  %d = arith.remui %x, %c16 : index
  // CHECK-NOT: arith.muli
  // CHECK-NOT: arith.divui
  // CHECK-NOT: arith.remui
  return %a, %b, %c, %d : index, index, index, index
}

// CHECK-LABEL: func.func @integers
func.func @integers(%x: i32) -> (i32, i32) {
  %c4 = arith.constant 4 : i32
  // CHECK: arith.shli %{{.*}}, %{{.*}} : i32
  %a = arith.muli %x, %c4 : i32
  // CHECK: arith.andi %{{.*}}, %{{.*}} : i32
  %b = arith.remui %x, %c4 : i32
  return %a, %b : i32, i32
}

// Not rewritten: signed division/remainder (rounds toward zero), non-powers of two, non-constants, 1.
// CHECK-LABEL: func.func @untouched
func.func @untouched(%x: index, %y: index) -> (index, index, index, index, index) {
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %c1 = arith.constant 1 : index
  // CHECK: arith.divsi %{{.*}}, %{{.*}} : index
  %a = arith.divsi %x, %c8 : index
  // CHECK: arith.remsi %{{.*}}, %{{.*}} : index
  %b = arith.remsi %x, %c8 : index
  // CHECK: arith.muli %{{.*}}, %{{.*}} : index
  %c = arith.muli %x, %c12 : index
  // CHECK: arith.divui %{{.*}}, %{{.*}} : index
  %d = arith.divui %x, %y : index
  // CHECK: arith.remui %{{.*}}, %{{.*}} : index
  %e = arith.remui %x, %c1 : index
  // CHECK-NOT: arith.shli
  // CHECK-NOT: arith.shrui
  return %a, %b, %c, %d, %e : index, index, index, index, index
}

// After canonicalization the tiled-index pattern (i div 8)·8 + i mod 8 uses shifts and masks only.
// CHECK-LABEL: func.func @tiled
// CANON-LABEL: func.func @tiled
// CANON-NOT: arith.muli
// CANON-NOT: arith.divui
// CANON-NOT: arith.remui
func.func @tiled(%i: index) -> index {
  %c8 = arith.constant 8 : index
  %q = arith.divui %i, %c8 : index
  %r = arith.remui %i, %c8 : index
  %s = arith.muli %q, %c8 : index
  %f = arith.addi %s, %r : index
  return %f : index
}
