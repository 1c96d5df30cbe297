// `lego-gpu-launch-sink-index-computations` (src/targets/sink_index_computations.rs): what upstream
// `gpu-launch-sink-index-computations` does — clone the constants, `memref.dim`, `arith.select` and
// `arith.cmpi` a launch body uses from above into the body, so they do not become kernel parameters — in time
// linear in the module.
//
// Upstream sinks one launch at a time and, for every value it sinks, replaces its uses inside that launch by
// going through *all* uses of the value (replaceAllUsesInRegionWith). After lego-lower a constant is defined
// once per function and used by every launch of it, so a function of n launches costs O(n²): 16 s of a
// 60 s lego-to-nvvm run at 20 000 applications (5 000 launches), 1.3 s at 10 000.
//
// Here every launch is first given its clones exactly as upstream would (the same launches in the same order,
// the same ops chosen by the same rule, cloned in the same order to the start of the body), remembering which
// clone stands for which value in which launch; then each sunk value's uses are gone through once, in use-list
// order, and each use inside a launch that has a clone of the value is set to that clone. Upstream goes through
// the same use list per launch in the same order, and setting a use only unlinks it from one list and pushes it
// onto another, so every use list ends as upstream leaves it (what later passes iterate), not only the text.
// A launch nested in another (not produced by lego-lower; the outer body would hold the inner's clones) is left
// to upstream's own function.
//
// One difference: a clone whose location is unknown gets the location of its first user in the launch body
// (walked in IR order; else the launch's). MLIR's folder erases the location of a constant it hoists out of a
// region, so a kernel's constant that a target cannot take (a vector of f16 on Vulkan without the Float16
// capability) failed its conversion with an error no line of the user's file was named in.
#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace {
using namespace mlir;

// Ops are recognized by name, not by C++ class: in the Python extension the classes' type ids seen from this
// file are not those of the registered ops (an isa<gpu::LaunchOp> found no launch there), while names are.
bool named(Operation *op, llvm::StringRef name) { return op->getName().getStringRef() == name; }

// The launch `op` is nested in (its nearest enclosing gpu.launch), or null.
Operation *enclosingLaunch(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent; parent = parent->getParentOp())
    if (named(parent, "gpu.launch"))
      return parent;
  return nullptr;
}

// Whether this file's view of op traits is the registered ops' own: an arith.constant must be constant-like.
// Where MLIR is a shared library (the Python extension) trait type ids seen from here can differ too; then,
// and in a module without an arith.constant to ask, constant-like ops are recognized by folding (constantLike).
bool traitsAgree(Operation *top) {
  bool agree = false;
  top->walk([&](Operation *op) {
    if (!named(op, "arith.constant"))
      return WalkResult::advance();
    agree = matchPattern(op, m_Constant());
    return WalkResult::interrupt();
  });
  return agree;
}

// Whether `op`'s location is unknown (by name, for the same reason).
bool unknownLocation(Operation *op) {
  return op->getLoc()->getAbstractAttribute().getName() == "builtin.unknown_loc";
}

// A constant-like op: by its trait where that can be asked from here (`traitsAgree`), else as an op without
// operands whose one result folds to an attribute (what the trait promises).
bool constantLike(Operation *op, bool traitsAgree) {
  if (traitsAgree)
    return matchPattern(op, m_Constant());
  if (op->getNumOperands() != 0 || op->getNumResults() != 1)
    return false;
  llvm::SmallVector<OpFoldResult, 1> folded;
  return succeeded(op->fold(/*operands=*/{}, folded)) && folded.size() == 1 && isa<Attribute>(folded[0]);
}

// Upstream's rule (KernelOutlining.cpp, isLikelyAnIndexComputation).
bool isLikelyAnIndexComputation(Operation *op, bool traitsAgree) {
  return constantLike(op, traitsAgree) || named(op, "memref.dim") || named(op, "arith.select") ||
         named(op, "arith.cmpi");
}

