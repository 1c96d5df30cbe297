// lego.swizzle (docs/ops/swizzle.md): CuTe's Swizzle<B, M, S> on the row-major flat index x = B(n⃗, i⃗):
// x ^ ((x & ((2^B - 1) << (M + S))) >> S). Lowers to andi, shrui and exactly one xori per application;
// it is its own inverse, so apply_inverse is the same three ops followed by B⁻¹(n⃗, ·).
// RUN: lego-opt %s --lego-to-arith | FileCheck %s
// RUN: lego-opt %s --lego-lower | FileCheck %s
// RUN: lego-opt %s --lego-to-arith --canonicalize | FileCheck %s --check-prefix=FOLD

// Swizzle<3, 4, 3>: mask (2^3 - 1) << 7 = 896.
// CHECK-LABEL: func.func @apply_alone
// CHECK-SAME: (%[[X:.*]]: index)
// CHECK-DAG: %[[MASK:.*]] = arith.constant 896 : index
// CHECK-DAG: %[[S:.*]] = arith.constant 3 : index
// CHECK: %[[HIGH:.*]] = arith.andi %[[X]], %[[MASK]] : index
// CHECK: %[[MOVED:.*]] = arith.shrui %[[HIGH]], %[[S]] : index
// CHECK: %[[R:.*]] = arith.xori %[[X]], %[[MOVED]] : index
// CHECK-NOT: arith.xori
// CHECK: return %[[R]] : index
func.func @apply_alone(%x: index) -> index {
  %s = lego.swizzle bits 3 base 4 shift 3 dims [2048] : !lego.layout
  %f = lego.apply %s(%x) : !lego.layout
  return %f : index
}

// The inverse is the same map: one xori, and for rank 1 nothing else.
// CHECK-LABEL: func.func @inverse_alone
// CHECK: arith.andi
// CHECK: arith.shrui
// CHECK-COUNT-1: arith.xori
// CHECK-NOT: arith.xori
// CHECK: return
func.func @inverse_alone(%x: index) -> index {
  %s = lego.swizzle bits 3 base 4 shift 3 dims [2048] : !lego.layout
  %i = lego.apply_inverse %s(%x) : !lego.layout -> index
  return %i : index
}

// Twin: bits 0 is the identity, no xori at all.
// CHECK-LABEL: func.func @identity_swizzle
// CHECK-SAME: (%[[X:.*]]: index)
// CHECK-NOT: arith.xori
// CHECK: return %[[X]] : index
func.func @identity_swizzle(%x: index) -> index {
  %s = lego.swizzle bits 0 base 2 shift 3 dims [64] : !lego.layout
  %f = lego.apply %s(%x) : !lego.layout
  return %f : index
}

// Hand values (folded): Swizzle<3, 4, 3>(352 = 0b1_0110_0000): bits 7..9 = 0b010 XOR bits 4..6 = 0b110
// gives 0b100: 0b1_0100_0000 = 320, and back.
// FOLD-LABEL: func.func @hand_values
// FOLD-DAG: %[[A:.*]] = arith.constant 320 : index
// FOLD-DAG: %[[B:.*]] = arith.constant 352 : index
// FOLD: return %[[A]], %[[B]] : index, index
func.func @hand_values() -> (index, index) {
  %c352 = arith.constant 352 : index
  %c320 = arith.constant 320 : index
  %s = lego.swizzle bits 3 base 4 shift 3 dims [2048] : !lego.layout
  %f = lego.apply %s(%c352) : !lego.layout
  %i = lego.apply_inverse %s(%c320) : !lego.layout -> index
  return %f, %i : index, index
}

// A piece of a group_by chain: group_by [32, 32](Swizzle<3, 2, 3> over [1024]) at (5, 7):
// x = 5·32 + 7 = 167 = 0b1010_0111; bits 5..7 = 0b101 XOR bits 2..4 = 0b001 → 0b100: 179.
// A rank-2 swizzle's inverse: Swizzle<2, 0, 2> over [4, 4] at 14 = 0b1110: 0b10 ^ 0b11 = 0b01 → 13 = (3, 1).
// In a tile_by chain: tile_by (order_by(Swizzle<1, 0, 1> over [4, 4])) [[2, 2], [2, 2]] at (1, 1, 0, 0):
// coordinates (2, 2), x = 10 = 0b1010 → bit 0 ^= bit 1 → 11.
// FOLD-LABEL: func.func @in_chains
// FOLD-DAG: %[[G:.*]] = arith.constant 179 : index
// FOLD-DAG: %[[R:.*]] = arith.constant 3 : index
// FOLD-DAG: %[[C:.*]] = arith.constant 1 : index
// FOLD-DAG: %[[T:.*]] = arith.constant 11 : index
// FOLD: return %[[G]], %[[R]], %[[C]], %[[T]] : index, index, index, index
func.func @in_chains() -> (index, index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c14 = arith.constant 14 : index
  %s = lego.swizzle bits 3 base 2 shift 3 dims [1024] : !lego.layout
  %g = lego.group_by [32, 32](%s) : !lego.layout
  %a = lego.apply %g(%c5, %c7) : !lego.layout
  %s2 = lego.swizzle bits 2 base 0 shift 2 dims [4, 4] : !lego.layout
  %r, %c = lego.apply_inverse %s2(%c14) : !lego.layout -> index, index
  %s3 = lego.swizzle bits 1 base 0 shift 1 dims [4, 4] : !lego.layout
  %o = lego.order_by(%s3) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2, 2], [2, 2]] : !lego.layout
  %b = lego.apply %t(%c1, %c1, %c0, %c0) : !lego.layout
  return %a, %r, %c, %b : index, index, index, index
}

// Symbolic size: the lowering does not need it (the period rule is the program's contract there).
// CHECK-LABEL: func.func @symbolic
// CHECK: arith.{{muli|shli}}
// CHECK: arith.andi
// CHECK-COUNT-1: arith.xori
// CHECK-NOT: arith.xori
// CHECK: return
func.func @symbolic(%n: index, %i: index, %j: index) -> index {
  %s = lego.swizzle bits 2 base 1 shift 3 dims [%n, 64] : !lego.layout
  %f = lego.apply %s(%i, %j) : !lego.layout
  return %f : index
}
