// Our strict model (aligned warps and runs); the published model's verdicts are in published-model.mlir.
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-verify='model=strict verbose=true'
// RUN: lego-opt %s --split-input-file --lego-verify='model=strict fail-on-violation=true' | FileCheck %s
// RUN: lego-opt %s --split-input-file --lego-verify | FileCheck %s
// After lowering (lego.apply becomes arith/affine index arithmetic) the same checks are proved:
// RUN: lego-opt %s --split-input-file --lego-lower | FileCheck %s
// Coalesced warp accesses (proved); the negative twins are in coalescing-errors.mlir.
// lego-verify erases every lego.check it processed.
// CHECK-NOT: lego.check

// Row-major warp access: thread t of the warp reads A[row][t] of a row-major [?, 64] f32 array.
func.func @row_major(%tid: index {lego.thread_id}, %row: index) {
  %c64 = arith.constant 64 : index
  %base = arith.muli %row, %c64 : index
  %addr = arith.addi %base, %tid : index
  // expected-remark @below {{coalescing proved: every warp's 32 lanes access one aligned run of 32 × 4 bytes, in lane order}}
  lego.check %addr {coalescing}
  return
}

// -----

// The same access through a layout (before lowering): apply(row [%m, 64], %row, %tid).
func.func @row_major_layout(%tid: index {lego.thread_id}, %row: index, %m: index) {
  %l = lego.row [%m, 64] : !lego.layout
  %addr = lego.apply %l(%row, %tid) : !lego.layout
  // expected-remark @below {{coalescing proved}}
  lego.check %addr {coalescing}
  return
}

// -----

// A symbolic row length, known to be a multiple of the warp size: proved for every such length.
func.func @row_major_symbolic(%tid: index {lego.thread_id}, %row: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %rem = arith.remui %n, %c32 : index
  %multiple = arith.cmpi eq, %rem, %c0 : index
  lego.assume %multiple
  %l = lego.row [1024, %n] : !lego.layout
  %addr = lego.apply %l(%row, %tid) : !lego.layout
  // expected-remark @below {{coalescing proved}}
  lego.check %addr {coalescing}
  return
}

// -----

// A warp of 16 lanes with 8-byte elements, in a loop over rows: 16 × 8 bytes per warp.
func.func @loop_rows(%tid: index {lego.thread_id}, %rows: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  scf.for %r = %c0 to %rows step %c1 {
    %base = arith.muli %r, %c128 : index
    %addr = arith.addi %base, %tid : index
    // expected-remark @below {{coalescing proved: every warp's 16 lanes access one aligned run of 16 × 8 bytes, in lane order}}
    lego.check %addr {coalescing, element_size = 8 : i64, warp_size = 16 : i64}
  }
  return
}
