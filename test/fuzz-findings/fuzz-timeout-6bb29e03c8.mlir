// A lego-fuzz finding (bench/fuzz): over 20 s and ~1 GiB in lego-arith-simplification before the simplifier's
// deterministic work budget and Z3 resource limits. Now exit 0. Bound: 120 s (hang guard, not a timing assertion).
// RUN: %outcome --timeout 120 --expect ok -- lego-opt %s --lego-to-llvm --lego-to-llvm --lego-to-arith=assume-bounds=true | FileCheck %s
// CHECK: outcome: ok
// Outcome: timeout (exit status -9, 20.3 s, 781 MiB); found by lego-fuzz seed 1501, case 296 (generated)
// Signature: timeout: 
func.func @f(%n0: index, %i0: index, %i1: index, %i2: index, %i3: index, %i4: index, %i5: index, %i6: index, %i7: index, %i8: index, %i9: index, %i10: index, %i11: index, %i12: index, %i13: index, %i14: index, %i15: index, %m: memref<?xf32>) -> index {
  %g2 = lego.gen_p [%n0, 7, %n0, 8] apply (%a3: index, %a4: index, %a5: index, %a6: index) {
    %p8 = arith.cmpi ult, %a6, %a3 : index
    %e7 = arith.select %p8, %a6, %a3 : index
    %e9 = arith.subi %e7, %a3 : index
    lego.yield %e9 : index
  } : !lego.layout
  %l10 = lego.expand_by %g2 dims [%n0, 4, %n0, 5] to [%n0, 7, %n0, 8] : !lego.layout
  %l12 = lego.order_by(%l10) : !lego.layout
  %l11 = lego.tile_by %l12 tile_dims [[1, 7, 1, 4], [%n0, 1, %n0, 2]] : !lego.layout
  %l13 = lego.order_by(%l11) : !lego.layout
  %l15 = lego.order_by(%l13) : !lego.layout
  %l14 = lego.tile_by %l15 tile_dims [[1, 7, 1, 4, 1, 1, 1, 2], [1, 1, 1, 1, %n0, 1, %n0, 1]] : !lego.layout
  %f = lego.apply %l14(%i0, %i1, %i2, %i3, %i4, %i5, %i6, %i7, %i8, %i9, %i10, %i11, %i12, %i13, %i14, %i15) : !lego.layout
  %v = lego.cast_view %m, %l14 : memref<?xf32>, !lego.layout -> !lego.view<f32>
  %x = lego.load %v[%i0, %i1, %i2, %i3, %i4, %i5, %i6, %i7, %i8, %i9, %i10, %i11, %i12, %i13, %i14, %i15] : !lego.view<f32>, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index
  return %f : index
}

