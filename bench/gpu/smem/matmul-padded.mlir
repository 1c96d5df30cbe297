// The tiled matmul of examples/matmul-tiled.mlir with its two 16×16 shared tiles padded by hand to 17 words a row
// (the habit from transposes). lego-analyze-memory shows it does not help here: the unpadded staging is already
// conflict-free, and the padding makes the tile writes 2-way: a warp writes rows ty and ty + 1, words 17·ty + tx and
// 17·ty + 17 + tx, so lane 0 (word 0 for ty = 0) and lane 31 (tx = 15 of row 1: word 17 + 15 = 32) share bank 0.

func.func @matmul(%a: memref<1048576xf32>, %b: memref<1048576xf32>, %c: memref<1048576xf32>) {
  %one = arith.constant 1 : index
  %threads = arith.constant 16 : index
  %tiles = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %tiles, %gy = %tiles, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %threads, %sy = %threads, %sz = %one)
             workgroup(%as : memref<272xf32, #gpu.address_space<workgroup>>,
                       %bs : memref<272xf32, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %k_tiles = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %rows = lego.row [1024, 1024] : !lego.layout
    %matrix = lego.order_by(%rows) : !lego.layout
    %tiled = lego.tile_by %matrix tile_dims [[64, 64], [16, 16]] : !lego.layout
    %va = lego.cast_view %a, %tiled : memref<1048576xf32>, !lego.layout -> !lego.view<f32>
    %vb = lego.cast_view %b, %tiled : memref<1048576xf32>, !lego.layout -> !lego.view<f32>
    %vc = lego.cast_view %c, %tiled : memref<1048576xf32>, !lego.layout -> !lego.view<f32>
    %tile = lego.row [16, 17] : !lego.layout
    %vas = lego.cast_view %as, %tile : memref<272xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
    %vbs = lego.cast_view %bs, %tile : memref<272xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
    %sum = scf.for %kt = %c0 to %k_tiles step %c1 iter_args(%acc = %zero) -> (f32) {
      // A tile (by, kt) and B tile (kt, bx) → shared memory; thread (ty, tx) moves one element of each.
      %x = lego.load %va[%by, %kt, %ty, %tx] : !lego.view<f32>, index, index, index, index
      lego.store %x, %vas[%ty, %tx] : f32, !lego.view<f32>, index, index
      %y = lego.load %vb[%kt, %bx, %ty, %tx] : !lego.view<f32>, index, index, index, index
      lego.store %y, %vbs[%ty, %tx] : f32, !lego.view<f32>, index, index
      gpu.barrier
      %partial = scf.for %k = %c0 to %c16 step %c1 iter_args(%inner = %acc) -> (f32) {
        %p = lego.load %vas[%ty, %k] : !lego.view<f32>, index, index
        %q = lego.load %vbs[%k, %tx] : !lego.view<f32>, index, index
        %pq = arith.mulf %p, %q : f32
        %next = arith.addf %inner, %pq : f32
        scf.yield %next : f32
      }
      gpu.barrier
      scf.yield %partial : f32
    }
    lego.store %sum, %vc[%by, %bx, %ty, %tx] : f32, !lego.view<f32>, index, index, index, index
    gpu.terminator
  }
  return
}
