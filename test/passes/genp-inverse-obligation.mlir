// A gen_p's inv region is a proof obligation (docs/ops/gen_p.md): every rewrite that relies on it — lowering
// apply_inverse through inv (lego-to-arith, so lego-lower), and canonicalize's apply∘apply_inverse /
// apply_inverse∘apply folds — proves it first. A wrong inverse is the same located error with the lowest
// counterexample whichever pass meets it first, and the run fails; before, `--lego-lower` computed the wrong
// inverse while `-canonicalize --lego-lower` folded to x (two answers, both exit 0).
//
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-lower -o /dev/null
// RUN: lego-opt %s --split-input-file --verify-diagnostics -canonicalize --lego-lower -o /dev/null
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-canonicalize -o /dev/null
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-to-arith -o /dev/null
// RUN: lego-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(canonicalize, lego-lower)' -o /dev/null
//
// Exit status 1, and the same text from both pass orders:
// RUN: not lego-opt %s --split-input-file --lego-lower 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR
// RUN: not lego-opt %s --split-input-file -canonicalize --lego-lower 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR
// The twins' output, the same from both pass orders:
// RUN: not lego-opt %s --split-input-file --lego-lower 2>/dev/null | FileCheck %s --check-prefix=OUT
// RUN: not lego-opt %s --split-input-file -canonicalize --lego-lower 2>/dev/null | FileCheck %s --check-prefix=OUT
//
// verify-gen-p=false trusts inv, as the published tool does (and as this tool did): the two answers again.
// RUN: lego-opt %s --split-input-file --lego-lower='verify-gen-p=false' | FileCheck %s --check-prefix=TRUST
// RUN: lego-opt %s --split-input-file --canonicalize='verify-gen-p=false' --lego-lower='verify-gen-p=false' | FileCheck %s --check-prefix=TRUST-FOLD
// RUN: lego-opt %s --split-input-file --pass-pipeline='builtin.module(canonicalize{verify-gen-p=false}, lego-lower{verify-gen-p=false})' | FileCheck %s --check-prefix=TRUST-FOLD
// RUN: lego-opt %s --split-input-file --lego-canonicalize='verify-gen-p=false' | FileCheck %s --check-prefix=TRUST-CANON

// The issue's example: an XOR swizzle, f(a, b) = a·8 + (b xor a) over [4, 8], whose inv forgets the XOR:
// inv(y) = (y div 8, y mod 8). Row a = 0 is fine (b xor 0 = b); the lowest witness is (1, 0):
// f(1, 0) = 8 + 1 = 9, inv(9) = (1, 1) ≠ (1, 0).
// ERR: genp-inverse-obligation.mlir:{{[0-9]+}}:8: error: Layout is not bijective: inv(apply(x)) ≠ x
// ERR-NEXT: apply(1, 0) = 9 but inv(9) = (1, 1)
// ERR: genp-inverse-obligation.mlir:{{[0-9]+}}:12: note: the inverse is used here
// TRUST-LABEL: func.func @xor_forgotten
// TRUST: %[[X:.*]] = arith.xori %arg1, %arg0 : index
// TRUST-NEXT: return %arg0, %[[X]] : index, index
// TRUST-FOLD-LABEL: func.func @xor_forgotten
// TRUST-FOLD-NEXT: return %arg0, %arg1 : index, index
// TRUST-CANON-LABEL: func.func @xor_forgotten
// TRUST-CANON-NOT: lego.apply_inverse
// TRUST-CANON: return %arg0, %arg1 : index, index
func.func @xor_forgotten(%i: index, %j: index) -> (index, index) {
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
  %f = lego.apply %l(%i, %j) : !lego.layout
  // expected-note @below {{the inverse is used here}}
  %a, %b = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  return %a, %b : index, index
}

// -----

// The other fold, apply(L, apply_inverse(L, f)) → f, through a composite layout: order_by of rev(3, 2) whose
// inv forgot to reverse the column, inv(y) = (2 - y div 2, y mod 2). Lowest witness (0, 0):
// f(0, 0) = (2 - 0)·2 + (1 - 0) = 5, inv(5) = (2 - 2, 1) = (0, 1).
// ERR: genp-inverse-obligation.mlir:{{[0-9]+}}:8: error: Layout is not bijective: inv(apply(x)) ≠ x
// ERR-NEXT: apply(0, 0) = 5 but inv(5) = (0, 1)
// ERR: genp-inverse-obligation.mlir:{{[0-9]+}}:12: note: the inverse is used here
// TRUST-LABEL: func.func @rev_forgotten
// TRUST-FOLD-LABEL: func.func @rev_forgotten
// TRUST-FOLD-NEXT: return %arg0 : index
func.func @rev_forgotten(%f: index) -> index {
  // expected-error @below {{Layout is not bijective: inv(apply(x)) ≠ x{{\n}}apply(0, 0) = 5 but inv(5) = (0, 1)}}
  %g = lego.gen_p [3, 2] apply (%a: index, %b: index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %ra = arith.subi %c2, %a : index
    %rb = arith.subi %c1, %b : index
    %row = arith.muli %ra, %c2 : index
    %s = arith.addi %row, %rb : index
    lego.yield %s : index
  } inv (%x: index) {
    %c2 = arith.constant 2 : index
    %q = arith.divui %x, %c2 : index
    %r = arith.remui %x, %c2 : index
    %a = arith.subi %c2, %q : index
    lego.yield %a, %r : index, index
  } : !lego.layout
  %o = lego.order_by(%g) : !lego.layout
  // expected-note @below {{the inverse is used here}}
  %i, %j = lego.apply_inverse %o(%f) : !lego.layout -> index, index
  %h = lego.apply %o(%i, %j) : !lego.layout
  return %h : index
}

