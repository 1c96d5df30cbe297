// fp32 transpose out = inᵀ of an 8192×8192 matrix through a plain row-major 32×32 shared tile (`lego.row [32, 32]`):
// examples/transpose-smem.mlir without the hand padding. Blocks of 32×8 threads, 4 rows per thread.
//
// Compiled as is, lego-analyze-memory reports the column read `%shared[%tx, %r]` as a 32-way bank conflict (every
// lane reads bank r); with --lego-choose-smem-layout the tile becomes the XOR swizzle (5, 0, 5) and both shared
// accesses conflict-free, with no extra memory (bench/gpu/smem/make_ptx.py compiles both).

func.func @transpose_f32(%in: memref<67108864xf32>, %out: memref<67108864xf32>) {
  %one = arith.constant 1 : index
  %block_x = arith.constant 32 : index
  %block_y = arith.constant 8 : index
  %tiles = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %tiles, %gy = %tiles, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %block_x, %sy = %block_y, %sz = %one)
             workgroup(%tile : memref<1024xf32, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %steps = arith.constant 4 : index
    %rows = lego.row [8192, 8192] : !lego.layout
    %matrix = lego.order_by(%rows) : !lego.layout
    %global = lego.tile_by %matrix tile_dims [[256, 256], [4, 1], [8, 32]] : !lego.layout
    %vin = lego.cast_view %in, %global : memref<67108864xf32>, !lego.layout -> !lego.view<f32>
    %vout = lego.cast_view %out, %global : memref<67108864xf32>, !lego.layout -> !lego.view<f32>
    %thread_rows = lego.row [4, 8] : !lego.layout
    %plain = lego.row [32, 32] : !lego.layout
    %shared = lego.cast_view %tile, %plain : memref<1024xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
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
