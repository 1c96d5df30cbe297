// Where range facts come from: loop bounds, GPU ids, assumptions (in the defining block, or dominating the
// rewritten value), `disjoint` linearizations, and affine index ops read as unsigned arithmetic.
// RUN: lego-opt %s --split-input-file --lego-arith-simplification='verify-rewrites=true' 2>&1 | FileCheck %s

// scf.for: 0 ≤ iv < 8, so iv mod 8 = iv and (4·t + iv) div 8... the loop bound is the fact.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NOT: arith.remui
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[IV]]]
func.func @loop(%m: memref<8xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %iv = %c0 to %c8 step %c1 {
    %r = arith.remui %iv, %c8 : index
    memref.store %iv, %m[%r] : memref<8xindex>
  }
  return
}

// -----

// gpu.thread_id with an upper bound: (tid div 32) (warp) and tid mod 32 (lane) of tid < 32: 0 and tid.
// CHECK-LABEL: func.func @thread_id
// CHECK: %[[T:.*]] = gpu.thread_id x upper_bound 32
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: return %{{.*}}, %[[T]]
func.func @thread_id() -> (index, index) {
  %c32 = arith.constant 32 : index
  %t = gpu.thread_id x upper_bound 32
  %w = arith.divui %t, %c32 : index
  %l = arith.remui %t, %c32 : index
  return %w, %l : index, index
}

// -----

// gpu.launch with constant block sizes bounds the thread ids (16 here).
// CHECK-LABEL: func.func @launch
// CHECK: gpu.launch
// CHECK-NOT: arith.remui
// CHECK: memref.store
func.func @launch(%m: memref<16xindex>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %r = arith.remui %tx, %c16 : index
    memref.store %r, %m[%tx] : memref<16xindex>
    gpu.terminator
  }
  return
}

// -----

// An assumption inside a loop body about a value defined outside applies to what it dominates only.
// CHECK-LABEL: func.func @dominating
// CHECK: %[[BEFORE:.*]] = arith.remui %arg0
// CHECK: scf.for
// CHECK: lego.assume_bounds
// CHECK-NOT: arith.remui
// CHECK: memref.store %arg0
// CHECK: return %[[BEFORE]]
func.func @dominating(%x: index, %m: memref<64xindex>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %before = arith.remui %x, %c64 : index
  scf.for %iv = %c0 to %c64 step %c1 {
    lego.assume_bounds %x ub : %c64
    %r = arith.remui %x, %c64 : index
    memref.store %r, %m[%iv] : memref<64xindex>
  }
  return %before : index
}

// -----

// An assumption of a signed comparison is an unsigned fact only where both sides are known non-negative.
// CHECK-LABEL: func.func @signed_fact
// CHECK: arith.remui
// CHECK-NOT: arith.remui
// CHECK: return
func.func @signed_fact(%x: index, %y: index) -> (index, index) {
  %c8 = arith.constant 8 : index
  %c100 = arith.constant 100 : index
  // x <s 8 says nothing about x as an unsigned value (x may be negative).
  %p = arith.cmpi slt, %x, %c8 : index
  lego.assume %p
  %a = arith.remui %x, %c8 : index
  // y < 100 (unsigned) and y <s 8: now 0 ≤ y < 8.
  lego.assume_bounds %y ub : %c100
  %q = arith.cmpi slt, %y, %c8 : index
  lego.assume %q
  %b = arith.remui %y, %c8 : index
  return %a, %b : index, index
}

// -----

// affine.delinearize_index / linearize_index (what lego-to-arith emits for B⁻¹ / B) become unsigned
// arithmetic once the input is known below 2^63; `disjoint` promises bound the inner indices.
// CHECK-LABEL: func.func @affine_index_ops
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index)
// CHECK-NOT: affine.
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[M:.*]] = arith.muli %[[I]], %[[C8]] : index
// CHECK-DAG: %[[L:.*]] = arith.addi %[[M]], %[[J]] : index
// CHECK: return %[[L]], %[[I]], %[[J]]
func.func @affine_index_ops(%i: index, %j: index) -> (index, index, index) {
  %c100 = arith.constant 100 : index
  lego.assume_bounds %i ub : %c100
  %l = affine.linearize_index disjoint [%i, %j] by (100, 8) : index
  %a:2 = affine.delinearize_index %l into (100, 8) : index, index
  return %l, %a#0, %a#1 : index, index, index
}

// -----

// Without a bound on the input, affine's signed floor division may differ from divui: left alone.
// CHECK-LABEL: func.func @delinearize_unbounded
// CHECK: affine.delinearize_index
func.func @delinearize_unbounded(%x: index) -> (index, index) {
  %a:2 = affine.delinearize_index %x into (4, 8) : index, index
  return %a#0, %a#1 : index, index
}
