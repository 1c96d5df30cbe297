//! `lego-canonicalize` (docs/reference/passes.md, lego-canonicalize): the lego dialect's canonicalization patterns, which
//! upstream `canonicalize` cannot run (IRDL ops have no C++ canonicalizers or traits). `lego-opt` runs this pass
//! wherever a pipeline names `canonicalize` (see [`crate::registry`]); embedders add it by name.
//!
//! 1. `apply(L, r#0, …, r#n-1)` with `r = apply_inverse(L, f)` on the *same* layout value, index k being result
//!    k, and as many indices as results → `f`;
//! 2. `apply_inverse(L, apply(L, i⃗))` on the same layout value → `i⃗`;
//! 3. `gen_p` → `reg_p` when every dim is a known constant, the apply region yields a linear form
//!    `Σ s_j·arg_j` (only `arith.addi`, `arith.muli` by a constant, the arguments and the constant 0) whose
//!    strides are the row-major strides of a permutation (walk positions from the last with target stride 1,
//!    take the lowest-numbered unused argument with that stride), and a present `inv` region is the exact
//!    inverse ([`crate::genp_obligation`]: every point checked for small volumes, proved with Z3 otherwise;
//!    refuted or undecided → no rewrite, silently: the gen_p stays as written);
//! 4. every unused pure lego op is erased (all but `check`, `assume*`, `assert*`, `load`, `store`).
//!
//! Patterns 1 and 2 hold only if every gen_p that `L` is built from has an `inv` that inverts its `apply`, a
//! proof obligation (docs/ops/gen_p.md). With `verify-gen-p` (the default) it is discharged first
//! ([`crate::genp_obligation`]): refuted → the published `Layout is not bijective` error at the gen_p and the
//! pass fails (as `lego-lower` does on the same program, so the answer does not depend on whether this pass ran
//! first); undecided → a warning, and no fold. A piece of `L` not built by visible layout ops here (a function
//! argument, another op's result) is a bijection by the layout contract and folds, as in the published tool —
//! except that for a function argument whose call sites this pass can see, the layouts passed there are
//! checked in its place (a refuted one: the same error as `lego-lower`'s). `verify-gen-p=false` trusts every
//! inverse (the published tool's behaviour).
//!
//! The published patterns 1–2 fire on any two ops with the same result count and 3 ignores `inv`; ours are the
//! sound versions docs/reference/passes.md asks for.

use crate::{
    external::{LegoPass, PassFailure, PassId},
    genp_obligation::{self, GenPObligations, LayoutInverse},
    lowering::ir::{defining_op, erase, first_result, op_has_uses, op_name, replace_all_uses, Builder},
    lowering::views::{callee_name, same_symbol_table, symbol_name},
};
use std::collections::HashSet;
use lego_dialect::ops::{build_permutation_layout, constant_index_value, layout_op, walk_ops, Dim, LayoutOp, OpKind};
use melior::{
    ir::{
        block::BlockLike,
        operation::OperationLike,
        BlockRef, Location, OperationRef, RegionLike, RegionRef, Value, ValueLike,
    },
    Context,
};

/// Safety bound on sweeps; each sweep applies every pattern that matches.
const MAX_SWEEPS: usize = 32;

static ID: PassId = PassId::new();

#[derive(Clone)]
pub struct Canonicalize {
    /// Upstream `canonicalize` runs next (the `canonicalize` elements of `lego-lower`): it is MLIR's greedy
    /// driver, so of the §0 clean-up only the dead-lego sweep is ours.
    followed_by_canonicalize: bool,
    /// Option `verify-gen-p`: discharge the gen_p inverse obligation before patterns 1 and 2.
    verify_gen_p: bool,
    lego_ops_left: bool,
    /// The last run rewrote and erased nothing.
    unchanged: bool,
}

/// The pass, ready for a pass manager (`verify_gen_p`: the option `verify-gen-p`).
pub fn create(verify_gen_p: bool) -> melior::pass::Pass {
    crate::external::into_mlir_pass(Canonicalize { followed_by_canonicalize: false, verify_gen_p, lego_ops_left: true, unchanged: false }, &ID)
}

