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
//!
//! **Size checks.** A layout has at most 2^63 − 1 elements (docs/sizes.md); the dialect verifier
//! checks layouts whose sizes are known, and for symbolic sizes it is the run-time contract. So
//! `lego-generate-bounds-checks` also puts, right before each layout op whose element count involves a
//! symbolic size, a check of that count as plain IR: with `K` the product of its known sizes and `d1 … dk`
//! its symbolic ones, `q = (((2^63 − 1) div K) div d1) … div dk` and `cf.assert (0 < q)`, marked
//! `{lego.size_check}`. No multiplication, so the check cannot wrap itself: `q ≥ 1` exactly when
//! `K · d1 ⋯ dk ≤ 2^63 − 1`. (Which count: the op's own sizes for a constructor with a size list — for
//! `tile_by` its tile sizes, for `expand_by` its expanded sizes — and all logical sizes for an `order_by`.)
//! `lego-external-smt-verifier` proves it like the asserts (facts as above, the divisors being sizes ≥ 1).
//! Not proved, it is the layout contract, which the published verifier takes for granted: nothing is
//! reported unless `check-sizes=true`, which makes a refutation an error `Size overflow is possible (proven
//! by Z3)` at the layout op. Erased afterwards unless unproved with `keep-unproved=true`. A check that stays
//! in the IR lowers to a run-time assertion.

