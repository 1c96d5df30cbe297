// A lego-fuzz finding (bench/fuzz): over 20 s and ~1 GiB in lego-arith-simplification before the simplifier's
// deterministic work budget and Z3 resource limits. Now exit 0. Bound: 120 s (hang guard, not a timing assertion).
// RUN: %outcome --timeout 120 --expect error -- lego-opt %s --lego-lower --lego-to-llvm | FileCheck %s
// CHECK: outcome: error
// CHECK: fuzz-timeout-e5e5eeea1b.mlir:11:9: error: 'lego.gen_p' op has at least 1057810091670219318624256 elements, more than 2^63 - 1
// Since issue 20 a layout has at most 2^63 - 1 elements: this generated input has more, so the verifier
// rejects it (a located error, exit 1) before any pass; it no longer reaches the simplifier.
// Outcome: timeout (exit status -9, 20.3 s, 1202 MiB); found by lego-fuzz seed 1503, case 8115 (generated)
// Signature: timeout: --lego-lower --lego-to-llvm
func.func @f(%n0: index, %i0: index, %i1: index, %i2: index, %i3: index, %i4: index, %i5: index, %i6: index, %i7: index, %i8: index, %i9: index, %i10: index, %i11: index, %i12: index, %i13: index, %i14: index, %i15: index, %m: memref<?xf32>) -> index {
  %g2 = lego.gen_p [7, 2147483647, 32, 1099511627776, 2, %n0, %n0, 1] apply (%a3: index, %a4: index, %a5: index, %a6: index, %a7: index, %a8: index, %a9: index, %a10: index) {
    %e11 = arith.shli %a3, %a7 : index
    lego.yield %e11 : index
  } : !lego.layout
  %l12 = lego.order_by(%g2) : !lego.layout
  %l13 = lego.order_by(%l12) : !lego.layout
  %l15 = lego.order_by(%l13) : !lego.layout
  %l14 = lego.tile_by %l15 tile_dims [[7, 1, 16, 2, 2, 1, 1, 1], [1, 2147483647, 2, 549755813888, 1, %n0, %n0, 1]] : !lego.layout
  %f = lego.apply %l14(%i0, %i1, %i2, %i3, %i4, %i5, %i6, %i7, %i8, %i9, %i10, %i11, %i12, %i13, %i14, %i15) : !lego.layout
  %v = lego.cast_view %m, %l14 : memref<?xf32>, !lego.layout -> !lego.view<f32>
  return %f : index
}
