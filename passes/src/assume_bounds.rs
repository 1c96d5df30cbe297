//! `lego-materialize-assume-bounds`: makes `lego.assume_bounds` / `lego.assume` facts visible to upstream
//! integer-range analysis (`int-range-optimizations`, `arith-int-range-narrowing`, …), which knows nothing of
//! lego ops.
//!
//! **How.** For `lego.assume_bounds %x lb : %lo ub : %hi` it inserts, right after the assumption,
//! `%x' = arith.minui(arith.maxui(%x, %lo), %hi − 1)` and makes every later use of `%x` (after the assumption
//! in its block, or nested in ops after it) use `%x'`. When the fact holds the clamp is the identity, so the
//! program means the same; upstream range inference reads the bounds from `minui`/`maxui`. `lego.assume` of
//! an `arith.cmpi` (`ult`, `ule`, `ugt`, `uge`, `eq`, possibly `andi`-combined) clamps its non-constant sides
//! the same way. Each inserted op carries the unit attribute `lego.assumed_bound`.
//!
//! **`cleanup=true`** removes that scaffolding again: every op tagged `lego.assumed_bound` is replaced by its
//! first operand (the clamped value) and erased with its helper ops, and the `lego.assume` /
//! `lego.assume_bounds` ops are erased (with their `arith.cmpi` when nothing else uses it). Typical use:
//! `lego-materialize-assume-bounds, int-range-optimizations, lego-materialize-assume-bounds{cleanup=true}`.
//!
//! **`only-layout-contract=true`** (with `cleanup=true`) erases only the `lego.assume_bounds` that
//! `lego-to-arith{assume-bounds=true}` stated for layout inputs (marked `lego.layout_contract`) and leaves
//! the user's facts and every clamp alone; `lego-lower` ends with it.

use crate::{
    external::{LegoPass, PassFailure, PassId},
    mlir_context::ContextHandle,
    simplify::ir,
};
use melior::ir::{
    attribute::IntegerAttribute, operation::OperationBuilder, Attribute, Identifier,
    OperationRef,
};
use mlir_sys::{MlirOperation, MlirValue};

static ID: PassId = PassId::new();

/// The unit attribute that marks scaffolding.
pub const MARKER: &str = "lego.assumed_bound";

#[derive(Clone, Default)]
pub struct MaterializeAssumeBounds {
    pub cleanup: bool,
    /// With `cleanup`: erase only the layout-contract facts of `lego-to-arith`.
    pub only_layout_contract: bool,
}

pub fn create(cleanup: bool, only_layout_contract: bool) -> melior::pass::Pass {
    crate::external::into_mlir_pass(MaterializeAssumeBounds { cleanup, only_layout_contract }, &ID)
}

impl LegoPass for MaterializeAssumeBounds {
    fn name(&self) -> &'static str {
        "lego-materialize-assume-bounds"
    }

    fn description(&self) -> &'static str {
        "Turn lego.assume facts into range information upstream passes use"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        if self.cleanup && self.only_layout_contract {
            erase_layout_contract(root.to_raw());
        } else if self.cleanup {
            cleanup(root.to_raw());
        } else {
            materialize(root.to_raw())?;
        }
        Ok(())
    }
}

/// A bound of a clamp: `x ≥ value` or `x ≤ value` (after adjusting strict bounds by one).
#[derive(Clone, Copy)]
enum Clamp {
    AtLeast(MlirValue, i64),
    AtMost(MlirValue, i64),
}

fn materialize(root: MlirOperation) -> Result<(), PassFailure> {
    let mut work: Vec<(MlirOperation, MlirValue, Vec<Clamp>)> = Vec::new();
    ir::walk(root, &mut |op| match ir::op_name(op) {
        "lego.assume_bounds" => {
            let operands = ir::operands(op);
            let segments = ir::dense_array(op, "operandSegmentSizes").unwrap_or_else(|| vec![1, 0, 0]);
            let (Some(&x), [_, lo, hi]) = (operands.first(), segments.as_slice()) else { return };
            let mut clamps = Vec::new();
            let mut next = 1;
            if *lo == 1 {
                if let Some(&bound) = operands.get(next) {
                    clamps.push(Clamp::AtLeast(bound, 0));
                }
                next += 1;
            }
            if *hi == 1 {
                if let Some(&bound) = operands.get(next) {
                    clamps.push(Clamp::AtMost(bound, -1));
                }
            }
            if !clamps.is_empty() && ir::width(x).is_some() {
                work.push((op, x, clamps));
            }
        }
        "lego.assume" => {
            if let Some(condition) = ir::operand(op, 0) {
                let mut facts = Vec::new();
                comparisons(condition, &mut facts, 0);
                for (x, clamp) in facts {
                    work.push((op, x, vec![clamp]));
                }
            }
        }
        _ => {}
    });
    for (assumption, x, clamps) in work {
        clamp_after(assumption, x, &clamps)?;
    }
    Ok(())
}

