//! `lego-normalization` (docs/reference/lowering.md §1): rewrites exactly these, nothing else (`order_by` / `group_by`
//! stay as written):
//!
//! - `row [n⃗]` → `reg_p perm [0, …, d-1] dims [n⃗]`; `col [n⃗]` → `reg_p perm [d-1, …, 0] dims [n⃗]` (same dim
//!   values);
//! - `tile_by O tile_dims [t⃗]`: the identity shortcut of docs/reference/semantics.md (as many levels as blocks, every tile dim
//!   the same value as the block dim) → `O`; otherwise the normal form `group_by [t⃗](O, OB_mid, OB_fin)` with
//!   `OB_mid = order_by(reg_p perm σ_o⁻¹ dims σ_o(dims O))` (emitted even when it is the identity) and
//!   `OB_fin = order_by(reg_p perm σ_t dims t⃗)`, `σ_o = Σ(d_o, q_o)`, `σ_t = Σ(d_t, q_t)`,
//!   `Σ(d, q) = [0, d, 2d, …, 1, d+1, …]`, built in that order;
//! - `lego.assume_bounds %v lb : %a ub : %b` → `arith.cmpi sge, %v, %a` + `lego.assume`, then
//!   `arith.cmpi slt, %v, %b` + `lego.assume` (each part only if present);
//! - `expand_by L dims n⃗ to m⃗` with `n⃗ = m⃗` → `L`.
//!
//! Then the §0 cleanup's dead-op part: every lego layout op left unused is erased.
//!
//! Option `fold` (ours, default false) is the form `lego-lower` starts from: `row`/`col` → `reg_p`, nested
//! `order_by`s flattened, identity `group_by` objects dropped and nested `group_by`s spliced (each fold holds for
//! every in-range input), while `tile_by` is left for `lego-to-arith`'s direct form (docs/reference/lowering.md §3) and
//! `assume_bounds` for the simplifier, which consumes them.

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
    ir::{
        attribute::IntegerAttribute,
        operation::{OperationBuilder, OperationLike},
        r#type::IntegerType,
        OperationRef, Value,
    },
    Context,
};
use std::collections::HashSet;

/// Safety bound on sweeps; one sweep reaches the fixed point for IR in SSA order, the next confirms it.
const MAX_SWEEPS: usize = 16;

static ID: PassId = PassId::new();

#[derive(Clone, Default)]
pub struct Normalization {
    /// Our folding form for `lego-lower` (see the module doc).
    fold: bool,
    /// The last run verified the lego ops it left itself ([`cleanup_and_verify`]).
    verified: bool,
}

/// The pass, ready for a pass manager.
pub fn create(fold: bool) -> melior::pass::Pass {
    crate::external::into_mlir_pass(Normalization { fold, verified: false }, &ID)
}

impl LegoPass for Normalization {
    fn name(&self) -> &'static str {
        "lego-normalization"
    }

    fn description(&self) -> &'static str {
        "row/col → reg_p, tile_by → its normal form, assume_bounds → cmpi + lego.assume (docs/reference/lowering.md §1)"
    }

    fn run(&mut self, op: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        self.verified = false;
        self.verified = if self.fold { normalize_folding(op)? } else { normalize(op)? };
        Ok(())
    }

    /// Where the clean-up listed the lego ops left, the pass verified them itself.
    fn may_leave_lego_ops(&self) -> bool {
        !self.verified
    }
}

/// docs/reference/lowering.md §0: the greedy driver's clean-up (folding, constants, dead pure lego ops), then
/// the lego dialect verifier on the lego ops left when the clean-up listed them (the checks and order of the
/// verifier's walk, which the pass adapter then skips). Returns whether it verified them.
fn cleanup_and_verify(root: OperationRef) -> Result<bool, PassFailure> {
    let Some(left) = crate::lowering::cleanup::cleanup_listing(root) else { return Ok(false) };
    if !lego_dialect::verify::verify_ops_and_emit(&left) {
        return Err(PassFailure("the normalized IR breaks the lego dialect's rules".into()));
    }
    Ok(true)
}

