//! `lego-strength-reduction`: multiplications, unsigned divisions and unsigned remainders by a power of two
//! become shifts and masks (`x·2^k → x << k`, `x divu 2^k → x >> k`, `x remu 2^k → x & (2^k − 1)`).
//!
//! Only the unsigned forms are rewritten: `divsi`/`remsi` round toward zero, so a shift would be wrong for
//! negative values (the lowering emits unsigned ops; index arithmetic is non-negative by construction).
//! `muli` by 2^k is a left shift in two's complement whatever the signs. Factors 1 (2^0) are left to
//! canonicalization, which removes them outright.

use crate::external::{LegoPass, PassFailure, PassId};
use lego_dialect::ops::walk_ops;
use melior::{
    ir::{
        attribute::IntegerAttribute,
        operation::{OperationBuilder, OperationLike},
        r#type::TypeLike,
        Identifier, OperationRef, Type, Value, ValueLike,
    },
    IrRewriter,
};

static ID: PassId = PassId::new();

#[derive(Clone, Default)]
pub struct StrengthReduction;

pub fn create() -> melior::pass::Pass {
    crate::external::into_mlir_pass(StrengthReduction, &ID)
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

/// The power-of-two exponent of a constant integer/index operand, if it is one (and greater than 1).
fn power_of_two_exponent(value: Value) -> Option<u32> {
    let constant = lego_dialect::ops::constant_index_value(value)? as u64;
    (constant > 1 && constant.is_power_of_two()).then(|| constant.trailing_zeros())
}

/// Width in bits of an integer or index type (index is 64-bit on every target we lower to).
fn bit_width(r#type: Type) -> Option<u32> {
    if r#type.is_index() {
        return Some(64);
    }
    r#type.is_integer().then(|| unsafe { mlir_sys::mlirIntegerTypeGetWidth(r#type.to_raw()) })
}

/// Classifies `op`; returns the value kept and the rewrite.
fn classify<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<(Value<'c, 'a>, Rewrite)> {
    let name = op.name().as_string_ref().as_str().ok()?.to_string();
    let lhs = op.operand(0).ok()?;
    let rhs = op.operand(1).ok()?;
    let width = bit_width(lhs.r#type())?;
    let fits = |k: u32| k < width;
    match name.as_str() {
        "arith.muli" => {
            if let Some(k) = power_of_two_exponent(rhs).filter(|k| fits(*k)) {
                Some((lhs, Rewrite::ShiftLeft(k)))
            } else {
                power_of_two_exponent(lhs).filter(|k| fits(*k)).map(|k| (rhs, Rewrite::ShiftLeft(k)))
            }
        }
        "arith.divui" => power_of_two_exponent(rhs).filter(|k| fits(*k)).map(|k| (lhs, Rewrite::ShiftRight(k))),
        "arith.remui" => power_of_two_exponent(rhs).filter(|k| fits(*k)).map(|k| (lhs, Rewrite::Mask((1u64 << k) - 1))),
        _ => None,
    }
}

impl LegoPass for StrengthReduction {
    fn name(&self) -> &'static str {
        "lego-strength-reduction"
    }

    fn description(&self) -> &'static str {
        "Power-of-two muli/divui/remui to shli/shrui/andi"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let mut candidates = Vec::new();
        walk_ops(root, &mut |op| {
            if classify(op).is_some() {
                candidates.push(op);
            }
        });
        if candidates.is_empty() {
            return Ok(());
        }
        let context = crate::mlir_context::ContextHandle::of(&root);
        let rewriter = IrRewriter::from_op(root);
        let rewriter = rewriter.as_rewriter_base();
        for op in candidates {
            let Some((value, rewrite)) = classify(op) else { continue };
            let location = op.location();
            let r#type = value.r#type();
            let (name, amount) = match rewrite {
                Rewrite::ShiftLeft(k) => ("arith.shli", k as i64),
                Rewrite::ShiftRight(k) => ("arith.shrui", k as i64),
                Rewrite::Mask(mask) => ("arith.andi", mask as i64),
            };
            rewriter.set_insertion_point_before(op);
            let constant = OperationBuilder::new("arith.constant", location)
                .add_attributes(&[(
                    Identifier::new(context.get(), "value"),
                    IntegerAttribute::new(r#type, amount).into(),
                )])
                .add_results(&[r#type])
                .build()
                .map_err(|error| PassFailure(error.to_string()))?;
            let constant = rewriter.insert(constant);
            let amount_value = constant.result(0).map_err(|error| PassFailure(error.to_string()))?;
            let replacement = OperationBuilder::new(name, location)
                .add_operands(&[value, amount_value.into()])
                .add_results(&[r#type])
                .build()
                .map_err(|error| PassFailure(error.to_string()))?;
            let replacement = rewriter.insert(replacement);
            let result = replacement.result(0).map_err(|error| PassFailure(error.to_string()))?;
            tracing::debug!(target: "lego", "strength-reduced {} to {name}", op.name().as_string_ref().as_str().unwrap_or("?"));
            rewriter.replace_op_with_values(op, &[result.into()]);
        }
        Ok(())
    }
}
