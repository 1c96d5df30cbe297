// lego.swizzle in the provers: the XOR is encoded exactly (bit-vector and/shift/xor), so a full swizzle of a
// 32 × 32 fp32 transpose tile is proved conflict-free and a partial one gets its colliding lanes (swizzle-bijectivity.mlir: bijectivity).
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-verify='model=strict verbose=true'

// Swizzle<5, 0, 5> over [32, 32]: lane tx reads (tx, ty) at 32·tx + (ty XOR tx): bank ty XOR tx, all different.
func.func @swizzled_transpose(%tid: index {lego.thread_id}) {
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  lego.assume_bounds %tid ub : %c1024
  %s = lego.swizzle bits 5 base 0 shift 5 dims [32, 32] : !lego.layout
  %tx = arith.remui %tid, %c32 : index
  %ty = arith.divui %tid, %c32 : index
  %addr = lego.apply %s(%tx, %ty) : !lego.layout
  // expected-remark @below {{bank_conflict_free proved}}
  lego.check %addr {bank_conflict_free}
  return
}

// -----

// Twin: Swizzle<4, 0, 5> XORs only 4 bits: bank ty XOR (tx mod 16), so lanes 0 and 16 share bank 0.
func.func @half_swizzled_transpose(%tid: index {lego.thread_id}) {
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  lego.assume_bounds %tid ub : %c1024
  %s = lego.swizzle bits 4 base 0 shift 5 dims [32, 32] : !lego.layout
  %tx = arith.remui %tid, %c32 : index
  %ty = arith.divui %tid, %c32 : index
  %addr = lego.apply %s(%tx, %ty) : !lego.layout
  // expected-warning @below {{lanes 0 and 16 (thread_id 0 and 16) access elements 0 and 512 (4-byte words 0 and 512), both in bank 0}}
  lego.check %addr {bank_conflict_free}
  return
}
