//! The two generators of the lowering, defined recursively over the layout constructors (docs/reference/semantics.md) and
//! run with explicit stacks (layout chains of any depth):
//! [`emit_apply`] (logical index → flat) and [`emit_inverse`] (flat → logical index).
//!
//! The output is the published op form of docs/reference/lowering.md §2: plain unsigned `arith` (`muli`, `addi`,
//! `divui`, `remui`), `B` / `B⁻¹` as [`Builder::flatten`] / [`Builder::unflatten`], order_by by Horner's rule
//! and its inverse remui-then-divui block by block, group_by with its round trips (`lego-lower` removes them),
//! gen_p bodies cloned. Folding, constant uniquing and dead-op erasure are left to the clean-up the pass ends
//! with ([`crate::cleanup::greedy_cleanup`]).

use super::ir::{defining_op, region_ops, Builder, Located, Result, ValueMap};
use super::tile_by::{self, Tiling};
use lego_dialect::ops::{layout_op, yielded_values, Dim, LayoutOp, REGION_TERMINATOR};
use melior::ir::{block::BlockLike, operation::OperationLike, RegionLike, RegionRef, Value};

/// `'lego.apply' op ` etc.: the prefix of errors at the op being lowered; and the logical dims of the layouts
/// seen while lowering it, memoized so that a chain of N constructors costs O(N), not O(N²).
pub struct Site<'s> {
    pub op_name: &'s str,
    /// How many `lego.inverse` are being lowered inside one another (each switches between the apply and
    /// the inverse generator, a Rust call): bounded, so that no chain overflows the stack.
    inverse_nesting: std::cell::Cell<usize>,
    /// Whether a gen_p region body was cloned: the only way lowering one use can bring in new lego uses.
    inlined: std::cell::Cell<bool>,
    dims: std::cell::RefCell<std::collections::HashMap<usize, Vec<RawDim>>>,
}

/// A [`Dim`] without its lifetimes (the memo outlives no IR: it lives while one op is lowered, and emitting
/// only adds ops).
#[derive(Clone, Copy)]
enum RawDim {
    Static(i64),
    Dynamic(mlir_sys::MlirValue),
}

/// The most `lego.inverse` ops lowered inside one another ([`Site::nested_inverse`]).
const MAX_INVERSE_NESTING: usize = 256;

fn value_key(value: Value) -> usize {
    melior::ir::ValueLike::to_raw(&value).ptr as usize
}

impl<'s> Site<'s> {
    pub fn new(op_name: &'s str) -> Self {
        Site { op_name, dims: Default::default(), inverse_nesting: Default::default(), inlined: Default::default() }
    }

    /// Whether lowering at this site cloned a gen_p region body ([`inline_region`]).
    pub fn inlined_region(&self) -> bool {
        self.inlined.get()
    }

    fn memoized<'c, 'a>(&self, layout: Value<'c, 'a>) -> Option<Vec<Dim<'c, 'a>>> {
        let memo = self.dims.borrow();
        let raw = memo.get(&value_key(layout))?;
        Some(
            raw.iter()
                .map(|dim| match dim {
                    RawDim::Static(size) => Dim::Static(*size),
                    // The value is an operand of a layout op of the IR being lowered, alive meanwhile.
                    RawDim::Dynamic(value) => Dim::Dynamic(unsafe { Value::from_raw(*value) }),
                })
                .collect(),
        )
    }

    fn memoize(&self, layout: Value, dims: &[Dim]) {
        let raw = dims
            .iter()
            .map(|dim| match dim {
                Dim::Static(size) => RawDim::Static(*size),
                Dim::Dynamic(value) => RawDim::Dynamic(melior::ir::ValueLike::to_raw(value)),
            })
            .collect();
        self.dims.borrow_mut().insert(value_key(layout), raw);
    }

