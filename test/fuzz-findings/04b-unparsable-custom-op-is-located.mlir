// Finding 04, second half: wherever a custom-form lego op still reaches MLIR unrewritten, MLIR's parser
// fails without a diagnostic (the IRDL dialect has no custom parser); lego-opt reports it at the op.
// An attribute value is no place for an op, so the rewriter leaves `lego.row` alone here. Bound: 60 s.
// RUN: %outcome --timeout 60 --expect error -- lego-opt %s --allow-unregistered-dialect | FileCheck %s
// CHECK: outcome: error
// CHECK: 04b-unparsable-custom-op-is-located.mlir:[[@LINE+2]]:
func.func @f() {
  "test.op"() ({ ^bb0: %x = "test.y"() : () -> index , lego.row [4] : !lego.layout }) : () -> ()
  return
}
