// Range facts inside kernels (issue 14): gpu.launch block/thread ids are below the launch sizes, gpu.thread_id /
// block_id below a gpu.func's known_block_size / known_grid_size. With 32×32 blocks of 32×32 threads, the
// tiled transpose (loads by rows, stores by columns) and apply_inverse of row [32, 32] on ty·32 + tx lower to
// shifts, masks and adds only; apply_inverse folds back to (ty, tx). Twins whose sizes are not constants must
// keep the division and remainder (by 32: a shift and a mask after strength reduction).
// RUN: lego-opt %s --split-input-file --lego-lower | FileCheck %s
// RUN: lego-opt %s --split-input-file --lego-lower | FileCheck %s --check-prefix=NODIV

// Expected by hand (docs/reference/semantics.md, tile_by — the direct form, the inner layout's dims are the strides): the
// load reads in[(32·by + ty)·1024 + (32·bx + tx)] = ((by << 5) + ty) << 10 + ((bx << 5) + tx); the store writes
// out at col [1024, 1024] of the same coordinates, (32·by + ty) + (32·bx + tx)·1024.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[IN:.*]]: memref<1048576xf32>, %[[OUT:.*]]: memref<1048576xf32>, %[[S:.*]]: memref<32x32xindex>)
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[C10:.*]] = arith.constant 10 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in {{.*}} threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in
// CHECK: %[[BY5:.*]] = arith.shli %[[BY]], %[[C5]] : index
// CHECK: %[[ROW:.*]] = arith.addi %[[TY]], %[[BY5]] : index
// CHECK: %[[BX5:.*]] = arith.shli %[[BX]], %[[C5]] : index
// CHECK: %[[COL:.*]] = arith.addi %[[TX]], %[[BX5]] : index
// CHECK: %[[ROWS:.*]] = arith.shli %[[ROW]], %[[C10]] : index
// CHECK: %[[LOAD:.*]] = arith.addi %[[COL]], %[[ROWS]] : index
// CHECK: memref.load %[[IN]][%[[LOAD]]]
// CHECK: %[[COLS:.*]] = arith.shli %[[COL]], %[[C10]] : index
// CHECK: %[[STORE:.*]] = arith.addi %[[ROW]], %[[COLS]] : index
// CHECK: memref.store %{{.*}}, %[[OUT]][%[[STORE]]]
// CHECK: memref.store %[[TY]], %[[S]][%[[TY]], %[[TX]]]
// CHECK: memref.store %[[TX]], %[[S]][%[[TX]], %[[TY]]]
// CHECK: gpu.terminator
// Nothing but shifts, masks and adds in the kernel (and in the next one): no division, remainder,
// multiplication or affine op.
// NODIV-LABEL: func.func @transpose
// NODIV-NOT: {{divui|remui|divsi|remsi|muli|affine\.}}
// NODIV-LABEL: func.func @inverse_launch(
// NODIV-NOT: {{divui|remui|divsi|remsi|muli|affine\.}}
// NODIV-LABEL: func.func @inverse_launch_dynamic
func.func @transpose(%in: memref<1048576xf32>, %out: memref<1048576xf32>, %s: memref<32x32xindex>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c32, %gy = %c32, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c32, %sz = %c1) {
    %rows = lego.row [1024, 1024] : !lego.layout
    %m = lego.order_by(%rows) : !lego.layout
    %tin = lego.tile_by %m tile_dims [[32, 32], [32, 32]] : !lego.layout
    %cols = lego.col [1024, 1024] : !lego.layout
    %mc = lego.order_by(%cols) : !lego.layout
    %tout = lego.tile_by %mc tile_dims [[32, 32], [32, 32]] : !lego.layout
    %vin = lego.cast_view %in, %tin : memref<1048576xf32>, !lego.layout -> !lego.view<f32>
    %vout = lego.cast_view %out, %tout : memref<1048576xf32>, !lego.layout -> !lego.view<f32>
    %x = lego.load %vin[%by, %bx, %ty, %tx] : !lego.view<f32>, index, index, index, index
    lego.store %x, %vout[%by, %bx, %ty, %tx] : f32, !lego.view<f32>, index, index, index, index
    %r = lego.row [32, 32] : !lego.layout
    %f = arith.muli %ty, %c32 : index
    %lin = arith.addi %f, %tx : index
    %back:2 = lego.apply_inverse %r(%lin) : !lego.layout -> index, index
    memref.store %back#0, %s[%back#0, %back#1] : memref<32x32xindex>
    memref.store %back#1, %s[%back#1, %back#0] : memref<32x32xindex>
    gpu.terminator
  }
  return
}

