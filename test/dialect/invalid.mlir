// Every verifier rule of docs/reference/verifier.md, with its wording.
// RUN: lego-opt %s --split-input-file --verify-diagnostics

func.func @reg_p_rank() {
  // expected-error @+1 {{'lego.reg_p' op Permutation rank 2 does not match dimensions rank 3}}
  %l = lego.reg_p perm [1, 0] dims [2, 3, 4] : !lego.layout
  return
}

// -----

func.func @reg_p_not_a_permutation() {
  // expected-error @+1 {{'lego.reg_p' op Invalid permutation: not a permutation of 0..2}}
  %l = lego.reg_p perm [0, 1, 3] dims [2, 3, 4] : !lego.layout
  return
}

// -----

func.func @reg_p_repeated() {
  // expected-error @+1 {{'lego.reg_p' op Invalid permutation: not a permutation of 0..1}}
  %l = lego.reg_p perm [1, 1] dims [2, 3] : !lego.layout
  return
}

// -----

func.func @row_zero() {
  // expected-error @+1 {{'lego.row' op Dimension 0 must be strictly positive}}
  %l = lego.row [4, 0] : !lego.layout
  return
}

// -----

func.func @col_negative() {
  // expected-error @+1 {{'lego.col' op Dimension -5 must be strictly positive}}
  %l = lego.col [-5, 4] : !lego.layout
  return
}

// -----

// A size defined by arith.constant is known: a zero constant is rejected like a literal.
func.func @constant_zero_dim() {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'lego.reg_p' op Dimension 0 must be strictly positive}}
  %l = lego.reg_p perm [0, 1] dims [%c0, 4] : !lego.layout
  return
}

// -----

func.func @gen_p_zero() {
  // expected-error @+1 {{'lego.gen_p' op Dimension 0 must be strictly positive}}
  %l = lego.gen_p [0] apply (%i: index) {
    lego.yield %i : index
  } : !lego.layout
  return
}

// -----

func.func @group_by_zero(%o: !lego.layout) {
  // expected-error @+1 {{'lego.group_by' op Dimension 0 must be strictly positive}}
  %l = lego.group_by [0, 4](%o) : !lego.layout
  return
}

// -----

func.func @row_no_dims() {
  // expected-error @+1 {{'lego.row' op expected at least one dimension}}
  %l = lego.row [] : !lego.layout
  return
}

// -----

func.func @gen_p_apply_arity() {
  // expected-error @+1 {{'lego.gen_p' op 'apply' region must have 2 index argument(s), found 1}}
  %l = lego.gen_p [4, 4] apply (%i: index) {
    lego.yield %i : index
  } : !lego.layout
  return
}

// -----

func.func @gen_p_apply_yields_two() {
  // expected-error @+1 {{'lego.gen_p' op 'apply' region must yield 1 index value(s), found 2}}
  %l = lego.gen_p [4] apply (%i: index) {
    lego.yield %i, %i : index, index
  } : !lego.layout
  return
}

// -----

func.func @gen_p_inv_yields() {
  // expected-error @+1 {{'lego.gen_p' op 'inv' region must yield 2 index value(s), found 1}}
  %l = lego.gen_p [4, 4] apply (%i: index, %j: index) {
    lego.yield %i : index
  } inv (%x: index) {
    lego.yield %x : index
  } : !lego.layout
  return
}

// -----

func.func @gen_p_inv_arity() {
  // expected-error @+1 {{'lego.gen_p' op 'inv' region must have 1 index argument(s), found 2}}
  %l = lego.gen_p [4, 4] apply (%i: index, %j: index) {
    lego.yield %i : index
  } inv (%x: index, %y: index) {
    lego.yield %x, %y : index, index
  } : !lego.layout
  return
}

// -----

func.func @group_by_volume() {
  %r = lego.row [4, 5] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  // expected-error @+1 {{'lego.group_by' op product of group dims (24) does not match the number of elements of object #0 (20)}}
  %l = lego.group_by [6, 4](%o) : !lego.layout
  return
}

// -----

// A plain row / col / reg_p is accepted (an order_by of one block: test/lower/tile-by-plain.mlir); a group_by is not.
func.func @tile_by_not_order_by() {
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %g = lego.group_by [8, 12](%o) : !lego.layout
  // expected-error @+1 {{'lego.tile_by' op input must be an OrderBy layout}}
  %t = lego.tile_by %g tile_dims [[2, 4], [4, 3]] : !lego.layout
  return
}

// -----

func.func @tile_by_level_rank() {
  %r = lego.row [10] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  // expected-error @+1 {{'lego.tile_by' op Inner tile dimension 2 does not match input layout dimension 1}}
  %t = lego.tile_by %o tile_dims [[2, 1], [5, 1]] : !lego.layout
  return
}

// -----

func.func @tile_by_total_product() {
  %r = lego.row [10] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  // expected-error @+1 {{'lego.tile_by' op Total product of tile dims (4) does not match total product of input dims (10)}}
  %t = lego.tile_by %o tile_dims [[2], [2]] : !lego.layout
  return
}

// -----

func.func @tile_by_per_dim_product() {
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  // expected-error @+1 {{'lego.tile_by' op product of tile dims along dimension 0 (4) does not match input dimension (8)}}
  %t = lego.tile_by %o tile_dims [[2, 8], [2, 3]] : !lego.layout
  return
}

// -----