    /// Runs `emit` one `lego.inverse` deeper, or fails past [`MAX_INVERSE_NESTING`].
    fn nested_inverse<'c, T>(&self, b: &Builder<'_, 'c, '_>, emit: impl FnOnce() -> Result<'c, T>) -> Result<'c, T> {
        if self.inverse_nesting.get() >= MAX_INVERSE_NESTING {
            return Err(self.error(b, format!("cannot be lowered: more than {MAX_INVERSE_NESTING} nested lego.inverse")));
        }
        self.inverse_nesting.set(self.inverse_nesting.get() + 1);
        let result = emit();
        self.inverse_nesting.set(self.inverse_nesting.get() - 1);
        result
    }

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
/// Iterative and memoized per value in `site`.
pub fn logical_dims<'c, 'a>(
    b: &Builder<'_, 'c, 'a>,
    site: &Site,
    layout: Value<'c, 'a>,
) -> Result<'c, Vec<Dim<'c, 'a>>> {
    let mut visiting = std::collections::HashSet::new();
    let mut pending = vec![(layout, false)];
    while let Some((value, children_done)) = pending.pop() {
        if site.dims.borrow().contains_key(&value_key(value)) {
            continue;
        }
        let children = match node(b, site, value)? {
            LayoutOp::Row { dims }
            | LayoutOp::Col { dims }
            | LayoutOp::RegP { dims, .. }
            | LayoutOp::GenP { dims, .. }
            | LayoutOp::Swizzle { dims, .. }
            | LayoutOp::GroupBy { dims, .. } => {
                site.memoize(value, &dims);
                continue;
            }
            LayoutOp::TileBy { levels, .. } => {
                site.memoize(value, &levels.into_iter().flatten().collect::<Vec<_>>());
                continue;
            }
            LayoutOp::OrderBy { objects } => objects,
            LayoutOp::ExpandBy { inner, .. } | LayoutOp::Compose { inner, .. } => vec![inner],
            LayoutOp::Strided { modes } => {
                let dims = strided_dims(b, site, &modes)?;
                site.memoize(value, &dims);
                continue;
            }
            // One size, Π dims(inner), computed (a muli for symbolic sizes; unused ones go in the clean-up).
            LayoutOp::Inverse { inner } => {
                let inner_dims = logical_dims(b, site, inner)?;
                site.memoize(value, &[b.product(&inner_dims)]);
                continue;
            }
        };
        if !children_done {
            if !visiting.insert(value_key(value)) {
                return Err(site.error(b, "cannot be lowered: its layout is defined in terms of itself"));
            }
            pending.push((value, true));
            pending.extend(children.into_iter().rev().map(|child| (child, false)));
            continue;
        }
        let mut dims = Vec::new();
        for child in children {
            let Some(child_dims) = site.memoized(child) else {
                return Err(site.error(b, "cannot be lowered: its layout is defined in terms of itself"));
            };
            dims.extend(child_dims);
            if dims.len() > lego_dialect::ops::MAX_SPELLED_RANK {
                return Err(site.error(
                    b,
                    format!("cannot be lowered: layout rank exceeds {}", lego_dialect::ops::MAX_SPELLED_RANK),
                ));
            }
        }
        visiting.remove(&value_key(value));
        site.memoize(value, &dims);
    }
    site.memoized(layout).ok_or_else(|| site.error(b, "cannot be lowered: its layout is defined in terms of itself"))
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

/// One step of [`emit_apply`]'s explicit stack.
enum ApplyTask<'c, 'a> {
    /// Emit `apply(layout, indices)`; push the flat index.
    Apply(Value<'c, 'a>, Vec<Value<'c, 'a>>),
    /// order_by (Horner): pop the accumulator, push `muli(acc, numel(dims))` (the accumulator when it is 1).
    Scale(Vec<Dim<'c, 'a>>),
    /// order_by: pop a block's flat index and the scaled accumulator, push their `addi`.
    Add,
    /// group_by: pop the flat index, unflatten it by the object's dims and apply the object.
    UnflattenApply(Value<'c, 'a>),
    /// expand_by: pop the inner layout's flat index, push the expanded one.
    Expand { dims: Vec<Dim<'c, 'a>>, to_dims: Vec<Dim<'c, 'a>> },
}

/// `apply(layout, indices)`: emits the flat index before the builder's anchor. An explicit stack instead of
/// recursion (layout chains of any depth); ops are emitted in the order of the recursive definition.
pub fn emit_apply<'c, 'a>(
    b: &Builder<'_, 'c, 'a>,
    site: &Site,
    layout: Value<'c, 'a>,
    indices: &[Value<'c, 'a>],
) -> Result<'c, Value<'c, 'a>> {
    let mut tasks = vec![ApplyTask::Apply(layout, indices.to_vec())];
    let mut flats: Vec<Value<'c, 'a>> = Vec::new();
    let missing = || site.error(b, "cannot be lowered: internal error in the apply emitter");
    while let Some(task) = tasks.pop() {
        let (layout, indices) = match task {
            ApplyTask::Apply(layout, indices) => (layout, indices),
            ApplyTask::Scale(dims) => {
                let accumulated = flats.pop().ok_or_else(missing)?;
                flats.push(match b.product(&dims) {
                    Dim::Static(1) => accumulated,
                    numel => b.binary("arith.muli", accumulated, b.size(&numel)),
                });
                continue;
            }
            ApplyTask::Add => {
                let part = flats.pop().ok_or_else(missing)?;
                let scaled = flats.pop().ok_or_else(missing)?;
                flats.push(b.binary("arith.addi", scaled, part));
                continue;
            }
            ApplyTask::UnflattenApply(object) => {
                let flat = flats.pop().ok_or_else(missing)?;
                let object_dims = logical_dims(b, site, object)?;
                (object, b.unflatten(flat, &object_dims))
            }
            ApplyTask::Expand { dims, to_dims } => {
                let flat = flats.pop().ok_or_else(missing)?;
                flats.push(expand_flat(b, flat, &dims, &to_dims));
                continue;
            }
        };
        let indices = indices.as_slice();
        match node(b, site, layout)? {
            LayoutOp::Row { dims } => {
                check_rank(b, site, indices.len(), dims.len(), "indices")?;
                flats.push(b.flatten(indices, &dims));
            }
            LayoutOp::Col { dims } => {
                check_rank(b, site, indices.len(), dims.len(), "indices")?;
                let order: Vec<usize> = (0..dims.len()).rev().collect();
                flats.push(b.flatten(&gather(indices, &order), &gather(&dims, &order)));
            }
            LayoutOp::RegP { perm, dims } => {
                check_rank(b, site, indices.len(), dims.len(), "indices")?;
                let order = permutation(b, site, &perm, dims.len())?;
                flats.push(b.flatten(&gather(indices, &order), &gather(&dims, &order)));
            }
            LayoutOp::GenP { dims, apply, .. } => {
                check_rank(b, site, indices.len(), dims.len(), "indices")?;
                let yielded = inline_region(b, site, apply, indices, "apply")?;
                match yielded.as_slice() {
                    [flat] => flats.push(*flat),
                    _ => {
                        return Err(site.error(
                            b,
                            format!("cannot be lowered: gen_p 'apply' region yields {} values, expected 1", yielded.len()),
                        ))
                    }
                }
            }
            LayoutOp::OrderBy { objects } => {
                // Horner: acc = addi(muli(acc, numel(P)), apply(P, slice)) block by block.
                let mut blocks = Vec::with_capacity(objects.len());
                let mut offset = 0;
                for object in objects {
                    let dims = logical_dims(b, site, object)?;
                    let Some(slice) = indices.get(offset..offset + dims.len()) else {
                        return Err(site.error(
                            b,
                            format!("number of indices ({}) is smaller than the layout rank", indices.len()),
                        ));
                    };
                    offset += dims.len();
                    blocks.push((object, slice.to_vec(), dims));
                }
                check_rank(b, site, indices.len(), offset, "indices")?;
                if blocks.is_empty() {
                    return Err(site.error(b, "cannot be lowered: order_by without objects"));
                }
                for (position, (object, slice, dims)) in blocks.into_iter().enumerate().rev() {
                    if position == 0 {
                        tasks.push(ApplyTask::Apply(object, slice));
                    } else {
                        tasks.push(ApplyTask::Add);
                        tasks.push(ApplyTask::Apply(object, slice));
                        tasks.push(ApplyTask::Scale(dims));
                    }
                }
            }
            LayoutOp::GroupBy { dims, objects } => {
                check_rank(b, site, indices.len(), dims.len(), "indices")?;
                // Objects run last to first: x = apply(O, B⁻¹(dims(O), x)).
                flats.push(b.flatten(indices, &dims));
                tasks.extend(objects.into_iter().map(ApplyTask::UnflattenApply));
            }
            LayoutOp::TileBy { inner, levels } => {
                let tiling = Tiling::read(b, site, inner, levels)?;
                tasks.push(ApplyTask::Apply(inner, tile_by::input_indices(b, site, &tiling, indices)?));
            }
            LayoutOp::Swizzle { swizzle, dims } => {
                check_rank(b, site, indices.len(), dims.len(), "indices")?;
                let flat = b.flatten(indices, &dims);
                flats.push(emit_swizzle(b, site, swizzle, flat)?);
            }
            LayoutOp::Strided { modes } => {
                check_rank(b, site, indices.len(), modes.len(), "indices")?;
                flats.push(strided_apply(b, site, &modes, indices)?);
            }
            LayoutOp::Compose { outer, inner } => {
                // apply(outer, B⁻¹(dims(outer), apply(inner, i⃗))), as one group_by object after another.
                tasks.push(ApplyTask::UnflattenApply(outer));
                tasks.push(ApplyTask::Apply(inner, indices.to_vec()));
            }
            LayoutOp::Inverse { inner } => {
                check_rank(b, site, indices.len(), 1, "indices")?;
                // B(dims(inner), inv(inner, x)): for a rank-1 inner exactly apply_inverse's ops.
                let index = site.nested_inverse(b, || emit_inverse(b, site, inner, indices[0]))?;
                let inner_dims = logical_dims(b, site, inner)?;
                flats.push(b.flatten(&index, &inner_dims));
            }
            LayoutOp::ExpandBy { inner, dims, to_dims } => {
                check_expand(b, site, &dims, &to_dims)?;
                tasks.push(ApplyTask::Expand { dims, to_dims });
                tasks.push(ApplyTask::Apply(inner, indices.to_vec()));
            }
        }
    }
    match flats.as_slice() {
        [flat] => Ok(*flat),
        _ => Err(missing()),
    }
}