// Upstream's extractBeneficiaryOps: whether `op` can be sunk without a new kernel parameter (each operand is
// available in the kernel, a dependency already, or made available by sinking its defining op first); the ops
// to sink are appended to `beneficiaryOps` defs first, and their results become available.
bool extractBeneficiaryOps(Operation *op, const llvm::SetVector<Value> &existingDependencies,
                           llvm::SetVector<Operation *> &beneficiaryOps, llvm::SmallPtrSetImpl<Value> &availableValues,
                           llvm::function_ref<bool(Operation *)> isSinkingBeneficiary) {
  if (beneficiaryOps.count(op))
    return true;
  if (!isSinkingBeneficiary(op))
    return false;
  for (Value operand : op->getOperands()) {
    if (availableValues.count(operand))
      continue;
    Operation *definingOp = operand.getDefiningOp();
    if ((!definingOp ||
         !extractBeneficiaryOps(definingOp, existingDependencies, beneficiaryOps, availableValues, isSinkingBeneficiary)) &&
        !existingDependencies.count(operand))
      return false;
  }
  beneficiaryOps.insert(op);
  for (Value result : op->getResults())
    availableValues.insert(result);
  return true;
}
} // namespace

// Returns false when upstream's own function failed on a nested launch (it cannot, today).
extern "C" bool legoSinkIndexComputationsIntoLaunches(MlirOperation root) {
  Operation *top = unwrap(root);
  // Post-order, as upstream's pass walks.
  llvm::SmallVector<Operation *> launches;
  top->walk([&](Operation *op) {
    if (named(op, "gpu.launch") && op->getNumRegions() == 1)
      launches.push_back(op);
  });
  bool agree = traitsAgree(top);
  auto rule = [agree](Operation *op) { return isLikelyAnIndexComputation(op, agree); };
  for (Operation *launch : launches) {
    if (enclosingLaunch(launch)) {
      for (Operation *each : launches)
        if (failed(sinkOperationsIntoLaunchOp(gpu::LaunchOp(each), rule)))
          return false;
      return true;
    }
  }
  // (sunk value, launch) → its clone in that launch; the sunk values in the order their clones were made.
  llvm::DenseMap<std::pair<Value, Operation *>, Value> cloneIn;
  llvm::SetVector<Value> sunk;
  // Per launch, its clones whose location is unknown, in the order they were made.
  llvm::SmallVector<std::pair<Operation *, llvm::SmallVector<Operation *>>> unlocated;
  for (Operation *launch : launches) {
    Region &body = launch->getRegion(0);
    llvm::SetVector<Value> candidates;
    getUsedValuesDefinedAbove(body, candidates);
    llvm::SetVector<Operation *> toBeSunk;
    llvm::SmallPtrSet<Value, 4> availableValues;
    for (Value operand : candidates)
      if (Operation *operandOp = operand.getDefiningOp())
        extractBeneficiaryOps(operandOp, candidates, toBeSunk, availableValues, rule);
    IRMapping map;
    OpBuilder builder(body);
    llvm::SmallVector<Operation *> unknown;
    for (Operation *op : toBeSunk) {
      Operation *cloned = builder.clone(*op, map);
      if (unknownLocation(cloned))
        unknown.push_back(cloned);
      for (auto [original, clone] : llvm::zip(op->getResults(), cloned->getResults())) {
        cloneIn[{original, launch}] = clone;
        sunk.insert(original);
      }
    }
    if (!unknown.empty())
      unlocated.push_back({launch, std::move(unknown)});
  }
  for (Value original : sunk) {
    llvm::SmallVector<OpOperand *> uses;
    for (OpOperand &use : original.getUses())
      uses.push_back(&use);
    for (OpOperand *use : uses) {
      Operation *launch = enclosingLaunch(use->getOwner());
      if (!launch)
        continue;
      auto found = cloneIn.find({original, launch});
      if (found != cloneIn.end())
        use->set(found->second);
    }
  }
  for (auto [launch, clones] : unlocated) {
    llvm::SmallPtrSet<Operation *, 8> left(clones.begin(), clones.end());
    launch->walk<WalkOrder::PreOrder>([&](Operation *user) {
      if (left.empty())
        return WalkResult::interrupt();
      if (unknownLocation(user))
        return WalkResult::advance();
      for (Value operand : user->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && left.erase(def))
          def->setLoc(user->getLoc());
      }
      return WalkResult::advance();
    });
    for (Operation *clone : clones)
      if (left.count(clone))
        clone->setLoc(launch->getLoc());
  }
  return true;
}
