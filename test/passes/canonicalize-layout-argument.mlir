// Patterns 1 and 2 of the lego canonicalization (docs/reference/passes.md, lego-canonicalize) on a layout that
// is a function argument: a !lego.layout is a bijection by contract, so apply∘apply_inverse and
// apply_inverse∘apply on the *same* argument fold, as in the published tool. When the module has call sites,
// the layouts they pass are checked in the argument's place (a proved gen_p or a row folds; a refuted gen_p:
// genp-inverse-hidden.mlir). Twins: two different layout arguments, and results out of order, never fold.
// RUN: lego-opt %s --split-input-file -canonicalize | FileCheck %s
// RUN: lego-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(canonicalize))' | FileCheck %s
// RUN: lego-opt %s --split-input-file --lego-canonicalize | FileCheck %s

// Pattern 1 on an argument without call sites: apply(L, apply_inverse(L, f)) → f.
// CHECK-LABEL: func.func @apply_of_inverse
// CHECK-SAME: (%{{[^:]*}}: !lego.layout, %[[F:[^:]*]]: index)
// CHECK-NEXT: return %[[F]] : index
func.func @apply_of_inverse(%l: !lego.layout, %f: index) -> index {
  %i, %j = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  %g = lego.apply %l(%i, %j) : !lego.layout
  return %g : index
}

// -----

// Pattern 2 on an argument: apply_inverse(L, apply(L, i, j)) → (i, j).
// CHECK-LABEL: func.func @inverse_of_apply
// CHECK-SAME: (%{{[^:]*}}: !lego.layout, %[[I:[^:]*]]: index, %[[J:[^:]*]]: index)
// CHECK-NEXT: return %[[I]], %[[J]] : index, index
func.func @inverse_of_apply(%l: !lego.layout, %i: index, %j: index) -> (index, index) {
  %f = lego.apply %l(%i, %j) : !lego.layout
  %a, %b = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  return %a, %b : index, index
}

// -----

// Twin: two different layout arguments — neither pattern folds.
// CHECK-LABEL: func.func @two_layouts
// CHECK: lego.apply_inverse %arg1
// CHECK: lego.apply %arg0
// CHECK: lego.apply %arg0
// CHECK: lego.apply_inverse %arg1
func.func @two_layouts(%l: !lego.layout, %m: !lego.layout, %f: index, %i: index, %j: index) -> (index, index, index) {
  %x, %y = lego.apply_inverse %m(%f) : !lego.layout -> index, index
  %g = lego.apply %l(%x, %y) : !lego.layout
  %h = lego.apply %l(%i, %j) : !lego.layout
  %a, %b = lego.apply_inverse %m(%h) : !lego.layout -> index, index
  return %g, %a, %b : index, index, index
}

// -----

// Twin: the same argument but the inverse's results swapped — not the identity, stays.
// CHECK-LABEL: func.func @swapped
// CHECK: %[[R:.*]]:2 = lego.apply_inverse %arg0
// CHECK: lego.apply %arg0(%[[R]]#1, %[[R]]#0)
func.func @swapped(%l: !lego.layout, %f: index) -> index {
  %i, %j = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  %g = lego.apply %l(%j, %i) : !lego.layout
  return %g : index
}

// -----

// With call sites: the callers pass a row and a gen_p whose inv is proved (the transpose of [4, 8]), so the
// callee folds.
// CHECK-LABEL: func.func private @callee
// CHECK-NEXT: return %arg1, %arg2 : index, index
func.func private @callee(%l: !lego.layout, %i: index, %j: index) -> (index, index) {
  %f = lego.apply %l(%i, %j) : !lego.layout
  %a, %b = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  return %a, %b : index, index
}
func.func @by_row(%i: index, %j: index) -> (index, index) {
  %l = lego.row [4, 8] : !lego.layout
  %r:2 = func.call @callee(%l, %i, %j) : (!lego.layout, index, index) -> (index, index)
  return %r#0, %r#1 : index, index
}
func.func @by_gen_p(%i: index, %j: index) -> (index, index) {
  %l = lego.gen_p [4, 8] apply (%a: index, %b: index) {
    %c4 = arith.constant 4 : index
    %s = arith.muli %b, %c4 : index
    %x = arith.addi %s, %a : index
    %c3 = arith.constant 3 : index
    %y = arith.xori %x, %c3 : index
    lego.yield %y : index
  } inv (%y: index) {
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %x = arith.xori %y, %c3 : index
    %a = arith.remui %x, %c4 : index
    %b = arith.divui %x, %c4 : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %r:2 = func.call @callee(%l, %i, %j) : (!lego.layout, index, index) -> (index, index)
  return %r#0, %r#1 : index, index
}