/// CuTe's `Swizzle<B, M, S>` on a flat index: `xori(x, shrui(andi(x, (2^B − 1) << (M + S)), S))` — shifts, a
/// mask and exactly one `arith.xori` (nothing at all for `B = 0`, the identity). The parameters are checked
/// again (the verifier ran, but a pass may have built the op) so that a bad one is a located error, not a
/// shift by 64 or more.
fn emit_swizzle<'c, 'a>(
    b: &Builder<'_, 'c, 'a>,
    site: &Site,
    [bits, base, shift]: [i64; 3],
    flat: Value<'c, 'a>,
) -> Result<'c, Value<'c, 'a>> {
    let parameters = (u32::try_from(bits), u32::try_from(base), u32::try_from(shift));
    let (Ok(bits), Ok(base), Ok(shift)) = parameters else {
        return Err(site.error(b, format!("cannot be lowered: swizzle parameters [{bits}, {base}, {shift}] are negative")));
    };
    lego_algebra::check_swizzle_parameters(bits, base, shift)
        .map_err(|error| site.error(b, format!("cannot be lowered: {error}")))?;
    if bits == 0 {
        return Ok(flat);
    }
    let mask = ((1i64 << bits) - 1) << (base + shift);
    let high = b.binary("arith.andi", flat, b.constant(mask));
    let moved = b.binary("arith.shrui", high, b.constant(i64::from(shift)));
    Ok(b.binary("arith.xori", flat, moved))
}

