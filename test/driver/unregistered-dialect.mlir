// RUN: not lego-opt %s 2>&1 | FileCheck %s --check-prefix=REJECT
// RUN: lego-opt %s --allow-unregistered-dialect | FileCheck %s --check-prefix=ACCEPT

// REJECT: unregistered-dialect.mlir:[[# @LINE + 3]]:22: error: operation being parsed with an unregistered dialect
// ACCEPT: "mydialect.op"() : () -> index
func.func @f() -> index {
  %x = "mydialect.op"() : () -> index
  return %x : index
}
