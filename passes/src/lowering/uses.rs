//! Lowering of the ops that use a layout: `apply`, `apply_inverse`, `load`, `store`. Each is replaced by
//! the arithmetic of [`super::emit`] inserted right before it (and a `memref.load` / `memref.store`).

use super::{
    emit::{dynamic_sizes, emit_apply, emit_inverse, inverse_domain_size, logical_dims, node, Site},
    tile_by::Tiling,
    ir::{defining_op, erase, first_result, replace_all_uses, results, Builder, Located, Result},
};
use lego_dialect::ops::{build_assume_bounds, constant_index_value, Dim, LayoutOp, OpKind};
use melior::ir::{block::BlockLike, operation::OperationLike, r#type::TypeLike, OperationRef, Type, Value, ValueLike};
use melior::Context;
use crate::simplify::ir::{self, Key};
use mlir_sys::{MlirOperation, MlirValue};
use std::collections::HashMap;

/// Lowers one use op and erases it. `kind` is its kind (one of the four). With `contract`, the layout's
/// contract on the op's inputs is stated first (see [`state_input_bounds`]).
pub fn lower_use<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    kind: OpKind,
    mut contract: Option<&mut ContractFacts>,
) -> Result<'c, bool> {
    let Some(b) = Builder::before(context, op) else {
        return Err(Located::new(op.location(), format!("'{}' op is not in a block", kind.name())));
    };
    let site = Site::new(kind.name());
    let operand = |index: usize| {
        op.operand(index)
            .map_err(|_| Located::new(op.location(), format!("'{}' op is missing operand #{index}", kind.name())))
    };
    match kind {
        OpKind::Apply => {
            let indices: Vec<Value> = op.operands().skip(1).collect();
            if let Some(contract) = contract.as_deref_mut() {
                state_input_bounds(&b, &site, operand(0)?, Inputs::Indices(&indices), contract)?;
            }
            let flat = emit_apply(&b, &site, operand(0)?, &indices)?;
            replace_all_uses(first_result(op), flat);
        }
        OpKind::ApplyInverse => {
            if let Some(contract) = contract.as_deref_mut() {
                state_input_bounds(&b, &site, operand(0)?, Inputs::Flat(operand(1)?), contract)?;
            }
            let logical = emit_inverse(&b, &site, operand(0)?, operand(1)?)?;
            let old = results(op);
            if old.len() != logical.len() {
                return Err(Located::new(
                    op.location(),
                    format!(
                        "'{}' op number of results ({}) does not match layout rank ({})",
                        kind.name(),
                        old.len(),
                        logical.len()
                    ),
                ));
            }
            for (from, to) in old.into_iter().zip(logical) {
                replace_all_uses(from, to);
            }
        }
        OpKind::Load => {
            let indices: Vec<Value> = op.operands().skip(1).collect();
            let result = first_result(op);
            let (memref, position) = access(&b, &site, operand(0)?, &indices, result.r#type(), contract)?;
            let mut operands = vec![memref];
            operands.extend(position);
            let load = b.op("memref.load", &operands, &[result.r#type()], &[]);
            replace_all_uses(result, first_result(load));
        }
        OpKind::Store => {
            let value = operand(0)?;
            let indices: Vec<Value> = op.operands().skip(2).collect();
            let (memref, position) = access(&b, &site, operand(1)?, &indices, value.r#type(), contract)?;
            let mut operands = vec![value, memref];
            operands.extend(position);
            b.op("memref.store", &operands, &[], &[]);
        }
        _ => return Ok(false),
    }
    tracing::debug!(target: "lego", "lowered {} at {}", kind.name(), op.location());
    erase(op);
    Ok(site.inlined_region())
}

/// The memref behind `view` and the memref indices of element `indices`: the flat `apply` result for a
/// rank-1 memref, its `B⁻¹` over the memref's shape otherwise (`memref.dim` for dynamic extents).
fn access<'c, 'a>(
    b: &Builder<'_, 'c, 'a>,
    site: &Site,
    view: Value<'c, 'a>,
    indices: &[Value<'c, 'a>],
    element: Type<'c>,
    contract: Option<&mut ContractFacts>,
) -> Result<'c, (Value<'c, 'a>, Vec<Value<'c, 'a>>)> {
    let error = |reason: String| Located::new(b.location, format!("'{}' op {reason}", site.op_name));
    let cast = defining_op(view)
        .filter(|owner| OpKind::of(owner) == Some(OpKind::CastView))
        .ok_or_else(|| {
            error("cannot be lowered: its view is not produced by a visible lego.cast_view (views may only cross function boundaries as call arguments of func.func / func.call)".into())
        })?;
    let (Ok(memref), Ok(layout)) = (cast.operand(0), cast.operand(1)) else {
        return Err(error("cannot be lowered: malformed lego.cast_view".into()));
    };
    let memref_type = memref.r#type();
    // SAFETY: type queries on a live type.
    let (is_memref, rank) = unsafe {
        let raw = memref_type.to_raw();
        let is_memref = mlir_sys::mlirTypeIsAMemRef(raw);
        (is_memref, if is_memref { mlir_sys::mlirShapedTypeGetRank(raw) } else { 0 })
    };
    if !is_memref {
        return Err(error(format!("cannot be lowered: '{memref_type}' is not a ranked memref")));
    }
    // SAFETY: `memref_type` is a memref.
    let memref_element = unsafe { Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(memref_type.to_raw())) };
    if memref_element != element {
        return Err(error(format!(
            "element type '{element}' does not match the element type '{memref_element}' of the viewed memref"
        )));
    }
    let shape: Vec<Dim> = if rank > 1 {
        (0..rank).map(|axis| memref_extent(b, memref, memref_type, axis as isize)).collect()
    } else {
        Vec::new()
    };
    if let Some(contract) = contract {
        state_input_bounds(b, site, layout, Inputs::Indices(indices), contract)?;
    }
    let flat = emit_apply(b, site, layout, indices)?;
    let position = match rank {
        0 => Vec::new(),
        1 => vec![flat],
        _ => b.unflatten(flat, &shape),
    };
    Ok((memref, position))
}

/// What a use op feeds its layout.
enum Inputs<'s, 'c, 'a> {
    /// Logical indices (apply, load, store).
    Indices(&'s [Value<'c, 'a>]),
    /// A flat position (apply_inverse).
    Flat(Value<'c, 'a>),
}

/// States the layout's contract on `inputs` as `lego.assume_bounds` marked [`lego_dialect::ops::LAYOUT_CONTRACT_ATTR`]:
/// - each index below its logical dim, a flat position below the inverse's domain (docs/reference/semantics.md leaves
///   other inputs unspecified);
/// - each size given as an SSA value in `[1, 2^63)` and a flat position below 2^63 when its bound is not a
///   literal: sizes are positive, and indices and sizes are non-negative `index` values — which the
///   lowering already relies on (docs/reference/semantics.md: indices and sizes are non-negative and do not wrap).
///
/// The facts are what lets `lego-arith-simplification` see that a layout's dims bound its indices (the
/// outermost index of a linearization carries no bound of its own) and read `B⁻¹` as unsigned division.
/// Constants get none: their range is known already.
fn state_input_bounds<'c, 'a>(
    b: &Builder<'_, 'c, 'a>,
    site: &Site,
    layout: Value<'c, 'a>,
    inputs: Inputs<'_, 'c, 'a>,
    contract: &mut ContractFacts,
) -> Result<'c, ()> {
    let mut facts: Vec<(Value, Option<Dim>, Dim)> = Vec::new();
    let signed_limit = Dim::Static(i64::MIN); // 2^63 read as unsigned
    for size in dynamic_sizes(b, site, layout)? {
        facts.push((size, Some(Dim::Static(1)), signed_limit));
    }
    let inverse = matches!(inputs, Inputs::Flat(_));
    match inputs {
        Inputs::Indices(indices) => {
            let dims = logical_dims(b, site, layout)?;
            if dims.len() != indices.len() {
                return Ok(()); // the lowering reports the rank mismatch
            }
            facts.extend(indices.iter().zip(dims).map(|(index, dim)| (*index, None, dim)));
        }
        Inputs::Flat(flat) => {
            let size = inverse_domain_size(b, site, layout)?;
            if !matches!(size, Some(Dim::Static(_))) {
                facts.push((flat, None, signed_limit));
            }
            facts.extend(size.map(|size| (flat, None, size)));
        }
    }
    for (value, lower, upper) in facts {
        if constant_index_value(value).is_some() || upper.known().is_some_and(|size| size == 0) {
            continue;
        }
        contract.state(b, value, lower, Some(upper));
    }
    // A tile_by's sizes are consistent (the symbolic-size contract): per dim, the product of the tile dims is
    // the product of the blocks' dims, stated as `t ≥ o` and `o ≥ t` — an equation the simplifier may use
    // (e.g. `(x div d) rem m → x div d` once `x < m·d` follows from it). Only for apply_inverse: the inverse
    // is where the order_by's remainders can be redundant; apply's output stays as it was.
    if inverse {
        if let LayoutOp::TileBy { inner, levels } = node(b, site, layout)? {
            let tiling = Tiling::read(b, site, inner, levels)?;
            for (tiles, blocks) in tiling.consistency(b) {
                let (tiles, blocks) = (b.size(&tiles), b.size(&blocks));
                contract.state(b, tiles, Some(Dim::Dynamic(blocks)), None);
                contract.state(b, blocks, Some(Dim::Dynamic(tiles)), None);
            }
        }
    }
    Ok(())
}

