// RUN: lego-opt %s --verify-diagnostics --lego-verify-bijectivity='timeout-ms=1'
// The Z3 limit is an option; a time-out is reported as "unknown" (a warning), never as proved or refuted.
// (bijectivity.mlir proves this gen_p for all sizes with the default limit.)

func.func @rev_symbolic(%n1: index, %n2: index) -> !lego.layout {
  // expected-warning @below {{bijectivity {{.*}}unknown: Z3 timed out after 1 ms}}
  %rev = lego.gen_p [%n1, %n2] apply (%i: index, %j: index) {
    %c1 = arith.constant 1 : index
    %last1 = arith.subi %n1, %c1 : index
    %last2 = arith.subi %n2, %c1 : index
    %ri = arith.subi %last1, %i : index
    %rj = arith.subi %last2, %j : index
    %row = arith.muli %ri, %n2 : index
    %f = arith.addi %row, %rj : index
    lego.yield %f : index
  } inv (%x: index) {
    %c1 = arith.constant 1 : index
    %last1 = arith.subi %n1, %c1 : index
    %last2 = arith.subi %n2, %c1 : index
    %q = arith.divui %x, %n2 : index
    %r = arith.remui %x, %n2 : index
    %i = arith.subi %last1, %q : index
    %j = arith.subi %last2, %r : index
    lego.yield %i, %j : index, index
  } : !lego.layout
  return %rev : !lego.layout
}
