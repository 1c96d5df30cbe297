// Every op of the dialect in every syntax variant of docs/reference/syntax.md. The output must be the custom
// form, and printing → parsing → printing must be stable (second and third RUN lines); the generic form must
// parse back to the same IR (fourth).
// RUN: lego-opt %s | FileCheck %s
// RUN: lego-opt %s | lego-opt | FileCheck %s
// RUN: lego-opt %s --mlir-print-op-generic | lego-opt | FileCheck %s
// RUN: lego-opt %s > %t.1 && lego-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK-LABEL: func.func @constructors
// CHECK-SAME: (%[[N:.*]]: index, %[[M:.*]]: index)
func.func @constructors(%n: index, %m: index) {
  // CHECK: %[[C4:.*]] = arith.constant 4 : index
  %c4 = arith.constant 4 : index
  // Literal, SSA and mixed dims; entries keep their form.
  // CHECK: %[[ROW:.*]] = lego.row[4, 8] : !lego.layout
  %row = lego.row [4, 8] : !lego.layout
  // CHECK: %[[ROWS:.*]] = lego.row[%[[N]], %[[M]]] : !lego.layout
  %rows = lego.row [%n, %m] : !lego.layout
  // CHECK: %[[COL:.*]] = lego.col[%[[C4]], 16, %[[N]]] : !lego.layout
  %col = lego.col[%c4, 16, %n] : !lego.layout
  // CHECK: %[[REG:.*]] = lego.reg_p perm [1, 0] dims[2, 2] : !lego.layout
  %reg = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout
  // No space between keyword and bracket is accepted too.
  // CHECK: %[[REG2:.*]] = lego.reg_p perm [0, 2, 1, 3] dims[%[[C4]], 3, %[[N]], 3] : !lego.layout
  %reg2 = lego.reg_p perm[0, 2, 1, 3] dims[%c4, 3, %n, 3] : !lego.layout
  // CHECK: %[[ORD:.*]] = lego.order_by(%[[REG]], %[[ROW]]) : !lego.layout
  %ord = lego.order_by (%reg, %row) : !lego.layout
  // CHECK: %[[ORD1:.*]] = lego.order_by(%[[ROW]]) : !lego.layout
  %ord1 = lego.order_by(%row) : !lego.layout
  // CHECK: %[[GRP:.*]] = lego.group_by[16, 8] (%[[ORD]]) : !lego.layout
  %grp = lego.group_by [16, 8](%ord) : !lego.layout
  // CHECK: lego.group_by[%[[N]], 8] (%[[ORD]], %[[ORD1]]) : !lego.layout
  %grp2 = lego.group_by[%n, 8](%ord, %ord1) : !lego.layout
  // An empty object list is allowed.
  // CHECK: lego.group_by[32] () : !lego.layout
  %grp3 = lego.group_by [32]() : !lego.layout
  // CHECK: %[[ORD2:.*]] = lego.order_by(%[[ROWS]]) : !lego.layout
  %ord2 = lego.order_by(%rows) : !lego.layout
  // CHECK: lego.tile_by %[[ORD2]] tile_dims {{\[}}[2, %[[C4]]], [%[[N]], 3]] : !lego.layout
  %tile = lego.tile_by %ord2 tile_dims [[2, %c4], [%n, 3]] : !lego.layout
  // CHECK: %[[ROW68:.*]] = lego.row[6, 8] : !lego.layout
  %row68 = lego.row [6, 8] : !lego.layout
  // CHECK: lego.expand_by %[[ROW68]] dims [5, %[[M]]] to [6, 8] : !lego.layout
  %exp = lego.expand_by %row68 dims [5, %m] to [6, 8] : !lego.layout
  return
}