/// The pass where upstream `canonicalize` comes next, when `followed` (see [`Canonicalize`]).
pub fn create_followed_by_canonicalize(followed: bool, verify_gen_p: bool) -> melior::pass::Pass {
    crate::external::into_mlir_pass(Canonicalize { followed_by_canonicalize: followed, verify_gen_p, lego_ops_left: true, unchanged: false }, &ID)
}

/// The option of the rewrites that rely on a gen_p's inverse: `lego-to-arith`, `lego-lower`, and (with
/// [`VERIFY_GEN_P_CANONICALIZE`]'s text) `lego-canonicalize` and every `canonicalize` of lego-opt.
pub const VERIFY_GEN_P: crate::registry::OptionSpec = crate::registry::OptionSpec {
    name: "verify-gen-p",
    default: "true",
    description: "prove each gen_p's inv inverts its apply before an apply_inverse is computed or folded through it (refuted: located error, exit 1; undecided: warning, no fold); false trusts inv, as the published tool does",
};

/// [`VERIFY_GEN_P`] as `lego-canonicalize` lists it.
pub const VERIFY_GEN_P_CANONICALIZE: crate::registry::OptionSpec = crate::registry::OptionSpec {
    description: "prove each gen_p's inv inverts its apply before folding apply∘apply_inverse / apply_inverse∘apply (refuted: located error, exit 1; undecided: warning, no fold); false trusts inv, as the published tool does; every canonicalize takes it too",
    ..VERIFY_GEN_P
};

impl LegoPass for Canonicalize {
    fn name(&self) -> &'static str {
        "lego-canonicalize"
    }

    fn description(&self) -> &'static str {
        "lego canonicalization patterns (apply∘apply_inverse, apply_inverse∘apply, gen_p → reg_p) and dead pure lego ops"
    }

    fn run(&mut self, op: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let Sweeps { rewrites, last } = canonicalize_sweeps(op, self.verify_gen_p)?;
        // docs/reference/lowering.md §0: the greedy driver's clean-up (folding, constants uniqued/hoisted, dead ops).
        let outcome = if self.followed_by_canonicalize {
            // The last sweep changed nothing, so its walk met the lego ops a walk now would, in the same order.
            // Without a pure one among them, the clean-up's dead-lego sweep would erase nothing and run nothing
            // else: what it reports is known without walking again.
            if last.iter().any(|&kind| is_pure(kind)) {
                crate::cleanup::cleanup_before_canonicalize(op.to_raw())
            } else {
                crate::cleanup::CleanupOutcome { lego_ops_left: !last.is_empty(), unchanged: true }
            }
        } else {
            crate::cleanup::greedy_cleanup(op.to_raw())
        };
        self.lego_ops_left = outcome.lego_ops_left;
        self.unchanged = rewrites == 0 && outcome.unchanged;
        Ok(())
    }

    fn may_leave_lego_ops(&self) -> bool {
        self.lego_ops_left
    }

    fn unchanged(&self) -> bool {
        self.unchanged
    }
}

/// Whether `kind` is pure (docs/reference/lowering.md §0: every lego op except check, assume*, assert*, load, store).
pub fn is_pure(kind: OpKind) -> bool {
    !matches!(
        kind,
        OpKind::Check
            | OpKind::Assume
            | OpKind::AssumeBounds
            | OpKind::AssertApplyBounds
            | OpKind::AssertInvBounds
            | OpKind::Load
            | OpKind::Store
    )
}

/// What patterns 1 and 2 need to know before they fold: the run's gen_p verdicts.
struct Inverses<'c, 'a> {
    checker: GenPObligations<'c>,
    /// `verify-gen-p`; false: patterns 1 and 2 trust the inverse.
    verify: bool,
    /// A fold met a gen_p whose inverse is refuted (reported): the pass fails.
    refuted: bool,
    /// The pass's root: where the call sites of a function whose layout argument is folded through are looked for.
    root: OperationRef<'c, 'a>,
    /// The `func.call` ops under `root`, gathered on first need (this pass erases none).
    calls: Option<Vec<OperationRef<'c, 'a>>>,
}

