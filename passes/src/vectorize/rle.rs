//! `lego-vectorize-rle` (docs/passes/lego-vectorize-rle.md): run-length / edge-detect compaction,
//! `if A[i] != prev { out[k] = A[i]; k = k + 1 }; prev = A[i]`. Each strip compares its lanes with the lanes
//! shifted by one (the previous strip's last element entering lane 0) and compress-stores the changes.

use super::build::{vector_type, Builder, Place};
use super::patterns::{self, Header};
use crate::external::{LegoPass, PassFailure, PassId};
use crate::registry::{Options, RegistryError};
use crate::simplify::ir;
use melior::ir::OperationRef;
use mlir_sys::{mlirBlockGetArgument, mlirTypeIsAFloat, mlirTypeIsAIndex, MlirBlock, MlirOperation, MlirValue};

const MARKER: &str = "lego.rle_done";
static ID: PassId = PassId::new();

/// `arith.cmpf` predicates (the enum's integer values).
const ONE: i64 = 6;
const UNE: i64 = 13;

#[derive(Clone)]
pub struct Rle {
    target: String,
}

pub fn create(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    Ok(crate::external::into_mlir_pass(Rle { target: patterns::check_target(options)? }, &ID))
}

impl LegoPass for Rle {
    fn name(&self) -> &'static str {
        "lego-vectorize-rle"
    }

    fn description(&self) -> &'static str {
        "Vectorize run-length/edge-detect compaction (if A[i] != prev: out[k++] = A[i]; prev = A[i]) with vector.compressstore"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        for op in patterns::candidates(root.to_raw(), MARKER) {
            if let Some(m) = match_rle(op) {
                rewrite(op, &m, &self.target);
            }
        }
        Ok(())
    }

    fn may_leave_lego_ops(&self) -> bool {
        false
    }
}

struct Match {
    input: MlirValue,
    output: MlirValue,
    cmpf: MlirOperation,
}

fn match_rle(op: MlirOperation) -> Option<Match> {
    let Header { iv, carried, ops, .. } = patterns::header(op, 2)?;
    let (k, prev) = (carried[0], carried[1]);
    // SAFETY: type queries on live types.
    if !unsafe { mlirTypeIsAIndex(ir::value_type(k)) && mlirTypeIsAFloat(ir::value_type(prev)) } {
        return None;
    }
    let (mut cmpf, mut if_op, mut select) = (None, None, None);
    for &inner in &ops[..ops.len() - 1] {
        match ir::op_name(inner) {
            "memref.load" | "arith.constant" => {}
            "arith.cmpf" if cmpf.is_none() => cmpf = Some(inner),
            "scf.if" if if_op.is_none() => if_op = Some(inner),
            "arith.select" if select.is_none() => select = Some(inner),
            _ => return None,
        }
    }
    let (cmpf, if_op) = (cmpf?, if_op?);
    let predicate = ir::integer_attribute(cmpf, "predicate")?;
    if predicate != ONE && predicate != UNE {
        return None;
    }
    let loaded = ir::operand(cmpf, 0)?;
    let input = patterns::load_on(loaded, iv)?;
    let cmp = ir::key(ir::result(cmpf, 0)?);
    if ir::key(ir::operand(cmpf, 1)?) != ir::key(prev) || ir::key(ir::operand(if_op, 0)?) != cmp {
        return None;
    }
    let is_element = |value: MlirValue| ir::key(value) == ir::key(loaded) || patterns::is_load_of(value, input, iv);
    let regions = ir::region_blocks(if_op);
    let then_block = *regions.first()?.first()?;
    let else_block = *regions.get(1)?.first()?;
    let then_yield = patterns::yielded(then_block);
    let else_yield = patterns::yielded(else_block);
    let yielded = ir::operands(*ops.last()?);
    if yielded.len() != 2 || ir::key(yielded[0]) != ir::key(ir::result(if_op, 0)?) {
        return None;
    }
    match (ir::result_count(if_op), select) {
        // Form A: the if carries (k, prev).
        (2, None) => {
            if then_yield.len() != 2
                || !is_element(then_yield[1])
                || else_yield.len() != 2
                || ir::key(else_yield[0]) != ir::key(k)
                || ir::key(else_yield[1]) != ir::key(prev)
                || ir::key(yielded[1]) != ir::key(ir::result(if_op, 1)?)
            {
                return None;
            }
        }
        // Form B: prev' = select(cmp, A[i], prev), the if carries k.
        (1, Some(select)) => {
            let operands = ir::operands(select);
            if operands.len() != 3
                || ir::key(operands[0]) != cmp
                || !is_element(operands[1])
                || ir::key(operands[2]) != ir::key(prev)
                || ir::key(yielded[1]) != ir::key(ir::result(select, 0)?)
                || then_yield.len() != 1
                || else_yield.len() != 1
                || ir::key(else_yield[0]) != ir::key(k)
            {
                return None;
            }
        }
        _ => return None,
    }
    let output = then_store(then_block, k, then_yield[0], &is_element)?;
    Some(Match { input, output, cmpf })
}