/// A `strided` op's leaves, checked again as in the verifier (a pass may have built the op): a bad one is a
/// located error here, not wrong code.
fn strided_info<'c>(b: &Builder<'_, 'c, '_>, site: &Site, modes: &[Vec<(i64, i64)>]) -> Result<'c, lego_algebra::StridedInfo> {
    let leaves = lego_dialect::ops::strided_leaves(modes).map_err(|error| site.error(b, format!("cannot be lowered: {error}")))?;
    lego_algebra::check_strided(&leaves).map_err(|error| site.error(b, format!("cannot be lowered: strided layout: {error}")))
}

/// The logical dims of a `strided` op: each mode's product of leaf sizes.
fn strided_dims<'c, 'a>(b: &Builder<'_, 'c, 'a>, site: &Site, modes: &[Vec<(i64, i64)>]) -> Result<'c, Vec<Dim<'c, 'a>>> {
    strided_info(b, site, modes)?;
    // Valid: every product is at most the element count, below 2^63.
    Ok(modes.iter().map(|mode| Dim::Static(mode.iter().map(|(size, _)| size).product())).collect())
}

/// CuTe's `shape:stride` apply: each index split over its mode's leaves first leaf fastest (`remui` / `divui`
/// by the leaf sizes, the last leaf takes the rest), `Σ digit · stride` (stride 0 or size 1: no term).
fn strided_apply<'c, 'a>(
    b: &Builder<'_, 'c, 'a>,
    site: &Site,
    modes: &[Vec<(i64, i64)>],
    indices: &[Value<'c, 'a>],
) -> Result<'c, Value<'c, 'a>> {
    strided_info(b, site, modes)?;
    let mut sum: Option<Value<'c, 'a>> = None;
    for (mode, &index) in modes.iter().zip(indices) {
        let mut rest = index;
        for (position, &(size, stride)) in mode.iter().enumerate() {
            let last = position + 1 == mode.len();
            let digit = if last || size == 1 { rest } else { b.binary("arith.remui", rest, b.constant(size)) };
            if !last && size != 1 {
                rest = b.binary("arith.divui", rest, b.constant(size));
            }
            if size == 1 || stride == 0 {
                continue;
            }
            let term = if stride == 1 { digit } else { b.binary("arith.muli", digit, b.constant(stride)) };
            sum = Some(match sum {
                None => term,
                Some(accumulated) => b.binary("arith.addi", accumulated, term),
            });
        }
    }
    Ok(sum.unwrap_or_else(|| b.constant(0)))
}

