//! `lego-materialize-assume-bounds`: makes `lego.assume_bounds` / `lego.assume` facts visible to upstream
//! integer-range analysis (`int-range-optimizations`), which knows nothing of lego ops (docs/reference/lowering.md §6).
//!
//! **Default (the published form).** For each `lego.assume_bounds %x … ub : %d`, and each
//! `lego.assume (arith.cmpi slt|ult, %x, %d)`, whose `%x` is a *block argument*, it inserts
//! `%b = arith.remui %x, %d {lego.materialized}` right after the assumption and makes the later uses of `%x` in
//! the same block use `%b` (uses in nested regions keep `%x`). When the fact holds, `%x remui %d = %x`, so the
//! program means the same; upstream range inference reads `%b < %d` from the `remui`. The processed op is
//! erased, with the condition it leaves unused; every other `lego.assume_bounds` (lower bounds only, facts on
//! computed values) is erased too — a lower bound is simply dropped. Other `lego.assume` ops stay.
//!
//! **`cleanup=true`** replaces each `remui … {lego.materialized}` by its left operand and erases it; nothing
//! else. Typical use: `lego-materialize-assume-bounds, int-range-optimizations,
//! lego-materialize-assume-bounds{cleanup=true}`.
//!
//! **`clamp=true`** (our earlier form) clamps instead: `%x' = minui(maxui(%x, %lo), %hi − 1)` after the
//! assumption for every later use (nested ones too), also for computed values, lower bounds and `ule`/`ugt`/
//! `uge`/`eq` comparisons (possibly `andi`-combined); each inserted op carries `lego.assumed_bound`, and the
//! assumptions stay. With `cleanup=true` it removes the clamps and erases every `lego.assume` /
//! `lego.assume_bounds` (with their conditions when nothing else uses them).
//!
//! **`only-layout-contract=true`** (with `cleanup=true`) erases only the `lego.assume_bounds` that
//! `lego-to-arith{assume-bounds=true}` stated for layout inputs (marked `lego.layout_contract`) and leaves
//! the user's facts alone. **`consume-facts=true`** (with `cleanup=true`) erases every `lego.assume` and
//! `lego.assume_bounds` (and the conditions only they use): `lego-lower` ends with it, consuming the user's
//! facts after they informed the simplification.
//!
//! Every mode ends with the clean-up of §0 ([`crate::cleanup::greedy_cleanup`]).

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

/// The unit attribute that marks the clamp form's scaffolding (`clamp=true`).
pub const MARKER: &str = "lego.assumed_bound";

/// The unit attribute on the `remui` of the published form.
pub const MATERIALIZED: &str = "lego.materialized";

#[derive(Clone, Default)]
pub struct MaterializeAssumeBounds {
    pub cleanup: bool,
    /// With `cleanup`: erase only the layout-contract facts of `lego-to-arith`.
    pub only_layout_contract: bool,
    /// Our clamp form instead of the published `remui` form.
    pub clamp: bool,
    /// With `cleanup`: erase every fact (what `lego-lower` ends with) but the premises of a pending assert.
    pub consume_facts: bool,
    /// Leave the §0 clean-up to a later pass of the pipeline (see [`crate::pipelines::cleanup_deferred`]).
    pub defer_cleanup: bool,
    pub(crate) lego_ops_left: bool,
}

pub fn create(options: MaterializeAssumeBounds) -> melior::pass::Pass {
    crate::external::into_mlir_pass(options, &ID)
}

impl LegoPass for MaterializeAssumeBounds {
    fn name(&self) -> &'static str {
        "lego-materialize-assume-bounds"
    }

    fn description(&self) -> &'static str {
        "Turn lego.assume facts into range information upstream passes use"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let root = root.to_raw();
        match (self.cleanup, self.clamp) {
            (true, _) if self.only_layout_contract => erase_layout_contract(root),
            (true, _) if self.consume_facts => {
                let lego_ops_left = consume_facts(root);
                if self.defer_cleanup {
                    // The lego dialect verifier checks lego ops only: with none left it need not walk the module.
                    self.lego_ops_left = lego_ops_left;
                    return Ok(());
                }
            }
            (true, false) => remove_materialized(root),
            (true, true) => cleanup(root),
            (false, false) => materialize_remainders(root)?,
            (false, true) => materialize(root)?,
        }
        self.lego_ops_left = self.defer_cleanup || crate::cleanup::greedy_cleanup(root).lego_ops_left;
        Ok(())
    }

    fn may_leave_lego_ops(&self) -> bool {
        self.lego_ops_left
    }
}

