// Each generated file states each function's domain in a comment: the bounds its layouts put on its
// arguments, which lego-lower assumes (outside them the output differs from the layout's own arithmetic).
// Expected bounds by hand from the layouts' dims (docs/translate.md, "Domains").
//
// RUN: lego-translate --lego-to-c %s | FileCheck %s --check-prefixes=C,ALL
// RUN: lego-translate --lego-to-cpp %s | FileCheck %s --check-prefixes=SLASH,ALL
// RUN: lego-translate --lego-to-cuda %s | FileCheck %s --check-prefixes=SLASH,ALL
// RUN: lego-translate --lego-to-rust %s | FileCheck %s --check-prefixes=SLASH,ALL
// RUN: lego-translate --lego-to-js %s | FileCheck %s --check-prefixes=SLASH,ALL
// RUN: lego-translate --lego-to-glsl %s | FileCheck %s --check-prefixes=SLASH,ALL
// RUN: lego-translate --lego-to-wgsl %s | FileCheck %s --check-prefixes=SLASH,ALL
// RUN: lego-translate --lego-to-fortran %s | FileCheck %s --check-prefixes=F90,ALL
// RUN: lego-translate --lego-to-julia %s | FileCheck %s --check-prefixes=HASH,ALL
// RUN: lego-translate --lego-to-python %s | FileCheck %s --check-prefixes=HASH,ALL
//
// Input already lowered (--no-lower): no layout is left to read a domain from, and the comment says so.
// RUN: lego-translate --lego-to-mlir %s -o %t.lowered.mlir
// RUN: lego-translate --lego-to-c --no-lower %t.lowered.mlir | FileCheck %s --check-prefix=NOLOWER
// NOLOWER: /* Domain of swz: not stated (--no-lower: the input's layouts, if any, were lowered before). */
// NOLOWER-NEXT: static inline uint64_t swz(

// An 8 x 8 XOR swizzle: apply(i, j) = i * 8 + (j xor (i mod 8)). lego-lower assumes i < 8 and drops the
// `mod 8`: swz(40, 0) is 360 in the generated code, 320 by the gen_p's own arithmetic.
// C:      /* Domain of swz: i < 8, j < 8 (other arguments give unspecified results). */
// C-NEXT: static inline uint64_t swz(
// SLASH:  // Domain of swz: i < 8, j < 8 (other arguments give unspecified results).
// F90:    ! Domain of swz: i < 8, j < 8 (other arguments give unspecified results).
// HASH:   # Domain of swz: i < 8, j < 8 (other arguments give unspecified results).
func.func @swz(%i: index, %j: index) -> index {
  %l = lego.gen_p [8, 8] apply (%a: index, %b: index) {
    %c8 = arith.constant 8 : index
    %m = arith.remui %a, %c8 : index
    %x = arith.xori %b, %m : index
    %row = arith.muli %a, %c8 : index
    %f = arith.addi %row, %x : index
    lego.yield %f : index
  } inv (%f: index) {
    %c8 = arith.constant 8 : index
    %a = arith.divui %f, %c8 : index
    %m = arith.remui %f, %c8 : index
    %b = arith.xori %m, %a : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %y = lego.apply %l(%i, %j) : !lego.layout
  return %y : index
}

// The inverse of a row with symbolic sizes: the flat index below n * m.
// ALL: Domain of sym_inverse: pos < n * m (other arguments give unspecified results).
func.func @sym_inverse(%pos: index, %n: index, %m: index) -> (index, index) {
  %l = lego.row [%n, %m] : !lego.layout
  %a, %b = lego.apply_inverse %l(%pos) : !lego.layout -> index, index
  return %a, %b : index, index
}

// Partial tiles: the 5 x 6 corner of an 8 x 8 shape holds 30 elements; the inverse takes positions below 30,
// apply takes indices below the padded dims.
// ALL: Domain of partial_inverse: x < 30 (other arguments give unspecified results).
func.func @partial_inverse(%x: index) -> (index, index) {
  %inner = lego.row [8, 8] : !lego.layout
  %l = lego.expand_by %inner dims [5, 6] to [8, 8] : !lego.layout
  %a, %b = lego.apply_inverse %l(%x) : !lego.layout -> index, index
  return %a, %b : index, index
}
// ALL: Domain of partial_apply: a < 8, b < 8 (other arguments give unspecified results).
func.func @partial_apply(%a: index, %b: index) -> index {
  %inner = lego.row [8, 8] : !lego.layout
  %l = lego.expand_by %inner dims [5, 6] to [8, 8] : !lego.layout
  %f = lego.apply %l(%a, %b) : !lego.layout
  return %f : index
}

// An index computed from the parameters, a size computed from one, and two uses of one parameter (both
// bounds are stated).
// ALL: Domain of computed: i + 1 < 4, j < n * 2, i < 3 (other arguments give unspecified results).
func.func @computed(%i: index, %j: index, %n: index) -> index {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %i1 = arith.addi %i, %c1 : index
  %n2 = arith.muli %n, %c2 : index
  %l = lego.row [4, %n2] : !lego.layout
  %f = lego.apply %l(%i1, %j) : !lego.layout
  %k = lego.row [3] : !lego.layout
  %g = lego.apply %k(%i) : !lego.layout
  %s = arith.addi %f, %g : index
  return %s : index
}

// No layout: every argument.
// ALL: Domain of plain: every argument (it uses no layout).
func.func @plain(%x: index) -> index {
  %c3 = arith.constant 3 : index
  %y = arith.muli %x, %c3 : index
  return %y : index
}

// A use under a condition bounds its index only when reached: not part of the stated domain.
// ALL: Domain of conditional: not stated (1 bound on values computed inside the function, or under a
func.func @conditional(%i: index) -> index {
  %c2 = arith.constant 2 : index
  %p = arith.cmpi ult, %i, %c2 : index
  %r = scf.if %p -> index {
    %l = lego.row [4] : !lego.layout
    %f = lego.apply %l(%i) : !lego.layout
    scf.yield %f : index
  } else {
    scf.yield %i : index
  }
  return %r : index
}
