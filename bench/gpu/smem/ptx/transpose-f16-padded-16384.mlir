// The fp16 transpose of transpose-f16-plain.mlir with the tiles padded by hand to 34 halves (one 4-byte word) a
// row, what a programmer would write. lego-analyze-memory finds both phases 2-way: the column reads because rows
// 8·a + k and 8·(a + 4) + k are 32·17 = 544 words apart (a multiple of 32), the stores because lane 1 (row 0,
// word 4) and lane 16 (row 4, word 4·17 = 68) share bank 4.

func.func @transpose_f16(%in: memref<268435456xf16>, %out: memref<268435456xf16>) {
  %one = arith.constant 1 : index
  %block_x = arith.constant 4 : index
  %block_y = arith.constant 64 : index
  %grid_x = arith.constant 256 : index
  %grid_y = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %grid_x, %gy = %grid_y, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %block_x, %sy = %block_y, %sz = %one)
             workgroup(%tile0 : memref<2176xf16, #gpu.address_space<workgroup>>,
                       %tile1 : memref<2176xf16, #gpu.address_space<workgroup>>) {
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %width = arith.constant 64 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k3 = arith.constant 3 : index
    %k4 = arith.constant 4 : index
    %k5 = arith.constant 5 : index
    %k6 = arith.constant 6 : index
    %k7 = arith.constant 7 : index
    %matrix = lego.row [16384, 16384] : !lego.layout
    %tile_layout0 = lego.row [64, 34] : !lego.layout
    %shared0 = lego.cast_view %tile0, %tile_layout0 : memref<2176xf16, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f16>
    %tile_layout1 = lego.row [64, 34] : !lego.layout
    %shared1 = lego.cast_view %tile1, %tile_layout1 : memref<2176xf16, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f16>
    %row0 = arith.muli %by, %c64 : index
    %col0 = arith.muli %bx, %width : index
    %col8 = arith.muli %tx, %c8 : index
    %grow = arith.addi %row0, %ty : index
    // Tile 0: rows by·64 …, columns bx·64 + 0 …; thread (tx, ty) loads row ty, columns 8·tx … 8·tx + 7.
    %off0 = arith.constant 0 : index
    %colh0 = arith.addi %col0, %off0 : index
    %gcol0 = arith.addi %colh0, %col8 : index
    %src0 = lego.apply %matrix(%grow, %gcol0) : !lego.layout
    %v0 = vector.load %in[%src0] {alignment = 16} : memref<268435456xf16>, vector<8xf16>
    // Tile 1: rows by·64 …, columns bx·64 + 32 …; thread (tx, ty) loads row ty, columns 8·tx … 8·tx + 7.
    %off1 = arith.constant 32 : index
    %colh1 = arith.addi %col0, %off1 : index
    %gcol1 = arith.addi %colh1, %col8 : index
    %src1 = lego.apply %matrix(%grow, %gcol1) : !lego.layout
    %v1 = vector.load %in[%src1] {alignment = 16} : memref<268435456xf16>, vector<8xf16>
    %e0_0 = vector.extract %v0[0] : f16 from vector<8xf16>
    lego.store %e0_0, %shared0[%ty, %col8] : f16, !lego.view<f16>, index, index
    %j1 = arith.addi %col8, %k1 : index
    %e0_1 = vector.extract %v0[1] : f16 from vector<8xf16>
    lego.store %e0_1, %shared0[%ty, %j1] : f16, !lego.view<f16>, index, index
    %j2 = arith.addi %col8, %k2 : index
    %e0_2 = vector.extract %v0[2] : f16 from vector<8xf16>
    lego.store %e0_2, %shared0[%ty, %j2] : f16, !lego.view<f16>, index, index
    %j3 = arith.addi %col8, %k3 : index
    %e0_3 = vector.extract %v0[3] : f16 from vector<8xf16>
    lego.store %e0_3, %shared0[%ty, %j3] : f16, !lego.view<f16>, index, index
    %j4 = arith.addi %col8, %k4 : index
    %e0_4 = vector.extract %v0[4] : f16 from vector<8xf16>
    lego.store %e0_4, %shared0[%ty, %j4] : f16, !lego.view<f16>, index, index
    %j5 = arith.addi %col8, %k5 : index
    %e0_5 = vector.extract %v0[5] : f16 from vector<8xf16>
    lego.store %e0_5, %shared0[%ty, %j5] : f16, !lego.view<f16>, index, index
    %j6 = arith.addi %col8, %k6 : index
    %e0_6 = vector.extract %v0[6] : f16 from vector<8xf16>
    lego.store %e0_6, %shared0[%ty, %j6] : f16, !lego.view<f16>, index, index
    %j7 = arith.addi %col8, %k7 : index
    %e0_7 = vector.extract %v0[7] : f16 from vector<8xf16>
    lego.store %e0_7, %shared0[%ty, %j7] : f16, !lego.view<f16>, index, index
    %e1_0 = vector.extract %v1[0] : f16 from vector<8xf16>
    lego.store %e1_0, %shared1[%ty, %col8] : f16, !lego.view<f16>, index, index
    %e1_1 = vector.extract %v1[1] : f16 from vector<8xf16>
    lego.store %e1_1, %shared1[%ty, %j1] : f16, !lego.view<f16>, index, index
    %e1_2 = vector.extract %v1[2] : f16 from vector<8xf16>
    lego.store %e1_2, %shared1[%ty, %j2] : f16, !lego.view<f16>, index, index
    %e1_3 = vector.extract %v1[3] : f16 from vector<8xf16>
    lego.store %e1_3, %shared1[%ty, %j3] : f16, !lego.view<f16>, index, index
    %e1_4 = vector.extract %v1[4] : f16 from vector<8xf16>
    lego.store %e1_4, %shared1[%ty, %j4] : f16, !lego.view<f16>, index, index
    %e1_5 = vector.extract %v1[5] : f16 from vector<8xf16>
    lego.store %e1_5, %shared1[%ty, %j5] : f16, !lego.view<f16>, index, index
    %e1_6 = vector.extract %v1[6] : f16 from vector<8xf16>
    lego.store %e1_6, %shared1[%ty, %j6] : f16, !lego.view<f16>, index, index
    %e1_7 = vector.extract %v1[7] : f16 from vector<8xf16>
    lego.store %e1_7, %shared1[%ty, %j7] : f16, !lego.view<f16>, index, index
    gpu.barrier
    // Thread t = tx + 4·ty reads tile column c = t div 8, rows 8·a … 8·a + 7 (a = t mod 8), and stores them as
    // one vector to row (tile column) of `out`, columns by·64 + 8·a ….
    %t4 = arith.muli %ty, %c4 : index
    %t = arith.addi %tx, %t4 : index
    %va = arith.remui %t, %c8 : index
    %c = arith.divui %t, %c8 : index
    %r8 = arith.muli %va, %c8 : index
    %ocol = arith.addi %row0, %r8 : index
    %i1 = arith.addi %r8, %k1 : index
    %i2 = arith.addi %r8, %k2 : index
    %i3 = arith.addi %r8, %k3 : index
    %i4 = arith.addi %r8, %k4 : index
    %i5 = arith.addi %r8, %k5 : index
    %i6 = arith.addi %r8, %k6 : index
    %i7 = arith.addi %r8, %k7 : index
    %x0_0 = lego.load %shared0[%r8, %c] : !lego.view<f16>, index, index
    %x0_1 = lego.load %shared0[%i1, %c] : !lego.view<f16>, index, index
    %x0_2 = lego.load %shared0[%i2, %c] : !lego.view<f16>, index, index
    %x0_3 = lego.load %shared0[%i3, %c] : !lego.view<f16>, index, index
    %x0_4 = lego.load %shared0[%i4, %c] : !lego.view<f16>, index, index
    %x0_5 = lego.load %shared0[%i5, %c] : !lego.view<f16>, index, index
    %x0_6 = lego.load %shared0[%i6, %c] : !lego.view<f16>, index, index
    %x0_7 = lego.load %shared0[%i7, %c] : !lego.view<f16>, index, index
    %w0 = vector.from_elements %x0_0, %x0_1, %x0_2, %x0_3, %x0_4, %x0_5, %x0_6, %x0_7 : vector<8xf16>
    %orow0 = arith.addi %colh0, %c : index
    %dst0 = lego.apply %matrix(%orow0, %ocol) : !lego.layout
    vector.store %w0, %out[%dst0] {alignment = 16} : memref<268435456xf16>, vector<8xf16>
    %x1_0 = lego.load %shared1[%r8, %c] : !lego.view<f16>, index, index
    %x1_1 = lego.load %shared1[%i1, %c] : !lego.view<f16>, index, index
    %x1_2 = lego.load %shared1[%i2, %c] : !lego.view<f16>, index, index
    %x1_3 = lego.load %shared1[%i3, %c] : !lego.view<f16>, index, index
    %x1_4 = lego.load %shared1[%i4, %c] : !lego.view<f16>, index, index
    %x1_5 = lego.load %shared1[%i5, %c] : !lego.view<f16>, index, index
    %x1_6 = lego.load %shared1[%i6, %c] : !lego.view<f16>, index, index
    %x1_7 = lego.load %shared1[%i7, %c] : !lego.view<f16>, index, index
    %w1 = vector.from_elements %x1_0, %x1_1, %x1_2, %x1_3, %x1_4, %x1_5, %x1_6, %x1_7 : vector<8xf16>
    %orow1 = arith.addi %colh1, %c : index
    %dst1 = lego.apply %matrix(%orow1, %ocol) : !lego.layout
    vector.store %w1, %out[%dst1] {alignment = 16} : memref<268435456xf16>, vector<8xf16>
    gpu.terminator
  }
  return
}
