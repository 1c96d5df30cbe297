//! Constant layout inputs outside the layout's domain (issue 20): `lego.apply %row48(%c9, %c0)` on `row [4, 8]`
//! has no specified result (semantics.md: out-of-range inputs are unspecified unless bounds checks are
//! requested), yet lowering folds it to a number (72). Where an input is a constant and its bound is known,
//! the mistake is certain, so it is reported at the use (docs/sizes.md, "Constant inputs"):
//! - `lego-to-arith`: a **warning**, once per op (an op copied by gen_p inlining is reported once);
//!   an **error** (the pass fails) when bounds checks were requested for the use (a `lego.assert_*` with the
//!   same operands, from `lego-generate-bounds-checks`) or when its result feeds a `lego.check`;
//! - `lego-verify`: an **error** for a use in the slice of a `lego.check`'s address (the check would be
//!   judged on an unspecified value).
//! Inputs: the indices of `apply` / `load` / `store` (against the logical dims), the flat position of
//! `apply_inverse` (against the layout's element count, for `expand_by` `Π n⃗`).

use crate::verify::bounds_checks::obligation;
use lego_dialect::ops::{constant_index_value, logical_dims, walk_ops, LayoutFactsCache, OpKind};
use melior::ir::{
    operation::OperationLike,
    OperationRef, Value,
};
use std::collections::HashSet;

/// The reason a constant input of `op` (an apply, apply_inverse, load or store) is outside its layout's
/// domain (`index 9 is outside dim 0 of size 4`), without the `'lego.<op>' op ` prefix and the severity's
/// explanation ([`UNSPECIFIED`], [`UNDER_BOUNDS_CHECKS`], [`FEEDS_CHECK`]); `None` when every constant input
/// is inside or a bound is not known.
pub fn constant_input_outside(op: OperationRef, facts: &mut LayoutFactsCache) -> Option<String> {
    let kind = OpKind::of(&op)?;
    if kind == OpKind::ApplyInverse {
        let layout = op.operand(0).ok()?;
        let flat = constant_index_value(op.operand(1).ok()?)?;
        let size = facts.codomain(layout)?;
        return (flat < 0 || flat >= size)
            .then(|| format!("flat index {flat} is outside the layout's {size} elements"));
    }
    // apply / load / store: the layout and indices its bounds obligation names.
    let (_, operands) = obligation(op)?;
    let (layout, indices) = operands.split_first()?;
    if indices.iter().all(|index| constant_index_value(*index).is_none()) {
        return None;
    }
    let dims = logical_dims(*layout)?;
    if dims.len() != indices.len() {
        return None; // the verifier's rank error
    }
    dims.iter().zip(indices).enumerate().find_map(|(position, (dim, index))| {
        let (index, size) = (constant_index_value(*index)?, dim.known()?);
        (index < 0 || index >= size)
            .then(|| format!("index {index} is outside dim {position} of size {size}"))
    })
}

/// Keys of the layout uses under `root` whose result feeds the address of a `lego.check` (its backward
/// slice, through operands of defining ops).
pub fn uses_feeding_checks(root: OperationRef) -> HashSet<usize> {
    let mut addresses = Vec::new();
    walk_ops(root, &mut |op| {
        if OpKind::of(&op) == Some(OpKind::Check) {
            addresses.extend(op.operand(0).ok());
        }
    });
    feeding(addresses)
}

fn feeding(addresses: Vec<Value>) -> HashSet<usize> {
    let mut uses = HashSet::new();
    let mut seen = HashSet::new();
    let mut pending: Vec<Value> = addresses;
    while let Some(value) = pending.pop() {
        let Some(result) = lego_dialect::ops::op_result(value) else { continue };
        let owner = result.owner();
        if !seen.insert(key(owner)) {
            continue;
        }
        if matches!(OpKind::of(&owner), Some(OpKind::Apply | OpKind::ApplyInverse | OpKind::Load)) {
            uses.insert(key(owner));
        }
        pending.extend(owner.operands());
    }
    uses
}

/// What lego-to-arith reads of the module before lowering, in one walk (each walk of a large module costs a
/// cache miss per op): the layout uses in walk order, and which of them feed a `lego.check`
/// ([`uses_feeding_checks`]) or are under requested bounds checks (there is an assert with the same operands).
pub struct Uses<'c, 'a> {
    pub uses: Vec<(OperationRef<'c, 'a>, OpKind)>,
    pub feeding_checks: HashSet<usize>,
    pub under_bounds_checks: HashSet<usize>,
}

impl<'c, 'a> Uses<'c, 'a> {
    pub fn of(root: OperationRef<'c, 'a>) -> Self {
        let mut asserts: HashSet<(OpKind, Vec<usize>)> = HashSet::new();
        let mut addresses = Vec::new();
        let mut uses = Vec::new();
        walk_ops(root, &mut |op| match OpKind::of(&op) {
            Some(kind @ (OpKind::AssertApplyBounds | OpKind::AssertInvBounds)) => {
                asserts.insert((kind, op.operands().map(value_key).collect()));
            }
            Some(kind @ (OpKind::Apply | OpKind::ApplyInverse | OpKind::Load | OpKind::Store)) => uses.push((op, kind)),
            Some(OpKind::Check) => addresses.extend(op.operand(0).ok()),
            _ => {}
        });
        let under_bounds_checks = if asserts.is_empty() {
            HashSet::new()
        } else {
            uses.iter()
                .map(|(op, _)| *op)
                .filter(|op| {
                    obligation(*op).is_some_and(|(kind, operands)| {
                        asserts.contains(&(kind, operands.into_iter().map(value_key).collect()))
                    })
                })
                .map(key)
                .collect()
        };
        Uses { uses, feeding_checks: feeding(addresses), under_bounds_checks }
    }
}

/// The explanation of the warning.
pub const UNSPECIFIED: &str = "; the result is unspecified";
/// The explanation of the error where bounds checks were requested.
pub const UNDER_BOUNDS_CHECKS: &str = "; bounds checks were requested for this use (lego-generate-bounds-checks)";
/// The explanation of the error for a use that feeds a `lego.check`.
pub const FEEDS_CHECK: &str = "; its result feeds a lego.check, which would be judged on an unspecified value";

pub fn key(op: OperationRef) -> usize {
    op.to_raw().ptr as usize
}

fn value_key(value: Value) -> usize {
    melior::ir::ValueLike::to_raw(&value).ptr as usize
}
