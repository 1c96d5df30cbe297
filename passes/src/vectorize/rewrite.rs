//! The rewrite of one loop `lego-vectorize` decided to vectorize (docs/passes/lego-vectorize.md):
//!
//! ```text
//! %aligned = lb + ((max(ub − lb, 0)) / (step·L)) · (step·L)
//! scf.for %iv = lb to %aligned step step·L   { the body, L lanes wide }
//! scf.for %iv = %aligned to ub step step      { the original loop: the remainder, scalar }
//! ```
//!
//! The original loop stays as the remainder (only its lower bound and its reduction inits change), so every
//! trip count, known or not, runs each iteration exactly once. In the vector body every value that varies with
//! the iteration is a vector of L lanes — index arithmetic included (`vector<L x index>`), so a guard such as
//! `i < M` is evaluated per lane (the published vectorizer compared lane 0 only, spec §10 D1). Index values
//! also keep a lane-0 scalar form, the base address of unit-stride accesses. Both forms are made where either
//! may be used; the unused ones are erased at the end.

use super::analysis::{Access, ForLoop, Kind, Plan};
use super::build::{vector_type, Builder, Place};
use crate::simplify::ir::{self, HashMap, Key};
use mlir_sys::{
    mlirBlockGetArgument, mlirOperationClone, mlirOperationSetOperand,
    mlirTypeIsAFloat, mlirTypeIsAIndex, mlirValueSetType, MlirOperation, MlirType, MlirValue,
};

/// Rewrites `for_loop` by `plan`. Returns the vector loop.
pub fn vectorize(for_loop: &ForLoop, plan: &Plan) -> MlirOperation {
    let mut pre = Builder::before(for_loop.op);
    let index = pre.index_type();

    // Bounds of the vector loop.
    let lanes = pre.index_constant(plan.lanes as i64);
    let lanes = if plan.scalable {
        let vscale = pre.value("vector.vscale", &[], index, &[]);
        pre.binary("arith.muli", lanes, vscale)
    } else {
        lanes
    };
    let vector_step = pre.binary("arith.muli", for_loop.step, lanes);
    let extent = pre.binary("arith.subi", for_loop.upper, for_loop.lower);
    let zero = pre.index_constant(0);
    let extent = pre.binary("arith.maxsi", extent, zero);
    let strips = pre.binary("arith.divui", extent, vector_step);
    let covered = pre.binary("arith.muli", strips, vector_step);
    let aligned = pre.binary("arith.addi", for_loop.lower, covered);

    // Reduction accumulators start at the identity.
    let mut inits = Vec::new();
    let mut accumulator_types = Vec::new();
    for reduction in &plan.reductions {
        let carried = for_loop.iter_arg(reduction.arg).expect("analysis checked the iter_arg");
        let element = ir::value_type(carried);
        let vector = vector_type(element, plan.lanes, plan.scalable);
        let identity = identity(&pre, ir::op_name(reduction.combine), element);
        let scalar = pre.constant(element, identity);
        inits.push(pre.value("vector.broadcast", &[scalar], vector, &[]));
        accumulator_types.push(vector);
    }

    // The vector loop, with an empty body block.
    let mut block_types = vec![index];
    block_types.extend(accumulator_types.iter().copied());
    let (region, block) = pre.region_with_block(&block_types);
    let mut operands = vec![for_loop.lower, aligned, vector_step];
    operands.extend(inits.iter().copied());
    let vector_loop = pre.op("scf.for", &operands, &accumulator_types, &[], &[region]);

    let mut body = Body {
        builder: Builder { context: pre.context, location: pre.location, place: Place::End(block), created: Vec::new() },
        plan,
        scalar: HashMap::default(),
        vector: HashMap::default(),
        broadcasts: HashMap::default(),
        accesses: plan.accesses.iter().map(|access| (ir::op_key(access.op), access.clone())).collect(),
        masks: None,
    };
    // SAFETY: the block was created with these arguments.
    let vector_iv = unsafe { mlirBlockGetArgument(block, 0) };
    body.scalar.insert(ir::key(for_loop.iv), vector_iv);
    for (position, reduction) in plan.reductions.iter().enumerate() {
        let carried = for_loop.iter_arg(reduction.arg).expect("analysis checked the iter_arg");
        // SAFETY: argument 1 + position exists (one per accumulator).
        let accumulator = unsafe { mlirBlockGetArgument(block, 1 + position as isize) };
        body.vector.insert(ir::key(carried), accumulator);
    }
    // The lanes' induction values: iv + step·[0, 1, …, L−1].
    let iv_vector_type = vector_type(index, plan.lanes, plan.scalable);
    let lane_numbers = body.builder.value("vector.step", &[], iv_vector_type, &[]);
    let iv_splat = body.builder.value("vector.broadcast", &[vector_iv], iv_vector_type, &[]);
    let offsets = if plan.step == Some(1) {
        lane_numbers
    } else {
        let step = body.builder.value("vector.broadcast", &[for_loop.step], iv_vector_type, &[]);
        body.builder.binary("arith.muli", lane_numbers, step)
    };
    let ivs = body.builder.binary("arith.addi", iv_splat, offsets);
    body.vector.insert(ir::key(for_loop.iv), ivs);

    let ops = for_loop.ops();
    for &op in &ops[..ops.len() - 1] {
        body.emit(op);
    }
    // Yield the widened reductions.
    let yield_op = *ops.last().expect("analysis checked the yield");
    let yielded: Vec<MlirValue> = plan
        .reductions
        .iter()
        .map(|reduction| {
            let original = ir::operand(yield_op, reduction.arg).expect("analysis checked the yield");
            body.vector_of(original)
        })
        .collect();
    body.builder.op("scf.yield", &yielded, &[], &[], &[]);

    // Each accumulator is reduced once and combined with the original init; the remainder continues from it.
    for (position, reduction) in plan.reductions.iter().enumerate() {
        let Some(result) = ir::result(vector_loop, position) else { continue };
        let Some(init) = ir::operand(for_loop.op, 3 + reduction.arg) else { continue };
        let kind = pre.attribute(&format!("#vector.kind<{}>", reduction.kind));
        let combined = pre.value("vector.reduction", &[result, init], ir::value_type(init), &[("kind", kind)]);
        // SAFETY: operand 3 + arg is the init of that iter_arg.
        unsafe { mlirOperationSetOperand(for_loop.op, (3 + reduction.arg) as isize, combined) };
    }
    // SAFETY: operand 0 is the lower bound; `aligned` is defined before the loop.
    unsafe { mlirOperationSetOperand(for_loop.op, 0, aligned) };

    // Erase what no one uses (the lane-0 or vector form that was not needed).
    let removable = |op: MlirOperation| {
        !matches!(ir::op_name(op), "vector.store" | "vector.maskedstore" | "vector.scatter" | "scf.yield" | "scf.for")
    };
    ir::erase_unused(&body.builder.created, removable);
    ir::erase_unused(&pre.created, removable);
    vector_loop
}