/// The inverse of a compact `strided` op: leaf digit `(y div stride) mod size` (no `mod` for the leaf of the
/// largest stride, no `div` for stride 1), each mode's index `Σ digit · (product of its earlier leaf sizes)`.
fn strided_inverse<'c, 'a>(
    b: &Builder<'_, 'c, 'a>,
    site: &Site,
    modes: &[Vec<(i64, i64)>],
    flat: Value<'c, 'a>,
) -> Result<'c, Vec<Value<'c, 'a>>> {
    let info = strided_info(b, site, modes)?;
    if !info.compact {
        return Err(site.error(b, "layout is not invertible: it is built from a padded lego.strided (injective, but not onto its extent)"));
    }
    let largest = modes.iter().flatten().filter(|(size, _)| *size > 1).map(|(_, stride)| *stride).max();
    let mut result = Vec::with_capacity(modes.len());
    for mode in modes {
        let mut index: Option<Value<'c, 'a>> = None;
        let mut weight = 1i64;
        for &(size, stride) in mode {
            if size == 1 {
                continue;
            }
            let shifted = if stride == 1 { flat } else { b.binary("arith.divui", flat, b.constant(stride)) };
            let digit = if Some(stride) == largest { shifted } else { b.binary("arith.remui", shifted, b.constant(size)) };
            let term = if weight == 1 { digit } else { b.binary("arith.muli", digit, b.constant(weight)) };
            index = Some(match index {
                None => term,
                Some(accumulated) => b.binary("arith.addi", accumulated, term),
            });
            weight *= size;
        }
        result.push(index.unwrap_or_else(|| b.constant(0)));
    }
    Ok(result)
}

