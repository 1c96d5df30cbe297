// Twins of tile-by-verify.mlir: well-formed tile_by's that must verify and round-trip, including a tile_by of a
// function argument (and an apply on it, whose rank check is skipped for argument layouts).
// RUN: lego-opt %s | FileCheck %s
// RUN: lego-opt %s | lego-opt | FileCheck %s

// CHECK-LABEL: func.func @first_block_rank
// CHECK: lego.tile_by %{{.*}} tile_dims {{\[\[}}2], [5], [5], [4]] : !lego.layout
func.func @first_block_rank(%i: index, %j: index, %k: index, %l: index) -> index {
  %r = lego.row [10] : !lego.layout
  %c = lego.col [20] : !lego.layout
  %o = lego.order_by(%r, %c) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2], [5], [5], [4]] : !lego.layout
  %f = lego.apply %t(%i, %j, %k, %l) : !lego.layout
  return %f : index
}

// CHECK-LABEL: func.func @multi_block_split
// CHECK: lego.tile_by %{{.*}} tile_dims {{\[\[}}3, 2], [2, 4]] : !lego.layout
func.func @multi_block_split() {
  %r = lego.row [2, 4] : !lego.layout
  %s = lego.row [3, 2] : !lego.layout
  %o = lego.order_by(%r, %s) : !lego.layout
  %t = lego.tile_by %o tile_dims [[3, 2], [2, 4]] : !lego.layout
  return
}

// CHECK-LABEL: func.func @symbolic_sizes
// CHECK: lego.tile_by %{{.*}} tile_dims {{\[\[}}%{{.*}}, 2], [%{{.*}}, 4]] : !lego.layout
func.func @symbolic_sizes(%m: index, %a: index, %b: index) {
  %r = lego.row [%m, 8] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %t = lego.tile_by %o tile_dims [[%a, 2], [%b, 4]] : !lego.layout
  return
}

// CHECK-LABEL: func.func @argument_input
// CHECK: lego.tile_by %arg0 tile_dims {{\[\[}}2, 4], [4, 3]] : !lego.layout
// CHECK: lego.apply %{{.*}}(%arg1, %arg1) : !lego.layout
func.func @argument_input(%o: !lego.layout, %i: index) -> index {
  %t = lego.tile_by %o tile_dims [[2, 4], [4, 3]] : !lego.layout
  %f = lego.apply %o(%i, %i) : !lego.layout
  return %f : index
}
