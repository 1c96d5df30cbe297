// lego-verify-bank-conflicts{warp-size num-banks element-size} (published legacy pass): the published bank
// model (bank = addr·E/4 mod B, any warp of warp-size consecutive threads) on every lego.apply of a function
// with a thread-id argument; a warning on the apply, never a failure.
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-verify-bank-conflicts
// 16 banks: row-major [?, 16] rows are conflict-free with 16-thread warps, not with 32-thread warps.
// RUN: lego-opt %s --split-input-file --lego-verify-bank-conflicts='warp-size=16 num-banks=16' 2>&1 >/dev/null | FileCheck %s --check-prefix=B16
// RUN: lego-opt %s --split-input-file --lego-verify-bank-conflicts='num-banks=16' 2>&1 >/dev/null | FileCheck %s --check-prefix=B16W32
// 8-byte elements: every row-major read conflicts (bank = 2·addr mod 32).
// RUN: lego-opt %s --split-input-file --lego-verify-bank-conflicts='element-size=8' 2>&1 >/dev/null | FileCheck %s --check-prefix=E8

// B16-NOT: warning
// B16: legacy-bank-conflicts.mlir:30:8: warning: Layout may cause shared memory bank conflicts
// B16-NOT: warning
// B16W32: legacy-bank-conflicts.mlir:[[# @LINE + 6]]:8: warning: Layout may cause shared memory bank conflicts
// B16W32-NEXT: thread_id {{[0-9]+}} and {{[0-9]+}} (one warp of 32) access elements {{[0-9]+}} and {{[0-9]+}}, both in bank {{[0-9]+}} (16 banks, 4-byte elements)
// E8: legacy-bank-conflicts.mlir:[[# @LINE + 4]]:8: warning: Layout may cause shared memory bank conflicts
// E8: (32 banks, 8-byte elements)
func.func @row_major(%tid: index {lego.thread_id}, %row: index, %m: index) -> index {
  %l = lego.row [%m, 32] : !lego.layout
  %a = lego.apply %l(%row, %tid) : !lego.layout
  return %a : index
}

// -----

// Thread t reads row-major [32, 32] element (t, col): every thread of a warp hits bank col.
func.func @column_read(%tid: index {lego.thread_id}, %col: index) -> index {
  %l = lego.row [32, 32] : !lego.layout
  // expected-warning @below {{Layout may cause shared memory bank conflicts{{\n}}thread_id {{[0-9]+}} and {{[0-9]+}} (one warp of 32) access elements {{.*}}, both in bank {{[0-9]+}} (32 banks, 4-byte elements)}}
  %a = lego.apply %l(%tid, %col) : !lego.layout
  return %a : index
}
