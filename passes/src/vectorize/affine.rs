//! An access index as `coeff·iv + constant + Σ cᵢ·tᵢ` over loop-invariant SSA values `tᵢ`, or nothing.
//!
//! Unlike the published solver, invariant terms keep their coefficients (so `A[i + 2·N]` and `A[i + N]` are
//! told apart, spec §10 D4) and the sums are normalized (sorted by value), so two accesses whose indices
//! differ only in how the sum was written compare equal. All arithmetic is checked: an overflow makes the
//! index non-affine, never wrong.

use crate::simplify::ir::{self, HashMap, Key};
use mlir_sys::MlirValue;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Affine {
    pub coeff: i64,
    pub constant: i64,
    /// Invariant value (by key) → coefficient; no zero coefficients.
    pub terms: BTreeMap<Key, i64>,
}

impl Affine {
    fn constant(value: i64) -> Affine {
        Affine { coeff: 0, constant: value, terms: BTreeMap::new() }
    }

    fn term(value: MlirValue) -> Affine {
        Affine { coeff: 0, constant: 0, terms: BTreeMap::from([(ir::key(value), 1)]) }
    }

    fn is_constant(&self) -> bool {
        self.coeff == 0 && self.terms.is_empty()
    }

    fn add(&self, other: &Affine, sign: i64) -> Option<Affine> {
        let mut terms = self.terms.clone();
        for (key, coefficient) in &other.terms {
            let entry = terms.entry(*key).or_insert(0);
            *entry = entry.checked_add(coefficient.checked_mul(sign)?)?;
            if *entry == 0 {
                terms.remove(key);
            }
        }
        Some(Affine {
            coeff: self.coeff.checked_add(other.coeff.checked_mul(sign)?)?,
            constant: self.constant.checked_add(other.constant.checked_mul(sign)?)?,
            terms,
        })
    }

    fn scale(&self, factor: i64) -> Option<Affine> {
        if factor == 0 {
            return Some(Affine::constant(0));
        }
        let mut terms = BTreeMap::new();
        for (key, coefficient) in &self.terms {
            terms.insert(*key, coefficient.checked_mul(factor)?);
        }
        Some(Affine { coeff: self.coeff.checked_mul(factor)?, constant: self.constant.checked_mul(factor)?, terms })
    }
}

/// Past this depth an index is not decomposed (keeps the native stack small; the value becomes non-affine
/// or, when invariant, one opaque term).
const MAX_DEPTH: usize = 48;

/// Memoized decomposition relative to one induction variable.
pub struct AffineCache {
    iv: MlirValue,
    memo: HashMap<Key, Option<Affine>>,
}

impl AffineCache {
    pub fn new(iv: MlirValue) -> AffineCache {
        AffineCache { iv, memo: HashMap::default() }
    }

    pub fn get(&mut self, value: MlirValue) -> Option<Affine> {
        self.at(value, 0)
    }

    fn depends_on_iv(&self, value: MlirValue, depth: usize) -> bool {
        // Conservative: anything too deep to look at counts as depending.
        if ir::key(value) == ir::key(self.iv) {
            return true;
        }
        if depth > MAX_DEPTH {
            return true;
        }
        match ir::defining_op(value) {
            None => false,
            Some(op) => {
                // Only ops of the loop's body (or nested in it) can depend on the IV.
                if !self.inside_loop(op) {
                    return false;
                }
                ir::operands(op).into_iter().any(|operand| self.depends_on_iv(operand, depth + 1))
            }
        }
    }

    fn inside_loop(&self, op: mlir_sys::MlirOperation) -> bool {
        ir::block_argument(self.iv).is_some_and(|(block, _)| ir::block_encloses(block, op))
    }

    fn at(&mut self, value: MlirValue, depth: usize) -> Option<Affine> {
        if let Some(known) = self.memo.get(&ir::key(value)) {
            return known.clone();
        }
        let result = self.compute(value, depth);
        self.memo.insert(ir::key(value), result.clone());
        result
    }

    fn compute(&mut self, value: MlirValue, depth: usize) -> Option<Affine> {
        if ir::key(value) == ir::key(self.iv) {
            return Some(Affine { coeff: 1, constant: 0, terms: BTreeMap::new() });
        }
        let opaque = |this: &Self| (!this.depends_on_iv(value, depth)).then(|| Affine::term(value));
        if depth > MAX_DEPTH {
            return opaque(self);
        }
        let Some(op) = ir::defining_op(value) else { return opaque(self) };
        let operand = |index| ir::operand(op, index);
        let decomposed = match ir::op_name(op) {
            "arith.constant" => ir::integer_attribute(op, "value").map(Affine::constant),
            "arith.index_cast" | "arith.index_castui" => operand(0).and_then(|source| self.at(source, depth + 1)),
            "arith.addi" | "arith.subi" => {
                let sign = if ir::op_name(op) == "arith.addi" { 1 } else { -1 };
                match (operand(0), operand(1)) {
                    (Some(lhs), Some(rhs)) => match (self.at(lhs, depth + 1), self.at(rhs, depth + 1)) {
                        (Some(lhs), Some(rhs)) => lhs.add(&rhs, sign),
                        _ => None,
                    },
                    _ => None,
                }
            }
            "arith.muli" => match (operand(0), operand(1)) {
                (Some(lhs), Some(rhs)) => match (self.at(lhs, depth + 1), self.at(rhs, depth + 1)) {
                    (Some(lhs), Some(rhs)) if rhs.is_constant() => lhs.scale(rhs.constant),
                    (Some(lhs), Some(rhs)) if lhs.is_constant() => rhs.scale(lhs.constant),
                    _ => None,
                },
                _ => None,
            },
            "arith.shli" => match (operand(0), operand(1).and_then(|amount| self.at(amount, depth + 1))) {
                (Some(lhs), Some(amount)) if amount.is_constant() && (0..62).contains(&amount.constant) => {
                    self.at(lhs, depth + 1).and_then(|lhs| lhs.scale(1i64 << amount.constant))
                }
                _ => None,
            },
            _ => None,
        };
        decomposed.or_else(|| opaque(self))
    }
}