/// expand_by's apply after its input layout's: `B(n⃗, B⁻¹(m⃗, flat))` where every `j_k < n_k`, −1 elsewhere.
fn expand_flat<'c, 'a>(b: &Builder<'_, 'c, 'a>, flat: Value<'c, 'a>, dims: &[Dim<'c, 'a>], to_dims: &[Dim<'c, 'a>]) -> Value<'c, 'a> {
    let expanded = b.unflatten(flat, to_dims);
    let candidate = b.flatten(&expanded, dims);
    // j_k < n_k for every k whose n_k is not syntactically m_k (there B⁻¹ already bounds j_k).
    let mut inside: Option<Value> = None;
    for ((j, n), m) in expanded.iter().zip(dims).zip(to_dims) {
        if same_dim(n, m) {
            continue;
        }
        let below = b.ult(*j, b.size(n));
        inside = Some(match inside {
            None => below,
            Some(all) => b.binary("arith.andi", all, below),
        });
    }
    match inside {
        None => candidate,
        Some(condition) => b.select(condition, candidate, b.constant(-1)),
    }
}

/// One step of [`emit_inverse`]'s explicit stack. `flats` holds the running flat index of order_by and
/// group_by; `results` the logical indices computed so far.
enum InverseTask<'c, 'a> {
    /// Emit `apply_inverse(layout, flat)`; push the logical index to `results`.
    Inverse(Value<'c, 'a>, Value<'c, 'a>),
    /// order_by, one block (last to first): pop the running flat, push `divui(flat, numel)` back, invert the
    /// object on `remui(flat, numel)`.
    OrderByBlock(Value<'c, 'a>),
    /// order_by: drop the running flat, pop the `blocks` indices (last block first), push them concatenated.
    OrderByGather(usize),
    /// group_by, one object (first to last): pop the running flat and invert the object on it.
    GroupByObject(Value<'c, 'a>),
    /// group_by: pop the object's logical index, push `B(dims(O), it)` as the running flat.
    Flatten(Vec<Dim<'c, 'a>>),
    /// group_by: pop the running flat, push `B⁻¹(dims, it)`.
    GroupByEnd(Vec<Dim<'c, 'a>>),
    /// tile_by: pop the inner layout's logical index, push the level-major tile index.
    Tile { tiling: Tiling<'c, 'a>, flat: Value<'c, 'a> },
    /// compose: pop the running flat (`B(dims(outer), inv(outer, y))`) and invert the inner layout on it.
    ThenInverse(Value<'c, 'a>),
}

