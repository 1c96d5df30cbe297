// RUN: lego-opt %s --split-input-file | FileCheck %s
// RUN: lego-opt %s --split-input-file -o /dev/null 2>&1 | count 0

// Each chunk is parsed and printed on its own; outputs are joined by the marker.

// CHECK-LABEL: func.func @first
// CHECK: lego.row[4, 8]
func.func @first(%i: index, %j: index) -> index {
  %l = lego.row [4, 8] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// -----

// CHECK: // -----
// CHECK-LABEL: func.func @second
// CHECK: lego.col[2, 3]
func.func @second(%i: index, %j: index) -> index {
  %l = lego.col [2, 3] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}
