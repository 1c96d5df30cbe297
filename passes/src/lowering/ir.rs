//! Small IR-editing helpers shared by the lowering passes: an insertion point that builds `arith` / `memref`
//! ops before an anchor op, value replacement, op erasure, use queries, and cloning of ops with
//! their operands remapped (gen_p region inlining, rebuilding a layout in a callee).
//!
//! melior exposes most of this only on mutable references; the passes own the IR they rewrite, so the raw C
//! API is used directly where that is simpler. Every unsafe call takes handles obtained from live IR.

use lego_dialect::ops::{walk_ops, Dim};
use melior::{
    ir::{
        attribute::IntegerAttribute,
        block::BlockLike,
        operation::{OperationBuilder, OperationLike},
        r#type::IntegerType,
        Attribute, BlockRef, Identifier, Location, Operation, OperationRef, RegionLike, RegionRef, Type, Value,
        ValueLike,
    },
    Context,
};
use std::collections::HashMap;

/// A failure at a location, reported as an MLIR error diagnostic there.
#[derive(Clone, Debug)]
pub struct Located<'c> {
    pub location: Location<'c>,
    pub message: String,
}

impl<'c> Located<'c> {
    pub fn new(location: Location<'c>, message: impl Into<String>) -> Self {
        Located { location, message: message.into() }
    }

    /// Emits the diagnostic.
    pub fn emit(&self) {
        lego_dialect::verify::emit_error(self.location, &self.message);
    }
}

pub type Result<'c, T> = std::result::Result<T, Located<'c>>;

/// `arith.cmpi` predicate `ult`.
const CMPI_ULT: i64 = 6;

/// Builds ops right before `anchor`, at `location`.
///
/// `'s` is unused since the builders share no state any more (the affine templates are gone); it stays so
/// that the signatures of the passes built on this type keep their shape.
#[derive(Clone, Copy)]
pub struct Builder<'s, 'c, 'a> {
    pub context: &'c Context,
    pub location: Location<'c>,
    block: BlockRef<'c, 'a>,
    anchor: OperationRef<'c, 'a>,
    _scope: std::marker::PhantomData<&'s ()>,
}

impl<'s, 'c, 'a> Builder<'s, 'c, 'a> {
    /// A builder inserting before `anchor` (which must be in a block), at `anchor`'s location. `context` is
    /// the IR's context (from a `ContextRef` the pass keeps alive for its whole run).
    pub fn before(context: &'c Context, anchor: OperationRef<'c, 'a>) -> Option<Self> {
        Some(Builder { context, location: anchor.location(), block: anchor.block()?, anchor, _scope: std::marker::PhantomData })
    }

    /// Same insertion point, other location for the new ops.
    pub fn at(&self, location: Location<'c>) -> Builder<'s, 'c, 'a> {
        Builder { location, ..*self }
    }

    /// Same location, inserting before `anchor` instead.
    pub fn before_op(&self, anchor: OperationRef<'c, 'a>) -> Option<Builder<'s, 'c, 'a>> {
        Some(Builder { block: anchor.block()?, anchor, ..*self })
    }

    /// The block the ops go into.
    pub fn block(&self) -> BlockRef<'c, 'a> {
        self.block
    }

