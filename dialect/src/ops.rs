//! Typed access to `lego` ops: what kind an op is, its (mixed static/SSA) dimension lists, the layout a
//! value was built from, and builders that create each op in its generic form (docs/generic-form.md).
//!
//! Everything that reads lego IR (verifier, lowering, verification passes, embedders) goes through here, so
//! the attribute encoding is known in one place.

use melior::{
    ir::{
        attribute::{ArrayAttribute, DenseI32ArrayAttribute, DenseI64ArrayAttribute, IntegerAttribute},
        block::BlockLike,
        operation::{OperationBuilder, OperationLike, OperationResult},
        r#type::Type,
        Attribute, BlockRef, Identifier, Location, Operation, OperationRef, Region, RegionLike, RegionRef,
        Value,
    },
    Context,
};

/// The `static_dims` entry that stands for an SSA size (MLIR's `ShapedType::kDynamic`).
pub const DYNAMIC: i64 = i64::MIN;

/// Every op of the dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    Row,
    Col,
    RegP,
    GenP,
    OrderBy,
    GroupBy,
    TileBy,
    ExpandBy,
    Swizzle,
    Compose,
    Inverse,
    Strided,
    Apply,
    ApplyInverse,
    CastView,
    Load,
    Store,
    Check,
    Assume,
    AssumeBounds,
    AssertApplyBounds,
    AssertInvBounds,
}

impl OpKind {
    pub const ALL: [OpKind; 22] = [
        OpKind::Row,
        OpKind::Col,
        OpKind::RegP,
        OpKind::GenP,
        OpKind::OrderBy,
        OpKind::GroupBy,
        OpKind::TileBy,
        OpKind::ExpandBy,
        OpKind::Swizzle,
        OpKind::Compose,
        OpKind::Inverse,
        OpKind::Strided,
        OpKind::Apply,
        OpKind::ApplyInverse,
        OpKind::CastView,
        OpKind::Load,
        OpKind::Store,
        OpKind::Check,
        OpKind::Assume,
        OpKind::AssumeBounds,
        OpKind::AssertApplyBounds,
        OpKind::AssertInvBounds,
    ];

    /// The full op name, e.g. `lego.reg_p`.
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Row => "lego.row",
            OpKind::Col => "lego.col",
            OpKind::RegP => "lego.reg_p",
            OpKind::GenP => "lego.gen_p",
            OpKind::OrderBy => "lego.order_by",
            OpKind::GroupBy => "lego.group_by",
            OpKind::TileBy => "lego.tile_by",
            OpKind::ExpandBy => "lego.expand_by",
            OpKind::Swizzle => "lego.swizzle",
            OpKind::Compose => "lego.compose",
            OpKind::Inverse => "lego.inverse",
            OpKind::Strided => "lego.strided",
            OpKind::Apply => "lego.apply",
            OpKind::ApplyInverse => "lego.apply_inverse",
            OpKind::CastView => "lego.cast_view",
            OpKind::Load => "lego.load",
            OpKind::Store => "lego.store",
            OpKind::Check => "lego.check",
            OpKind::Assume => "lego.assume",
            OpKind::AssumeBounds => "lego.assume_bounds",
            OpKind::AssertApplyBounds => "lego.assert_apply_bounds",
            OpKind::AssertInvBounds => "lego.assert_inv_bounds",
        }
    }

    pub fn from_name(name: &str) -> Option<OpKind> {
        OpKind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    pub fn of<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> Option<OpKind> {
        op.name().as_string_ref().as_str().ok().and_then(OpKind::from_name)
    }

    /// Ops whose result is a `!lego.layout`.
    pub fn is_layout_constructor(self) -> bool {
        matches!(
            self,
            OpKind::Row
                | OpKind::Col
                | OpKind::RegP
                | OpKind::GenP
                | OpKind::OrderBy
                | OpKind::GroupBy
                | OpKind::TileBy
                | OpKind::ExpandBy
                | OpKind::Swizzle
                | OpKind::Compose
                | OpKind::Inverse
                | OpKind::Strided
        )
    }
}

/// One entry of a dimension list: a literal written in the source, or an SSA `index` value.
#[derive(Clone, Copy, Debug)]
pub enum Dim<'c, 'a> {
    Static(i64),
    Dynamic(Value<'c, 'a>),
}

impl<'c, 'a> Dim<'c, 'a> {
    /// The size when it is known at compile time: a literal, or an SSA value defined by `arith.constant`
    /// (docs/reference/verifier.md counts those as known, so `%c0` used as a dim is rejected like a literal `0`).
    pub fn known(&self) -> Option<i64> {
        match self {
            Dim::Static(value) => Some(*value),
            Dim::Dynamic(value) => constant_index_value(*value),
        }
    }
}

/// `value` as an op result, or `None` for a block argument. Use this, not `OperationResult::try_from`: melior's
/// failing `try_from` prints the value (numbering and printing the whole enclosing function) to build its error,
/// which made every size operand that is a function argument cost a print of its function (issue 25).
pub fn op_result<'c, 'a>(value: Value<'c, 'a>) -> Option<OperationResult<'c, 'a>> {
    // SAFETY: `value` is a live value handle.
    if !unsafe { mlir_sys::mlirValueIsAOpResult(melior::ir::ValueLike::to_raw(&value)) } {
        return None;
    }
    OperationResult::try_from(value).ok()
}

