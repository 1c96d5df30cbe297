//! `lego-vectorize-scan` (docs/passes/lego-vectorize-scan.md): the inclusive prefix sum
//! `acc = acc + A[i]; B[i] = acc`, as a Hillis–Steele scan of each strip (log2 L shift-and-add stages) plus the
//! running total of the strips before it.

use super::build::{vector_type, Builder, Place};
use super::patterns::{self, Header};
use crate::external::{LegoPass, PassFailure, PassId};
use crate::registry::{Options, RegistryError};
use crate::simplify::ir;
use melior::ir::OperationRef;
use mlir_sys::{mlirBlockGetArgument, mlirTypeIsAFloat, MlirOperation, MlirValue};

const MARKER: &str = "lego.scan_done";
static ID: PassId = PassId::new();

#[derive(Clone)]
pub struct Scan {
    target: String,
}

pub fn create(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    Ok(crate::external::into_mlir_pass(Scan { target: patterns::check_target(options)? }, &ID))
}

impl LegoPass for Scan {
    fn name(&self) -> &'static str {
        "lego-vectorize-scan"
    }

    fn description(&self) -> &'static str {
        "Vectorize an inclusive prefix sum (acc = acc + A[i]; B[i] = acc) with log2(L) shuffle-and-add stages per strip"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        for op in patterns::candidates(root.to_raw(), MARKER) {
            if let Some(m) = match_scan(op) {
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
    addf: MlirOperation,
}

fn match_scan(op: MlirOperation) -> Option<Match> {
    let Header { iv, carried, ops, .. } = patterns::header(op, 1)?;
    let acc = carried[0];
    // SAFETY: type query on a live type.
    if !unsafe { mlirTypeIsAFloat(ir::value_type(acc)) } {
        return None;
    }
    let (mut load, mut addf, mut store) = (None, None, None);
    for &inner in &ops[..ops.len() - 1] {
        match ir::op_name(inner) {
            "arith.constant" => {}
            // One load: a second one could read what the store of an earlier iteration wrote.
            "memref.load" if load.is_none() => load = Some(inner),
            "arith.addf" if addf.is_none() => addf = Some(inner),
            "memref.store" if store.is_none() => store = Some(inner),
            _ => return None,
        }
    }
    let (load, addf, store) = (load?, addf?, store?);
    let sum = ir::result(addf, 0)?;
    let (a, b) = (ir::operand(addf, 0)?, ir::operand(addf, 1)?);
    let other = if ir::key(a) == ir::key(acc) {
        b
    } else if ir::key(b) == ir::key(acc) {
        a
    } else {
        return None;
    };
    if ir::key(other) != ir::key(ir::result(load, 0)?) {
        return None;
    }
    let input = patterns::load_on(other, iv)?;
    // B[i] = sum, and the loop carries the sum.
    if ir::operand_count(store) != 3
        || ir::key(ir::operand(store, 0)?) != ir::key(sum)
        || ir::key(ir::operand(store, 2)?) != ir::key(iv)
    {
        return None;
    }
    let yielded = ir::operands(*ops.last()?);
    if yielded.len() != 1 || ir::key(yielded[0]) != ir::key(sum) {
        return None;
    }
    Some(Match { input, output: ir::operand(store, 1)?, addf })
}

fn rewrite(for_op: MlirOperation, m: &Match, target: &str) {
    let Some(init) = ir::operand(for_op, 3) else { return };
    let element = ir::value_type(init);
    let lanes = patterns::lanes(target, element);
    // The stages shift by powers of two.
    if lanes < 2 || !lanes.is_power_of_two() {
        return;
    }
    let vector = vector_type(element, lanes, false);
    let mut pre = Builder::before(for_op);
    let carry0 = pre.value("vector.broadcast", &[init], vector, &[]);
    let zero_attr = pre.float_attribute(element, 0.0);
    let zero = pre.constant(element, zero_attr);
    let zeros = pre.value("vector.broadcast", &[zero], vector, &[]);
    let Some((new_loop, block, strip)) = patterns::vector_loop(&mut pre, for_op, lanes, &[carry0]) else { return };
    let mut body = Builder { context: pre.context, location: pre.location, place: Place::End(block), created: Vec::new() };
    // SAFETY: the block has (iv, carry).
    let (iv, carry) = unsafe { (mlirBlockGetArgument(block, 0), mlirBlockGetArgument(block, 1)) };
    let fastmath: Vec<(&str, mlir_sys::MlirAttribute)> =
        ir::attribute(m.addf, "fastmath").map(|a| vec![("fastmath", a)]).unwrap_or_default();
    let mut partial = patterns::transfer_read(&mut body, m.input, iv, vector, element);
    let mut shift = 1;
    while shift < lanes {
        // Lane j takes lane j − shift (zero below `shift`).
        let mask: Vec<String> =
            (0..lanes).map(|j| if j < shift { (lanes + j).to_string() } else { (j - shift).to_string() }).collect();
        let mask = body.attribute(&format!("array<i64: {}>", mask.join(", ")));
        let shifted = body.value("vector.shuffle", &[partial, zeros], vector, &[("mask", mask)]);
        partial = body.value("arith.addf", &[partial, shifted], vector, &fastmath);
        shift *= 2;
    }
    let out = body.value("arith.addf", &[partial, carry], vector, &fastmath);
    patterns::transfer_write(&mut body, out, m.output, iv);
    let last = body.attribute(&format!("array<i64: {}>", lanes - 1));
    let total = body.value("vector.extract", &[out], element, &[("static_position", last)]);
    let next = body.value("vector.broadcast", &[total], vector, &[]);
    body.op("scf.yield", &[next], &[], &[], &[]);
    let Some(result) = ir::result(new_loop, 0) else { return };
    let total = pre.value("vector.extract", &[result], element, &[("static_position", last)]);
    patterns::finish(for_op, new_loop, strip, &[total], &pre, MARKER);
}
