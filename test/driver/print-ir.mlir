// IR printing between passes prints lego ops in custom syntax, on stderr, before/after each pass.
// RUN: lego-opt %s --canonicalize --lego-strength-reduction --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: lego-opt %s --canonicalize --mlir-print-ir-before-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE

// AFTER: // -----// IR Dump After canonicalize //----- //
// AFTER: lego.row[4, 8] : !lego.layout
// AFTER: arith.muli
// AFTER: // -----// IR Dump After lego-strength-reduction //----- //
// AFTER: lego.row[4, 8] : !lego.layout
// AFTER: arith.shli

// BEFORE: // -----// IR Dump Before canonicalize //----- //
// BEFORE: lego.row[4, 8] : !lego.layout
// BEFORE-NOT: IR Dump After

func.func @f(%i: index, %j: index) -> index {
  %l = lego.row [4, 8] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  %c8 = arith.constant 8 : index
  %m = arith.muli %f, %c8 : index
  return %m : index
}
