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
    let _span = tracing::debug_span!(target: "lego", "greedy-cleanup").entered();
    let (before, found, lego_ops) = erase_dead_pure_lego_ops_counting(root);
    if !fold_greedily(root) {
        tracing::debug!(target: "lego", "greedy clean-up did not converge");
    }
    // Folding can leave lego ops without users (an `apply` whose result was multiplied by 0); their operands
    // may be constants, which one more driver run then erases. Folding creates no lego op: with none left
    // before it (every pass after lego-to-arith), there is nothing to look for.
    let after = if found > before { erase_dead_pure_lego_ops(root) } else { 0 };
    if after > 0 {
        fold_greedily(root);
    }
    tracing::debug!(target: "lego", "greedy clean-up erased {} dead lego ops", before + after);
    CleanupOutcome { lego_ops_left: lego_ops > before, unchanged: false }
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
