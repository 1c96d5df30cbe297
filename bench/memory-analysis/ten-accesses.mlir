// A kernel with 10 memory accesses (2 global, 8 shared on one 32×32 fp32 tile read through `lego.row [32, 32]`),
// for timing lego-analyze-memory + lego-choose-smem-layout (run.sh). 32×8 threads, 4 rows per thread.
func.func @ten(%in: memref<1048576xf32>, %out: memref<1048576xf32>) {
  %one = arith.constant 1 : index
  %block_x = arith.constant 32 : index
  %block_y = arith.constant 8 : index
  %tiles = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %tiles, %gy = %tiles, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %block_x, %sy = %block_y, %sz = %one)
             workgroup(%tile : memref<1024xf32, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c31 = arith.constant 31 : index
    %steps = arith.constant 4 : index
    %rows = lego.row [1024, 1024] : !lego.layout
    %matrix = lego.order_by(%rows) : !lego.layout
    %global = lego.tile_by %matrix tile_dims [[32, 32], [4, 1], [8, 32]] : !lego.layout
    %vin = lego.cast_view %in, %global : memref<1048576xf32>, !lego.layout -> !lego.view<f32>
    %vout = lego.cast_view %out, %global : memref<1048576xf32>, !lego.layout -> !lego.view<f32>
    %thread_rows = lego.row [4, 8] : !lego.layout
    %plain = lego.row [32, 32] : !lego.layout
    %shared = lego.cast_view %tile, %plain : memref<1024xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
    scf.for %step = %c0 to %steps step %c1 {
      %r = lego.apply %thread_rows(%step, %ty) : !lego.layout
      %x = lego.load %vin[%by, %bx, %step, %c0, %ty, %tx] : !lego.view<f32>, index, index, index, index, index, index
      lego.store %x, %shared[%r, %tx] : f32, !lego.view<f32>, index, index
    }
    gpu.barrier
    scf.for %step = %c0 to %steps step %c1 {
      %r = lego.apply %thread_rows(%step, %ty) : !lego.layout
      %flip = arith.subi %c31, %tx : index
      %a = lego.load %shared[%tx, %r] : !lego.view<f32>, index, index
      %b = lego.load %shared[%r, %tx] : !lego.view<f32>, index, index
      %c = lego.load %shared[%flip, %r] : !lego.view<f32>, index, index
      %d = lego.load %shared[%r, %flip] : !lego.view<f32>, index, index
      %e = lego.load %shared[%tx, %tx] : !lego.view<f32>, index, index
      %f = lego.load %shared[%ty, %r] : !lego.view<f32>, index, index
      %ab = arith.addf %a, %b : f32
      %cd = arith.addf %c, %d : f32
      %ef = arith.addf %e, %f : f32
      %s1 = arith.addf %ab, %cd : f32
      %s = arith.addf %s1, %ef : f32
      lego.store %s, %shared[%flip, %tx] : f32, !lego.view<f32>, index, index
      lego.store %s, %vout[%bx, %by, %step, %c0, %ty, %tx] : f32, !lego.view<f32>, index, index, index, index, index, index
    }
    gpu.terminator
  }
  return
}
