// Layouts whose generated CUDA C (lego-translate --lego-to-cuda) the GPU check runs (bench/gpu/translate).
//
// 1. The paper's tiled matmul layout (Fig. 1, Table I): tile_by (order_by(row [M, K])) tile_dims
//    [[M/BM, K/BK], [BM, BK]], M = K = 2048, BM = BK = 64: apply(pm, pk, i, k) = (pm·64 + i)·2048 + pk·64 + k.
func.func @tiled_apply(%pm: index, %pk: index, %i: index, %k: index) -> index {
  %row = lego.row [2048, 2048] : !lego.layout
  %order = lego.order_by(%row) : !lego.layout
  %tiled = lego.tile_by %order tile_dims [[32, 32], [64, 64]] : !lego.layout
  %f = lego.apply %tiled(%pm, %pk, %i, %k) : !lego.layout
  return %f : index
}

func.func @tiled_inverse(%f: index) -> (index, index, index, index) {
  %row = lego.row [2048, 2048] : !lego.layout
  %order = lego.order_by(%row) : !lego.layout
  %tiled = lego.tile_by %order tile_dims [[32, 32], [64, 64]] : !lego.layout
  %pm, %pk, %i, %k = lego.apply_inverse %tiled(%f) : !lego.layout -> index, index, index, index
  return %pm, %pk, %i, %k : index, index, index, index
}

// 2. The anti-diagonal order of the Needleman–Wunsch shared buffer (paper Fig. 7), n = 33, with a select.
func.func @antidiag_apply(%i: index, %j: index) -> index {
  %antidiag = lego.gen_p [33, 33] apply (%a: index, %b: index) {
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %n = arith.constant 33 : index
    %two_n = arith.constant 66 : index
    %base = arith.constant 1056 : index
    %ab = arith.addi %a, %b : index
    %s = arith.addi %ab, %k1 : index
    %sm1 = arith.subi %s, %k1 : index
    %tri = arith.muli %s, %sm1 : index
    %half = arith.divui %tri, %k2 : index
    %upper = arith.addi %a, %half : index
    %r = arith.subi %two_n, %s : index
    %rm1 = arith.subi %r, %k1 : index
    %tri_r = arith.muli %r, %rm1 : index
    %half_r = arith.divui %tri_r, %k2 : index
    %bi = arith.addi %base, %a : index
    %lower = arith.subi %bi, %half_r : index
    %in_upper = arith.cmpi ule, %s, %n : index
    %f = arith.select %in_upper, %upper, %lower : index
    lego.yield %f : index
  } : !lego.layout
  %f = lego.apply %antidiag(%i, %j) : !lego.layout
  return %f : index
}