// -----

// The apply_inverse alone (no layout input bounds the thread ids): only the launch sizes do.
// CHECK-LABEL: func.func @inverse_launch
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in {{.*}} threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in
// CHECK-NOT: arith.shrui
// CHECK-NOT: arith.andi
// CHECK-NOT: divui
// CHECK-NOT: remui
// CHECK-NOT: affine.
// CHECK: memref.store %[[TY]], %{{.*}}[%[[TY]], %[[TX]]]
// CHECK: memref.store %[[TX]], %{{.*}}[%[[TX]], %[[TY]]]
func.func @inverse_launch(%s: memref<32x32xindex>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c32, %sz = %c1) {
    %r = lego.row [32, 32] : !lego.layout
    %f = arith.muli %ty, %c32 : index
    %lin = arith.addi %f, %tx : index
    %back:2 = lego.apply_inverse %r(%lin) : !lego.layout -> index, index
    memref.store %back#0, %s[%back#0, %back#1] : memref<32x32xindex>
    memref.store %back#1, %s[%back#1, %back#0] : memref<32x32xindex>
    gpu.terminator
  }
  return
}

// -----

// Twin: the block size is an argument, so tx < 32 is unknown and ty·32 + tx cannot be split back without the
// division and remainder (the flat input's contract, ty·32 + tx < 1024, does not bound tx).
// CHECK-LABEL: func.func @inverse_launch_dynamic
// CHECK: threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in
// CHECK-NOT: memref.store %[[TY]]
// CHECK: {{arith.shrui|arith.divui|affine.delinearize_index}}
// CHECK-NOT: memref.store %[[TY]]
// CHECK: gpu.terminator
func.func @inverse_launch_dynamic(%s: memref<32x32xindex>, %n: index) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %n, %sz = %c1) {
    %r = lego.row [32, 32] : !lego.layout
    %f = arith.muli %ty, %c32 : index
    %lin = arith.addi %f, %tx : index
    %back:2 = lego.apply_inverse %r(%lin) : !lego.layout -> index, index
    memref.store %back#0, %s[%back#0, %back#1] : memref<32x32xindex>
    memref.store %back#1, %s[%back#1, %back#0] : memref<32x32xindex>
    gpu.terminator
  }
  return
}

// -----

// After outlining: gpu.thread_id in a gpu.func with known_block_size.
// CHECK-LABEL: gpu.func @inverse_outlined
// CHECK: %[[TX:.*]] = gpu.thread_id x
// CHECK: %[[TY:.*]] = gpu.thread_id y
// CHECK-NOT: arith.shrui
// CHECK-NOT: arith.andi
// CHECK: memref.store %[[TY]], %{{.*}}[%[[TY]], %[[TX]]]
// CHECK: memref.store %[[TX]], %{{.*}}[%[[TX]], %[[TY]]]
// Twin without known sizes: the hardware limit (< 2^32) does not bound tx by 32.
// CHECK-LABEL: gpu.func @inverse_outlined_unknown
// CHECK: %[[UX:.*]] = gpu.thread_id x
// CHECK: %[[UY:.*]] = gpu.thread_id y
// CHECK-NOT: memref.store %[[UY]]
// CHECK: {{arith.shrui|arith.divui|affine.delinearize_index}}
// CHECK-NOT: memref.store %[[UY]]
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @inverse_outlined(%s: memref<32x32xindex>) kernel attributes {known_block_size = array<i32: 32, 32, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %c32 = arith.constant 32 : index
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %r = lego.row [32, 32] : !lego.layout
      %f = arith.muli %ty, %c32 : index
      %lin = arith.addi %f, %tx : index
      %back:2 = lego.apply_inverse %r(%lin) : !lego.layout -> index, index
      memref.store %back#0, %s[%back#0, %back#1] : memref<32x32xindex>
      memref.store %back#1, %s[%back#1, %back#0] : memref<32x32xindex>
      gpu.return
    }
    gpu.func @inverse_outlined_unknown(%s: memref<32x32xindex>) kernel {
      %c32 = arith.constant 32 : index
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %r = lego.row [32, 32] : !lego.layout
      %f = arith.muli %ty, %c32 : index
      %lin = arith.addi %f, %tx : index
      %back:2 = lego.apply_inverse %r(%lin) : !lego.layout -> index, index
      memref.store %back#0, %s[%back#0, %back#1] : memref<32x32xindex>
      memref.store %back#1, %s[%back#1, %back#0] : memref<32x32xindex>
      gpu.return
    }
  }
}