/// Normalizes every layout under `root` into the published form (docs/reference/lowering.md §1). Returns
/// whether it verified the lego ops left itself ([`cleanup_and_verify`]).
pub fn normalize(root: OperationRef) -> Result<bool, PassFailure> {
    let handle = crate::mlir_context::ContextHandle::of(&root);
    let context = handle.get();
    let mut targets = Vec::new();
    walk_ops(root, &mut |op| {
        if matches!(
            OpKind::of(&op),
            Some(OpKind::Row | OpKind::Col | OpKind::TileBy | OpKind::ExpandBy | OpKind::AssumeBounds)
        ) {
            targets.push(op);
        }
    });
    // IR order: a tile_by's input (defined before it) is rewritten first, so O is already normal.
    for op in targets {
        if OpKind::of(&op) == Some(OpKind::AssumeBounds) {
            expand_assume_bounds(context, op);
            continue;
        }
        match rewrite_published(context, op) {
            Ok(None) => {}
            Ok(Some(replacement)) => {
                tracing::debug!(target: "lego", "normalized {} at {}", crate::lowering::ir::op_name(&op), op.location());
                replace_all_uses(first_result(op), replacement);
                erase(op);
            }
            Err(error) => {
                error.emit();
                return Err(PassFailure(error.message));
            }
        }
    }
    erase_dead_layout_ops(root, &HashSet::new());
    cleanup_and_verify(root)
}

/// `arith.cmpi` predicates (MLIR's `arith::CmpIPredicate`).
const CMPI_SLT: i64 = 2;
const CMPI_SGE: i64 = 5;

/// `lego.assume_bounds %v lb : %a ub : %b` → `%p = arith.cmpi sge, %v, %a` + `lego.assume %p`, then
/// `%q = arith.cmpi slt, %v, %b` + `lego.assume %q` (each only if present); the assume_bounds is erased.
fn expand_assume_bounds<'c, 'a>(context: &'c Context, op: OperationRef<'c, 'a>) {
    let operands: Vec<Value> = op.operands().collect();
    let segments = crate::simplify::ir::dense_array(op.to_raw(), "operandSegmentSizes").unwrap_or_else(|| vec![1, 0, 0]);
    let (Some(&value), [_, lower, upper]) = (operands.first(), segments.as_slice()) else { return };
    let Some(b) = Builder::before(context, op) else { return };
    let mut next = 1;
    let mut bounds = Vec::new();
    if *lower == 1 {
        bounds.extend(operands.get(next).map(|bound| (CMPI_SGE, *bound)));
        next += 1;
    }
    if *upper == 1 {
        bounds.extend(operands.get(next).map(|bound| (CMPI_SLT, *bound)));
    }
    for (predicate, bound) in bounds {
        let predicate = IntegerAttribute::new(IntegerType::new(context, 64).into(), predicate).into();
        let compare = OperationBuilder::new("arith.cmpi", b.location)
            .add_operands(&[value, bound])
            .add_attributes(&[(melior::ir::Identifier::new(context, "predicate"), predicate)])
            .add_results(&[IntegerType::new(context, 1).into()])
            .build();
        let Ok(compare) = compare else { return };
        let condition = first_result(b.insert(compare));
        if let Ok(assume) = OperationBuilder::new(OpKind::Assume.name(), b.location).add_operands(&[condition]).build() {
            b.insert(assume);
        }
    }
    erase(op);
}

/// The published rewrite of one op; `None` when it stays.
fn rewrite_published<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
) -> Result<Option<Value<'c, 'a>>, Located<'c>> {
    let name = crate::lowering::ir::op_name(&op);
    let layout = match layout_op(op) {
        Ok(Some(layout)) => layout,
        Ok(None) => return Ok(None),
        Err(error) => return Err(Located::new(op.location(), format!("'{name}' op {error}"))),
    };
    let Some(b) = Builder::before(context, op) else { return Ok(None) };
    Ok(match layout {
        LayoutOp::Row { dims } => Some(reg_p(&b, &(0..dims.len() as i64).collect::<Vec<_>>(), &dims)),
        LayoutOp::Col { dims } => Some(reg_p(&b, &(0..dims.len() as i64).rev().collect::<Vec<_>>(), &dims)),
        LayoutOp::TileBy { inner, levels } => Some(normal_form(&b, inner, &levels)?),
        LayoutOp::ExpandBy { inner, dims, to_dims } => {
            let identity = dims.len() == to_dims.len() && dims.iter().zip(&to_dims).all(|(n, m)| same_dim(n, m));
            identity.then_some(inner)
        }
        _ => None,
    })
}

