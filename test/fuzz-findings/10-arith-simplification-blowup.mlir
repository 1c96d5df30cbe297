// Finding 10: lego-arith-simplification took 14-31 s and 750 MiB under load (side conditions decided by a 300 ms
// wall-clock Z3 limit). Now decided by Z3's deterministic resource limit, with no bit-blasting of more symbolic
// products than that limit can pay for: exit 0, the same output on every run. Bound: `timeout` 120 s (hang
// guard, not a timing assertion).
// RUN: timeout 120 lego-opt %s --lego-arith-simplification > %t.1 2>&1
// RUN: timeout 120 lego-opt %s --lego-arith-simplification > %t.2 2>&1
// RUN: diff %t.1 %t.2
// RUN: FileCheck %s < %t.1
// CHECK: func.func @f
// CHECK-NOT: warning
// CHECK-NOT: error
func.func @f(%a0: index, %a1: index, %a2: index, %x: index, %y: index, %z: index) -> index {
  %0 = arith.muli %a0, %a1 : index
  %c = arith.constant -362838837166080 : index
  %1 = arith.muli %0, %c : index
  %c33 = arith.constant 33 : index
  %2 = arith.muli %a0, %c33 : index
  %3 = arith.muli %a2, %a0 : index
  %4 = arith.muli %3, %a2 : index
  %c2048 = arith.constant 2048 : index
  %5 = arith.muli %4, %c2048 : index
  %11 = affine.linearize_index disjoint [%x, %y, %z] by (%1, %2, %5) : index
  %12 = affine.apply affine_map<()[s0, s1] -> (s0 * s1)>()[%a0, %a2]
  %13 = affine.apply affine_map<()[s0, s1] -> ((s0 * s1) * 264)>()[%a0, %a2]
  %14:8 = affine.delinearize_index %11 into (5, 1099511627776, 9223372036854775807, %13, 16, 32, %12) : index, index, index, index, index, index, index, index
  %15 = affine.linearize_index [%14#0, %14#1, %14#2, %14#3, %14#4, %14#5, %14#6, %14#7] by (4, 1099511627776, 1, %13, 15, 1, %12) : index
  return %15 : index
}
