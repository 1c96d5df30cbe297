//! Translation validation (`verify-rewrites=true`): before a rewrite replaces a value, Z3 proves the new value
//! equal to the old one under the range facts, reading both from the IR (not from the simplifier's algebra),
//! so a bug in a rule cannot hide behind the same bug in its proof.
//!
//! The old value is encoded without overflow flags (more defined than it really is, so the proof is only
//! stronger); the divisors of the old value are assumed non-zero and the `disjoint` promises of its
//! `affine.linearize_index` ops assumed kept — where they fail, the old value is undefined or poison and any
//! replacement refines it. The new value must be defined everywhere the facts hold.

use super::{
    ir::{self, Key},
    ranges::{max_of, Ranges, Rel},
    rules::{Bound, Delinearize, Linearize},
};
use crate::diagnostics::Severity;
use lego_smt::{Outcome, Query, Term};
use mlir_sys::MlirValue;
use super::ir::{HashMap, HashSet};

pub enum Verdict {
    Proved,
    Refuted(String),
    Unknown(String),
}

impl Verdict {
    /// Whether the rewrite may go ahead; otherwise reports why not at `op`: a refuted rewrite is a bug of the
    /// simplifier (an error), one Z3 could not decide a warning. `rewrite` names what was refuted ("rewrite"),
    /// `unproved` what could not be proved ("the rewrite of this value").
    pub fn accept_or_report(self, op: mlir_sys::MlirOperation, rewrite: &str, unproved: &str) -> bool {
        let (severity, message) = match self {
            Verdict::Proved => return true,
            Verdict::Refuted(assignment) => (
                Severity::Error,
                format!("lego-arith-simplification: {rewrite} refuted by Z3 (counterexample: {assignment}); left unchanged"),
            ),
            Verdict::Unknown(why) => (
                Severity::Warning,
                format!("lego-arith-simplification: could not prove {unproved} ({why}); left unchanged"),
            ),
        };
        let location = unsafe { melior::ir::Location::from_raw(mlir_sys::mlirOperationGetLocation(op)) };
        crate::diagnostics::emit(location, severity, &message);
        false
    }
}

struct Encoder<'r> {
    ranges: &'r mut Ranges,
    terms: HashMap<Key, Term>,
    leaves: Vec<MlirValue>,
    leaf_keys: HashSet<Key>,
    /// Assumptions about the old value (its divisors, its disjoint promises).
    premises: Vec<Term>,
    /// assume-no-wrap: the old value's sums and products do not wrap (used only when the rewrite is not
    /// proved without them: most rewrites hold under wrap-around, and the premises slow Z3 down).
    no_wrap_premises: Vec<Term>,
    collect_premises: bool,
    ops: usize,
    /// Quotient/remainder variables of divisions by constants, by (dividend term, divisor).
    divisions: HashMap<(usize, u64), (Term, Term)>,
    /// Their defining constraints.
    definitions: Vec<Term>,
    /// The width 64-bit values are encoded at: smaller when every value involved is known to stay below
    /// 2^(width − 1), where narrower arithmetic computes exactly the same values (and Z3 bit-blasts far fewer
    /// gates).
    width: u32,
}

const MAX_OPS: usize = 2_000;
/// Input points the enumeration fallback may visit.
const EXHAUSTIVE_LIMIT: u64 = 1 << 17;

