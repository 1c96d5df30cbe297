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

// Whether the body of `root` is one block of ops isolated from above, each with regions (functions, modules):
// the clean-up then runs its driver per op (cleanup.rs, fold_greedily_or_once). The C API has no trait query.
extern "C" bool legoHoldsOnlyIsolatedOps(MlirOperation root) {
  mlir::Operation *op = unwrap(root);
  if (op->getNumRegions() != 1 || !op->getRegion(0).hasOneBlock())
    return false;
  mlir::Block &body = op->getRegion(0).front();
  if (body.empty())
    return false;
  for (mlir::Operation &child : body)
    if (child.getNumRegions() == 0 || !child.hasTrait<mlir::OpTrait::IsIsolatedFromAbove>())
      return false;
  return true;
}
