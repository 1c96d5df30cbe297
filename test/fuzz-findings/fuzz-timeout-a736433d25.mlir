// A lego-fuzz finding (bench/fuzz): over 20 s and ~1 GiB in lego-arith-simplification before the simplifier's
// deterministic work budget and Z3 resource limits. Now exit 0. Bound: 120 s (hang guard, not a timing assertion).
// RUN: %outcome --timeout 120 --expect error -- lego-opt %s --lego-verify=timeout-ms=2000 --lego-to-llvm --lego-arith-simplification | FileCheck %s
// CHECK: outcome: error
// CHECK: fuzz-timeout-a736433d25.mlir:11:9: error: 'lego.row' op has at least 1586715138244200791801856 elements, more than 2^63 - 1
// Since issue 20 a layout has at most 2^63 - 1 elements: this generated input has more, so the verifier
// rejects it (a located error, exit 1) before any pass; it no longer reaches the simplifier.
// Outcome: timeout (exit status -9, 20.3 s, 1204 MiB); found by lego-fuzz seed 1502, case 7189 (generated)
// Signature: timeout: --lego-arith-simplification --lego-to-llvm --lego-verify
func.func @f(%n0: index, %n1: index, %i0: index, %i1: index, %i2: index, %i3: index, %i4: index, %i5: index, %i6: index, %i7: index, %i8: index, %i9: index, %i10: index, %i11: index, %i12: index, %i13: index, %i14: index, %i15: index, %m: memref<?xf32>) -> index {
  %l1 = lego.row [4294967296, 1099511627776, 8, %n0, 3, 2, %n1, 7] : !lego.layout
  %l2 = lego.expand_by %l1 dims [4294967296, 1099511627776, 5, %n0, 2, 2, %n1, 3] to [4294967296, 1099511627776, 8, %n0, 3, 2, %n1, 7] : !lego.layout
  %l4 = lego.order_by(%l2) : !lego.layout
  %l3 = lego.tile_by %l4 tile_dims [[65536, 2, 4, 1, 3, 2, 1, 7], [65536, 549755813888, 2, %n0, 1, 1, %n1, 1]] : !lego.layout
  %f = lego.apply %l3(%i0, %i1, %i2, %i3, %i4, %i5, %i6, %i7, %i8, %i9, %i10, %i11, %i12, %i13, %i14, %i15) : !lego.layout
  return %f : index
}