impl Encoder<'_> {
    fn leaf(&mut self, value: MlirValue, width: u32) -> Term {
        let key = ir::key(value);
        if self.leaf_keys.insert(key) {
            self.leaves.push(value);
        }
        Term::var(format!("v{}", self.leaves.iter().position(|v| ir::key(*v) == key).unwrap_or(0)), width)
    }

    fn value(&mut self, value: MlirValue) -> Option<Term> {
        let key = ir::key(value);
        if let Some(term) = self.terms.get(&key) {
            return Some(term.clone());
        }
        let width = ir::width(value)?;
        if width > 64 {
            return None;
        }
        let width = if width == 64 { self.width } else { width };
        self.ops += 1;
        if self.ops > MAX_OPS {
            return None;
        }
        let term = match ir::defining_op(value) {
            Some(op) => match self.op(op, value, width)? {
                Some(term) => term,
                None => self.leaf(value, width),
            },
            None => self.leaf(value, width),
        };
        self.terms.insert(key, term.clone());
        Some(term)
    }

    fn index_bound(&mut self, bound: Bound) -> Option<Term> {
        match bound {
            Bound::Const(value) => Some(Term::constant(value, self.width)),
            Bound::Value(value) => self.value(value),
        }
    }

    /// `Ok(None)`: an opaque op (its value becomes a variable).
    fn op(&mut self, op: mlir_sys::MlirOperation, value: MlirValue, width: u32) -> Option<Option<Term>> {
        let operand = |encoder: &mut Self, index: usize| -> Option<Term> { encoder.value(ir::operand(op, index)?) };
        let name = ir::op_name(op);
        let binary = |encoder: &mut Self, f: fn(&Term, &Term) -> Term| -> Option<Option<Term>> {
            let (a, b) = (operand(encoder, 0)?, operand(encoder, 1)?);
            Some(Some(f(&a, &b)))
        };
        match name {
            "arith.constant" => Some(ir::constant_value(value).map(|c| Term::constant(c, width))),
            "arith.addi" => {
                let (a, b) = (operand(self, 0)?, operand(self, 1)?);
                let sum = a.add(&b);
                if self.collect_premises && self.ranges.assume_no_wrap {
                    // assume-no-wrap: the program's sums do not wrap.
                    self.no_wrap_premises.push(sum.uge(&a));
                }
                Some(Some(sum))
            }
            "arith.subi" => binary(self, Term::sub),
            "arith.muli" => {
                let (a, b) = (operand(self, 0)?, operand(self, 1)?);
                if self.collect_premises && self.ranges.assume_no_wrap {
                    // assume-no-wrap: the program's products do not wrap. By a constant c: the other factor is
                    // at most MAX div c; otherwise, at widths up to 32, the high half of the double-width
                    // product is zero, and wider, a = 0 or (a·b) div a = b (dividing by max(a, 1)-like
                    // select so that no division by zero turns the premise into poison).
                    let max = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
                    match (a.as_const(), b.as_const()) {
                        (_, Some(c)) if c > 0 => self.no_wrap_premises.push(a.ule(&Term::constant(max / c, width))),
                        (Some(c), _) if c > 0 => self.no_wrap_premises.push(b.ule(&Term::constant(max / c, width))),
                        (Some(_), _) | (_, Some(_)) => {}
                        _ if width <= 32 => {
                            let wide = a.zext_or_trunc(2 * width).mul(&b.zext_or_trunc(2 * width));
                            let high = wide.lshr(&Term::constant(width as u64, 2 * width));
                            self.no_wrap_premises.push(high.eq(&Term::constant(0, 2 * width)));
                        }
                        _ => {
                            let zero = Term::constant(0, width);
                            let a_is_zero = a.eq(&zero);
                            let divisor = Term::select(&a_is_zero, &Term::constant(1, width), &a);
                            let exact = a.mul(&b).udiv(&divisor).eq(&b);
                            self.no_wrap_premises.push(a_is_zero.or(&exact));
                        }
                    }
                }
                Some(Some(a.mul(&b)))
            }
            "arith.shli" => binary(self, Term::shl),
            "arith.shrui" => binary(self, Term::lshr),
            "arith.andi" => binary(self, Term::bitand),
            "arith.ori" => binary(self, Term::bitor),
            "arith.xori" => binary(self, Term::bitxor),
            "arith.divui" | "arith.remui" => {
                let (a, b) = (operand(self, 0)?, operand(self, 1)?);
                if let Some(divisor) = b.as_const().filter(|c| *c >= 1) {
                    let (quotient, remainder) = self.divide_by_constant(&a, divisor, width);
                    return Some(Some(if name == "arith.divui" { quotient } else { remainder }));
                }
                if self.collect_premises {
                    self.premises.push(b.ne(&Term::constant(0, width)));
                }
                Some(Some(if name == "arith.divui" { a.udiv(&b) } else { a.urem(&b) }))
            }
            "affine.linearize_index" => {
                let linearize = Linearize::read(op)?;
                let mut total = self.value(linearize.indices[0])?;
                for (index, size) in linearize.indices[1..].iter().zip(linearize.inner_sizes()) {
                    let (index, size) = (self.value(*index)?, self.index_bound(size)?);
                    if self.collect_premises && linearize.disjoint {
                        self.premises.push(index.ult(&size));
                    }
                    total = total.mul(&size).add(&index);
                }
                Some(Some(total))
            }
            "affine.delinearize_index" => {
                let delinearize = Delinearize::read(op)?;
                let results = ir::result_count(op);
                let index = (0..results).find(|k| ir::result(op, *k).map(ir::key) == Some(ir::key(value)))?;
                let x = self.value(delinearize.input)?;
                let offset = results - delinearize.basis.len();
                let mut sizes = Vec::new();
                for bound in &delinearize.basis {
                    let size = self.index_bound(*bound)?;
                    if self.collect_premises {
                        // Non-positive sizes are undefined for affine index ops.
                        self.premises.push(Term::cmp(lego_smt::Pred::Sgt, &size, &Term::constant(0, self.width)));
                    }
                    sizes.push(size);
                }
                let mut divisor = Term::constant(1, self.width);
                for k in index + 1..results {
                    divisor = divisor.mul(sizes.get(k - offset)?);
                }
                let quotient = floor_div(&x, &divisor, self.width);
                if index == 0 {
                    return Some(Some(quotient));
                }
                Some(Some(floor_mod(&quotient, sizes.get(index - offset)?, self.width)))
            }
            _ => Some(None),
        }
    }

    /// `a divui c` and `a remui c` for a constant `c ≥ 1` as fresh variables `q`, `r` constrained by
    /// `a = c·q + r`, `r < c`, `q ≤ ⌊max / c⌋` and `c·q ≤ max − r` (so neither `c·q` nor `c·q + r` wraps): exactly one pair satisfies them, the
    /// true quotient and remainder, and Z3 needs no division circuit (which it handles badly).
    fn divide_by_constant(&mut self, a: &Term, divisor: u64, width: u32) -> (Term, Term) {
        let key = (a.id(), divisor);
        if let Some(pair) = self.divisions.get(&key) {
            return pair.clone();
        }
        let n = self.divisions.len();
        let (q, r) = (Term::var(format!("q{n}"), width), Term::var(format!("r{n}"), width));
        let c = Term::constant(divisor, width);
        let max = Term::constant(max_of(width), width);
        self.definitions.push(a.eq(&c.mul(&q).add(&r)));
        self.definitions.push(r.ult(&c));
        // c·q does not wrap, and neither does c·q + r.
        self.definitions.push(q.ule(&Term::constant(max_of(width) / divisor, width)));
        self.definitions.push(c.mul(&q).ule(&max.sub(&r)));
        self.divisions.insert(key, (q.clone(), r.clone()));
        (q, r)
    }

    fn facts(&mut self) -> Vec<Term> {
        let mut facts = Vec::new();
        let mut next = 0;
        while next < self.leaves.len() && next < 64 {
            let value = self.leaves[next];
            next += 1;
            let Some(width) = ir::width(value) else { continue };
            let width = if width == 64 { self.width } else { width };
            let Some(term) = self.terms.get(&ir::key(value)).cloned() else { continue };
            if let Some(interval) = self.ranges.interval(value) {
                if interval.lo > 0 {
                    facts.push(term.uge(&Term::constant(interval.lo, width)));
                }
                if interval.hi < max_of(width) && interval.hi <= max_of(self.width) {
                    facts.push(term.ule(&Term::constant(interval.hi, width)));
                }
            }
            for (rel, other) in self.ranges.relations(value) {
                if ir::width(other) != ir::width(value) {
                    continue;
                }
                let saved = self.collect_premises;
                self.collect_premises = false;
                let Some(other) = self.value(other) else { continue };
                self.collect_premises = saved;
                facts.push(relation(&term, rel, &other));
            }
        }
        facts
    }
}

