//! `lego-verify-bijectivity`: proves that each `gen_p`'s `inv` region inverts its `apply` region over its
//! dims, with Z3 (or by exhaustive evaluation for float math on small domains). See docs/verification.md.
//!
//! With `D = [0, n1) × … × [0, nd)` and `N = n1·…·nd`, the obligations are
//! - (A1) `∀y < N: inv(y) ∈ D` and (A2) `∀y < N: apply(inv(y)) = y`;
//! - (B1) `∀x ∈ D: apply(x) < N` and (B2) `∀x ∈ D: inv(apply(x)) = x`;
//!
//! and every operation executed on the way is defined (no division by zero, no poison). A1 ∧ A2 make `inv`
//! an injection of `[0, N)` into `D`, a set of the same finite size, hence a bijection whose inverse is
//! `apply` on `D`; so B1 ∧ B2 follow, and conversely A follows from B. The pass proves A first and only
//! tries B when A is inconclusive; any refuted obligation is a counterexample to "apply and inv are
//! mutually inverse bijections between D and [0, N)".

use crate::{
    diagnostics,
    external::{LegoPass, PassFailure, PassId},
    registry::{Options, RegistryError},
    smt_encode::{enclosing_function, product, EncodeError, Encoder},
    verify_common::{self, describe_unknown, show, show_list, warn_encode_error, with_clause, VerifyOptions},
};
use lego_dialect::ops::{self, walk_ops, LayoutOp, OpKind};
use lego_smt::{exhaustive, Counterexample, Domain, Outcome, Query, Term, Unknown, Value, Violation};
use melior::ir::{operation::OperationLike, Location, OperationRef, RegionRef, Value as MlirValue};
use std::{collections::HashMap, time::Instant};

static ID: PassId = PassId::new();

/// Largest domain (points) checked by exhaustive evaluation when a gen_p uses float math.
pub const EXHAUSTIVE_LIMIT: u64 = 1 << 20;
/// Symbolic sizes: the proof for all sizes covers layouts of at most this many elements.
const SYMBOLIC_NUMEL_BOUND: u64 = 1 << 32;

#[derive(Clone)]
pub struct VerifyBijectivity {
    options: VerifyOptions,
    exhaustive_limit: u64,
    /// The published legacy passes `lego-verify-consistency` / `lego-verify-genp-consistency`: the same
    /// proofs, but a refutation is the single published error and the pass never fails.
    consistency: bool,
    name: &'static str,
}

pub fn create(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    let pass = VerifyBijectivity {
        options: VerifyOptions::parse(options)?,
        exhaustive_limit: options.u64("exhaustive-limit")?,
        consistency: false,
        name: "lego-verify-bijectivity",
    };
    Ok(crate::external::into_mlir_pass(pass, &ID))
}

static CONSISTENCY_ID: PassId = PassId::new();
static GENP_CONSISTENCY_ID: PassId = PassId::new();

/// The published error of the legacy consistency passes; defined with the diagnostics, which must know it.
pub use crate::diagnostics::INCONSISTENT_GEN_P;

/// `lego-verify-consistency` / `lego-verify-genp-consistency` (published legacy passes, identical): for each
/// gen_p with an `inv`, the bijectivity proof; a refutation is `INCONSISTENT_GEN_P` once on the gen_p, and
/// — as published — the pass succeeds.
pub fn create_consistency(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    let pass = VerifyBijectivity {
        options: VerifyOptions::parse(options)?,
        exhaustive_limit: EXHAUSTIVE_LIMIT,
        consistency: true,
        name: options.pass_name(),
    };
    let id = if options.pass_name() == "lego-verify-genp-consistency" { &GENP_CONSISTENCY_ID } else { &CONSISTENCY_ID };
    Ok(crate::external::into_mlir_pass(pass, id))
}

pub const OPTIONS: &[crate::registry::OptionSpec] = &[
    crate::verify_common::OPTIONS[0],
    crate::verify_common::OPTIONS[1],
    crate::registry::OptionSpec {
        name: "exhaustive-limit",
        default: "1048576",
        description: "largest domain (points) a gen_p with float math is checked on by exhaustive evaluation",
    },
];

/// What was established about one gen_p.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Proved,
    Refuted,
    Unverified,
}

