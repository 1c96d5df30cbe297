// An unpadded 32×32 fp32 tile written by rows and read by columns (32×8 threads); for report-json.test.
func.func @transpose(%out: memref<1024xf32>) {
  %one = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c8, %sz = %one)
             workgroup(%tile : memref<1024xf32, #gpu.address_space<workgroup>>) {
    %plain = lego.row [32, 32] : !lego.layout
    %c0 = arith.constant 0 : index
    %f = arith.constant 1.0 : f32
    %i = arith.addi %tx, %c0 : index
    %j = arith.addi %ty, %c0 : index
    %shared = lego.cast_view %tile, %plain : memref<1024xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
    // row write, column read, global write
    %k = arith.addi %i, %c0 : index
    lego.store %f, %shared[%j, %i] : f32, !lego.view<f32>, index, index
    %x = lego.load %shared[%i, %j] : !lego.view<f32>, index, index
    memref.store %x, %out[%k] : memref<1024xf32>
    gpu.terminator
  }
  return
}
