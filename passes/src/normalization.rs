//! `lego-normalization`: rewrites layouts into the core constructors `reg_p` / `gen_p` / `order_by` /
//! `group_by` (+ `expand_by`, which has no core equivalent: its "no element" result is not a bijection),
//! exactly per semantics.md, and folds pieces that are the identity:
//!
//! - `row [n⃗]` → `reg_p perm [0, …, d-1] dims [n⃗]`; `col [n⃗]` → `reg_p perm [d-1, …, 0] dims [n⃗]`;
//! - `tile_by L tile_dims [a⃗, b⃗, …]` → `group_by [a⃗, b⃗, …](L, order_by(reg_p perm σ dims [a⃗, b⃗, …]))`,
//!   `σ = [0, d, 2d, …, 1, d+1, …]` (then folded as below);
//! - `order_by(P)` → `P`; nested `order_by`s are flattened (`order_by` is associative);
//! - `group_by`: nested `group_by` objects are spliced in (`B(h⃗, B⁻¹(h⃗, x)) = x`), identity objects (a
//!   `reg_p` with the identity perm, or an `order_by` / `group_by` of identities) are dropped; no object left
//!   → `reg_p` identity over its dims; one object with exactly the group's dims → that object;
//! - `expand_by L dims n⃗ to m⃗` with `n⃗ = m⃗` → `L`.
//!
//! Each fold holds for every in-range input (semantics.md leaves the others unspecified). The result is a
//! fixed point: running the pass again changes nothing. Layout ops the rewrite leaves unused are erased.

use crate::{
    external::{LegoPass, PassFailure, PassId},
    lowering::{
        cleanup::erase_dead_layout_ops,
        emit::same_dim,
        ir::{defining_op, erase, first_result, op_has_uses, op_key, replace_all_uses, Builder, Located},
    },
};
use lego_dialect::ops::{
    build_group_by, build_order_by, build_permutation_layout, layout_op, walk_ops, Dim, LayoutOp, OpKind,
};
use melior::{
    ir::{operation::OperationLike, OperationRef, Value},
    Context,
};
use std::collections::HashSet;

/// Safety bound on sweeps; one sweep reaches the fixed point for IR in SSA order, the next confirms it.
const MAX_SWEEPS: usize = 16;

static ID: PassId = PassId::new();

#[derive(Clone, Default)]
pub struct Normalization;

/// The pass, ready for a pass manager.
pub fn create() -> melior::pass::Pass {
    crate::external::into_mlir_pass(Normalization, &ID)
}

impl LegoPass for Normalization {
    fn name(&self) -> &'static str {
        "lego-normalization"
    }

    fn description(&self) -> &'static str {
        "Desugar row/col/tile_by (and expand_by where possible) into reg_p/gen_p/order_by/group_by"
    }

    fn run(&mut self, op: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        normalize(op)
    }
}

/// Normalizes every layout under `root`.
pub fn normalize(root: OperationRef) -> Result<(), PassFailure> {
    let handle = crate::mlir_context::ContextHandle::of(&root);
    let context = handle.get();
    // Layout ops unused before the pass stay (normalized); those the rewrite leaves unused are erased.
    let mut keep: HashSet<usize> = HashSet::new();
    walk_ops(root, &mut |op| {
        if OpKind::of(&op).is_some_and(OpKind::is_layout_constructor) && !op_has_uses(op) {
            keep.insert(op_key(op));
        }
    });
    for _ in 0..MAX_SWEEPS {
        let mut layouts = Vec::new();
        walk_ops(root, &mut |op| {
            if OpKind::of(&op).is_some_and(OpKind::is_layout_constructor) {
                layouts.push(op);
            }
        });
        let mut changed = false;
        for op in layouts {
            match rewrite(context, op) {
                Ok(None) => {}
                Ok(Some(replacement)) => {
                    tracing::debug!(target: "lego", "normalized {} at {}", crate::lowering::ir::op_name(&op), op.location());
                    if keep.remove(&op_key(op)) {
                        if let Some(owner) = defining_op(replacement) {
                            keep.insert(op_key(owner));
                        }
                    }
                    replace_all_uses(first_result(op), replacement);
                    erase(op);
                    changed = true;
                }
                Err(error) => {
                    error.emit();
                    return Err(PassFailure(error.message));
                }
            }
        }
        if !changed {
            erase_dead_layout_ops(root, &keep);
            // lowering-form.md §0: the greedy driver's clean-up (folding, constants, dead pure lego ops).
            crate::cleanup::greedy_cleanup(root.to_raw());
            return Ok(());
        }
    }
    Ok(())
}