impl LegoPass for VerifyBijectivity {
    fn name(&self) -> &'static str {
        self.name
    }

    fn description(&self) -> &'static str {
        "Prove that each gen_p's inv inverts its apply (Z3)"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        self.options = self.options.started();
        let mut gen_ps = Vec::new();
        let mut composites = Vec::new();
        walk_ops(root, &mut |op| match OpKind::of(&op) {
            Some(OpKind::GenP) => gen_ps.push(op),
            Some(OpKind::OrderBy | OpKind::GroupBy | OpKind::TileBy | OpKind::ExpandBy) => composites.push(op),
            _ => {}
        });
        let mut status: HashMap<usize, Status> = HashMap::new();
        for op in gen_ps {
            let result = self.check_gen_p(op);
            status.insert(op.to_raw().ptr as usize, result);
        }
        if self.options.verbose {
            for op in composites {
                self.remark_composite(op, &status);
            }
        }
        lego_smt::join_background();
        if !self.consistency && status.values().any(|status| *status == Status::Refuted) {
            return Err(PassFailure("a gen_p is not a bijection".into()));
        }
        Ok(())
    }
}

/// The encoded pieces of one gen_p (shared with [`crate::genp_obligation`]).
pub(crate) struct GenP {
    pub(crate) dims: Vec<Term>,
    pub(crate) numel: Term,
    /// The proof's own variables: `x` (one per dim) and `y`.
    pub(crate) xs: Vec<Term>,
    pub(crate) y: Term,
    pub(crate) x_names: Vec<String>,
    pub(crate) y_name: String,
    pub(crate) apply_x: Term,
    pub(crate) inv_apply_x: Vec<Term>,
    pub(crate) inv_y: Vec<Term>,
    pub(crate) apply_inv_y: Term,
    pub(crate) facts: Vec<Term>,
}

impl VerifyBijectivity {
    fn check_gen_p(&self, op: OperationRef) -> Status {
        let location = op.location();
        let Ok(Some(LayoutOp::GenP { dims, apply, inverse })) = ops::layout_op(op) else { return Status::Unverified };
        let Some(inverse) = inverse else {
            if !self.consistency {
                diagnostics::warning(location, SKIP_NO_INVERSE);
            }
            return Status::Unverified;
        };
        let start = Instant::now();
        let gen = match encode_gen_p(op, &dims, apply, inverse, true) {
            Ok(gen) => gen,
            Err(error) => {
                warn_encode_error(location, "bijectivity", &error);
                return Status::Unverified;
            }
        };
        let static_dims: Option<Vec<u64>> = gen.dims.iter().map(Term::as_const).collect();
        let uses_floats = [&gen.apply_x, &gen.apply_inv_y].into_iter().chain(&gen.inv_y).chain(&gen.inv_apply_x).any(Term::uses_floats);

        if uses_floats {
            return self.check_exhaustively(location, &gen, static_dims.as_deref(), start);
        }
        match static_dims {
            Some(sizes) => {
                let Some(numel) = sizes.iter().try_fold(1u64, |acc, n| acc.checked_mul(*n)) else {
                    diagnostics::warning(location, "cannot verify bijectivity: the element count overflows 64 bits");
                    return Status::Unverified;
                };
                match self.prove_all(&gen, &gen.facts) {
                    Verdict::Proved => {
                        if self.options.verbose {
                            diagnostics::remark(
                                location,
                                &format!(
                                    "gen_p is a bijection on its {numel} points: inv(apply(x)) = x and apply(inv(y)) = y \
                                     (proved with Z3 in {})",
                                    verify_common::elapsed(start)
                                ),
                            );
                        }
                        Status::Proved
                    }
                    Verdict::Refuted(messages) => self.refuted(location, messages),
                    Verdict::Unknown(unknown) => {
                        diagnostics::warning(location, &format!("bijectivity {}", describe_unknown(&unknown)));
                        Status::Unverified
                    }
                }
            }
            None => self.check_symbolic(location, &gen, start),
        }
    }

