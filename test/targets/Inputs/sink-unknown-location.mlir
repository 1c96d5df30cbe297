// Input of test/targets/sink-index-computations.mlir: constants whose location is unknown (as MLIR's folder
// leaves a constant it hoisted), each used inside a launch.
func.func @k(%m: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 2.0 : f32 loc(unknown)
  %g = arith.constant 3.0 : f32 loc(unknown)
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %x = memref.load %m[%tx] : memref<64xf32>
    %y = arith.mulf %x, %f : f32
    %z = arith.addf %y, %g : f32 loc(unknown)
    memref.store %z, %m[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