/// tile_by → its input (identity shortcut) or `group_by [t⃗](O, OB_mid, OB_fin)` (docs/reference/semantics.md, normal form).
fn normal_form<'c, 'a>(
    b: &Builder<'_, 'c, 'a>,
    inner: Value<'c, 'a>,
    levels: &[Vec<Dim<'c, 'a>>],
) -> Result<Value<'c, 'a>, Located<'c>> {
    let error = |reason: &str| Located::new(b.location, format!("'lego.tile_by' op cannot be normalized: {reason}"));
    let d_t = levels.first().map_or(0, Vec::len);
    if d_t == 0 || levels.iter().any(|level| level.len() != d_t) {
        return Err(error("tiling levels must be non-empty and of equal length"));
    }
    let blocks = match lego_dialect::ops::defining_layout(inner) {
        Some((_, LayoutOp::OrderBy { objects })) if !objects.is_empty() => objects,
        // A plain row / col / reg_p: an order_by of that one block (semantics.md: q_o = 1).
        Some((_, LayoutOp::Row { .. } | LayoutOp::Col { .. } | LayoutOp::RegP { .. })) => vec![inner],
        Some(_) => return Err(error("input must be an OrderBy layout")),
        None => {
            return Err(error(
                "its input layout is a function or block argument, whose structure (blocks and their dims) is unknown",
            ))
        }
    };
    let mut block_dims = Vec::with_capacity(blocks.len());
    for block in &blocks {
        let Some(dims) = lego_dialect::ops::logical_dims(*block) else {
            return Err(error("the dims of a block of its input are not visible (built from a function argument)"));
        };
        block_dims.push(dims);
    }
    let d_o = block_dims[0].len();
    if d_o != d_t || block_dims.iter().any(|dims| dims.len() != d_o) {
        return Err(error("every block of the input must have the tile rank"));
    }
    let identity = levels.len() == blocks.len()
        && levels.iter().zip(&block_dims).all(|(level, dims)| level.iter().zip(dims).all(|(t, o)| same_dim(t, o)));
    if identity {
        return Ok(inner);
    }
    let sigma_o: Vec<usize> = lego_algebra::interleave_permutation(d_o, blocks.len());
    let dims_o: Vec<Dim> = block_dims.into_iter().flatten().collect();
    let mid_dims: Vec<Dim> = sigma_o.iter().map(|&p| dims_o[p]).collect();
    let mid_perm: Vec<i64> = lego_algebra::inverse_permutation(&sigma_o).into_iter().map(|p| p as i64).collect();
    let mid = reg_p(b, &mid_perm, &mid_dims);
    let mid = first_result(b.insert(build_order_by(b.context, b.location, &[mid])));
    let flat: Vec<Dim> = levels.iter().flatten().copied().collect();
    let fin = reg_p(b, &tile_permutation(levels.len(), d_t), &flat);
    let fin = first_result(b.insert(build_order_by(b.context, b.location, &[fin])));
    Ok(first_result(b.insert(build_group_by(b.context, b.location, &flat, &[inner, mid, fin]))))
}

