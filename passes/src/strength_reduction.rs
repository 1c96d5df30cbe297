//! `lego-strength-reduction` (docs/reference/lowering.md §5): multiplications, divisions and remainders by a power of two
//! become shifts and masks, and Morton bit-spread sums become the classic spread sequence.
//!
//! - `muli(x, 2^k)` (constant on either side) → `shli x, k`; `divui(x, 2^k)` → `shrui x, k`; `remui(x, 2^k)` →
//!   `andi x, 2^k − 1`. k = 0 is left to the folders.
//! - `divsi`/`remsi` by 2^k → `shrui`/`andi` only when x is provably ≥ 0 ([`NonNegative`]): a signed
//!   division rounds toward zero, so a shift would be wrong for a negative x.
//! - **Morton bit-spread recognition** ([`morton`]): an `addi` tree of ≥ 4 single-bit leaves
//!   `shli?(bit0(src >> k), S)` whose leaves, grouped by source, take contiguous source bits to destination
//!   bits `offset + stride·i` (stride 2 or 3) becomes one spread per group, combined with `ori`.
//!
//! Every candidate is found in one walk and rewritten in place with the raw C API (no pattern driver, no
//! re-walk per rewrite), so the pass is linear in the size of the module; it ends with the §0 clean-up
//! ([`crate::cleanup::greedy_cleanup`]), which folds, uniques and hoists the new constants.

use crate::{
    external::{LegoPass, PassFailure, PassId},
    mlir_context::ContextHandle,
    simplify::ir,
};
use melior::ir::{
    attribute::IntegerAttribute, operation::OperationBuilder, Identifier, Location, OperationRef, Type, Value,
};
use mlir_sys::{MlirOperation, MlirType, MlirValue};
use std::collections::HashMap;

static ID: PassId = PassId::new();

#[derive(Clone, Default)]
pub struct StrengthReduction {
    lego_ops_left: bool,
}

pub fn create() -> melior::pass::Pass {
    crate::external::into_mlir_pass(StrengthReduction { lego_ops_left: true }, &ID)
}

impl LegoPass for StrengthReduction {
    fn name(&self) -> &'static str {
        "lego-strength-reduction"
    }

    fn description(&self) -> &'static str {
        "Power-of-two muli/divui/remui (and divsi/remsi of non-negative values) to shli/shrui/andi; Morton bit spreads"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let root = root.to_raw();
        let mut non_negative = NonNegative::default();
        // One walk finds the Morton roots and the ops that may be reduced (the Morton rewrite erases only its
        // roots, and the ops it creates are never reduced).
        let mut found = Found::default();
        ir::walk(root, &mut |op| found.visit(op));
        let spreads = morton::rewrite_all(found.morton_roots, &mut non_negative)?;
        let reduced = reduce_powers_of_two(found.reducible, &mut non_negative)?;
        tracing::debug!(target: "lego", "strength reduction: {spreads} Morton spreads, {reduced} ops reduced");
        self.lego_ops_left = crate::cleanup::greedy_cleanup(root).lego_ops_left;
        Ok(())
    }

    fn may_leave_lego_ops(&self) -> bool {
        self.lego_ops_left
    }
}

/// What a candidate op becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rewrite {
    /// `arith.shli x, k`
    ShiftLeft(u32),
    /// `arith.shrui x, k`
    ShiftRight(u32),
    /// `arith.andi x, mask`
    Mask(u64),
}

/// `k` when `value` is the constant 2^k with k ≥ 1 (and below the width).
fn power_of_two_exponent(value: MlirValue) -> Option<u32> {
    let constant = ir::constant_value(value)?;
    let width = ir::width(value)?;
    (constant > 1 && constant.is_power_of_two()).then(|| constant.trailing_zeros()).filter(|k| *k < width)
}

