// fuzz-timeout-e5e5eeea1b.mlir (lego-fuzz seed 1503, case 8115) with sizes that fit.
// The sizes are shrunk so that every layout has at most 2^63 - 1 elements (issue 20; the original, kept as
// fuzz-timeout-e5e5eeea1b.mlir, now stops at the verifier): the gen_p dim 1099511627776 is now 9586980 (= 2 ·
// 4793490, the largest even size that fits beside 7 · 2147483647 · 32 · 2; tiled [2] x [4793490] as before); the
// op chain, the gen_p body (shli), the symbolic sizes %n0 and the cast_view are unchanged, so the passes meet
// the original shape.
// Bound: 120 s of CPU (hang guard, not a timing assertion).
// RUN 1 is the original's pipeline: lego-lower folds the chain into the gen_p body's coordinates, so
// lego-arith-simplification gets no div/rem (0 rewrites, 0 solver calls; the original was already so just
// before issue 20). RUN 2 lowers the unfolded normal form: 3 rewrites, 7 solver calls.
// CPU (debug build, /usr/bin/time, RUST_LOG=lego=debug for the counts): RUN 1 0.02 s, RUN 2 1.03 s.
// RUN: %outcome --timeout 120 --expect ok -- lego-opt %s --lego-lower --lego-to-llvm | FileCheck %s
// RUN: %outcome --timeout 120 --expect ok -- lego-opt %s --lego-normalization --lego-to-arith --lego-arith-simplification | FileCheck %s
// CHECK: outcome: ok
func.func @f(%n0: index, %i0: index, %i1: index, %i2: index, %i3: index, %i4: index, %i5: index, %i6: index, %i7: index, %i8: index, %i9: index, %i10: index, %i11: index, %i12: index, %i13: index, %i14: index, %i15: index, %m: memref<?xf32>) -> index {
  %g2 = lego.gen_p [7, 2147483647, 32, 9586980, 2, %n0, %n0, 1] apply (%a3: index, %a4: index, %a5: index, %a6: index, %a7: index, %a8: index, %a9: index, %a10: index) {
    %e11 = arith.shli %a3, %a7 : index
    lego.yield %e11 : index
  } : !lego.layout
  %l12 = lego.order_by(%g2) : !lego.layout
  %l13 = lego.order_by(%l12) : !lego.layout
  %l15 = lego.order_by(%l13) : !lego.layout
  %l14 = lego.tile_by %l15 tile_dims [[7, 1, 16, 2, 2, 1, 1, 1], [1, 2147483647, 2, 4793490, 1, %n0, %n0, 1]] : !lego.layout
  %f = lego.apply %l14(%i0, %i1, %i2, %i3, %i4, %i5, %i6, %i7, %i8, %i9, %i10, %i11, %i12, %i13, %i14, %i15) : !lego.layout
  %v = lego.cast_view %m, %l14 : memref<?xf32>, !lego.layout -> !lego.view<f32>
  return %f : index
}