    /// Obligations A1, A2 (`apply(inv(y)) = y`), then — unless A is proved, which implies B on a finite
    /// domain — B1, B2 (`inv(apply(x)) = x`), so a wrong inverse is reported in both directions.
    fn prove_all(&self, gen: &GenP, facts: &[Term]) -> Verdict {
        let timeout_ms = self.options.timeout_ms;
        let a_facts: Vec<Term> = facts.iter().cloned().chain([gen.y.ult(&gen.numel)]).collect();
        let b_facts: Vec<Term> =
            facts.iter().cloned().chain(gen.xs.iter().zip(&gen.dims).map(|(x, n)| x.ult(n))).collect();
        let a_observe = a_observed(gen);
        let b_observe = b_observed(gen);
        let a1 = Term::all(gen.inv_y.iter().zip(&gen.dims).map(|(g, n)| g.ult(n)));
        let a2 = gen.apply_inv_y.eq(&gen.y);
        let b1 = gen.apply_x.ult(&gen.numel);
        let b2 = Term::all(gen.inv_apply_x.iter().zip(&gen.xs).map(|(g, x)| g.eq(x)));
        // Counterexamples name the lowest point (`inv(0)` rather than `inv(13)`): the gen_p's own inputs first.
        let lowest_first = hidden(gen);
        let direction = |goals: [&Term; 2], facts: &[Term], observe: &[Term]| {
            for goal in goals {
                match self.options.prove_minimal(&Query { goal, facts, observe, timeout_ms }, &lowest_first) {
                    Outcome::Proved => {}
                    other => return other,
                }
            }
            Outcome::Proved
        };
        let a = direction([&a1, &a2], &a_facts, &a_observe);
        if matches!(a, Outcome::Proved) {
            return Verdict::Proved;
        }
        let b = direction([&b1, &b2], &b_facts, &b_observe);
        match (a, b) {
            (Outcome::Refuted(a), Outcome::Refuted(b)) => Verdict::Refuted(vec![message_b(gen, &b), message_a(gen, &a)]),
            (Outcome::Refuted(a), _) => Verdict::Refuted(vec![message_a(gen, &a)]),
            (_, Outcome::Refuted(b)) => Verdict::Refuted(vec![message_b(gen, &b)]),
            (_, Outcome::Proved) => Verdict::Proved,
            (Outcome::Unknown(unknown), _) | (_, Outcome::Unknown(unknown)) => Verdict::Unknown(unknown),
        }
    }