/// The value replacing `op`'s layout, or `None` when it is already normal.
fn rewrite<'c, 'a>(context: &'c Context, op: OperationRef<'c, 'a>) -> Result<Option<Value<'c, 'a>>, Located<'c>> {
    let layout = match layout_op(op) {
        Ok(Some(layout)) => layout,
        Ok(None) => return Ok(None),
        Err(error) => {
            return Err(Located::new(op.location(), format!("'{}' op {error}", crate::lowering::ir::op_name(&op))))
        }
    };
    let Some(b) = Builder::before(context, op) else { return Ok(None) };
    Ok(match layout {
        LayoutOp::Row { dims } => Some(reg_p(&b, &(0..dims.len() as i64).collect::<Vec<_>>(), &dims)),
        LayoutOp::Col { dims } => Some(reg_p(&b, &(0..dims.len() as i64).rev().collect::<Vec<_>>(), &dims)),
        LayoutOp::RegP { .. } | LayoutOp::GenP { .. } => None,
        LayoutOp::OrderBy { objects } => {
            let flat = flatten(&objects, OpKindFilter::OrderBy);
            if flat.len() == 1 {
                Some(flat[0])
            } else if flat != objects {
                Some(order_by(&b, &flat))
            } else {
                None
            }
        }
        LayoutOp::GroupBy { dims, objects } => {
            let simplified = simplify_objects(&objects);
            group_by(&b, &dims, &simplified, simplified != objects)
        }
        LayoutOp::TileBy { inner, levels } => {
            let Some(rank) = levels.first().map(Vec::len) else {
                return Err(Located::new(op.location(), "'lego.tile_by' op expected at least one tiling level"));
            };
            if levels.iter().any(|level| level.len() != rank) {
                return Err(Located::new(
                    op.location(),
                    "'lego.tile_by' op all tiling levels must have the same length",
                ));
            }
            let flat: Vec<Dim> = levels.iter().flatten().copied().collect();
            let reorder = reg_p(&b, &tile_permutation(levels.len(), rank), &flat);
            let reorder = order_by(&b, &[reorder]);
            let objects = simplify_objects(&[inner, reorder]);
            group_by(&b, &flat, &objects, true)
        }
        LayoutOp::ExpandBy { inner, dims, to_dims } => {
            let identity = dims.len() == to_dims.len() && dims.iter().zip(&to_dims).all(|(n, m)| same_dim(n, m));
            identity.then_some(inner)
        }
    })
}

/// `σ[k·q + l] = l·d + k` for `q` levels of `d` dims: gathers the level-major sizes `[a⃗, b⃗, …]` dim-major.
fn tile_permutation(levels: usize, rank: usize) -> Vec<i64> {
    (0..rank).flat_map(|k| (0..levels).map(move |l| (l * rank + k) as i64)).collect()
}

fn reg_p<'c, 'a>(b: &Builder<'_, 'c, 'a>, perm: &[i64], dims: &[Dim<'c, 'a>]) -> Value<'c, 'a> {
    first_result(b.insert(build_permutation_layout(b.context, b.location, OpKind::RegP, Some(perm), dims)))
}

/// `order_by(objects)`, or the object itself when there is one.
fn order_by<'c, 'a>(b: &Builder<'_, 'c, 'a>, objects: &[Value<'c, 'a>]) -> Value<'c, 'a> {
    if let [single] = objects {
        return *single;
    }
    first_result(b.insert(build_order_by(b.context, b.location, objects)))
}

/// The folded `group_by [dims](objects)`; `None` when that is the original op unchanged (`rebuilt` false
/// and no fold applies).
fn group_by<'c, 'a>(
    b: &Builder<'_, 'c, 'a>,
    dims: &[Dim<'c, 'a>],
    objects: &[Value<'c, 'a>],
    rebuilt: bool,
) -> Option<Value<'c, 'a>> {
    match objects {
        [] => Some(reg_p(b, &(0..dims.len() as i64).collect::<Vec<_>>(), dims)),
        [single] if lego_dialect::ops::logical_dims(*single).is_some_and(|own| same_dims(&own, dims)) => Some(*single),
        _ if rebuilt => Some(first_result(b.insert(build_group_by(b.context, b.location, dims, objects)))),
        _ => None,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum OpKindFilter {
    OrderBy,
    GroupBy,
}

/// Splices the objects of nested `order_by`s (or `group_by`s) into the list.
fn flatten<'c: 'a, 'a>(objects: &[Value<'c, 'a>], filter: OpKindFilter) -> Vec<Value<'c, 'a>> {
    let mut out = Vec::new();
    for object in objects {
        match (defining_op(*object).and_then(|op| layout_op(op).ok().flatten()), filter) {
            (Some(LayoutOp::OrderBy { objects: inner }), OpKindFilter::OrderBy)
            | (Some(LayoutOp::GroupBy { objects: inner, .. }), OpKindFilter::GroupBy) => {
                out.extend(flatten(&inner, filter))
            }
            _ => out.push(*object),
        }
    }
    out
}

/// group_by objects with nested group_bys spliced in and identity objects dropped.
fn simplify_objects<'c: 'a, 'a>(objects: &[Value<'c, 'a>]) -> Vec<Value<'c, 'a>> {
    flatten(objects, OpKindFilter::GroupBy).into_iter().filter(|object| !is_identity(*object)).collect()
}

/// Whether the layout maps every index to its row-major position (`apply = B(dims, i⃗)`).
fn is_identity(layout: Value) -> bool {
    match defining_op(layout).and_then(|op| layout_op(op).ok().flatten()) {
        Some(LayoutOp::Row { .. }) => true,
        Some(LayoutOp::RegP { perm, .. }) => perm.iter().enumerate().all(|(k, &p)| p == k as i64),
        Some(LayoutOp::Col { dims }) => dims.len() == 1,
        Some(LayoutOp::OrderBy { objects }) | Some(LayoutOp::GroupBy { objects, .. }) => {
            objects.iter().all(|object| is_identity(*object))
        }
        _ => false,
    }
}

fn same_dims(a: &[Dim], b: &[Dim]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_dim(x, y))
}