/// `value` as a block argument, or `None` for an op result (asked first, for the reason of [`op_result`]).
pub fn block_argument<'c, 'a>(value: Value<'c, 'a>) -> Option<melior::ir::block::BlockArgument<'c, 'a>> {
    // SAFETY: `value` is a live value handle.
    if !unsafe { mlir_sys::mlirValueIsABlockArgument(melior::ir::ValueLike::to_raw(&value)) } {
        return None;
    }
    melior::ir::block::BlockArgument::try_from(value).ok()
}

/// Value of `v` if it is the result of an integer `arith.constant`.
pub fn constant_index_value(value: Value) -> Option<i64> {
    let owner = op_result(value)?.owner();
    if owner.name().as_string_ref().as_str().ok()? != "arith.constant" {
        return None;
    }
    IntegerAttribute::try_from(owner.attribute("value").ok()?).ok().map(|attribute| attribute.value())
}

/// The sizes among `dims` known at compile time and ≥ 1 (a non-positive one is the positivity rule's error).
pub fn known_sizes<'d>(dims: &'d [Dim]) -> impl Iterator<Item = u64> + 'd {
    dims.iter().filter_map(|dim| dim.known().and_then(|size| u64::try_from(size).ok()).filter(|size| *size >= 1))
}

/// Product of the sizes when all are known (checked: `None` on overflow or any unknown size).
pub fn known_product(dims: &[Dim]) -> Option<i64> {
    dims.iter().try_fold(1i64, |product, dim| product.checked_mul(dim.known()?))
}

