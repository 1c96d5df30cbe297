// A lego-fuzz finding (bench/fuzz, seed 2026, case 1772): lego-to-llvm ran past 60 s in the simplifier's range
// analysis. `lego.assume_bounds %f ub : %i0` makes a cycle of facts (f < i0, i0 > f) under the DAG-shaped cone of
// %f; results that met the cycle were not memoized, so every value of the cone was recomputed once per path
// (exponential). They are now reused for the rest of the query. Bound: 120 s (hang guard, not a timing assertion).
// RUN: %outcome --timeout 120 --expect ok -- lego-opt %s --lego-to-llvm | FileCheck %s
// CHECK: outcome: ok
// Outcome: timeout (exit status -9, 20.0 s, 80 MiB); found by lego-fuzz seed 2026, case 1772 (generated)
func.func @f(%n0: index, %i0: index, %i1: index, %i2: index, %i3: index, %i4: index, %i5: index, %i6: index, %i7: index, %i8: index, %i9: index, %i10: index, %i11: index, %i12: index, %i13: index, %i14: index, %i15: index, %m: memref<131072xf32>) -> index {
  %l1 = lego.col [3, 5] : !lego.layout
  %l2 = lego.expand_by %l1 dims [1, 5] to [3, 5] : !lego.layout
  %l3 = lego.expand_by %l2 dims [2, 5] to [3, 5] : !lego.layout
  %l4 = lego.order_by(%l3) : !lego.layout
  %l5 = lego.group_by [%n0, 8](%l4) : !lego.layout
  %c7 = arith.constant 1048576 : index
  %l8 = lego.reg_p perm [0] dims [%c7] : !lego.layout
  %l6 = lego.order_by(%l5, %l8) : !lego.layout
  %l9 = lego.expand_by %l6 dims [%n0, 1, %c7] to [%n0, 8, %c7] : !lego.layout
  %l10 = lego.group_by [65536, 2](%l9) : !lego.layout
  %l11 = lego.order_by(%l10) : !lego.layout
  %l13 = lego.order_by(%l11) : !lego.layout
  %l12 = lego.tile_by %l13 tile_dims [[8, 2], [8192, 1]] : !lego.layout
  %l14 = lego.order_by(%l12) : !lego.layout
  %l15 = lego.group_by [2, 65536](%l14) : !lego.layout
  %l16 = lego.expand_by %l15 dims [2, 47091] to [2, 65536] : !lego.layout
  %l18 = lego.order_by(%l16) : !lego.layout
  %l17 = lego.tile_by %l18 tile_dims [[2, 2], [1, 32768]] : !lego.layout
  %l19 = lego.group_by [16, 8192](%l17) : !lego.layout
  %l20 = lego.group_by [16, 8192](%l19) : !lego.layout
  %l21 = lego.order_by(%l20) : !lego.layout
  %l22 = lego.order_by(%l21) : !lego.layout
  %l23 = lego.expand_by %l22 dims [6, 1081] to [16, 8192] : !lego.layout
  %l24 = lego.order_by(%l23) : !lego.layout
  %l26 = lego.order_by(%l24) : !lego.layout
  %l25 = lego.tile_by %l26 tile_dims [[16, 16], [1, 512]] : !lego.layout
  %l27 = lego.order_by(%l25) : !lego.layout
  %l29 = lego.order_by(%l27) : !lego.layout
  %l28 = lego.tile_by %l29 tile_dims [[4, 2, 1, 4], [4, 8, 1, 128]] : !lego.layout
  %l30 = lego.expand_by %l28 dims [3, 2, 1, 1, 1, 5, 1, 65] to [4, 2, 1, 4, 4, 8, 1, 128] : !lego.layout
  %l31 = lego.group_by [16, 8192](%l30) : !lego.layout
  %l32 = lego.expand_by %l31 dims [2, 5694] to [16, 8192] : !lego.layout
  %l33 = lego.order_by(%l32) : !lego.layout
  %l34 = lego.group_by [2, 65536](%l33) : !lego.layout
  %l35 = lego.expand_by %l34 dims [1, 40766] to [2, 65536] : !lego.layout
  %l36 = lego.order_by(%l35) : !lego.layout
  %l37 = lego.order_by(%l36) : !lego.layout
  %l38 = lego.order_by(%l37) : !lego.layout
  %l39 = lego.expand_by %l38 dims [1, 15608] to [2, 65536] : !lego.layout
  %l40 = lego.order_by(%l39) : !lego.layout
  %l41 = lego.order_by(%l40) : !lego.layout
  %l43 = lego.order_by(%l41) : !lego.layout
  %l42 = lego.tile_by %l43 tile_dims [[2, 4], [1, 16384]] : !lego.layout
  %l44 = lego.group_by [4, 32768](%l42) : !lego.layout
  %l45 = lego.order_by(%l44) : !lego.layout
  %l46 = lego.group_by [8, 16384](%l45) : !lego.layout
  %l47 = lego.order_by(%l46) : !lego.layout
  %l48 = lego.order_by(%l47) : !lego.layout
  %l49 = lego.expand_by %l48 dims [1, 6788] to [8, 16384] : !lego.layout
  %l50 = lego.order_by(%l49) : !lego.layout
  %l51 = lego.expand_by %l50 dims [8, 15874] to [8, 16384] : !lego.layout
  %l52 = lego.group_by [4, 32768](%l51) : !lego.layout
  %l53 = lego.order_by(%l52) : !lego.layout
  %l54 = lego.expand_by %l53 dims [4, 22205] to [4, 32768] : !lego.layout
  %l55 = lego.group_by [2, 65536](%l54) : !lego.layout
  %l57 = lego.order_by(%l55) : !lego.layout
  %l56 = lego.tile_by %l57 tile_dims [[2, 8], [1, 8192]] : !lego.layout
  %l58 = lego.order_by(%l56) : !lego.layout
  %l60 = lego.order_by(%l58) : !lego.layout
  %l59 = lego.tile_by %l60 tile_dims [[2, 4, 1, 2], [1, 2, 1, 4096]] : !lego.layout
  %l61 = lego.order_by(%l59) : !lego.layout
  %l62 = lego.expand_by %l61 dims [2, 1, 1, 1, 1, 1, 1, 3171] to [2, 4, 1, 2, 1, 2, 1, 4096] : !lego.layout
  %l63 = lego.expand_by %l62 dims [1, 4, 1, 1, 1, 1, 1, 4031] to [2, 4, 1, 2, 1, 2, 1, 4096] : !lego.layout
  %l64 = lego.order_by(%l63) : !lego.layout
  %l65 = lego.order_by(%l64) : !lego.layout
  %l66 = lego.expand_by %l65 dims [1, 1, 1, 2, 1, 2, 1, 2267] to [2, 4, 1, 2, 1, 2, 1, 4096] : !lego.layout
  %l67 = lego.expand_by %l66 dims [1, 1, 1, 2, 1, 2, 1, 3845] to [2, 4, 1, 2, 1, 2, 1, 4096] : !lego.layout
  %l68 = lego.order_by(%l67) : !lego.layout
  %l69 = lego.order_by(%l68) : !lego.layout
  %l70 = lego.order_by(%l69) : !lego.layout
  %l71 = lego.order_by(%l70) : !lego.layout
  %l72 = lego.expand_by %l71 dims [2, 4, 1, 2, 1, 1, 1, 639] to [2, 4, 1, 2, 1, 2, 1, 4096] : !lego.layout
  %l74 = lego.order_by(%l72) : !lego.layout
  %l73 = lego.tile_by %l74 tile_dims [[2, 2, 1, 2, 1, 2, 1, 16], [1, 2, 1, 1, 1, 1, 1, 256]] : !lego.layout
  %f = lego.apply %l73(%i0, %i1, %i2, %i3, %i4, %i5, %i6, %i7, %i8, %i9, %i10, %i11, %i12, %i13, %i14, %i15) : !lego.layout
  %q75, %q76, %q77, %q78, %q79, %q80, %q81, %q82, %q83, %q84, %q85, %q86, %q87, %q88, %q89, %q90 = lego.apply_inverse %l73(%f) : !lego.layout -> index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index
  lego.assume_bounds %f ub : %i0
  return %f : index
}