use crate::{
    diagnostics,
    external::{LegoPass, PassFailure, PassId},
    registry::{Options, RegistryError},
    smt_encode::{enclosing_function, EncodeError, Encoder},
    verify_common::{self, describe_unknown, show, warn_encode_error, with_clause, VerifyOptions},
};
use crate::lowering::ir::{defining_op, erase, op_has_uses, Builder};
use lego_dialect::ops::{index_operands, layout_op, logical_dims, walk_ops, Dim, LayoutFactsCache, LayoutOp, OpKind};
use lego_smt::{Outcome, Query, Term, Value as SmtValue, Violation};
use melior::{
    ir::{
        attribute::StringAttribute,
        operation::{OperationBuilder, OperationLike},
        Attribute, OperationRef, Value,
    },
    Context, IrRewriter,
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
pub(crate) fn obligation<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<(OpKind, Vec<Value<'c, 'a>>)> {
    match OpKind::of(&op)? {
        OpKind::Apply => Some((OpKind::AssertApplyBounds, op.operands().collect())),
        OpKind::ApplyInverse => Some((OpKind::AssertInvBounds, op.operands().collect())),
        kind @ (OpKind::Load | OpKind::Store) => {
            let view = op.operand(if kind == OpKind::Store { 1 } else { 0 }).ok()?;
            let cast = lego_dialect::ops::op_result(view)?.owner();
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
        insert_size_checks(root);
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
// Size checks (module documentation)

/// The unit attribute that marks a size check's `cf.assert`.
pub const SIZE_CHECK_ATTR: &str = "lego.size_check";

/// Whether `op` is a size check's `cf.assert`.
fn is_size_check(op: &OperationRef) -> bool {
    op.name().as_string_ref().as_str() == Ok("cf.assert") && op.has_attribute(SIZE_CHECK_ATTR)
}

/// The sizes whose product is `layout`'s element count as this op makes it (module documentation); `None`
/// when the op's structure is not visible.
fn counted_sizes<'c, 'a>(op: OperationRef<'c, 'a>, facts: &mut LayoutFactsCache) -> Option<Vec<Dim<'c, 'a>>> {
    match layout_op(op).ok()?? {
        LayoutOp::Row { dims }
        | LayoutOp::Col { dims }
        | LayoutOp::RegP { dims, .. }
        | LayoutOp::GenP { dims, .. }
        | LayoutOp::Swizzle { dims, .. }
        | LayoutOp::GroupBy { dims, .. } => Some(dims),
        LayoutOp::TileBy { levels, .. } => Some(levels.into_iter().flatten().collect()),
        LayoutOp::ExpandBy { to_dims, .. } => Some(to_dims),
        // The count of an operand, counted there.
        LayoutOp::Compose { .. } | LayoutOp::Inverse { .. } => None,
        LayoutOp::Strided { modes } => Some(modes.iter().flatten().map(|&(size, _)| Dim::Static(size)).collect()),
        // One part: the part's count, checked at the part. All sizes known: the verifier's. Otherwise spell
        // the logical dims (cheap checks first: chains of order_by can be very deep).
        LayoutOp::OrderBy { objects } => {
            let result = op.result(0).ok()?.into();
            if objects.len() < 2 || facts.facts(result).volume.is_some() {
                return None;
            }
            logical_dims(result)
        }
    }
}

/// Inserts a size check before every layout op whose element count involves a symbolic size and that has
/// none yet (so the pass stays idempotent).
fn insert_size_checks(root: OperationRef) {
    let handle = crate::mlir_context::ContextHandle::of(&root);
    let context = handle.get();
    let mut layouts = Vec::new();
    let mut checked = std::collections::HashSet::new();
    walk_ops(root, &mut |op| {
        if OpKind::of(&op).is_some_and(OpKind::is_layout_constructor) {
            layouts.push(op);
        }
        if is_size_check(&op) {
            if let Some(next) = op.next_in_block() {
                checked.insert(next.to_raw().ptr as usize);
            }
        }
    });
    let mut facts = LayoutFactsCache::default();
    for op in layouts {
        if checked.contains(&(op.to_raw().ptr as usize)) {
            continue;
        }
        if let Some(sizes) = counted_sizes(op, &mut facts) {
            insert_size_check(context, op, &sizes);
        }
    }
}

fn insert_size_check<'c, 'a>(context: &'c Context, op: OperationRef<'c, 'a>, sizes: &[Dim<'c, 'a>]) {
    let mut known = lego_algebra::ElementCount::one();
    let mut symbolic = Vec::new();
    for size in sizes {
        match size.known() {
            // Non-positive sizes and too large known products are the dialect verifier's errors.
            Some(value) if value < 1 => return,
            Some(value) => known.multiply(value as u64),
            None => symbolic.push(*size),
        }
    }
    let Some(known) = known.to_u64().filter(|_| known.fits()) else { return };
    if symbolic.is_empty() {
        return;
    }
    let Some(b) = Builder::before(context, op) else { return };
    // K ≤ 2^63 − 1, so the quotient is a non-negative i64.
    let mut quotient = b.constant((lego_algebra::MAX_ELEMENTS / known) as i64);
    for size in &symbolic {
        quotient = b.binary("arith.divui", quotient, b.size(size));
    }
    let zero = b.constant(0);
    let fits = b.ult(zero, quotient);
    let kind = OpKind::of(&op).map_or("lego layout", OpKind::name);
    let message = format!("'{kind}' sizes multiply to more than 2^63 - 1");
    b.op(
        "cf.assert",
        &[fits],
        &[],
        &[("msg", StringAttribute::new(context, &message).into()), (SIZE_CHECK_ATTR, Attribute::unit(context))],
    );
}

/// The divisors of a size check's quotient chain (the symbolic sizes), walking back from `fits`.
fn size_check_divisors<'c: 'a, 'a>(fits: Value<'c, 'a>) -> Vec<Value<'c, 'a>> {
    let mut divisors = Vec::new();
    let mut current = defining_op(fits).and_then(|cmp| cmp.operand(1).ok());
    while let Some(value) = current {
        let Some(op) = defining_op(value).filter(|op| op.name().as_string_ref().as_str() == Ok("arith.divui")) else {
            break;
        };
        divisors.extend(op.operand(1).ok());
        current = op.operand(0).ok();
    }
    divisors.reverse(); // in the layout's order
    divisors
}

/// Erases a size check and the ops that computed its condition, where nothing else uses them.
fn erase_size_check(op: OperationRef) {
    let mut pending: Vec<Value> = op.operands().collect();
    erase(op);
    while let Some(value) = pending.pop() {
        let Some(owner) = defining_op(value) else { continue };
        let name = owner.name();
        let name = name.as_string_ref().as_str().unwrap_or_default();
        if matches!(name, "arith.divui" | "arith.cmpi" | "arith.constant") && !op_has_uses(owner) {
            pending.extend(owner.operands());
            erase(owner);
        }
    }
}

/// The published-style first sentence of a refuted size check.
pub const SIZE_OVERFLOW: &str = "Size overflow is possible (proven by Z3)";

// -----------------------------------------------------------------------------------------------------------
// lego-external-smt-verifier

#[derive(Clone)]
pub struct ExternalSmtVerifier {
    options: VerifyOptions,
    keep_unproved: bool,
    /// Report a size product that may pass 2^63 − 1 (`check-sizes=true`). Off, the layout contract covers
    /// symbolic sizes (docs/reference/README.md, soundness rule 1) and, as published, nothing is reported.
    report_sizes: bool,
}

pub fn create_verifier(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    let verifier = ExternalSmtVerifier {
        options: VerifyOptions::parse(options)?,
        keep_unproved: options.bool("keep-unproved")?,
        report_sizes: options.bool("check-sizes")?,
    };
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
    crate::registry::OptionSpec {
        name: "check-sizes",
        default: "false",
        description: "report symbolic sizes that may multiply to more than 2^63 - 1 (Size overflow is possible); by default the layout contract covers them and, as published, nothing is reported",
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
            if matches!(OpKind::of(&op), Some(OpKind::AssertApplyBounds | OpKind::AssertInvBounds)) || is_size_check(&op)
            {
                asserts.push(op);
            }
        });
        let mut erased = Vec::new();
        let mut erased_size_checks = Vec::new();
        let mut failed = false;
        for op in asserts {
            let start = Instant::now();
            let size_check = is_size_check(&op);
            let checked = if size_check { self.check_sizes(op) } else { self.check(op) };
            let erased = if size_check { &mut erased_size_checks } else { &mut erased };
            let verdict = match checked {
                Ok(verdict) => verdict,
                Err(error) => {
                    warn_encode_error(op.location(), "the bounds obligation", &error);
                    Verdict::Unverified
                }
            };
            match verdict {
                Verdict::Proved => {
                    if self.options.verbose {
                        let text = if size_check {
                            format!(
                                "sizes proved to multiply to at most 2^63 - 1 (Z3, {}); the size check is removed",
                                verify_common::elapsed(start)
                            )
                        } else {
                            format!("bounds proved (Z3, {}); the assert is removed", verify_common::elapsed(start))
                        };
                        diagnostics::remark(op.location(), &text);
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
        for op in erased_size_checks {
            erase_size_check(op);
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
    /// A size check: `0 < q` from the facts, the divisors of `q`'s chain being sizes (≥ 1).
    fn check_sizes<'c>(&self, op: OperationRef<'c, '_>) -> Result<Verdict, EncodeError<'c>> {
        let location = op.location();
        let fits = op.operand(0).map_err(|_| EncodeError { location, message: "cannot verify: the size check has no condition".into() })?;
        let mut encoder = Encoder::new();
        let goal = encoder.encode(fits)?;
        let divisors: Vec<Term> =
            size_check_divisors(fits).into_iter().map(|value| encoder.encode(value)).collect::<Result<_, _>>()?;
        let mut facts: Vec<Term> = divisors.iter().map(|size| Term::index(1).ule(size)).collect();
        if let Some(function) = enclosing_function(op) {
            facts.extend(encoder.assumptions(function).0);
        }
        facts.extend(encoder.discovered_facts());
        let query = Query { goal: &goal, facts: &facts, observe: &divisors, timeout_ms: self.options.timeout_ms };
        Ok(match self.options.prove(&query) {
            Outcome::Proved => Verdict::Proved,
            Outcome::Unknown(unknown) => {
                diagnostics::warning(location, &format!("size check {}", describe_unknown(&unknown)));
                Verdict::Unverified
            }
            // The program's contract promises what the check asks (a layout has fewer than 2^63 elements):
            // not proved from the facts is no violation of it. The check stays unproved (kept as a run-time
            // assertion with keep-unproved=true) and the run does not fail.
            Outcome::Refuted(_) if !self.report_sizes => Verdict::Unverified,
            Outcome::Refuted(cex) => {
                let with = with_clause(&cex, &[]);
                let message = match &cex.violation {
                    Violation::Undefined(what) => format!("computing the sizes hits {what}{with}"),
                    Violation::Goal => format!(
                        "the symbolic sizes can be {}, and the sizes of this layout then multiply to more than 2^63 - 1{with}",
                        cex.observed.iter().map(|value| show(Some(value))).collect::<Vec<_>>().join(", ")
                    ),
                };
                diagnostics::error(location, &format!("{SIZE_OVERFLOW}\n{message}"));
                Verdict::Refuted
            }
        })
    }

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
        // The lowest out-of-bounds point (every variable as small as it can be, in turn).
        Ok(match self.options.prove_minimal(&query, &[]) {
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