impl<'c, 'a> Inverses<'c, 'a> {
    /// Whether a fold that relies on `layout`'s inverse may fire; `inverse` is the `apply_inverse` it removes.
    /// A failing obligation is reported once per gen_p.
    ///
    /// Every visible gen_p of `layout` is checked. A piece built where this pass cannot see it is a bijection by
    /// the layout contract (docs/reference/semantics.md: a `!lego.layout` is a bijection), as the published
    /// pattern assumes — but when it is an argument of a function whose call sites are under the root, the
    /// layouts passed there are checked in its place (they are what lowering will compute the inverse of), so a
    /// refuted gen_p gives the same error whether or not this pass runs before `lego-lower`.
    fn trusted(&mut self, layout: Value<'c, 'a>, inverse: Location<'c>, folded: &str) -> bool {
        if !self.verify {
            return true;
        }
        let mut pending = vec![layout];
        let mut expanded = HashSet::new();
        while let Some(value) = pending.pop() {
            let pieces = genp_obligation::layout_pieces(value);
            if let LayoutInverse::Fails(gen_p, obligation) = self.checker.visible(&pieces) {
                let consequence = format!("{folded} is not folded");
                if self.checker.report(gen_p, &obligation, inverse, genp_obligation::USED_HERE, &consequence) {
                    self.refuted = true;
                }
                return false;
            }
            for hidden in pieces.hidden {
                let Some((function, position)) = function_argument(hidden) else { continue };
                if expanded.insert((function.to_raw().ptr as usize, position)) {
                    let passed = self.passed_at_call_sites(function, position);
                    pending.extend(passed);
                }
            }
        }
        true
    }

    /// The operand `position` of every `func.call` of `function` under the root.
    fn passed_at_call_sites(&mut self, function: OperationRef<'c, 'a>, position: usize) -> Vec<Value<'c, 'a>> {
        let Some(name) = symbol_name(&function) else { return Vec::new() };
        let root = self.root;
        let calls = self.calls.get_or_insert_with(|| {
            let mut calls = Vec::new();
            walk_ops(root, &mut |op| {
                if op_name(&op) == "func.call" {
                    calls.push(op);
                }
            });
            calls
        });
        calls
            .iter()
            .filter(|call| callee_name(call).as_deref() == Some(name.as_str()) && same_symbol_table(**call, function))
            .filter_map(|call| call.operand(position).ok())
            .collect()
    }
}

/// The `func.func` whose entry block has `value` as its argument number k, and k.
fn function_argument<'c, 'a>(value: Value<'c, 'a>) -> Option<(OperationRef<'c, 'a>, usize)> {
    let argument = lego_dialect::ops::block_argument(value)?;
    // SAFETY: `value` is a live block argument; its owner block lives as long as the value (melior's `owner()`
    // ties the block to the borrow of the argument handle instead).
    let block = unsafe { BlockRef::<'c, 'a>::from_raw(mlir_sys::mlirBlockArgumentGetOwner(value.to_raw())) };
    let function = block.parent_operation()?;
    if op_name(&function) != "func.func" || function.region(0).ok()?.first_block() != Some(block) {
        return None;
    }
    Some((function, argument.argument_number()))
}

/// Applies the patterns under `root` to a fixed point. Returns how many rewrites (erasures included) happened;
/// fails when a fold met a gen_p whose inverse is refuted (`verify_gen_p`, reported at the gen_p).
pub fn canonicalize(root: OperationRef, verify_gen_p: bool) -> Result<usize, PassFailure> {
    canonicalize_sweeps(root, verify_gen_p).map(|sweeps| sweeps.rewrites)
}

/// What [`canonicalize_sweeps`] did.
struct Sweeps {
    /// Rewrites (erasures included).
    rewrites: usize,
    /// The kinds of the lego ops the last sweep met, in walk order, when it changed nothing (the fixed point);
    /// empty otherwise too (then `rewrites` counts the last sweep's changes).
    last: Vec<OpKind>,
}