fn relation(term: &Term, rel: Rel, other: &Term) -> Term {
    match rel {
        Rel::Lt => term.ult(other),
        Rel::Le => term.ule(other),
        Rel::Gt => term.ugt(other),
        Rel::Ge => term.uge(other),
        Rel::Eq => term.eq(other),
    }
}

/// Floor division of signed values (affine `floordiv`) for a positive divisor.
fn floor_div(x: &Term, divisor: &Term, width: u32) -> Term {
    let quotient = Term::bin(lego_smt::BinOp::DivS, x, divisor);
    let remainder = Term::bin(lego_smt::BinOp::RemS, x, divisor);
    let negative = Term::cmp(lego_smt::Pred::Slt, &remainder, &Term::constant(0, width));
    Term::select(&negative, &quotient.sub(&Term::constant(1, width)), &quotient)
}

/// Non-negative modulo (affine `mod`) for a positive divisor.
fn floor_mod(x: &Term, divisor: &Term, width: u32) -> Term {
    let remainder = Term::bin(lego_smt::BinOp::RemS, x, divisor);
    let negative = Term::cmp(lego_smt::Pred::Slt, &remainder, &Term::constant(0, width));
    Term::select(&negative, &remainder.add(divisor), &remainder)
}

/// The largest value any 64-bit value of the cones of `roots` may take (intervals; delinearize divisors
/// included), or `None` when some value is not bounded below 2^63.
fn largest_value(ranges: &mut Ranges, roots: &[MlirValue]) -> Option<u64> {
    let mut largest = 1u64;
    let mut seen = HashSet::default();
    let mut stack = roots.to_vec();
    while let Some(value) = stack.pop() {
        if !seen.insert(ir::key(value)) || seen.len() > MAX_OPS {
            continue;
        }
        if ir::width(value) == Some(64) {
            largest = largest.max(ranges.interval(value)?.hi);
        }
        let Some(op) = ir::defining_op(value) else { continue };
        if !super::rules::is_expression_op(op) && !matches!(ir::op_name(op), "arith.ori" | "arith.xori") {
            continue;
        }
        if ir::op_name(op) == "affine.delinearize_index" {
            let delinearize = Delinearize::read(op)?;
            let mut product: u64 = 1;
            for bound in &delinearize.basis {
                let hi = match bound {
                    Bound::Const(c) => *c,
                    Bound::Value(v) => ranges.interval(*v)?.hi,
                };
                product = product.checked_mul(hi)?;
            }
            largest = largest.max(product);
        }
        if ir::op_name(op) == "affine.linearize_index" {
            let linearize = Linearize::read(op)?;
            for bound in linearize.inner_sizes() {
                if let Bound::Const(c) = bound {
                    largest = largest.max(c);
                }
            }
        }
        stack.extend(ir::operands(op));
    }
    (largest < 1 << 62).then_some(largest)
}

