// `canonicalize` as lego-lower runs it (passes/src/registry.rs): upstream's Canonicalizer — the same patterns
// (every loaded dialect's and registered op's canonicalization patterns), the same greedy driver with the same
// configuration (top-down, at most 10 iterations, folding and constant CSE, region simplification `normal`) —
// except that the region simplification after an iteration (mlir::simplifyRegions: erase unreachable blocks,
// region DCE) is skipped when it provably finds nothing, which on lego-lower's IR is most iterations (its
// liveness propagation walks the whole module at least twice per iteration: 3-5 % of a lego-lower run).
//
// The driver's iteration is: erase unreachable blocks; fold / rewrite the worklist (every op); then, at level
// `normal`, simplifyRegions; repeat while any of them changed the IR. Here the driver runs one iteration at a
// time (maxIterations = 1, level `disabled`: it then does exactly the first two steps; the driver keeps no state
// between iterations), and simplifyRegions is called after it unless it cannot change anything:
// - every region had at most one block when the pass started and no block was inserted since: no block is
//   unreachable, and region DCE has no block argument or successor operand to drop;
// - region DCE erases an op only if it is free of memory effects, has no region, no successor and no live user;
//   with single-block regions and no use-def cycle such a set of ops contains one without uses, which the
//   driver erases itself as trivially dead — unless it is a symbol (the driver keeps symbols), so the pass
//   starts with none such, creates none, and no op with results sits in a graph region (the only place for a
//   use-def cycle) at the start;
// - an op that lost its last use during the iteration was put back on the worklist by the driver when that
//   user was erased (the driver re-queues the operands of each erased op); the only other ways to lose a use
//   are an op modified in place (an operand replaced) and a replaced op left in place. The listener below
//   counts, for each replacement (RewriterBase::replaceAllOpUsesWith, which replaceOp calls before erasing the
//   op), the one in-place modification per use of the replaced op's results that redirects it; any other
//   in-place modification, a replaced op not erased by the end of the iteration, a symbol op created or a
//   block inserted makes the iteration be followed by simplifyRegions, as upstream does.
#include "mlir/CAPI/Pass.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace {
using namespace mlir;

/// Watches one driver iteration for the changes after which simplifyRegions may find something.
struct RegionSimplificationWatch : RewriterBase::Listener {
  /// An op was modified in place other than by redirecting a replaced op's uses (an operand may have been
  /// dropped), or a symbol op was created.
  bool modified = false;
  /// A block was inserted: from now on simplifyRegions runs after every iteration.
  bool blocksInserted = false;
  /// In-place modifications still to come from the replacement in progress: RewriterBase::replaceAllOpUsesWith
  /// announces the replaced op, then modifies each use of its results once.
  size_t redirects = 0;
  /// Replaced ops not erased yet (replaceAllOpUsesWith alone leaves its op, now unused, for region DCE).
  llvm::SmallPtrSet<Operation *, 4> replaced;

  void reset() {
    modified = false;
    redirects = 0;
    replaced.clear();
  }
  /// Whether simplifyRegions may change something after the iteration.
  bool simplificationNeeded() const { return modified || blocksInserted || redirects != 0 || !replaced.empty(); }

  void notifyOperationModified(Operation *) override {
    if (redirects != 0)
      --redirects;
    else
      modified = true;
  }
  void notifyOperationReplaced(Operation *op, ValueRange) override {
    if (redirects != 0)
      modified = true;
    redirects = 0;
    for (Value result : op->getResults())
      redirects += std::distance(result.use_begin(), result.use_end());
    replaced.insert(op);
  }
  void notifyOperationErased(Operation *op) override { replaced.erase(op); }
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    if (isa<SymbolOpInterface>(op))
      modified = true;
  }
  void notifyBlockInserted(Block *, Region *, Region::iterator) override { blocksInserted = true; }
};

/// Whether the IR under `region` meets the conditions above: at most one block per region, no symbol op
/// that region DCE could erase, no op with results in a graph region.
bool simpleRegions(Region &region) {
  if (region.empty())
    return true;
  if (!region.hasOneBlock())
    return false;
  bool graph = mayBeGraphRegion(region);
  for (Operation &op : region.front()) {
    if (graph && op.getNumResults() != 0)
      return false;
    if (op.getNumRegions() == 0) {
      if (isa<SymbolOpInterface>(op) && isMemoryEffectFree(&op))
        return false;
      continue;
    }
    for (Region &nested : op.getRegions())
      if (!simpleRegions(nested))
        return false;
  }
  return true;
}

struct LazyRegionCanonicalizer : PassWrapper<LazyRegionCanonicalizer, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LazyRegionCanonicalizer)

  StringRef getArgument() const override { return "canonicalize"; }
  StringRef getName() const override { return "Canonicalizer"; }
  StringRef getDescription() const override {
    return "Canonicalize operations (upstream's patterns and driver; region simplification only where it can change something)";
  }

  LogicalResult initialize(MLIRContext *context) override {
    // As upstream's Canonicalizer::initialize.
    RewritePatternSet owningPatterns(context);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(owningPatterns);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(owningPatterns, context);
    patterns = std::make_shared<FrozenRewritePatternSet>(std::move(owningPatterns));
    return success();
  }

  void runOnOperation() override {
    // Upstream's defaults: top-down, 10 iterations, no rewrite limit, folding and constant CSE on.
    constexpr int64_t maxIterations = 10;
    bool anyChange = false;
    for (Region &region : getOperation()->getRegions()) {
      GreedyRewriteConfig config;
      config.setUseTopDownTraversal(true);
      config.setMaxNumRewrites(GreedyRewriteConfig::kNoLimit);
      if (!simpleRegions(region)) {
        // Exactly upstream's run.
        config.setMaxIterations(maxIterations);
        config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Normal);
        bool regionChanged = false;
        (void)applyPatternsGreedily(region, *patterns, config, &regionChanged);
        anyChange |= regionChanged;
        continue;
      }
      RegionSimplificationWatch watch;
      config.setMaxIterations(1);
      config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
      config.setListener(&watch);
      IRRewriter rewriter(&getContext());
      for (int64_t iteration = 0; iteration < maxIterations; ++iteration) {
        watch.reset();
        // One iteration; it fails to converge exactly when it changed the IR.
        bool changed = failed(applyPatternsGreedily(region, *patterns, config));
        if (watch.simplificationNeeded())
          changed |= succeeded(simplifyRegions(rewriter, region, /*mergeBlocks=*/false));
        anyChange |= changed;
        if (!changed)
          break;
      }
    }
    // As upstream's CSE does: IR left as it was need not be verified again. (Not per function: the driver's
    // set-up, which orders every pattern, would then be paid once per function.)
    if (!anyChange)
      markAllAnalysesPreserved();
  }

  std::shared_ptr<const FrozenRewritePatternSet> patterns;
};
} // namespace

extern "C" MlirPass legoCreateLazyRegionCanonicalizer() { return wrap(static_cast<Pass *>(new LazyRegionCanonicalizer())); }