func.func @tile_by_zero() {
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  // expected-error @+1 {{'lego.tile_by' op Tile dimension 0 must be strictly positive}}
  %t = lego.tile_by %o tile_dims [[0, 4], [4, 3]] : !lego.layout
  return
}

// -----

func.func @tile_by_ragged() {
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  // expected-error @+1 {{'lego.tile_by' op all tiling levels must have the same length, found 2 and 1}}
  %t = lego.tile_by %o tile_dims [[2, 4], [4]] : !lego.layout
  return
}

// -----

func.func @apply_rank(%i: index) -> index {
  %l = lego.row [4, 8] : !lego.layout
  // expected-error @+1 {{'lego.apply' op number of indices (1) does not match layout rank (2)}}
  %f = lego.apply %l(%i) : !lego.layout
  return %f : index
}

// -----

// The rank of a tile_by is levels × d; of an order_by the sum of its objects' ranks.
func.func @apply_rank_tile_by(%i: index) -> index {
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2, 4], [4, 3]] : !lego.layout
  // expected-error @+1 {{'lego.apply' op number of indices (2) does not match layout rank (4)}}
  %f = lego.apply %t(%i, %i) : !lego.layout
  return %f : index
}

// -----

func.func @apply_inverse_rank(%f: index) -> index {
  %l = lego.row [4, 8] : !lego.layout
  // expected-error @+1 {{'lego.apply_inverse' op number of results (3) does not match layout rank (2)}}
  %i, %j, %k = lego.apply_inverse %l(%f) : !lego.layout -> index, index, index
  return %i : index
}

// -----

func.func @apply_inverse_of_apply_only(%f: index) -> index {
  %b = lego.gen_p [4] apply (%i: index) {
    lego.yield %i : index
  } : !lego.layout
  %o = lego.order_by(%b) : !lego.layout
  // expected-error @+1 {{'lego.apply_inverse' op layout is not invertible: it is built from an apply-only lego.gen_p}}
  %i = lego.apply_inverse %o(%f) : !lego.layout -> index
  return %i : index
}

// -----

func.func @cast_view_volume(%m: memref<50xf32>) {
  %l = lego.row [10, 10] : !lego.layout
  // expected-error @+1 {{'lego.cast_view' op MemRef total number of elements (50) does not match layout volume (100)}}
  %v = lego.cast_view %m, %l : memref<50xf32>, !lego.layout -> !lego.view<f32>
  return
}

// -----

func.func @cast_view_element_type(%m: memref<100xf32>) {
  %l = lego.row [10, 10] : !lego.layout
  // expected-error @+1 {{'lego.cast_view' op memref element type 'f32' does not match view element type 'f64'}}
  %v = lego.cast_view %m, %l : memref<100xf32>, !lego.layout -> !lego.view<f64>
  return
}

// -----

func.func @load_rank(%m: memref<100xf32>, %i: index) -> f32 {
  %l = lego.row [10, 10] : !lego.layout
  %v = lego.cast_view %m, %l : memref<100xf32>, !lego.layout -> !lego.view<f32>
  // expected-error @+1 {{'lego.load' op number of indices (1) does not match layout rank (2)}}
  %x = lego.load %v[%i] : !lego.view<f32>, index
  return %x : f32
}

// -----

func.func @store_rank(%m: memref<100xf32>, %i: index, %x: f32) {
  %l = lego.row [10, 10] : !lego.layout
  %v = lego.cast_view %m, %l : memref<100xf32>, !lego.layout -> !lego.view<f32>
  // expected-error @+1 {{'lego.store' op number of indices (3) does not match layout rank (2)}}
  lego.store %x, %v[%i, %i, %i] : f32, !lego.view<f32>, index, index, index
  return
}

// -----

func.func @check_nothing(%tid: index {lego.thread_id}, %a: index) {
  // expected-error @+1 {{'lego.check' op must request at least one property (coalescing or bank_conflict_free)}}
  lego.check %a {warp_size = 32 : i64}
  return
}

// -----

func.func @check_warp_size(%tid: index {lego.thread_id}, %a: index) {
  // expected-error @+1 {{'lego.check' op 'warp_size' must be positive, found 0}}
  lego.check %a {bank_conflict_free, warp_size = 0 : i64}
  return
}

// -----

func.func @check_num_banks(%tid: index {lego.thread_id}, %a: index) {
  // expected-error @+1 {{'lego.check' op 'num_banks' must be positive, found -4}}
  lego.check %a {bank_conflict_free, num_banks = -4 : i64}
  return
}

// -----

func.func @check_without_thread_id(%a: index) {
  // expected-error @+1 {{'lego.check' op parent function must have a {lego.thread_id} argument}}
  lego.check %a {coalescing}
  return
}

// -----

%a = arith.constant 0 : index
// expected-error @+1 {{'lego.check' op must be inside a function}}
lego.check %a {coalescing}

// -----

// IRDL checks operand types: a layout operand must be a !lego.layout.
func.func @apply_wrong_operand_type(%i: index) -> index {
  // expected-error @+1 {{expected base type 'lego.layout' but got 'builtin.index'}}
  %f = "lego.apply"(%i, %i) : (index, index) -> index
  return %f : index
}

// -----

// Unknown ops in the lego namespace are errors, as in any registered dialect.
func.func @unknown_generic() {
  // expected-error @+1 {{unregistered operation 'lego.frobnicate' found in dialect ('lego') that does not allow unknown operations}}
  "lego.frobnicate"() : () -> ()
  return
}