/// `apply_inverse(layout, flat)`: emits the logical index before the builder's anchor. An explicit stack
/// instead of recursion (layout chains of any depth); ops are emitted in the order of the recursive definition.
pub fn emit_inverse<'c, 'a>(
    b: &Builder<'_, 'c, 'a>,
    site: &Site,
    layout: Value<'c, 'a>,
    flat: Value<'c, 'a>,
) -> Result<'c, Vec<Value<'c, 'a>>> {
    let mut tasks = vec![InverseTask::Inverse(layout, flat)];
    let mut flats: Vec<Value<'c, 'a>> = Vec::new();
    let mut results: Vec<Vec<Value<'c, 'a>>> = Vec::new();
    let missing = || site.error(b, "cannot be lowered: internal error in the inverse emitter");
    while let Some(task) = tasks.pop() {
        let (layout, flat) = match task {
            InverseTask::Inverse(layout, flat) => (layout, flat),
            InverseTask::OrderByBlock(object) => {
                // Blocks last to first: inner = remui(f, numel(P)), f = divui(f, numel(P)), inverse(P, inner) —
                // the outermost block too gets its remui (its divui is dead and goes in the clean-up).
                let current = flats.pop().ok_or_else(missing)?;
                let numel = b.product(&logical_dims(b, site, object)?);
                let (inner, rest) = match numel {
                    Dim::Static(1) => (b.constant(0), current),
                    numel => {
                        let numel = b.size(&numel);
                        (b.binary("arith.remui", current, numel), b.binary("arith.divui", current, numel))
                    }
                };
                flats.push(rest);
                (object, inner)
            }
            InverseTask::OrderByGather(blocks) => {
                flats.pop().ok_or_else(missing)?;
                let first = results.len().checked_sub(blocks).ok_or_else(missing)?;
                let pieces = results.split_off(first);
                results.push(pieces.into_iter().rev().flatten().collect());
                continue;
            }
            InverseTask::GroupByObject(object) => {
                let current = flats.pop().ok_or_else(missing)?;
                tasks.push(InverseTask::Flatten(logical_dims(b, site, object)?));
                (object, current)
            }
            InverseTask::Flatten(object_dims) => {
                let unflat = results.pop().ok_or_else(missing)?;
                flats.push(b.flatten(&unflat, &object_dims));
                continue;
            }
            InverseTask::GroupByEnd(dims) => {
                let current = flats.pop().ok_or_else(missing)?;
                results.push(b.unflatten(current, &dims));
                continue;
            }
            InverseTask::Tile { tiling, flat } => {
                let split = results.pop().ok_or_else(missing)?;
                results.push(tile_by::regroup_inverse(b, site, &tiling, flat, split)?);
                continue;
            }
            InverseTask::ThenInverse(inner) => (inner, flats.pop().ok_or_else(missing)?),
        };
        match node(b, site, layout)? {
            LayoutOp::Row { dims } => results.push(b.unflatten(flat, &dims)),
            LayoutOp::Col { dims } => {
                let order: Vec<usize> = (0..dims.len()).rev().collect();
                let mut physical = b.unflatten(flat, &gather(&dims, &order));
                physical.reverse();
                results.push(physical);
            }
            LayoutOp::RegP { perm, dims } => {
                let order = permutation(b, site, &perm, dims.len())?;
                let physical = b.unflatten(flat, &gather(&dims, &order));
                // result[σ_k] = phys[k]
                let mut logical = physical.clone();
                for (k, &target) in order.iter().enumerate() {
                    logical[target] = physical[k];
                }
                results.push(logical);
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
                results.push(yielded);
            }
            LayoutOp::OrderBy { objects } => {
                flats.push(flat);
                tasks.push(InverseTask::OrderByGather(objects.len()));
                // Pushed first to last, so they run last to first.
                tasks.extend(objects.into_iter().map(InverseTask::OrderByBlock));
            }
            LayoutOp::GroupBy { dims, objects } => {
                // Objects run first to last: x = B(dims(O), inv(O, x)).
                flats.push(flat);
                tasks.push(InverseTask::GroupByEnd(dims));
                tasks.extend(objects.into_iter().rev().map(InverseTask::GroupByObject));
            }
            LayoutOp::TileBy { inner, levels } => {
                let tiling = Tiling::read(b, site, inner, levels)?;
                tasks.push(InverseTask::Tile { tiling, flat });
                tasks.push(InverseTask::Inverse(inner, flat));
            }
            LayoutOp::Swizzle { swizzle, dims } => {
                // The swizzle is its own inverse: B⁻¹(n⃗, swizzle(x)).
                let swizzled = emit_swizzle(b, site, swizzle, flat)?;
                results.push(b.unflatten(swizzled, &dims));
            }
            LayoutOp::Strided { modes } => results.push(strided_inverse(b, site, &modes, flat)?),
            LayoutOp::Compose { outer, inner } => {
                // inv(inner, B(dims(outer), inv(outer, y))): the outer object as in a group_by, then the inner.
                flats.push(flat);
                tasks.push(InverseTask::ThenInverse(inner));
                tasks.push(InverseTask::GroupByObject(outer));
            }
            LayoutOp::Inverse { inner } => {
                // (apply(inner, B⁻¹(dims(inner), y))): exactly apply's ops after the unflatten.
                let inner_dims = logical_dims(b, site, inner)?;
                let index = b.unflatten(flat, &inner_dims);
                results.push(vec![site.nested_inverse(b, || emit_apply(b, site, inner, &index))?]);
            }
            LayoutOp::ExpandBy { inner, dims, to_dims } => {
                check_expand(b, site, &dims, &to_dims)?;
                // inv(L, B(m⃗, B⁻¹(n⃗, x)))
                let compact = b.unflatten(flat, &dims);
                let expanded = b.flatten(&compact, &to_dims);
                tasks.push(InverseTask::Inverse(inner, expanded));
            }
        }
    }
    match results.len() {
        1 => results.pop().ok_or_else(missing),
        _ => Err(missing()),
    }
}

