// Shared-memory GPU transpose out = inᵀ of an N×N fp32 matrix (N = 8192; bench/gpu/make_ptx.py makes N = 2048
// and 4096 copies by substituting 8192, 67108864 = N·N and 256 = N/32). The classic 32×32-tile kernel, with
// every index a lego layout:
//
//   - global arrays: `tile_by (order_by(row [N, N])) tile_dims [[N/32, N/32], [4, 1], [8, 32]]`, indexed
//     (tile row, tile col, step, 0, ty, tx): row-major N×N cut into 32×32 tiles, each tile cut into the
//     thread block's pieces. Block (bx, by) reads tile (by, bx) of `in` and writes tile (bx, by) of `out`,
//     both row by row, so global reads *and* writes are coalesced (a warp touches 32 consecutive floats);
//   - thread block: 32×8 threads; `row [4, 8]` takes (step, ty) to the tile row a thread handles at that step;
//   - shared tile: `row [32, 33]` over 32·33 floats: a 32×32 tile padded to 33 columns. Writing row r
//     (thread tx → element (r, tx)) touches 32 consecutive words; reading column r (thread tx → element
//     (tx, r), address 33·tx + r) hits bank (tx + r) mod 32, a different bank for every thread of the warp:
//     the padded layout makes both phases bank-conflict free.
//
//   lego-opt examples/transpose-smem.mlir --lego-to-nvvm='chip=sm_90 features=+ptx80 format=assembly'
//
// Kernel (bare-pointer calling convention): transpose_smem_kernel(float *in, float *out), grid (N/32, N/32),
// block (32, 8), 4224 bytes of static shared memory.

func.func @transpose_smem(%in: memref<67108864xf32>, %out: memref<67108864xf32>) {
  %one = arith.constant 1 : index
  %block_x = arith.constant 32 : index
  %block_y = arith.constant 8 : index
  %tiles = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %tiles, %gy = %tiles, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %block_x, %sy = %block_y, %sz = %one)
             workgroup(%tile : memref<1056xf32, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %steps = arith.constant 4 : index
    %rows = lego.row [8192, 8192] : !lego.layout
    %matrix = lego.order_by(%rows) : !lego.layout
    %global = lego.tile_by %matrix tile_dims [[256, 256], [4, 1], [8, 32]] : !lego.layout
    %vin = lego.cast_view %in, %global : memref<67108864xf32>, !lego.layout -> !lego.view<f32>
    %vout = lego.cast_view %out, %global : memref<67108864xf32>, !lego.layout -> !lego.view<f32>
    %thread_rows = lego.row [4, 8] : !lego.layout
    %padded = lego.row [32, 33] : !lego.layout
    %shared = lego.cast_view %tile, %padded : memref<1056xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
    // Tile (by, bx) of `in` → shared tile, row by row.
    scf.for %step = %c0 to %steps step %c1 {
      %r = lego.apply %thread_rows(%step, %ty) : !lego.layout
      %x = lego.load %vin[%by, %bx, %step, %c0, %ty, %tx] : !lego.view<f32>, index, index, index, index, index, index
      lego.store %x, %shared[%r, %tx] : f32, !lego.view<f32>, index, index
    }
    gpu.barrier
    // Shared tile, column by column → tile (bx, by) of `out`, row by row.
    scf.for %step = %c0 to %steps step %c1 {
      %r = lego.apply %thread_rows(%step, %ty) : !lego.layout
      %x = lego.load %shared[%tx, %r] : !lego.view<f32>, index, index
      lego.store %x, %vout[%bx, %by, %step, %c0, %ty, %tx] : f32, !lego.view<f32>, index, index, index, index, index, index
    }
    gpu.terminator
  }
  return
}
