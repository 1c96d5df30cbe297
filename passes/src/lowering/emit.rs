//! The two generators of the lowering, recursive over the layout constructors (semantics.md):
//! [`emit_apply`] (logical index → flat) and [`emit_inverse`] (flat → logical index).
//!
//! The output is the published op form of lowering-form.md §2: plain unsigned `arith` (`muli`, `addi`,
//! `divui`, `remui`), `B` / `B⁻¹` as [`Builder::flatten`] / [`Builder::unflatten`], order_by by Horner's rule
//! and its inverse remui-then-divui block by block, group_by with its round trips (`lego-lower` removes them),
//! gen_p bodies cloned. Folding, constant uniquing and dead-op erasure are left to the clean-up the pass ends
//! with ([`crate::cleanup::greedy_cleanup`]).

use super::ir::{defining_op, region_ops, Builder, Located, Result, ValueMap};
use lego_dialect::ops::{layout_op, yielded_values, Dim, LayoutOp, REGION_TERMINATOR};
use melior::ir::{block::BlockLike, operation::OperationLike, RegionLike, RegionRef, Value};

/// `'lego.apply' op ` etc.: the prefix of errors at the op being lowered.
pub struct Site<'s> {
    pub op_name: &'s str,
}

impl Site<'_> {
    fn error<'c>(&self, b: &Builder<'_, 'c, '_>, reason: impl std::fmt::Display) -> Located<'c> {
        Located::new(b.location, format!("'{}' op {reason}", self.op_name))
    }
}

/// The constructor behind a layout value.
pub(super) fn node<'c, 'a>(b: &Builder<'_, 'c, 'a>, site: &Site, layout: Value<'c, 'a>) -> Result<'c, LayoutOp<'c, 'a>> {
    let Some(owner) = defining_op(layout) else {
        return Err(site.error(
            b,
            "cannot be lowered: its layout is a block argument, not built by visible lego ops (layouts may only \
             cross function boundaries as call arguments of func.func / func.call)",
        ));
    };
    match layout_op(owner) {
        Ok(Some(layout)) => Ok(layout),
        Ok(None) => Err(site.error(
            b,
            format!(
                "cannot be lowered: its layout is produced by '{}', not a lego layout op",
                super::ir::op_name(&owner)
            ),
        )),
        Err(error) => {
            Err(site.error(b, format!("cannot be lowered: malformed '{}': {error}", super::ir::op_name(&owner))))
        }
    }
}

/// The logical dims of a layout (the sizes of the indices `apply` takes), without emitting anything.
pub fn logical_dims<'c, 'a>(
    b: &Builder<'_, 'c, 'a>,
    site: &Site,
    layout: Value<'c, 'a>,
) -> Result<'c, Vec<Dim<'c, 'a>>> {
    Ok(match node(b, site, layout)? {
        LayoutOp::Row { dims }
        | LayoutOp::Col { dims }
        | LayoutOp::RegP { dims, .. }
        | LayoutOp::GenP { dims, .. }
        | LayoutOp::GroupBy { dims, .. } => dims,
        LayoutOp::OrderBy { objects } => {
            let mut dims = Vec::new();
            for object in objects {
                dims.extend(logical_dims(b, site, object)?);
            }
            dims
        }
        LayoutOp::TileBy { levels, .. } => levels.into_iter().flatten().collect(),
        LayoutOp::ExpandBy { inner, .. } => logical_dims(b, site, inner)?,
    })
}

fn check_rank<'c>(b: &Builder<'_, 'c, '_>, site: &Site, found: usize, rank: usize, what: &str) -> Result<'c, ()> {
    if found == rank {
        return Ok(());
    }
    Err(site.error(b, format!("number of {what} ({found}) does not match layout rank ({rank})")))
}

/// `perm` as indices, checked to be a permutation of `0..rank`.
fn permutation<'c>(b: &Builder<'_, 'c, '_>, site: &Site, perm: &[i64], rank: usize) -> Result<'c, Vec<usize>> {
    let mut seen = vec![false; rank];
    let mut out = Vec::with_capacity(rank);
    for entry in perm {
        match usize::try_from(*entry).ok().filter(|index| *index < rank && !seen[*index]) {
            Some(index) => {
                seen[index] = true;
                out.push(index);
            }
            None => {
                return Err(site.error(
                    b,
                    format!(
                        "cannot be lowered: reg_p perm {perm:?} is not a permutation of 0..{}",
                        rank.saturating_sub(1)
                    ),
                ))
            }
        }
    }
    if out.len() != rank {
        return Err(site.error(b, format!("cannot be lowered: reg_p perm {perm:?} does not have rank {rank}")));
    }
    Ok(out)
}

