// A lego-fuzz finding (bench/fuzz): over 20 s and ~1 GiB in lego-arith-simplification before the simplifier's
// deterministic work budget and Z3 resource limits. Now exit 0. Bound: 120 s (hang guard, not a timing assertion).
// RUN: %outcome --timeout 120 --expect ok -- lego-opt %s --lego-to-llvm --lego-to-llvm | FileCheck %s
// CHECK: outcome: ok
// Outcome: timeout (exit status -9, 20.1 s, 353 MiB); found by lego-fuzz seed 1502, case 3173 (generated)
// Signature: timeout: --lego-to-llvm
func.func @f(%n0: index, %i0: index, %i1: index, %i2: index, %i3: index, %i4: index, %i5: index, %i6: index, %i7: index, %i8: index, %i9: index, %i10: index, %i11: index, %m: memref<?xf32>) -> index {
  %l1 = lego.reg_p perm [2, 6, 0, 1, 7, 5, 4, 3] dims [%n0, 2147483648, 5, %n0, %n0, 2, %n0, %n0] : !lego.layout
  %l2 = lego.group_by [2, 32](%l1) : !lego.layout
  %l3 = lego.order_by(%l2) : !lego.layout
  %l4 = lego.order_by(%l3) : !lego.layout
  %l5 = lego.order_by(%l4) : !lego.layout
  %l6 = lego.expand_by %l5 dims [1, 29] to [2, 32] : !lego.layout
  %l7 = lego.group_by [8, 8](%l6) : !lego.layout
  %l8 = lego.group_by [4, 16](%l7) : !lego.layout
  %l9 = lego.expand_by %l8 dims [4, 14] to [4, 16] : !lego.layout
  %l10 = lego.order_by(%l9) : !lego.layout
  %l11 = lego.order_by(%l10) : !lego.layout
  %l12 = lego.order_by(%l11) : !lego.layout
  %l13 = lego.order_by(%l12) : !lego.layout
  %l14 = lego.order_by(%l13) : !lego.layout
  %l15 = lego.group_by [4, 16](%l14) : !lego.layout
  %l16 = lego.order_by(%l15) : !lego.layout
  %l17 = lego.order_by(%l16) : !lego.layout
  %l18 = lego.order_by(%l17) : !lego.layout
  %l19 = lego.order_by(%l18) : !lego.layout
  %l20 = lego.order_by(%l19) : !lego.layout
  %l21 = lego.order_by(%l20) : !lego.layout
  %l23 = lego.order_by(%l21) : !lego.layout
  %l22 = lego.tile_by %l23 tile_dims [[2, 2], [2, 8]] : !lego.layout
  %l24 = lego.order_by(%l22) : !lego.layout
  %l25 = lego.group_by [8, 8](%l24) : !lego.layout
  %l26 = lego.group_by [16, 4](%l25) : !lego.layout
  %l27 = lego.order_by(%l26) : !lego.layout
  %l28 = lego.order_by(%l27) : !lego.layout
  %l29 = lego.order_by(%l28) : !lego.layout
  %l30 = lego.order_by(%l29) : !lego.layout
  %l32 = lego.order_by(%l30) : !lego.layout
  %l31 = lego.tile_by %l32 tile_dims [[4, 4], [4, 1]] : !lego.layout
  %l33 = lego.expand_by %l31 dims [4, 4, 1, 1] to [4, 4, 4, 1] : !lego.layout
  %l35 = lego.order_by(%l33) : !lego.layout
  %l34 = lego.tile_by %l35 tile_dims [[2, 4, 4, 1], [2, 1, 1, 1]] : !lego.layout
  %l36 = lego.order_by(%l34) : !lego.layout
  %l37 = lego.group_by [16, 4](%l36) : !lego.layout
  %l38 = lego.expand_by %l37 dims [16, 1] to [16, 4] : !lego.layout
  %l39 = lego.group_by [2, 32](%l38) : !lego.layout
  %l40 = lego.order_by(%l39) : !lego.layout
  %l41 = lego.order_by(%l40) : !lego.layout
  %l43 = lego.order_by(%l41) : !lego.layout
  %l42 = lego.tile_by %l43 tile_dims [[2, 4], [1, 8]] : !lego.layout
  %l44 = lego.group_by [8, 8](%l42) : !lego.layout
  %l45 = lego.expand_by %l44 dims [6, 4] to [8, 8] : !lego.layout
  %l46 = lego.order_by(%l45) : !lego.layout
  %l48 = lego.row [%n0, 1, 32, %n0] : !lego.layout
  %l47 = lego.order_by(%l46, %l48) : !lego.layout
  %l49 = lego.order_by(%l47) : !lego.layout
  %l51 = lego.order_by(%l49) : !lego.layout
  %l50 = lego.tile_by %l51 tile_dims [[4, 4, 1, 1, 16, 1], [2, 2, %n0, 1, 2, %n0]] : !lego.layout
  %f = lego.apply %l50(%i0, %i1, %i2, %i3, %i4, %i5, %i6, %i7, %i8, %i9, %i10, %i11) : !lego.layout
  %q52, %q53, %q54, %q55, %q56, %q57, %q58, %q59, %q60, %q61, %q62, %q63 = lego.apply_inverse %l50(%f) : !lego.layout -> index, index, index, index, index, index, index, index, index, index, index, index
  return %f : index
}