/// Errors in the encoding of an op (its generic form was written by hand, or by a buggy producer).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccessError {
    #[error("requires attribute '{0}'")]
    MissingAttribute(&'static str),
    #[error("attribute '{0}' must be {1}")]
    BadAttribute(&'static str, &'static str),
    #[error("'{attribute}' has {dynamic} dynamic entries but the op has {operands} size operands")]
    DynamicCountMismatch { attribute: &'static str, dynamic: usize, operands: usize },
}

/// A layout constructor op, read structurally.
pub enum LayoutOp<'c, 'a> {
    Row { dims: Vec<Dim<'c, 'a>> },
    Col { dims: Vec<Dim<'c, 'a>> },
    RegP { perm: Vec<i64>, dims: Vec<Dim<'c, 'a>> },
    /// `inverse` is `None` for an apply-only gen_p (empty second region).
    GenP { dims: Vec<Dim<'c, 'a>>, apply: RegionRef<'c, 'a>, inverse: Option<RegionRef<'c, 'a>> },
    OrderBy { objects: Vec<Value<'c, 'a>> },
    GroupBy { dims: Vec<Dim<'c, 'a>>, objects: Vec<Value<'c, 'a>> },
    TileBy { inner: Value<'c, 'a>, levels: Vec<Vec<Dim<'c, 'a>>> },
    ExpandBy { inner: Value<'c, 'a>, dims: Vec<Dim<'c, 'a>>, to_dims: Vec<Dim<'c, 'a>> },
    /// `swizzle` is `[bits, base, shift]` as written (CuTe's `Swizzle<B, M, S>`; the verifier checks the ranges).
    Swizzle { swizzle: [i64; 3], dims: Vec<Dim<'c, 'a>> },
    /// `outer` after `inner`.
    Compose { outer: Value<'c, 'a>, inner: Value<'c, 'a> },
    Inverse { inner: Value<'c, 'a> },
    /// `modes[k]` = the `(size, stride)` leaves of logical dim `k`, as written (the verifier checks them).
    Strided { modes: Vec<Vec<(i64, i64)>> },
}

/// A `strided` op's leaves as `lego_algebra` takes them; `Err` names the first size or stride out of range.
pub fn strided_leaves(modes: &[Vec<(i64, i64)>]) -> Result<Vec<Vec<(u64, u64)>>, String> {
    modes
        .iter()
        .map(|mode| {
            mode.iter()
                .map(|&(size, stride)| {
                    let size = u64::try_from(size)
                        .ok()
                        .filter(|size| *size > 0)
                        .ok_or_else(|| format!("Dimension {size} must be strictly positive"))?;
                    let stride = u64::try_from(stride).map_err(|_| format!("stride {stride} must be non-negative"))?;
                    Ok((size, stride))
                })
                .collect()
        })
        .collect()
}

/// The logical dims of a `strided` op (the product of each mode's leaf sizes), when they fit.
pub fn strided_dims(modes: &[Vec<(i64, i64)>]) -> Option<Vec<i64>> {
    modes.iter().map(|mode| mode.iter().try_fold(1i64, |product, (size, _)| product.checked_mul(*size))).collect()
}

fn dense_i64(op: &OperationRef, name: &'static str) -> Result<Vec<i64>, AccessError> {
    let attribute = op.attribute(name).map_err(|_| AccessError::MissingAttribute(name))?;
    dense_i64_values(attribute).ok_or(AccessError::BadAttribute(name, "an array<i64: ...>"))
}

fn dense_i64_values(attribute: Attribute) -> Option<Vec<i64>> {
    let array = DenseI64ArrayAttribute::try_from(attribute).ok()?;
    (0..array.len()).map(|index| array.element(index).ok()).collect()
}

/// Pairs static entries with the SSA operands that fill their `DYNAMIC` slots, in order.
fn mix<'c, 'a>(
    attribute: &'static str,
    statics: &[i64],
    operands: &mut impl Iterator<Item = Value<'c, 'a>>,
) -> Result<Vec<Dim<'c, 'a>>, AccessError> {
    let dynamic = statics.iter().filter(|value| **value == DYNAMIC).count();
    let mut taken = 0;
    statics
        .iter()
        .map(|value| {
            if *value != DYNAMIC {
                return Ok(Dim::Static(*value));
            }
            taken += 1;
            operands.next().map(Dim::Dynamic).ok_or(AccessError::DynamicCountMismatch {
                attribute,
                dynamic,
                operands: taken - 1,
            })
        })
        .collect()
}

/// Size of each operand segment of an op with `operandSegmentSizes`.
fn segments(op: &OperationRef, count: usize) -> Result<Vec<usize>, AccessError> {
    const NAME: &str = "operandSegmentSizes";
    let attribute = op.attribute(NAME).map_err(|_| AccessError::MissingAttribute(NAME))?;
    let array = DenseI32ArrayAttribute::try_from(attribute)
        .map_err(|_| AccessError::BadAttribute(NAME, "an array<i32: ...>"))?;
    let sizes: Option<Vec<usize>> =
        (0..array.len()).map(|index| array.element(index).ok().and_then(|v| usize::try_from(v).ok())).collect();
    match sizes {
        Some(sizes) if sizes.len() == count => Ok(sizes),
        _ => Err(AccessError::BadAttribute(NAME, "one non-negative entry per operand group")),
    }
}

fn ensure_consumed<'c, 'a>(
    attribute: &'static str,
    statics: &[i64],
    rest: impl Iterator<Item = Value<'c, 'a>>,
) -> Result<(), AccessError> {
    let extra = rest.count();
    if extra == 0 {
        return Ok(());
    }
    let dynamic = statics.iter().filter(|value| **value == DYNAMIC).count();
    Err(AccessError::DynamicCountMismatch { attribute, dynamic, operands: dynamic + extra })
}

/// Reads a layout constructor op; `Ok(None)` for any other op.
pub fn layout_op<'c, 'a>(op: OperationRef<'c, 'a>) -> Result<Option<LayoutOp<'c, 'a>>, AccessError> {
    let Some(kind) = OpKind::of(&op) else { return Ok(None) };
    let mut operands = op.operands();
    let layout = match kind {
        OpKind::Row | OpKind::Col | OpKind::RegP | OpKind::GenP => {
            let statics = dense_i64(&op, "static_dims")?;
            let dims = mix("static_dims", &statics, &mut operands)?;
            ensure_consumed("static_dims", &statics, operands)?;
            match kind {
                OpKind::Row => LayoutOp::Row { dims },
                OpKind::Col => LayoutOp::Col { dims },
                OpKind::RegP => LayoutOp::RegP { perm: dense_i64(&op, "perm")?, dims },
                _ => {
                    let apply = op.region(0).map_err(|_| AccessError::BadAttribute("apply", "a region"))?;
                    let inverse = op.region(1).ok().filter(|region| region.first_block().is_some());
                    LayoutOp::GenP { dims, apply, inverse }
                }
            }
        }
        OpKind::Swizzle => {
            let statics = dense_i64(&op, "static_dims")?;
            let dims = mix("static_dims", &statics, &mut operands)?;
            ensure_consumed("static_dims", &statics, operands)?;
            let swizzle = match dense_i64(&op, "swizzle")?.as_slice() {
                &[bits, base, shift] => [bits, base, shift],
                _ => return Err(AccessError::BadAttribute("swizzle", "array<i64: bits, base, shift>")),
            };
            LayoutOp::Swizzle { swizzle, dims }
        }
        OpKind::Strided => {
            let counts = dense_i64(&op, "modes")?;
            let shape = dense_i64(&op, "shape")?;
            let stride = dense_i64(&op, "stride")?;
            let total = counts.iter().try_fold(0usize, |total, count| total.checked_add(usize::try_from(*count).ok()?));
            if total != Some(shape.len()) || shape.len() != stride.len() {
                return Err(AccessError::BadAttribute(
                    "modes",
                    "the leaf count of each mode, adding up to the lengths of 'shape' and 'stride'",
                ));
            }
            let mut leaves = shape.into_iter().zip(stride);
            let modes = counts.iter().map(|&count| leaves.by_ref().take(count as usize).collect()).collect();
            LayoutOp::Strided { modes }
        }
        OpKind::Compose => {
            let outer = operands.next().ok_or(AccessError::BadAttribute("outer", "a layout operand"))?;
            let inner = operands.next().ok_or(AccessError::BadAttribute("inner", "a layout operand"))?;
            LayoutOp::Compose { outer, inner }
        }
        OpKind::Inverse => {
            LayoutOp::Inverse { inner: operands.next().ok_or(AccessError::BadAttribute("inner", "a layout operand"))? }
        }
        OpKind::OrderBy => LayoutOp::OrderBy { objects: operands.collect() },
        OpKind::GroupBy => {
            let sizes = segments(&op, 2)?;
            let statics = dense_i64(&op, "static_dims")?;
            let mut dim_operands = operands.by_ref().take(sizes[0]).collect::<Vec<_>>().into_iter();
            let dims = mix("static_dims", &statics, &mut dim_operands)?;
            ensure_consumed("static_dims", &statics, dim_operands)?;
            LayoutOp::GroupBy { dims, objects: operands.collect() }
        }
        OpKind::TileBy => {
            let inner = operands.next().ok_or(AccessError::BadAttribute("inner", "a layout operand"))?;
            const NAME: &str = "static_tile_dims";
            let attribute = op.attribute(NAME).map_err(|_| AccessError::MissingAttribute(NAME))?;
            let array = ArrayAttribute::try_from(attribute)
                .map_err(|_| AccessError::BadAttribute(NAME, "an array of array<i64: ...>"))?;
            let mut levels = Vec::with_capacity(array.len());
            let mut all_statics = Vec::new();
            for index in 0..array.len() {
                let statics = array
                    .element(index)
                    .ok()
                    .and_then(dense_i64_values)
                    .ok_or(AccessError::BadAttribute(NAME, "an array of array<i64: ...>"))?;
                levels.push(mix(NAME, &statics, &mut operands)?);
                all_statics.extend(statics);
            }
            ensure_consumed(NAME, &all_statics, operands)?;
            LayoutOp::TileBy { inner, levels }
        }
        OpKind::ExpandBy => {
            let sizes = segments(&op, 3)?;
            let inner = operands.next().ok_or(AccessError::BadAttribute("inner", "a layout operand"))?;
            let statics = dense_i64(&op, "static_dims")?;
            let to_statics = dense_i64(&op, "static_to_dims")?;
            let mut dim_operands = operands.by_ref().take(sizes[1]).collect::<Vec<_>>().into_iter();
            let dims = mix("static_dims", &statics, &mut dim_operands)?;
            ensure_consumed("static_dims", &statics, dim_operands)?;
            let to_dims = mix("static_to_dims", &to_statics, &mut operands)?;
            ensure_consumed("static_to_dims", &to_statics, operands)?;
            LayoutOp::ExpandBy { inner, dims, to_dims }
        }
        _ => return Ok(None),
    };
    Ok(Some(layout))
}

/// The layout constructor that defines `value`, if `value` is an op result (not a block argument, e.g. a
/// layout passed into a function) and the op is well formed.
pub fn defining_layout<'c, 'a>(value: Value<'c, 'a>) -> Option<(OperationRef<'c, 'a>, LayoutOp<'c, 'a>)> {
    let owner = op_result(value)?.owner();
    layout_op(owner).ok().flatten().map(|layout| (owner, layout))
}

/// What is statically known about a layout value: its logical dims (`None` where unknown beyond the rank) and
/// whether every piece has an inverse. `None` overall when the value's construction is not visible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutShape {
    pub dims: Vec<Option<i64>>,
    pub invertible: bool,
}

