// fuzz-timeout-f84ed434b9-seed2611.mlir (lego-fuzz seed 2611, case 19837) with sizes that fit.
// The sizes are shrunk so that every layout has at most 2^63 - 1 elements (issue 20; the original, kept as
// fuzz-timeout-f84ed434b9-seed2611.mlir, now stops at the verifier): the reg_p/expand_by dim 9223372036854775807
// is now 1286742750677279 (= 49 · 26260056136271, the largest multiple of 49 that fits beside 4 · 56 · 32; tiled
// by 7 twice as before); the op chain, the `lego.assume_bounds %f ub : %i0` fact (the cycle of facts the range
// analysis met) are unchanged, so the passes meet the original shape.
// Bound: 120 s of CPU (hang guard, not a timing assertion).
// lego-arith-simplification does the work (range analysis, no solver): 75 rewrites, 98% of the pass time. CPU
// (debug build, /usr/bin/time, RUST_LOG=lego=debug for the counts): 1.8 s.
// RUN: %outcome --timeout 120 --expect ok -- lego-opt %s --lego-lower | FileCheck %s
// CHECK: outcome: ok
func.func @f(%n0: index, %n1: index, %i0: index, %i1: index, %i2: index, %i3: index, %i4: index, %i5: index, %i6: index, %i7: index, %i8: index, %i9: index, %i10: index, %i11: index, %i12: index, %i13: index, %i14: index, %i15: index, %m: memref<?xf32>) -> index {
  %l1 = lego.reg_p perm [1, 0] dims [7, 32] : !lego.layout
  %l2 = lego.order_by(%l1) : !lego.layout
  %l3 = lego.expand_by %l2 dims [2, 7] to [7, 32] : !lego.layout
  %l4 = lego.group_by [7, 32](%l3) : !lego.layout
  %l5 = lego.order_by(%l4) : !lego.layout
  %l6 = lego.group_by [7, 32](%l5) : !lego.layout
  %l7 = lego.group_by [16, 14](%l6) : !lego.layout
  %l8 = lego.order_by(%l7) : !lego.layout
  %l10 = lego.order_by(%l8) : !lego.layout
  %l9 = lego.tile_by %l10 tile_dims [[8, 7], [2, 2]] : !lego.layout
  %l11 = lego.order_by(%l9) : !lego.layout
  %l12 = lego.group_by [4, 56](%l11) : !lego.layout
  %l13 = lego.order_by(%l12) : !lego.layout
  %l14 = lego.group_by [16, 14](%l13) : !lego.layout
  %l15 = lego.order_by(%l14) : !lego.layout
  %l17 = lego.order_by(%l15) : !lego.layout
  %l16 = lego.tile_by %l17 tile_dims [[16, 2], [1, 7]] : !lego.layout
  %l18 = lego.group_by [8, 28](%l16) : !lego.layout
  %l20 = lego.order_by(%l18) : !lego.layout
  %l19 = lego.tile_by %l20 tile_dims [[2, 4], [4, 7]] : !lego.layout
  %l21 = lego.group_by [4, 56](%l19) : !lego.layout
  %l23 = lego.order_by(%l21) : !lego.layout
  %l22 = lego.tile_by %l23 tile_dims [[4, 7], [1, 8]] : !lego.layout
  %l25 = lego.order_by(%l22) : !lego.layout
  %l24 = lego.tile_by %l25 tile_dims [[2, 7, 1, 2], [2, 1, 1, 4]] : !lego.layout
  %l26 = lego.expand_by %l24 dims [2, 5, 1, 2, 2, 1, 1, 2] to [2, 7, 1, 2, 2, 1, 1, 4] : !lego.layout
  %l27 = lego.order_by(%l26) : !lego.layout
  %l28 = lego.group_by [2, 112](%l27) : !lego.layout
  %l29 = lego.order_by(%l28) : !lego.layout
  %l30 = lego.order_by(%l29) : !lego.layout
  %l32 = lego.order_by(%l30) : !lego.layout
  %l31 = lego.tile_by %l32 tile_dims [[2, 7], [1, 16]] : !lego.layout
  %l33 = lego.order_by(%l31) : !lego.layout
  %l34 = lego.order_by(%l33) : !lego.layout
  %l36 = lego.order_by(%l34) : !lego.layout
  %l35 = lego.tile_by %l36 tile_dims [[2, 7, 1, 4], [1, 1, 1, 4]] : !lego.layout
  %l37 = lego.order_by(%l35) : !lego.layout
  %l38 = lego.expand_by %l37 dims [1, 2, 1, 3, 1, 1, 1, 4] to [2, 7, 1, 4, 1, 1, 1, 4] : !lego.layout
  %l39 = lego.order_by(%l38) : !lego.layout
  %l40 = lego.order_by(%l39) : !lego.layout
  %l41 = lego.order_by(%l40) : !lego.layout
  %l42 = lego.order_by(%l41) : !lego.layout
  %l43 = lego.expand_by %l42 dims [1, 2, 1, 1, 1, 1, 1, 1] to [2, 7, 1, 4, 1, 1, 1, 4] : !lego.layout
  %l44 = lego.group_by [7, 32](%l43) : !lego.layout
  %l46 = lego.order_by(%l44) : !lego.layout
  %l45 = lego.tile_by %l46 tile_dims [[7, 8], [1, 4]] : !lego.layout
  %l47 = lego.group_by [4, 56](%l45) : !lego.layout
  %l48 = lego.order_by(%l47) : !lego.layout
  %l49 = lego.order_by(%l48) : !lego.layout
  %l50 = lego.expand_by %l49 dims [2, 20] to [4, 56] : !lego.layout
  %l52 = lego.reg_p perm [0, 1] dims [32, 1286742750677279] : !lego.layout
  %l51 = lego.order_by(%l50, %l52) : !lego.layout
  %l53 = lego.expand_by %l51 dims [1, 24, 17, 1286742750677279] to [4, 56, 32, 1286742750677279] : !lego.layout
  %l54 = lego.order_by(%l53) : !lego.layout
  %l55 = lego.order_by(%l54) : !lego.layout
  %l56 = lego.expand_by %l55 dims [3, 43, 13, 1286742750677279] to [4, 56, 32, 1286742750677279] : !lego.layout
  %l57 = lego.expand_by %l56 dims [2, 52, 15, 1286742750677279] to [4, 56, 32, 1286742750677279] : !lego.layout
  %l58 = lego.expand_by %l57 dims [3, 43, 12, 1286742750677279] to [4, 56, 32, 1286742750677279] : !lego.layout
  %l59 = lego.order_by(%l58) : !lego.layout
  %l60 = lego.order_by(%l59) : !lego.layout
  %l61 = lego.expand_by %l60 dims [1, 21, 11, 1286742750677279] to [4, 56, 32, 1286742750677279] : !lego.layout
  %l63 = lego.order_by(%l61) : !lego.layout
  %l62 = lego.tile_by %l63 tile_dims [[2, 2, 8, 7], [2, 28, 4, 183820392953897]] : !lego.layout
  %l64 = lego.expand_by %l62 dims [2, 2, 3, 2, 2, 23, 4, 183820392953897] to [2, 2, 8, 7, 2, 28, 4, 183820392953897] : !lego.layout
  %l65 = lego.order_by(%l64) : !lego.layout
  %l67 = lego.order_by(%l65) : !lego.layout
  %l66 = lego.tile_by %l67 tile_dims [[2, 2, 4, 7, 2, 2, 4, 7], [1, 1, 2, 1, 1, 14, 1, 26260056136271]] : !lego.layout
  %f = lego.apply %l66(%i0, %i1, %i2, %i3, %i4, %i5, %i6, %i7, %i8, %i9, %i10, %i11, %i12, %i13, %i14, %i15) : !lego.layout
  lego.assume_bounds %f ub : %i0
  return %f : index
}
