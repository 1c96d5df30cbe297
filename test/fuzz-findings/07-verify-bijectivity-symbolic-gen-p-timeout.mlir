// Finding 07: lego-verify-bijectivity on a gen_p of symbolic size took 24.6 s with the default options
// (timeout-ms bounded each Z3 call: one symbolic attempt plus 16 per-size proofs). timeout-ms now bounds the
// whole pass: about 10 s by default, about 1 s with timeout-ms=1000, then an `unknown` warning located at the
// gen_p, exit 0. Bound checked by `timeout` (a hang guard, not a timing assertion): 120 s and 60 s.
// RUN: timeout 120 lego-opt %s --lego-verify-bijectivity -o /dev/null 2>&1 | FileCheck %s
// RUN: timeout 60 lego-opt %s --lego-verify-bijectivity=timeout-ms=1000 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHORT
// CHECK: 07-verify-bijectivity-symbolic-gen-p-timeout.mlir:[[@LINE+6]]:8: warning: bijectivity unknown:
// CHECK-NOT: error
// SHORT: 07-verify-bijectivity-symbolic-gen-p-timeout.mlir:[[@LINE+4]]:8: warning: bijectivity unknown:
// SHORT-SAME: {{after (999|1000) ms}}
// SHORT-NOT: error
func.func @f(%n: index) -> !lego.layout {
  %l = lego.gen_p [%n, 7] apply (%a: index, %b: index) {
    %c7 = arith.constant 7 : index
    %m = arith.muli %a, %c7 : index
    %s = arith.addi %m, %b : index
    lego.yield %s : index
  } inv (%x: index) {
    %c7 = arith.constant 7 : index
    %r = arith.remsi %x, %c7 : index
    %q = arith.divui %x, %c7 : index
    lego.yield %q, %r : index, index
  } : !lego.layout
  return %l : !lego.layout
}
