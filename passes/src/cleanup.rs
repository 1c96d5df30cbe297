//! The clean-up every lego rewrite pass ends with (docs/reference/lowering.md §0): what MLIR's greedy driver does after
//! a pattern set — fold every op that has a folder, unique constants per function and hoist them to the top of
//! its entry block (in the folder's order), erase trivially dead ops — plus erasing unused *pure lego ops*,
//! which the driver cannot see as dead (IRDL ops carry no `Pure` trait; docs/reference/lowering.md §0).
//!
//! [`greedy_cleanup`] is the one entry point: `lego-normalization`, `lego-to-arith`,
//! `lego-arith-simplification`, `lego-strength-reduction`, `lego-materialize-assume-bounds` and
//! `lego-canonicalize` call it on the op they run on.
//!
//! Cost: MLIR's driver with an empty pattern set is a worklist over the ops (each op is folded and re-queued
//! only when an operand changes), and the lego dead-op sweep is one reverse walk; both are linear in the size
//! of the module. Region simplification (block merging, dead-argument elimination) is off: the published
//! passes' clean-up leaves control flow alone and it is the one super-linear part of the driver.

use crate::simplify::ir;
use mlir_sys::MlirOperation;

/// Lego ops with side effects or obligations (docs/reference/lowering.md §0: every other lego op is pure).
fn is_effectful_lego_op(name: &str) -> bool {
    matches!(name, "lego.check" | "lego.assume" | "lego.assume_bounds" | "lego.load" | "lego.store")
        || name.starts_with("lego.assert")
}

/// Whether `op` is a lego op that may be erased when its results are unused.
pub fn is_pure_lego_op(op: MlirOperation) -> bool {
    let name = ir::op_name(op);
    name.starts_with("lego.") && !is_effectful_lego_op(name) && ir::result_count(op) > 0
}

fn unused(op: MlirOperation) -> bool {
    (0..ir::result_count(op)).all(|index| ir::result(op, index).map_or(true, |value| !ir::has_uses(value)))
}

/// Erases every unused pure lego op under `root` (not `root` itself); returns how many.
///
/// One walk in reverse IR order suffices: a value is defined before its users (same block, or an enclosing
/// one), so every user is visited — and erased if dead — before the op it uses; ops nested in a region come
/// after the op holding it in IR order, so none is visited after it went with its parent.
pub fn erase_dead_pure_lego_ops(root: MlirOperation) -> usize {
    erase_dead_pure_lego_ops_counting(root).0
}

/// [`erase_dead_pure_lego_ops`], also returning how many pure lego ops there were and how many lego ops of any
/// kind.
fn erase_dead_pure_lego_ops_counting(root: MlirOperation) -> (usize, usize, usize) {
    let mut candidates = Vec::new();
    let mut lego_ops = 0;
    ir::walk(root, &mut |op| {
        let name = ir::op_name(op);
        if name.starts_with("lego.") {
            lego_ops += 1;
            if !is_effectful_lego_op(name) && ir::result_count(op) > 0 {
                candidates.push(op);
            }
        }
    });
    let found = candidates.len();
    let mut erased = 0;
    for op in candidates.into_iter().rev() {
        if unused(op) {
            ir::erase(op);
            erased += 1;
        }
    }
    (erased, found, lego_ops)
}

/// MLIR's greedy driver with no patterns on `root`: folding, constant uniquing and hoisting, dead-op erasure.
/// Returns false when the driver did not converge (it then still leaves valid IR).
pub fn fold_greedily(root: MlirOperation) -> bool {
    // SAFETY: `root` is a live op; the pattern set and the config are created, used and destroyed here (the
    // frozen set takes ownership of the pattern set).
    unsafe {
        let context = mlir_sys::mlirOperationGetContext(root);
        let patterns = mlir_sys::mlirFreezeRewritePattern(mlir_sys::mlirRewritePatternSetCreate(context));
        let config = mlir_sys::mlirGreedyRewriteDriverConfigCreate();
        mlir_sys::mlirGreedyRewriteDriverConfigSetRegionSimplificationLevel(
            config,
            mlir_sys::MlirGreedySimplifyRegionLevel_MLIR_GREEDY_SIMPLIFY_REGION_LEVEL_DISABLED,
        );
        let result = mlir_sys::mlirApplyPatternsAndFoldGreedilyWithOp(root, patterns, config);
        mlir_sys::mlirGreedyRewriteDriverConfigDestroy(config);
        mlir_sys::mlirFrozenRewritePatternSetDestroy(patterns);
        result.value != 0
    }
}

#[cfg(not(lego_no_diagnostic_shim))]
extern "C" {
    /// csrc/fold_once.cpp: one iteration of the driver of [`fold_greedily`]; returns how many ops it created.
    fn legoFoldGreedilyOnce(root: MlirOperation) -> std::ffi::c_long;
    /// csrc/fold_once.cpp: whether `root` has one region of one block whose ops all have regions and are
    /// isolated from above (and there is at least one).
    fn legoHoldsOnlyIsolatedOps(root: MlirOperation) -> bool;
}