impl LayoutShape {
    pub fn rank(&self) -> usize {
        self.dims.len()
    }
    /// Number of elements, when every dim is known.
    pub fn volume(&self) -> Option<i64> {
        self.dims.iter().try_fold(1i64, |product, dim| product.checked_mul((*dim)?))
    }
}

fn knowns(dims: &[Dim]) -> Vec<Option<i64>> {
    dims.iter().map(Dim::known).collect()
}

/// Computes [`LayoutShape`] by following the constructors that define `value` (one linear, non-recursive walk;
/// callers that ask about many values of one chain use [`LayoutFactsCache`]).
pub fn layout_shape(value: Value) -> Option<LayoutShape> {
    let dims = logical_dims(value)?;
    let invertible = LayoutFactsCache::default().facts(value).invertible;
    Some(LayoutShape { dims: knowns(&dims), invertible })
}

/// The most logical dims [`logical_dims`] spells out. A layout of higher rank (only reachable through a chain
/// of `order_by`s that reuse one value, doubling the rank at each step) counts as one whose dims are not known.
pub const MAX_SPELLED_RANK: usize = 1 << 16;

/// The logical dims of a layout (the sizes of the indices `apply` takes) as written; `None` when a
/// constructor they depend on is not visible (or the rank exceeds [`MAX_SPELLED_RANK`]). Iterative: layout
/// chains of any depth use constant stack.
pub fn logical_dims<'c: 'a, 'a>(value: Value<'c, 'a>) -> Option<Vec<Dim<'c, 'a>>> {
    let mut facts = LayoutFactsCache::default();
    if facts.facts(value).rank? > MAX_SPELLED_RANK {
        return None;
    }
    let mut dims = Vec::new();
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        let (_, layout) = defining_layout(value)?;
        match layout {
            LayoutOp::Row { dims: own }
            | LayoutOp::Col { dims: own }
            | LayoutOp::RegP { dims: own, .. }
            | LayoutOp::GenP { dims: own, .. }
            | LayoutOp::Swizzle { dims: own, .. }
            | LayoutOp::GroupBy { dims: own, .. } => dims.extend(own),
            // Objects in reverse, so that the first is expanded first; rank-0 objects add nothing (and could
            // otherwise be re-expanded exponentially often in a DAG).
            LayoutOp::OrderBy { objects } => {
                pending.extend(objects.into_iter().rev().filter(|object| facts.facts(*object).rank != Some(0)));
            }
            LayoutOp::TileBy { levels, .. } => dims.extend(levels.into_iter().flatten()),
            // docs/reference/semantics.md: apply(s⃗) = … apply(L, s⃗): the logical dims are those of the input layout.
            LayoutOp::ExpandBy { inner, .. } => pending.push(inner),
            // compose takes its inner layout's indices.
            LayoutOp::Compose { inner, .. } => pending.push(inner),
            // One size, Π dims(inner): spelled only when it is a known constant.
            LayoutOp::Inverse { inner } => dims.push(Dim::Static(facts.facts(inner).volume?)),
            LayoutOp::Strided { modes } => dims.extend(strided_dims(&modes)?.into_iter().map(Dim::Static)),
        }
    }
    Some(dims)
}

