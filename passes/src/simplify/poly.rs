//! Index expressions as polynomials over atoms, exact for 64-bit wrap-around arithmetic.
//!
//! A [`Poly`] is a sum of monomials `c · a1 · a2 · …` with coefficients modulo 2^64 (so `+`, `−`, `·`,
//! re-association and distribution are exact for `index` arithmetic). Atoms are opaque values (function
//! arguments, loads, anything not arithmetic) and unsigned divisions / remainders of polynomials. Only the
//! division and remainder rules need the *mathematical* value of a polynomial; for that every coefficient is
//! read as its signed representative (`−1` rather than `2^64 − 1`), and a rule that relies on the value
//! first proves it lies in `[0, 2^64)` — then the wrapped value and the mathematical one agree.

pub type AtomId = usize;

/// A monomial: the multiset of its atoms, sorted (empty for the constant term). Most have one or two atoms:
/// kept inline, so that building, cloning and dropping polynomials does not allocate per term.
pub type Monomial = smallvec::SmallVec<[AtomId; 2]>;

/// The terms, sorted by monomial (each monomial once, no zero coefficient): the order a map by monomial would
/// iterate in, in one vector (polynomials are small, and cloned, hashed and dropped millions of times per
/// module; a `BTreeMap` made each of those a tree walk).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Poly {
    terms: Vec<(Monomial, u64)>,
}

/// The signed representative of a coefficient.
pub fn signed(coefficient: u64) -> i128 {
    coefficient as i64 as i128
}

impl Poly {
    pub fn zero() -> Poly {
        Poly::default()
    }

    pub fn constant(value: u64) -> Poly {
        let mut poly = Poly::zero();
        poly.add_term(Monomial::new(), value);
        poly
    }

    pub fn atom(atom: AtomId) -> Poly {
        let mut poly = Poly::zero();
        poly.add_term(smallvec::smallvec![atom], 1);
        poly
    }

    pub fn monomial(monomial: Monomial, coefficient: u64) -> Poly {
        let mut poly = Poly::zero();
        poly.add_term(monomial, coefficient);
        poly
    }

    pub fn add_term(&mut self, mut monomial: Monomial, coefficient: u64) {
        monomial.sort_unstable();
        match self.terms.binary_search_by(|(m, _)| m.cmp(&monomial)) {
            Ok(index) => {
                let updated = self.terms[index].1.wrapping_add(coefficient);
                if updated == 0 {
                    self.terms.remove(index);
                } else {
                    self.terms[index].1 = updated;
                }
            }
            Err(index) => {
                if coefficient != 0 {
                    self.terms.insert(index, (monomial, coefficient));
                }
            }
        }
    }

    pub fn terms(&self) -> impl Iterator<Item = (&Monomial, u64)> {
        self.terms.iter().map(|(monomial, coefficient)| (monomial, *coefficient))
    }

    pub fn len(&self) -> usize {
        self.terms.len()
    }

    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    pub fn coefficient(&self, monomial: &[AtomId]) -> u64 {
        match self.terms.binary_search_by(|(m, _)| m.as_slice().cmp(monomial)) {
            Ok(index) => self.terms[index].1,
            Err(_) => 0,
        }
    }

    pub fn as_constant(&self) -> Option<u64> {
        match self.terms.as_slice() {
            [] => Some(0),
            [(monomial, coefficient)] if monomial.is_empty() => Some(*coefficient),
            _ => None,
        }
    }

    /// `Some(atom)` when the polynomial is exactly one atom.
    pub fn as_atom(&self) -> Option<AtomId> {
        let (monomial, coefficient) = self.single()?;
        (coefficient == 1 && monomial.len() == 1).then(|| monomial[0])
    }

    pub fn single(&self) -> Option<(&Monomial, u64)> {
        (self.terms.len() == 1).then(|| self.terms().next()).flatten()
    }

    pub fn add(&self, other: &Poly) -> Poly {
        let mut sum = self.clone();
        for (monomial, coefficient) in other.terms() {
            sum.add_term(monomial.clone(), coefficient);
        }
        sum
    }

    pub fn scale(&self, factor: u64) -> Poly {
        let mut scaled = Poly::zero();
        for (monomial, coefficient) in self.terms() {
            scaled.add_term(monomial.clone(), coefficient.wrapping_mul(factor));
        }
        scaled
    }

    pub fn neg(&self) -> Poly {
        self.scale(u64::MAX)
    }

    pub fn sub(&self, other: &Poly) -> Poly {
        self.add(&other.neg())
    }

