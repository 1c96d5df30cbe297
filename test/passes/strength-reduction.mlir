// RUN: lego-opt %s --lego-strength-reduction | FileCheck %s
// RUN: lego-opt %s --pass-pipeline='builtin.module(lego-strength-reduction, canonicalize)' | FileCheck %s --check-prefix=CANON
// RUN: lego-opt %s --split-input-file --lego-strength-reduction | FileCheck %s --check-prefix=SIGNED

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

// Not rewritten: signed division/remainder of a value that may be negative (rounds toward zero),
// non-powers of two, non-constants, 1.
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
  // By 1 (k = 0) nothing is strength-reduced: the folders of the §0 clean-up fold remui x, 1 to 0.
  // CHECK-NOT: arith.remui
  // CHECK-NOT: arith.andi
  %e = arith.remui %x, %c1 : index
  // CHECK-NOT: arith.shli
  // CHECK-NOT: arith.shrui
  // CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c0 :
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

// -----
// docs/reference/lowering.md §5: divsi / remsi by 2^k become shrui / andi only for values provably ≥ 0 — here a
// remainder, an scf.for induction variable starting at 0, and a sum/product/shift of those. The bare argument
// %x (which may be negative) keeps its signed ops.
// CHECK-LABEL: func.func @signed_non_negative
// CANON-LABEL: func.func @signed_non_negative
// SIGNED-LABEL: func.func @signed_non_negative
// SIGNED-SAME: (%[[X:.*]]: index, %[[N:.*]]: index)
// SIGNED-DAG: %[[C2:.*]] = arith.constant 2 : index
// SIGNED-DAG: %[[C3:.*]] = arith.constant 3 : index
// SIGNED-DAG: %[[C7:.*]] = arith.constant 7 : index
// SIGNED-DAG: %[[C8:.*]] = arith.constant 8 : index
// SIGNED-DAG: %[[C10:.*]] = arith.constant 10 : index
// SIGNED: %[[R:.*]] = arith.remui %[[X]], %[[C10]] : index
// SIGNED-NEXT: %[[Q:.*]] = arith.shrui %[[R]], %[[C3]] : index
// SIGNED: scf.for %[[IV:[a-z0-9]+]] =
// SIGNED-NEXT: %[[S:.*]] = arith.addi %[[IV]], %[[R]] : index
// SIGNED-NEXT: %[[M:.*]] = arith.andi %[[S]], %[[C7]] : index
// SIGNED: %[[BARE:.*]] = arith.divsi %[[X]], %[[C8]] : index
// SIGNED-NEXT: %[[BARE2:.*]] = arith.remsi %[[X]], %[[C2]] : index
func.func @signed_non_negative(%x: index, %n: index) -> (index, index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %r = arith.remui %x, %c10 : index
  %q = arith.divsi %r, %c8 : index
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %s = arith.addi %i, %r : index
    %m = arith.remsi %s, %c8 : index
    scf.yield %m : index
  }
  %bare = arith.divsi %x, %c8 : index
  %bare2 = arith.remsi %x, %c2 : index
  return %q, %sum, %bare, %bare2 : index, index, index, index
}

// -----
// Morton bit spread, stride 2 (two sources interleaved: x's bits 0, 1 to 0, 2 and y's to 1, 3): per source
// `andi src, 2^n − 1`, the stage (1, 0x55555555), y's spread shifted by its offset 1, combined with ori.
// SIGNED-LABEL: func.func @morton_stride2
// SIGNED-SAME: (%[[X:.*]]: index, %[[Y:.*]]: index)
// SIGNED-DAG: %[[C1:.*]] = arith.constant 1 : index
// SIGNED-DAG: %[[C3:.*]] = arith.constant 3 : index
// SIGNED-DAG: %[[M55:.*]] = arith.constant 1431655765 : index
// SIGNED: %[[XA:.*]] = arith.andi %[[X]], %[[C3]] : index
// SIGNED-NEXT: %[[XS:.*]] = arith.shli %[[XA]], %[[C1]] : index
// SIGNED-NEXT: %[[XO:.*]] = arith.ori %[[XA]], %[[XS]] : index
// SIGNED-NEXT: %[[XM:.*]] = arith.andi %[[XO]], %[[M55]] : index
// SIGNED-NEXT: %[[YA:.*]] = arith.andi %[[Y]], %[[C3]] : index
// SIGNED-NEXT: %[[YS:.*]] = arith.shli %[[YA]], %[[C1]] : index
// SIGNED-NEXT: %[[YO:.*]] = arith.ori %[[YA]], %[[YS]] : index
// SIGNED-NEXT: %[[YM:.*]] = arith.andi %[[YO]], %[[M55]] : index
// SIGNED-NEXT: %[[YD:.*]] = arith.shli %[[YM]], %[[C1]] : index
// SIGNED-NEXT: %[[R:.*]] = arith.ori %[[XM]], %[[YD]] : index
// SIGNED-NEXT: return %[[R]]
func.func @morton_stride2(%x: index, %y: index) -> index {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %x0 = arith.andi %x, %c1 : index
  %x1s = arith.shrui %x, %c1 : index
  %x1 = arith.andi %x1s, %c1 : index
  %x1d = arith.shli %x1, %c2 : index
  %y0 = arith.andi %y, %c1 : index
  %y0d = arith.shli %y0, %c1 : index
  %y1s = arith.shrui %y, %c1 : index
  %y1 = arith.andi %y1s, %c1 : index
  %y1d = arith.shli %y1, %c3 : index
  %a = arith.addi %x0, %y0d : index
  %b = arith.addi %a, %x1d : index
  %c = arith.addi %b, %y1d : index
  return %c : index
}