    fn check_symbolic(&self, location: Location, gen: &GenP, start: Instant) -> Status {
        // For all sizes (up to SYMBOLIC_NUMEL_BOUND elements).
        let outcome = self.prove_all(gen, &gen.facts);
        let reason = match outcome {
            Verdict::Proved => {
                if self.options.verbose {
                    diagnostics::remark(
                        location,
                        &format!(
                            "gen_p is a bijection for all sizes with at most 2^32 elements: inv(apply(x)) = x and \
                             apply(inv(y)) = y (proved with Z3 in {})",
                            verify_common::elapsed(start)
                        ),
                    );
                }
                return Status::Proved;
            }
            Verdict::Refuted(messages) => return self.refuted(location, messages),
            Verdict::Unknown(unknown) => describe_unknown(&unknown),
        };
        // Fall back to every combination of small sizes.
        let size_vars: Vec<(String, u32)> = {
            let mut vars = Vec::new();
            for dim in &gen.dims {
                for (name, sort) in dim.variables() {
                    if let lego_smt::Sort::Bits(width) = sort {
                        if !vars.iter().any(|(seen, _)| *seen == name) {
                            vars.push((name, width));
                        }
                    }
                }
            }
            vars
        };
        if size_vars.is_empty() {
            diagnostics::warning(location, &format!("bijectivity {reason}"));
            return Status::Unverified;
        }
        let per_var = match size_vars.len() {
            1 => 16,
            2 => 8,
            3 => 4,
            _ => 2,
        };
        let mut combination = vec![1u64; size_vars.len()];
        let mut count = 0usize;
        loop {
            let map: HashMap<String, Term> = size_vars
                .iter()
                .zip(&combination)
                .map(|((name, width), value)| (name.clone(), Term::constant(*value, *width)))
                .collect();
            let concrete = gen.substitute(&map);
            match self.prove_all(&concrete, &concrete.facts) {
                Verdict::Proved => {}
                Verdict::Refuted(messages) => {
                    let sizes = size_vars
                        .iter()
                        .zip(&combination)
                        .map(|((name, _), value)| format!("{name} = {value}"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let messages = messages.into_iter().map(|message| format!("{message} (sizes {sizes})")).collect();
                    return self.refuted(location, messages);
                }
                Verdict::Unknown(unknown) => {
                    diagnostics::warning(
                        location,
                        &format!("bijectivity {reason}; and for concrete sizes: {}", describe_unknown(&unknown)),
                    );
                    return Status::Unverified;
                }
            }
            count += 1;
            // Next combination.
            let mut k = combination.len();
            loop {
                if k == 0 {
                    let names = size_vars.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>().join(", ");
                    diagnostics::warning(
                        location,
                        &format!(
                            "bijectivity proved only for sizes {names} in [1, {per_var}] ({count} combinations, {}); \
                             for all sizes: {reason}",
                            verify_common::elapsed(start)
                        ),
                    );
                    return Status::Unverified;
                }
                k -= 1;
                combination[k] += 1;
                if combination[k] <= per_var {
                    break;
                }
                combination[k] = 1;
            }
        }
    }

    fn check_exhaustively(&self, location: Location, gen: &GenP, static_dims: Option<&[u64]>, start: Instant) -> Status {
        let Some(sizes) = static_dims else {
            diagnostics::warning(
                location,
                "cannot verify bijectivity: the gen_p uses float math, which is only checked by exhaustive evaluation, \
                 and its dims are symbolic (unverified)",
            );
            return Status::Unverified;
        };
        let numel = sizes.iter().try_fold(1u64, |acc, n| acc.checked_mul(*n));
        let limit = self.exhaustive_limit;
        let Some(numel) = numel.filter(|numel| *numel <= limit) else {
            diagnostics::warning(
                location,
                &format!(
                    "cannot verify bijectivity: the gen_p uses float math, which is only checked by exhaustive \
                     evaluation, and its domain has more than {limit} points (unverified)"
                ),
            );
            return Status::Unverified;
        };
        let a_goal = Term::all(gen.inv_y.iter().zip(&gen.dims).map(|(g, n)| g.ult(n))).and(&gen.apply_inv_y.eq(&gen.y));
        let b_goal = gen.apply_x.ult(&gen.numel).and(&Term::all(gen.inv_apply_x.iter().zip(&gen.xs).map(|(g, x)| g.eq(x))));
        let a_domain = [Domain { name: gen.y_name.clone(), lo: 0, hi: numel }];
        let b_domain: Vec<Domain> =
            gen.x_names.iter().zip(sizes).map(|(name, n)| Domain { name: name.clone(), lo: 0, hi: *n }).collect();
        let a = exhaustive(&a_goal, &gen.facts, &a_observed(gen), &a_domain, limit);
        let b = exhaustive(&b_goal, &gen.facts, &b_observed(gen), &b_domain, limit);
        match (a, b) {
            (a @ Outcome::Refuted(_), b) | (a, b @ Outcome::Refuted(_)) => {
                let mut messages = Vec::new();
                if let Outcome::Refuted(cex) = &b {
                    messages.push(message_b(gen, cex));
                }
                if let Outcome::Refuted(cex) = &a {
                    messages.push(message_a(gen, cex));
                }
                self.refuted(location, messages)
            }
            (Outcome::Proved, Outcome::Proved) => {
                if self.options.verbose {
                    diagnostics::remark(
                        location,
                        &format!(
                            "gen_p is a bijection on its {numel} points: inv(apply(x)) = x and apply(inv(y)) = y \
                             (float math: checked by exhaustive evaluation in {})",
                            verify_common::elapsed(start)
                        ),
                    );
                }
                Status::Proved
            }
            (Outcome::Unknown(unknown), _) | (_, Outcome::Unknown(unknown)) => {
                diagnostics::warning(location, &format!("bijectivity {}", describe_unknown(&unknown)));
                Status::Unverified
            }
        }
    }

    /// Reports the refuted directions: each with its published sentence, or, for the consistency passes, the
    /// published error once.
    fn refuted(&self, location: Location, messages: Vec<String>) -> Status {
        if self.consistency {
            diagnostics::error(location, INCONSISTENT_GEN_P);
        } else {
            for message in messages {
                diagnostics::error(location, &message);
            }
        }
        Status::Refuted
    }

    /// Verbose: says whether a composite layout is a bijection because it is built only from bijective
    /// pieces with matching sizes (docs/reference/semantics.md's size rules).
    fn remark_composite(&self, op: OperationRef, status: &HashMap<usize, Status>) {
        let value: MlirValue = match op.result(0) {
            Ok(result) => result.into(),
            Err(_) => return,
        };
        let mut encoder = Encoder::new();
        match composite_bijective(&mut encoder, value, status, self.options) {
            Ok(numel) => diagnostics::remark(
                op.location(),
                &format!("bijective: built only from bijective pieces with matching sizes ({numel} elements)"),
            ),
            Err(why) => diagnostics::remark(op.location(), &format!("bijectivity not established: {why}")),
        }
    }
}

pub(crate) enum Verdict {
    Proved,
    /// One message per refuted direction, `inv(apply(x)) ≠ x` first.
    Refuted(Vec<String>),
    Unknown(Unknown),
}

/// The published warning for a gen_p without an `inv` region.
pub const SKIP_NO_INVERSE: &str = "Skipping bijectivity check: no inverse region defined";
/// The published first sentence of a refutation of `inv(apply(x)) = x` (direction B).
pub const NOT_BIJECTIVE_INV_APPLY: &str = "Layout is not bijective: inv(apply(x)) ≠ x";
/// The published first sentence of a refutation of `apply(inv(y)) = y` (direction A).
pub const NOT_BIJECTIVE_APPLY_INV: &str = "Layout is not bijective: apply(inv(y)) ≠ y";

/// Obligations A, then B, of `gen` under its own facts, within `options`' budget (what the pass proves for a
/// gen_p of static sizes; [`crate::genp_obligation`] asks it too).
pub(crate) fn prove_gen_p(gen: &GenP, options: VerifyOptions) -> Verdict {
    let pass = VerifyBijectivity { options, exhaustive_limit: EXHAUSTIVE_LIMIT, consistency: false, name: "lego-verify-bijectivity" };
    pass.prove_all(gen, &gen.facts)
}

impl GenP {
    pub(crate) fn substitute(&self, map: &HashMap<String, Term>) -> GenP {
        let s = |t: &Term| t.substitute(map);
        GenP {
            dims: self.dims.iter().map(s).collect(),
            numel: s(&self.numel),
            xs: self.xs.clone(),
            y: self.y.clone(),
            x_names: self.x_names.clone(),
            y_name: self.y_name.clone(),
            apply_x: s(&self.apply_x),
            inv_apply_x: self.inv_apply_x.iter().map(s).collect(),
            inv_y: self.inv_y.iter().map(s).collect(),
            apply_inv_y: s(&self.apply_inv_y),
            facts: self.facts.iter().map(s).collect(),
        }
    }
}

/// Encodes `apply(x)`, `inv(apply(x))`, `inv(y)`, `apply(inv(y))` and the facts on the sizes; with
/// `function_facts`, also the `lego.assume*` facts of the enclosing function (they matter only when the regions
/// read values from outside the gen_p).
pub(crate) fn encode_gen_p<'c>(
    op: OperationRef<'c, '_>,
    dims: &[ops::Dim<'c, '_>],
    apply: RegionRef<'c, '_>,
    inverse: RegionRef<'c, '_>,
    function_facts: bool,
) -> Result<GenP, EncodeError<'c>> {
    let location = op.location();
    let mut encoder = Encoder::new();
    let dims = encoder.dim_terms(dims)?;
    let x_names: Vec<String> = (0..dims.len()).map(|k| encoder.fresh_name(&format!("x{k}"))).collect();
    let xs: Vec<Term> = x_names.iter().map(Term::index_var).collect();
    let y_name = encoder.fresh_name("y");
    let y = Term::index_var(&y_name);
    let one_result = |results: Vec<Term>| -> Result<Term, EncodeError<'c>> {
        match <[Term; 1]>::try_from(results) {
            Ok([flat]) => Ok(flat),
            Err(_) => Err(EncodeError { location, message: "cannot verify: the apply region must yield one index".into() }),
        }
    };
    let apply_x = one_result(encoder.region(apply, &xs, location)?)?;
    let inv_y = encoder.region(inverse, std::slice::from_ref(&y), location)?;
    if inv_y.len() != dims.len() {
        return Err(EncodeError { location, message: "cannot verify: the inv region must yield one index per dim".into() });
    }
    let apply_inv_y = one_result(encoder.region(apply, &inv_y, location)?)?;
    let inv_apply_x = encoder.region(inverse, std::slice::from_ref(&apply_x), location)?;
    let numel = product(&dims);

    let mut facts = Vec::new();
    // Sizes are ≥ 1 (docs/reference/verifier.md); symbolic sizes are bounded so that the element count (and every prefix
    // product) stays at most 2^32, so no size computation wraps.
    let bound = Term::index(SYMBOLIC_NUMEL_BOUND);
    let mut prefix = Term::index(1);
    let mut symbolic = false;
    for dim in &dims {
        if dim.as_const().is_none() {
            symbolic = true;
            facts.push(Term::index(1).ule(dim).and(&dim.ult(&bound)));
        }
        prefix = prefix.mul(dim);
        if symbolic {
            facts.push(prefix.ule(&bound));
        }
    }
    if let Some(function) = enclosing_function(op).filter(|_| function_facts) {
        let (assumed, _skipped) = encoder.assumptions(function);
        facts.extend(assumed);
    }
    facts.extend(encoder.discovered_facts());
    Ok(GenP { dims, numel, xs, y, x_names, y_name, apply_x, inv_apply_x, inv_y, apply_inv_y, facts })
}

