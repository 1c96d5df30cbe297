// The lego canonicalization patterns (docs/reference/passes.md, lego-canonicalize), run by `-canonicalize`, by `canonicalize`
// inside --pass-pipeline, and by `lego-canonicalize` (embedders). Each pattern fires, and has twins where it
// must not.
// RUN: lego-opt %s --split-input-file -canonicalize | FileCheck %s
// RUN: lego-opt %s --split-input-file --pass-pipeline='builtin.module(canonicalize)' | FileCheck %s
// RUN: lego-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(canonicalize))' | FileCheck %s
// RUN: lego-opt %s --split-input-file --lego-canonicalize | FileCheck %s --check-prefix=LEGO

// Pattern 1: apply(L, apply_inverse(L, f)#0, #1) → f; the dead layout and inverse go too.
// CHECK-LABEL: func.func @apply_of_inverse
// CHECK-SAME: (%[[F:.*]]: index)
// CHECK-NEXT: return %[[F]] : index
// LEGO-LABEL: func.func @apply_of_inverse
// LEGO-NEXT: return %arg0 : index
func.func @apply_of_inverse(%f: index) -> index {
  %l = lego.row [4, 8] : !lego.layout
  %i, %j = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  %g = lego.apply %l(%i, %j) : !lego.layout
  return %g : index
}

// -----

// Twin: results swapped — not the identity, stays.
// CHECK-LABEL: func.func @apply_of_inverse_swapped
// CHECK: %[[R:.*]]:2 = lego.apply_inverse
// CHECK: lego.apply %{{.*}}(%[[R]]#1, %[[R]]#0)
func.func @apply_of_inverse_swapped(%f: index) -> index {
  %l = lego.row [4, 8] : !lego.layout
  %i, %j = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  %g = lego.apply %l(%j, %i) : !lego.layout
  return %g : index
}

// -----

// Twin: two different layout values (row vs col of the same dims) — stays.
// CHECK-LABEL: func.func @apply_of_inverse_other_layout
// CHECK: lego.apply_inverse
// CHECK: lego.apply
func.func @apply_of_inverse_other_layout(%f: index) -> index {
  %r = lego.row [4, 8] : !lego.layout
  %c = lego.col [4, 8] : !lego.layout
  %i, %j = lego.apply_inverse %r(%f) : !lego.layout -> index, index
  %g = lego.apply %c(%i, %j) : !lego.layout
  return %g : index
}

// -----

// Pattern 2: apply_inverse(L, apply(L, i, j)) → (i, j).
// CHECK-LABEL: func.func @inverse_of_apply
// CHECK-SAME: (%[[I:[^:]*]]: index, %[[J:[^:]*]]: index)
// CHECK-NEXT: return %[[I]], %[[J]] : index, index
func.func @inverse_of_apply(%i: index, %j: index) -> (index, index) {
  %l = lego.col [4, 8] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  %a, %b = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  return %a, %b : index, index
}

// -----

// Twin: a different layout value — stays.
// CHECK-LABEL: func.func @inverse_of_apply_other_layout
// CHECK: lego.apply
// CHECK: lego.apply_inverse
func.func @inverse_of_apply_other_layout(%i: index, %j: index) -> (index, index) {
  %l = lego.col [4, 8] : !lego.layout
  %m = lego.col [4, 8] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  %a, %b = lego.apply_inverse %m(%f) : !lego.layout -> index, index
  return %a, %b : index, index
}

// -----

// Pattern 3: y = j·4 + i over [4, 8] with its exact inverse → reg_p perm [1, 0] (the same dim values).
// CHECK-LABEL: func.func @gen_p_col
// CHECK: %[[N:.*]] = arith.constant 8 : index
// CHECK-NOT: lego.gen_p
// CHECK: %[[L:.*]] = lego.reg_p perm [1, 0] dims[4, %[[N]]] : !lego.layout
// CHECK-NEXT: lego.apply %[[L]](
func.func @gen_p_col(%i: index, %j: index) -> index {
  %n8 = arith.constant 8 : index
  %g = lego.gen_p [4, %n8] apply (%a: index, %b: index) {
    %c4 = arith.constant 4 : index
    %m = arith.muli %b, %c4 : index
    %s = arith.addi %m, %a : index
    lego.yield %s : index
  } inv (%x: index) {
    %c4 = arith.constant 4 : index
    %q = arith.remui %x, %c4 : index
    %r = arith.divui %x, %c4 : index
    lego.yield %q, %r : index, index
  } : !lego.layout
  %f = lego.apply %g(%i, %j) : !lego.layout
  return %f : index
}

// -----

// y = i (no inv region: nothing to check) → perm [0]; three dims, strides 1·(i2) + 3·(i0) + 6·(i1) over
// [2, 2, 3]: position 2 takes stride 1 (arg 2), position 1 stride 3 (arg 0), position 0 stride 6 (arg 1).
// CHECK-LABEL: func.func @gen_p_shapes
// CHECK: lego.reg_p perm [0] dims[5] : !lego.layout
// CHECK: lego.reg_p perm [1, 0, 2] dims[2, 2, 3] : !lego.layout
// CHECK-NOT: lego.gen_p
func.func @gen_p_shapes(%i: index, %j: index, %k: index) -> (index, index) {
  %g = lego.gen_p [5] apply (%a: index) {
    lego.yield %a : index
  } : !lego.layout
  %h = lego.gen_p [2, 2, 3] apply (%a: index, %b: index, %c: index) {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index
    %x = arith.muli %c3, %a : index
    %y = arith.muli %b, %c6 : index
    %s = arith.addi %c, %x : index
    %t = arith.addi %s, %y : index
    %u = arith.addi %t, %c0 : index
    lego.yield %u : index
  } : !lego.layout
  %f = lego.apply %g(%i) : !lego.layout
  %e = lego.apply %h(%i, %j, %k) : !lego.layout
  return %f, %e : index, index
}

