// A layout that reaches a function as an argument: a layout is a bijection by contract, so canonicalize folds
// apply_inverse(apply(x)) there — but this module's call site passes a gen_p whose inv is refuted, and with
// verify-gen-p canonicalize checks the layouts passed at the visible call sites in the argument's place (as
// lowering, which rebuilds the layout in the callee, proves the gen_p there): the same error from every pass
// order, and no fold. verify-gen-p=false trusts the inverse and folds.
// RUN: not lego-opt %s --lego-lower 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR
// RUN: not lego-opt %s -canonicalize --lego-lower 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR
// RUN: lego-opt %s --verify-diagnostics --lego-to-arith -o /dev/null
// RUN: not lego-opt %s -canonicalize 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR
// RUN: lego-opt %s -canonicalize='verify-gen-p=false' | FileCheck %s --check-prefix=TRUST

// ERR: genp-inverse-hidden.mlir:{{[0-9]+}}:8: error: Layout is not bijective: inv(apply(x)) ≠ x
// ERR-NEXT: apply(1, 0) = 9 but inv(9) = (1, 1)
// ERR: genp-inverse-hidden.mlir:{{[0-9]+}}:12: note: the inverse is used here
// TRUST-LABEL: func.func private @round_trip
// TRUST-NEXT: return %arg1, %arg2 : index, index
func.func private @round_trip(%l: !lego.layout, %i: index, %j: index) -> (index, index) {
  %f = lego.apply %l(%i, %j) : !lego.layout
  // expected-note @below {{the inverse is used here}}
  %a, %b = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  return %a, %b : index, index
}

// The issue's XOR swizzle whose inv forgets the XOR (genp-inverse-obligation.mlir): lowest witness (1, 0).
func.func @caller(%i: index, %j: index) -> (index, index) {
  // expected-error @below {{Layout is not bijective: inv(apply(x)) ≠ x{{\n}}apply(1, 0) = 9 but inv(9) = (1, 1)}}
  %l = lego.gen_p [4, 8] apply (%a: index, %b: index) {
    %c8 = arith.constant 8 : index
    %x = arith.xori %b, %a : index
    %r = arith.muli %a, %c8 : index
    %f = arith.addi %r, %x : index
    lego.yield %f : index
  } inv (%y: index) {
    %c8 = arith.constant 8 : index
    %a = arith.divui %y, %c8 : index
    %b = arith.remui %y, %c8 : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %r:2 = func.call @round_trip(%l, %i, %j) : (!lego.layout, index, index) -> (index, index)
  return %r#0, %r#1 : index, index
}