/// The published form: `remui {lego.materialized}` after each upper-bound fact on a block argument.
fn materialize_remainders(root: MlirOperation) -> Result<(), PassFailure> {
    // (fact op, x, bound, condition to erase if left unused)
    let mut facts: Vec<(MlirOperation, Option<(MlirValue, MlirValue)>, Option<MlirOperation>)> = Vec::new();
    ir::walk(root, &mut |op| match ir::op_name(op) {
        "lego.assume_bounds" => facts.push((op, upper_bound_of_assume_bounds(op), None)),
        "lego.assume" => {
            let condition = ir::operand(op, 0).and_then(ir::defining_op);
            if let Some(cmpi) = condition.filter(|def| ir::op_name(*def) == "arith.cmpi") {
                // slt = 2, ult = 6
                if matches!(ir::integer_attribute(cmpi, "predicate"), Some(2 | 6)) {
                    if let (Some(x), Some(d)) = (ir::operand(cmpi, 0), ir::operand(cmpi, 1)) {
                        facts.push((op, Some((x, d)), Some(cmpi)));
                    }
                }
            }
        }
        _ => {}
    });
    for (op, bound, condition) in facts {
        let is_assume = ir::op_name(op) == "lego.assume";
        let Some((x, d)) = bound.filter(|(x, d)| {
            ir::block_argument(*x).is_some() && ir::value_type(*x).ptr == ir::value_type(*d).ptr
        }) else {
            // Facts on computed values and lower bounds only: assume_bounds go, other assumes stay.
            if !is_assume {
                ir::erase(op);
            }
            continue;
        };
        let remainder = insert_remainder_after(op, x, d)?;
        redirect_later_uses_in_block(op, x, remainder);
        ir::erase(op);
        if let Some(condition) = condition {
            ir::erase_unused(&[condition], |_| true);
        }
    }
    Ok(())
}

/// `(x, ub)` of a `lego.assume_bounds` with an upper bound.
fn upper_bound_of_assume_bounds(op: MlirOperation) -> Option<(MlirValue, MlirValue)> {
    let operands = ir::operands(op);
    let segments = ir::dense_array(op, "operandSegmentSizes").unwrap_or_else(|| vec![1, 0, 0]);
    let [_, lo, hi] = segments.as_slice() else { return None };
    if *hi != 1 {
        return None;
    }
    Some((*operands.first()?, *operands.get(1 + usize::from(*lo == 1))?))
}

/// Inserts `arith.remui x, d {lego.materialized}` right after `anchor`; returns its result.
fn insert_remainder_after(anchor: MlirOperation, x: MlirValue, d: MlirValue) -> Result<MlirValue, PassFailure> {
    let block = ir::op_block(anchor).ok_or_else(|| PassFailure("assumption outside a block".into()))?;
    // SAFETY: `anchor` is a live op; the location and context it gives live as long as the IR.
    let location = unsafe { melior::ir::Location::from_raw(mlir_sys::mlirOperationGetLocation(anchor)) };
    let handle = ContextHandle::of_location(location);
    let context = handle.get();
    let operands = [x, d].map(|value| unsafe { melior::ir::Value::from_raw(value) });
    let operation = OperationBuilder::new("arith.remui", location)
        .add_operands(&operands)
        .add_attributes(&[(Identifier::new(context, MATERIALIZED), Attribute::unit(context))])
        .add_results(&[unsafe { melior::ir::Type::from_raw(ir::value_type(x)) }])
        .build()
        .map_err(|error| PassFailure(error.to_string()))?;
    let raw = operation.into_raw();
    // SAFETY: `block` owns `anchor`; the new op is detached and its ownership passes to the block.
    unsafe { mlir_sys::mlirBlockInsertOwnedOperationAfter(block, anchor, raw) };
    ir::result(raw, 0).ok_or_else(|| PassFailure("created op has no result".into()))
}