/// What the verifier asks about a layout at every use: its rank and element count (`None` where not known)
/// and whether every piece has an inverse (a piece whose construction is hidden is assumed invertible here;
/// lowering re-checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayoutFacts {
    /// `None` when a constructor the dims depend on is not visible.
    pub rank: Option<usize>,
    /// `None` when a dim is unknown or the product overflows.
    pub volume: Option<i64>,
    /// The product of the logical dims known at compile time (unknown and non-positive ones left out),
    /// saturating at `u64::MAX`: a lower bound of the element count, since every size is ≥ 1. The verifier
    /// compares it with the element-count bound (`lego_algebra::MAX_ELEMENTS`).
    pub known_volume: u64,
    pub invertible: bool,
    /// The layout is defined in terms of itself (possible in a graph region), or built from one that is.
    pub cyclic: bool,
}

impl LayoutFacts {
    const HIDDEN: LayoutFacts =
        LayoutFacts { rank: None, volume: None, known_volume: 1, invertible: true, cyclic: false };

    fn of_dims(dims: &[Dim], invertible: bool) -> LayoutFacts {
        LayoutFacts {
            rank: Some(dims.len()),
            volume: known_product(dims),
            known_volume: known_sizes(dims).fold(1u64, u64::saturating_mul),
            invertible,
            cyclic: false,
        }
    }
}

/// [`LayoutFacts`] per value, memoized, computed with an explicit stack: a chain of N constructors costs O(N)
/// in total however many of its values are asked about, and no stack depth. A cycle (possible in graph
/// regions) makes the values on it hidden.
#[derive(Default)]
pub struct LayoutFactsCache {
    facts: std::collections::HashMap<usize, LayoutFacts>,
    /// Printed types, by their (uniqued, so identifying) storage: the verifier compares element types as text,
    /// and printing a type through the C API costs more than the rest of a `load`'s checks.
    type_texts: std::collections::HashMap<usize, std::rc::Rc<str>>,
}

impl LayoutFactsCache {
    /// `ty` printed (`ty.to_string()`), printed once per type.
    pub fn type_text(&mut self, ty: melior::ir::Type) -> std::rc::Rc<str> {
        let key = melior::ir::r#type::TypeLike::to_raw(&ty).ptr as usize;
        std::rc::Rc::clone(self.type_texts.entry(key).or_insert_with(|| ty.to_string().into()))
    }

    fn key(value: Value) -> usize {
        melior::ir::ValueLike::to_raw(&value).ptr as usize
    }

    pub fn facts(&mut self, value: Value) -> LayoutFacts {
        if let Some(facts) = self.facts.get(&Self::key(value)) {
            return *facts;
        }
        let mut visiting = std::collections::HashSet::new();
        let mut pending = vec![(value, false)];
        while let Some((current, children_done)) = pending.pop() {
            let key = Self::key(current);
            if self.facts.contains_key(&key) {
                continue;
            }
            let layout = defining_layout(current).map(|(_, layout)| layout);
            let children: Vec<Value> = match &layout {
                Some(LayoutOp::OrderBy { objects } | LayoutOp::GroupBy { objects, .. }) => objects.clone(),
                Some(LayoutOp::TileBy { inner, .. } | LayoutOp::ExpandBy { inner, .. } | LayoutOp::Inverse { inner }) => {
                    vec![*inner]
                }
                Some(LayoutOp::Compose { outer, inner }) => vec![*outer, *inner],
                _ => Vec::new(),
            };
            if !children_done {
                visiting.insert(key);
                pending.push((current, true));
                for child in children {
                    let child_key = Self::key(child);
                    if !self.facts.contains_key(&child_key) && !visiting.contains(&child_key) {
                        pending.push((child, false));
                    }
                }
                continue;
            }
            // A child still being visited is on a cycle: hidden, and the cycle is recorded.
            let cycle = LayoutFacts { cyclic: true, ..LayoutFacts::HIDDEN };
            let child_facts = |cache: &Self, child: &Value| cache.facts.get(&Self::key(*child)).copied().unwrap_or(cycle);
            let children_cyclic = children.iter().any(|child| child_facts(self, child).cyclic);
            let mut facts = match layout {
                None => LayoutFacts::HIDDEN,
                Some(
                    LayoutOp::Row { dims }
                    | LayoutOp::Col { dims }
                    | LayoutOp::RegP { dims, .. }
                    | LayoutOp::Swizzle { dims, .. },
                ) => LayoutFacts::of_dims(&dims, true),
                Some(LayoutOp::GenP { dims, inverse, .. }) => LayoutFacts::of_dims(&dims, inverse.is_some()),
                Some(LayoutOp::GroupBy { dims, objects }) => {
                    let invertible = objects.iter().all(|object| child_facts(self, object).invertible);
                    LayoutFacts::of_dims(&dims, invertible)
                }
                Some(LayoutOp::OrderBy { objects }) => {
                    let mut facts =
                        LayoutFacts { rank: Some(0), volume: Some(1), known_volume: 1, invertible: true, cyclic: false };
                    for object in &objects {
                        let object = child_facts(self, object);
                        facts.rank = facts.rank.zip(object.rank).map(|(a, b)| a.saturating_add(b));
                        facts.volume = facts.volume.zip(object.volume).and_then(|(a, b)| a.checked_mul(b));
                        facts.known_volume = facts.known_volume.saturating_mul(object.known_volume);
                        facts.invertible &= object.invertible;
                    }
                    if facts.rank.is_none() {
                        facts.volume = None;
                    }
                    facts
                }
                Some(LayoutOp::TileBy { inner, levels }) => {
                    let tiles: Vec<Dim> = levels.into_iter().flatten().collect();
                    LayoutFacts::of_dims(&tiles, child_facts(self, &inner).invertible)
                }
                Some(LayoutOp::ExpandBy { inner, .. }) => child_facts(self, &inner),
                Some(LayoutOp::Compose { outer, inner }) => {
                    let inner_facts = child_facts(self, &inner);
                    LayoutFacts { invertible: inner_facts.invertible && child_facts(self, &outer).invertible, ..inner_facts }
                }
                Some(LayoutOp::Inverse { inner }) => LayoutFacts { rank: Some(1), ..child_facts(self, &inner) },
                Some(LayoutOp::Strided { modes }) => {
                    let dims: Vec<Dim> = strided_dims(&modes).unwrap_or_default().into_iter().map(Dim::Static).collect();
                    let compact = strided_leaves(&modes)
                        .ok()
                        .and_then(|leaves| lego_algebra::check_strided(&leaves).ok())
                        .is_some_and(|info| info.compact);
                    LayoutFacts { rank: Some(modes.len()), ..LayoutFacts::of_dims(&dims, compact) }
                }
            };
            facts.cyclic |= children_cyclic;
            visiting.remove(&key);
            self.facts.insert(key, facts);
        }
        self.facts.get(&Self::key(value)).copied().unwrap_or(LayoutFacts::HIDDEN)
    }