// -----

// Large volume (256 · 128 points): the inverse is proved with Z3 instead of enumerated.
// CHECK-LABEL: func.func @gen_p_proved
// CHECK: lego.reg_p perm [0, 1] dims[256, 128] : !lego.layout
func.func @gen_p_proved(%i: index, %j: index) -> index {
  %g = lego.gen_p [256, 128] apply (%a: index, %b: index) {
    %c128 = arith.constant 128 : index
    %m = arith.muli %a, %c128 : index
    %s = arith.addi %b, %m : index
    lego.yield %s : index
  } inv (%x: index) {
    %c128 = arith.constant 128 : index
    %q = arith.divui %x, %c128 : index
    %r = arith.remui %x, %c128 : index
    lego.yield %q, %r : index, index
  } : !lego.layout
  %f = lego.apply %g(%i, %j) : !lego.layout
  return %f : index
}

// -----

// Twins of pattern 3 — every one stays a gen_p:
// the inv region is wrong (results swapped), small and large volume;
// CHECK-LABEL: func.func @gen_p_wrong_inverse
// CHECK-COUNT-2: lego.gen_p[
// CHECK-NOT: lego.reg_p
func.func @gen_p_wrong_inverse(%i: index, %j: index) -> (index, index) {
  %g = lego.gen_p [4, 8] apply (%a: index, %b: index) {
    %c4 = arith.constant 4 : index
    %m = arith.muli %b, %c4 : index
    %s = arith.addi %m, %a : index
    lego.yield %s : index
  } inv (%x: index) {
    %c4 = arith.constant 4 : index
    %q = arith.remui %x, %c4 : index
    %r = arith.divui %x, %c4 : index
    lego.yield %r, %q : index, index
  } : !lego.layout
  %h = lego.gen_p [256, 128] apply (%a: index, %b: index) {
    %c128 = arith.constant 128 : index
    %m = arith.muli %a, %c128 : index
    %s = arith.addi %b, %m : index
    lego.yield %s : index
  } inv (%x: index) {
    %c128 = arith.constant 128 : index
    %q = arith.divui %x, %c128 : index
    %c64 = arith.constant 64 : index
    %r = arith.remui %x, %c64 : index
    lego.yield %q, %r : index, index
  } : !lego.layout
  %f = lego.apply %g(%i, %j) : !lego.layout
  %e = lego.apply %h(%i, %j) : !lego.layout
  return %f, %e : index, index
}

// -----

// More twins of pattern 3: a product of two arguments; strides that are no permutation's (5 ≠ 4);
// a symbolic dim; a constant term. All stay gen_p.
// CHECK-LABEL: func.func @gen_p_not_linear
// CHECK-COUNT-4: lego.gen_p[
// CHECK-NOT: lego.reg_p
func.func @gen_p_not_linear(%i: index, %j: index, %n: index) -> (index, index, index, index) {
  %product = lego.gen_p [4, 4] apply (%a: index, %b: index) {
    %m = arith.muli %a, %b : index
    lego.yield %m : index
  } : !lego.layout
  %strides = lego.gen_p [4, 8] apply (%a: index, %b: index) {
    %c5 = arith.constant 5 : index
    %m = arith.muli %b, %c5 : index
    %s = arith.addi %m, %a : index
    lego.yield %s : index
  } : !lego.layout
  %symbolic = lego.gen_p [%n] apply (%a: index) {
    lego.yield %a : index
  } : !lego.layout
  %offset = lego.gen_p [4] apply (%a: index) {
    %c1 = arith.constant 1 : index
    %s = arith.addi %a, %c1 : index
    lego.yield %s : index
  } : !lego.layout
  %f1 = lego.apply %product(%i, %j) : !lego.layout
  %f2 = lego.apply %strides(%i, %j) : !lego.layout
  %f3 = lego.apply %symbolic(%i) : !lego.layout
  %f4 = lego.apply %offset(%i) : !lego.layout
  return %f1, %f2, %f3, %f4 : index, index, index, index
}

// -----

// Dead pure lego ops are erased (layouts, applies, views); check / assume / assume_bounds / store stay.
// CHECK-LABEL: func.func @dead_ops
// CHECK-NOT: lego.row
// CHECK-NOT: lego.order_by
// CHECK-NOT: lego.apply
// CHECK: lego.col
// CHECK: lego.cast_view
// CHECK: lego.store
// CHECK: lego.assume
// CHECK: lego.assume_bounds
// CHECK: lego.check
func.func @dead_ops(%tid: index {lego.thread_id}, %i: index, %m: memref<32xf32>, %x: f32, %p: i1) {
  %r = lego.row [4, 8] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %f = lego.apply %o(%i, %i) : !lego.layout
  %c = lego.col [4, 8] : !lego.layout
  %v = lego.cast_view %m, %c : memref<32xf32>, !lego.layout -> !lego.view<f32>
  lego.store %x, %v[%i, %i] : f32, !lego.view<f32>, index, index
  lego.assume %p
  lego.assume_bounds %i ub : %tid
  lego.check %tid {coalescing}
  return
}