/// Makes the uses of `x` by ops after `anchor` in `anchor`'s block (not in nested regions, not the op
/// defining `replacement`) use `replacement`.
fn redirect_later_uses_in_block(anchor: MlirOperation, x: MlirValue, replacement: MlirValue) {
    let Some(block) = ir::op_block(anchor) else { return };
    let skip = ir::defining_op(replacement).map(ir::op_key);
    let mut redirect = Vec::new();
    // SAFETY: walking the use list of a live value without modifying it.
    unsafe {
        let mut operand = mlir_sys::mlirValueGetFirstUse(x);
        while !mlir_sys::mlirOpOperandIsNull(operand) {
            let user = mlir_sys::mlirOpOperandGetOwner(operand);
            let same_block = ir::op_block(user).is_some_and(|b| ir::block_key(b) == ir::block_key(block));
            if same_block
                && Some(ir::op_key(user)) != skip
                && ir::op_key(user) != ir::op_key(anchor)
                && mlir_sys::mlirOperationIsBeforeInBlock(anchor, user)
            {
                redirect.push((user, mlir_sys::mlirOpOperandGetOperandNumber(operand)));
            }
            operand = mlir_sys::mlirOpOperandGetNextUse(operand);
        }
        for (user, number) in redirect {
            mlir_sys::mlirOperationSetOperand(user, number as isize, replacement);
        }
    }
}

/// `cleanup=true`: each `remui … {lego.materialized}` is replaced by its left operand and erased.
fn remove_materialized(root: MlirOperation) {
    let mut remainders = Vec::new();
    ir::walk(root, &mut |op| {
        if ir::op_name(op) == "arith.remui" && ir::attribute(op, MATERIALIZED).is_some() {
            remainders.push(op);
        }
    });
    erase_remainders(remainders);
}

/// Each `remui {lego.materialized}` replaced by its left operand and erased.
fn erase_remainders(remainders: Vec<MlirOperation>) {
    for op in remainders {
        if let (Some(result), Some(input)) = (ir::result(op, 0), ir::operand(op, 0)) {
            // SAFETY: both values are live.
            unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(result, input) };
        }
        ir::erase(op);
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

/// `consume-facts=true`: [`remove_materialized`], then [`cleanup`], from one walk of the module (the second
/// walk would find the same ops in the same order, less the remainders erased; erasing them and redirecting
/// their uses changes no other op's name or attributes). Returns whether a lego op may be left: one that is
/// not a consumed fact was seen.
///
/// The user's facts in a function (top-level op) that still holds a `lego.assert_*` are kept: they are the
/// premises of that bounds obligation, which `lego-external-smt-verifier` proves after `lego-lower`. Erasing
/// them would turn an access proved in bounds into a refutation whose counterexample breaks a stated fact.
/// The layout-contract facts go all the same: they restate the obligations and are never premises.
fn consume_facts(root: MlirOperation) -> bool {
    let mut remainders = Vec::new();
    let mut scaffolding = Vec::new();
    let mut assumptions = Vec::new();
    let mut asserting = std::collections::HashSet::new();
    let mut other_lego_ops = false;
    ir::walk(root, &mut |op| {
        let name = ir::op_name(op);
        if name == "arith.remui" && ir::attribute(op, MATERIALIZED).is_some() {
            remainders.push(op);
        } else if matches!(name, "lego.assume" | "lego.assume_bounds") {
            assumptions.push(op);
        } else {
            other_lego_ops |= name.starts_with("lego.");
            if matches!(name, "lego.assert_apply_bounds" | "lego.assert_inv_bounds") {
                asserting.insert(ir::op_key(top_level_ancestor(op, root)));
            }
            if ir::attribute(op, MARKER).is_some() {
                scaffolding.push(op);
            }
        }
    });
    if !asserting.is_empty() {
        let before = assumptions.len();
        assumptions.retain(|&op| {
            ir::is_layout_contract_fact(op) || !asserting.contains(&ir::op_key(top_level_ancestor(op, root)))
        });
        other_lego_ops |= assumptions.len() < before;
    }
    erase_remainders(remainders);
    erase_facts(scaffolding, assumptions);
    other_lego_ops
}

/// The ancestor of `op` directly inside `root` (`op` itself when it is one).
fn top_level_ancestor(op: MlirOperation, root: MlirOperation) -> MlirOperation {
    let root = ir::op_key(root);
    let mut current = op;
    while let Some(parent) = ir::parent_op(current) {
        if ir::op_key(parent) == root {
            break;
        }
        current = parent;
    }
    current
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
    erase_facts(scaffolding, assumptions);
}

/// The clamps of `scaffolding` replaced by their inputs, every assumption erased, then the scaffolding and the
/// assumptions' conditions left unused.
fn erase_facts(scaffolding: Vec<MlirOperation>, assumptions: Vec<MlirOperation>) {
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
