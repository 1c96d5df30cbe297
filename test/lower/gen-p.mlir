// gen_p regions inlined at each use: any ops (arith, scf, math, lego uses of other layouts).
// RUN: lego-opt %s --lego-to-arith | FileCheck %s
// RUN: lego-opt %s --lego-lower | FileCheck %s --check-prefix=FOLDED

// gen_p bodies may hold scf ops: whole ops are cloned, values of the region remapped (also inside the
// loop's own region).
// CHECK-LABEL: func.func @loop_body
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[N:.*]]: index)
// CHECK: %[[S:.*]] = scf.for %{{.*}} = %{{.*}} to %[[I]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[J]]) -> (index) {
// CHECK: arith.addi %[[ACC]], %{{.*}} : index
// CHECK: return %[[S]]
func.func @loop_body(%i: index, %j: index, %n: index) -> index {
  %l = lego.gen_p [%n, 4] apply (%a: index, %b: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = scf.for %k = %c0 to %a step %c1 iter_args(%acc = %b) -> (index) {
      %c4 = arith.constant 4 : index
      %t = arith.addi %acc, %c4 : index
      scf.yield %t : index
    }
    lego.yield %s : index
  } : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// Values from outside the gen_p (here the SSA size %n) are used as they are.
// CHECK-LABEL: func.func @captured
// CHECK-SAME: (%[[I:.*]]: index, %[[N:.*]]: index)
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[LAST:.*]] = arith.subi %[[N]], %[[C1]] : index
// CHECK-NEXT: %[[R:.*]] = arith.subi %[[LAST]], %[[I]] : index
// CHECK-NEXT: return %[[R]]
func.func @captured(%i: index, %n: index) -> index {
  %l = lego.gen_p [%n] apply (%a: index) {
    %c1 = arith.constant 1 : index
    %last = arith.subi %n, %c1 : index
    %r = arith.subi %last, %a : index
    lego.yield %r : index
  } : !lego.layout
  %f = lego.apply %l(%i) : !lego.layout
  return %f : index
}

// gen_p bodies may use other layouts; their uses are lowered too. lego-to-arith keeps the round trip
// apply_inverse(apply(i, j)) (docs/reference/lowering.md §2: no shortcut); lego-lower folds it to (i, j).
// CHECK-LABEL: func.func @nested_use
// CHECK-NOT: lego.
// CHECK: arith.divui
// CHECK: arith.remui
// CHECK: return
// FOLDED-LABEL: func.func @nested_use
// FOLDED-SAME: (%[[I:.*]]: index, %[[J:.*]]: index)
// FOLDED-NEXT: %[[S:.*]] = arith.addi %[[I]], %[[J]] : index
// FOLDED-NEXT: return %[[S]]
func.func @nested_use(%i: index, %j: index) -> index {
  %inner = lego.col [2, 8] : !lego.layout
  %l = lego.gen_p [2, 8] apply (%a: index, %b: index) {
    %x = lego.apply %inner(%a, %b) : !lego.layout
    %c15 = arith.constant 15 : index
    %r = arith.subi %c15, %x : index
    lego.yield %r : index
  } inv (%y: index) {
    %c15 = arith.constant 15 : index
    %x = arith.subi %c15, %y : index
    %a, %b = lego.apply_inverse %inner(%x) : !lego.layout -> index, index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  %a, %b = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  %s = arith.addi %a, %b : index
  return %s : index
}

// ... and math ops.
// CHECK-LABEL: func.func @math_body
// CHECK-SAME: (%[[I:.*]]: index)
// CHECK-NEXT: %[[A:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT: %[[T:.*]] = math.cttz %[[A]] : i64
// CHECK-NEXT: %[[R:.*]] = arith.index_cast %[[T]] : i64 to index
// CHECK-NEXT: return %[[R]]
func.func @math_body(%i: index) -> index {
  %l = lego.gen_p [16] apply (%a: index) {
    %ai = arith.index_cast %a : index to i64
    %ctz = math.cttz %ai : i64
    %r = arith.index_cast %ctz : i64 to index
    lego.yield %r : index
  } : !lego.layout
  %f = lego.apply %l(%i) : !lego.layout
  return %f : index
}