/// The then-block `out[k] = A[i]; k + 1` (plus loads and constants), yielding `k + 1` first: `out`.
fn then_store(block: MlirBlock, k: MlirValue, next_k: MlirValue, is_element: &dyn Fn(MlirValue) -> bool) -> Option<MlirValue> {
    let ops: Vec<MlirOperation> = ir::block_ops(block).collect();
    let (store, addi) = patterns::store_and_increment(&ops)?;
    let (a, b) = (ir::operand(addi, 0)?, ir::operand(addi, 1)?);
    let is_k = |v: MlirValue| ir::key(v) == ir::key(k);
    let is_one = |v: MlirValue| ir::constant_value(v) == Some(1);
    if !((is_k(a) && is_one(b)) || (is_k(b) && is_one(a)))
        || ir::key(ir::result(addi, 0)?) != ir::key(next_k)
        || ir::operand_count(store) != 3
        || !is_element(ir::operand(store, 0)?)
        || !is_k(ir::operand(store, 2)?)
    {
        return None;
    }
    ir::operand(store, 1)
}

fn rewrite(for_op: MlirOperation, m: &Match, target: &str) {
    let (Some(init_k), Some(init_prev)) = (ir::operand(for_op, 3), ir::operand(for_op, 4)) else { return };
    let element = ir::value_type(init_prev);
    let lanes = patterns::lanes(target, element);
    if lanes < 2 || !lanes.is_power_of_two() {
        return;
    }
    let vector = vector_type(element, lanes, false);
    let mut pre = Builder::before(for_op);
    let prev0 = pre.value("vector.broadcast", &[init_prev], vector, &[]);
    let Some((new_loop, block, strip)) = patterns::vector_loop(&mut pre, for_op, lanes, &[init_k, prev0]) else { return };
    let mut body = Builder { context: pre.context, location: pre.location, place: Place::End(block), created: Vec::new() };
    // SAFETY: the block has (iv, k, prev).
    let (iv, k, prev) = unsafe { (mlirBlockGetArgument(block, 0), mlirBlockGetArgument(block, 1), mlirBlockGetArgument(block, 2)) };
    let values = patterns::transfer_read(&mut body, m.input, iv, vector, element);
    // Lane j sees element j − 1: the previous strip's last lane, then this strip's lanes 0 … L−2.
    let mask: Vec<String> = (0..lanes).map(|j| (lanes - 1 + j).to_string()).collect();
    let mask = body.attribute(&format!("array<i64: {}>", mask.join(", ")));
    let shifted = body.value("vector.shuffle", &[prev, values], vector, &[("mask", mask)]);
    let predicate = ir::attribute(m.cmpf, "predicate").expect("the matcher read the predicate");
    let i1s = vector_type(body.i1_type(), lanes, false);
    let changed = body.value("arith.cmpf", &[values, shifted], i1s, &[("predicate", predicate)]);
    body.op("vector.compressstore", &[m.output, k, changed, values], &[], &[], &[]);
    let count = patterns::popcount(&mut body, changed, lanes);
    let next = body.binary("arith.addi", k, count);
    body.op("scf.yield", &[next, values], &[], &[], &[]);
    let (Some(k_out), Some(prev_out)) = (ir::result(new_loop, 0), ir::result(new_loop, 1)) else { return };
    let last = pre.attribute(&format!("array<i64: {}>", lanes - 1));
    let prev_last = pre.value("vector.extract", &[prev_out], element, &[("static_position", last)]);
    patterns::finish(for_op, new_loop, strip, &[k_out, prev_last], &pre, MARKER);
}