/// The kept operand and the rewrite of a candidate op.
fn classify(op: MlirOperation, non_negative: &mut NonNegative) -> Option<(MlirValue, Rewrite)> {
    let name = ir::op_name(op);
    if !matches!(name, "arith.muli" | "arith.divui" | "arith.remui" | "arith.divsi" | "arith.remsi") {
        return None;
    }
    let (lhs, rhs) = (ir::operand(op, 0)?, ir::operand(op, 1)?);
    match name {
        "arith.muli" => match power_of_two_exponent(rhs) {
            Some(k) => Some((lhs, Rewrite::ShiftLeft(k))),
            None => power_of_two_exponent(lhs).map(|k| (rhs, Rewrite::ShiftLeft(k))),
        },
        "arith.divui" => power_of_two_exponent(rhs).map(|k| (lhs, Rewrite::ShiftRight(k))),
        "arith.remui" => power_of_two_exponent(rhs).map(|k| (lhs, Rewrite::Mask((1u64 << k) - 1))),
        "arith.divsi" => power_of_two_exponent(rhs)
            .filter(|_| non_negative.check(lhs))
            .map(|k| (lhs, Rewrite::ShiftRight(k))),
        "arith.remsi" => power_of_two_exponent(rhs)
            .filter(|_| non_negative.check(lhs))
            .map(|k| (lhs, Rewrite::Mask((1u64 << k) - 1))),
        _ => None,
    }
}

/// What the pass's one walk collects, in IR order.
#[derive(Default)]
struct Found {
    /// `addi` ops none of whose users is an `addi` (each tree is rewritten once, at its top).
    morton_roots: Vec<MlirOperation>,
    /// Ops [`classify`] may rewrite: the right name and a power-of-two constant operand where it looks for
    /// one. Whether that holds does not change with the Morton rewrite (it replaces only `addi` results, by
    /// `ori` results: neither is a constant).
    reducible: Vec<MlirOperation>,
}

impl Found {
    fn visit(&mut self, op: MlirOperation) {
        let name = ir::op_name(op);
        match name {
            "arith.addi" => {
                if ir::result(op, 0).is_some_and(|value| {
                    ir::users(value).into_iter().all(|user| ir::op_name(user) != "arith.addi")
                }) {
                    self.morton_roots.push(op);
                }
            }
            "arith.muli" => {
                if ir::operand(op, 1).and_then(power_of_two_exponent).is_some()
                    || ir::operand(op, 0).and_then(power_of_two_exponent).is_some()
                {
                    self.reducible.push(op);
                }
            }
            "arith.divui" | "arith.remui" | "arith.divsi" | "arith.remsi" => {
                if ir::operand(op, 0).is_some() && ir::operand(op, 1).and_then(power_of_two_exponent).is_some() {
                    self.reducible.push(op);
                }
            }
            _ => {}
        }
    }
}

/// `reducible`: the candidates of [`Found`], in IR order.
fn reduce_powers_of_two(reducible: Vec<MlirOperation>, non_negative: &mut NonNegative) -> Result<usize, PassFailure> {
    // Decided before anything changes, in IR order (as a walk of the module would ask [`classify`]: it consults
    // `non_negative` only for these ops); the operand is read again when the op is rewritten (an earlier
    // rewrite may have replaced it).
    let candidates: Vec<MlirOperation> =
        reducible.into_iter().filter(|op| classify(*op, non_negative).is_some()).collect();
    let count = candidates.len();
    for op in candidates {
        let Some((value, rewrite)) = classify(op, non_negative) else { continue };
        let emitter = Emitter::before(op)?;
        let r#type = ir::value_type(value);
        let (name, amount) = match rewrite {
            Rewrite::ShiftLeft(k) => ("arith.shli", k as u64),
            Rewrite::ShiftRight(k) => ("arith.shrui", k as u64),
            Rewrite::Mask(mask) => ("arith.andi", mask),
        };
        let amount = emitter.constant(amount, r#type)?;
        let replacement = emitter.binary(name, value, amount)?;
        replace_and_erase(op, replacement, non_negative);
    }
    Ok(count)
}

/// Replaces `op`'s result by `replacement` and erases `op`, forgetting what was known of the result (its
/// address may be reused by an op created later).
fn replace_and_erase(op: MlirOperation, replacement: MlirValue, non_negative: &mut NonNegative) {
    if let Some(result) = ir::result(op, 0) {
        non_negative.memo.remove(&ir::key(result));
        // SAFETY: both values are live; `op` has no use left afterwards and is erased.
        unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(result, replacement) };
    }
    ir::erase(op);
}

