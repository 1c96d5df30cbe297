// lego.compose and lego.inverse: custom form ⇄ generic form, printed spelling, round trip.
// RUN: lego-opt %s | FileCheck %s
// RUN: lego-opt %s | lego-opt | FileCheck %s
// RUN: lego-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: lego-opt %s --mlir-print-op-generic | lego-opt | FileCheck %s
// RUN: lego-opt %s > %t.1 && lego-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK-LABEL: func.func @ops
// CHECK: %[[A:.*]] = lego.col[4, 8] : !lego.layout
// CHECK: %[[B:.*]] = lego.row[8, 4] : !lego.layout
// CHECK: %[[C:.*]] = lego.compose %[[A]], %[[B]] : !lego.layout
// CHECK: %[[I:.*]] = lego.inverse %[[C]] : !lego.layout
// CHECK: lego.apply %[[I]](%{{.*}}) : !lego.layout
// GENERIC: "lego.compose"(%{{.*}}, %{{.*}}) : (!lego.layout, !lego.layout) -> !lego.layout
// GENERIC: "lego.inverse"(%{{.*}}) : (!lego.layout) -> !lego.layout
func.func @ops(%x: index) -> index {
  %a = lego.col [4, 8] : !lego.layout
  %b = lego.row [8, 4] : !lego.layout
  %c = lego.compose   %a ,%b : !lego.layout
  %i = lego.inverse %c : !lego.layout
  %f = lego.apply %i(%x) : !lego.layout
  return %f : index
}

// Symbolic sizes: the verifier cannot compare them, the ops are accepted.
// CHECK-LABEL: func.func @symbolic
// CHECK: lego.compose
// CHECK: lego.inverse
func.func @symbolic(%n: index, %m: index, %x: index) -> index {
  %a = lego.row [%n] : !lego.layout
  %b = lego.col [%m, 4] : !lego.layout
  %c = lego.compose %a, %b : !lego.layout
  %i = lego.inverse %c : !lego.layout
  %f = lego.apply %i(%x) : !lego.layout
  return %f : index
}
