// Found by bench/fuzz/lego_fuzz.py (make fuzz-smoke, seed 15, case 234; minimized line-wise): lego-lower runs
// for minutes in lego-arith-simplification (lego-to-arith alone takes 0.05 s; to-arith, canonicalize, cse and
// arith-simplification without the normalization first take 0.5 s). Same class as findings 10 / 10b (the
// simplifier needs a work budget per expression), which issue 15 assigns to the simplifier's owners.
// XFAIL until that budget lands; then this XPASSes and the XFAIL line goes. Bound: 30 s.
// XFAIL: *
// RUN: %outcome --timeout 30 --expect ok,error -- lego-opt %s --lego-lower | FileCheck %s
// CHECK: outcome: {{ok|error}}
func.func @f(%n0: index, %i0: index, %i1: index, %i2: index, %i3: index, %i4: index, %i5: index, %i6: index, %i7: index, %i8: index, %i9: index, %i10: index, %i11: index, %i12: index, %i13: index, %i14: index, %i15: index, %m: memref<64xf32>) -> index {
  %l1 = lego.col [%n0] : !lego.layout
  %l2 = lego.order_by(%l1) : !lego.layout
  %c4 = arith.constant 1048576 : index
  %l5 = lego.row [%c4, 3] : !lego.layout
  %l3 = lego.order_by(%l2, %l5) : !lego.layout
  %l7 = lego.order_by(%l3) : !lego.layout
  %l6 = lego.tile_by %l7 tile_dims [[1, 1, 3], [%n0, %c4, 1]] : !lego.layout
  %l8 = lego.group_by [2, 32](%l6) : !lego.layout
  %l9 = lego.group_by [2, 32](%l8) : !lego.layout
  %l10 = lego.expand_by %l9 dims [2, 10] to [2, 32] : !lego.layout
  %l11 = lego.order_by(%l10) : !lego.layout
  %l12 = lego.order_by(%l11) : !lego.layout
  %l13 = lego.order_by(%l12) : !lego.layout
  %l14 = lego.order_by(%l13) : !lego.layout
  %l15 = lego.order_by(%l14) : !lego.layout
  %l17 = lego.order_by(%l15) : !lego.layout
  %l16 = lego.tile_by %l17 tile_dims [[2, 8], [1, 4]] : !lego.layout
  %l18 = lego.expand_by %l16 dims [2, 5, 1, 4] to [2, 8, 1, 4] : !lego.layout
  %l19 = lego.order_by(%l18) : !lego.layout
  %l21 = lego.order_by(%l19) : !lego.layout
  %l20 = lego.tile_by %l21 tile_dims [[2, 8, 1, 2], [1, 1, 1, 2]] : !lego.layout
  %l22 = lego.order_by(%l20) : !lego.layout
  %l23 = lego.group_by [4, 16](%l22) : !lego.layout
  %l24 = lego.expand_by %l23 dims [2, 4] to [4, 16] : !lego.layout
  %l25 = lego.order_by(%l24) : !lego.layout
  %l26 = lego.order_by(%l25) : !lego.layout
  %l28 = lego.order_by(%l26) : !lego.layout
  %l27 = lego.tile_by %l28 tile_dims [[2, 8], [2, 2]] : !lego.layout
  %l30 = lego.order_by(%l27) : !lego.layout
  %l29 = lego.tile_by %l30 tile_dims [[2, 8, 2, 2], [1, 1, 1, 1]] : !lego.layout
  %l31 = lego.order_by(%l29) : !lego.layout
  %l32 = lego.expand_by %l31 dims [2, 1, 1, 1, 1, 1, 1, 1] to [2, 8, 2, 2, 1, 1, 1, 1] : !lego.layout
  %l34 = lego.order_by(%l32) : !lego.layout
  %l33 = lego.tile_by %l34 tile_dims [[2, 4, 2, 2, 1, 1, 1, 1], [1, 2, 1, 1, 1, 1, 1, 1]] : !lego.layout
  %f = lego.apply %l33(%i0, %i1, %i2, %i3, %i4, %i5, %i6, %i7, %i8, %i9, %i10, %i11, %i12, %i13, %i14, %i15) : !lego.layout
  lego.assume_bounds %f ub : %i0
  return %f : index
}
