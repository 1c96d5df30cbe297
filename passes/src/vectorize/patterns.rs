//! The specialised pattern passes of the CPU vector family: loops whose shape `lego-vectorize` cannot widen (an
//! `scf.if` yielding a value, a carried scan) matched one by one and rewritten with the vector ops that fit
//! them. This file holds `lego-vectorize-compact` and `lego-vectorize-filtered-reduce`
//! (docs/passes/lego-vectorize-compact.md, docs/passes/lego-vectorize-filtered-reduce.md) and the helpers the
//! others (argmin.rs, scan.rs, rle.rs, scatter_add.rs) share.
//!
//! Shared shape of every rewrite (as in `lego-vectorize`): a vector loop `lb → strip` of step L inserted before
//! the original loop, which stays as the scalar remainder `strip → ub` with its init replaced by the vector
//! loop's result. Both loops get the pass's marker attribute, so neither this pass nor `lego-vectorize` touches
//! them again.

use super::build::{vector_type, Builder, Place};
use crate::external::{LegoPass, PassFailure, PassId};
use crate::registry::{OptionSpec, Options, RegistryError};
use crate::simplify::ir;
use melior::ir::OperationRef;
use mlir_sys::{
    mlirBlockGetArgument, mlirOperationSetAttributeByName, mlirOperationSetOperand,
    mlirTypeIsAFloat, mlirTypeIsAIndex, MlirBlock, MlirOperation,
    MlirType, MlirValue,
};

pub const OPTIONS: &[OptionSpec] =
    &[OptionSpec { name: "target", default: "avx512", description: "Target backend (controls vector lane width)" }];

/// The published lane policy of the pattern passes: one 512/256/128-bit register of 4-byte elements, else
/// half that (8-byte elements; 1- and 2-byte elements also get the "else" value, as published).
pub(super) fn lanes(target: &str, element: MlirType) -> u32 {
    let four = super::analysis::scalar_bytes(element) == Some(4);
    match target {
        "avx512" => if four { 16 } else { 8 },
        "avx2" => if four { 8 } else { 4 },
        _ => if four { 4 } else { 2 },
    }
}

pub(super) fn check_target(options: &Options) -> Result<String, RegistryError> {
    let name = options.string("target");
    if super::analysis::target(name).is_none() {
        return Err(options.bad_value("target", name, "one of avx512, avx2, neon, sve"));
    }
    Ok(name.to_string())
}

/// Which pattern a pass rewrites.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pattern {
    Compact,
    FilteredReduce,
}

#[derive(Clone)]
pub struct PatternPass {
    pattern: Pattern,
    target: String,
}

static COMPACT_ID: PassId = PassId::new();
static FILTERED_REDUCE_ID: PassId = PassId::new();

pub fn create_compact(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    let pass = PatternPass { pattern: Pattern::Compact, target: check_target(options)? };
    Ok(crate::external::into_mlir_pass(pass, &COMPACT_ID))
}

pub fn create_filtered_reduce(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    let pass = PatternPass { pattern: Pattern::FilteredReduce, target: check_target(options)? };
    Ok(crate::external::into_mlir_pass(pass, &FILTERED_REDUCE_ID))
}

impl PatternPass {
    fn marker(&self) -> &'static str {
        match self.pattern {
            Pattern::Compact => "lego.compact_done",
            Pattern::FilteredReduce => "lego.filtered_reduce_done",
        }
    }
}