// -----

// A domain too large to enumerate (256 · 128 points) is refuted with Z3; the reported witness is still the
// lowest: f(a, b) = a·128 + (b xor (a and 127)) with inv(y) = (y div 128, y mod 128) fails first at (1, 0):
// f(1, 0) = 128 + 1 = 129, inv(129) = (1, 1).
// ERR: genp-inverse-obligation.mlir:{{[0-9]+}}:8: error: Layout is not bijective: inv(apply(x)) ≠ x
// ERR-NEXT: apply(1, 0) = 129 but inv(129) = (1, 1)
// ERR: genp-inverse-obligation.mlir:{{[0-9]+}}:12: note: the inverse is used here
func.func @xor_forgotten_large(%i: index, %j: index) -> (index, index) {
  // expected-error @below {{Layout is not bijective: inv(apply(x)) ≠ x{{\n}}apply(1, 0) = 129 but inv(129) = (1, 1)}}
  %l = lego.gen_p [256, 128] apply (%a: index, %b: index) {
    %c127 = arith.constant 127 : index
    %c128 = arith.constant 128 : index
    %m = arith.andi %a, %c127 : index
    %x = arith.xori %b, %m : index
    %r = arith.muli %a, %c128 : index
    %f = arith.addi %r, %x : index
    lego.yield %f : index
  } inv (%y: index) {
    %c128 = arith.constant 128 : index
    %a = arith.divui %y, %c128 : index
    %b = arith.remui %y, %c128 : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  // expected-note @below {{the inverse is used here}}
  %a, %b = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  return %a, %b : index, index
}

// -----

// Symbolic sizes, [%n, 8], with the swizzle b xor (a and 7) and the forgotten inverse: refuted with Z3 for all
// sizes (the counterexample names the size it picked).
// ERR: genp-inverse-obligation.mlir:{{[0-9]+}}:8: error: Layout is not bijective: inv(apply(x)) ≠ x
// ERR-NEXT: apply({{[0-9]+}}, {{[0-9]+}}) = {{[0-9]+}} but inv({{[0-9]+}}) = ({{[0-9]+}}, {{[0-9]+}}) (with %arg2 = {{[0-9]+}})
// ERR: genp-inverse-obligation.mlir:{{[0-9]+}}:12: note: the inverse is used here
func.func @xor_forgotten_symbolic(%i: index, %j: index, %n: index) -> (index, index) {
  // expected-error @below {{Layout is not bijective: inv(apply(x)) ≠ x}}
  %l = lego.gen_p [%n, 8] apply (%a: index, %b: index) {
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %m = arith.andi %a, %c7 : index
    %x = arith.xori %b, %m : index
    %r = arith.muli %a, %c8 : index
    %f = arith.addi %r, %x : index
    lego.yield %f : index
  } inv (%y: index) {
    %c8 = arith.constant 8 : index
    %a = arith.divui %y, %c8 : index
    %b = arith.remui %y, %c8 : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  // expected-note @below {{the inverse is used here}}
  %a, %b = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  return %a, %b : index, index
}

// -----

// Twin: the same swizzle with its correct inverse, inv(y) = (y div 8, (y mod 8) xor (y div 8)), is proved;
// lowering and folding agree (the simplifier cancels the two XORs), as before this change.
// OUT-LABEL: func.func @xor_swizzle
// OUT-NEXT: return %arg0, %arg1 : index, index
// TRUST-LABEL: func.func @xor_swizzle
// TRUST-NEXT: return %arg0, %arg1 : index, index
func.func @xor_swizzle(%i: index, %j: index) -> (index, index) {
  %l = lego.gen_p [4, 8] apply (%a: index, %b: index) {
    %c8 = arith.constant 8 : index
    %x = arith.xori %b, %a : index
    %r = arith.muli %a, %c8 : index
    %f = arith.addi %r, %x : index
    lego.yield %f : index
  } inv (%y: index) {
    %c8 = arith.constant 8 : index
    %a = arith.divui %y, %c8 : index
    %r = arith.remui %y, %c8 : index
    %b = arith.xori %r, %a : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  %a, %b = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  return %a, %b : index, index
}

// -----

// Twin: the wrong inverse of the first case, never used (apply only): nothing relies on it, no diagnostic
// (lego-verify-bijectivity is the pass that reports every gen_p).
// OUT-LABEL: func.func @xor_forgotten_unused
// OUT-NEXT: %[[C3:.*]] = arith.constant 3 : index
// OUT-NEXT: %[[X:.*]] = arith.xori %arg1, %arg0 : index
// OUT-NEXT: %[[R:.*]] = arith.shli %arg0, %[[C3]] : index
// OUT-NEXT: %[[F:.*]] = arith.addi %[[R]], %[[X]] : index
// OUT-NEXT: return %[[F]] : index
func.func @xor_forgotten_unused(%i: index, %j: index) -> index {
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
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}
