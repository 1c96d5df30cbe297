// Finding 08: lego-verify on a 20-deep order_by chain with a symbolic size spent 28 s and 1 GiB inside Z3 although
// timeout-ms was 10 s. Now the pass's Z3 budget bounds it (with timeout-ms=100 too); the check is refuted
// (a product of sizes can wrap to a zero divisor) or undecided: a warning located at the check, exit 0.
// Bound: `timeout` 120 s (hang guard, not a timing assertion).
// RUN: timeout 120 lego-opt %s --lego-verify -o /dev/null 2>&1 | FileCheck %s
// RUN: timeout 120 lego-opt %s --lego-verify=timeout-ms=100 -o /dev/null 2>&1 | FileCheck %s
// CHECK: 08-lego-verify-nested-order-by-ignores-timeout.mlir:{{[0-9]+}}:3: warning: {{Layout may cause shared memory bank conflicts|Bank conflict check returned unknown}}
// CHECK-NOT: error
func.func @f(%tid: index {lego.thread_id}, %n: index, %i: index) -> index {
  %l0 = lego.row [%n, 1024] : !lego.layout
  %l1 = lego.order_by(%l0) : !lego.layout
  %l2 = lego.order_by(%l1) : !lego.layout
  %l3 = lego.order_by(%l2) : !lego.layout
  %l4 = lego.order_by(%l3) : !lego.layout
  %l5 = lego.order_by(%l4) : !lego.layout
  %l6 = lego.order_by(%l5) : !lego.layout
  %l7 = lego.order_by(%l6) : !lego.layout
  %l8 = lego.order_by(%l7) : !lego.layout
  %l9 = lego.order_by(%l8) : !lego.layout
  %l10 = lego.order_by(%l9) : !lego.layout
  %l11 = lego.order_by(%l10) : !lego.layout
  %l12 = lego.order_by(%l11) : !lego.layout
  %l13 = lego.order_by(%l12) : !lego.layout
  %l14 = lego.order_by(%l13) : !lego.layout
  %l15 = lego.order_by(%l14) : !lego.layout
  %l16 = lego.order_by(%l15) : !lego.layout
  %l17 = lego.order_by(%l16) : !lego.layout
  %l18 = lego.order_by(%l17) : !lego.layout
  %l19 = lego.order_by(%l18) : !lego.layout
  %l20 = lego.order_by(%l19) : !lego.layout
  %p, %q = lego.apply_inverse %l20(%i) : !lego.layout -> index, index
  lego.check %p {bank_conflict_free, num_banks = 3 : i64, element_size = 8 : i64}
  return %p : index
}