impl LegoPass for PatternPass {
    fn name(&self) -> &'static str {
        match self.pattern {
            Pattern::Compact => "lego-vectorize-compact",
            Pattern::FilteredReduce => "lego-vectorize-filtered-reduce",
        }
    }

    fn description(&self) -> &'static str {
        match self.pattern {
            Pattern::Compact => "Vectorize stream compaction (if cond[i] <pred> t: out[k++] = A[i]) with vector.compressstore",
            Pattern::FilteredReduce => "Vectorize a predicated reduction (if cond[i] <pred> t: acc = acc op A[i]) with a select",
        }
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let mut loops = Vec::new();
        ir::walk(root.to_raw(), &mut |op| {
            if ir::op_name(op) == "scf.for" && ir::attribute(op, self.marker()).is_none() {
                loops.push(op);
            }
        });
        for op in loops {
            let Some(shape) = match_shape(op) else { continue };
            match (self.pattern, shape) {
                (Pattern::Compact, Shape::Compact(m)) => rewrite_compact(op, &m, &self.target, self.marker()),
                (Pattern::FilteredReduce, Shape::FilteredReduce(m)) => {
                    rewrite_filtered_reduce(op, &m, &self.target, self.marker())
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn may_leave_lego_ops(&self) -> bool {
        false
    }
}

/// The common part of both shapes: `if (cond[i] <pred> threshold)` with cond[i] a load on the IV and the
/// threshold defined outside the loop.
struct Guard {
    cmpf: MlirOperation,
    cond_memref: MlirValue,
    threshold: MlirValue,
    if_op: MlirOperation,
    then_block: MlirBlock,
}

struct CompactMatch {
    guard: Guard,
    data_memref: MlirValue,
    out_memref: MlirValue,
}

struct ReduceMatch {
    guard: Guard,
    data_memref: MlirValue,
    combine: MlirOperation,
}

enum Shape {
    Compact(CompactMatch),
    FilteredReduce(ReduceMatch),
}

struct Loop {
    body: MlirBlock,
    iv: MlirValue,
    carried: MlirValue,
}

fn loop_parts(op: MlirOperation) -> Option<Loop> {
    // One iter_arg, step the constant 1.
    if ir::operand_count(op) != 4 || ir::result_count(op) != 1 || ir::constant_value(ir::operand(op, 2)?) != Some(1) {
        return None;
    }
    let body = *ir::region_blocks(op).first()?.first()?;
    // SAFETY: an scf.for body has the IV and one argument per iter_arg (checked: one).
    let (iv, carried) = unsafe { (mlirBlockGetArgument(body, 0), mlirBlockGetArgument(body, 1)) };
    Some(Loop { body, iv, carried })
}

/// `memref.load %m[%iv]` of a rank-1 memref: the memref.
pub(super) fn load_on(value: MlirValue, iv: MlirValue) -> Option<MlirValue> {
    let op = ir::defining_op(value)?;
    if ir::op_name(op) != "memref.load" || ir::operand_count(op) != 2 || ir::key(ir::operand(op, 1)?) != ir::key(iv) {
        return None;
    }
    ir::operand(op, 0)
}

pub(super) fn defined_outside(value: MlirValue, for_op: MlirOperation) -> bool {
    let block = match ir::defining_op(value) {
        Some(op) => ir::op_block(op),
        None => ir::block_argument(value).map(|(block, _)| block),
    };
    let Some(block) = block else { return false };
    // Up the chain of parents (bounded: nesting depth of real IR is small; an unknown answer is "inside").
    let mut owner = ir::block_parent_op(block);
    for _ in 0..4096 {
        match owner {
            None => return true,
            Some(op) if ir::op_key(op) == ir::op_key(for_op) => return false,
            Some(op) => owner = ir::parent_op(op),
        }
    }
    false
}

fn match_shape(op: MlirOperation) -> Option<Shape> {
    let parts = loop_parts(op)?;
    let ops: Vec<MlirOperation> = ir::block_ops(parts.body).collect();
    let (mut cmpf, mut if_op) = (None, None);
    for &inner in &ops {
        match ir::op_name(inner) {
            "memref.load" | "arith.constant" | "scf.yield" => {}
            "arith.cmpf" if cmpf.is_none() => cmpf = Some(inner),
            "scf.if" if if_op.is_none() => if_op = Some(inner),
            _ => return None,
        }
    }
    let (cmpf, if_op) = (cmpf?, if_op?);
    let yield_op = *ops.last()?;
    let if_result = ir::result(if_op, 0)?;
    if ir::result_count(if_op) != 1 || ir::key(ir::operand(yield_op, 0)?) != ir::key(if_result) {
        return None;
    }
    if ir::key(ir::operand(if_op, 0)?) != ir::key(ir::result(cmpf, 0)?) {
        return None;
    }
    let cond_memref = load_on(ir::operand(cmpf, 0)?, parts.iv)?;
    let threshold = ir::operand(cmpf, 1)?;
    if !defined_outside(threshold, op) {
        return None;
    }
    let regions = ir::region_blocks(if_op);
    let then_block = *regions.first()?.first()?;
    // The else branch yields the carried value unchanged.
    let else_block = *regions.get(1)?.first()?;
    let else_ops: Vec<MlirOperation> = ir::block_ops(else_block).collect();
    if else_ops.len() != 1 || ir::key(ir::operand(else_ops[0], 0)?) != ir::key(parts.carried) {
        return None;
    }
    let then_ops: Vec<MlirOperation> = ir::block_ops(then_block).collect();
    let then_yield = ir::operand(*then_ops.last()?, 0)?;
    let guard = Guard { cmpf, cond_memref, threshold, if_op, then_block };
    let carried_type = ir::value_type(parts.carried);
    // SAFETY: type queries on a live type.
    if unsafe { mlirTypeIsAIndex(carried_type) } {
        // Compaction: store A[i] at out[k]; k + 1.
        let (store, addi) = store_and_increment(&then_ops)?;
        if ir::key(ir::result(addi, 0)?) != ir::key(then_yield) || ir::operand_count(store) != 3 {
            return None;
        }
        let (a, b) = (ir::operand(addi, 0)?, ir::operand(addi, 1)?);
        let is_k = |v: MlirValue| ir::key(v) == ir::key(parts.carried);
        let is_one = |v: MlirValue| ir::constant_value(v) == Some(1);
        if !((is_k(a) && is_one(b)) || (is_k(b) && is_one(a))) || !is_k(ir::operand(store, 2)?) {
            return None;
        }
        let data_memref = load_on(ir::operand(store, 0)?, parts.iv)?;
        let out_memref = ir::operand(store, 1)?;
        return Some(Shape::Compact(CompactMatch { guard, data_memref, out_memref }));
    }
    // SAFETY: type query.
    if !unsafe { mlirTypeIsAFloat(carried_type) } {
        return None;
    }
    // Filtered reduction: acc op A[i].
    let mut combine = None;
    for &inner in &then_ops[..then_ops.len() - 1] {
        match ir::op_name(inner) {
            "memref.load" | "arith.constant" => {}
            "arith.addf" | "arith.mulf" | "arith.maximumf" | "arith.minimumf" if combine.is_none() => combine = Some(inner),
            _ => return None,
        }
    }
    let combine = combine?;
    if ir::key(ir::result(combine, 0)?) != ir::key(then_yield) {
        return None;
    }
    let (a, b) = (ir::operand(combine, 0)?, ir::operand(combine, 1)?);
    let other = if ir::key(a) == ir::key(parts.carried) {
        b
    } else if ir::key(b) == ir::key(parts.carried) {
        a
    } else {
        return None;
    };
    let data_memref = load_on(other, parts.iv)?;
    Some(Shape::FilteredReduce(ReduceMatch { guard, data_memref, combine }))
}

/// The strip bound and the vector loop (empty body with `iv` and one iter_arg per init), inserted before
/// `for_op`; returns (loop, body block, strip bound).
pub(super) fn vector_loop(
    pre: &mut Builder,
    for_op: MlirOperation,
    lanes: u32,
    inits: &[MlirValue],
) -> Option<(MlirOperation, MlirBlock, MlirValue)> {
    let (lower, upper) = (ir::operand(for_op, 0)?, ir::operand(for_op, 1)?);
    let index = pre.index_type();
    let step = pre.index_constant(lanes as i64);
    let extent = pre.binary("arith.subi", upper, lower);
    let zero = pre.index_constant(0);
    // An empty range (ub < lb) must not wrap in the unsigned division.
    let extent = pre.binary("arith.maxsi", extent, zero);
    let chunks = pre.binary("arith.divui", extent, step);
    let covered = pre.binary("arith.muli", chunks, step);
    let strip = pre.binary("arith.addi", lower, covered);
    let carried: Vec<MlirType> = inits.iter().map(|init| ir::value_type(*init)).collect();
    let mut types = vec![index];
    types.extend(carried.iter().copied());
    let (region, block) = pre.region_with_block(&types);
    let mut operands = vec![lower, strip, step];
    operands.extend(inits.iter().copied());
    let new_loop = pre.op("scf.for", &operands, &carried, &[], &[region]);
    Some((new_loop, block, strip))
}

/// The unit attribute `marker` on `op`.
pub(super) fn mark(op: MlirOperation, marker: &str, builder: &Builder) {
    let unit = builder.attribute("unit");
    // SAFETY: live op and attribute; the name is copied.
    unsafe {
        mlirOperationSetAttributeByName(op, mlir_sys::MlirStringRef { data: marker.as_ptr() as *const _, length: marker.len() }, unit);
    }
}

/// The remainder continues from `inits` at `strip`; both loops are marked.
pub(super) fn finish(for_op: MlirOperation, new_loop: MlirOperation, strip: MlirValue, inits: &[MlirValue], pre: &Builder, marker: &str) {
    // SAFETY: operand 0 is the lower bound and 3.. the iter_args' inits (the matchers checked their number);
    // the values dominate the loop (made just before it).
    unsafe {
        mlirOperationSetOperand(for_op, 0, strip);
        for (position, init) in inits.iter().enumerate() {
            mlirOperationSetOperand(for_op, 3 + position as isize, *init);
        }
    }
    mark(for_op, marker, pre);
    mark(new_loop, marker, pre);
}

/// The number of set lanes of an i1 `mask` of `lanes` lanes, as an index: the mask's bits as one iL integer,
/// `math.ctpop`, `arith.index_cast`.
pub(super) fn popcount(body: &mut Builder, mask: MlirValue, lanes: u32) -> MlirValue {
    // SAFETY: live context.
    let bits_type = unsafe { mlir_sys::mlirIntegerTypeGet(body.context, lanes) };
    let bits = body.value("vector.bitcast", &[mask], vector_type(bits_type, 1, false), &[]);
    let position = body.attribute("array<i64: 0>");
    let word = body.value("vector.extract", &[bits], bits_type, &[("static_position", position)]);
    let count = body.value("math.ctpop", &[word], bits_type, &[]);
    let index = body.index_type();
    body.value("arith.index_cast", &[count], index, &[])
}

/// `vector.transfer_read %memref[%index], %padding {in_bounds = [true]}`.
pub(super) fn transfer_read(builder: &mut Builder, memref: MlirValue, index: MlirValue, r#type: MlirType, element: MlirType) -> MlirValue {
    let padding_attr = if unsafe { mlirTypeIsAFloat(element) } {
        builder.float_attribute(element, 0.0)
    } else {
        builder.integer_attribute(element, 0)
    };
    let padding = builder.constant(element, padding_attr);
    let map = builder.attribute("affine_map<(d0) -> (d0)>");
    let in_bounds = builder.attribute("[true]");
    let segments = builder.attribute("array<i32: 1, 1, 1, 0>");
    builder.value(
        "vector.transfer_read",
        &[memref, index, padding],
        r#type,
        &[("permutation_map", map), ("in_bounds", in_bounds), ("operandSegmentSizes", segments)],
    )
}

pub(super) fn element_of(memref: MlirValue) -> MlirType {
    // SAFETY: the matcher saw loads of it: a memref.
    unsafe { mlir_sys::mlirShapedTypeGetElementType(ir::value_type(memref)) }
}

/// The guard's vector mask for the strip at `iv`.
fn mask(body: &mut Builder, guard: &Guard, iv: MlirValue, lanes: u32, threshold: MlirValue) -> MlirValue {
    let element = element_of(guard.cond_memref);
    let cond = transfer_read(body, guard.cond_memref, iv, vector_type(element, lanes, false), element);
    let predicate = ir::attribute(guard.cmpf, "predicate").expect("cmpf has a predicate");
    let i1 = body.i1_type();
    body.value("arith.cmpf", &[cond, threshold], vector_type(i1, lanes, false), &[("predicate", predicate)])
}

fn rewrite_compact(for_op: MlirOperation, m: &CompactMatch, target: &str, marker: &str) {
    let element = element_of(m.data_memref);
    let lanes = lanes(target, element);
    let Some(init) = ir::operand(for_op, 3) else { return };
    let mut pre = Builder::before(for_op);
    let cond_element = element_of(m.guard.cond_memref);
    let threshold = pre.value("vector.broadcast", &[m.guard.threshold], vector_type(cond_element, lanes, false), &[]);
    let Some((new_loop, block, strip)) = vector_loop(&mut pre, for_op, lanes, &[init]) else { return };
    let mut body = Builder { context: pre.context, location: pre.location, place: Place::End(block), created: Vec::new() };
    // SAFETY: the block has (iv, k).
    let (iv, k) = unsafe { (mlirBlockGetArgument(block, 0), mlirBlockGetArgument(block, 1)) };
    let values = transfer_read(&mut body, m.data_memref, iv, vector_type(element, lanes, false), element);
    let mask = mask(&mut body, &m.guard, iv, lanes, threshold);
    body.op("vector.compressstore", &[m.out_memref, k, mask, values], &[], &[], &[]);
    let count = popcount(&mut body, mask, lanes);
    let next = body.binary("arith.addi", k, count);
    body.op("scf.yield", &[next], &[], &[], &[]);
    let Some(result) = ir::result(new_loop, 0) else { return };
    finish(for_op, new_loop, strip, &[result], &pre, marker);
    let _ = (m.guard.if_op, m.guard.then_block);
}

fn rewrite_filtered_reduce(for_op: MlirOperation, m: &ReduceMatch, target: &str, marker: &str) {
    let Some(init) = ir::operand(for_op, 3) else { return };
    let element = ir::value_type(init);
    let lanes = lanes(target, element);
    let vector = vector_type(element, lanes, false);
    let name = ir::op_name(m.combine);
    let (identity, kind) = match name {
        "arith.mulf" => (1.0, "mul"),
        "arith.maximumf" => (f64::NEG_INFINITY, "maximumf"),
        "arith.minimumf" => (f64::INFINITY, "minimumf"),
        // −0 is the identity of addition (the published pass uses +0, which turns a sum of −0s into +0).
        _ => (-0.0, "add"),
    };
    let mut pre = Builder::before(for_op);
    let identity_attr = pre.float_attribute(element, identity);
    let identity = pre.constant(element, identity_attr);
    let identity = pre.value("vector.broadcast", &[identity], vector, &[]);
    let cond_element = element_of(m.guard.cond_memref);
    let threshold = pre.value("vector.broadcast", &[m.guard.threshold], vector_type(cond_element, lanes, false), &[]);
    let Some((new_loop, block, strip)) = vector_loop(&mut pre, for_op, lanes, &[identity]) else { return };
    let mut body = Builder { context: pre.context, location: pre.location, place: Place::End(block), created: Vec::new() };
    // SAFETY: the block has (iv, acc).
    let (iv, acc) = unsafe { (mlirBlockGetArgument(block, 0), mlirBlockGetArgument(block, 1)) };
    let data_element = element_of(m.data_memref);
    let values = transfer_read(&mut body, m.data_memref, iv, vector, data_element);
    let mask = mask(&mut body, &m.guard, iv, lanes, threshold);
    let selected = body.value("arith.select", &[mask, values, identity], vector, &[]);
    let fastmath: Vec<(&str, mlir_sys::MlirAttribute)> =
        ir::attribute(m.combine, "fastmath").map(|a| vec![("fastmath", a)]).unwrap_or_default();
    let combined = body.value(name, &[acc, selected], vector, &fastmath);
    body.op("scf.yield", &[combined], &[], &[], &[]);
    let Some(result) = ir::result(new_loop, 0) else { return };
    let kind_attr = pre.attribute(&format!("#vector.kind<{kind}>"));
    // The lanes reduced once and combined with the original init (vector.reduction's accumulator operand).
    let reduced = pre.value("vector.reduction", &[result, init], element, &[("kind", kind_attr)]);
    // The reduction must come after the vector loop: `pre` inserts before the original loop, which follows it.
    finish(for_op, new_loop, strip, &[reduced], &pre, marker);
}

/// `vector.transfer_write %value, %memref[%index] {in_bounds = [true]}`.
pub(super) fn transfer_write(builder: &mut Builder, value: MlirValue, memref: MlirValue, index: MlirValue) {
    let map = builder.attribute("affine_map<(d0) -> (d0)>");
    let in_bounds = builder.attribute("[true]");
    let segments = builder.attribute("array<i32: 1, 1, 1, 0>");
    builder.op(
        "vector.transfer_write",
        &[value, memref, index],
        &[],
        &[("permutation_map", map), ("in_bounds", in_bounds), ("operandSegmentSizes", segments)],
        &[],
    );
}

/// The parts of an `scf.for` every pattern needs: step the constant 1 and `iter_args` carried values.
pub(super) struct Header {
    pub iv: MlirValue,
    pub carried: Vec<MlirValue>,
    /// The body's ops, the terminator last.
    pub ops: Vec<MlirOperation>,
}

pub(super) fn header(op: MlirOperation, iter_args: usize) -> Option<Header> {
    if ir::operand_count(op) != 3 + iter_args
        || ir::result_count(op) != iter_args
        || ir::constant_value(ir::operand(op, 2)?) != Some(1)
    {
        return None;
    }
    let body = *ir::region_blocks(op).first()?.first()?;
    // SAFETY: an scf.for body has the IV and one argument per iter_arg (counted above).
    let iv = unsafe { mlirBlockGetArgument(body, 0) };
    let carried = (0..iter_args).map(|position| unsafe { mlirBlockGetArgument(body, 1 + position as isize) }).collect();
    let ops: Vec<MlirOperation> = ir::block_ops(body).collect();
    if ops.is_empty() {
        return None;
    }
    Some(Header { iv, carried, ops })
}

/// The `scf.for` ops under `root` that do not carry `marker`, in walk order.
pub(super) fn candidates(root: MlirOperation, marker: &str) -> Vec<MlirOperation> {
    let mut loops = Vec::new();
    ir::walk(root, &mut |op| {
        if ir::op_name(op) == "scf.for" && ir::attribute(op, marker).is_none() {
            loops.push(op);
        }
    });
    loops
}

/// Whether `value` is `memref.load %memref[%iv]` (the value itself, or a second load of the same element).
pub(super) fn is_load_of(value: MlirValue, memref: MlirValue, iv: MlirValue) -> bool {
    load_on(value, iv).is_some_and(|m| ir::key(m) == ir::key(memref))
}

/// The operands of the terminator of `block`.
pub(super) fn yielded(block: MlirBlock) -> Vec<MlirValue> {
    ir::block_ops(block).last().map(ir::operands).unwrap_or_default()
}

/// A then-block that stores once and increments once, with nothing else but loads and constants before its
/// terminator (`out[k] = A[i]; k + 1`, the compaction and run-length shapes): its (store, addi). Which values
/// they use is the caller's to check.
pub(super) fn store_and_increment(ops: &[MlirOperation]) -> Option<(MlirOperation, MlirOperation)> {
    let (mut store, mut addi) = (None, None);
    for &inner in &ops[..ops.len().saturating_sub(1)] {
        match ir::op_name(inner) {
            "memref.load" | "arith.constant" => {}
            "memref.store" if store.is_none() => store = Some(inner),
            "arith.addi" if addi.is_none() => addi = Some(inner),
            _ => return None,
        }
    }
    Some((store?, addi?))
}
