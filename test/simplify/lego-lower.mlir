// lego-lower end to end on the paper's Fig. 1 tiled matmul layouts (Table I): with static power-of-two tiles
// the apply is the minimal shift/add form — no division, remainder or multiplication left.
// RUN: lego-opt %s --split-input-file --lego-lower | FileCheck %s
// RUN: lego-opt %s --split-input-file --pass-pipeline='builtin.module(lego-normalization{fold=true}, lego-to-arith{assume-bounds=true}, canonicalize, cse, lego-arith-simplification{verify-rewrites=true}, lego-strength-reduction, lego-materialize-assume-bounds{cleanup=true only-layout-contract=true}, canonicalize, cse)' 2>&1 | FileCheck %s

// A (M×K = 1024×512, 64×32 tiles) by rows, the direct form (docs/reference/semantics.md: the inner layout's dims are the
// strides): (ti·64 + i)·512 + (tk·32 + k) = ((ti<<6) + i)<<9 + ((tk<<5) + k).
// CHECK-LABEL: func.func @matmul_a_row
// CHECK-SAME: (%[[TI:.*]]: index, %[[TK:.*]]: index, %[[I:.*]]: index, %[[K:.*]]: index)
// CHECK-DAG: %[[C9:.*]] = arith.constant 9 : index
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// In the lowering's order (docs/reference/lowering.md §3): innermost index first, each scaled term the addi's RHS.
// CHECK: %[[A:.*]] = arith.shli %[[TI]], %[[C6]] : index
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %[[I]], %[[A]] : index
// CHECK-NEXT: %[[B:.*]] = arith.shli %[[TK]], %[[C5]] : index
// CHECK-NEXT: %[[COL:.*]] = arith.addi %[[K]], %[[B]] : index
// CHECK-NEXT: %[[ROWS:.*]] = arith.shli %[[ROW]], %[[C9]] : index
// CHECK-NEXT: %[[S3:.*]] = arith.addi %[[COL]], %[[ROWS]] : index
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK-NOT: arith.muli
// CHECK-NOT: affine.
// CHECK: return %[[S3]]
func.func @matmul_a_row(%ti: index, %tk: index, %i: index, %k: index) -> index {
  %r = lego.row [1024, 512] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %l = lego.tile_by %o tile_dims [[16, 16], [64, 32]] : !lego.layout
  %f = lego.apply %l(%ti, %tk, %i, %k) : !lego.layout
  return %f : index
}

// -----

// B (K×N = 512×256) by columns, tiles 64×32: (tn·32 + n)·512 + tk·64 + k = tn<<14 + n<<9 + tk<<6 + k.
// The B⁻¹ of the column order needs the in-range facts of the tile indices (tk, tn < 8), which no
// linearization carries for an outermost index: lego-lower's lowering states them from the layout.
// CHECK-LABEL: func.func @matmul_b_col
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK-NOT: arith.muli
// CHECK-NOT: affine.
// CHECK-DAG: arith.shli %{{.*}}, %{{.*}} : index
// CHECK-DAG: arith.shli %{{.*}}, %{{.*}} : index
// CHECK-DAG: arith.shli %{{.*}}, %{{.*}} : index
// CHECK-DAG: arith.addi %{{.*}}, %{{.*}} : index
// CHECK-DAG: arith.addi %{{.*}}, %{{.*}} : index
// CHECK-DAG: arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK-NOT: arith.muli
// CHECK-NOT: affine.
// CHECK: return
func.func @matmul_b_col(%tk: index, %tn: index, %k: index, %n: index) -> index {
  %c = lego.col [512, 256] : !lego.layout
  %o = lego.order_by(%c) : !lego.layout
  %l = lego.tile_by %o tile_dims [[8, 8], [64, 32]] : !lego.layout
  %f = lego.apply %l(%tk, %tn, %k, %n) : !lego.layout
  return %f : index
}

// -----

// Paper Fig. 2 (group_by over a permutation and a user gen_p): with the in-range facts of its indices
// (i < 6, j < 4, stated by the lowering; out-of-range inputs are unspecified in docs/reference/semantics.md) every B⁻¹
// becomes plain unsigned arithmetic with proved rewrites, and no affine index op is left.
// CHECK-LABEL: func.func @fig2
// CHECK-NOT: affine.
// CHECK: return
func.func @fig2(%i: index, %j: index) -> index {
  %swap = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout
  %rev = lego.gen_p [3, 2] apply (%a: index, %b: index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %ra = arith.subi %c2, %a : index
    %rb = arith.subi %c1, %b : index
    %row = arith.muli %ra, %c2 : index
    %f = arith.addi %row, %rb : index
    lego.yield %f : index
  } inv (%x: index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %q = arith.divui %x, %c2 : index
    %r = arith.remui %x, %c2 : index
    %a = arith.subi %c2, %q : index
    %b = arith.subi %c1, %r : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %order = lego.order_by(%swap, %rev) : !lego.layout
  %layout = lego.group_by [6, 4](%order) : !lego.layout
  %flat = lego.apply %layout(%i, %j) : !lego.layout
  return %flat : index
}