    pub fn index_type(&self) -> Type<'c> {
        Type::index(self.context)
    }

    /// Inserts a built op before the anchor.
    pub fn insert(&self, op: Operation<'c>) -> OperationRef<'c, 'a> {
        self.block.insert_operation_before(self.anchor, op)
    }

    fn build(&self, builder: OperationBuilder<'c>) -> OperationRef<'c, 'a> {
        // The builders below only produce well-formed states; creation fails only for a null context.
        match builder.build() {
            Ok(op) => self.insert(op),
            Err(error) => unreachable!("internal error: invalid operation state: {error}"),
        }
    }

    /// Builds and inserts a one-result op, returning the result.
    fn single(&self, builder: OperationBuilder<'c>) -> Value<'c, 'a> {
        first_result(self.build(builder))
    }

    fn named(&self, name: &str, attribute: Attribute<'c>) -> (Identifier<'c>, Attribute<'c>) {
        (Identifier::new(self.context, name), attribute)
    }

    /// `arith.constant value : index`.
    pub fn constant(&self, value: i64) -> Value<'c, 'a> {
        let attribute = IntegerAttribute::new(self.index_type(), value).into();
        self.single(
            OperationBuilder::new("arith.constant", self.location)
                .add_attributes(&[self.named("value", attribute)])
                .add_results(&[self.index_type()]),
        )
    }

    /// An `index` value for a size: a constant for a literal, the SSA value itself otherwise.
    pub fn size(&self, dim: &Dim<'c, 'a>) -> Value<'c, 'a> {
        match dim {
            Dim::Static(value) => self.constant(*value),
            Dim::Dynamic(value) => *value,
        }
    }

    /// A binary `arith` op on two values of the same type.
    pub fn binary(&self, name: &str, lhs: Value<'c, 'a>, rhs: Value<'c, 'a>) -> Value<'c, 'a> {
        self.single(OperationBuilder::new(name, self.location).add_operands(&[lhs, rhs]).add_results(&[lhs.r#type()]))
    }

    /// `arith.cmpi ult, lhs, rhs : index` → `i1`.
    pub fn ult(&self, lhs: Value<'c, 'a>, rhs: Value<'c, 'a>) -> Value<'c, 'a> {
        let predicate = IntegerAttribute::new(IntegerType::new(self.context, 64).into(), CMPI_ULT).into();
        self.single(
            OperationBuilder::new("arith.cmpi", self.location)
                .add_operands(&[lhs, rhs])
                .add_attributes(&[self.named("predicate", predicate)])
                .add_results(&[IntegerType::new(self.context, 1).into()]),
        )
    }

    /// `arith.select cond, then, else`.
    pub fn select(&self, condition: Value<'c, 'a>, then: Value<'c, 'a>, otherwise: Value<'c, 'a>) -> Value<'c, 'a> {
        self.single(
            OperationBuilder::new("arith.select", self.location)
                .add_operands(&[condition, then, otherwise])
                .add_results(&[then.r#type()]),
        )
    }

    /// `lhs · rhs` as a size: a literal when both are (and the product fits), the other operand when one is
    /// the literal 1, `arith.muli lhs, rhs` otherwise (operands in that order; the clean-up moves a constant
    /// operand to the right, as MLIR's commutative folding does).
    pub fn mul(&self, lhs: Dim<'c, 'a>, rhs: Dim<'c, 'a>) -> Dim<'c, 'a> {
        match (lhs, rhs) {
            (Dim::Static(x), Dim::Static(y)) if x.checked_mul(y).is_some() => Dim::Static(x * y),
            (Dim::Static(1), other) | (other, Dim::Static(1)) => other,
            _ => Dim::Dynamic(self.binary("arith.muli", self.size(&lhs), self.size(&rhs))),
        }
    }

    /// The product of `dims`, left to right (`muli(muli(d0, d1), d2)`), literals folded as they meet.
    pub fn product(&self, dims: &[Dim<'c, 'a>]) -> Dim<'c, 'a> {
        dims.iter().fold(Dim::Static(1), |product, dim| self.mul(product, *dim))
    }

    /// `B(basis, indices)` in the published form (docs/reference/lowering.md §2, flatten): innermost first,
    /// `acc = addi(acc, muli(i_k, stride_k))` with the stride the running product `n_N · n_{N−1} · …` of the
    /// inner sizes. One index is returned as is; a stride of 1 or an accumulator of 0 emit nothing.
    pub fn flatten(&self, indices: &[Value<'c, 'a>], basis: &[Dim<'c, 'a>]) -> Value<'c, 'a> {
        debug_assert_eq!(indices.len(), basis.len());
        if let [single] = indices {
            return *single;
        }
        let mut accumulator: Option<Value<'c, 'a>> = None;
        let mut stride = Dim::Static(1);
        for k in (0..indices.len()).rev() {
            let term = match stride {
                Dim::Static(1) => indices[k],
                _ => self.binary("arith.muli", indices[k], self.size(&stride)),
            };
            accumulator = Some(match accumulator {
                None => term,
                Some(accumulated) => self.binary("arith.addi", accumulated, term),
            });
            if k > 0 {
                stride = self.mul(stride, basis[k]);
            }
        }
        accumulator.unwrap_or_else(|| self.constant(0))
    }

    /// `B⁻¹(basis, flat)` in the published form (docs/reference/lowering.md §2, unflatten): outermost first,
    /// `q_k = divui(cur, S_k)`, `cur = remui(cur, S_k)` with `S_k` the left-to-right product of the sizes
    /// after k; the last index is what remains. A size that is the literal 1 gives index 0 and no op. One
    /// size gives `[flat]`.
    pub fn unflatten(&self, flat: Value<'c, 'a>, basis: &[Dim<'c, 'a>]) -> Vec<Value<'c, 'a>> {
        if basis.len() <= 1 {
            return vec![flat];
        }
        let mut current = flat;
        let mut out = Vec::with_capacity(basis.len());
        let last = basis.len() - 1;
        for (k, dim) in basis.iter().enumerate() {
            if matches!(dim, Dim::Static(1)) {
                out.push(self.constant(0));
                continue;
            }
            if k == last {
                out.push(current);
                break;
            }
            let stride = self.product(&basis[k + 1..]);
            if matches!(stride, Dim::Static(1)) {
                // Every later size is 1: this index is all that is left.
                out.push(current);
                current = self.constant(0);
                continue;
            }
            let stride = self.size(&stride);
            out.push(self.binary("arith.divui", current, stride));
            current = self.binary("arith.remui", current, stride);
        }
        out
    }

    /// A generic op with the given operands, result types and attributes.
    pub fn op(
        &self,
        name: &str,
        operands: &[Value<'c, 'a>],
        result_types: &[Type<'c>],
        attributes: &[(&str, Attribute<'c>)],
    ) -> OperationRef<'c, 'a> {
        let attributes: Vec<_> = attributes.iter().map(|(name, attribute)| self.named(name, *attribute)).collect();
        self.build(
            OperationBuilder::new(name, self.location)
                .add_operands(operands)
                .add_results(result_types)
                .add_attributes(&attributes),
        )
    }

    /// Clones `op` (with its regions) before the anchor, replacing every use of a key of `mapping` inside the
    /// clone (also in nested regions) with its value, and maps `op`'s results to the clone's.
    pub fn clone_mapped(&self, op: OperationRef<'c, 'a>, mapping: &mut ValueMap<'c, 'a>) -> OperationRef<'c, 'a> {
        // SAFETY: `op` is live; the clone is a fresh detached op that `insert` takes ownership of.
        let clone = unsafe { Operation::from_raw(mlir_sys::mlirOperationClone(op.to_raw())) };
        let clone = self.insert(clone);
        remap_operands(clone, mapping);
        for (original, copy) in op.results().zip(clone.results()) {
            mapping.insert(original.into(), copy.into());
        }
        clone
    }
}

/// Old value → new value, keyed by the value's address.
#[derive(Default)]
pub struct ValueMap<'c, 'a> {
    map: HashMap<usize, Value<'c, 'a>>,
}

impl<'c, 'a> ValueMap<'c, 'a> {
    pub fn insert(&mut self, from: Value<'c, 'a>, to: Value<'c, 'a>) {
        self.map.insert(key(from), to);
    }
    pub fn get(&self, value: Value<'c, 'a>) -> Option<Value<'c, 'a>> {
        self.map.get(&key(value)).copied()
    }
    /// The mapped value, or `value` itself.
    pub fn lookup(&self, value: Value<'c, 'a>) -> Value<'c, 'a> {
        self.get(value).unwrap_or(value)
    }
}

/// A stable identity for a value (its address in MLIR).
pub fn key(value: Value) -> usize {
    value.to_raw().ptr as usize
}

/// Identity of an op.
pub fn op_key(op: OperationRef) -> usize {
    op.to_raw().ptr as usize
}

/// Replaces every operand of `root` and of the ops nested in it that is a key of `mapping`.
pub fn remap_operands<'c, 'a>(root: OperationRef<'c, 'a>, mapping: &ValueMap<'c, 'a>) {
    walk_ops(root, &mut |op| {
        for (position, operand) in op.operands().enumerate() {
            if let Some(replacement) = mapping.get(operand) {
                // SAFETY: `op` is live and `position` is within its operand list.
                unsafe { mlir_sys::mlirOperationSetOperand(op.to_raw(), position as isize, replacement.to_raw()) };
            }
        }
    });
}

pub fn first_result<'c, 'a>(op: OperationRef<'c, 'a>) -> Value<'c, 'a> {
    match op.result(0) {
        Ok(result) => result.into(),
        Err(_) => unreachable!("internal error: op '{}' built without a result", op_name(&op)),
    }
}

pub fn results<'c, 'a>(op: OperationRef<'c, 'a>) -> Vec<Value<'c, 'a>> {
    op.results().map(Into::into).collect()
}

/// Replaces every use of `from` with `to`.
pub fn replace_all_uses(from: Value, to: Value) {
    // SAFETY: both values are live.
    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(from.to_raw(), to.to_raw()) }
}

/// Whether `value` has any use.
pub fn has_uses(value: Value) -> bool {
    // SAFETY: the value is live; a null operand means no use.
    unsafe { !mlir_sys::mlirOpOperandIsNull(mlir_sys::mlirValueGetFirstUse(value.to_raw())) }
}

/// The ops using `value` (one entry per use).
pub fn users<'c, 'a>(value: Value<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut users = Vec::new();
    // SAFETY: the value is live; the use list is walked without modifying the IR.
    unsafe {
        let mut operand = mlir_sys::mlirValueGetFirstUse(value.to_raw());
        while !mlir_sys::mlirOpOperandIsNull(operand) {
            users.push(OperationRef::from_raw(mlir_sys::mlirOpOperandGetOwner(operand)));
            operand = mlir_sys::mlirOpOperandGetNextUse(operand);
        }
    }
    users
}

/// Whether any result of `op` is used.
pub fn op_has_uses(op: OperationRef) -> bool {
    op.results().any(|result| has_uses(result.into()))
}

/// Removes `op` from its block and destroys it. Its results must be unused.
pub fn erase(op: OperationRef) {
    // SAFETY: `op` is live and owned by its block; no handle to it is used afterwards.
    unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) }
}

/// The op defining `value`, if it is an op result.
pub fn defining_op<'c, 'a>(value: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    lego_dialect::ops::op_result(value).map(|result| result.owner())
}

/// The ops of a region's blocks, in order (not nested ones).
pub fn region_ops<'c, 'a>(region: RegionRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut ops = Vec::new();
    let mut block = region.first_block();
    while let Some(current) = block {
        let mut op = current.first_operation();
        while let Some(inner) = op {
            ops.push(inner);
            op = inner.next_in_block();
        }
        block = current.next_in_region();
    }
    ops
}

/// The full name of an op (`arith.addi`).
pub fn op_name(op: &OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("").to_string()
}

/// Whether `ty` is `!lego.layout` or `!lego.view<...>`.
pub fn is_lego_type(ty: Type) -> bool {
    if !in_lego_dialect(ty) {
        return false;
    }
    let text = ty.to_string();
    text == "!lego.layout" || text.starts_with("!lego.view<")
}

pub fn is_view_type(ty: Type) -> bool {
    in_lego_dialect(ty) && ty.to_string().starts_with("!lego.view<")
}

/// Whether `ty` belongs to the lego dialect: asked first because printing a type (to tell layouts from views)
/// builds an `AsmState`, which sorts the context's dialects: the cost of every query on the many index and
/// memref types of a module.
fn in_lego_dialect(ty: Type) -> bool {
    // SAFETY: `ty` is a live type; its dialect and the dialect's namespace are owned by the context.
    let namespace = unsafe { mlir_sys::mlirDialectGetNamespace(mlir_sys::mlirTypeGetDialect(melior::ir::r#type::TypeLike::to_raw(&ty))) };
    if namespace.data.is_null() {
        return false;
    }
    // SAFETY: the namespace string ref points at context-owned storage of `length` bytes.
    let bytes = unsafe { std::slice::from_raw_parts(namespace.data as *const u8, namespace.length) };
    bytes == b"lego"
}
