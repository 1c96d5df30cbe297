// Why lego-translate prints C and C++ itself instead of going through upstream EmitC (docs/translate.md): with
// LLVM 22, convert-arith-to-emitc cannot legalize the unsigned index ops every lowered layout uses, and
// convert-func-to-emitc leaves functions with several results (apply_inverse) unconverted. When an LLVM upgrade
// makes this test fail, reconsider the EmitC path for --lego-to-c/--lego-to-cpp.
// RUN: not mlir-opt %s --split-input-file --convert-arith-to-emitc --convert-func-to-emitc 2>&1 | FileCheck %s

// CHECK: error: failed to legalize operation 'arith.divui'
func.func @unsigned_div(%x: index, %n: index) -> index {
  %q = arith.divui %x, %n : index
  return %q : index
}

// -----

// CHECK: error: failed to legalize operation 'func.func'
func.func @two_results(%x: i64, %n: i64) -> (i64, i64) {
  %q = arith.divui %x, %n : i64
  %r = arith.remui %x, %n : i64
  return %q, %r : i64, i64
}
