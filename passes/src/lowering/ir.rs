//! Small IR-editing helpers shared by the lowering passes: an insertion point that builds `arith` / `affine`
//! / `memref` ops before an anchor op, value replacement, op erasure, use queries, and cloning of ops with
//! their operands remapped (gen_p region inlining, rebuilding a layout in a callee).
//!
//! melior exposes most of this only on mutable references; the passes own the IR they rewrite, so the raw C
//! API is used directly where that is simpler. Every unsafe call takes handles obtained from live IR.

use lego_dialect::ops::{walk_ops, Dim, DYNAMIC};
use melior::{
    ir::{
        attribute::AttributeLike,
        attribute::{DenseI32ArrayAttribute, DenseI64ArrayAttribute, IntegerAttribute},
        block::BlockLike,
        operation::{OperationBuilder, OperationLike},
        r#type::IntegerType,
        Attribute, BlockRef, Identifier, Location, Operation, OperationRef, RegionLike, RegionRef, Type, Value,
        ValueLike,
    },
    Context,
};
use std::{cell::RefCell, collections::HashMap};

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

/// State shared by the builders of one pass run.
///
/// - Ops the C API cannot create with all their properties, cloned from parsed copies: the `disjoint`
///   property of `affine.linearize_index` is a pure property (`UnitProp`), which neither an attribute given
///   at creation nor `mlirOperationSetInherentAttributeByName` sets.
/// - The element counts of layouts with symbolic sizes, computed once per layout value, right before the op
///   that builds it (see [`Builder::layout_size`]).
pub struct Shared<'c> {
    /// Owns the template ops (their operands are the block arguments of a function in it).
    _module: melior::ir::Module<'c>,
    linearize_disjoint: mlir_sys::MlirOperation,
    sizes: RefCell<HashMap<usize, mlir_sys::MlirValue>>,
}

const TEMPLATES: &str = "func.func private @lego_templates(%a: index, %b: index) -> index {
  %0 = affine.linearize_index disjoint [%a, %b] by (2, 2) : index
  return %0 : index
}";

impl<'c> Shared<'c> {
    /// Parses the templates in `context` (`None` only if the affine dialect is not available).
    pub fn parse(context: &'c Context) -> Option<Self> {
        let module = melior::ir::Module::parse(context, TEMPLATES)?;
        let function = module.body().first_operation()?;
        let linearize_disjoint = function.region(0).ok()?.first_block()?.first_operation()?.to_raw();
        Some(Shared { _module: module, linearize_disjoint, sizes: RefCell::default() })
    }
}

/// Builds ops right before `anchor`, at `location`.
#[derive(Clone, Copy)]
pub struct Builder<'s, 'c, 'a> {
    pub context: &'c Context,
    pub location: Location<'c>,
    block: BlockRef<'c, 'a>,
    anchor: OperationRef<'c, 'a>,
    shared: Option<&'s Shared<'c>>,
}

impl<'s, 'c, 'a> Builder<'s, 'c, 'a> {
    /// A builder inserting before `anchor` (which must be in a block), at `anchor`'s location. `context` is
    /// the IR's context (from a `ContextRef` the pass keeps alive for its whole run).
    pub fn before(context: &'c Context, anchor: OperationRef<'c, 'a>) -> Option<Self> {
        Some(Builder { context, location: anchor.location(), block: anchor.block()?, anchor, shared: None })
    }

    /// Uses the run's shared state (`disjoint` linearizations, cached layout sizes).
    pub fn with_shared<'t>(self, shared: &'t Shared<'c>) -> Builder<'t, 'c, 'a> {
        Builder {
            context: self.context,
            location: self.location,
            block: self.block,
            anchor: self.anchor,
            shared: Some(shared),
        }
    }

    /// Same insertion point, other location for the new ops.
    pub fn at(&self, location: Location<'c>) -> Builder<'s, 'c, 'a> {
        Builder { location, ..*self }
    }

    /// Same shared state and location, inserting before `anchor` instead.
    pub fn before_op(&self, anchor: OperationRef<'c, 'a>) -> Option<Builder<'s, 'c, 'a>> {
        Some(Builder { block: anchor.block()?, anchor, ..*self })
    }

