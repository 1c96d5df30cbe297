// A gen_p whose inverse cannot be decided (its regions call functions the SMT encoding does not model): a
// warning at the gen_p, and no rewrite that relies on the inverse. canonicalize keeps
// apply_inverse(apply(x)); lowering computes apply_inverse through the inv region as written (there is
// nothing else to compute it from). Both pass orders give the same answer (before, -canonicalize folded to x).
// RUN: lego-opt %s --lego-lower 2>&1 >/dev/null | FileCheck %s --check-prefix=LOWER-DIAG
// RUN: lego-opt %s -canonicalize --lego-lower 2>&1 >/dev/null | FileCheck %s --check-prefixes=CANON-DIAG,LOWER-DIAG
// RUN: lego-opt %s --lego-lower 2>/dev/null | FileCheck %s --check-prefix=OUT
// RUN: lego-opt %s -canonicalize --lego-lower 2>/dev/null | FileCheck %s --check-prefix=OUT
// RUN: lego-opt %s -canonicalize 2>/dev/null | FileCheck %s --check-prefix=CANON
// verify-gen-p=false: folded, and not a word.
// RUN: lego-opt %s -canonicalize='verify-gen-p=false' 2>&1 | FileCheck %s --check-prefix=TRUST
// RUN: lego-opt %s --lego-lower='verify-gen-p=false' 2>&1 | FileCheck %s --check-prefix=TRUST-LOWER

// CANON-DIAG: genp-inverse-unknown.mlir:[[# @LINE + 24]]:8: warning: the gen_p's inv region is not proved to invert its apply region (cannot verify: unsupported op 'func.call'); apply_inverse(apply(x)) is not folded
// CANON-DIAG: genp-inverse-unknown.mlir:[[# @LINE + 25]]:10: note: in the slice of this value
// LOWER-DIAG: genp-inverse-unknown.mlir:[[# @LINE + 22]]:8: warning: the gen_p's inv region is not proved to invert its apply region (cannot verify: unsupported op 'func.call'); apply_inverse is lowered through the inv region as written
// LOWER-DIAG: genp-inverse-unknown.mlir:[[# @LINE + 23]]:10: note: in the slice of this value
// LOWER-DIAG-NOT: warning
// OUT-LABEL: func.func @opaque
// OUT: %[[S:.*]] = call @swizzle(%arg1)
// OUT: %[[F:.*]] = arith.addi %{{.*}}, %[[S]] : index
// OUT: %[[Q:.*]] = arith.shrui %[[F]], %{{.*}} : index
// OUT: %[[R:.*]] = arith.andi %[[F]], %{{.*}} : index
// OUT: %[[U:.*]] = call @unswizzle(%[[R]])
// OUT: return %[[Q]], %[[U]] : index, index
// CANON-LABEL: func.func @opaque
// CANON: lego.apply_inverse
// TRUST-NOT: warning
// TRUST-LABEL: func.func @opaque
// TRUST-NEXT: return %arg0, %arg1 : index, index
// TRUST-LOWER-NOT: warning
// TRUST-LOWER-LABEL: func.func @opaque
// TRUST-LOWER: call @unswizzle
func.func private @swizzle(index) -> index
func.func private @unswizzle(index) -> index

func.func @opaque(%i: index, %j: index) -> (index, index) {
  %l = lego.gen_p [4, 8] apply (%a: index, %b: index) {
    %c8 = arith.constant 8 : index
    %s = func.call @swizzle(%b) : (index) -> index
    %r = arith.muli %a, %c8 : index
    %f = arith.addi %r, %s : index
    lego.yield %f : index
  } inv (%y: index) {
    %c8 = arith.constant 8 : index
    %a = arith.divui %y, %c8 : index
    %r = arith.remui %y, %c8 : index
    %b = func.call @unswizzle(%r) : (index) -> index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  %a, %b = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  return %a, %b : index, index
}