/// Observed in A counterexamples: dims, inv(y), apply(inv(y)).
pub(crate) fn a_observed(gen: &GenP) -> Vec<Term> {
    gen.dims.iter().cloned().chain(gen.inv_y.iter().cloned()).chain([gen.apply_inv_y.clone()]).collect()
}

/// Observed in B counterexamples: dims, apply(x), numel, inv(apply(x)).
pub(crate) fn b_observed(gen: &GenP) -> Vec<Term> {
    gen.dims
        .iter()
        .cloned()
        .chain([gen.apply_x.clone(), gen.numel.clone()])
        .chain(gen.inv_apply_x.iter().cloned())
        .collect()
}

fn hidden(gen: &GenP) -> Vec<&str> {
    gen.x_names.iter().map(String::as_str).chain([gen.y_name.as_str()]).collect()
}

pub(crate) fn message_a(gen: &GenP, cex: &Counterexample) -> String {
    let rank = gen.dims.len();
    let y = cex.value_of(&gen.y_name).unwrap_or(0);
    let observed = &cex.observed;
    let dims = observed.get(..rank).unwrap_or_default();
    let inv = observed.get(rank..2 * rank).unwrap_or_default();
    let back = observed.get(2 * rank);
    let with = with_clause(cex, &hidden(gen));
    if let Violation::Undefined(what) = &cex.violation {
        return format!("{NOT_BIJECTIVE_APPLY_INV}\ncomputing inv({y}) and apply(inv({y})) hits {what}{with}");
    }
    let outside = inv.iter().zip(dims).any(|(i, n)| matches!((i, n), (Value::Bits(i), Value::Bits(n)) if i >= n));
    if outside {
        format!("{NOT_BIJECTIVE_APPLY_INV}\ninv({y}) = ({}) is outside the dims [{}]{with}", show_list(inv), show_list(dims))
    } else {
        format!("{NOT_BIJECTIVE_APPLY_INV}\ninv({y}) = ({}) but apply({}) = {}{with}", show_list(inv), show_list(inv), show(back))
    }
}

