// Finding 08b (fuzzer-generated, unreduced): lego-lower took 22 s and 3.4 GiB, in lego-verify — really in the
// simplifier's bit-vector proofs left running after the integer encoding had answered. Now: exit 0, lowered IR
// (no lego op left; the {lego.thread_id} argument attribute stays). Bound: `timeout` 120 s (hang guard, not a timing assertion).
// RUN: timeout 120 lego-opt %s --lego-lower 2>&1 | FileCheck %s
// CHECK: func.func @f0
// CHECK-NOT: = lego.
// CHECK-NOT: {{^ *lego\.}}
// CHECK-NOT: error
func.func @f0(%tid56: index {lego.thread_id}, %n0: index, %n1: index, %n2: index, %i4: index, %mem29: memref<5x2x?x1x?x2x4x1x1x2x1x1x1x32x1x1x1x4x1x?x1x1x1x?xf32>, %i32: index, %i33: index, %i38: index, %i41: index, %i43: index, %i44: index, %i45: index, %i47: index, %i48: index, %i49: index, %i50: index, %i52: index, %i54: index) -> index {
  %l1 = lego.col [5, 16, %n0, %n1, %n0, 64, 4, %n2] : !lego.layout
  %l2 = lego.order_by(%l1) : !lego.layout
  %l3 = lego.tile_by %l2 tile_dims [[5, 2, %n0, 1, %n0, 2, 4, 1], [1, 2, 1, 1, 1, 32, 1, 1], [1, 4, 1, %n1, 1, 1, 1, %n2]] : !lego.layout
  %o5, %o6, %o7, %o8, %o9, %o10, %o11, %o12, %o13, %o14, %o15, %o16, %o17, %o18, %o19, %o20, %o21, %o22, %o23, %o24, %o25, %o26, %o27, %o28 = lego.apply_inverse %l3(%i4) : !lego.layout -> index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index
  %vw30 = lego.cast_view %mem29, %l3 : memref<5x2x?x1x?x2x4x1x1x2x1x1x1x32x1x1x1x4x1x?x1x1x1x?xf32>, !lego.layout -> !lego.view<f32>
  %c31 = arith.constant -1 : index
  %c34 = arith.constant -9223372036854775808 : index
  %c35 = arith.constant 0 : index
  %c36 = arith.constant 2147483648 : index
  %c37 = arith.constant -9223372036854775808 : index
  %c39 = arith.constant -1 : index
  %c40 = arith.constant 2147483648 : index
  %c42 = arith.constant 4611686018427387904 : index
  %c46 = arith.constant 100 : index
  %c51 = arith.constant -9223372036854775808 : index
  %c53 = arith.constant 0 : index
  %ld55 = lego.load %vw30[%c31, %i32, %i33, %c34, %c35, %c36, %c37, %i38, %c39, %c40, %i41, %c42, %i43, %i44, %i45, %c46, %i47, %i48, %i49, %i50, %c51, %i52, %c53, %i54] : !lego.view<f32>, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index
  lego.store %ld55, %vw30[%c31, %i32, %i33, %c34, %c35, %c36, %c37, %i38, %c39, %c40, %i41, %c42, %i43, %i44, %i45, %c46, %i47, %i48, %i49, %i50, %c51, %i52, %c53, %i54] : f32, !lego.view<f32>, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index
  lego.check %o5 {bank_conflict_free, num_banks = 3 : i64, element_size = 8 : i64}
  return %o5 : index
}