/// Z3's work limit per validated rewrite (deterministic, about ten side conditions' worth).
const VALIDATION_RLIMIT: u64 = 3_000_000;

/// Proves `new == old` under the facts of `ranges` (and the premises of `old`, see the module docs).
pub fn validate(
    ranges: &mut Ranges,
    old: MlirValue,
    new: MlirValue,
    scoped: &[(MlirValue, Rel, Bound)],
    timeout_ms: u64,
) -> Verdict {
    validate_with(ranges, old, new, &[], scoped, timeout_ms)
}

/// [`validate`] where the premises of the program's values `evaluated` hold too (non-zero divisors; with
/// assume-no-wrap, sums and products that do not wrap): values the program computes wherever `old` is
/// computed (they dominate it), such as the existing division a shared one is derived from.
pub fn validate_with(
    ranges: &mut Ranges,
    old: MlirValue,
    new: MlirValue,
    evaluated: &[MlirValue],
    scoped: &[(MlirValue, Rel, Bound)],
    timeout_ms: u64,
) -> Verdict {
    let mut cones = vec![old, new];
    cones.extend_from_slice(evaluated);
    let width = match largest_value(ranges, &cones) {
        Some(largest) => (66 - largest.leading_zeros()).clamp(8, 64),
        None => 64,
    };
    tracing::debug!(target: "lego", "translation validation at {width} bits");
    let mut encoder = Encoder {
        divisions: HashMap::default(),
        definitions: Vec::new(),
        width,
        ranges,
        terms: HashMap::default(),
        leaves: Vec::new(),
        leaf_keys: HashSet::default(),
        premises: Vec::new(),
        no_wrap_premises: Vec::new(),
        collect_premises: true,
        ops: 0,
    };
    for value in evaluated {
        if encoder.value(*value).is_none() {
            return Verdict::Unknown("a value the rewrite relies on could not be encoded".into());
        }
    }
    let Some(old_term) = encoder.value(old) else { return Verdict::Unknown("the old value could not be encoded".into()) };
    encoder.collect_premises = false;
    let Some(new_term) = encoder.value(new) else { return Verdict::Unknown("the new value could not be encoded".into()) };
    // Root-scoped facts (dominating assumptions, disjoint promises) hold wherever the old value is defined.
    let mut scoped_facts = Vec::new();
    for (value, rel, bound) in scoped {
        let (Some(term), Some(other)) = (encoder.value(*value), encoder.index_bound(*bound)) else { continue };
        if term.width() != other.width() {
            continue;
        }
        scoped_facts.push(relation(&term, *rel, &other));
    }
    let mut facts = encoder.facts();
    facts.extend(encoder.premises.iter().cloned());
    facts.extend(encoder.definitions.iter().cloned());
    facts.extend(scoped_facts);
    let goal = new_term.eq(&old_term);
    let mut outcome = prove_with(&mut encoder, &goal, &facts, timeout_ms);
    if !matches!(outcome, Outcome::Proved) && !encoder.no_wrap_premises.is_empty() {
        // Not an identity under wrap-around: under assume-no-wrap it need only hold where the old value's
        // arithmetic does not wrap.
        facts.extend(encoder.no_wrap_premises.iter().cloned());
        outcome = prove_with(&mut encoder, &goal, &facts, timeout_ms);
    }
    match outcome {
        Outcome::Proved => Verdict::Proved,
        Outcome::Refuted(counterexample) => Verdict::Refuted(
            counterexample.assignment.iter().map(|(name, value)| format!("{name} = {value}")).collect::<Vec<_>>().join(", "),
        ),
        Outcome::Unknown(why) => Verdict::Unknown(why.to_string()),
    }
}

