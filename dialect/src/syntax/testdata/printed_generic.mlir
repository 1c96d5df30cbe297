"builtin.module"() ({
  "func.func"() <{arg_attrs = [{}, {}, {}, {lego.thread_id}], function_type = (index, index, memref<16xf32>, index) -> f32, sym_name = "f"}> ({
  ^bb0(%arg0: index, %arg1: index, %arg2: memref<16xf32>, %arg3: index):
    %0 = "lego.row"(%arg0) {static_dims = array<i64: 4, -9223372036854775808>} : (index) -> !lego.layout
    %1 = "lego.col"(%arg0) {static_dims = array<i64: -9223372036854775808, 2>} : (index) -> !lego.layout
    %2 = "lego.reg_p"(%arg1) {perm = array<i64: 1, 0>, static_dims = array<i64: 2, -9223372036854775808>} : (index) -> !lego.layout
    %3 = "lego.gen_p"(%arg1) ({
    ^bb0(%arg6: index, %arg7: index):
      %19 = "arith.constant"() <{value = 4 : index}> : () -> index
      %20 = "arith.muli"(%arg6, %19) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %21 = "arith.addi"(%20, %arg7) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      "smt.yield"(%21) : (index) -> ()
    }, {
    ^bb0(%arg5: index):
      %16 = "arith.constant"() <{value = 4 : index}> : () -> index
      %17 = "arith.divui"(%arg5, %16) : (index, index) -> index
      %18 = "arith.remui"(%arg5, %16) : (index, index) -> index
      "smt.yield"(%17, %18) : (index, index) -> ()
    }) {static_dims = array<i64: -9223372036854775808, 4>} : (index) -> !lego.layout
    %4 = "lego.gen_p"(%arg1) ({
    ^bb0(%arg4: index):
      "smt.yield"(%arg4) : (index) -> ()
    }, {
    }) {static_dims = array<i64: -9223372036854775808>} : (index) -> !lego.layout
    %5 = "lego.order_by"(%0, %1) : (!lego.layout, !lego.layout) -> !lego.layout
    %6 = "lego.group_by"(%arg0, %0, %3) {operandSegmentSizes = array<i32: 1, 2>, static_dims = array<i64: 6, -9223372036854775808>} : (index, !lego.layout, !lego.layout) -> !lego.layout
    %7 = "lego.group_by"() {operandSegmentSizes = array<i32: 0, 0>, static_dims = array<i64: 6>} : () -> !lego.layout
    %8 = "lego.tile_by"(%5, %arg0) {static_tile_dims = [array<i64: 2, -9223372036854775808>, array<i64: 4, 3>]} : (!lego.layout, index) -> !lego.layout
    %9 = "lego.expand_by"(%0, %arg0, %arg1) {operandSegmentSizes = array<i32: 1, 1, 1>, static_dims = array<i64: 3, -9223372036854775808>, static_to_dims = array<i64: 4, -9223372036854775808>} : (!lego.layout, index, index) -> !lego.layout
    %10 = "lego.apply"(%3, %arg0, %arg1) : (!lego.layout, index, index) -> index
    %11:2 = "lego.apply_inverse"(%3, %10) : (!lego.layout, index) -> (index, index)
    %12:2 = "lego.apply_inverse"(%3, %10) : (!lego.layout, index) -> (index, index)
    %13 = "lego.cast_view"(%arg2, %0) : (memref<16xf32>, !lego.layout) -> !lego.view<f32>
    %14 = "lego.load"(%13, %arg0, %arg1) : (!lego.view<f32>, index, index) -> f32
    "lego.store"(%14, %13, %arg0, %12#1) : (f32, !lego.view<f32>, index, index) -> ()
    "lego.check"(%10) {bank_conflict_free, num_banks = 16 : i64, warp_size = 16 : i64} : (index) -> ()
    %15 = "arith.cmpi"(%arg0, %arg1) <{predicate = 2 : i64}> : (index, index) -> i1
    "lego.assume"(%15) : (i1) -> ()
    "lego.assume_bounds"(%arg0, %arg1, %10) {operandSegmentSizes = array<i32: 1, 1, 1>} : (index, index, index) -> ()
    "lego.assume_bounds"(%arg0, %10) {operandSegmentSizes = array<i32: 1, 0, 1>} : (index, index) -> ()
    "lego.assume_bounds"(%arg0) {operandSegmentSizes = array<i32: 1, 0, 0>} : (index) -> ()
    "lego.assert_apply_bounds"(%3, %arg0, %arg1) : (!lego.layout, index, index) -> ()
    "lego.assert_inv_bounds"(%3, %10) : (!lego.layout, index) -> ()
    "func.return"(%14) : (f32) -> ()
  }) : () -> ()
}) : () -> ()