fn gather<T: Copy>(values: &[T], order: &[usize]) -> Vec<T> {
    order.iter().map(|&index| values[index]).collect()
}

/// `apply(layout, indices)`: emits the flat index before the builder's anchor.
pub fn emit_apply<'c, 'a>(
    b: &Builder<'_, 'c, 'a>,
    site: &Site,
    layout: Value<'c, 'a>,
    indices: &[Value<'c, 'a>],
) -> Result<'c, Value<'c, 'a>> {
    match node(b, site, layout)? {
        LayoutOp::Row { dims } => {
            check_rank(b, site, indices.len(), dims.len(), "indices")?;
            Ok(b.flatten(indices, &dims))
        }
        LayoutOp::Col { dims } => {
            check_rank(b, site, indices.len(), dims.len(), "indices")?;
            let order: Vec<usize> = (0..dims.len()).rev().collect();
            Ok(b.flatten(&gather(indices, &order), &gather(&dims, &order)))
        }
        LayoutOp::RegP { perm, dims } => {
            check_rank(b, site, indices.len(), dims.len(), "indices")?;
            let order = permutation(b, site, &perm, dims.len())?;
            Ok(b.flatten(&gather(indices, &order), &gather(&dims, &order)))
        }
        LayoutOp::GenP { dims, apply, .. } => {
            check_rank(b, site, indices.len(), dims.len(), "indices")?;
            let yielded = inline_region(b, site, apply, indices, "apply")?;
            match yielded.as_slice() {
                [flat] => Ok(*flat),
                _ => Err(site.error(
                    b,
                    format!("cannot be lowered: gen_p 'apply' region yields {} values, expected 1", yielded.len()),
                )),
            }
        }
        LayoutOp::OrderBy { objects } => {
            // Horner: acc = addi(muli(acc, numel(P)), apply(P, slice)) block by block.
            let mut accumulator: Option<Value> = None;
            let mut offset = 0;
            for object in objects {
                let dims = logical_dims(b, site, object)?;
                let Some(slice) = indices.get(offset..offset + dims.len()) else {
                    return Err(
                        site.error(b, format!("number of indices ({}) is smaller than the layout rank", indices.len()))
                    );
                };
                offset += dims.len();
                let scaled = match accumulator {
                    None => None,
                    Some(accumulated) => match b.product(&dims) {
                        Dim::Static(1) => Some(accumulated),
                        numel => Some(b.binary("arith.muli", accumulated, b.size(&numel))),
                    },
                };
                let part = emit_apply(b, site, object, slice)?;
                accumulator = Some(match scaled {
                    None => part,
                    Some(scaled) => b.binary("arith.addi", scaled, part),
                });
            }
            check_rank(b, site, indices.len(), offset, "indices")?;
            accumulator.ok_or_else(|| site.error(b, "cannot be lowered: order_by without objects"))
        }
        LayoutOp::GroupBy { dims, objects } => {
            check_rank(b, site, indices.len(), dims.len(), "indices")?;
            // Objects run last to first: x = apply(O, B⁻¹(dims(O), x)).
            let mut flat = b.flatten(indices, &dims);
            for object in objects.iter().rev() {
                let object_dims = logical_dims(b, site, *object)?;
                let unflat = b.unflatten(flat, &object_dims);
                flat = emit_apply(b, site, *object, &unflat)?;
            }
            Ok(flat)
        }
        LayoutOp::TileBy { inner, levels } => super::tile_by::emit_apply_tile_by(b, site, inner, levels, indices),
        LayoutOp::ExpandBy { inner, dims, to_dims } => {
            check_expand(b, site, &dims, &to_dims)?;
            let flat = emit_apply(b, site, inner, indices)?;
            let expanded = b.unflatten(flat, &to_dims);
            let candidate = b.flatten(&expanded, &dims);
            // j_k < n_k for every k whose n_k is not syntactically m_k (there B⁻¹ already bounds j_k).
            let mut inside: Option<Value> = None;
            for ((j, n), m) in expanded.iter().zip(&dims).zip(&to_dims) {
                if same_dim(n, m) {
                    continue;
                }
                let below = b.ult(*j, b.size(n));
                inside = Some(match inside {
                    None => below,
                    Some(all) => b.binary("arith.andi", all, below),
                });
            }
            Ok(match inside {
                None => candidate,
                Some(condition) => b.select(condition, candidate, b.constant(-1)),
            })
        }
    }
}

