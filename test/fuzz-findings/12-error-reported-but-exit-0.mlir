// Finding 12: upstream lower-affine (inside lego-to-llvm) emits "modulo by non-positive value is not
// supported" without failing; lego-opt exited 0 and printed half-converted "LLVM dialect" IR. Any error
// reported by any pass is now exit status 1, with every message printed and no output. Bound: 60 s.
// RUN: %outcome --timeout 60 --expect error -- lego-opt %s --lego-to-llvm | FileCheck %s
// CHECK: outcome: error
// CHECK: 12-error-reported-but-exit-0.mlir:[[@LINE+3]]:8: error: modulo by non-positive value is not supported
// CHECK-NOT: llvm.func
func.func @f(%a: index) -> index {
  %y = affine.apply affine_map<(d0) -> (d0 mod 0)>(%a)
  return %y : index
}
