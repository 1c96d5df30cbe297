// fuzz-timeout-a736433d25.mlir (lego-fuzz seed 1502, case 7189) with sizes that fit.
// The sizes are shrunk so that every layout has at most 2^63 - 1 elements (issue 20; the original, kept as
// fuzz-timeout-a736433d25.mlir, now stops at the verifier): the dim 1099511627776 of row/expand_by is now 6391320
// (= 2 · 3195660, the largest even size that fits beside 4294967296 · 8 · 3 · 2 · 7; tiled [2] x [3195660] as
// before); the op chain, the 4294967296 dim (tiled [65536] x [65536]) and the symbolic sizes %n0, %n1 are
// unchanged, so the passes meet the original shape.
// Bound: 120 s of CPU (hang guard, not a timing assertion).
// lego-arith-simplification does the work: 8 rewrites, 18 solver calls, 99% of the pass time. CPU (debug build,
// /usr/bin/time, RUST_LOG=lego=debug for the counts): 4.2 s (user 3.4 + sys 0.8).
// RUN: %outcome --timeout 120 --expect ok -- lego-opt %s --lego-verify=timeout-ms=2000 --lego-to-llvm --lego-arith-simplification | FileCheck %s
// CHECK: outcome: ok
func.func @f(%n0: index, %n1: index, %i0: index, %i1: index, %i2: index, %i3: index, %i4: index, %i5: index, %i6: index, %i7: index, %i8: index, %i9: index, %i10: index, %i11: index, %i12: index, %i13: index, %i14: index, %i15: index, %m: memref<?xf32>) -> index {
  %l1 = lego.row [4294967296, 6391320, 8, %n0, 3, 2, %n1, 7] : !lego.layout
  %l2 = lego.expand_by %l1 dims [4294967296, 6391320, 5, %n0, 2, 2, %n1, 3] to [4294967296, 6391320, 8, %n0, 3, 2, %n1, 7] : !lego.layout
  %l4 = lego.order_by(%l2) : !lego.layout
  %l3 = lego.tile_by %l4 tile_dims [[65536, 2, 4, 1, 3, 2, 1, 7], [65536, 3195660, 2, %n0, 1, 1, %n1, 1]] : !lego.layout
  %f = lego.apply %l3(%i0, %i1, %i2, %i3, %i4, %i5, %i6, %i7, %i8, %i9, %i10, %i11, %i12, %i13, %i14, %i15) : !lego.layout
  return %f : index
}
