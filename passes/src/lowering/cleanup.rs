//! Erasing layout constructors and `cast_view`s that lowering left without uses (upstream canonicalization
//! does not erase IRDL ops: they have no `Pure` trait), and reporting lego ops that cannot be lowered.

use super::ir::{erase, op_has_uses, op_name, users, Located};
use lego_dialect::ops::{walk_ops, OpKind};
use melior::ir::{operation::OperationLike, OperationRef};

/// The §0 clean-up ([`crate::cleanup::greedy_cleanup`]) of a pass on `root`, returning the lego ops it left
/// with their kinds, in walk order, when the clean-up could list them without a walk of its own
/// ([`crate::cleanup::greedy_cleanup_listing`]); `None` otherwise.
pub fn cleanup_listing<'c, 'a>(root: OperationRef<'c, 'a>) -> Option<Vec<(OperationRef<'c, 'a>, OpKind)>> {
    let (_, left) = crate::cleanup::greedy_cleanup_listing(root.to_raw());
    Some(
        left?
            .into_iter()
            .filter_map(|raw| {
                // SAFETY: the clean-up listed ops under `root` that it left in place (live as long as `root`).
                let op = unsafe { OperationRef::from_raw(raw) };
                OpKind::of(&op).map(|kind| (op, kind))
            })
            .collect(),
    )
}

fn is_layout_value_op(kind: OpKind) -> bool {
    kind.is_layout_constructor() || kind == OpKind::CastView
}

/// Erases unused layout constructors and `cast_view`s under `root` except those in `keep` (op keys),
/// repeatedly, so chains die from their last user up. Returns how many were erased.
pub fn erase_dead_layout_ops(root: OperationRef, keep: &std::collections::HashSet<usize>) -> usize {
    let mut erased = 0;
    loop {
        let mut candidates = Vec::new();
        walk_ops(root, &mut |op| {
            if OpKind::of(&op).is_some_and(is_layout_value_op) && !keep.contains(&super::ir::op_key(op)) {
                candidates.push(op);
            }
        });
        // Reverse IR order: users before the ops they use; nested ops before the op holding them.
        let mut changed = false;
        for op in candidates.into_iter().rev() {
            if !op_has_uses(op) {
                erase(op);
                erased += 1;
                changed = true;
            }
        }
        if !changed {
            return erased;
        }
    }
}

/// After lowering: every lego op left must be a check / assume / assert op, or a layout feeding one.
/// Reports each other one (with the op that keeps it alive). Returns whether all is well.
///
/// `lego_ops`: every lego op under the root with its kind, in walk order.
pub fn report_leftovers(lego_ops: &[(OperationRef, OpKind)]) -> bool {
    let mut ok = true;
    for &(op, kind) in lego_ops {
        if !is_layout_value_op(kind) {
            if matches!(kind, OpKind::Apply | OpKind::ApplyInverse | OpKind::Load | OpKind::Store) {
                Located::new(op.location(), format!("'{}' op was not lowered", kind.name())).emit();
                ok = false;
            }
            continue;
        }
        for result in op.results() {
            for user in users(result.into()) {
                let allowed = OpKind::of(&user).is_some_and(|user_kind| {
                    is_layout_value_op(user_kind)
                        || matches!(user_kind, OpKind::AssertApplyBounds | OpKind::AssertInvBounds)
                });
                if !allowed {
                    Located::new(
                        user.location(),
                        format!(
                            "'{}' op uses a {} produced by '{}', which lego-to-arith cannot lower through it",
                            op_name(&user),
                            if kind == OpKind::CastView { "!lego.view" } else { "!lego.layout" },
                            kind.name()
                        ),
                    )
                    .emit();
                    ok = false;
                }
            }
        }
    }
    ok
}
