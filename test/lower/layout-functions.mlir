// A layout built once and used by many functions (docs/reference/reuse.md): a func.func returning
// !lego.layout; lego-to-arith inlines each call and erases the definition.
// RUN: lego-opt %s --split-input-file --lego-to-arith | FileCheck %s
// RUN: lego-opt %s --split-input-file --lego-lower | FileCheck %s --check-prefix=LOWER

// Two users of one swizzled tile: the writer's apply and the reader's apply_inverse both see Swizzle<5, 0, 5>
// (mask 31 << 5 = 992), and the definition is gone.
// CHECK-NOT: func.func private @smem_tile
// CHECK-LABEL: func.func @writer
// CHECK-DAG: %[[MASK:.*]] = arith.constant 992 : index
// CHECK: arith.andi %{{.*}}, %[[MASK]] : index
// CHECK: arith.xori
// CHECK: return
// CHECK-LABEL: func.func @reader
// CHECK-DAG: %[[MASK:.*]] = arith.constant 992 : index
// CHECK: arith.andi %arg0, %[[MASK]] : index
// CHECK: arith.xori
// CHECK: arith.divui
// CHECK: return
// CHECK-NOT: lego.
module {
  func.func private @smem_tile() -> !lego.layout {
    %s = lego.swizzle bits 5 base 0 shift 5 dims [32, 32] : !lego.layout
    return %s : !lego.layout
  }
  func.func @writer(%i: index, %j: index) -> index {
    %l = func.call @smem_tile() : () -> !lego.layout
    %f = lego.apply %l(%i, %j) : !lego.layout
    return %f : index
  }
  func.func @reader(%x: index) -> (index, index) {
    %l = func.call @smem_tile() : () -> !lego.layout
    %i, %j = lego.apply_inverse %l(%x) : !lego.layout -> index, index
    return %i, %j : index, index
  }
}

// -----

// Parametric layouts: the sizes are the function's arguments; a layout function may call another and pass
// layouts on. Hand values: rows(4, 8) at (1, 2) = 10; tiled(8) = tile_by(order_by(rows(8, 8))) [[2, 2], [4, 4]]
// at (1, 0, 2, 3) = (1·4 + 2)·8 + 0·4 + 3 = 51.
// LOWER-NOT: func.func @rows
// LOWER-NOT: func.func @tiled
// LOWER-LABEL: func.func @users
// LOWER-DAG: %[[C10:.*]] = arith.constant 10 : index
// LOWER-DAG: %[[C51:.*]] = arith.constant 51 : index
// LOWER: return %[[C10]], %[[C51]] : index, index
module {
  func.func @rows(%m: index, %n: index) -> !lego.layout {
    %r = lego.row [%m, %n] : !lego.layout
    return %r : !lego.layout
  }
  func.func @tiled(%n: index) -> !lego.layout {
    %r = func.call @rows(%n, %n) : (index, index) -> !lego.layout
    %o = lego.order_by(%r) : !lego.layout
    %t = lego.tile_by %o tile_dims [[2, 2], [4, 4]] : !lego.layout
    return %t : !lego.layout
  }
  func.func @users() -> (index, index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %l = func.call @rows(%c4, %c8) : (index, index) -> !lego.layout
    %a = lego.apply %l(%c1, %c2) : !lego.layout
    %t = func.call @tiled(%c8) : (index) -> !lego.layout
    %b = lego.apply %t(%c1, %c0, %c2, %c3) : !lego.layout
    return %a, %b : index, index
  }
}