/// [`canonicalize`], also telling what its last sweep met.
fn canonicalize_sweeps<'c, 'a>(root: OperationRef<'c, 'a>, verify_gen_p: bool) -> Result<Sweeps, PassFailure> {
    let handle = crate::mlir_context::ContextHandle::of(&root);
    let context = handle.get();
    // Pattern 3 always checks a gen_p's inverse (silently); patterns 1 and 2 only with verify-gen-p.
    let mut inverses = Inverses {
        checker: GenPObligations::new(genp_obligation::BUDGET_MS),
        verify: verify_gen_p,
        refuted: false,
        root,
        calls: None,
    };
    let mut total = 0;
    let mut last = Vec::new();
    for _ in 0..MAX_SWEEPS {
        let mut candidates = Vec::new();
        walk_ops(root, &mut |op| {
            if OpKind::of(&op).is_some() {
                candidates.push(op);
            }
        });
        let mut changed = 0;
        // Reverse IR order: users go before the ops they use, so chains of dead ops die in one sweep.
        let mut kinds = Vec::with_capacity(candidates.len());
        for op in candidates.into_iter().rev() {
            let Some(kind) = OpKind::of(&op) else { continue };
            kinds.push(kind);
            if is_pure(kind) && op.result_count() > 0 && !op_has_uses(op) {
                erase(op);
                changed += 1;
                continue;
            }
            let rewritten = match kind {
                OpKind::Apply => fold_apply_of_inverse(op, &mut inverses),
                OpKind::ApplyInverse => fold_inverse_of_apply(op, &mut inverses),
                OpKind::GenP => gen_p_to_reg_p(context, op, &mut inverses.checker),
                _ => false,
            };
            if rewritten {
                changed += 1;
            }
        }
        if inverses.refuted {
            lego_smt::join_background();
            return Err(PassFailure("a gen_p's inv region does not invert its apply region".into()));
        }
        total += changed;
        if changed == 0 {
            kinds.reverse();
            last = kinds;
            break;
        }
    }
    lego_smt::join_background();
    Ok(Sweeps { rewrites: total, last })
}

/// Pattern 1: `apply(L, r#0, …, r#n-1)`, `r = apply_inverse(L, f)` → `f`.
fn fold_apply_of_inverse<'c, 'a>(apply: OperationRef<'c, 'a>, inverses: &mut Inverses<'c, 'a>) -> bool {
    let operands: Vec<Value> = apply.operands().collect();
    let Some((&layout, indices)) = operands.split_first() else { return false };
    let Some(first) = indices.first() else { return false };
    let Some(inverse) = defining_op(*first) else { return false };
    if OpKind::of(&inverse) != Some(OpKind::ApplyInverse) || inverse.result_count() != indices.len() {
        return false;
    }
    let Ok(inverse_layout) = inverse.operand(0) else { return false };
    if inverse_layout != layout {
        return false;
    }
    let in_order = indices.iter().enumerate().all(|(k, index)| inverse.result(k).is_ok_and(|result| Value::from(result) == *index));
    let Ok(flat) = inverse.operand(1) else { return false };
    if !in_order || inverse.operand_count() != 2 {
        return false;
    }
    if !inverses.trusted(layout, inverse.location(), "apply(apply_inverse(y))") {
        return false;
    }
    tracing::debug!(target: "lego", "canonicalize: apply(apply_inverse) at {}", apply.location());
    replace_all_uses(first_result(apply), flat);
    erase(apply);
    true
}

/// Pattern 2: `apply_inverse(L, apply(L, i⃗))` → `i⃗`.
fn fold_inverse_of_apply<'c, 'a>(inverse: OperationRef<'c, 'a>, inverses: &mut Inverses<'c, 'a>) -> bool {
    let (Ok(layout), Ok(flat)) = (inverse.operand(0), inverse.operand(1)) else { return false };
    let Some(apply) = defining_op(flat) else { return false };
    if OpKind::of(&apply) != Some(OpKind::Apply) || inverse.operand_count() != 2 {
        return false;
    }
    let operands: Vec<Value> = apply.operands().collect();
    let Some((&apply_layout, indices)) = operands.split_first() else { return false };
    if apply_layout != layout || indices.len() != inverse.result_count() {
        return false;
    }
    if !inverses.trusted(layout, inverse.location(), "apply_inverse(apply(x))") {
        return false;
    }
    tracing::debug!(target: "lego", "canonicalize: apply_inverse(apply) at {}", inverse.location());
    for (k, index) in indices.iter().enumerate() {
        if let Ok(result) = inverse.result(k) {
            replace_all_uses(result.into(), *index);
        }
    }
    erase(inverse);
    true
}

