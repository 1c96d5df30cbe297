// A lego-fuzz finding (bench/fuzz): over 20 s and ~1 GiB in lego-arith-simplification before the simplifier's
// deterministic work budget and Z3 resource limits. Now exit 0. Bound: 120 s (hang guard, not a timing assertion).
// RUN: %outcome --timeout 120 --expect ok -- lego-opt %s --canonicalize --lego-to-llvm | FileCheck %s
// CHECK: outcome: ok
// Outcome: timeout (exit status -9, 20.2 s, 961 MiB); found by lego-fuzz seed 1503, case 7919 (generated)
// Signature: timeout: --canonicalize --lego-to-llvm
func.func @f(%n0: index, %n1: index, %i0: index, %i1: index, %i2: index, %i3: index, %i4: index, %i5: index, %i6: index, %i7: index, %i8: index, %i9: index, %m: memref<?xf32>) -> index {
  %g2 = lego.gen_p [4, %n0, 8] apply (%a3: index, %a4: index, %a5: index) {
    %e10 = arith.minui %a4, %a3 : index
    lego.yield %e10 : index
  } inv (%x11: index) {
    %e12 = arith.ceildivui %x11, %x11 : index
    %e13 = arith.constant 1023 : index
    %e14 = arith.maxui %x11, %x11 : index
    %e15 = arith.shrui %x11, %x11 : index
    %e16 = arith.xori %x11, %x11 : index
    lego.yield %e13, %e14, %e16 : index, index, index
  } : !lego.layout
  %l18 = lego.order_by(%g2) : !lego.layout
  %l17 = lego.tile_by %l18 tile_dims [[4, 1, 8], [1, %n0, 1]] : !lego.layout
  %l19 = lego.group_by [8, 1](%l17) : !lego.layout
  %l20 = lego.expand_by %l19 dims [1, 1] to [8, 1] : !lego.layout
  %l21 = lego.order_by(%l20) : !lego.layout
  %c23 = arith.constant 1048576 : index
  %l24 = lego.row [%n1, 2, %c23, 1] : !lego.layout
  %l22 = lego.order_by(%l21, %l24) : !lego.layout
  %l25 = lego.order_by(%l22) : !lego.layout
  %l26 = lego.expand_by %l25 dims [2, 1, %n1, 2, %c23, 1] to [8, 1, %n1, 2, %c23, 1] : !lego.layout
  %l27 = lego.expand_by %l26 dims [2, 1, %n1, 2, %c23, 1] to [8, 1, %n1, 2, %c23, 1] : !lego.layout
  %l28 = lego.group_by [16, %n0](%l27) : !lego.layout
  %l29 = lego.order_by(%l28) : !lego.layout
  %c31 = arith.constant 2 : index
  %l32 = lego.row [%c31, 5, %n1] : !lego.layout
  %l30 = lego.order_by(%l29, %l32) : !lego.layout
  %l34 = lego.order_by(%l30) : !lego.layout
  %l33 = lego.tile_by %l34 tile_dims [[4, 1, 1, 5, 1], [4, %n0, %c31, 1, %n1]] : !lego.layout
  %f = lego.apply %l33(%i0, %i1, %i2, %i3, %i4, %i5, %i6, %i7, %i8, %i9) : !lego.layout
  %q35, %q36, %q37, %q38, %q39, %q40, %q41, %q42, %q43, %q44 = lego.apply_inverse %l33(%f) : !lego.layout -> index, index, index, index, index, index, index, index, index, index
  lego.assume_bounds %f ub : %i0
  return %f : index
}