/// The driver's bound on iterations (`GreedyRewriteConfig`'s default, which [`fold_greedily`] keeps).
#[cfg(not(lego_no_diagnostic_shim))]
const MAX_ITERATIONS: usize = 10;

/// [`fold_greedily`], run one iteration at a time and stopped after an iteration that created no op where
/// the next would change nothing (the output is the driver's either way). The driver iterates until an
/// iteration changes nothing, up to [`MAX_ITERATIONS`]; each iteration walks every op and tries to fold it, so
/// the last one, which only confirms, costs as much as the one that did the work. With no patterns an
/// iteration has work left for the next only if it
/// - created an op: a fold's constant is materialized right before the folded op and hoisted and uniqued only
///   by the next iteration's walk (`test/passes/strength-reduction.mlir`: `remui %x, %c1` → 0), or
/// - erased an unreachable block, which needs a region of several blocks (`multi_block`): ops used only
///   there die in the next iteration.
/// Otherwise its walk met every constant and hoisted it to (or left it in) the run of uniqued constants that
/// opens its insertion block, and its worklist took back every op a change concerned (the users of a replaced
/// value, an op folded in place, the defining ops of an erased op's operands), users before the ops they use;
/// and each iteration starts afresh from the IR alone (its own worklist and constant folder). So the
/// iterations up to the first that creates nothing are the driver's iterations that change anything. With
/// several blocks, or without the C++ shim: the whole driver in one call.
///
/// A root whose body is only ops isolated from above (a module of functions) gets that loop per function:
/// the driver's worklist holds every op under the root it runs on, and its map from op to position, once
/// that is a module of many functions, outgrows the caches (issue 25: it was the part of the clean-ups that
/// grew fastest with the module). Nothing crosses a function: constants are uniqued and hoisted per
/// isolated region, and a change queues only ops of its own function; the driver run on the module works
/// through the functions one after the other in the same way (last first), and folding or erasing a
/// function op itself is never possible (no folder, not free of effects). So each function sees the same
/// iterations, and a function whose last iteration created nothing is left as the module's next iteration
/// would leave it.
fn fold_greedily_or_once(root: MlirOperation, multi_block: bool) -> bool {
    #[cfg(not(lego_no_diagnostic_shim))]
    if !multi_block {
        // SAFETY: `root` is a live op; the shim only reads its body.
        if unsafe { legoHoldsOnlyIsolatedOps(root) } {
            // Every function, converged or not (no short-circuit), last first as the module's driver does.
            return ir::child_ops(root).into_iter().rev().fold(true, |converged, function| fold_once_each(function) && converged);
        }
        return fold_once_each(root);
    }
    #[cfg(lego_no_diagnostic_shim)]
    let _ = multi_block;
    fold_greedily(root)
}

/// The driver's iterations on `root`'s regions one at a time, up to the first that created nothing.
#[cfg(not(lego_no_diagnostic_shim))]
fn fold_once_each(root: MlirOperation) -> bool {
    for _ in 0..MAX_ITERATIONS {
        // SAFETY: `root` is a live op; the shim runs one iteration of MLIR's driver on its regions.
        if unsafe { legoFoldGreedilyOnce(root) } == 0 {
            return true;
        }
    }
    // As the driver after its last iteration changed something: not converged.
    false
}

/// What a clean-up saw of the IR it left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CleanupOutcome {
    /// Whether a lego op may be left under the root. False lets the pass skip the lego dialect verifier's walk:
    /// it checks lego ops only, and neither folding nor erasing creates one.
    pub lego_ops_left: bool,
    /// Whether the clean-up certainly changed nothing (it erased nothing and did not run the greedy driver).
    pub unchanged: bool,
}

/// The §0 clean-up of a lego rewrite pass on `root` (the op the pass runs on).
pub fn greedy_cleanup(root: MlirOperation) -> CleanupOutcome {
    greedy_cleanup_listing(root).0
}

/// A lego op met by the clean-up's walk.
struct LegoEntry {
    op: MlirOperation,
    /// A pure lego op with results (may be erased when unused).
    pure: bool,
    /// One past the index of the last lego op nested in this one (entries are in walk order, so the ops nested
    /// in an op directly follow it): erasing the op destroys those entries too.
    end: usize,
    /// Not erased (neither itself nor an op holding it).
    left: bool,
}

