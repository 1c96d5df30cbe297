// A kernel reading gpu.block_dim of a launch whose thread count is a run-time value (input of
// test/targets/rocdl-no-toolkit.mlir).
func.func @scale(%buffer: memref<1024xf32>, %threads: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %threads, %sy = %c1, %sz = %c1) {
    %bd = gpu.block_dim x
    %i = arith.addi %tx, %bd : index
    %x = memref.load %buffer[%i] : memref<1024xf32>
    memref.store %x, %buffer[%tx] : memref<1024xf32>
    gpu.terminator
  }
  return
}