/// Our folding form (option `fold`): see the module doc. Returns whether it verified the lego ops left itself.
pub fn normalize_folding(root: OperationRef) -> Result<bool, PassFailure> {
    let handle = crate::mlir_context::ContextHandle::of(&root);
    let context = handle.get();
    // Layout ops unused before the pass stay (normalized); those the rewrite leaves unused are erased.
    // The first sweep's layouts are the same walk's (one walk fewer of the module).
    let mut keep: HashSet<usize> = HashSet::new();
    let mut first_sweep = Vec::new();
    walk_ops(root, &mut |op| {
        if OpKind::of(&op).is_some_and(OpKind::is_layout_constructor) {
            if !op_has_uses(op) {
                keep.insert(op_key(op));
            }
            first_sweep.push(op);
        }
    });
    // Where each layout op stands in the walk: the first sweep is the last one that changes anything when every
    // layout op it meets has its layout operands defined by ops met before it (see `operands_met_before`).
    let position: std::collections::HashMap<usize, usize> =
        first_sweep.iter().enumerate().map(|(index, op)| (op_key(*op), index)).collect();
    let mut in_order = true;
    let mut first_sweep = Some(first_sweep);
    for sweep in 0..MAX_SWEEPS {
        let layouts = first_sweep.take().unwrap_or_else(|| {
            let mut layouts = Vec::new();
            walk_ops(root, &mut |op| {
                if OpKind::of(&op).is_some_and(OpKind::is_layout_constructor) {
                    layouts.push(op);
                }
            });
            layouts
        });
        let mut changed = false;
        for (index, op) in layouts.into_iter().enumerate() {
            if sweep == 0 && in_order {
                in_order = operands_met_before(op, index, &position);
            }
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
        // A sweep that changed nothing is the fixed point; so is the first one where the IR is in order.
        if !changed || (sweep == 0 && in_order) {
            erase_dead_layout_ops(root, &keep);
            return cleanup_and_verify(root);
        }
    }
    Ok(false)
}

/// Whether every operand of `op` (at `index` of the first sweep) that a layout op of the first sweep defines is
/// defined by one met before it (`position`: walk index of each layout op of the first sweep).
///
/// Then, for every layout op, that sweep found its layout operands final: a rewrite replaces an op's uses
/// with its replacement when the sweep reaches it, and that op came first. What [`rewrite`] reads is the op,
/// the ops defining its operands (and theirs, each again a layout op of the sweep, so in order too), and
/// whether a `tile_by` uses it (tile_by's are never rewritten or erased here, and a replacement only gains
/// users, which can only keep an op as it is). A new op is normal when built: a `reg_p`; an `order_by` of
/// flattened objects none of which is an `order_by`; a `group_by` of spliced objects, none a `group_by` or an
/// identity, and not a single object of its own dims. So a second sweep would rewrite nothing. A new op's
/// address may be a freed op's, but a freed op was met before the one being checked, so it reads as in order,
/// as the new op (built right before an op met earlier) is.
fn operands_met_before(op: OperationRef, index: usize, position: &std::collections::HashMap<usize, usize>) -> bool {
    op.operands().all(|operand| {
        defining_op(operand).map_or(true, |owner| position.get(&op_key(owner)).map_or(true, |&at| at < index))
    })
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
        // A swizzle is a core op: lego-to-arith lowers it (docs/ops/swizzle.md).
        LayoutOp::RegP { .. } | LayoutOp::GenP { .. } | LayoutOp::Swizzle { .. } => None,
        // Lowered directly by lego-to-arith (docs/ops/compose.md, docs/ops/inverse.md).
        LayoutOp::Compose { .. } | LayoutOp::Inverse { .. } | LayoutOp::Strided { .. } => None,
        // A tile_by reads its input's blocks: flattening or unwrapping that order_by would change them.
        LayoutOp::OrderBy { .. } if feeds_tile_by(op) => None,
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
        // Lowered directly by lego-to-arith (docs/reference/lowering.md §3).
        LayoutOp::TileBy { .. } => None,
        LayoutOp::ExpandBy { inner, dims, to_dims } => {
            let identity = dims.len() == to_dims.len() && dims.iter().zip(&to_dims).all(|(n, m)| same_dim(n, m));
            identity.then_some(inner)
        }
    })
}

/// `σ_t = Σ(d, q)` for `q` levels of `d` dims: gathers the level-major sizes `[a⃗, b⃗, …]` dim-major.
fn tile_permutation(levels: usize, rank: usize) -> Vec<i64> {
    lego_algebra::interleave_permutation(rank, levels).into_iter().map(|p| p as i64).collect()
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

fn feeds_tile_by(op: OperationRef) -> bool {
    crate::lowering::ir::users(first_result(op)).iter().any(|user| OpKind::of(user) == Some(OpKind::TileBy))
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