// CHECK-LABEL: func.func @gen_p
func.func @gen_p(%i: index, %j: index, %n: index) -> (index, index, index) {
  // With an inverse; the body keeps its ops and the terminator prints as lego.yield.
  // CHECK: %[[REV:.*]] = lego.gen_p[3, %{{.*}}] apply (%[[A:.*]]: index, %[[B:.*]]: index) {
  // CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
  // CHECK: lego.yield %{{.*}} : index
  // CHECK-NEXT: } inv (%[[X:.*]]: index) {
  // CHECK: lego.yield %{{.*}}, %{{.*}} : index, index
  // CHECK-NEXT: } : !lego.layout
  %rev = lego.gen_p [3, %n] apply (%a: index, %b: index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %ra = arith.subi %c2, %a : index
    %rb = arith.subi %c1, %b : index
    %row = arith.muli %ra, %n : index
    %f = arith.addi %row, %rb : index
    lego.yield %f : index
  } inv (%x: index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %q = arith.divui %x, %n : index
    %r = arith.remui %x, %n : index
    %a = arith.subi %c2, %q : index
    %b = arith.subi %c1, %r : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  // Apply-only (no inv), written without a space before the dims; regions may hold scf.
  // CHECK: lego.gen_p[4] apply (%{{.*}}: index) {
  // CHECK: scf.if
  // CHECK: lego.yield %{{.*}} : index
  // CHECK-NEXT: } : !lego.layout
  %bcast = lego.gen_p[4] apply (%k: index) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %lt = arith.cmpi ult, %k, %c2 : index
    %v = scf.if %lt -> (index) {
      scf.yield %c0 : index
    } else {
      scf.yield %k : index
    }
    lego.yield %v : index
  } : !lego.layout
  // CHECK: %[[F:.*]] = lego.apply %[[REV]](%{{.*}}, %{{.*}}) : !lego.layout
  %f = lego.apply %rev(%i, %j) : !lego.layout
  // Result lists: plain, parenthesized, grouped.
  // CHECK: %{{.*}}:2 = lego.apply_inverse %[[REV]](%[[F]]) : !lego.layout -> index, index
  %p, %q = lego.apply_inverse %rev(%f) : !lego.layout -> index, index
  // CHECK: %{{.*}}:2 = lego.apply_inverse %[[REV]](%[[F]]) : !lego.layout -> index, index
  %r:2 = lego.apply_inverse %rev(%f) : !lego.layout -> (index, index)
  // CHECK: lego.apply %{{.*}}(%{{.*}}) : !lego.layout
  %g = lego.apply %bcast(%i) : !lego.layout
  return %p, %r#1, %g : index, index, index
}

// CHECK-LABEL: func.func @views
func.func @views(%mem: memref<32xf32>, %mem2: memref<4x8xf32>, %i: index, %j: index) {
  %l = lego.row [4, 8] : !lego.layout
  // CHECK: %[[V:.*]] = lego.cast_view %{{.*}}, %{{.*}} : memref<32xf32>, !lego.layout -> !lego.view<f32>
  %v = lego.cast_view %mem, %l : memref<32xf32>, !lego.layout -> !lego.view<f32>
  // CHECK: %[[W:.*]] = lego.cast_view %{{.*}}, %{{.*}} : memref<4x8xf32>, !lego.layout -> !lego.view<f32>
  %w = lego.cast_view %mem2, %l : memref<4x8xf32>, !lego.layout -> !lego.view<f32>
  // CHECK: %[[X:.*]] = lego.load %[[V]][%{{.*}}, %{{.*}}] : !lego.view<f32>, index, index
  %x = lego.load %v[%i, %j] : !lego.view<f32>, index, index
  // CHECK: lego.store %[[X]], %[[W]][%{{.*}}, %{{.*}}] : f32, !lego.view<f32>, index, index
  lego.store %x, %w[%i, %j] : f32, !lego.view<f32>, index, index
  return
}

// CHECK-LABEL: func.func @checks
func.func @checks(%tid: index {lego.thread_id}, %lo: index, %hi: index, %c: i1) {
  %l = lego.row [32, 32] : !lego.layout
  %a = lego.apply %l(%lo, %tid) : !lego.layout
  // CHECK: lego.check %{{.*}} {coalescing}
  lego.check %a {coalescing}
  // Attribute dictionaries print sorted, integers with their type.
  // CHECK: lego.check %{{.*}} {bank_conflict_free, num_banks = 16 : i64, warp_size = 16 : i64}
  lego.check %a {bank_conflict_free, warp_size = 16 : i64, num_banks = 16 : i64}
  // CHECK: lego.assume %{{.*}}
  lego.assume %c
  // CHECK: lego.assume_bounds %{{.*}} lb : %{{.*}} ub : %{{.*}}
  lego.assume_bounds %tid lb : %lo ub : %hi
  // CHECK: lego.assume_bounds %{{.*}} ub : %{{.*}}
  lego.assume_bounds %tid ub : %hi
  // CHECK: lego.assume_bounds %{{.*}} lb : %{{.*}}
  // CHECK-NOT: ub :
  lego.assume_bounds %tid lb : %lo
  // CHECK: lego.assert_apply_bounds %{{.*}}(%{{.*}}, %{{.*}}) : !lego.layout
  lego.assert_apply_bounds %l(%lo, %tid) : !lego.layout
  // CHECK: lego.assert_inv_bounds %{{.*}}(%{{.*}}) : !lego.layout
  lego.assert_inv_bounds %l(%a) : !lego.layout
  return
}