    /// [`layout_codomain`] with this cache's facts.
    pub fn codomain(&mut self, value: Value) -> Option<i64> {
        // compose's positions are its outer layout's: follow the chain of outer layouts (iteratively).
        let mut value = value;
        loop {
            match defining_layout(value)? {
                (_, LayoutOp::ExpandBy { dims, .. }) => return known_product(&dims),
                (_, LayoutOp::Compose { outer, .. }) => value = outer,
                // A padded strided spans its extent.
                (_, LayoutOp::Strided { modes }) => {
                    let info = lego_algebra::check_strided(&strided_leaves(&modes).ok()?).ok()?;
                    return i64::try_from(info.extent).ok();
                }
                _ => return self.facts(value).volume,
            }
        }
    }
}

/// What makes a layout apply-only, for the verifier's message: the first apply-only `gen_p` or padded
/// `strided` found among the constructors that build it (depth first).
pub fn apply_only_piece(value: Value) -> &'static str {
    let mut pending = vec![value];
    let mut seen = std::collections::HashSet::new();
    while let Some(value) = pending.pop() {
        if !seen.insert(melior::ir::ValueLike::to_raw(&value).ptr as usize) {
            continue;
        }
        match defining_layout(value) {
            Some((_, LayoutOp::GenP { inverse: None, .. })) => break,
            Some((_, LayoutOp::Strided { .. })) if !maps_onto(value) => {
                return "a padded lego.strided (injective, but not onto its extent)";
            }
            Some((_, LayoutOp::OrderBy { objects } | LayoutOp::GroupBy { objects, .. })) => pending.extend(objects.into_iter().rev()),
            Some((_, LayoutOp::TileBy { inner, .. } | LayoutOp::ExpandBy { inner, .. } | LayoutOp::Inverse { inner })) => {
                pending.push(inner)
            }
            Some((_, LayoutOp::Compose { outer, inner })) => pending.extend([inner, outer]),
            _ => {}
        }
    }
    "an apply-only lego.gen_p (no 'inv' region)"
}

/// Whether the layout maps onto its elements (with invertibility: a bijection): false when its last stage is an
/// `expand_by` (padding positions have no element), as `lego_algebra::Layout::is_onto`. A layout whose
/// construction is hidden counts as onto (lowering re-checks what it can see). Iterative.
pub fn maps_onto(value: Value) -> bool {
    let mut pending = vec![value];
    let mut seen = std::collections::HashSet::new();
    while let Some(value) = pending.pop() {
        if !seen.insert(melior::ir::ValueLike::to_raw(&value).ptr as usize) {
            continue;
        }
        match defining_layout(value) {
            Some((_, LayoutOp::ExpandBy { .. })) => return false,
            Some((_, LayoutOp::Strided { modes })) => {
                let compact = strided_leaves(&modes).ok().and_then(|leaves| lego_algebra::check_strided(&leaves).ok());
                if !compact.is_some_and(|info| info.compact) {
                    return false;
                }
            }
            Some((_, LayoutOp::Compose { outer, .. })) => pending.push(outer),
            Some((_, LayoutOp::OrderBy { objects })) => pending.extend(objects),
            Some((_, LayoutOp::GroupBy { objects, .. })) => pending.extend(objects.first().copied()),
            Some((_, LayoutOp::TileBy { inner, .. })) => pending.push(inner),
            _ => {}
        }
    }
    true
}