/// [`greedy_cleanup`], also returning the lego ops it left under `root`, in IR order (the order of a walk),
/// when that needs no walk of its own: where no region has several blocks. The driver then erases no lego op
/// (an op with unknown side effects, as every lego op is for it, is never trivially dead, nor is any op
/// holding one) and moves none (it moves constants only), so the ops the clean-up's own walk met, less those
/// it erased, are exactly what a walk afterwards would meet. A pass that verifies these itself skips the lego
/// dialect verifier's walk of the module. `None` where a region has several blocks (the driver may erase
/// unreachable ones): the caller walks.
pub fn greedy_cleanup_listing(root: MlirOperation) -> (CleanupOutcome, Option<Vec<MlirOperation>>) {
    let _span = tracing::debug_span!(target: "lego", "greedy-cleanup").entered();
    let mut lego = Vec::new();
    let mut multi_block = false;
    list_lego_ops(root, &mut lego, &mut multi_block);
    let lego_ops = lego.len();
    let found = lego.iter().filter(|entry| entry.pure).count();
    let before = erase_unused(&mut lego);
    if !fold_greedily_or_once(root, multi_block) {
        tracing::debug!(target: "lego", "greedy clean-up did not converge");
    }
    // Folding can leave lego ops without users (an `apply` whose result was multiplied by 0); their operands
    // may be constants, which one more driver run then erases. Folding creates no lego op: with none left
    // before it (every pass after lego-to-arith), there is nothing to look for. Neither folding nor erasing
    // adds a block.
    let after = if found > before {
        if multi_block {
            erase_dead_pure_lego_ops(root)
        } else {
            erase_unused(&mut lego)
        }
    } else {
        0
    };
    if after > 0 {
        fold_greedily_or_once(root, multi_block);
    }
    tracing::debug!(target: "lego", "greedy clean-up erased {} dead lego ops", before + after);
    let left = (!multi_block).then(|| lego.iter().filter(|entry| entry.left).map(|entry| entry.op).collect());
    (CleanupOutcome { lego_ops_left: lego_ops > before, unchanged: false }, left)
}

/// Appends the lego ops nested in `op` (not `op`) to `lego` in walk order (parents before children, IR order);
/// sets `multi_block` when a region holds more than one block.
fn list_lego_ops(op: MlirOperation, lego: &mut Vec<LegoEntry>, multi_block: &mut bool) {
    // SAFETY: `op` is a live op; regions, blocks and ops are read, not changed, while walking.
    unsafe {
        let mut region = mlir_sys::mlirOperationGetFirstRegion(op);
        while !region.ptr.is_null() {
            let mut block = mlir_sys::mlirRegionGetFirstBlock(region);
            let mut blocks = 0;
            while !block.ptr.is_null() {
                blocks += 1;
                let mut nested = mlir_sys::mlirBlockGetFirstOperation(block);
                while !nested.ptr.is_null() {
                    let name = ir::op_name(nested);
                    if name.starts_with("lego.") {
                        let index = lego.len();
                        let pure = !is_effectful_lego_op(name) && ir::result_count(nested) > 0;
                        lego.push(LegoEntry { op: nested, pure, end: index + 1, left: true });
                        list_lego_ops(nested, lego, multi_block);
                        lego[index].end = lego.len();
                    } else {
                        list_lego_ops(nested, lego, multi_block);
                    }
                    nested = mlir_sys::mlirOperationGetNextInBlock(nested);
                }
                block = mlir_sys::mlirBlockGetNextInRegion(block);
            }
            *multi_block |= blocks > 1;
            region = mlir_sys::mlirRegionGetNextInOperation(region);
        }
    }
}

/// Erases, in reverse walk order, every pure lego op of `lego` left that has no uses (as
/// [`erase_dead_pure_lego_ops`] does: users before the ops they use); returns how many. The lego ops nested in
/// an erased one go with it.
fn erase_unused(lego: &mut [LegoEntry]) -> usize {
    let mut erased = 0;
    for index in (0..lego.len()).rev() {
        let entry = &lego[index];
        if entry.pure && entry.left && unused(entry.op) {
            ir::erase(entry.op);
            erased += 1;
            let end = entry.end;
            for nested in &mut lego[index..end] {
                nested.left = false;
            }
        }
    }
    erased
}

/// The clean-up of a pass that upstream `canonicalize` follows (`canonicalize` inside `lego-lower`): that
/// pass is MLIR's greedy driver too (folding, constants uniqued and hoisted, dead ops), so only the dead-lego
/// sweep it cannot do is ours. When a pure lego op was there, folding could leave one dead (an `apply` whose
/// result was multiplied by 0), which canonicalize would not erase: then the whole §0 clean-up runs.
pub fn cleanup_before_canonicalize(root: MlirOperation) -> CleanupOutcome {
    let _span = tracing::debug_span!(target: "lego", "dead-lego-sweep").entered();
    let (before, found, lego_ops) = erase_dead_pure_lego_ops_counting(root);
    if found > 0 {
        if !fold_greedily(root) {
            tracing::debug!(target: "lego", "greedy clean-up did not converge");
        }
        if erase_dead_pure_lego_ops(root) > 0 {
            fold_greedily(root);
        }
    }
    CleanupOutcome { lego_ops_left: lego_ops > before, unchanged: found == 0 }
}
