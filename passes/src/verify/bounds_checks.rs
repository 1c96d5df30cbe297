//! Bounds obligations of layout uses.
//!
//! - `lego-generate-bounds-checks`: before each `lego.apply %l(%i…)` insert `lego.assert_apply_bounds
//!   %l(%i…)`, before each `lego.apply_inverse %l(%f)` insert `lego.assert_inv_bounds %l(%f)`, and before each
//!   `lego.load` / `lego.store` through a view made by a visible `lego.cast_view` the apply-bounds assert of
//!   its layout. Idempotent (an identical assert right before the use is not duplicated).
//! - `lego-external-smt-verifier`: proves each obligation with Z3 from the surrounding facts — `0 ≤ i_k <
//!   dim_k` for every index of an `assert_apply_bounds`, `f < numel` for an `assert_inv_bounds` — and erases
//!   the asserts. A refuted one is an error starting with the published sentence (`Out-of-bounds access is
//!   possible (proven by Z3)` / `Out-of-bounds flat index is possible (proven by Z3)`), our counterexample on
//!   the next line, and the pass fails; one that cannot be decided (unsupported op in the slice, time-out) is
//!   a warning. As published, every assert is erased; `keep-unproved=true` keeps the refuted and undecided ones.
//!
//! Facts: `lego.assume` / `lego.assume_bounds` anywhere in the enclosing function, `scf.for` bounds of
//! induction variables in the slice, and symbolic layout sizes ≥ 1.

use crate::{
    diagnostics,
    external::{LegoPass, PassFailure, PassId},
    registry::{Options, RegistryError},
    smt_encode::{enclosing_function, EncodeError, Encoder},
    verify_common::{self, describe_unknown, show, warn_encode_error, with_clause, VerifyOptions},
};
use lego_dialect::ops::{index_operands, walk_ops, OpKind};
use lego_smt::{Outcome, Query, Term, Value as SmtValue, Violation};
use melior::{
    ir::{
        operation::{OperationBuilder, OperationLike, OperationResult},
        OperationRef, Value,
    },
    IrRewriter,
};
use std::time::Instant;

static GENERATE_ID: PassId = PassId::new();
static VERIFY_ID: PassId = PassId::new();

// -----------------------------------------------------------------------------------------------------------
// lego-generate-bounds-checks

#[derive(Clone, Default)]
pub struct GenerateBoundsChecks;

pub fn create_generate(_: &Options) -> Result<melior::pass::Pass, RegistryError> {
    Ok(crate::external::into_mlir_pass(GenerateBoundsChecks, &GENERATE_ID))
}

/// The assert to put before `op`: its name and operands (layout first).
fn obligation<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<(OpKind, Vec<Value<'c, 'a>>)> {
    match OpKind::of(&op)? {
        OpKind::Apply => Some((OpKind::AssertApplyBounds, op.operands().collect())),
        OpKind::ApplyInverse => Some((OpKind::AssertInvBounds, op.operands().collect())),
        kind @ (OpKind::Load | OpKind::Store) => {
            let view = op.operand(if kind == OpKind::Store { 1 } else { 0 }).ok()?;
            let cast = OperationResult::try_from(view).ok()?.owner();
            if OpKind::of(&cast) != Some(OpKind::CastView) {
                return None;
            }
            let layout = cast.operand(1).ok()?;
            let mut operands = vec![layout];
            operands.extend(index_operands(op));
            Some((OpKind::AssertApplyBounds, operands))
        }
        _ => None,
    }
}

fn same_assert(previous: Option<&OperationRef>, kind: OpKind, operands: &[Value]) -> bool {
    let Some(previous) = previous else { return false };
    OpKind::of(previous) == Some(kind)
        && previous.operand_count() == operands.len()
        && previous.operands().zip(operands).all(|(a, b)| a == *b)
}