    /// The element count of `layout` (whose logical dims are `dims`): a literal when all are, otherwise one
    /// `arith.muli` chain per layout value and run, placed right before the op building `layout`.
    ///
    /// Placing it there (rather than at the use) keeps every size an `affine` index op refers to defined
    /// before all the index ops of any use: upstream's linearize/delinearize cancellation (LLVM 22)
    /// rebuilds ops at the position of the *earlier* op of a pair while reusing the later op's basis values,
    /// and would otherwise produce IR that violates dominance.
    pub fn layout_size(&self, layout: Value<'c, 'a>, dims: &[Dim<'c, 'a>]) -> Dim<'c, 'a> {
        if dims.iter().all(|dim| matches!(dim, Dim::Static(_))) {
            return self.product(dims);
        }
        let cached = self.shared.and_then(|shared| shared.sizes.borrow().get(&key(layout)).copied());
        if let Some(raw) = cached {
            // SAFETY: cached values are results of ops created in this run, which are never erased during it.
            return Dim::Dynamic(unsafe { Value::from_raw(raw) });
        }
        let early = defining_op(layout).and_then(|op| self.before_op(op)).unwrap_or(*self);
        let size = early.product(dims);
        if let (Some(shared), Dim::Dynamic(value)) = (self.shared, size) {
            shared.sizes.borrow_mut().insert(key(layout), value.to_raw());
        }
        size
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

    /// The product of `dims` as a size: folded when every entry is a literal, `arith.muli` otherwise.
    pub fn product(&self, dims: &[Dim<'c, 'a>]) -> Dim<'c, 'a> {
        let mut literal: i64 = 1;
        let mut dynamic: Option<Value<'c, 'a>> = None;
        for dim in dims {
            match dim {
                Dim::Static(value) => literal = literal.wrapping_mul(*value),
                Dim::Dynamic(value) => {
                    dynamic = Some(match dynamic {
                        None => *value,
                        Some(accumulated) => self.binary("arith.muli", accumulated, *value),
                    })
                }
            }
        }
        match dynamic {
            None => Dim::Static(literal),
            Some(value) if literal == 1 => Dim::Dynamic(value),
            Some(value) => Dim::Dynamic(self.binary("arith.muli", value, self.constant(literal))),
        }
    }

    /// Splits a basis into `static_basis` (with `DYNAMIC` holes) and the SSA sizes that fill them.
    fn basis(&self, basis: &[Dim<'c, 'a>]) -> (Attribute<'c>, Vec<Value<'c, 'a>>) {
        let statics: Vec<i64> = basis.iter().map(|dim| if let Dim::Static(v) = dim { *v } else { DYNAMIC }).collect();
        let dynamics = basis.iter().filter_map(|dim| if let Dim::Dynamic(v) = dim { Some(*v) } else { None }).collect();
        (DenseI64ArrayAttribute::new(self.context, &statics).into(), dynamics)
    }

    /// `B(basis, indices)` as `affine.linearize_index [indices] by (basis)`. With `in_range`, the op gets the
    /// outer bound and `disjoint`, which assert `0 ≤ indices_k < basis_k` (upstream folds rely on it; valid
    /// whenever the layout's own inputs are in range); without, the outer bound is left out (it is never used
    /// in the computation) and no range is asserted. One index is returned as is.
    pub fn linearize(&self, indices: &[Value<'c, 'a>], basis: &[Dim<'c, 'a>], in_range: bool) -> Value<'c, 'a> {
        if let [single] = indices {
            return *single;
        }
        let basis = if in_range { basis } else { &basis[1.min(basis.len())..] };
        let (static_basis, dynamic) = self.basis(basis);
        let segments = DenseI32ArrayAttribute::new(self.context, &[indices.len() as i32, dynamic.len() as i32]);
        let mut operands = indices.to_vec();
        operands.extend(dynamic);
        let template = self.shared.map(|shared| shared.linearize_disjoint).filter(|_| in_range);
        let Some(template) = template else {
            return self.single(
                OperationBuilder::new("affine.linearize_index", self.location)
                    .add_operands(&operands)
                    .add_attributes(&[
                        self.named("static_basis", static_basis),
                        self.named("operandSegmentSizes", segments.into()),
                    ])
                    .add_results(&[self.index_type()]),
            );
        };
        // SAFETY: the template is live (owned by `Shared`); the clone is detached until inserted, and its
        // operands and attribute-backed properties are then set consistently.
        let op = unsafe {
            let op = self.insert(Operation::from_raw(mlir_sys::mlirOperationClone(template)));
            let raw: Vec<mlir_sys::MlirValue> = operands.iter().map(|value| value.to_raw()).collect();
            mlir_sys::mlirOperationSetOperands(op.to_raw(), raw.len() as isize, raw.as_ptr());
            for (name, attribute) in [("static_basis", static_basis), ("operandSegmentSizes", segments.into())] {
                let name = melior::StringRef::new(name);
                mlir_sys::mlirOperationSetInherentAttributeByName(op.to_raw(), name.to_raw(), attribute.to_raw());
            }
            mlir_sys::mlirOperationSetLocation(op.to_raw(), self.location.to_raw());
            op
        };
        first_result(op)
    }

    /// `B⁻¹(basis, flat)` as `affine.delinearize_index flat into (basis)`, with the outer bound (asserting
    /// `flat < Π basis`, true for in-range inputs everywhere lowering uses it). One size gives `[flat]`.
    pub fn delinearize(&self, flat: Value<'c, 'a>, basis: &[Dim<'c, 'a>]) -> Vec<Value<'c, 'a>> {
        if basis.len() <= 1 {
            return vec![flat];
        }
        let (static_basis, dynamic) = self.basis(basis);
        let mut operands = vec![flat];
        operands.extend(dynamic);
        let op = self.build(
            OperationBuilder::new("affine.delinearize_index", self.location)
                .add_operands(&operands)
                .add_attributes(&[self.named("static_basis", static_basis)])
                .add_results(&vec![self.index_type(); basis.len()]),
        );
        results(op)
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
    melior::ir::operation::OperationResult::try_from(value).ok().map(|result| result.owner())
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
    let text = ty.to_string();
    text == "!lego.layout" || text.starts_with("!lego.view<")
}

pub fn is_view_type(ty: Type) -> bool {
    ty.to_string().starts_with("!lego.view<")
}
