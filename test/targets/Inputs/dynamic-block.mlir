// A kernel whose block size is only known at run time (threads = %threads): SPIR-V cannot give it a fixed
// workgroup size (input of test/targets/spirv.mlir).
func.func @scale(%buffer: memref<1024xf32>, %threads: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %threads, %sy = %c1, %sz = %c1) {
    %x = memref.load %buffer[%tx] : memref<1024xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %buffer[%tx] : memref<1024xf32>
    gpu.terminator
  }
  return
}
