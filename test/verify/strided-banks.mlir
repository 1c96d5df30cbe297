// A CuTe-style padded tile, (32, 32):(33, 1), read transposed by a warp: bank (33·tx + ty) mod 32 differs for
// every lane, proved; its unpadded twin (32, 32):(32, 1) puts every lane in bank ty.
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-verify='model=strict verbose=true'

func.func @padded(%tid: index {lego.thread_id}) {
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  lego.assume_bounds %tid ub : %c1024
  %tile = lego.strided shape [32, 32] stride [33, 1] : !lego.layout
  %tx = arith.remui %tid, %c32 : index
  %ty = arith.divui %tid, %c32 : index
  %addr = lego.apply %tile(%tx, %ty) : !lego.layout
  // expected-remark @below {{bank_conflict_free proved}}
  lego.check %addr {bank_conflict_free}
  return
}

// -----

func.func @unpadded(%tid: index {lego.thread_id}) {
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  lego.assume_bounds %tid ub : %c1024
  %tile = lego.strided shape [32, 32] stride [32, 1] : !lego.layout
  %tx = arith.remui %tid, %c32 : index
  %ty = arith.divui %tid, %c32 : index
  %addr = lego.apply %tile(%tx, %ty) : !lego.layout
  // expected-warning @below {{both in bank 0}}
  lego.check %addr {bank_conflict_free}
  return
}
