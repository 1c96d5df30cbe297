// fuzz-timeout-f84ed434b9.mlir (lego-fuzz seed 1502, case 1719) with sizes that fit.
// The sizes are shrunk so that every layout has at most 2^63 - 1 elements (issue 20; the original, kept as
// fuzz-timeout-f84ed434b9.mlir, now stops at the verifier): the gen_p dim 9223372036854775807 is now 89478480 (= 7
// · 12782640, the largest multiple of 7 that fits beside 8 · 2147483647 · 2 · 3; tiled [7] x [12782640] as
// before); the op chain, the gen_p apply/inv bodies and the symbolic sizes %c1, %n0 are unchanged, so the
// passes meet the original shape.
// Bound: 120 s of CPU (hang guard, not a timing assertion).
// RUN 1 is the original's pipeline: lego-lower folds the tile/order_by chain into the gen_p body's coordinates,
// so lego-arith-simplification gets no div/rem (0 rewrites, 0 solver calls; the original was already so just
// before issue 20). RUN 2 lowers the unfolded normal form, which leaves 19 div/rem for the simplifier: 1
// rewrite, 5 solver calls.
// CPU (debug build, /usr/bin/time, RUST_LOG=lego=debug for the counts): RUN 1 0.02 s, RUN 2 0.66 s.
// RUN: %outcome --timeout 120 --expect ok -- lego-opt %s --lego-lower | FileCheck %s
// RUN: %outcome --timeout 120 --expect ok -- lego-opt %s --lego-normalization --lego-to-arith --lego-arith-simplification | FileCheck %s
// CHECK: outcome: ok
func.func @f(%n0: index, %n1: index, %i0: index, %i1: index, %i2: index, %i3: index, %i4: index, %i5: index, %i6: index, %i7: index, %i8: index, %i9: index, %i10: index, %i11: index, %i12: index, %i13: index, %i14: index, %i15: index, %m: memref<?xf32>) -> index {
  %c1 = arith.constant 1 : index
  %g3 = lego.gen_p [%c1, 8, %n0, 2147483647, 2, 89478480, 3, %n0] apply (%a4: index, %a5: index, %a6: index, %a7: index, %a8: index, %a9: index, %a10: index, %a11: index) {
    %e12 = arith.subi %a8, %a11 : index
    %e13 = arith.subi %a4, %e12 : index
    lego.yield %e13 : index
  } inv (%x14: index) {
    %e15 = arith.ceildivui %x14, %x14 : index
    %e16 = arith.xori %e15, %x14 : index
    %e17 = arith.muli %x14, %x14 : index
    %e18 = arith.minui %e17, %x14 : index
    %e19 = arith.shli %e17, %e18 : index
    %e22 = arith.muli %e17, %e17 : index
    %e23 = arith.maxui %x14, %x14 : index
    %e24 = arith.addi %e23, %e23 : index
    %e25 = arith.shli %x14, %x14 : index
    %e26 = arith.xori %e25, %x14 : index
    %e27 = arith.maxui %x14, %x14 : index
    %e28 = arith.shrui %e27, %e27 : index
    %e29 = arith.addi %e28, %x14 : index
    %e30 = arith.minui %e28, %x14 : index
    %e31 = arith.remui %e30, %e27 : index
    %e32 = arith.xori %x14, %x14 : index
    %e33 = arith.subi %x14, %x14 : index
    %e34 = arith.shrui %e33, %x14 : index
    %e35 = arith.andi %x14, %x14 : index
    %p37 = arith.cmpi ult, %x14, %x14 : index
    %e36 = arith.select %p37, %x14, %x14 : index
    lego.yield %e16, %e22, %e26, %e31, %e32, %e34, %e35, %e36 : index, index, index, index, index, index, index, index
  } : !lego.layout
  %l38 = lego.order_by(%g3) : !lego.layout
  %l40 = lego.order_by(%l38) : !lego.layout
  %l39 = lego.tile_by %l40 tile_dims [[1, 2, 1, 1, 2, 7, 3, 1], [%c1, 4, %n0, 2147483647, 1, 12782640, 1, %n0]] : !lego.layout
  %f = lego.apply %l39(%i0, %i1, %i2, %i3, %i4, %i5, %i6, %i7, %i8, %i9, %i10, %i11, %i12, %i13, %i14, %i15) : !lego.layout
  return %f : index
}
