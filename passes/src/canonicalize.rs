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
//!    inverse (every point checked for small volumes, proved with Z3 otherwise; undecided → no rewrite);
//! 4. every unused pure lego op is erased (all but `check`, `assume*`, `assert*`, `load`, `store`).
//!
//! The published patterns 1–2 fire on any two ops with the same result count and 3 ignores `inv`; ours are the
//! sound versions docs/reference/passes.md asks for.

use crate::{
    external::{LegoPass, PassFailure, PassId},
    lowering::ir::{defining_op, erase, first_result, op_has_uses, replace_all_uses, Builder},
    smt_encode::{self, Encoder},
};
use lego_dialect::ops::{build_permutation_layout, constant_index_value, layout_op, walk_ops, Dim, LayoutOp, OpKind};
use lego_smt::Term;
use melior::{
    ir::{block::BlockLike, operation::OperationLike, BlockRef, OperationRef, RegionLike, RegionRef, Value},
    Context,
};

/// Volumes up to this many points are checked exhaustively; larger ones are proved with Z3.
const EXHAUSTIVE_POINTS: i64 = 1 << 14;
/// Z3 budget per inverse proof (milliseconds).
const PROOF_TIMEOUT_MS: u64 = 2_000;
/// Safety bound on sweeps; each sweep applies every pattern that matches.
const MAX_SWEEPS: usize = 32;

static ID: PassId = PassId::new();

#[derive(Clone, Default)]
pub struct Canonicalize {
    /// Upstream `canonicalize` runs next (the `canonicalize` elements of `lego-lower`): it is MLIR's greedy
    /// driver, so of the §0 clean-up only the dead-lego sweep is ours.
    followed_by_canonicalize: bool,
    lego_ops_left: bool,
}

/// The pass, ready for a pass manager.
pub fn create() -> melior::pass::Pass {
    crate::external::into_mlir_pass(Canonicalize::default(), &ID)
}

/// The pass where upstream `canonicalize` comes next, when `followed` (see [`Canonicalize`]).
pub fn create_followed_by_canonicalize(followed: bool) -> melior::pass::Pass {
    crate::external::into_mlir_pass(Canonicalize { followed_by_canonicalize: followed, lego_ops_left: true }, &ID)
}

