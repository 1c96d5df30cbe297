//! `lego-vectorize-scatter-add` (docs/passes/lego-vectorize-scatter-add.md): the histogram / scatter-add
//! `hist[bin[i]] += delta`. A strip whose bins are all distinct is a gather, an add and a scatter; a strip with
//! a repeated bin (two lanes would update one element) runs the scalar loop over its L iterations instead.
//! Not in any pipeline (as published: scatters are slow on some x86 cores), only by name.

use super::build::{vector_type, Builder, Place};
use super::patterns::{self, Header};
use crate::external::{LegoPass, PassFailure, PassId};
use crate::registry::{Options, RegistryError};
use crate::simplify::ir;
use melior::ir::OperationRef;
use mlir_sys::{
    mlirBlockGetArgument, mlirOperationClone, mlirOperationSetOperand,
    mlirTypeIsAFloat, mlirTypeIsAIndex, mlirTypeIsAInteger, MlirOperation, MlirType, MlirValue,
};

const MARKER: &str = "lego.scatter_add_done";
static ID: PassId = PassId::new();

#[derive(Clone)]
pub struct ScatterAdd {
    target: String,
}

pub fn create(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    Ok(crate::external::into_mlir_pass(ScatterAdd { target: patterns::check_target(options)? }, &ID))
}

impl LegoPass for ScatterAdd {
    fn name(&self) -> &'static str {
        "lego-vectorize-scatter-add"
    }

    fn description(&self) -> &'static str {
        "Vectorize a histogram/scatter-add (hist[bin[i]] += delta) with gather + scatter and a per-strip conflict test"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        for op in patterns::candidates(root.to_raw(), MARKER) {
            if let Some(m) = match_scatter_add(op) {
                rewrite(op, &m, &self.target);
            }
        }
        Ok(())
    }

    fn may_leave_lego_ops(&self) -> bool {
        false
    }
}

/// Where `delta` comes from.
enum Delta {
    /// `D[i]`, a load on the IV.
    Load(MlirValue),
    /// A value defined outside the loop.
    Invariant(MlirValue),
}

struct Match {
    bins: MlirValue,
    hist: MlirValue,
    delta: Delta,
    addf: MlirOperation,
    /// Whether the histogram load is the addf's first operand.
    hist_first: bool,
}

/// The published lanes of this pass: half a register of 4-byte counts on AVX-512 (8), else as the others.
fn lanes(target: &str, element: MlirType) -> u32 {
    let four = super::analysis::scalar_bytes(element) == Some(4);
    match target {
        "avx512" | "avx2" => if four { 8 } else { 4 },
        _ => if four { 4 } else { 2 },
    }
}

fn match_scatter_add(op: MlirOperation) -> Option<Match> {
    let Header { iv, ops, .. } = patterns::header(op, 0)?;
    let (mut cast, mut store, mut addf) = (None, None, None);
    let mut loads = Vec::new();
    for &inner in &ops[..ops.len() - 1] {
        match ir::op_name(inner) {
            "arith.constant" => {}
            "memref.load" => loads.push(inner),
            "arith.addf" if addf.is_none() => addf = Some(inner),
            "arith.index_cast" if cast.is_none() => cast = Some(inner),
            "memref.store" if store.is_none() => store = Some(inner),
            _ => return None,
        }
    }
    let (cast, store, addf) = (cast?, store?, addf?);
    let index = ir::result(cast, 0)?;
    // SAFETY: type queries on live types.
    if !unsafe { mlirTypeIsAIndex(ir::value_type(index)) } {
        return None;
    }
    let bin_value = ir::operand(cast, 0)?;
    let bins = patterns::load_on(bin_value, iv)?;
    if !unsafe { mlirTypeIsAInteger(ir::value_type(bin_value)) } {
        return None;
    }
    // hist[idx] = hist[idx] + delta
    if ir::operand_count(store) != 3 || ir::key(ir::operand(store, 2)?) != ir::key(index) {
        return None;
    }
    let hist = ir::operand(store, 1)?;
    let sum = ir::result(addf, 0)?;
    if ir::key(ir::operand(store, 0)?) != ir::key(sum) || !unsafe { mlirTypeIsAFloat(ir::value_type(sum)) } {
        return None;
    }
    let is_hist_load = |value: MlirValue| patterns::load_on(value, index).is_some_and(|m| ir::key(m) == ir::key(hist));
    let (a, b) = (ir::operand(addf, 0)?, ir::operand(addf, 1)?);
    let (hist_value, delta_value, hist_first) = if is_hist_load(a) {
        (a, b, true)
    } else if is_hist_load(b) {
        (b, a, false)
    } else {
        return None;
    };
    let delta = if let Some(memref) = patterns::load_on(delta_value, iv) {
        Delta::Load(memref)
    } else if patterns::defined_outside(delta_value, op) {
        Delta::Invariant(delta_value)
    } else {
        return None;
    };
    // The bins and the deltas must not be the histogram (the scatter would change them under the loop), and
    // no other load may read what a store of an earlier iteration wrote.
    let delta_memref = match delta {
        Delta::Load(memref) => Some(memref),
        Delta::Invariant(_) => None,
    };
    if ir::key(bins) == ir::key(hist) || delta_memref.is_some_and(|m| ir::key(m) == ir::key(hist)) {
        return None;
    }
    let known = [Some(bin_value), Some(hist_value), delta_memref.map(|_| delta_value)];
    for load in loads {
        let value = ir::result(load, 0)?;
        if !known.iter().flatten().any(|k| ir::key(*k) == ir::key(value)) {
            return None;
        }
    }
    Some(Match { bins, hist, delta, addf, hist_first })
}

