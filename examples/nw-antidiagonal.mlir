// Needleman–Wunsch scoring with the LEGO paper's anti-diagonal shared buffer (Fig. 7): a batch of 1024
// independent 32×32 alignment problems, one 32-thread block each (Rodinia's nw kernel, one tile).
//
// score[i][j] (0 ≤ i, j ≤ 32) = max(score[i-1][j-1] + ref[i-1][j-1], score[i][j-1] - 10, score[i-1][j] - 10),
// with score[0][j] = -10·j and score[i][0] = -10·i. Cells of one anti-diagonal (i + j constant) only depend on
// the two previous anti-diagonals, so thread t computes cell (t+1, d-t+1) of anti-diagonal d, one diagonal
// after the other, with a barrier in between.
//
//   - shared buffer: `antidiag(33)`, the gen_p laying out a 33×33 matrix anti-diagonal after anti-diagonal
//     (docs/reference/semantics.md: antidiag(4) = [0 1 3 6] [2 4 7 10] [5 8 11 13] [9 12 14 15]). The cells one step touches
//     — (t, d-t), (t, d-t+1), (t+1, d-t), (t+1, d-t+1) for t = 0..31 — lie on three anti-diagonals, each
//     stored in consecutive words, so the warp's accesses are bank-conflict free (row-major storage would put
//     thread t at 33·t + d: conflict-free only thanks to the odd pitch, and a power-of-two pitch would
//     serialize all 32 threads);
//   - global arrays: `row [1024, 32, 32]` (ref) and `row [1024, 33, 33]` (score), indexed (problem, i, j).
//
//   lego-opt examples/nw-antidiagonal.mlir --lego-to-nvvm='chip=sm_90 features=+ptx80 format=assembly'
//
// Kernel (bare-pointer calling convention): nw_kernel(int32_t *ref, int32_t *score), grid (1024), block (32),
// 4356 bytes of static shared memory.

func.func @nw(%ref: memref<1048576xi32>, %score: memref<1115136xi32>) {
  %one = arith.constant 1 : index
  %threads = arith.constant 32 : index
  %problems = arith.constant 1024 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %problems, %gy = %one, %gz = %one)
             threads(%t, %ty, %tz) in (%sx = %threads, %sy = %one, %sz = %one)
             workgroup(%buffer : memref<1089xi32, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c33 = arith.constant 33 : index
    %diagonals = arith.constant 63 : index
    %penalty = arith.constant 10 : i32
    %zero = arith.constant 0 : i32
    // antidiag(33): a = i + j + 1; a ≤ 33: f = i + a(a-1)/2; otherwise a' = 66 - a, f = 33·33 - 33 + i - a'(a'-1)/2.
    %antidiag = lego.gen_p [33, 33] apply (%i: index, %j: index) {
      %k1 = arith.constant 1 : index
      %k2 = arith.constant 2 : index
      %n = arith.constant 33 : index
      %two_n = arith.constant 66 : index
      %base = arith.constant 1056 : index
      %ij = arith.addi %i, %j : index
      %a = arith.addi %ij, %k1 : index
      %am1 = arith.subi %a, %k1 : index
      %tri = arith.muli %a, %am1 : index
      %half = arith.divui %tri, %k2 : index
      %upper = arith.addi %i, %half : index
      %ar = arith.subi %two_n, %a : index
      %arm1 = arith.subi %ar, %k1 : index
      %tri_r = arith.muli %ar, %arm1 : index
      %half_r = arith.divui %tri_r, %k2 : index
      %bi = arith.addi %base, %i : index
      %lower = arith.subi %bi, %half_r : index
      %in_upper = arith.cmpi ule, %a, %n : index
      %f = arith.select %in_upper, %upper, %lower : index
      lego.yield %f : index
    } : !lego.layout
    %buf = lego.cast_view %buffer, %antidiag : memref<1089xi32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<i32>
    %ref_layout = lego.row [1024, 32, 32] : !lego.layout
    %score_layout = lego.row [1024, 33, 33] : !lego.layout
    %vref = lego.cast_view %ref, %ref_layout : memref<1048576xi32>, !lego.layout -> !lego.view<i32>
    %vscore = lego.cast_view %score, %score_layout : memref<1115136xi32>, !lego.layout -> !lego.view<i32>

    // Borders: score[0][t+1] = -10·(t+1), score[t+1][0] = -10·(t+1), score[0][0] = 0.
    %t1 = arith.addi %t, %c1 : index
    %t1_i32 = arith.index_cast %t1 : index to i32
    %gap = arith.muli %t1_i32, %penalty : i32
    %border = arith.subi %zero, %gap : i32
    lego.store %border, %buf[%c0, %t1] : i32, !lego.view<i32>, index, index
    lego.store %border, %buf[%t1, %c0] : i32, !lego.view<i32>, index, index
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      lego.store %zero, %buf[%c0, %c0] : i32, !lego.view<i32>, index, index
    }
    gpu.barrier

    // Anti-diagonal d of the 32×32 interior: thread t computes cell (t+1, j+1), j = d - t, when 0 ≤ j < 32.
    scf.for %d = %c0 to %diagonals step %c1 {
      %j = arith.subi %d, %t : index
      %started = arith.cmpi ule, %t, %d : index
      %inside = arith.cmpi ult, %j, %c32 : index
      %active = arith.andi %started, %inside : i1
      scf.if %active {
        %j1 = arith.addi %j, %c1 : index
        %nw = lego.load %buf[%t, %j] : !lego.view<i32>, index, index
        %north = lego.load %buf[%t, %j1] : !lego.view<i32>, index, index
        %west = lego.load %buf[%t1, %j] : !lego.view<i32>, index, index
        %similarity = lego.load %vref[%b, %t, %j] : !lego.view<i32>, index, index, index
        %match = arith.addi %nw, %similarity : i32
        %delete = arith.subi %north, %penalty : i32
        %insert = arith.subi %west, %penalty : i32
        %gap_best = arith.maxsi %delete, %insert : i32
        %best = arith.maxsi %match, %gap_best : i32
        lego.store %best, %buf[%t1, %j1] : i32, !lego.view<i32>, index, index
      }
      gpu.barrier
    }

    // The 33×33 scores → global memory, row by row (thread t: columns t and, for t = 0, 32).
    scf.for %r = %c0 to %c33 step %c1 {
      %x = lego.load %buf[%r, %t] : !lego.view<i32>, index, index
      lego.store %x, %vscore[%b, %r, %t] : i32, !lego.view<i32>, index, index, index
      scf.if %first {
        %y = lego.load %buf[%r, %c32] : !lego.view<i32>, index, index
        lego.store %y, %vscore[%b, %r, %c32] : i32, !lego.view<i32>, index, index, index
      }
    }
    gpu.terminator
  }
  return
}
