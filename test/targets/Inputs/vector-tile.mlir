// A gpu.launch with an fp16 tile accessed by 16-byte vector loads and stores
// (test/targets/align-workgroup-attributions.mlir).
func.func @vector_tile(%in: memref<1024xf16>, %out: memref<1024xf16>) {
  %one = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%tile : memref<1024xf16, #gpu.address_space<workgroup>>) {
    %c8 = arith.constant 8 : index
    %i = arith.muli %tx, %c8 : index
    %v = vector.load %in[%i] {alignment = 16} : memref<1024xf16>, vector<8xf16>
    vector.store %v, %tile[%i] {alignment = 16} : memref<1024xf16, #gpu.address_space<workgroup>>, vector<8xf16>
    gpu.barrier
    %w = vector.load %tile[%i] {alignment = 16} : memref<1024xf16, #gpu.address_space<workgroup>>, vector<8xf16>
    vector.store %w, %out[%i] {alignment = 16} : memref<1024xf16>, vector<8xf16>
    gpu.terminator
  }
  return
}