/// A region of one block holding an `scf.yield`; returns (region, block).
fn yield_region(builder: &mut Builder) -> (mlir_sys::MlirRegion, mlir_sys::MlirBlock) {
    let (region, block) = builder.region_with_block(&[]);
    let mut inner = Builder { context: builder.context, location: builder.location, place: Place::End(block), created: Vec::new() };
    inner.op("scf.yield", &[], &[], &[], &[]);
    (region, block)
}

fn rewrite(for_op: MlirOperation, m: &Match, target: &str) {
    let Some(sum) = ir::result(m.addf, 0) else { return };
    let element = ir::value_type(sum);
    let lanes = lanes(target, element);
    if lanes < 2 {
        return;
    }
    let mut pre = Builder::before(for_op);
    let values_type = vector_type(element, lanes, false);
    let bin_element = patterns::element_of(m.bins);
    let bins_type = vector_type(bin_element, lanes, false);
    let i1 = pre.i1_type();
    let i1s = vector_type(i1, lanes, false);
    let index_type = pre.index_type();
    let indices_type = vector_type(index_type, lanes, false);
    let invariant_delta = match m.delta {
        Delta::Invariant(value) => Some(pre.value("vector.broadcast", &[value], values_type, &[])),
        Delta::Load(_) => None,
    };
    let true_attr = pre.integer_attribute(i1, 1);
    let one = pre.constant(i1, true_attr);
    let all_true = pre.value("vector.broadcast", &[one], i1s, &[]);
    let false_attr = pre.integer_attribute(i1, 0);
    let zero_bit = pre.constant(i1, false_attr);
    let no_conflict = pre.value("vector.broadcast", &[zero_bit], i1s, &[]);
    let zero_attr = pre.float_attribute(element, 0.0);
    let zero = pre.constant(element, zero_attr);
    let pass_through = pre.value("vector.broadcast", &[zero], values_type, &[]);
    let lanes_value = pre.index_constant(lanes as i64);
    let c0 = pre.index_constant(0);
    let Some((new_loop, block, strip)) = patterns::vector_loop(&mut pre, for_op, lanes, &[]) else { return };
    let mut body = Builder { context: pre.context, location: pre.location, place: Place::End(block), created: Vec::new() };
    // SAFETY: the block has the IV.
    let iv = unsafe { mlirBlockGetArgument(block, 0) };
    let bins = patterns::transfer_read(&mut body, m.bins, iv, bins_type, bin_element);
    // Two lanes with one bin: some rotation of the bins matches the bins in a lane.
    let mut conflicts = no_conflict;
    let i64_type = unsafe { mlir_sys::mlirIntegerTypeGet(body.context, 64) };
    let eq = body.integer_attribute(i64_type, 0);
    for k in 1..lanes {
        let rotation: Vec<String> = (0..lanes).map(|j| ((j + k) % lanes).to_string()).collect();
        let rotation = body.attribute(&format!("array<i64: {}>", rotation.join(", ")));
        let rotated = body.value("vector.shuffle", &[bins, bins], bins_type, &[("mask", rotation)]);
        let same = body.value("arith.cmpi", &[bins, rotated], i1s, &[("predicate", eq)]);
        conflicts = body.binary("arith.ori", conflicts, same);
    }
    let or = body.attribute("#vector.kind<or>");
    let any = body.value("vector.reduction", &[conflicts], i1, &[("kind", or)]);
    let (then_region, then_block) = yield_region(&mut body);
    let (else_region, else_block) = yield_region(&mut body);
    body.op("scf.if", &[any], &[], &[], &[then_region, else_region]);
    body.op("scf.yield", &[], &[], &[], &[]);

    // Conflict: the original loop over this strip's iterations.
    let then_yield = ir::block_ops(then_block).last();
    let else_yield = ir::block_ops(else_block).last();
    let (Some(then_yield), Some(else_yield)) = (then_yield, else_yield) else { return };
    let mut then = Builder { context: pre.context, location: pre.location, place: Place::Before(then_yield), created: Vec::new() };
    let strip_end = then.binary("arith.addi", iv, lanes_value);
    // SAFETY: a detached copy of the original loop, bounds replaced (operands 0 and 1), then inserted.
    let scalar = unsafe {
        let clone = mlirOperationClone(for_op);
        mlirOperationSetOperand(clone, 0, iv);
        mlirOperationSetOperand(clone, 1, strip_end);
        clone
    };
    then.insert(scalar);
    patterns::mark(scalar, MARKER, &then);

    // No conflict: gather, add, scatter.
    let mut apart = Builder { context: pre.context, location: pre.location, place: Place::Before(else_yield), created: Vec::new() };
    let indices = apart.value("arith.index_cast", &[bins], indices_type, &[]);
    let old = apart.value("vector.gather", &[m.hist, c0, indices, all_true, pass_through], values_type, &[]);
    let delta = match (&m.delta, invariant_delta) {
        (_, Some(splat)) => splat,
        (Delta::Load(memref), None) => patterns::transfer_read(&mut apart, *memref, iv, values_type, element),
        (Delta::Invariant(_), None) => return,
    };
    let fastmath: Vec<(&str, mlir_sys::MlirAttribute)> =
        ir::attribute(m.addf, "fastmath").map(|a| vec![("fastmath", a)]).unwrap_or_default();
    let operands = if m.hist_first { [old, delta] } else { [delta, old] };
    let new = apart.value("arith.addf", &operands, values_type, &fastmath);
    apart.op("vector.scatter", &[m.hist, c0, indices, all_true, new], &[], &[], &[]);
    patterns::finish(for_op, new_loop, strip, &[], &pre, MARKER);
}