/// The index operands of `apply`/`load`/`store`/`assert_apply_bounds` (everything after the layout or view).
pub fn index_operands<'c, 'a>(op: OperationRef<'c, 'a>) -> Vec<Value<'c, 'a>> {
    let skip = match OpKind::of(&op) {
        Some(OpKind::Store) => 2,
        _ => 1,
    };
    op.operands().skip(skip).collect()
}

/// The first block of a region, if any.
pub fn entry_block<'c, 'a>(region: RegionRef<'c, 'a>) -> Option<BlockRef<'c, 'a>> {
    region.first_block()
}

// ---------------------------------------------------------------------------------------------------------
// Builders. Each returns a detached generic op; the caller inserts it. Types are parsed once per call
// because IRDL types have no C API constructor besides the parser.

/// `!lego.layout` in `context`.
pub fn layout_type(context: &Context) -> Type<'_> {
    Type::parse(context, "!lego.layout").expect("!lego.layout parses once the dialect is registered")
}

/// `index` in `context`.
pub fn index_type(context: &Context) -> Type<'_> {
    Type::index(context)
}

fn split_dims<'c, 'a>(dims: &[Dim<'c, 'a>]) -> (Vec<i64>, Vec<Value<'c, 'a>>) {
    let statics = dims.iter().map(|dim| if let Dim::Static(v) = dim { *v } else { DYNAMIC }).collect();
    let dynamics = dims.iter().filter_map(|dim| if let Dim::Dynamic(v) = dim { Some(*v) } else { None }).collect();
    (statics, dynamics)
}

fn named<'c>(context: &'c Context, name: &str, attribute: Attribute<'c>) -> (Identifier<'c>, Attribute<'c>) {
    (Identifier::new(context, name), attribute)
}

fn build(builder: OperationBuilder) -> Operation {
    // The builders only produce well-formed generic ops; creation can only fail on a null context.
    builder.build().expect("lego op builders produce valid operation states")
}

/// `lego.row` / `lego.col` / `lego.reg_p` (give `perm` for reg_p).
pub fn build_permutation_layout<'c>(
    context: &'c Context,
    location: Location<'c>,
    kind: OpKind,
    perm: Option<&[i64]>,
    dims: &[Dim<'c, '_>],
) -> Operation<'c> {
    let (statics, dynamics) = split_dims(dims);
    let mut attributes = vec![named(context, "static_dims", DenseI64ArrayAttribute::new(context, &statics).into())];
    if let Some(perm) = perm {
        attributes.push(named(context, "perm", DenseI64ArrayAttribute::new(context, perm).into()));
    }
    build(
        OperationBuilder::new(kind.name(), location)
            .add_operands(&dynamics)
            .add_attributes(&attributes)
            .add_results(&[layout_type(context)]),
    )
}

/// `lego.gen_p` with its `apply` region and optional `inv` region (pass an empty region for apply-only).
pub fn build_gen_p<'c>(
    context: &'c Context,
    location: Location<'c>,
    dims: &[Dim<'c, '_>],
    apply: Region<'c>,
    inverse: Region<'c>,
) -> Operation<'c> {
    let (statics, dynamics) = split_dims(dims);
    build(
        OperationBuilder::new(OpKind::GenP.name(), location)
            .add_operands(&dynamics)
            .add_attributes(&[named(context, "static_dims", DenseI64ArrayAttribute::new(context, &statics).into())])
            .add_regions([apply, inverse])
            .add_results(&[layout_type(context)]),
    )
}

/// `lego.order_by(objects...)`.
pub fn build_order_by<'c>(context: &'c Context, location: Location<'c>, objects: &[Value<'c, '_>]) -> Operation<'c> {
    build(OperationBuilder::new(OpKind::OrderBy.name(), location).add_operands(objects).add_results(&[layout_type(context)]))
}

/// `lego.group_by [dims](objects...)`.
pub fn build_group_by<'c>(
    context: &'c Context,
    location: Location<'c>,
    dims: &[Dim<'c, '_>],
    objects: &[Value<'c, '_>],
) -> Operation<'c> {
    let (statics, dynamics) = split_dims(dims);
    let segments = [dynamics.len() as i32, objects.len() as i32];
    let mut operands = dynamics;
    operands.extend_from_slice(objects);
    build(
        OperationBuilder::new(OpKind::GroupBy.name(), location)
            .add_operands(&operands)
            .add_attributes(&[
                named(context, "static_dims", DenseI64ArrayAttribute::new(context, &statics).into()),
                named(context, "operandSegmentSizes", DenseI32ArrayAttribute::new(context, &segments).into()),
            ])
            .add_results(&[layout_type(context)]),
    )
}

/// `lego.tile_by inner tile_dims [[level0...], [level1...], ...]`.
pub fn build_tile_by<'c>(
    context: &'c Context,
    location: Location<'c>,
    inner: Value<'c, '_>,
    levels: &[Vec<Dim<'c, '_>>],
) -> Operation<'c> {
    let mut operands = vec![inner];
    let mut level_attributes = Vec::with_capacity(levels.len());
    for level in levels {
        let (statics, dynamics) = split_dims(level);
        level_attributes.push(DenseI64ArrayAttribute::new(context, &statics).into());
        operands.extend(dynamics);
    }
    build(
        OperationBuilder::new(OpKind::TileBy.name(), location)
            .add_operands(&operands)
            .add_attributes(&[named(context, "static_tile_dims", ArrayAttribute::new(context, &level_attributes).into())])
            .add_results(&[layout_type(context)]),
    )
}

