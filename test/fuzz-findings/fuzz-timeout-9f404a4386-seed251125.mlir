// A lego-fuzz finding (bench/fuzz, seed 251125, case 2126): `--lego-to-llvm --lego-normalization` ran 31 s of
// CPU and 408 MiB in lego-arith-simplification. A chain of single-block order_by / tile_by / group_by /
// expand_by lowers to div/mod nested as deep as the chain, a DAG (`x div 42` and `x mod 42` share `x`); the
// simplifier walked it as a tree: sample evaluation, the canonical texts that key its caches (their length
// doubled per level: gigabytes at four times this chain) and the condition texts of its log, and each Z3 side
// condition spelled out the whole nest (Z3 bit-blasts every division before its resource limit is checked).
// Now each is linear (memoized evaluation, bounded texts, divisions spelled out 2 levels deep in a query).
// The degenerate gen_p (`x - x` as a divisor) is incidental: a reg_p behaves the same.
// Bound: 120 s (hang guard, not a timing assertion).
// RUN: %outcome --timeout 120 --expect ok -- lego-opt %s --lego-to-llvm --lego-normalization | FileCheck %s
// CHECK: outcome: ok
// CHECK: llvm.func @f
//
// Growth: the marked segment repeated 8 times (a chain 8 times as long) stays well inside the bound and the
// memory limit (before: over 60 s of CPU and 2 GiB at 4 times).
// RUN: python3 %S/Inputs/repeat_segment.py %s 8 > %t.x8.mlir
// RUN: %outcome --timeout 120 --memory-mib 2048 --expect ok -- lego-opt %t.x8.mlir --lego-lower | FileCheck %s --check-prefix=LONG
// LONG: outcome: ok
// LONG-NOT: lego.
// Outcome: timeout (exit status -9, 20.6 s, 20.1 s CPU, 408 MiB); found by lego-fuzz seed 251125, case 2126 (generated)
// Signature: timeout: --lego-normalization --lego-to-llvm
func.func @f(%n0: index, %n1: index, %i0: index, %i1: index, %i2: index, %i3: index, %i4: index, %i5: index, %i6: index, %i7: index, %i8: index, %i9: index, %m: memref<?xf32>) -> index {
  %g2 = lego.gen_p [7] apply (%a3: index) {
    %e4 = arith.subi %a3, %a3 : index
    %e5 = arith.remui %a3, %e4 : index
    lego.yield %e5 : index
  } inv (%x6: index) {
    %e8 = arith.ceildivui %x6, %x6 : index
    %e9 = arith.shrui %x6, %e8 : index
    %e10 = arith.ceildivui %e9, %e8 : index
    %e11 = arith.divui %x6, %e10 : index
    lego.yield %e11 : index
  } : !lego.layout
  %l12 = lego.order_by(%g2) : !lego.layout
  %l14 = lego.order_by(%l12) : !lego.layout
  %l13 = lego.tile_by %l14 tile_dims [[7], [1]] : !lego.layout
  %l15 = lego.order_by(%l13) : !lego.layout
  %l16 = lego.order_by(%l15) : !lego.layout
  %l17 = lego.order_by(%l16) : !lego.layout
  %l18 = lego.order_by(%l17) : !lego.layout
  %l19 = lego.group_by [7, 1](%l18) : !lego.layout
  %l20 = lego.order_by(%l19) : !lego.layout
  %l21 = lego.order_by(%l20) : !lego.layout
  %l23 = lego.order_by(%l21) : !lego.layout
  %l22 = lego.tile_by %l23 tile_dims [[7, 1], [1, 1]] : !lego.layout
  %l24 = lego.order_by(%l22) : !lego.layout
  %l25 = lego.expand_by %l24 dims [1, 1, 1, 1] to [7, 1, 1, 1] : !lego.layout
  %l26 = lego.order_by(%l25) : !lego.layout
  %l27 = lego.order_by(%l26) : !lego.layout
  %l28 = lego.expand_by %l27 dims [4, 1, 1, 1] to [7, 1, 1, 1] : !lego.layout
  %l29 = lego.group_by [7, 1](%l28) : !lego.layout
  %l30 = lego.order_by(%l29) : !lego.layout
  %l31 = lego.expand_by %l30 dims [4, 1] to [7, 1] : !lego.layout
  %l32 = lego.group_by [7, 1](%l31) : !lego.layout
  %l33 = lego.order_by(%l32) : !lego.layout
  %l34 = lego.order_by(%l33) : !lego.layout
  %l35 = lego.order_by(%l34) : !lego.layout
  %l36 = lego.group_by [7, 1](%l35) : !lego.layout
  %l37 = lego.order_by(%l36) : !lego.layout
  %l38 = lego.order_by(%l37) : !lego.layout
  %l39 = lego.group_by [7, 1](%l38) : !lego.layout
  %l40 = lego.expand_by %l39 dims [1, 1] to [7, 1] : !lego.layout
  %l41 = lego.order_by(%l40) : !lego.layout
  %l42 = lego.order_by(%l41) : !lego.layout
  %l43 = lego.expand_by %l42 dims [2, 1] to [7, 1] : !lego.layout
  %l44 = lego.order_by(%l43) : !lego.layout
  %l45 = lego.order_by(%l44) : !lego.layout
  %l46 = lego.order_by(%l45) : !lego.layout
  %l47 = lego.order_by(%l46) : !lego.layout
  %l48 = lego.order_by(%l47) : !lego.layout
  %l50 = lego.order_by(%l48) : !lego.layout
  %l49 = lego.tile_by %l50 tile_dims [[7, 1], [1, 1]] : !lego.layout
  %l51 = lego.group_by [7, 1](%l49) : !lego.layout
  %l52 = lego.order_by(%l51) : !lego.layout
  %l54 = lego.order_by(%l52) : !lego.layout
  %l53 = lego.tile_by %l54 tile_dims [[7, 1], [1, 1]] : !lego.layout
  %l55 = lego.group_by [7, 1](%l53) : !lego.layout
  %l56 = lego.order_by(%l55) : !lego.layout
  %l57 = lego.order_by(%l56) : !lego.layout
  %l58 = lego.group_by [7, 1](%l57) : !lego.layout
  %l59 = lego.order_by(%l58) : !lego.layout
  %l60 = lego.expand_by %l59 dims [6, 1] to [7, 1] : !lego.layout
  %l61 = lego.order_by(%l60) : !lego.layout
  %l63 = lego.col [%n0, 5] : !lego.layout
  %l62 = lego.order_by(%l61, %l63) : !lego.layout
  %l64 = lego.order_by(%l62) : !lego.layout
  // segment-begin (repeated by Inputs/repeat_segment.py)
  %l65 = lego.group_by [4, 3](%l64) : !lego.layout
  %l66 = lego.order_by(%l65) : !lego.layout
  %l67 = lego.order_by(%l66) : !lego.layout
  %l69 = lego.order_by(%l67) : !lego.layout
  %l68 = lego.tile_by %l69 tile_dims [[2, 3], [2, 1]] : !lego.layout
  %l70 = lego.group_by [4, 3](%l68) : !lego.layout
  %l71 = lego.expand_by %l70 dims [3, 1] to [4, 3] : !lego.layout
  %l72 = lego.expand_by %l71 dims [3, 1] to [4, 3] : !lego.layout
  %l73 = lego.order_by(%l72) : !lego.layout
  %l74 = lego.expand_by %l73 dims [3, 2] to [4, 3] : !lego.layout
  %l75 = lego.order_by(%l74) : !lego.layout
  %l76 = lego.order_by(%l75) : !lego.layout
  %l77 = lego.order_by(%l76) : !lego.layout
  %l78 = lego.order_by(%l77) : !lego.layout
  %l79 = lego.group_by [2, 6](%l78) : !lego.layout
  %l81 = lego.order_by(%l79) : !lego.layout
  %l80 = lego.tile_by %l81 tile_dims [[2, 3], [1, 2]] : !lego.layout
  %l82 = lego.expand_by %l80 dims [2, 1, 1, 2] to [2, 3, 1, 2] : !lego.layout
  %l83 = lego.order_by(%l82) : !lego.layout
  %l84 = lego.group_by [2, 6](%l83) : !lego.layout
  %l86 = lego.order_by(%l84) : !lego.layout
  %l85 = lego.tile_by %l86 tile_dims [[2, 2], [1, 3]] : !lego.layout
  %l87 = lego.order_by(%l85) : !lego.layout
  %l88 = lego.order_by(%l87) : !lego.layout
  %l89 = lego.expand_by %l88 dims [1, 1, 1, 3] to [2, 2, 1, 3] : !lego.layout
  %l91 = lego.order_by(%l89) : !lego.layout
  %l90 = lego.tile_by %l91 tile_dims [[2, 2, 1, 3], [1, 1, 1, 1]] : !lego.layout
  %l92 = lego.expand_by %l90 dims [1, 2, 1, 1, 1, 1, 1, 1] to [2, 2, 1, 3, 1, 1, 1, 1] : !lego.layout
  %l93 = lego.order_by(%l92) : !lego.layout
  %l94 = lego.group_by [4, 3](%l93) : !lego.layout
  %l95 = lego.group_by [3, 4](%l94) : !lego.layout
  %l96 = lego.expand_by %l95 dims [3, 3] to [3, 4] : !lego.layout
  %l97 = lego.order_by(%l96) : !lego.layout
  %l98 = lego.order_by(%l97) : !lego.layout
  %l99 = lego.order_by(%l98) : !lego.layout
  %l100 = lego.order_by(%l99) : !lego.layout
  %l101 = lego.order_by(%l100) : !lego.layout
  // segment-end
  %l103 = lego.reg_p perm [0] dims [7] : !lego.layout
  %l102 = lego.order_by(%l101, %l103) : !lego.layout
  %l104 = lego.order_by(%l102) : !lego.layout
  %l105 = lego.expand_by %l104 dims [1, 3, 1] to [3, 4, 7] : !lego.layout
  %l106 = lego.group_by [2, 42](%l105) : !lego.layout
  %l107 = lego.order_by(%l106) : !lego.layout
  %l108 = lego.order_by(%l107) : !lego.layout
  %l109 = lego.order_by(%l108) : !lego.layout
  %l111 = lego.order_by(%l109) : !lego.layout
  %l110 = lego.tile_by %l111 tile_dims [[2, 2], [1, 21]] : !lego.layout
  %l112 = lego.group_by [2, 42](%l110) : !lego.layout
  %l114 = lego.order_by(%l112) : !lego.layout
  %l113 = lego.tile_by %l114 tile_dims [[2, 7], [1, 6]] : !lego.layout
  %l115 = lego.expand_by %l113 dims [1, 2, 1, 6] to [2, 7, 1, 6] : !lego.layout
  %l116 = lego.group_by [4, 21](%l115) : !lego.layout
  %l117 = lego.order_by(%l116) : !lego.layout
  %l118 = lego.order_by(%l117) : !lego.layout
  %l119 = lego.order_by(%l118) : !lego.layout
  %l120 = lego.order_by(%l119) : !lego.layout
  %l121 = lego.order_by(%l120) : !lego.layout
  %l122 = lego.group_by [4, 21](%l121) : !lego.layout
  %l123 = lego.order_by(%l122) : !lego.layout
  %l125 = lego.order_by(%l123) : !lego.layout
  %l124 = lego.tile_by %l125 tile_dims [[2, 3], [2, 7]] : !lego.layout
  %l126 = lego.order_by(%l124) : !lego.layout
  %l127 = lego.order_by(%l126) : !lego.layout
  %l128 = lego.group_by [3, 28](%l127) : !lego.layout
  %c130 = arith.constant 1 : index
  %l131 = lego.reg_p perm [0] dims [%c130] : !lego.layout
  %l129 = lego.order_by(%l128, %l131) : !lego.layout
  %l133 = lego.row [32, 5] : !lego.layout
  %l132 = lego.order_by(%l129, %l133) : !lego.layout
  %l134 = lego.expand_by %l132 dims [1, 1, %c130, 31, 4] to [3, 28, %c130, 32, 5] : !lego.layout
  %l135 = lego.order_by(%l134) : !lego.layout
  %l136 = lego.order_by(%l135) : !lego.layout
  %l138 = lego.order_by(%l136) : !lego.layout
  %l137 = lego.tile_by %l138 tile_dims [[3, 7, 1, 2, 5], [1, 4, %c130, 16, 1]] : !lego.layout
  %f = lego.apply %l137(%i0, %i1, %i2, %i3, %i4, %i5, %i6, %i7, %i8, %i9) : !lego.layout
  return %f : index
}