/// Pattern 3: `gen_p` → `reg_p` (see the module doc).
fn gen_p_to_reg_p<'c, 'a>(context: &'c Context, op: OperationRef<'c, 'a>, obligations: &mut GenPObligations<'c>) -> bool {
    let Ok(Some(LayoutOp::GenP { dims, apply, inverse })) = layout_op(op) else { return false };
    let Some(sizes) = dims.iter().map(Dim::known).collect::<Option<Vec<i64>>>() else { return false };
    if sizes.is_empty() || sizes.iter().any(|&size| size < 1) {
        return false;
    }
    let Some(perm) = linear_permutation(apply, &sizes) else { return false };
    // apply is this reg_p, a bijection; a present inv that inverts it is the reg_p's inverse.
    if inverse.is_some() && !obligations.of_gen_p(op).holds() {
        return false;
    }
    let Some(b) = Builder::before(context, op) else { return false };
    let perm_i64: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
    let reg_p = b.insert(build_permutation_layout(context, op.location(), OpKind::RegP, Some(&perm_i64), &dims));
    tracing::debug!(target: "lego", "canonicalize: gen_p → reg_p perm {perm:?} at {}", op.location());
    replace_all_uses(first_result(op), first_result(reg_p));
    erase(op);
    true
}

/// The permutation whose row-major strides the apply region's linear form has, if it is one.
fn linear_permutation(apply: RegionRef, sizes: &[i64]) -> Option<Vec<usize>> {
    let block = apply.first_block()?;
    if block.next_in_region().is_some() || block.argument_count() != sizes.len() {
        return None;
    }
    let [yielded] = lego_dialect::ops::yielded_values(apply)?[..] else { return None };
    let strides = linear_form(block, yielded, 0)?;
    let rank = sizes.len();
    let mut used = vec![false; rank];
    let mut perm = vec![0; rank];
    let mut target: i64 = 1;
    for position in (0..rank).rev() {
        let j = (0..rank).find(|&j| !used[j] && strides[j] == target)?;
        used[j] = true;
        perm[position] = j;
        target = target.checked_mul(sizes[j])?;
    }
    Some(perm)
}

/// Nesting bound of the linear-form walk (a deeper expression is simply not matched).
const MAX_DEPTH: usize = 256;

/// `value` as `Σ s_j·arg_j` over `block`'s arguments: its coefficients, or `None` if it is not such a form
/// built from `addi`, `muli` by a constant, the arguments and the constant 0.
fn linear_form(block: BlockRef, value: Value, depth: usize) -> Option<Vec<i64>> {
    if depth > MAX_DEPTH {
        return None;
    }
    let rank = block.argument_count();
    for j in 0..rank {
        if block.argument(j).ok().is_some_and(|argument| Value::from(argument) == value) {
            let mut coefficients = vec![0; rank];
            coefficients[j] = 1;
            return Some(coefficients);
        }
    }
    if constant_index_value(value) == Some(0) {
        return Some(vec![0; rank]);
    }
    let op = defining_op(value)?;
    let name = crate::lowering::ir::op_name(&op);
    let (lhs, rhs) = (op.operand(0).ok()?, op.operand(1).ok()?);
    match name.as_str() {
        "arith.addi" => {
            let (a, b) = (linear_form(block, lhs, depth + 1)?, linear_form(block, rhs, depth + 1)?);
            a.iter().zip(&b).map(|(x, y)| x.checked_add(*y)).collect()
        }
        "arith.muli" => {
            let (factor, form) = match (constant_index_value(lhs), constant_index_value(rhs)) {
                (_, Some(c)) => (c, linear_form(block, lhs, depth + 1)?),
                (Some(c), None) => (c, linear_form(block, rhs, depth + 1)?),
                (None, None) => return None,
            };
            form.iter().map(|x| x.checked_mul(factor)).collect()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::is_pure;
    use lego_dialect::ops::OpKind;

    #[test]
    fn purity_follows_the_contract() {
        let impure = [
            OpKind::Check,
            OpKind::Assume,
            OpKind::AssumeBounds,
            OpKind::AssertApplyBounds,
            OpKind::AssertInvBounds,
            OpKind::Load,
            OpKind::Store,
        ];
        for kind in OpKind::ALL {
            assert_eq!(is_pure(kind), !impure.contains(&kind), "{kind:?}");
        }
    }
}
