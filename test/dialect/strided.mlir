// lego.strided (docs/ops/strided.md): CuTe's shape:stride, custom form ⇄ generic form, round trip.
// RUN: lego-opt %s | FileCheck %s
// RUN: lego-opt %s | lego-opt | FileCheck %s
// RUN: lego-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: lego-opt %s --mlir-print-op-generic | lego-opt | FileCheck %s
// RUN: lego-opt %s > %t.1 && lego-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK-LABEL: func.func @hierarchical
// CHECK: lego.strided shape [(4, 2), 8] stride [(1, 32), 4] : !lego.layout
// GENERIC: "lego.strided"() {modes = array<i64: 2, 1>, shape = array<i64: 4, 2, 8>, stride = array<i64: 1, 32, 4>} : () -> !lego.layout
func.func @hierarchical(%i: index, %j: index) -> index {
  %l = lego.strided shape [(4,2), 8] stride [ (1, 32),4 ] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// A one-leaf mode written in parentheses prints without them.
// CHECK-LABEL: func.func @padded_view
// CHECK: %[[L:.*]] = lego.strided shape [4, 8] stride [9, 1] : !lego.layout
// CHECK: lego.cast_view %{{.*}}, %[[L]] : memref<35xf32>, !lego.layout -> !lego.view<f32>
// GENERIC: "lego.strided"() {modes = array<i64: 1, 1>, shape = array<i64: 4, 8>, stride = array<i64: 9, 1>} : () -> !lego.layout
func.func @padded_view(%m: memref<35xf32>, %i: index, %j: index) -> f32 {
  %l = lego.strided shape [(4), 8] stride [(9), 1] : !lego.layout
  %v = lego.cast_view %m, %l : memref<35xf32>, !lego.layout -> !lego.view<f32>
  %x = lego.load %v[%i, %j] : !lego.view<f32>, index, index
  return %x : f32
}
