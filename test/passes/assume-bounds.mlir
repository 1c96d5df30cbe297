// lego-materialize-assume-bounds{clamp=true} (our form, docs/reference/lowering.md §6 last item): lego.assume /
// lego.assume_bounds facts become clamps that upstream integer range analysis understands (the identity
// whenever the fact holds); cleanup=true removes them again. The published remui form: materialize.mlir.
// RUN: lego-opt %s --lego-materialize-assume-bounds='clamp=true' | FileCheck %s --check-prefix=MAT
// RUN: lego-opt %s --pass-pipeline='builtin.module(lego-materialize-assume-bounds{clamp=true}, func.func(int-range-optimizations), lego-materialize-assume-bounds{cleanup=true clamp=true}, canonicalize)' | FileCheck %s --check-prefix=OPT
// RUN: lego-opt %s --lego-materialize-assume-bounds='clamp=true' --lego-materialize-assume-bounds='cleanup=true clamp=true' --canonicalize | FileCheck %s --check-prefix=ROUNDTRIP

// MAT-LABEL: func.func @bounds
// MAT-SAME: (%[[X:.*]]: index, %[[N:.*]]: index)
// MAT-DAG: %[[C15:.*]] = arith.constant 15 : index
// The use before the assumption keeps the unclamped value.
// MAT: arith.addi %[[X]], %{{.*}} : index
// MAT: lego.assume_bounds %[[X]] ub : %[[C16:.*]]
// The clamp's bound 16 − 1 is folded by the clean-up (a constant 15, hoisted).
// MAT: %[[XC:.*]] = arith.minui %[[X]], %[[C15]] {lego.assumed_bound} : index
// MAT: arith.cmpi ult, %[[XC]], %[[C16]] : index
// MAT: arith.divui %[[XC]], %[[C16]] : index
// MAT: lego.assume
// MAT: arith.maxui {{.*}} {lego.assumed_bound}
// MAT: %[[NC:.*]] = arith.minui %[[N]], %{{.*}} {lego.assumed_bound} : index
// MAT: arith.addi %[[NC]], %{{.*}} : index

// Upstream int-range-optimizations folds what the facts decide (x < 16: the comparison is true, x div 16 is
// 0); the cleanup then leaves no clamp and no assumption behind.
// OPT-LABEL: func.func @bounds
// OPT-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// OPT-DAG: %[[TRUE:.*]] = arith.constant true
// OPT-NOT: lego.assume
// OPT-NOT: lego.assumed_bound
// OPT-NOT: arith.minui
// OPT-NOT: arith.maxui
// OPT: return %[[ZERO]], %[[TRUE]], %{{.*}}, %{{.*}} : index, i1, index, index

// Materializing and cleaning up straight away gives back the program without its assumptions.
// ROUNDTRIP-LABEL: func.func @bounds
// ROUNDTRIP-SAME: (%[[X:.*]]: index, %[[N:.*]]: index)
// ROUNDTRIP-NOT: lego.assume
// ROUNDTRIP-NOT: minui
// ROUNDTRIP: arith.cmpi ult, %[[X]]
// ROUNDTRIP: arith.divui %[[X]]
// ROUNDTRIP: arith.addi %[[N]]
func.func @bounds(%x: index, %n: index) -> (index, i1, index, index) {
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  %early = arith.addi %x, %c1 : index
  lego.assume_bounds %x ub : %c16
  %lt = arith.cmpi ult, %x, %c16 : index
  %d = arith.divui %x, %c16 : index
  %p = arith.cmpi ult, %n, %x : index
  lego.assume %p
  %q = arith.addi %n, %c1 : index
  return %d, %lt, %q, %early : index, i1, index, index
}