/// `apply_inverse(layout, flat)`: emits the logical index before the builder's anchor.
pub fn emit_inverse<'c, 'a>(
    b: &Builder<'_, 'c, 'a>,
    site: &Site,
    layout: Value<'c, 'a>,
    flat: Value<'c, 'a>,
) -> Result<'c, Vec<Value<'c, 'a>>> {
    match node(b, site, layout)? {
        LayoutOp::Row { dims } => Ok(b.unflatten(flat, &dims)),
        LayoutOp::Col { dims } => {
            let order: Vec<usize> = (0..dims.len()).rev().collect();
            let mut physical = b.unflatten(flat, &gather(&dims, &order));
            physical.reverse();
            Ok(physical)
        }
        LayoutOp::RegP { perm, dims } => {
            let order = permutation(b, site, &perm, dims.len())?;
            let physical = b.unflatten(flat, &gather(&dims, &order));
            // result[σ_k] = phys[k]
            let mut logical = physical.clone();
            for (k, &target) in order.iter().enumerate() {
                logical[target] = physical[k];
            }
            Ok(logical)
        }
        LayoutOp::GenP { dims, inverse, .. } => {
            let Some(inverse) = inverse else {
                return Err(site.error(
                    b,
                    "layout is not invertible: it is built from an apply-only lego.gen_p (no 'inv' region)",
                ));
            };
            let yielded = inline_region(b, site, inverse, &[flat], "inv")?;
            check_rank(b, site, yielded.len(), dims.len(), "values yielded by the gen_p 'inv' region")?;
            Ok(yielded)
        }
        LayoutOp::OrderBy { objects } => {
            // Blocks last to first: inner = remui(f, numel(P)), f = divui(f, numel(P)), inverse(P, inner) —
            // the outermost block too gets its remui (its divui is dead and goes in the clean-up).
            let mut pieces: Vec<Vec<Value>> = Vec::with_capacity(objects.len());
            let mut current = flat;
            for object in objects.iter().rev() {
                let numel = b.product(&logical_dims(b, site, *object)?);
                let (inner, rest) = match numel {
                    Dim::Static(1) => (b.constant(0), current),
                    numel => {
                        let numel = b.size(&numel);
                        (b.binary("arith.remui", current, numel), b.binary("arith.divui", current, numel))
                    }
                };
                current = rest;
                pieces.push(emit_inverse(b, site, *object, inner)?);
            }
            Ok(pieces.into_iter().rev().flatten().collect())
        }
        LayoutOp::GroupBy { dims, objects } => {
            // Objects run first to last: x = B(dims(O), inv(O, x)).
            let mut current = flat;
            for object in &objects {
                let object_dims = logical_dims(b, site, *object)?;
                let unflat = emit_inverse(b, site, *object, current)?;
                current = b.flatten(&unflat, &object_dims);
            }
            Ok(b.unflatten(current, &dims))
        }
        LayoutOp::TileBy { inner, levels } => super::tile_by::emit_inverse_tile_by(b, site, inner, levels, flat),
        LayoutOp::ExpandBy { inner, dims, to_dims } => {
            check_expand(b, site, &dims, &to_dims)?;
            // inv(L, B(m⃗, B⁻¹(n⃗, x)))
            let compact = b.unflatten(flat, &dims);
            let expanded = b.flatten(&compact, &to_dims);
            emit_inverse(b, site, inner, expanded)
        }
    }
}

