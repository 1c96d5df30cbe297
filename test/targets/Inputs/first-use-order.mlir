// A kernel whose body first uses its third buffer (test/targets/kernel-parameter-order.mlir).
module {
  func.func @first_use(%a: memref<64xf32>, %unused: memref<64xf32>, %c: memref<64xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %host = arith.addi %n, %n : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %c[%tx] : memref<64xf32>
      %v = memref.load %a[%host] : memref<64xf32>
      memref.store %v, %c[%n] : memref<64xf32>
      gpu.terminator
    }
    return
  }
}