/// Z3 on `goal` under `facts`; when it cannot decide, a small input box is checked point by point instead
/// (bit-blasted division by a variable is hard for Z3; every point checked is a proof too).
/// Decided by Z3's deterministic work count (`VALIDATION_RLIMIT`); `timeout_ms` is the wall-clock safety net
/// (its unknown is reported by the caller).
fn prove_with(encoder: &mut Encoder, goal: &Term, facts: &[Term], timeout_ms: u64) -> Outcome {
    let mut outcome = lego_smt::prove_limited(&Query { goal, facts, observe: &[], timeout_ms }, VALIDATION_RLIMIT);
    if let Outcome::Unknown(_) = outcome {
        // Bit-blasted division by a variable is hard for Z3; a small input box is checked point by point
        // instead (every point: a proof too).
        let mut domains = Vec::new();
        for (position, leaf) in encoder.leaves.iter().enumerate() {
            let Some(interval) = encoder.ranges.interval(*leaf) else { continue };
            domains.push(lego_smt::Domain { name: format!("v{position}"), lo: interval.lo, hi: interval.hi.saturating_add(1) });
        }
        if let Outcome::Proved = lego_smt::exhaustive(goal, facts, &[], &domains, EXHAUSTIVE_LIMIT) {
            outcome = Outcome::Proved;
        }
    }
    outcome
}
