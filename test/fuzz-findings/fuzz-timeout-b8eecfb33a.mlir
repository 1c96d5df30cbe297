// A lego-fuzz finding (bench/fuzz): over 20 s and ~1 GiB in lego-arith-simplification before the simplifier's
// deterministic work budget and Z3 resource limits. Now exit 0. Bound: 120 s (hang guard, not a timing assertion).
// RUN: %outcome --timeout 120 --expect ok -- lego-opt %s --canonicalize --lego-verify-bijectivity=timeout-ms=2000 --lego-to-llvm | FileCheck %s
// CHECK: outcome: ok
// Outcome: timeout (exit status -9, 20.1 s, 707 MiB); found by lego-fuzz seed 1502, case 5145 (generated)
// Signature: timeout: --canonicalize --lego-to-llvm --lego-verify-bijectivity
func.func @f(%n0: index, %i0: index, %i1: index, %i2: index, %i3: index, %i4: index, %i5: index, %i6: index, %i7: index, %i8: index, %i9: index, %i10: index, %i11: index, %m: memref<?xf32>) -> index {
  %l1 = lego.reg_p perm [0, 1, 3, 2] dims [2, %n0, 3, 7] : !lego.layout
  %l2 = lego.order_by(%l1) : !lego.layout
  %l3 = lego.expand_by %l2 dims [1, %n0, 1, 6] to [2, %n0, 3, 7] : !lego.layout
  %l4 = lego.order_by(%l3) : !lego.layout
  %l6 = lego.col [5, 5] : !lego.layout
  %l5 = lego.order_by(%l4, %l6) : !lego.layout
  %l7 = lego.order_by(%l5) : !lego.layout
  %l8 = lego.expand_by %l7 dims [1, %n0, 1, 6, 3, 4] to [2, %n0, 3, 7, 5, 5] : !lego.layout
  %l10 = lego.order_by(%l8) : !lego.layout
  %l9 = lego.tile_by %l10 tile_dims [[2, 1, 3, 7, 5, 5], [1, %n0, 1, 1, 1, 1]] : !lego.layout
  %f = lego.apply %l9(%i0, %i1, %i2, %i3, %i4, %i5, %i6, %i7, %i8, %i9, %i10, %i11) : !lego.layout
  return %f : index
}
