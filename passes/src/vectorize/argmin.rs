//! `lego-vectorize-argmin` (docs/passes/lego-vectorize-argmin.md): the paired reduction
//! `if A[i] < val { val = A[i]; idx = i }` (argmin, `olt`) or `>` (argmax, `ogt`), kept per lane in two vector
//! accumulators and combined after the loop so that the first index of the extreme wins, as in the scalar loop.

use super::build::{vector_type, Builder, Place};
use super::patterns::{self, Header};
use crate::external::{LegoPass, PassFailure, PassId};
use crate::registry::{Options, RegistryError};
use crate::simplify::ir;
use melior::ir::OperationRef;
use mlir_sys::{mlirBlockGetArgument, mlirTypeIsAFloat, mlirTypeIsAIndex, MlirOperation, MlirValue};

const MARKER: &str = "lego.argmin_done";
static ID: PassId = PassId::new();

/// `arith.cmpf` predicates (the enum's integer values).
const OLT: i64 = 4;
const OGT: i64 = 2;

#[derive(Clone)]
pub struct Argmin {
    target: String,
}

pub fn create(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    Ok(crate::external::into_mlir_pass(Argmin { target: patterns::check_target(options)? }, &ID))
}

impl LegoPass for Argmin {
    fn name(&self) -> &'static str {
        "lego-vectorize-argmin"
    }

    fn description(&self) -> &'static str {
        "Vectorize argmin/argmax (if A[i] < val: val = A[i], idx = i) with per-lane value and index accumulators"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        for op in patterns::candidates(root.to_raw(), MARKER) {
            if let Some(m) = match_argmin(op) {
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
    memref: MlirValue,
    /// `olt` (argmin) or `ogt` (argmax).
    predicate: i64,
}

fn match_argmin(op: MlirOperation) -> Option<Match> {
    let Header { iv, carried, ops, .. } = patterns::header(op, 2)?;
    let (val, idx) = (carried[0], carried[1]);
    // SAFETY: type queries on live types.
    if !unsafe { mlirTypeIsAFloat(ir::value_type(val)) && mlirTypeIsAIndex(ir::value_type(idx)) } {
        return None;
    }
    let (mut cmpf, mut if_op, mut selects) = (None, None, Vec::new());
    for &inner in &ops[..ops.len() - 1] {
        match ir::op_name(inner) {
            "memref.load" | "arith.constant" => {}
            "arith.cmpf" if cmpf.is_none() => cmpf = Some(inner),
            "arith.select" if selects.len() < 2 => selects.push(inner),
            "scf.if" if if_op.is_none() => if_op = Some(inner),
            _ => return None,
        }
    }
    let cmpf = cmpf?;
    let predicate = ir::integer_attribute(cmpf, "predicate")?;
    if predicate != OLT && predicate != OGT {
        return None;
    }
    let loaded = ir::operand(cmpf, 0)?;
    let memref = patterns::load_on(loaded, iv)?;
    let cmp = ir::key(ir::result(cmpf, 0)?);
    if ir::key(ir::operand(cmpf, 1)?) != ir::key(val) {
        return None;
    }
    let is_element = |value: MlirValue| ir::key(value) == ir::key(loaded) || patterns::is_load_of(value, memref, iv);
    // `select(cmp, on_true, on_false)`.
    let selects_between = |select: MlirOperation, on_true: &dyn Fn(MlirValue) -> bool, on_false: MlirValue| {
        let operands = ir::operands(select);
        operands.len() == 3 && ir::key(operands[0]) == cmp && on_true(operands[1]) && ir::key(operands[2]) == ir::key(on_false)
    };
    let is_iv = |value: MlirValue| ir::key(value) == ir::key(iv);
    // idx' = select(cmp, i, idx)
    let index_select = *selects.iter().find(|s| selects_between(**s, &is_iv, idx))?;
    let next_idx = ir::result(index_select, 0)?;
    // val' = if cmp { A[i] } else { val } (the published shape), or select(cmp, A[i], val) (what canonicalize
    // makes of the if when its then-block reuses the compared load).
    let next_val = match (if_op, selects.len()) {
        (Some(if_op), 1) => {
            if ir::result_count(if_op) != 1 || ir::key(ir::operand(if_op, 0)?) != cmp {
                return None;
            }
            let regions = ir::region_blocks(if_op);
            let then_block = *regions.first()?.first()?;
            let else_block = *regions.get(1)?.first()?;
            let then_ops: Vec<MlirOperation> = ir::block_ops(then_block).collect();
            let plain = |o: &MlirOperation| matches!(ir::op_name(*o), "memref.load" | "arith.constant");
            if !then_ops[..then_ops.len().saturating_sub(1)].iter().all(plain) {
                return None;
            }
            let then_value = *patterns::yielded(then_block).first()?;
            let else_value = *patterns::yielded(else_block).first()?;
            if ir::key(else_value) != ir::key(val) || !is_element(then_value) {
                return None;
            }
            ir::result(if_op, 0)?
        }
        (None, 2) => {
            let value_select = *selects.iter().find(|s| ir::op_key(**s) != ir::op_key(index_select))?;
            if !selects_between(value_select, &is_element, val) {
                return None;
            }
            ir::result(value_select, 0)?
        }
        _ => return None,
    };
    // The loop yields (val', idx').
    let yielded = ir::operands(*ops.last()?);
    if yielded.len() != 2 || ir::key(yielded[0]) != ir::key(next_val) || ir::key(yielded[1]) != ir::key(next_idx) {
        return None;
    }
    Some(Match { memref, predicate })
}

fn rewrite(for_op: MlirOperation, m: &Match, target: &str) {
    let (Some(init_val), Some(init_idx), Some(upper)) = (ir::operand(for_op, 3), ir::operand(for_op, 4), ir::operand(for_op, 1))
    else {
        return;
    };
    let element = ir::value_type(init_val);
    let lanes = patterns::lanes(target, element);
    let mut pre = Builder::before(for_op);
    let index = pre.index_type();
    let values_type = vector_type(element, lanes, false);
    let indices_type = vector_type(index, lanes, false);
    let i1s = vector_type(pre.i1_type(), lanes, false);
    let val0 = pre.value("vector.broadcast", &[init_val], values_type, &[]);
    let idx0 = pre.value("vector.broadcast", &[init_idx], indices_type, &[]);
    let iota = pre.value("vector.step", &[], indices_type, &[]);
    let Some((new_loop, block, strip)) = patterns::vector_loop(&mut pre, for_op, lanes, &[val0, idx0]) else { return };
    let mut body = Builder { context: pre.context, location: pre.location, place: Place::End(block), created: Vec::new() };
    // SAFETY: the block has (iv, values, indices).
    let (iv, acc_val, acc_idx) = unsafe { (mlirBlockGetArgument(block, 0), mlirBlockGetArgument(block, 1), mlirBlockGetArgument(block, 2)) };
    let values = patterns::transfer_read(&mut body, m.memref, iv, values_type, element);
    let base = body.value("vector.broadcast", &[iv], indices_type, &[]);
    let lane_idx = body.binary("arith.addi", iota, base);
    let predicate = body.integer_attribute(i64_type(&body), m.predicate);
    let mask = body.value("arith.cmpf", &[values, acc_val], i1s, &[("predicate", predicate)]);
    // Per lane exactly the scalar step (a select, not the published minimumf: a NaN or a −0 that the strict
    // compare does not take must not enter the accumulator).
    let next_val = body.value("arith.select", &[mask, values, acc_val], values_type, &[]);
    let next_idx = body.value("arith.select", &[mask, lane_idx, acc_idx], indices_type, &[]);
    body.op("scf.yield", &[next_val, next_idx], &[], &[], &[]);
    let (Some(vals), Some(idxs)) = (ir::result(new_loop, 0), ir::result(new_loop, 1)) else { return };

    // After the loop, in the original loop's place (`pre` inserts before it, after the vector loop).
    let (extreme, fill) = if m.predicate == OLT { ("minimumf", f64::INFINITY) } else { ("maximumf", f64::NEG_INFINITY) };
    let kind = pre.attribute(&format!("#vector.kind<{extreme}>"));
    let best = pre.value("vector.reduction", &[vals], element, &[("kind", kind)]);
    let best_splat = pre.value("vector.broadcast", &[best], values_type, &[]);
    // `ueq`: a NaN extreme (only from a NaN init, which every lane then holds) still selects the lanes.
    let ueq = pre.integer_attribute(i64_type(&pre), 8);
    let at_best = pre.value("arith.cmpf", &[vals, best_splat], i1s, &[("predicate", ueq)]);
    let upper_splat = pre.value("vector.broadcast", &[upper], indices_type, &[]);
    let candidates = pre.value("arith.select", &[at_best, idxs, upper_splat], indices_type, &[]);
    let minui = pre.attribute("#vector.kind<minui>");
    let first = pre.value("vector.reduction", &[candidates], index, &[("kind", minui)]);
    // The value carried on is the one of the winning lane (equal to `best` but for the sign of a zero).
    let first_splat = pre.value("vector.broadcast", &[first], indices_type, &[]);
    let eq = pre.integer_attribute(i64_type(&pre), 0);
    let same_index = pre.value("arith.cmpi", &[idxs, first_splat], i1s, &[("predicate", eq)]);
    let winner = pre.binary("arith.andi", same_index, at_best);
    let fill_attr = pre.float_attribute(element, fill);
    let fill = pre.constant(element, fill_attr);
    let fill = pre.value("vector.broadcast", &[fill], values_type, &[]);
    let picked = pre.value("arith.select", &[winner, vals, fill], values_type, &[]);
    let value = pre.value("vector.reduction", &[picked], element, &[("kind", kind)]);
    patterns::finish(for_op, new_loop, strip, &[value, first], &pre, MARKER);
}

fn i64_type(builder: &Builder) -> mlir_sys::MlirType {
    // SAFETY: live context.
    unsafe { mlir_sys::mlirIntegerTypeGet(builder.context, 64) }
}
