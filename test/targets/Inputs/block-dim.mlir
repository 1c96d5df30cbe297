// A kernel that reads its block and grid size (gpu.block_dim / gpu.grid_dim) from a launch with constant
// sizes (input of test/targets/rocdl.mlir).
func.func @scale(%buffer: memref<1024xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %bd = gpu.block_dim x
    %gd = gpu.grid_dim x
    %base = arith.muli %bx, %bd : index
    %i = arith.addi %base, %tx : index
    %last = arith.subi %gd, %c1 : index
    %in_last = arith.cmpi eq, %bx, %last : index
    %x = memref.load %buffer[%i] : memref<1024xf32>
    %y = arith.addf %x, %x : f32
    %z = arith.select %in_last, %x, %y : f32
    memref.store %z, %buffer[%i] : memref<1024xf32>
    gpu.terminator
  }
  return
}
