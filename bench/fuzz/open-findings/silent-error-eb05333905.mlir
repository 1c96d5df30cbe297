// RUN: lego-opt silent-error-eb05333905.mlir --split-input-file --lego-to-llvmspirv=format=assembly --lego-to-rocdl=format=assembly
// Outcome: silent-error (exit status 1, 0.1 s, 95 MiB); found by lego-fuzz seed 2026, case 1931 (generated)
// Signature: silent-error: 
func.func @f(%i0: index, %i1: index, %i2: index, %i3: index, %i4: index, %i5: index, %m: memref<?xf32>) -> index {
  %c1 = arith.constant 1048576 : index
  %g3 = lego.gen_p [8, %c1] apply (%a4: index, %a5: index) {
    %e6 = arith.minui %a5, %a4 : index
    lego.yield %e6 : index
  } : !lego.layout
  %l7 = lego.group_by [9223372036854775807, 4611686018427387904](%g3) : !lego.layout
  %c9 = arith.constant 1 : index
  %l10 = lego.col [32, 3, 5, %c9] : !lego.layout
  %l8 = lego.order_by(%l7, %l10) : !lego.layout
  %f = lego.apply %l8(%i0, %i1, %i2, %i3, %i4, %i5) : !lego.layout
  return %f : index
}
func.func @k(%m: memref<64xindex>) {
  %one = arith.constant 1 : index
  %t = arith.constant 1024 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one) threads(%tx, %ty, %tz) in (%sx = %t, %sy = %one, %sz = %one) {
    %l = lego.row [8, 8] : !lego.layout
    %f = lego.apply %l(%tx, %ty) : !lego.layout
    memref.store %f, %m[%tx] : memref<64xindex>
    gpu.terminator
  }
  return
}
