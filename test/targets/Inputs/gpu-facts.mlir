func.func @scale(%buf: memref<1024xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  lego.assume_bounds %n ub : %c1024
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c32, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %l = lego.row [32, 32] : !lego.layout
    %f = lego.apply %l(%bx, %tx) : !lego.layout
    %x = memref.load %buf[%f] : memref<1024xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %buf[%f] : memref<1024xf32>
    gpu.terminator
  }
  return
}
