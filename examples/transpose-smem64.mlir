// Shared-memory GPU transpose with 64×64 tiles and 32×16 threads: the layouts of transpose-smem.mlir with a
// larger tile and block, so each thread moves 8 elements (8 global loads in flight before the barrier) and a
// block moves 32 KiB. Keeping more bytes in flight per SM is what a bandwidth-bound kernel needs to approach
// device-copy speed on an H100 (measured in bench/gpu/results.md: about 96 % of a cudaMemcpy at N = 8192,
// against about 94 % for the classic 32×32 kernel). N = 8192; bench/gpu/make_ptx.py makes N = 2048 and 4096
// copies by substituting 8192, 67108864 = N·N and 128 = N/64.
//
//   - global arrays: `tile_by (order_by(row [N, N])) tile_dims [[N/64, N/64], [4, 2], [16, 32]]`, indexed
//     (tile row, tile col, row step, column half, ty, tx) → (64·tile row + 16·row step + ty,
//     64·tile col + 32·column half + tx);
//   - thread block: 32×16 threads; `row [4, 16]` takes (row step, ty) to a tile row and `row [2, 32]` takes
//     (column half, tx) to a tile column;
//   - shared tile: `row [64, 65]`, a 64×64 tile padded to 65 columns (16.25 KiB): reading column r, thread tx
//     hits bank (65·(32·h + tx) + r) mod 32 = (tx + const) mod 32, all different; rows are consecutive words.
//
//   lego-opt examples/transpose-smem64.mlir --lego-to-nvvm='chip=sm_90 features=+ptx80 format=assembly'
//
// Kernel (bare-pointer calling convention): transpose_smem64_kernel(float *in, float *out), grid
// (N/64, N/64), block (32, 16), 16640 bytes of static shared memory.

func.func @transpose_smem64(%in: memref<67108864xf32>, %out: memref<67108864xf32>) {
  %one = arith.constant 1 : index
  %block_x = arith.constant 32 : index
  %block_y = arith.constant 16 : index
  %tiles = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %tiles, %gy = %tiles, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %block_x, %sy = %block_y, %sz = %one)
             workgroup(%tile : memref<4160xf32, #gpu.address_space<workgroup>>) {
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
    %padded = lego.row [64, 65] : !lego.layout
    %shared = lego.cast_view %tile, %padded : memref<4160xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
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