/// Every size given as an SSA value anywhere in `layout`'s construction (objects, inner layouts, levels),
/// in first-seen order without repetition.
pub fn dynamic_sizes<'c, 'a>(b: &Builder<'_, 'c, 'a>, site: &Site, layout: Value<'c, 'a>) -> Result<'c, Vec<Value<'c, 'a>>> {
    fn visit<'c, 'a>(
        b: &Builder<'_, 'c, 'a>,
        site: &Site,
        layout: Value<'c, 'a>,
        out: &mut Vec<Value<'c, 'a>>,
    ) -> Result<'c, ()> {
        let mut add = |dims: &[Dim<'c, 'a>]| {
            for dim in dims {
                if let Dim::Dynamic(value) = dim {
                    if !out.contains(value) {
                        out.push(*value);
                    }
                }
            }
        };
        match node(b, site, layout)? {
            LayoutOp::Row { dims } | LayoutOp::Col { dims } | LayoutOp::RegP { dims, .. } | LayoutOp::GenP { dims, .. } => {
                add(&dims)
            }
            LayoutOp::OrderBy { objects } => {
                for object in objects {
                    visit(b, site, object, out)?;
                }
            }
            LayoutOp::GroupBy { dims, objects } => {
                add(&dims);
                for object in objects {
                    visit(b, site, object, out)?;
                }
            }
            LayoutOp::TileBy { inner, levels } => {
                for level in &levels {
                    add(level);
                }
                visit(b, site, inner, out)?;
            }
            LayoutOp::ExpandBy { inner, dims, to_dims } => {
                add(&dims);
                add(&to_dims);
                visit(b, site, inner, out)?;
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    visit(b, site, layout, &mut out)?;
    Ok(out)
}

/// How many flat positions `apply_inverse` of `layout` accepts: the layout's element count, for an
/// `expand_by` the compact count `∏ n⃗` (its apply maps onto those, or −1). `None` when the count of static
/// sizes does not fit in an `index`.
pub fn inverse_domain_size<'c, 'a>(
    b: &Builder<'_, 'c, 'a>,
    site: &Site,
    layout: Value<'c, 'a>,
) -> Result<'c, Option<Dim<'c, 'a>>> {
    let dims = match node(b, site, layout)? {
        LayoutOp::ExpandBy { dims, .. } => dims,
        _ => logical_dims(b, site, layout)?,
    };
    if dims.iter().all(|dim| matches!(dim, Dim::Static(_))) && lego_dialect::ops::known_product(&dims).is_none() {
        return Ok(None);
    }
    Ok(Some(b.product(&dims)))
}

fn check_expand<'c>(b: &Builder<'_, 'c, '_>, site: &Site, dims: &[Dim], to_dims: &[Dim]) -> Result<'c, ()> {
    if dims.len() != to_dims.len() || dims.is_empty() {
        return Err(site.error(
            b,
            format!("cannot be lowered: expand_by has {} dims but {} expanded ('to') dims", dims.len(), to_dims.len()),
        ));
    }
    Ok(())
}

/// Two sizes that are equal for every run: equal literals/constants, or the same SSA value.
pub fn same_dim(a: &Dim, b: &Dim) -> bool {
    if let (Dim::Dynamic(x), Dim::Dynamic(y)) = (a, b) {
        if x == y {
            return true;
        }
    }
    matches!((a.known(), b.known()), (Some(x), Some(y)) if x == y)
}

/// Clones the body of a gen_p region before the builder's anchor with the block arguments bound to `args`;
/// returns the values its terminator yields.
fn inline_region<'c, 'a>(
    b: &Builder<'_, 'c, 'a>,
    site: &Site,
    region: RegionRef<'c, 'a>,
    args: &[Value<'c, 'a>],
    which: &str,
) -> Result<'c, Vec<Value<'c, 'a>>> {
    let shape_error = || site.error(b, format!("cannot be lowered: malformed gen_p '{which}' region"));
    let block = region.first_block().ok_or_else(shape_error)?;
    if block.next_in_region().is_some() || block.argument_count() != args.len() {
        return Err(shape_error());
    }
    let yielded = yielded_values(region).ok_or_else(shape_error)?;
    let mut mapping = ValueMap::default();
    for (position, arg) in args.iter().enumerate() {
        let argument = block.argument(position).map_err(|_| shape_error())?;
        mapping.insert(argument.into(), *arg);
    }
    for op in region_ops(region) {
        if op.next_in_block().is_none() && super::ir::op_name(&op) == REGION_TERMINATOR {
            break;
        }
        b.clone_mapped(op, &mut mapping);
    }
    Ok(yielded.into_iter().map(|value| mapping.lookup(value)).collect())
}