/// The identity of a combining op, as an attribute of `element`.
fn identity(builder: &Builder, combine: &str, element: MlirType) -> mlir_sys::MlirAttribute {
    let bits = ir::type_width(element).unwrap_or(64);
    // SAFETY: type query on a live type.
    let float = unsafe { mlirTypeIsAFloat(element) };
    if float {
        let value = match combine {
            "arith.mulf" => 1.0,
            "arith.maximumf" => f64::NEG_INFINITY,
            "arith.minimumf" => f64::INFINITY,
            // −0 is the identity of addition (0 + −0 = 0, −0 + −0 = −0).
            _ => -0.0,
        };
        return builder.float_attribute(element, value);
    }
    let all_ones: i64 = -1;
    let signed_min: i64 = if bits >= 64 { i64::MIN } else { -(1i64 << (bits - 1)) };
    let signed_max: i64 = if bits >= 64 { i64::MAX } else { (1i64 << (bits - 1)) - 1 };
    let value = match combine {
        "arith.muli" => 1,
        "arith.andi" | "arith.minui" => all_ones,
        "arith.maxsi" => signed_min,
        "arith.minsi" => signed_max,
        _ => 0,
    };
    builder.integer_attribute(element, value)
}

struct Body<'p> {
    builder: Builder,
    plan: &'p Plan,
    /// Original value → its value in the vector body: the uniform value, or lane 0 of an index value.
    scalar: HashMap<Key, MlirValue>,
    /// Original value → its L-lane vector.
    vector: HashMap<Key, MlirValue>,
    /// Uniform value → its broadcast (made once).
    broadcasts: HashMap<Key, MlirValue>,
    accesses: HashMap<Key, Access>,
    /// All-true mask and zero pass-through per element type, for unmasked gathers and scatters.
    masks: Option<MlirValue>,
}