impl LegoPass for GenerateBoundsChecks {
    fn name(&self) -> &'static str {
        "lego-generate-bounds-checks"
    }

    fn description(&self) -> &'static str {
        "Insert lego.assert_apply_bounds / assert_inv_bounds before apply / apply_inverse"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let mut uses = Vec::new();
        // The op right after each existing assert (melior cannot ask an op for its predecessor).
        let mut after_assert = std::collections::HashMap::new();
        walk_ops(root, &mut |op| {
            if obligation(op).is_some() {
                uses.push(op);
            }
            if matches!(OpKind::of(&op), Some(OpKind::AssertApplyBounds | OpKind::AssertInvBounds)) {
                if let Some(next) = op.next_in_block() {
                    after_assert.insert(next.to_raw().ptr as usize, op);
                }
            }
        });
        let rewriter = IrRewriter::from_op(root);
        let rewriter = rewriter.as_rewriter_base();
        for op in uses {
            let Some((kind, operands)) = obligation(op) else { continue };
            if same_assert(after_assert.get(&(op.to_raw().ptr as usize)), kind, &operands) {
                continue;
            }
            let assert = OperationBuilder::new(kind.name(), op.location())
                .add_operands(&operands)
                .build()
                .map_err(|error| PassFailure(error.to_string()))?;
            rewriter.set_insertion_point_before(op);
            rewriter.insert(assert);
        }
        Ok(())
    }
}

// -----------------------------------------------------------------------------------------------------------
// lego-external-smt-verifier

#[derive(Clone)]
pub struct ExternalSmtVerifier {
    options: VerifyOptions,
    keep_unproved: bool,
}

pub fn create_verifier(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    let verifier =
        ExternalSmtVerifier { options: VerifyOptions::parse(options)?, keep_unproved: options.bool("keep-unproved")? };
    Ok(crate::external::into_mlir_pass(verifier, &VERIFY_ID))
}

enum Verdict {
    Proved,
    Refuted,
    Unverified,
}

/// The published first sentence of a refuted `lego.assert_apply_bounds`.
pub const OUT_OF_BOUNDS_ACCESS: &str = "Out-of-bounds access is possible (proven by Z3)";
/// The published first sentence of a refuted `lego.assert_inv_bounds`.
pub const OUT_OF_BOUNDS_FLAT_INDEX: &str = "Out-of-bounds flat index is possible (proven by Z3)";

/// Options of `lego-external-smt-verifier`: the shared ones plus `keep-unproved`.
pub const VERIFIER_OPTIONS: &[crate::registry::OptionSpec] = &[
    crate::verify_common::OPTIONS[0],
    crate::verify_common::OPTIONS[1],
    crate::registry::OptionSpec {
        name: "keep-unproved",
        default: "false",
        description: "keep the asserts that were not proved (refuted or undecided) in the IR; by default, as published, every assert is erased",
    },
];

impl LegoPass for ExternalSmtVerifier {
    fn name(&self) -> &'static str {
        "lego-external-smt-verifier"
    }

    fn description(&self) -> &'static str {
        "Prove or refute the lego.assert_* bounds obligations (Z3)"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        self.options = self.options.started();
        let mut asserts = Vec::new();
        walk_ops(root, &mut |op| {
            if matches!(OpKind::of(&op), Some(OpKind::AssertApplyBounds | OpKind::AssertInvBounds)) {
                asserts.push(op);
            }
        });
        let mut erased = Vec::new();
        let mut failed = false;
        for op in asserts {
            let start = Instant::now();
            let verdict = match self.check(op) {
                Ok(verdict) => verdict,
                Err(error) => {
                    warn_encode_error(op.location(), "the bounds obligation", &error);
                    Verdict::Unverified
                }
            };
            match verdict {
                Verdict::Proved => {
                    if self.options.verbose {
                        diagnostics::remark(
                            op.location(),
                            &format!("bounds proved (Z3, {}); the assert is removed", verify_common::elapsed(start)),
                        );
                    }
                    erased.push(op);
                }
                Verdict::Refuted | Verdict::Unverified => {
                    failed |= matches!(verdict, Verdict::Refuted);
                    if !self.keep_unproved {
                        erased.push(op);
                    }
                }
            }
        }
        let rewriter = IrRewriter::from_op(root);
        let rewriter = rewriter.as_rewriter_base();
        for op in erased {
            rewriter.erase_op(op);
        }
        lego_smt::join_background();
        if failed {
            Err(PassFailure("a bounds obligation was refuted".into()))
        } else {
            Ok(())
        }
    }
}

