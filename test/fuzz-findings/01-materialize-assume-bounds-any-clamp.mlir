// Finding 01: SIGSEGV in the release build on any fact lego-materialize-assume-bounds acts on (a context
// reference that outlived its owner). Must succeed. Bound: 60 s (it takes milliseconds).
// RUN: %outcome --timeout 60 --expect ok -- lego-opt %s --lego-materialize-assume-bounds | FileCheck %s
// CHECK: outcome: ok
func.func @f(%q: index) -> index {
  %c1000 = arith.constant 1000 : index
  lego.assume_bounds %q ub : %c1000
  return %q : index
}