pub(crate) fn message_b(gen: &GenP, cex: &Counterexample) -> String {
    let rank = gen.dims.len();
    let x: Vec<String> = gen.x_names.iter().map(|name| cex.value_of(name).unwrap_or(0).to_string()).collect();
    let x = x.join(", ");
    let observed = &cex.observed;
    let flat = observed.get(rank);
    let numel = observed.get(rank + 1);
    let inv = observed.get(rank + 2..).unwrap_or_default();
    let with = with_clause(cex, &hidden(gen));
    if let Violation::Undefined(what) = &cex.violation {
        return format!("{NOT_BIJECTIVE_INV_APPLY}\ncomputing apply({x}) and inv(apply({x})) hits {what}{with}");
    }
    match (flat, numel) {
        (Some(Value::Bits(f)), Some(Value::Bits(n))) if f >= n => {
            format!("{NOT_BIJECTIVE_INV_APPLY}\napply({x}) = {} is outside [0, {n}){with}", show(flat))
        }
        _ => format!("{NOT_BIJECTIVE_INV_APPLY}\napply({x}) = {} but inv({}) = ({}){with}", show(flat), show(flat), show_list(inv)),
    }
}

/// `Ok(element count)` when `layout` is a bijection by construction: permutation layouts are, a gen_p is
/// when this pass proved it, and order_by / group_by / tile_by of bijections are when the size rules hold
/// (group_by: Π dims = numel of every object; tile_by: Π over levels of each dim = Π over blocks of that dim).
fn composite_bijective(encoder: &mut Encoder, layout: MlirValue, status: &HashMap<usize, Status>, options: VerifyOptions) -> Result<String, String> {
    let Some((owner, node)) = ops::defining_layout(layout) else {
        return Err("a piece is defined outside this function".into());
    };
    let location = owner.location();
    let encode_error = |error: EncodeError| error.message;
    let numel = encoder.layout_numel(layout, location).map_err(encode_error)?;
    let show_numel = |numel: &Term| numel.as_const().map_or_else(|| format!("{numel}"), |n| n.to_string());
    match node {
        LayoutOp::Row { .. } | LayoutOp::Col { .. } | LayoutOp::RegP { .. } => Ok(show_numel(&numel)),
        LayoutOp::GenP { .. } => match status.get(&(owner.to_raw().ptr as usize)) {
            Some(Status::Proved) => Ok(show_numel(&numel)),
            _ => Err(format!("the gen_p at {location} is not proved bijective")),
        },
        LayoutOp::OrderBy { objects } => {
            for object in objects {
                composite_bijective(encoder, object, status, options)?;
            }
            Ok(show_numel(&numel))
        }
        LayoutOp::GroupBy { objects, .. } => {
            for object in objects {
                composite_bijective(encoder, object, status, options)?;
                let object_numel = encoder.layout_numel(object, location).map_err(encode_error)?;
                if !sizes_equal(&numel, &object_numel, options) {
                    return Err(format!(
                        "group_by has {} elements but an object has {}",
                        show_numel(&numel),
                        show_numel(&object_numel)
                    ));
                }
            }
            Ok(show_numel(&numel))
        }
        LayoutOp::TileBy { inner, levels } => {
            composite_bijective(encoder, inner, status, options)?;
            // docs/reference/semantics.md: the per-dim rule is Π_l t_{l,k} = Π_h o_{h,k} over the input order_by's blocks.
            let Some((_, LayoutOp::OrderBy { objects: blocks })) = ops::defining_layout(inner) else {
                return Err("tile_by input is not a visible order_by".into());
            };
            let d = levels.first().map_or(0, Vec::len);
            let mut block_dims = Vec::with_capacity(blocks.len());
            for block in blocks {
                let dims = encoder.layout_dims(block, location).map_err(encode_error)?;
                if dims.len() != d {
                    return Err(format!("a tile_by block has rank {}, the tile rank is {d}", dims.len()));
                }
                block_dims.push(dims);
            }
            let inner_dims: Vec<Term> =
                (0..d).map(|k| product(&block_dims.iter().map(|dims| dims[k].clone()).collect::<Vec<_>>())).collect();
            let sizes: Vec<Vec<Term>> =
                levels.iter().map(|level| encoder.dim_terms(level)).collect::<Result<_, _>>().map_err(encode_error)?;
            for (k, inner_dim) in inner_dims.iter().enumerate() {
                let tiled = product(&sizes.iter().filter_map(|level| level.get(k).cloned()).collect::<Vec<_>>());
                if !sizes_equal(&tiled, inner_dim, options) {
                    return Err(format!("tile sizes of dim {k} do not multiply to the input's dim"));
                }
            }
            Ok(show_numel(&numel))
        }
        LayoutOp::ExpandBy { .. } => Err("expand_by is partial (injective, but not onto its dims)".into()),
        LayoutOp::Compose { outer, inner } => {
            composite_bijective(encoder, outer, status, options)?;
            composite_bijective(encoder, inner, status, options)?;
            let outer_numel = encoder.layout_numel(outer, location).map_err(encode_error)?;
            if !sizes_equal(&numel, &outer_numel, options) {
                return Err(format!(
                    "compose's inner layout has {} elements but its outer layout {}",
                    show_numel(&numel),
                    show_numel(&outer_numel)
                ));
            }
            Ok(show_numel(&numel))
        }
        LayoutOp::Inverse { inner } => composite_bijective(encoder, inner, status, options),
        LayoutOp::Strided { modes } => {
            let leaves = ops::strided_leaves(&modes)?;
            match lego_algebra::check_strided(&leaves) {
                Ok(info) if info.compact => Ok(show_numel(&numel)),
                Ok(_) => Err("a padded strided layout is injective, but not onto its extent".into()),
                Err(error) => Err(error.to_string()),
            }
        }
        // docs/ops/swizzle.md: a permutation of [0, n) whenever n is a multiple of its period, which the
        // dialect verifier checks for known sizes; a symbolic n is not known to be one.
        LayoutOp::Swizzle { swizzle: [bits, base, shift], .. } => {
            let period = u32::try_from(bits + base + shift).ok().and_then(|e| 1u64.checked_shl(e));
            match (numel.as_const(), period) {
                (Some(n), Some(period)) if n % period == 0 => Ok(show_numel(&numel)),
                _ => Err("a swizzle's element count is not known to be a multiple of its period 2^(bits+base+shift)".into()),
            }
        }
    }
}