impl LegoPass for Canonicalize {
    fn name(&self) -> &'static str {
        "lego-canonicalize"
    }

    fn description(&self) -> &'static str {
        "lego canonicalization patterns (apply∘apply_inverse, apply_inverse∘apply, gen_p → reg_p) and dead pure lego ops"
    }

    fn run(&mut self, op: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        canonicalize(op);
        // docs/reference/lowering.md §0: the greedy driver's clean-up (folding, constants uniqued/hoisted, dead ops).
        let outcome = if self.followed_by_canonicalize {
            crate::cleanup::cleanup_before_canonicalize(op.to_raw())
        } else {
            crate::cleanup::greedy_cleanup(op.to_raw())
        };
        self.lego_ops_left = outcome.lego_ops_left;
        Ok(())
    }

    fn may_leave_lego_ops(&self) -> bool {
        self.lego_ops_left
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

/// Applies the patterns under `root` to a fixed point. Returns how many rewrites (erasures included) happened.
pub fn canonicalize(root: OperationRef) -> usize {
    let handle = crate::mlir_context::ContextHandle::of(&root);
    let context = handle.get();
    let mut total = 0;
    for _ in 0..MAX_SWEEPS {
        let mut candidates = Vec::new();
        walk_ops(root, &mut |op| {
            if OpKind::of(&op).is_some() {
                candidates.push(op);
            }
        });
        let mut changed = 0;
        // Reverse IR order: users go before the ops they use, so chains of dead ops die in one sweep.
        for op in candidates.into_iter().rev() {
            let Some(kind) = OpKind::of(&op) else { continue };
            if is_pure(kind) && op.result_count() > 0 && !op_has_uses(op) {
                erase(op);
                changed += 1;
                continue;
            }
            let rewritten = match kind {
                OpKind::Apply => fold_apply_of_inverse(op),
                OpKind::ApplyInverse => fold_inverse_of_apply(op),
                OpKind::GenP => gen_p_to_reg_p(context, op),
                _ => false,
            };
            if rewritten {
                changed += 1;
            }
        }
        total += changed;
        if changed == 0 {
            break;
        }
    }
    total
}

/// Pattern 1: `apply(L, r#0, …, r#n-1)`, `r = apply_inverse(L, f)` → `f`.
fn fold_apply_of_inverse(apply: OperationRef) -> bool {
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
    tracing::debug!(target: "lego", "canonicalize: apply(apply_inverse) at {}", apply.location());
    replace_all_uses(first_result(apply), flat);
    erase(apply);
    true
}

/// Pattern 2: `apply_inverse(L, apply(L, i⃗))` → `i⃗`.
fn fold_inverse_of_apply(inverse: OperationRef) -> bool {
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
fn gen_p_to_reg_p<'c, 'a>(context: &'c Context, op: OperationRef<'c, 'a>) -> bool {
    let Ok(Some(LayoutOp::GenP { dims, apply, inverse })) = layout_op(op) else { return false };
    let Some(sizes) = dims.iter().map(Dim::known).collect::<Option<Vec<i64>>>() else { return false };
    if sizes.is_empty() || sizes.iter().any(|&size| size < 1) {
        return false;
    }
    let Some(perm) = linear_permutation(apply, &sizes) else { return false };
    if let Some(inverse) = inverse {
        if !inverse_is_exact(inverse, &perm, &sizes, op) {
            return false;
        }
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

/// Whether the `inv` region is the exact inverse of `reg_p perm dims sizes` on `[0, Π sizes)`.
fn inverse_is_exact(inverse: RegionRef, perm: &[usize], sizes: &[i64], op: OperationRef) -> bool {
    let Some(volume) = sizes.iter().try_fold(1i64, |acc, &size| acc.checked_mul(size)) else { return false };
    let x = Term::index_var("%canonicalize_flat");
    let mut encoder = Encoder::new();
    let Ok(terms) = encoder.region(inverse, std::slice::from_ref(&x), op.location()) else { return false };
    if terms.len() != sizes.len() || terms.iter().any(|term| term.width() != Some(64)) {
        return false;
    }
    // The reg_p inverse: B⁻¹(σ(n⃗), x) scattered back, result[σ_k] = phys[k].
    let physical_dims: Vec<Term> = perm.iter().map(|&p| Term::index(sizes[p] as u64)).collect();
    let physical = smt_encode::unflatten(&physical_dims, &x);
    let mut expected = vec![Term::index(0); sizes.len()];
    for (k, &p) in perm.iter().enumerate() {
        expected[p] = physical[k].clone();
    }
    if volume <= EXHAUSTIVE_POINTS {
        let Ok(program) = lego_smt::Program::new(&terms) else { return false };
        let names: Vec<String> = program.variables().iter().map(|(name, _)| name.clone()).collect();
        // Only the flat index may be free: anything else (a value from outside the region) is unknown here.
        if names.iter().any(|name| name != "%canonicalize_flat") {
            return false;
        }
        return (0..volume as u64).all(|flat| {
            let inputs: Vec<lego_smt::Value> = names.iter().map(|_| lego_smt::Value::Bits(flat)).collect();
            let evaluation = program.run(&inputs);
            let want = lego_algebra::mixed_radix_unflatten(&perm.iter().map(|&p| sizes[p] as u64).collect::<Vec<_>>(), flat);
            let mut logical = vec![0u64; sizes.len()];
            for (k, &p) in perm.iter().enumerate() {
                logical[p] = want[k];
            }
            evaluation.undefined.is_none()
                && evaluation.roots.iter().map(|value| value.bits()).eq(logical.into_iter().map(Some))
        });
    }
    let goal = Term::all(terms.iter().zip(&expected).map(|(got, want)| got.eq(want)));
    let fact = x.ult(&Term::index(volume as u64));
    let query = lego_smt::Query { goal: &goal, facts: std::slice::from_ref(&fact), observe: &[], timeout_ms: PROOF_TIMEOUT_MS };
    lego_smt::prove(&query).is_proved()
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
