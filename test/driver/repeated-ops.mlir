// Several top-level ops, the first on line 1 (parsed straight into a module, every location MLIR's own), and
// functions that print the same lego ops (MLIR numbers values afresh in each function, so the printed texts
// repeat and the printer converts each distinct one once): every copy is printed in custom form, an op the
// custom form cannot hold (`tag`) stays generic in each copy, gen_p regions are converted in each copy, and
// every location is the user's line and column (op at its name, block argument at its name).
// RUN: lego-opt %s | FileCheck %s
// RUN: lego-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// RUN: lego-opt %s | lego-opt | FileCheck %s
func.func @f(%i: index) -> index { %l = lego.row [4, 8] : !lego.layout
  %r = lego.apply %l(%i, %i) : !lego.layout
  %x = "lego.row"() {static_dims = array<i64: 4, 8>, tag = 1 : i64} : () -> !lego.layout
  %q = lego.gen_p [4] apply (%k: index) {
    lego.yield %k : index
  } : !lego.layout
  return %r : index
}
func.func @g(%i: index) -> index {
  %l = lego.row [4, 8] : !lego.layout
  %r = lego.apply %l(%i, %i) : !lego.layout
  %x = "lego.row"() {static_dims = array<i64: 4, 8>, tag = 1 : i64} : () -> !lego.layout
  %q = lego.gen_p [4] apply (%k: index) {
    lego.yield %k : index
  } : !lego.layout
  return %r : index
}

// CHECK-LABEL: func.func @f(%arg0: index) -> index {
// CHECK-NEXT:    %0 = lego.row[4, 8] : !lego.layout
// CHECK-NEXT:    %1 = lego.apply %0(%arg0, %arg0) : !lego.layout
// CHECK-NEXT:    %2 = "lego.row"() {static_dims = array<i64: 4, 8>, tag = 1 : i64} : () -> !lego.layout
// CHECK-NEXT:    %3 = lego.gen_p[4] apply (%arg1: index) {
// CHECK-NEXT:      lego.yield %arg1 : index
// CHECK-NEXT:    } : !lego.layout
// CHECK-NEXT:    return %1 : index
// CHECK-LABEL: func.func @g(%arg0: index) -> index {
// CHECK-NEXT:    %0 = lego.row[4, 8] : !lego.layout
// CHECK-NEXT:    %1 = lego.apply %0(%arg0, %arg0) : !lego.layout
// CHECK-NEXT:    %2 = "lego.row"() {static_dims = array<i64: 4, 8>, tag = 1 : i64} : () -> !lego.layout
// CHECK-NEXT:    %3 = lego.gen_p[4] apply (%arg1: index) {
// CHECK-NEXT:      lego.yield %arg1 : index
// CHECK-NEXT:    } : !lego.layout
// CHECK-NEXT:    return %1 : index

// LOC: func.func @f(%arg0: index loc("{{.*}}repeated-ops.mlir":9:14)) -> index {
// LOC-NEXT: %0 = lego.row[4, 8] : !lego.layout loc(#[[ROW_F:loc[0-9]*]])
// LOC: func.func @g(%arg0: index loc("{{.*}}repeated-ops.mlir":17:14)) -> index {
// LOC-NEXT: %0 = lego.row[4, 8] : !lego.layout loc(#[[ROW_G:loc[0-9]*]])
// LOC-DAG: #[[ROW_F]] = loc("{{.*}}repeated-ops.mlir":9:41)
// LOC-DAG: #[[ROW_G]] = loc("{{.*}}repeated-ops.mlir":18:8)
// LOC-NOT: wrapped