// -----
// Stride 3 on i32, source bits 1..4 (divui/remui and muli forms, a shrui chain) to 0, 3, 6, 9: shrui 1,
// andi 15, stages (4, 0xC30C30C3) — printed signed, −1022611261 — and (2, 0x49249249).
// SIGNED-LABEL: func.func @morton_stride3
// SIGNED-SAME: (%[[X:.*]]: i32)
// SIGNED-DAG: %[[C1:.*]] = arith.constant 1 : i32
// SIGNED-DAG: %[[C2:.*]] = arith.constant 2 : i32
// SIGNED-DAG: %[[C4:.*]] = arith.constant 4 : i32
// SIGNED-DAG: %[[C15:.*]] = arith.constant 15 : i32
// SIGNED-DAG: %[[MC3:.*]] = arith.constant -1022611261 : i32
// SIGNED-DAG: %[[M49:.*]] = arith.constant 1227133513 : i32
// SIGNED: %[[S:.*]] = arith.shrui %[[X]], %[[C1]] : i32
// SIGNED-NEXT: %[[A:.*]] = arith.andi %[[S]], %[[C15]] : i32
// SIGNED-NEXT: %[[T1:.*]] = arith.shli %[[A]], %[[C4]] : i32
// SIGNED-NEXT: %[[O1:.*]] = arith.ori %[[A]], %[[T1]] : i32
// SIGNED-NEXT: %[[M1:.*]] = arith.andi %[[O1]], %[[MC3]] : i32
// SIGNED-NEXT: %[[T2:.*]] = arith.shli %[[M1]], %[[C2]] : i32
// SIGNED-NEXT: %[[O2:.*]] = arith.ori %[[M1]], %[[T2]] : i32
// SIGNED-NEXT: %[[M2:.*]] = arith.andi %[[O2]], %[[M49]] : i32
// SIGNED-NEXT: return %[[M2]]
func.func @morton_stride3(%x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c8 = arith.constant 8 : i32
  %c6 = arith.constant 6 : i32
  %c9 = arith.constant 9 : i32
  %s1 = arith.shrui %x, %c1 : i32
  %b1 = arith.andi %s1, %c1 : i32
  %s2 = arith.divui %x, %c2 : i32
  %s2b = arith.divui %s2, %c2 : i32
  %b2 = arith.remui %s2b, %c2 : i32
  %d2 = arith.muli %b2, %c8 : i32
  %s3 = arith.shrui %x, %c3 : i32
  %b3 = arith.andi %s3, %c1 : i32
  %d3 = arith.shli %b3, %c6 : i32
  %s4 = arith.shrui %s3, %c1 : i32
  %b4 = arith.remui %s4, %c2 : i32
  %d4 = arith.shli %b4, %c9 : i32
  %a = arith.addi %b1, %d2 : i32
  %b = arith.addi %a, %d3 : i32
  %c = arith.addi %b, %d4 : i32
  return %c : i32
}

// -----
// Twin left alone: source bits 0, 1, 3, 4 are not contiguous — no spread, no ori; the power-of-two ops are
// still reduced and the addi tree stays.
// SIGNED-LABEL: func.func @morton_gap
// SIGNED-NOT: arith.ori
// SIGNED: arith.addi
// SIGNED: arith.addi
// SIGNED: arith.addi
// SIGNED-NOT: arith.ori
// SIGNED: return
func.func @morton_gap(%x: index) -> index {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %b0 = arith.andi %x, %c1 : index
  %s1 = arith.shrui %x, %c1 : index
  %b1 = arith.andi %s1, %c1 : index
  %d1 = arith.shli %b1, %c2 : index
  %s3 = arith.shrui %x, %c3 : index
  %b3 = arith.andi %s3, %c1 : index
  %d3 = arith.shli %b3, %c4 : index
  %s4 = arith.shrui %x, %c4 : index
  %b4 = arith.andi %s4, %c1 : index
  %d4 = arith.shli %b4, %c6 : index
  %a = arith.addi %b0, %d1 : index
  %b = arith.addi %a, %d3 : index
  %c = arith.addi %b, %d4 : index
  return %c : index
}

// -----
// Not a spread: a leaf shifted past the type's width (poison in MLIR) and a repeated bit — left alone, no crash.
// SIGNED-LABEL: func.func @morton_out_of_width
// SIGNED-NOT: arith.ori
// SIGNED: return
func.func @morton_out_of_width(%x: index) -> index {
  %c1 = arith.constant 1 : index
  %c200 = arith.constant 200 : index
  %c2 = arith.constant 2 : index
  %b0 = arith.andi %x, %c1 : index
  %s1 = arith.shrui %x, %c1 : index
  %b1 = arith.andi %s1, %c1 : index
  %d1 = arith.shli %b1, %c200 : index
  %d2 = arith.shli %b1, %c2 : index
  %a = arith.addi %b0, %d1 : index
  %b = arith.addi %a, %d2 : index
  %c = arith.addi %b, %b0 : index
  return %c : index
}
