// A lego-fuzz finding of this round's one-hour run (seed 20261125, 51 671 runs, on the binary before the issue 20
// merges): --lego-to-llvm over 20 s of CPU (575 MiB) on a generated chain whose tile_by has a size of 2^59, so
// its layouts have far more than 2^63 - 1 elements (sizes wrapped modulo 2^64 before issue 20 item 1).
// Now the verifier rejects it at once: a located error, exit 1. Bound: 120 s (hang guard, not a timing assertion).
// RUN: %outcome --timeout 120 --expect error -- lego-opt %s --lego-to-llvm | FileCheck %s
// CHECK: outcome: error
// CHECK: fuzz-timeout-f125ce5e59-seed20261125.mlir:120:11: error: 'lego.tile_by' op has 442721857769029238784 elements, more than 2^63 - 1
// Outcome: timeout (exit status -9, 19.9 s, 20.1 s CPU, 575 MiB); found by lego-fuzz seed 20261125, case 39552 (generated)
// Signature: timeout: --lego-to-llvm
func.func @f(%n0: index, %n1: index, %i0: index, %i1: index, %i2: index, %i3: index, %i4: index, %i5: index, %i6: index, %i7: index, %i8: index, %m: memref<?xf32>) -> index {
  %c1 = arith.constant 2 : index
  %c2 = arith.constant 1048576 : index
  %l3 = lego.col [%c1, %c2, 9223372036854775807, 2] : !lego.layout
  %l4 = lego.order_by(%l3) : !lego.layout
  %l5 = lego.order_by(%l4) : !lego.layout
  %l7 = lego.order_by(%l5) : !lego.layout
  %l6 = lego.tile_by %l7 tile_dims [[1, 1, 7, 2], [%c1, %c2, 1317624576693539401, 1]] : !lego.layout
  %l8 = lego.order_by(%l6) : !lego.layout
  %l9 = lego.expand_by %l8 dims [1, 1, 2, 2, %c1, %c2, 1317624576693539401, 1] to [1, 1, 7, 2, %c1, %c2, 1317624576693539401, 1] : !lego.layout
  %l10 = lego.group_by [%n0, 2](%l9) : !lego.layout
  %l11 = lego.group_by [1, 9223372036854775807](%l10) : !lego.layout
  %l12 = lego.order_by(%l11) : !lego.layout
  %l13 = lego.order_by(%l12) : !lego.layout
  %l14 = lego.order_by(%l13) : !lego.layout
  %l15 = lego.order_by(%l14) : !lego.layout
  %l16 = lego.order_by(%l15) : !lego.layout
  %g19 = lego.gen_p [8, %n0, %n0] apply (%a20: index, %a21: index, %a22: index) {
    %e24 = arith.constant 2147483648 : index
    %e25 = arith.subi %e24, %a20 : index
    lego.yield %e25 : index
  } : !lego.layout
  %l17 = lego.order_by(%l16, %g19) : !lego.layout
  %l26 = lego.group_by [3, 32](%l17) : !lego.layout
  %l27 = lego.order_by(%l26) : !lego.layout
  %l28 = lego.group_by [2, 48](%l27) : !lego.layout
  %l30 = lego.order_by(%l28) : !lego.layout
  %l29 = lego.tile_by %l30 tile_dims [[2, 8], [1, 6]] : !lego.layout
  %l31 = lego.expand_by %l29 dims [1, 8, 1, 4] to [2, 8, 1, 6] : !lego.layout
  %l32 = lego.group_by [4, 24](%l31) : !lego.layout
  %l34 = lego.order_by(%l32) : !lego.layout
  %l33 = lego.tile_by %l34 tile_dims [[4, 3], [1, 8]] : !lego.layout
  %l35 = lego.order_by(%l33) : !lego.layout
  %l37 = lego.order_by(%l35) : !lego.layout
  %l36 = lego.tile_by %l37 tile_dims [[4, 3, 1, 2], [1, 1, 1, 4]] : !lego.layout
  %l38 = lego.order_by(%l36) : !lego.layout
  %l39 = lego.order_by(%l38) : !lego.layout
  %l40 = lego.expand_by %l39 dims [4, 2, 1, 2, 1, 1, 1, 3] to [4, 3, 1, 2, 1, 1, 1, 4] : !lego.layout
  %l41 = lego.expand_by %l40 dims [1, 3, 1, 2, 1, 1, 1, 4] to [4, 3, 1, 2, 1, 1, 1, 4] : !lego.layout
  %l42 = lego.group_by [4, 24](%l41) : !lego.layout
  %l43 = lego.group_by [3, 32](%l42) : !lego.layout
  %l44 = lego.order_by(%l43) : !lego.layout
  %l45 = lego.order_by(%l44) : !lego.layout
  %l46 = lego.expand_by %l45 dims [2, 10] to [3, 32] : !lego.layout
  %l47 = lego.group_by [3, 32](%l46) : !lego.layout
  %l48 = lego.order_by(%l47) : !lego.layout
  %l49 = lego.group_by [4, 24](%l48) : !lego.layout
  %l50 = lego.order_by(%l49) : !lego.layout
  %l51 = lego.order_by(%l50) : !lego.layout
  %l52 = lego.order_by(%l51) : !lego.layout
  %l53 = lego.order_by(%l52) : !lego.layout
  %l54 = lego.order_by(%l53) : !lego.layout
  %l55 = lego.order_by(%l54) : !lego.layout
  %l57 = lego.order_by(%l55) : !lego.layout
  %l56 = lego.tile_by %l57 tile_dims [[2, 3], [2, 8]] : !lego.layout
  %l58 = lego.order_by(%l56) : !lego.layout
  %l59 = lego.expand_by %l58 dims [2, 2, 2, 7] to [2, 3, 2, 8] : !lego.layout
  %l60 = lego.order_by(%l59) : !lego.layout
  %l61 = lego.expand_by %l60 dims [1, 2, 1, 7] to [2, 3, 2, 8] : !lego.layout
  %l62 = lego.group_by [4, 24](%l61) : !lego.layout
  %l64 = lego.order_by(%l62) : !lego.layout
  %l63 = lego.tile_by %l64 tile_dims [[2, 8], [2, 3]] : !lego.layout
  %l65 = lego.order_by(%l63) : !lego.layout
  %l66 = lego.order_by(%l65) : !lego.layout
  %l67 = lego.group_by [2, 48](%l66) : !lego.layout
  %l68 = lego.order_by(%l67) : !lego.layout
  %l70 = lego.order_by(%l68) : !lego.layout
  %l69 = lego.tile_by %l70 tile_dims [[2, 16], [1, 3]] : !lego.layout
  %l71 = lego.order_by(%l69) : !lego.layout
  %l72 = lego.expand_by %l71 dims [1, 11, 1, 3] to [2, 16, 1, 3] : !lego.layout
  %l73 = lego.group_by [16, 6](%l72) : !lego.layout
  %l74 = lego.expand_by %l73 dims [12, 1] to [16, 6] : !lego.layout
  %l75 = lego.order_by(%l74) : !lego.layout
  %l76 = lego.order_by(%l75) : !lego.layout
  %l77 = lego.expand_by %l76 dims [10, 6] to [16, 6] : !lego.layout
  %l78 = lego.order_by(%l77) : !lego.layout
  %l80 = lego.order_by(%l78) : !lego.layout
  %l79 = lego.tile_by %l80 tile_dims [[8, 3], [2, 2]] : !lego.layout
  %l81 = lego.group_by [4, 24](%l79) : !lego.layout
  %l82 = lego.group_by [4, 24](%l81) : !lego.layout
  %l83 = lego.group_by [8, 12](%l82) : !lego.layout
  %l85 = lego.order_by(%l83) : !lego.layout
  %l84 = lego.tile_by %l85 tile_dims [[4, 4], [2, 3]] : !lego.layout
  %l86 = lego.group_by [16, 6](%l84) : !lego.layout
  %l87 = lego.order_by(%l86) : !lego.layout
  %l88 = lego.order_by(%l87) : !lego.layout
  %l89 = lego.expand_by %l88 dims [8, 2] to [16, 6] : !lego.layout
  %l90 = lego.group_by [16, 6](%l89) : !lego.layout
  %l91 = lego.order_by(%l90) : !lego.layout
  %l92 = lego.order_by(%l91) : !lego.layout
  %l93 = lego.order_by(%l92) : !lego.layout
  %l95 = lego.order_by(%l93) : !lego.layout
  %l94 = lego.tile_by %l95 tile_dims [[2, 2], [8, 3]] : !lego.layout
  %l96 = lego.order_by(%l94) : !lego.layout
  %l97 = lego.order_by(%l96) : !lego.layout
  %l98 = lego.order_by(%l97) : !lego.layout
  %l100 = lego.order_by(%l98) : !lego.layout
  %l99 = lego.tile_by %l100 tile_dims [[2, 2, 2, 3], [1, 1, 4, 1]] : !lego.layout
  %l101 = lego.expand_by %l99 dims [2, 2, 2, 2, 1, 1, 2, 1] to [2, 2, 2, 3, 1, 1, 4, 1] : !lego.layout
  %l102 = lego.group_by [4, 24](%l101) : !lego.layout
  %l103 = lego.order_by(%l102) : !lego.layout
  %g106 = lego.gen_p [4611686018427387904] apply (%a107: index) {
    %e108 = arith.addi %a107, %a107 : index
    %p110 = arith.cmpi ult, %a107, %a107 : index
    %e109 = arith.select %p110, %a107, %a107 : index
    %e111 = arith.remui %e108, %e109 : index
    lego.yield %e111 : index
  } : !lego.layout
  %l104 = lego.order_by(%l103, %g106) : !lego.layout
  %l113 = lego.order_by(%l104) : !lego.layout
  %l112 = lego.tile_by %l113 tile_dims [[2, 3, 8], [2, 8, 576460752303423488]] : !lego.layout
  %l114 = lego.order_by(%l112) : !lego.layout
  %l115 = lego.order_by(%l114) : !lego.layout
  %l117 = lego.row [9223372036854775807] : !lego.layout
  %l116 = lego.order_by(%l115, %l117) : !lego.layout
  %l119 = lego.reg_p perm [0, 1] dims [5, %n0] : !lego.layout
  %l118 = lego.order_by(%l116, %l119) : !lego.layout
  %f = lego.apply %l118(%i0, %i1, %i2, %i3, %i4, %i5, %i6, %i7, %i8) : !lego.layout
  %v = lego.cast_view %m, %l118 : memref<?xf32>, !lego.layout -> !lego.view<f32>
  return %f : index
}
