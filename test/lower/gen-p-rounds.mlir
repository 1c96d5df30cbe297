// A gen_p body that applies a gen_p whose body applies a third: each round of lego-to-arith inlines one
// level, and a round that inlined a body must be followed by another (its lego.apply is new). Expected by
// hand: outer(i) = mid(i) = inner(i) * 2 = (i + 3) * 2. Twin: a body without lego uses needs one round.
// RUN: lego-opt %s --lego-to-arith | FileCheck %s

// CHECK-LABEL: func.func @three_levels
// CHECK-SAME: (%[[I:.*]]: index)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[S:.*]] = arith.addi %[[I]], %[[C3]] : index
// CHECK: %[[P:.*]] = arith.muli %[[S]], %[[C2]] : index
// CHECK: return %[[P]]
// CHECK-NOT: lego.
func.func @three_levels(%i: index) -> index {
  %inner = lego.gen_p [8] apply (%a: index) {
    %c3 = arith.constant 3 : index
    %r = arith.addi %a, %c3 : index
    lego.yield %r : index
  } : !lego.layout
  %mid = lego.gen_p [8] apply (%a: index) {
    %x = lego.apply %inner(%a) : !lego.layout
    %c2 = arith.constant 2 : index
    %r = arith.muli %x, %c2 : index
    lego.yield %r : index
  } : !lego.layout
  %outer = lego.gen_p [8] apply (%a: index) {
    %x = lego.apply %mid(%a) : !lego.layout
    lego.yield %x : index
  } : !lego.layout
  %f = lego.apply %outer(%i) : !lego.layout
  return %f : index
}

// CHECK-LABEL: func.func @one_level
// CHECK-SAME: (%[[I:.*]]: index)
// CHECK: %[[C5:.*]] = arith.constant 5 : index
// CHECK: %[[R:.*]] = arith.subi %[[C5]], %[[I]] : index
// CHECK: return %[[R]]
func.func @one_level(%i: index) -> index {
  %l = lego.gen_p [6] apply (%a: index) {
    %c5 = arith.constant 5 : index
    %r = arith.subi %c5, %a : index
    lego.yield %r : index
  } : !lego.layout
  %f = lego.apply %l(%i) : !lego.layout
  return %f : index
}