/// Unsigned comparisons of `condition` (through `andi`) as clamps of their non-constant sides.
fn comparisons(condition: MlirValue, out: &mut Vec<(MlirValue, Clamp)>, depth: usize) {
    let Some(def) = ir::defining_op(condition) else { return };
    if depth > 8 {
        return;
    }
    match ir::op_name(def) {
        "arith.andi" => {
            for operand in ir::operands(def) {
                comparisons(operand, out, depth + 1);
            }
        }
        "arith.cmpi" => {
            let (Some(lhs), Some(rhs), Some(predicate)) =
                (ir::operand(def, 0), ir::operand(def, 1), ir::integer_attribute(def, "predicate"))
            else {
                return;
            };
            // eq=0 ult=6 ule=7 ugt=8 uge=9 (signed predicates are not unsigned facts)
            let (for_lhs, for_rhs) = match predicate {
                0 => (vec![Clamp::AtLeast(rhs, 0), Clamp::AtMost(rhs, 0)], vec![Clamp::AtLeast(lhs, 0), Clamp::AtMost(lhs, 0)]),
                6 => (vec![Clamp::AtMost(rhs, -1)], vec![Clamp::AtLeast(lhs, 1)]),
                7 => (vec![Clamp::AtMost(rhs, 0)], vec![Clamp::AtLeast(lhs, 0)]),
                8 => (vec![Clamp::AtLeast(rhs, 1)], vec![Clamp::AtMost(lhs, -1)]),
                9 => (vec![Clamp::AtLeast(rhs, 0)], vec![Clamp::AtMost(lhs, 0)]),
                _ => return,
            };
            if ir::constant_value(lhs).is_none() {
                out.extend(for_lhs.into_iter().map(|clamp| (lhs, clamp)));
            }
            if ir::constant_value(rhs).is_none() {
                out.extend(for_rhs.into_iter().map(|clamp| (rhs, clamp)));
            }
        }
        _ => {}
    }
}

struct Inserter {
    anchor: MlirOperation,
    created: Vec<MlirOperation>,
}

impl Inserter {
    fn insert(&mut self, operation: melior::ir::Operation) -> Result<MlirValue, PassFailure> {
        let block = ir::op_block(self.anchor).ok_or_else(|| PassFailure("assumption outside a block".into()))?;
        let raw = operation.into_raw();
        let after = self.created.last().copied().unwrap_or(self.anchor);
        unsafe { mlir_sys::mlirBlockInsertOwnedOperationAfter(block, after, raw) };
        self.created.push(raw);
        ir::result(raw, 0).ok_or_else(|| PassFailure("created op has no result".into()))
    }