impl Body<'_> {
    fn varying(&self, value: MlirValue) -> bool {
        self.plan.varying.contains(&ir::key(value))
    }

    fn vector_type(&self, element: MlirType) -> MlirType {
        vector_type(element, self.plan.lanes, self.plan.scalable)
    }

    /// The uniform or lane-0 value of `value` (a value from outside the loop is itself; body ops are emitted
    /// in order, so a uniform value of the body is mapped before it is asked for).
    fn scalar_of(&self, value: MlirValue) -> Option<MlirValue> {
        match self.scalar.get(&ir::key(value)) {
            Some(mapped) => Some(*mapped),
            None if !self.varying(value) => Some(value),
            None => None,
        }
    }

    /// The L-lane vector of `value` (a uniform value is broadcast once).
    fn vector_of(&mut self, value: MlirValue) -> MlirValue {
        if let Some(vector) = self.vector.get(&ir::key(value)) {
            return *vector;
        }
        let scalar = self.scalar_of(value).unwrap_or(value);
        if let Some(splat) = self.broadcasts.get(&ir::key(scalar)) {
            return *splat;
        }
        let r#type = self.vector_type(ir::value_type(scalar));
        let splat = self.builder.value("vector.broadcast", &[scalar], r#type, &[]);
        self.broadcasts.insert(ir::key(scalar), splat);
        splat
    }

    fn all_true(&mut self) -> MlirValue {
        if let Some(mask) = self.masks {
            return mask;
        }
        let i1 = self.builder.i1_type();
        let attribute = self.builder.integer_attribute(i1, 1);
        let one = self.builder.constant(i1, attribute);
        let mask = self.vector_of(one);
        self.masks = Some(mask);
        mask
    }

    fn zero_vector(&mut self, element: MlirType) -> MlirValue {
        // SAFETY: type query on a live type.
        let attribute = if unsafe { mlirTypeIsAFloat(element) } {
            self.builder.float_attribute(element, 0.0)
        } else {
            self.builder.integer_attribute(element, 0)
        };
        let zero = self.builder.constant(element, attribute);
        self.vector_of(zero)
    }

    fn emit(&mut self, op: MlirOperation) {
        match ir::op_name(op) {
            "memref.load" => self.load(op),
            "memref.store" => self.store(op, None),
            "scf.if" => self.guarded(op),
            _ => self.arith(op),
        }
    }

    /// A clone of `op` with `operands`; result types replaced when `widen`.
    fn clone_with(&mut self, op: MlirOperation, operands: &[MlirValue], widen: bool) -> MlirOperation {
        // SAFETY: `op` is live; the clone is detached until inserted; operand indices are in range.
        let clone = unsafe { mlirOperationClone(op) };
        for (index, operand) in operands.iter().enumerate() {
            unsafe { mlirOperationSetOperand(clone, index as isize, *operand) };
        }
        if widen {
            for index in 0..ir::result_count(clone) {
                if let Some(result) = ir::result(clone, index) {
                    let r#type = self.vector_type(ir::value_type(result));
                    // SAFETY: the clone is not yet used; the new type is the lane-wise form of the old.
                    unsafe { mlirValueSetType(result, r#type) };
                }
            }
        }
        self.builder.insert(clone)
    }

    fn map_results(&mut self, original: MlirOperation, new: MlirOperation, vector: bool) {
        for index in 0..ir::result_count(original) {
            if let (Some(from), Some(to)) = (ir::result(original, index), ir::result(new, index)) {
                if vector {
                    self.vector.insert(ir::key(from), to);
                } else {
                    self.scalar.insert(ir::key(from), to);
                }
            }
        }
    }

    fn arith(&mut self, op: MlirOperation) {
        let operands = ir::operands(op);
        let varying = operands.iter().any(|value| self.varying(*value));
        let scalars: Option<Vec<MlirValue>> = operands.iter().map(|value| self.scalar_of(*value)).collect();
        if !varying {
            let scalars = scalars.unwrap_or(operands);
            let clone = self.clone_with(op, &scalars, false);
            self.map_results(op, clone, false);
            return;
        }
        // Lane 0 of index and integer values (addresses of unit-stride accesses), when computable.
        let integer_results = (0..ir::result_count(op))
            .filter_map(|index| ir::result(op, index))
            .all(|result| {
                let r#type = ir::value_type(result);
                // SAFETY: type queries on a live type.
                unsafe { mlirTypeIsAIndex(r#type) || mlir_sys::mlirTypeIsAInteger(r#type) }
            });
        if let (Some(scalars), true) = (scalars, integer_results) {
            let clone = self.clone_with(op, &scalars, false);
            self.map_results(op, clone, false);
        }
        let vectors: Vec<MlirValue> = operands.iter().map(|value| self.vector_of(*value)).collect();
        let clone = self.clone_with(op, &vectors, true);
        self.map_results(op, clone, true);
    }

    fn access(&self, op: MlirOperation) -> Access {
        self.accesses.get(&ir::op_key(op)).cloned().expect("every access of the body was analysed")
    }

    fn load(&mut self, op: MlirOperation) {
        let access = self.access(op);
        let Some(result) = ir::result(op, 0) else { return };
        let element = ir::value_type(result);
        let memref = self.scalar_of(access.memref).unwrap_or(access.memref);
        let memref_operand = ir::operand(op, 0).unwrap_or(memref);
        match access.kind {
            Kind::Broadcast => {
                let index = self.scalar_of(access.index).unwrap_or(access.index);
                let clone = self.clone_with(op, &[memref_operand, index], false);
                self.map_results(op, clone, false);
            }
            Kind::Unit => {
                let index = self.lane_zero(access.index);
                let r#type = self.vector_type(element);
                let loaded = self.builder.value("vector.load", &[memref_operand, index], r#type, &[]);
                self.vector.insert(ir::key(result), loaded);
            }
            Kind::Strided(_) | Kind::Gather => {
                let indices = self.vector_of(access.index);
                let indices = self.as_index_vector(indices);
                let mask = self.all_true();
                let pass_through = self.zero_vector(element);
                let zero = self.builder.index_constant(0);
                let r#type = self.vector_type(element);
                let gathered =
                    self.builder.value("vector.gather", &[memref_operand, zero, indices, mask, pass_through], r#type, &[]);
                self.vector.insert(ir::key(result), gathered);
            }
        }
    }

    /// Lane 0 of a unit-stride index (the analysis proved it affine, so its chain has a scalar form).
    fn lane_zero(&mut self, index: MlirValue) -> MlirValue {
        self.scalar_of(index).unwrap_or(index)
    }

    /// Gather and scatter indices must be `index` lanes; an integer chain (`index_cast` left out) is cast.
    fn as_index_vector(&mut self, indices: MlirValue) -> MlirValue {
        let r#type = ir::value_type(indices);
        // SAFETY: type queries on a live vector type.
        let element = unsafe { mlir_sys::mlirShapedTypeGetElementType(r#type) };
        if unsafe { mlirTypeIsAIndex(element) } {
            return indices;
        }
        let index_vector = self.vector_type(self.builder.index_type());
        self.builder.value("arith.index_cast", &[indices], index_vector, &[])
    }

    fn store(&mut self, op: MlirOperation, mask: Option<MlirValue>) {
        let access = self.access(op);
        let Some(stored) = ir::operand(op, 0) else { return };
        let value = self.vector_of(stored);
        let memref_operand = ir::operand(op, 1).unwrap_or(access.memref);
        match (access.kind, mask) {
            (Kind::Unit, None) => {
                let index = self.lane_zero(access.index);
                self.builder.op("vector.store", &[value, memref_operand, index], &[], &[], &[]);
            }
            (Kind::Unit, Some(mask)) => {
                let index = self.lane_zero(access.index);
                self.builder.op("vector.maskedstore", &[memref_operand, index, mask, value], &[], &[], &[]);
            }
            _ => {
                // Broadcast stores were refused by the analysis; the rest scatter (in lane order, as LLVM's
                // masked scatter writes overlapping lanes).
                let indices = self.vector_of(access.index);
                let indices = self.as_index_vector(indices);
                let mask = match mask {
                    Some(mask) => mask,
                    None => self.all_true(),
                };
                let zero = self.builder.index_constant(0);
                self.builder.op("vector.scatter", &[memref_operand, zero, indices, mask, value], &[], &[], &[]);
            }
        }
    }

    fn guarded(&mut self, op: MlirOperation) {
        let Some(condition) = ir::operand(op, 0) else { return };
        let mask = self.vector_of(condition);
        let stores: Vec<MlirOperation> = ir::region_blocks(op)
            .first()
            .into_iter()
            .flatten()
            .flat_map(|block| ir::block_ops(*block))
            .filter(|inner| ir::op_name(*inner) == "memref.store")
            .collect();
        for store in stores {
            self.store(store, Some(mask));
        }
    }
}