/// Whether two size products are provably equal (sizes ≥ 1, each below 2^32).
fn sizes_equal(a: &Term, b: &Term, options: VerifyOptions) -> bool {
    if let (Some(a), Some(b)) = (a.as_const(), b.as_const()) {
        return a == b;
    }
    let mut roots = vec![a.clone(), b.clone()];
    roots.dedup();
    let facts: Vec<Term> = lego_smt::variables(&roots)
        .into_iter()
        .map(|(name, _)| {
            let v = Term::index_var(name);
            Term::index(1).ule(&v).and(&v.ult(&Term::index(1 << 16)))
        })
        .collect();
    let goal = a.eq(b);
    matches!(options.prove(&Query { goal: &goal, facts: &facts, observe: &[], timeout_ms: options.timeout_ms }), Outcome::Proved)
}

#[cfg(test)]
mod tests {
    //! Every gen_p lego-algebra emits (rev and antidiag, inside random layouts) is proved bijective.
    use crate::{build_pass_manager, pipeline_text, Registry};
    use lego_algebra::{
        mlir::emit_module,
        random::{random_layout, RandomConfig, SplitMix64},
    };
    use melior::pass::PassManager;
    use std::sync::{Arc, Mutex};

    #[test]
    fn emitted_gen_ps_are_proved_bijective() {
        let context = lego_dialect::create_context().expect("the lego dialect registers");
        let messages = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = Arc::clone(&messages);
        context.attach_diagnostic_handler(move |diagnostic| {
            if let Ok(mut sink) = sink.lock() {
                sink.push(diagnostic.to_string());
            }
            true
        });
        let registry = Registry::default();
        let mut rng = SplitMix64::new(0xb1_7ec7);
        // Literal sizes: an emitted gen_p with a symbolic size keeps the body of one concrete size (e.g. rev(1, 1)
        // under dims [1, %n]), which is rightly refuted for other values of %n.
        let config = RandomConfig { symbolic_percent: 0, ..RandomConfig::default() };
        let mut gen_ps = 0;
        for case in 0..40 {
            let layout = random_layout(&mut rng, &config);
            let text = emit_module(&layout, &format!("c{case}")).expect("emits");
            gen_ps += text.matches("lego.gen_p").count();
            let mut module = lego_dialect::source::parse(&context, "random.mlir", &text).expect("parses");
            let elements = pipeline_text::parse_element_list("lego-verify-bijectivity{verbose=true}").expect("pipeline");
            let manager = PassManager::new(&context);
            build_pass_manager(&registry, manager.as_operation_pass_manager(), &elements, false).expect("builds");
            assert!(manager.run(&mut module).is_ok(), "bijectivity refuted for {layout}: {:?}", messages.lock().map(|m| m.clone()));
        }
        let messages = messages.lock().map(|m| m.clone()).unwrap_or_default();
        let proved = messages.iter().filter(|m| m.starts_with("gen_p is a bijection")).count();
        let problems: Vec<&String> =
            messages.iter().filter(|m| m.contains("is not a bijection") || m.contains("cannot verify") || m.contains("unknown")).collect();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(proved, gen_ps, "every emitted gen_p is proved: {messages:?}");
        assert!(gen_ps >= 5, "the random layouts contain gen_p's ({gen_ps})");
    }
}