/// The layout-contract facts [`state_input_bounds`] inserts (one `lego.assume_bounds` each), and, when
/// `once_per_block`, those already stated in the current round of lowering, so that a fact stated again in
/// the same block on the same values is left out.
///
/// Why the later copy adds nothing: a fact is about SSA values, which never change, and the earlier copy sits
/// earlier in the same block (the uses of one round are lowered in IR order and each states its facts right
/// before itself), so it holds wherever the later copy would. What reads the facts sees the same: the
/// simplifier's fact collection keeps one copy of a fact in the block defining its value, and for other
/// blocks the earlier copy dominates every point the later one does; lego-lower erases all of them at its end.
/// lego-lower's output is unchanged (`bench/compile-time/same_output.py`: every lit input and the generated
/// modules), while on `gen.py applies` (every apply on the same two indices) its passes see ~30 % fewer ops
/// (the copies were 3 in 4 of the ops left after its CSE). Only lego-lower asks for it:
/// `lego-to-arith{assume-bounds=true}` run alone keeps stating every copy, as its users' tests expect. A new
/// round (gen_p bodies inlined where earlier uses were) starts afresh: its uses may sit before facts of the
/// round before.
#[derive(Default)]
pub struct ContractFacts {
    once_per_block: bool,
    stated: HashMap<FactKey, MlirOperation>,
}