/// Every size given as an SSA value anywhere in `layout`'s construction (objects, inner layouts, levels),
/// in first-seen (depth-first, own sizes before the pieces') order without repetition. Iterative; each layout
/// value is visited once.
pub fn dynamic_sizes<'c, 'a>(b: &Builder<'_, 'c, 'a>, site: &Site, layout: Value<'c, 'a>) -> Result<'c, Vec<Value<'c, 'a>>> {
    let mut out = Vec::new();
    let mut seen_sizes = std::collections::HashSet::new();
    let mut seen_layouts = std::collections::HashSet::new();
    let mut pending = vec![layout];
    while let Some(layout) = pending.pop() {
        if !seen_layouts.insert(value_key(layout)) {
            continue;
        }
        let mut add = |dims: &[Dim<'c, 'a>]| {
            for dim in dims {
                if let Dim::Dynamic(value) = dim {
                    if seen_sizes.insert(value_key(*value)) {
                        out.push(*value);
                    }
                }
            }
        };
        match node(b, site, layout)? {
            LayoutOp::Row { dims }
            | LayoutOp::Col { dims }
            | LayoutOp::RegP { dims, .. }
            | LayoutOp::GenP { dims, .. }
            | LayoutOp::Swizzle { dims, .. } => add(&dims),
            LayoutOp::Compose { outer, inner } => pending.extend([inner, outer]),
            LayoutOp::Inverse { inner } => pending.push(inner),
            LayoutOp::Strided { .. } => {}
            LayoutOp::OrderBy { objects } => pending.extend(objects.into_iter().rev()),
            LayoutOp::GroupBy { dims, objects } => {
                add(&dims);
                pending.extend(objects.into_iter().rev());
            }
            LayoutOp::TileBy { inner, levels } => {
                for level in &levels {
                    add(level);
                }
                pending.push(inner);
            }
            LayoutOp::ExpandBy { inner, dims, to_dims } => {
                add(&dims);
                add(&to_dims);
                pending.push(inner);
            }
        }
    }
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
    // compose's positions are its outer layout's: follow the chain of outer layouts.
    let mut layout = layout;
    let dims = loop {
        match node(b, site, layout)? {
            LayoutOp::ExpandBy { dims, .. } => break dims,
            LayoutOp::Compose { outer, .. } => layout = outer,
            _ => break logical_dims(b, site, layout)?,
        }
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
    site.inlined.set(true);
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