impl ExternalSmtVerifier {
    fn check<'c>(&self, op: OperationRef<'c, '_>) -> Result<Verdict, EncodeError<'c>> {
        let location = op.location();
        let operands: Vec<Value> = op.operands().collect();
        let Some((&layout, rest)) = operands.split_first() else {
            return Err(EncodeError { location, message: "cannot verify: the assert has no layout operand".into() });
        };
        let mut encoder = Encoder::new();
        let dims = encoder.layout_dims(layout, location)?;
        let inputs: Vec<Term> = rest.iter().map(|value| encoder.encode(*value)).collect::<Result<_, _>>()?;
        if inputs.iter().chain(&dims).any(Term::uses_floats) {
            return Err(EncodeError {
                location,
                message: "cannot verify: the indices are computed with float math, which the SMT encoding does not model"
                    .into(),
            });
        }
        let mut facts: Vec<Term> = dims
            .iter()
            .filter(|dim| dim.as_const().is_none())
            .map(|dim| Term::index(1).ule(dim))
            .collect();
        if let Some(function) = enclosing_function(op) {
            facts.extend(encoder.assumptions(function).0);
        }
        facts.extend(encoder.discovered_facts());
        let apply = OpKind::of(&op) == Some(OpKind::AssertApplyBounds);
        let (goal, observe): (Term, Vec<Term>) = if apply {
            if inputs.len() != dims.len() {
                diagnostics::error(
                    location,
                    &format!("number of indices ({}) does not match layout rank ({})", inputs.len(), dims.len()),
                );
                return Ok(Verdict::Refuted);
            }
            let goal = Term::all(inputs.iter().zip(&dims).map(|(index, dim)| index.ult(dim)));
            (goal, inputs.iter().chain(&dims).cloned().collect())
        } else {
            let Some(flat) = inputs.first() else {
                return Err(EncodeError { location, message: "cannot verify: the assert has no flat index".into() });
            };
            let numel = encoder.layout_codomain(layout, location)?;
            (flat.ult(&numel), vec![flat.clone(), numel])
        };
        let query = Query { goal: &goal, facts: &facts, observe: &observe, timeout_ms: self.options.timeout_ms };
        Ok(match self.options.prove(&query) {
            Outcome::Proved => Verdict::Proved,
            Outcome::Unknown(unknown) => {
                diagnostics::warning(location, &format!("bounds {}", describe_unknown(&unknown)));
                Verdict::Unverified
            }
            Outcome::Refuted(cex) => {
                let with = with_clause(&cex, &[]);
                let message = match (&cex.violation, apply) {
                    (Violation::Undefined(what), _) => format!("computing the indices hits {what}{with}"),
                    (Violation::Goal, true) => {
                        let rank = dims.len();
                        let (values, sizes) = cex.observed.split_at(rank.min(cex.observed.len()));
                        let bad = values.iter().zip(sizes).position(|pair| match pair {
                            (SmtValue::Bits(index), SmtValue::Bits(dim)) => index >= dim,
                            _ => true,
                        });
                        match bad {
                            Some(k) => format!(
                                "index {k} of the layout is {} but dim {k} is {}{with}",
                                show(values.get(k)),
                                show(sizes.get(k))
                            ),
                            None => format!("an index is outside its dim{with}"),
                        }
                    }
                    (Violation::Goal, false) => format!(
                        "the apply_inverse input is {} but the layout has {} elements{with}",
                        show(cex.observed.first()),
                        show(cex.observed.get(1))
                    ),
                };
                let sentence = if apply { OUT_OF_BOUNDS_ACCESS } else { OUT_OF_BOUNDS_FLAT_INDEX };
                diagnostics::error(location, &format!("{sentence}\n{message}"));
                Verdict::Refuted
            }
        })
    }
}