    /// The product, or `None` when it would have more than `limit` monomials.
    pub fn mul(&self, other: &Poly, limit: usize) -> Option<Poly> {
        if self.len().saturating_mul(other.len()) > limit.saturating_mul(4) {
            return None;
        }
        let mut product = Poly::zero();
        for (a, ca) in self.terms() {
            for (b, cb) in other.terms() {
                let mut monomial = a.clone();
                monomial.extend_from_slice(b);
                product.add_term(monomial, ca.wrapping_mul(cb));
            }
        }
        (product.len() <= limit).then_some(product)
    }

    /// Multiplies by a monomial.
    pub fn times_monomial(&self, monomial: &[AtomId], coefficient: u64) -> Poly {
        let mut product = Poly::zero();
        for (m, c) in self.terms() {
            let mut combined = m.clone();
            combined.extend_from_slice(monomial);
            product.add_term(combined, c.wrapping_mul(coefficient));
        }
        product
    }

    /// Atoms occurring anywhere in the polynomial (not inside atoms).
    pub fn atoms(&self) -> Vec<AtomId> {
        let mut atoms: Vec<AtomId> = self.terms.iter().flat_map(|(monomial, _)| monomial.iter().copied()).collect();
        atoms.sort_unstable();
        atoms.dedup();
        atoms
    }

    pub fn degree(&self) -> usize {
        self.terms.iter().map(|(monomial, _)| monomial.len()).max().unwrap_or(0)
    }

    /// Splits `self = divisor · quotient + rest` for a one-monomial divisor `c_d · m_d`: a monomial goes to the
    /// quotient when it contains `m_d` and its signed coefficient is a multiple of `c_d` (as integers, so the
    /// identity holds over ℤ for the signed representatives). `None` when the divisor is not one monomial
    /// with a positive coefficient.
    pub fn split(&self, divisor: &Poly) -> Option<(Poly, Poly)> {
        let (divisor_monomial, divisor_coefficient) = divisor.single()?;
        let dc = signed(divisor_coefficient);
        if dc <= 0 {
            return None;
        }
        let mut quotient = Poly::zero();
        let mut rest = Poly::zero();
        for (monomial, coefficient) in self.terms() {
            let c = signed(coefficient);
            match remove_sub_multiset(monomial, divisor_monomial) {
                Some(cofactor) if c % dc == 0 => quotient.add_term(cofactor, (c / dc) as i64 as u64),
                _ => rest.add_term(monomial.clone(), coefficient),
            }
        }
        Some((quotient, rest))
    }
}

/// `monomial − part` as multisets, if `part ⊆ monomial`.
pub fn remove_sub_multiset(monomial: &[AtomId], part: &[AtomId]) -> Option<Monomial> {
    let mut rest = Monomial::from_slice(monomial);
    for atom in part {
        let position = rest.iter().position(|candidate| candidate == atom)?;
        rest.remove(position);
    }
    Some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_operations_wrap() {
        let x = Poly::atom(0);
        let y = Poly::atom(1);
        let sum = x.add(&y).sub(&x);
        assert_eq!(sum, y);
        let product = x.add(&Poly::constant(1)).mul(&x.sub(&Poly::constant(1)), 16).unwrap();
        // (x + 1)(x − 1) = x² − 1
        assert_eq!(product, Poly::monomial(smallvec::smallvec![0, 0], 1).sub(&Poly::constant(1)));
        assert_eq!(Poly::constant(u64::MAX).add(&Poly::constant(1)), Poly::zero());
    }

    #[test]
    fn split_by_monomials() {
        // 8·i + 4·j + k + 12 split by 4: quotient 2·i + j + 3, rest k.
        let p = Poly::atom(0).scale(8).add(&Poly::atom(1).scale(4)).add(&Poly::atom(2)).add(&Poly::constant(12));
        let (q, r) = p.split(&Poly::constant(4)).unwrap();
        assert_eq!(q, Poly::atom(0).scale(2).add(&Poly::atom(1)).add(&Poly::constant(3)));
        assert_eq!(r, Poly::atom(2));
        // i·s + j split by s.
        let p = Poly::monomial(smallvec::smallvec![0, 3], 1).add(&Poly::atom(1));
        let (q, r) = p.split(&Poly::atom(3)).unwrap();
        assert_eq!(q, Poly::atom(0));
        assert_eq!(r, Poly::atom(1));
        // negative coefficients split over ℤ: −4·i = 4·(−i)
        let p = Poly::atom(0).scale(4).neg();
        let (q, r) = p.split(&Poly::constant(4)).unwrap();
        assert_eq!(q, Poly::atom(0).neg());
        assert!(r.is_zero());
    }
}
