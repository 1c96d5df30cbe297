// Naive GPU transpose out = inᵀ of an N×N fp32 matrix (N = 8192; bench/gpu/make_ptx.py makes N = 2048 and
// 4096 copies by substituting 8192, 67108864 = N·N and 256 = N/32). Every index is a lego layout:
//
//   - the global arrays are row-major N×N matrices cut into 32×32 tiles, and each tile is cut once more into
//     the thread block's pieces: `tile_by (order_by(row [N, N])) tile_dims [[N/32, N/32], [4, 1], [8, 32]]`
//     takes (tile row, tile col, step, 0, ty, tx) to the element (32·tile row + 8·step + ty, 32·tile col + tx);
//   - the thread block is the last tile level: 32×8 threads, (ty, tx), each thread moving 4 elements (one per
//     step of 8 rows);
//   - the output view lists the same levels in the other order: its thread level is [32, 8] indexed (tx, ty)
//     and its step level [1, 4], so the element a thread reads at (r, c) is written at (c, r).
//
// Reads are coalesced (a warp reads 32 consecutive floats of a row), writes are not (a warp writes 32
// elements of a column, N·4 bytes apart): that is what makes it naive; transpose-smem.mlir fixes it.
//
//   lego-opt examples/transpose-naive.mlir --lego-to-nvvm='chip=sm_90 features=+ptx80 format=assembly'
//
// Kernel (bare-pointer calling convention): transpose_naive_kernel(float *in, float *out), grid (N/32, N/32),
// block (32, 8).

func.func @transpose_naive(%in: memref<67108864xf32>, %out: memref<67108864xf32>) {
  %one = arith.constant 1 : index
  %block_x = arith.constant 32 : index
  %block_y = arith.constant 8 : index
  %tiles = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %tiles, %gy = %tiles, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %block_x, %sy = %block_y, %sz = %one) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %steps = arith.constant 4 : index
    %rows_in = lego.row [8192, 8192] : !lego.layout
    %matrix_in = lego.order_by(%rows_in) : !lego.layout
    %in_tiles = lego.tile_by %matrix_in tile_dims [[256, 256], [4, 1], [8, 32]] : !lego.layout
    %rows_out = lego.row [8192, 8192] : !lego.layout
    %matrix_out = lego.order_by(%rows_out) : !lego.layout
    %out_tiles = lego.tile_by %matrix_out tile_dims [[256, 256], [1, 4], [32, 8]] : !lego.layout
    %vin = lego.cast_view %in, %in_tiles : memref<67108864xf32>, !lego.layout -> !lego.view<f32>
    %vout = lego.cast_view %out, %out_tiles : memref<67108864xf32>, !lego.layout -> !lego.view<f32>
    scf.for %step = %c0 to %steps step %c1 {
      // in[32·by + 8·step + ty][32·bx + tx]
      %x = lego.load %vin[%by, %bx, %step, %c0, %ty, %tx] : !lego.view<f32>, index, index, index, index, index, index
      // out[32·bx + tx][32·by + 8·step + ty]
      lego.store %x, %vout[%bx, %by, %c0, %step, %tx, %ty] : f32, !lego.view<f32>, index, index, index, index, index, index
    }
    gpu.terminator
  }
  return
}
