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
use lego_smt::{Outcome, Query, Term};
use mlir_sys::MlirValue;
use std::collections::{HashMap, HashSet};

pub enum Verdict {
    Proved,
    Refuted(String),
    Unknown(String),
}

struct Encoder<'r> {
    ranges: &'r mut Ranges,
    terms: HashMap<Key, Term>,
    leaves: Vec<MlirValue>,
    leaf_keys: HashSet<Key>,
    /// Assumptions about the old value (its divisors, its disjoint promises).
    premises: Vec<Term>,
    collect_premises: bool,
    ops: usize,
}

const MAX_OPS: usize = 2_000;

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
            Bound::Const(value) => Some(Term::index(value)),
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
            "arith.addi" => binary(self, Term::add),
            "arith.subi" => binary(self, Term::sub),
            "arith.muli" => binary(self, Term::mul),
            "arith.shli" => binary(self, Term::shl),
            "arith.shrui" => binary(self, Term::lshr),
            "arith.andi" => binary(self, Term::bitand),
            "arith.ori" => binary(self, Term::bitor),
            "arith.xori" => binary(self, Term::bitxor),
            "arith.divui" | "arith.remui" => {
                let (a, b) = (operand(self, 0)?, operand(self, 1)?);
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
                        self.premises.push(Term::cmp(lego_smt::Pred::Sgt, &size, &Term::index(0)));
                    }
                    sizes.push(size);
                }
                let mut divisor = Term::index(1);
                for k in index + 1..results {
                    divisor = divisor.mul(sizes.get(k - offset)?);
                }
                let quotient = floor_div(&x, &divisor);
                if index == 0 {
                    return Some(Some(quotient));
                }
                Some(Some(floor_mod(&quotient, sizes.get(index - offset)?)))
            }
            _ => Some(None),
        }
    }

    fn facts(&mut self) -> Vec<Term> {
        let mut facts = Vec::new();
        let mut next = 0;
        while next < self.leaves.len() && next < 64 {
            let value = self.leaves[next];
            next += 1;
            let Some(width) = ir::width(value) else { continue };
            let Some(term) = self.terms.get(&ir::key(value)).cloned() else { continue };
            if let Some(interval) = self.ranges.interval(value) {
                if interval.lo > 0 {
                    facts.push(term.uge(&Term::constant(interval.lo, width)));
                }
                if interval.hi < max_of(width) {
                    facts.push(term.ule(&Term::constant(interval.hi, width)));
                }
            }
            for (rel, other) in self.ranges.relations(value) {
                if ir::width(other) != Some(width) {
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
fn floor_div(x: &Term, divisor: &Term) -> Term {
    let quotient = Term::bin(lego_smt::BinOp::DivS, x, divisor);
    let remainder = Term::bin(lego_smt::BinOp::RemS, x, divisor);
    let negative = Term::cmp(lego_smt::Pred::Slt, &remainder, &Term::index(0));
    Term::select(&negative, &quotient.sub(&Term::index(1)), &quotient)
}

/// Non-negative modulo (affine `mod`) for a positive divisor.
fn floor_mod(x: &Term, divisor: &Term) -> Term {
    let remainder = Term::bin(lego_smt::BinOp::RemS, x, divisor);
    let negative = Term::cmp(lego_smt::Pred::Slt, &remainder, &Term::index(0));
    Term::select(&negative, &remainder.add(divisor), &remainder)
}

/// Proves `new == old` under the facts of `ranges` (and the premises of `old`, see the module docs).
pub fn validate(
    ranges: &mut Ranges,
    old: MlirValue,
    new: MlirValue,
    scoped: &[(MlirValue, Rel, Bound)],
    timeout_ms: u64,
) -> Verdict {
    let mut encoder = Encoder {
        ranges,
        terms: HashMap::new(),
        leaves: Vec::new(),
        leaf_keys: HashSet::new(),
        premises: Vec::new(),
        collect_premises: true,
        ops: 0,
    };
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
    facts.extend(scoped_facts);
    let goal = new_term.eq(&old_term);
    match lego_smt::prove(&Query { goal: &goal, facts: &facts, observe: &[], timeout_ms }) {
        Outcome::Proved => Verdict::Proved,
        Outcome::Refuted(counterexample) => Verdict::Refuted(
            counterexample.assignment.iter().map(|(name, value)| format!("{name} = {value}")).collect::<Vec<_>>().join(", "),
        ),
        Outcome::Unknown(why) => Verdict::Unknown(why.to_string()),
    }
}