/// The discardable unit attribute on a `lego.assume_bounds` that `lego-to-arith{assume-bounds=true}` states
/// for a layout's inputs: a consequence of docs/reference/semantics.md's contract (inputs outside the layout are
/// unspecified), not user knowledge. Verifiers never take such a fact as a premise (it would make a bounds
/// obligation hold vacuously), and `lego-lower` drops them once the simplifier has used them.
pub const LAYOUT_CONTRACT_ATTR: &str = "lego.layout_contract";

/// `lego.assume_bounds value [lb : lower] [ub : upper]`, optionally marked [`LAYOUT_CONTRACT_ATTR`].
pub fn build_assume_bounds<'c>(
    context: &'c Context,
    location: Location<'c>,
    value: Value<'c, '_>,
    lower: Option<Value<'c, '_>>,
    upper: Option<Value<'c, '_>>,
    layout_contract: bool,
) -> Operation<'c> {
    let mut operands = vec![value];
    operands.extend(lower);
    operands.extend(upper);
    let segments = [1, i32::from(lower.is_some()), i32::from(upper.is_some())];
    let mut attributes =
        vec![named(context, "operandSegmentSizes", DenseI32ArrayAttribute::new(context, &segments).into())];
    if layout_contract {
        attributes.push(named(context, LAYOUT_CONTRACT_ATTR, Attribute::unit(context)));
    }
    build(OperationBuilder::new(OpKind::AssumeBounds.name(), location).add_operands(&operands).add_attributes(&attributes))
}

/// `lego.apply layout(indices...)`.
pub fn build_apply<'c>(
    context: &'c Context,
    location: Location<'c>,
    layout: Value<'c, '_>,
    indices: &[Value<'c, '_>],
) -> Operation<'c> {
    let mut operands = vec![layout];
    operands.extend_from_slice(indices);
    build(OperationBuilder::new(OpKind::Apply.name(), location).add_operands(&operands).add_results(&[index_type(context)]))
}

/// `lego.apply_inverse layout(flat) -> rank indices`.
pub fn build_apply_inverse<'c>(
    context: &'c Context,
    location: Location<'c>,
    layout: Value<'c, '_>,
    flat: Value<'c, '_>,
    rank: usize,
) -> Operation<'c> {
    build(
        OperationBuilder::new(OpKind::ApplyInverse.name(), location)
            .add_operands(&[layout, flat])
            .add_results(&vec![index_type(context); rank]),
    )
}

/// The value yielded by each region terminator: gen_p regions end in `smt.yield` (docs/generic-form.md).
pub const REGION_TERMINATOR: &str = "smt.yield";

/// The operands of a gen_p region's terminator, if the region has the expected shape.
pub fn yielded_values<'c, 'a>(region: RegionRef<'c, 'a>) -> Option<Vec<Value<'c, 'a>>> {
    let terminator = region.first_block()?.terminator()?;
    (terminator.name().as_string_ref().as_str().ok()? == REGION_TERMINATOR).then(|| terminator.operands().collect())
}

/// Visits `root` and every op nested in it, parents before children, in IR order. A plain Rust walk (rather
/// than `mlirOperationWalk`) so no callback runs under C++ frames.
pub fn walk_ops<'c, 'a>(root: OperationRef<'c, 'a>, visit: &mut dyn FnMut(OperationRef<'c, 'a>)) {
    visit(root);
    for region in root.regions() {
        let mut block = region.first_block();
        while let Some(current) = block {
            let mut op = current.first_operation();
            while let Some(nested) = op {
                walk_ops(nested, visit);
                op = nested.next_in_block();
            }
            block = current.next_in_region();
        }
    }
}

/// The number of positions a layout maps to (what a viewed memref must hold): `Π n⃗` for
/// `expand_by L dims n⃗ to m⃗`, the element count otherwise. `None` when unknown.
pub fn layout_codomain(value: Value) -> Option<i64> {
    LayoutFactsCache::default().codomain(value)
}

#[cfg(test)]
mod tests {
    use super::{block_argument, constant_index_value, op_result};
    use melior::ir::{block::BlockLike, operation::OperationLike, RegionLike};

    /// A size that is a function argument and one that is a constant: each is recognised as what it is, and
    /// asking a block argument whether it is an op result (the question every SSA size raises) says no.
    #[test]
    fn op_result_and_block_argument_tell_values_apart() {
        let context = crate::create_context().expect("the lego dialect registers");
        let text = "func.func @f(%n: index) -> index {\n  %c = arith.constant 8 : index\n  %s = arith.addi %n, %c : index\n  return %s : index\n}\n";
        let module = crate::source::parse(&context, "test.mlir", text).expect("parses");
        let body = module.body();
        let function = body.first_operation().expect("a function");
        let entry = function.region(0).expect("a body").first_block().expect("an entry block");
        let argument = entry.argument(0).expect("an argument").into();
        let add = entry.first_operation().and_then(|op| op.next_in_block()).expect("the addi");
        let constant = add.operand(1).expect("the constant operand");
        assert!(op_result(argument).is_none());
        assert!(block_argument(argument).is_some());
        assert!(op_result(constant).is_some());
        assert!(block_argument(constant).is_none());
        assert_eq!(constant_index_value(constant), Some(8));
        assert_eq!(constant_index_value(argument), None);
    }
}