/// Builds ops right before an anchor op, at its location.
struct Emitter {
    anchor: MlirOperation,
    block: mlir_sys::MlirBlock,
}

impl Emitter {
    fn before(anchor: MlirOperation) -> Result<Self, PassFailure> {
        let block = ir::op_block(anchor).ok_or_else(|| PassFailure("op outside a block".into()))?;
        Ok(Emitter { anchor, block })
    }

    fn location(&self) -> Location<'static> {
        // SAFETY: the anchor is live; the location lives in its context, which outlives the pass run.
        unsafe { Location::from_raw(mlir_sys::mlirOperationGetLocation(self.anchor)) }
    }

    fn insert(&self, operation: melior::ir::Operation) -> Result<MlirValue, PassFailure> {
        let raw = operation.into_raw();
        // SAFETY: `block` owns `anchor`; the new op is detached and its ownership passes to the block.
        unsafe { mlir_sys::mlirBlockInsertOwnedOperationBefore(self.block, self.anchor, raw) };
        ir::result(raw, 0).ok_or_else(|| PassFailure("created op has no result".into()))
    }

    /// `arith.constant value : type` (the low bits of `value` for a narrower type: an i32 mask prints signed).
    fn constant(&self, value: u64, r#type: MlirType) -> Result<MlirValue, PassFailure> {
        let location = self.location();
        let handle = ContextHandle::of_location(location);
        // SAFETY: `r#type` is a live integer or index type.
        let r#type = unsafe { Type::from_raw(r#type) };
        let operation = OperationBuilder::new("arith.constant", location)
            .add_attributes(&[(Identifier::new(handle.get(), "value"), IntegerAttribute::new(r#type, value as i64).into())])
            .add_results(&[r#type])
            .build()
            .map_err(|error| PassFailure(error.to_string()))?;
        self.insert(operation)
    }

    fn binary(&self, name: &str, lhs: MlirValue, rhs: MlirValue) -> Result<MlirValue, PassFailure> {
        // SAFETY: both values are live.
        let operands = [lhs, rhs].map(|value| unsafe { Value::from_raw(value) });
        let r#type = unsafe { Type::from_raw(ir::value_type(lhs)) };
        let operation = OperationBuilder::new(name, self.location())
            .add_operands(&operands)
            .add_results(&[r#type])
            .build()
            .map_err(|error| PassFailure(error.to_string()))?;
        self.insert(operation)
    }
}

/// Values provably ≥ 0 when read as signed (docs/reference/lowering.md §5): non-negative constants, block arguments of
/// lego regions, `scf.for` induction variables with a non-negative lower bound, results of
/// `divui`/`remui`/`shrui`, `andi` with a non-negative side, `addi`/`muli`/`shli` of non-negative operands.
/// Memoized; the structural recursion is bounded, so a deep chain costs linear time and no deep stack.
#[derive(Default)]
struct NonNegative {
    memo: HashMap<ir::Key, bool>,
}

/// Past this depth a value is not proved non-negative (keeps the native stack small).
const MAX_DEPTH: usize = 64;

impl NonNegative {
    fn check(&mut self, value: MlirValue) -> bool {
        self.at(value, 0)
    }

    fn at(&mut self, value: MlirValue, depth: usize) -> bool {
        if let Some(known) = self.memo.get(&ir::key(value)) {
            return *known;
        }
        if depth > MAX_DEPTH {
            return false;
        }
        let result = self.compute(value, depth);
        self.memo.insert(ir::key(value), result);
        result
    }

    fn compute(&mut self, value: MlirValue, depth: usize) -> bool {
        if let Some((block, number)) = ir::block_argument(value) {
            let Some(owner) = ir::block_parent_op(block) else { return false };
            let name = ir::op_name(owner);
            if name.starts_with("lego.") {
                return true;
            }
            // scf.for: the induction variable is block argument 0 of the body; its lower bound is operand 0.
            if name == "scf.for" && number == 0 {
                return ir::operand(owner, 0).is_some_and(|lower| self.at(lower, depth + 1));
            }
            return false;
        }
        let Some(def) = ir::defining_op(value) else { return false };
        let Some(width) = ir::width(value) else { return false };
        match ir::op_name(def) {
            "arith.constant" => ir::constant_value(value).is_some_and(|c| width == 0 || (c >> (width - 1)) & 1 == 0),
            "arith.divui" | "arith.remui" | "arith.shrui" => {
                // A logical shift by at least one, or a division/remainder by a divisor ≥ 2, clears the sign
                // bit; by 0 or 1 the result is the dividend.
                let (Some(lhs), Some(rhs)) = (ir::operand(def, 0), ir::operand(def, 1)) else { return false };
                let clears_sign = match ir::op_name(def) {
                    "arith.shrui" => ir::constant_value(rhs).is_some_and(|k| k >= 1),
                    "arith.remui" => true,
                    _ => ir::constant_value(rhs).is_some_and(|d| d >= 2),
                };
                clears_sign || self.at(lhs, depth + 1)
            }
            "arith.andi" => ir::operands(def).into_iter().any(|operand| self.at(operand, depth + 1)),
            "arith.addi" | "arith.muli" | "arith.shli" => {
                ir::operands(def).into_iter().all(|operand| self.at(operand, depth + 1))
            }
            _ => false,
        }
    }
}

/// Morton bit-spread recognition (docs/reference/lowering.md §5).
mod morton {
    use super::{replace_and_erase, Emitter, NonNegative};
    use crate::{external::PassFailure, simplify::ir};
    use mlir_sys::{MlirOperation, MlirValue};

    /// A tree with more leaves than this is not a bit spread (stride 2 takes at most 16 bits per source).
    const MAX_LEAVES: usize = 64;
    /// Longest shift-right chain followed from a bit extraction.
    const MAX_CHAIN: usize = 16;

    /// One leaf `shli?(bit0(src >> source_bit), destination_bit)`.
    #[derive(Clone, Copy, Debug)]
    struct Leaf {
        source: MlirValue,
        source_bit: u32,
        destination_bit: u32,
    }

    /// A group of leaves of one source, as a spread: `n` bits from `low` to `offset + stride·i`.
    #[derive(Clone, Copy, Debug)]
    struct Spread {
        source: MlirValue,
        low: u32,
        bits: u32,
        stride: u32,
        offset: u32,
    }

    /// `roots`: the `addi` ops none of whose users is an `addi`, in IR order ([`super::Found`]).
    pub fn rewrite_all(roots: Vec<MlirOperation>, non_negative: &mut NonNegative) -> Result<usize, PassFailure> {
        let mut rewritten = 0;
        for op in roots {
            let Some(leaves) = leaves_of(op) else { continue };
            let Some(parsed) = leaves.iter().map(|leaf| parse_leaf(*leaf, non_negative)).collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            let Some(spreads) = plan(&parsed) else { continue };
            let width = ir::result(op, 0).and_then(ir::width).unwrap_or(64);
            if spreads.iter().any(|spread| spread.low + spread.bits > width || spread.offset + spread.stride * spread.bits > width)
            {
                continue;
            }
            let replacement = emit(op, &spreads)?;
            replace_and_erase(op, replacement, non_negative);
            rewritten += 1;
        }
        Ok(rewritten)
    }

    /// The leaves of the `addi` tree under `root` (at least 4, at most [`MAX_LEAVES`]), in operand order.
    fn leaves_of(root: MlirOperation) -> Option<Vec<MlirValue>> {
        let mut leaves = Vec::new();
        let mut stack: Vec<MlirValue> = ir::operands(root).into_iter().rev().collect();
        while let Some(value) = stack.pop() {
            if leaves.len() > MAX_LEAVES {
                return None;
            }
            match ir::defining_op(value).filter(|def| ir::op_name(*def) == "arith.addi") {
                Some(def) => stack.extend(ir::operands(def).into_iter().rev()),
                None => leaves.push(value),
            }
        }
        (leaves.len() >= 4 && leaves.len() <= MAX_LEAVES).then_some(leaves)
    }

    /// `shli?(bit0(chain(src)), S)` → the leaf; signed bit extractions and shifts only of non-negative sources.
    fn parse_leaf(value: MlirValue, non_negative: &mut NonNegative) -> Option<Leaf> {
        let (bit, destination_bit) = match ir::defining_op(value) {
            Some(def) if ir::op_name(def) == "arith.shli" => {
                let amount = ir::operand(def, 1).and_then(ir::constant_value)?;
                (ir::operand(def, 0)?, u32::try_from(amount).ok()?)
            }
            Some(def) if ir::op_name(def) == "arith.muli" => {
                let (lhs, rhs) = (ir::operand(def, 0)?, ir::operand(def, 1)?);
                match (super::power_of_two_exponent(rhs), super::power_of_two_exponent(lhs)) {
                    (Some(k), _) => (lhs, k),
                    (None, Some(k)) => (rhs, k),
                    _ => return None,
                }
            }
            _ => (value, 0),
        };
        let def = ir::defining_op(bit)?;
        let (signed, chained) = match ir::op_name(def) {
            "arith.andi" => {
                let (lhs, rhs) = (ir::operand(def, 0)?, ir::operand(def, 1)?);
                match (ir::constant_value(rhs), ir::constant_value(lhs)) {
                    (Some(1), _) => (false, lhs),
                    (_, Some(1)) => (false, rhs),
                    _ => return None,
                }
            }
            "arith.remui" | "arith.remsi" if ir::operand(def, 1).and_then(ir::constant_value) == Some(2) => {
                (ir::op_name(def) == "arith.remsi", ir::operand(def, 0)?)
            }
            _ => return None,
        };
        let mut source = chained;
        let mut source_bit = 0u32;
        let mut signed_chain = signed;
        for _ in 0..MAX_CHAIN {
            let Some(def) = ir::defining_op(source) else { break };
            let step = match ir::op_name(def) {
                "arith.shrui" => ir::operand(def, 1).and_then(ir::constant_value).and_then(|k| u32::try_from(k).ok()),
                "arith.divui" | "arith.divsi" => ir::operand(def, 1).and_then(super::power_of_two_exponent).inspect(|_| {
                    signed_chain |= ir::op_name(def) == "arith.divsi";
                }),
                _ => None,
            };
            let Some(step) = step else { break };
            source_bit = source_bit.checked_add(step)?;
            source = ir::operand(def, 0)?;
        }
        if signed_chain && !non_negative.check(source) {
            return None;
        }
        // Bits beyond the widest integer are not bits of a spread (and would overflow the bookkeeping).
        let width = ir::width(value)?;
        if source_bit >= width || destination_bit >= width || width > 64 {
            return None;
        }
        Some(Leaf { source, source_bit, destination_bit })
    }

    /// Groups the leaves by source (first appearance order) and checks each group is a spread; the
    /// destination bits of all groups must be disjoint (then the sum is the `ori` of the spreads).
    fn plan(leaves: &[Leaf]) -> Option<Vec<Spread>> {
        let mut groups: Vec<(MlirValue, Vec<(u32, u32)>)> = Vec::new();
        for leaf in leaves {
            match groups.iter_mut().find(|(source, _)| ir::key(*source) == ir::key(leaf.source)) {
                Some((_, bits)) => bits.push((leaf.source_bit, leaf.destination_bit)),
                None => groups.push((leaf.source, vec![(leaf.source_bit, leaf.destination_bit)])),
            }
        }
        let mut spreads = Vec::with_capacity(groups.len());
        let mut used: u128 = 0;
        for (source, mut bits) in groups {
            bits.sort_unstable();
            let low = bits[0].0;
            let n = bits.len() as u32;
            // Contiguous source bits low..low+n−1, each once.
            if bits.iter().enumerate().any(|(i, (source_bit, _))| *source_bit != low + i as u32) {
                return None;
            }
            let stride = if n >= 2 { bits[1].1.checked_sub(bits[0].1)? } else if bits[0].1 < 2 { 2 } else { 3 };
            let offset = bits[0].1;
            if !matches!(stride, 2 | 3) || offset >= stride || n > if stride == 2 { 16 } else { 10 } {
                return None;
            }
            if bits.iter().enumerate().any(|(i, (_, destination))| *destination != offset + stride * i as u32) {
                return None;
            }
            for (_, destination) in &bits {
                let bit = 1u128 << destination;
                if used & bit != 0 {
                    return None;
                }
                used |= bit;
            }
            spreads.push(Spread { source, low, bits: n, stride, offset });
        }
        Some(spreads)
    }

    /// The spread stages (shift, mask, applied when bits > threshold) for a stride.
    fn stages(stride: u32) -> [(u64, u64, u32); 4] {
        if stride == 2 {
            [(8, 0x00FF_00FF, 8), (4, 0x0F0F_0F0F, 4), (2, 0x3333_3333, 2), (1, 0x5555_5555, 0)]
        } else {
            [(16, 0xFF00_00FF, 8), (8, 0x0F00_F00F, 4), (4, 0xC30C_30C3, 2), (2, 0x4924_9249, 0)]
        }
    }

    /// `shrui src, low` (if low > 0), `andi _, 2^n − 1`, the stages, `shli offset` (if offset > 0); groups
    /// combined with `ori`, before `root`.
    fn emit(root: MlirOperation, spreads: &[Spread]) -> Result<MlirValue, PassFailure> {
        let emitter = Emitter::before(root)?;
        let mut combined: Option<MlirValue> = None;
        for spread in spreads {
            let r#type = ir::value_type(spread.source);
            let mut y = spread.source;
            if spread.low > 0 {
                let amount = emitter.constant(spread.low as u64, r#type)?;
                y = emitter.binary("arith.shrui", y, amount)?;
            }
            let mask = if spread.bits >= 64 { u64::MAX } else { (1u64 << spread.bits) - 1 };
            let mask = emitter.constant(mask, r#type)?;
            y = emitter.binary("arith.andi", y, mask)?;
            for (shift, stage_mask, threshold) in stages(spread.stride) {
                if spread.bits <= threshold {
                    continue;
                }
                let shift = emitter.constant(shift, r#type)?;
                let shifted = emitter.binary("arith.shli", y, shift)?;
                let merged = emitter.binary("arith.ori", y, shifted)?;
                let stage_mask = emitter.constant(stage_mask, r#type)?;
                y = emitter.binary("arith.andi", merged, stage_mask)?;
            }
            if spread.offset > 0 {
                let offset = emitter.constant(spread.offset as u64, r#type)?;
                y = emitter.binary("arith.shli", y, offset)?;
            }
            combined = Some(match combined {
                None => y,
                Some(all) => emitter.binary("arith.ori", all, y)?,
            });
        }
        combined.ok_or_else(|| PassFailure("empty Morton spread".into()))
    }
}
