// Text left on the line after a custom op's type is a located error at that text (the column of the line
// the user wrote, not of the generic text the op is rewritten to), and a comment there is not.
// RUN: not lego-opt %s --split-input-file 2>&1 | FileCheck %s
// RUN: lego-opt %S/Inputs/trailing-comment.mlir | FileCheck %s --check-prefix=OK

func.func @arrow(%i: index, %j: index) -> index {
  %l = lego.row [4, 8] : !lego.layout
  %r = lego.apply %l(%i, %j) : !lego.layout -> index
  return %r : index
}
// CHECK: trailing-tokens.mlir:8:45: error: unexpected '->' after the end of 'lego.apply' (its custom form ends at its type)

// -----

func.func @comma() {
  %l = lego.row [4, 8] : !lego.layout, index
  return
}
// CHECK: trailing-tokens.mlir:16:38: error: unexpected ',' after the end of 'lego.row'

// OK-LABEL: func.func @f
// OK: lego.apply %{{.*}}(%{{.*}}, %{{.*}}) : !lego.layout
// OK-LABEL: func.func @g
// OK: lego.yield %{{.*}} : index
// OK: lego.apply
