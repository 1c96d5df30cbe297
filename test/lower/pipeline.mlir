// Both passes are registered: as flags, inside --pass-pipeline (also nested under func.func, where
// layouts stay within each function), mixed with upstream passes.
// RUN: lego-opt %s --pass-pipeline='builtin.module(func.func(lego-normalization{fold=true}, lego-to-arith), canonicalize, cse)' | FileCheck %s
// RUN: lego-opt %s -lego-normalization='fold=true' -lego-to-arith -canonicalize -cse | FileCheck %s
// RUN: lego-opt --list-passes | FileCheck %s --check-prefix=LIST
// LIST: --lego-normalization
// LIST: --lego-to-arith

// Views passed to functions need the whole module: nested under func.func, the pass reports it.
// RUN: not lego-opt %S/Inputs/view-call.mlir --pass-pipeline='builtin.module(func.func(lego-to-arith))' 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: view-call.mlir:1:{{[0-9]+}}: error: 'func.func' op has !lego.view / !lego.layout arguments: run lego-to-arith on the enclosing module so that the calls can be rewritten too
// NESTED: view-call.mlir:8:8: error: 'func.call' op uses a !lego.view produced by 'lego.cast_view', which lego-to-arith cannot lower through it
// At module level the same input lowers.
// RUN: lego-opt %S/Inputs/view-call.mlir --lego-to-arith | FileCheck %s --check-prefix=MODULE
// MODULE: func.func private @callee(%{{.*}}: memref<8xf32>, %{{.*}}: index) -> f32
// MODULE: call @callee(%{{.*}}, %{{.*}}) : (memref<8xf32>, index) -> f32

// tile_by apply(ti, tk, i, k) = (ti·4 + i)·12 + tk·3 + k.
// CHECK-LABEL: func.func @tiled
// CHECK-SAME: (%[[TI:.*]]: index, %[[TK:.*]]: index, %[[I:.*]]: index, %[[K:.*]]: index)
// normalization{fold=true} leaves tile_by to lego-to-arith's direct form (docs/reference/semantics.md): c = (ti·4 + i, tk·3 + k)
// per dim, then row [8, 12] over c: (ti·4 + i)·12 + (tk·3 + k).
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C12:.*]] = arith.constant 12 : index
// CHECK: %[[S1:.*]] = arith.muli %[[TI]], %[[C4]] : index
// CHECK-NEXT: %[[A1:.*]] = arith.addi %[[I]], %[[S1]] : index
// CHECK-NEXT: %[[S2:.*]] = arith.muli %[[TK]], %[[C3]] : index
// CHECK-NEXT: %[[A2:.*]] = arith.addi %[[K]], %[[S2]] : index
// CHECK-NEXT: %[[S3:.*]] = arith.muli %[[A1]], %[[C12]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[A2]], %[[S3]] : index
// CHECK-NEXT: return %[[F]]
func.func @tiled(%ti: index, %tk: index, %i: index, %k: index) -> index {
  %row = lego.row [8, 12] : !lego.layout
  %order = lego.order_by(%row) : !lego.layout
  %tiled = lego.tile_by %order tile_dims [[2, 4], [4, 3]] : !lego.layout
  %flat = lego.apply %tiled(%ti, %tk, %i, %k) : !lego.layout
  return %flat : index
}

