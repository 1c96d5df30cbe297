// One iteration of MLIR's greedy driver with no patterns on the regions of `root` (folding, constants uniqued
// and hoisted, dead ops erased; region simplification off), as mlirApplyPatternsAndFoldGreedilyWithOp with
// maxIterations = 1. Returns how many ops it created (constants materialized by a fold, which only the next
// iteration hoists and uniques), so the caller can tell whether a second iteration has work: the C API's
// driver config takes no listener. Moves are not creations (their previous insertion point is set).
#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace {
struct CreationCounter : mlir::RewriterBase::Listener {
  long created = 0;
  void notifyOperationInserted(mlir::Operation *op, mlir::OpBuilder::InsertPoint previous) override {
    if (!previous.isSet())
      ++created;
  }
};
} // namespace

extern "C" long legoFoldGreedilyOnce(MlirOperation root) {
  mlir::Operation *op = unwrap(root);
  mlir::FrozenRewritePatternSet patterns{mlir::RewritePatternSet(op->getContext())};
  CreationCounter counter;
  mlir::GreedyRewriteConfig config;
  config.setRegionSimplificationLevel(mlir::GreedySimplifyRegionLevel::Disabled);
  config.setMaxIterations(1);
  config.setListener(&counter);
  (void)mlir::applyPatternsGreedily(op, patterns, config);
  return counter.created;
}