/// A fact's block, value and bounds, by identity (a literal bound by its value).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct FactKey {
    block: Key,
    value: Key,
    lower: Option<BoundKey>,
    upper: Option<BoundKey>,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum BoundKey {
    Literal(i64),
    Value(Key),
}

impl BoundKey {
    fn of(dim: &Dim) -> BoundKey {
        match dim {
            Dim::Static(literal) => BoundKey::Literal(*literal),
            Dim::Dynamic(value) => BoundKey::Value(ir::key(value.to_raw())),
        }
    }

    /// Whether `operand` (of a stated fact) is this bound: the same value, or a constant of the literal.
    fn is(&self, operand: MlirValue) -> bool {
        match self {
            BoundKey::Literal(literal) => {
                // SAFETY: `operand` is an operand of a live op.
                let value = unsafe { Value::from_raw(operand) };
                constant_index_value(value) == Some(*literal)
            }
            BoundKey::Value(key) => ir::key(operand) == *key,
        }
    }
}

impl ContractFacts {
    /// Every fact stated where it is needed (`lego-to-arith{assume-bounds=true}`).
    pub fn every() -> ContractFacts {
        ContractFacts::default()
    }

    /// Each fact once per block and round (`lego-lower`).
    pub fn once_per_block() -> ContractFacts {
        ContractFacts { once_per_block: true, stated: HashMap::new() }
    }

    /// A new round of lowering begins: facts stated so far no longer count (see the type's comment).
    pub fn new_round(&mut self) {
        self.stated.clear();
    }

    /// Inserts `lower ≤ value < upper` (either bound optional) before `b`'s anchor, unless already stated.
    fn state<'c, 'a>(
        &mut self,
        b: &Builder<'_, 'c, 'a>,
        value: Value<'c, 'a>,
        lower: Option<Dim<'c, 'a>>,
        upper: Option<Dim<'c, 'a>>,
    ) {
        let key = self.once_per_block.then(|| FactKey {
            block: ir::block_key(b.block().to_raw()),
            value: ir::key(value.to_raw()),
            lower: lower.as_ref().map(BoundKey::of),
            upper: upper.as_ref().map(BoundKey::of),
        });
        if let Some((key, earlier)) = key.and_then(|key| self.stated.get(&key).map(|op| (key, *op))) {
            if still_states(earlier, &key) {
                return;
            }
        }
        let lower = lower.map(|dim| b.size(&dim));
        let upper = upper.map(|dim| b.size(&dim));
        let fact = b.insert(build_assume_bounds(b.context, b.location, value, lower, upper, true));
        if let Some(key) = key {
            self.stated.insert(key, fact.to_raw());
        }
    }
}

/// Whether the fact `op` stated for `key` still has the key's operands: a value the fact was stated on may
/// have been replaced since (its uses moved to another value, and its memory may now hold a new value).
fn still_states(op: MlirOperation, key: &FactKey) -> bool {
    // `op` is live: it was inserted by this round of lowering, which erases no fact.
    let operands = ir::operands(op);
    let bounds: Vec<BoundKey> = [key.lower, key.upper].into_iter().flatten().collect();
    operands.len() == 1 + bounds.len()
        && ir::key(operands[0]) == key.value
        && bounds.iter().zip(&operands[1..]).all(|(bound, operand)| bound.is(*operand))
}

/// Extent `axis` of a memref: its static size, or `memref.dim`.
fn memref_extent<'c, 'a>(b: &Builder<'_, 'c, 'a>, memref: Value<'c, 'a>, ty: Type<'c>, axis: isize) -> Dim<'c, 'a> {
    // SAFETY: `ty` is a ranked memref type and `axis` < rank.
    let size = unsafe { mlir_sys::mlirShapedTypeGetDimSize(ty.to_raw(), axis) };
    // SAFETY: pure query.
    if !unsafe { mlir_sys::mlirShapedTypeIsDynamicSize(size) } {
        return Dim::Static(size);
    }
    let index = b.constant(axis as i64);
    Dim::Dynamic(first_result(b.op("memref.dim", &[memref, index], &[b.index_type()], &[])))
}
