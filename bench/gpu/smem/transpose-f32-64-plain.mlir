// fp32 transpose with 64×64 tiles and 32×16 threads (8 elements per thread) through a plain row-major shared tile
// (`lego.row [64, 64]`): examples/transpose-smem64.mlir without the hand padding (65 words a row). The larger
// tile keeps more bytes in flight per SM than the 32×32 kernel. Compiled as is, the column read is a 32-way bank
// conflict; bench/gpu/smem/make_ptx.py also compiles it with --lego-choose-smem-layout.

func.func @transpose_f32_64(%in: memref<67108864xf32>, %out: memref<67108864xf32>) {
  %one = arith.constant 1 : index
  %block_x = arith.constant 32 : index
  %block_y = arith.constant 16 : index
  %tiles = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %tiles, %gy = %tiles, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %block_x, %sy = %block_y, %sz = %one)
             workgroup(%tile : memref<4096xf32, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %row_steps = arith.constant 4 : index
    %halves = arith.constant 2 : index
    %rows = lego.row [8192, 8192] : !lego.layout
    %matrix = lego.order_by(%rows) : !lego.layout
    %global = lego.tile_by %matrix tile_dims [[128, 128], [4, 2], [16, 32]] : !lego.layout
    %vin = lego.cast_view %in, %global : memref<67108864xf32>, !lego.layout -> !lego.view<f32>
    %vout = lego.cast_view %out, %global : memref<67108864xf32>, !lego.layout -> !lego.view<f32>
    %thread_rows = lego.row [4, 16] : !lego.layout
    %thread_cols = lego.row [2, 32] : !lego.layout
    %plain = lego.row [64, 64] : !lego.layout
    %shared = lego.cast_view %tile, %plain : memref<4096xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
    // Tile (by, bx) of `in` → shared tile, row by row.
    scf.for %step = %c0 to %row_steps step %c1 {
      scf.for %half = %c0 to %halves step %c1 {
        %r = lego.apply %thread_rows(%step, %ty) : !lego.layout
        %c = lego.apply %thread_cols(%half, %tx) : !lego.layout
        %x = lego.load %vin[%by, %bx, %step, %half, %ty, %tx] : !lego.view<f32>, index, index, index, index, index, index
        lego.store %x, %shared[%r, %c] : f32, !lego.view<f32>, index, index
      }
    }
    gpu.barrier
    // Shared tile, column by column → tile (bx, by) of `out`, row by row.
    scf.for %step = %c0 to %row_steps step %c1 {
      scf.for %half = %c0 to %halves step %c1 {
        %r = lego.apply %thread_rows(%step, %ty) : !lego.layout
        %c = lego.apply %thread_cols(%half, %tx) : !lego.layout
        %x = lego.load %shared[%c, %r] : !lego.view<f32>, index, index
        lego.store %x, %vout[%bx, %by, %step, %half, %ty, %tx] : f32, !lego.view<f32>, index, index, index, index, index, index
      }
    }
    gpu.terminator
  }
  return
}