    fn op(&mut self, name: &str, operands: &[MlirValue], r#type: mlir_sys::MlirType) -> Result<MlirValue, PassFailure> {
        let location = unsafe { melior::ir::Location::from_raw(mlir_sys::mlirOperationGetLocation(self.anchor)) };
        let handle = ContextHandle::of_location(location);
        let context = handle.get();
        let operands: Vec<melior::ir::Value> = operands.iter().map(|v| unsafe { melior::ir::Value::from_raw(*v) }).collect();
        let operation = OperationBuilder::new(name, location)
            .add_operands(&operands)
            .add_attributes(&[(Identifier::new(context, MARKER), Attribute::unit(context))])
            .add_results(&[unsafe { melior::ir::Type::from_raw(r#type) }])
            .build()
            .map_err(|error| PassFailure(error.to_string()))?;
        self.insert(operation)
    }

    fn constant(&mut self, value: i64, r#type: mlir_sys::MlirType) -> Result<MlirValue, PassFailure> {
        let location = unsafe { melior::ir::Location::from_raw(mlir_sys::mlirOperationGetLocation(self.anchor)) };
        let handle = ContextHandle::of_location(location);
        let context = handle.get();
        let r#type = unsafe { melior::ir::Type::from_raw(r#type) };
        let operation = OperationBuilder::new("arith.constant", location)
            .add_attributes(&[
                (Identifier::new(context, "value"), IntegerAttribute::new(r#type, value).into()),
                (Identifier::new(context, MARKER), Attribute::unit(context)),
            ])
            .add_results(&[r#type])
            .build()
            .map_err(|error| PassFailure(error.to_string()))?;
        self.insert(operation)
    }
}

/// Inserts the clamp of `x` after `assumption` and redirects the later uses of `x` to it.
fn clamp_after(assumption: MlirOperation, x: MlirValue, clamps: &[Clamp]) -> Result<(), PassFailure> {
    let r#type = ir::value_type(x);
    let mut inserter = Inserter { anchor: assumption, created: Vec::new() };
    let mut current = x;
    for clamp in clamps {
        let (bound, adjust, name) = match *clamp {
            Clamp::AtLeast(bound, adjust) => (bound, adjust, "arith.maxui"),
            Clamp::AtMost(bound, adjust) => (bound, adjust, "arith.minui"),
        };
        if ir::value_type(bound).ptr != r#type.ptr {
            continue;
        }
        let bound = if adjust == 0 {
            bound
        } else {
            let one = inserter.constant(adjust.abs(), r#type)?;
            inserter.op(if adjust < 0 { "arith.subi" } else { "arith.addi" }, &[bound, one], r#type)?
        };
        current = inserter.op(name, &[current, bound], r#type)?;
    }
    let Some(&last) = inserter.created.last() else { return Ok(()) };
    if ir::key(current) == ir::key(x) {
        return Ok(());
    }
    // Uses strictly after the clamp (same block, or nested in a later op).
    let created: std::collections::HashSet<ir::Key> = inserter.created.iter().map(|op| ir::op_key(*op)).collect();
    let mut operand = unsafe { mlir_sys::mlirValueGetFirstUse(x) };
    let mut redirect = Vec::new();
    while !unsafe { mlir_sys::mlirOpOperandIsNull(operand) } {
        let user = unsafe { mlir_sys::mlirOpOperandGetOwner(operand) };
        let number = unsafe { mlir_sys::mlirOpOperandGetOperandNumber(operand) };
        if !created.contains(&ir::op_key(user)) && ir::op_key(user) != ir::op_key(assumption) && ir::op_dominates(last, user) {
            redirect.push((user, number));
        }
        operand = unsafe { mlir_sys::mlirOpOperandGetNextUse(operand) };
    }
    for (user, number) in redirect {
        unsafe { mlir_sys::mlirOperationSetOperand(user, number as isize, current) };
    }
    Ok(())
}

fn erase_layout_contract(root: MlirOperation) {
    let mut contract = Vec::new();
    ir::walk(root, &mut |op| {
        if ir::is_layout_contract_fact(op) {
            contract.push(op);
        }
    });
    for op in contract {
        ir::erase(op);
    }
}

fn cleanup(root: MlirOperation) {
    let mut scaffolding = Vec::new();
    let mut assumptions = Vec::new();
    ir::walk(root, &mut |op| {
        if matches!(ir::op_name(op), "lego.assume" | "lego.assume_bounds") {
            assumptions.push(op);
        } else if ir::attribute(op, MARKER).is_some() {
            scaffolding.push(op);
        }
    });
    // Clamps: their value is their first operand whenever the fact holds.
    for op in &scaffolding {
        if matches!(ir::op_name(*op), "arith.minui" | "arith.maxui") {
            if let (Some(result), Some(input)) = (ir::result(*op, 0), ir::operand(*op, 0)) {
                unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(result, input) };
            }
        }
    }
    let mut conditions = Vec::new();
    for op in assumptions {
        if ir::op_name(op) == "lego.assume" {
            if let Some(condition) = ir::operand(op, 0).and_then(ir::defining_op) {
                conditions.push(condition);
            }
        }
        ir::erase(op);
    }
    // Scaffolding users come after their operands: erase unused ones until none is left to erase.
    let mut pending: Vec<MlirOperation> = scaffolding.into_iter().rev().collect();
    pending.extend(conditions);
    ir::erase_unused(&pending, |op| {
        ir::attribute(op, MARKER).is_some() || matches!(ir::op_name(op), "arith.cmpi" | "arith.andi")
    });
}
