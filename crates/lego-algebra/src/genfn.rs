//! User-defined maps for `gen_p`: the named kinds of the paper's examples and arbitrary closures.

use std::fmt;
use std::sync::Arc;

use crate::error::{AlgebraError, Result};

/// The apply function of a `Custom` gen_p: logical index → flat index.
pub type ApplyFn = Arc<dyn Fn(&[u64]) -> u64 + Send + Sync>;
/// The inverse function of a `Custom` gen_p: flat index → logical index.
pub type InverseFn = Arc<dyn Fn(u64) -> Vec<u64> + Send + Sync>;

/// The map of a `gen_p` layout.
///
/// The named kinds carry their parameters so that they can be printed, compared and emitted as MLIR
/// `arith` bodies; `Custom` is an opaque closure pair used for experiments and for apply-only
/// (injective, non-invertible) maps.
#[derive(Clone)]
pub enum GenFn {
    /// Reverse both axes of an `n1 × n2` row-major array:
    /// `f(i, j) = (n1-1-i)·n2 + (n2-1-j)`, `g(x) = (n1-1 - x div n2, n2-1 - x mod n2)`.
    Rev { n1: u64, n2: u64 },
    /// The anti-diagonal order of an `n × n` array (paper Fig. 7).
    Antidiag { n: u64 },
    /// An arbitrary map. `inverse: None` makes the layout apply-only.
    Custom {
        /// A label for diagnostics and printing.
        name: Arc<str>,
        apply: ApplyFn,
        inverse: Option<InverseFn>,
    },
}

impl GenFn {
    /// A `Custom` map from closures.
    pub fn custom(
        name: impl Into<Arc<str>>,
        apply: impl Fn(&[u64]) -> u64 + Send + Sync + 'static,
        inverse: Option<InverseFn>,
    ) -> Self {
        GenFn::Custom { name: name.into(), apply: Arc::new(apply), inverse }
    }

    /// Whether the map has an inverse.
    pub fn is_invertible(&self) -> bool {
        match self {
            GenFn::Rev { .. } | GenFn::Antidiag { .. } => true,
            GenFn::Custom { inverse, .. } => inverse.is_some(),
        }
    }

    /// The dims a named kind requires, or `None` for `Custom` (any dims).
    pub fn required_dims(&self) -> Option<Vec<u64>> {
        match *self {
            GenFn::Rev { n1, n2 } => Some(vec![n1, n2]),
            GenFn::Antidiag { n } => Some(vec![n, n]),
            GenFn::Custom { .. } => None,
        }
    }

    /// Checks parameter ranges that the dims check does not cover.
    pub(crate) fn validate(&self) -> Result<()> {
        if let GenFn::Antidiag { n } = *self {
            // The inverse computes isqrt(8z + 1) with z < n(n+1)/2, i.e. values below (2n + 1)²; keeping
            // n < 2^31 keeps that (and the emitted arith, which squares candidates < 2^32) inside u64.
            if n >= ANTIDIAG_MAX_N {
                return Err(AlgebraError::GenParameter {
                    kind: self.to_string(),
                    reason: format!("size must be below {ANTIDIAG_MAX_N}"),
                });
            }
        }
        Ok(())
    }

    /// Evaluates the map on an in-range index of the right length.
    pub(crate) fn apply(&self, index: &[u64]) -> u64 {
        match *self {
            GenFn::Rev { n1, n2 } => rev_apply(n1, n2, index[0], index[1]),
            GenFn::Antidiag { n } => antidiag_apply(n, index[0], index[1]),
            GenFn::Custom { ref apply, .. } => apply(index),
        }
    }

    /// Evaluates the inverse on an in-range flat index; `rank` is the expected result length.
    pub(crate) fn apply_inverse(&self, flat: u64, rank: usize) -> Result<Vec<u64>> {
        match *self {
            GenFn::Rev { n1, n2 } => Ok(rev_inverse(n1, n2, flat).to_vec()),
            GenFn::Antidiag { n } => Ok(antidiag_inverse(n, flat).to_vec()),
            GenFn::Custom { ref name, ref inverse, .. } => {
                let inverse = inverse.as_ref().ok_or_else(|| AlgebraError::NotInvertible(self.to_string()))?;
                let result = inverse(flat);
                if result.len() != rank {
                    return Err(AlgebraError::GenInverseArity {
                        name: name.to_string(),
                        found: result.len(),
                        expected: rank,
                    });
                }
                Ok(result)
            }
        }
    }
}

/// Exclusive upper bound on the size `n` of `antidiag(n)`: its inverse takes `isqrt(8z + 1)` with
/// `z < n(n+1)/2`, which must stay inside `u64` (`index`), also in the emitted `arith`.
pub const ANTIDIAG_MAX_N: u64 = 1 << 31;

impl fmt::Display for GenFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenFn::Rev { n1, n2 } => write!(f, "rev({n1}, {n2})"),
            GenFn::Antidiag { n } => write!(f, "antidiag({n})"),
            GenFn::Custom { name, inverse: Some(_), .. } => write!(f, "custom({name})"),
            GenFn::Custom { name, inverse: None, .. } => write!(f, "custom({name}, apply-only)"),
        }
    }
}

impl fmt::Debug for GenFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Named kinds compare by parameters; closures compare by identity, since functions have no equality.
impl PartialEq for GenFn {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (GenFn::Rev { n1: a1, n2: a2 }, GenFn::Rev { n1: b1, n2: b2 }) => a1 == b1 && a2 == b2,
            (GenFn::Antidiag { n: a }, GenFn::Antidiag { n: b }) => a == b,
            (
                GenFn::Custom { name: na, apply: aa, inverse: ia },
                GenFn::Custom { name: nb, apply: ab, inverse: ib },
            ) => {
                na == nb
                    && Arc::ptr_eq(aa, ab)
                    && match (ia, ib) {
                        (Some(x), Some(y)) => Arc::ptr_eq(x, y),
                        (None, None) => true,
                        _ => false,
                    }
            }
            _ => false,
        }
    }
}

/// `rev(n1, n2)` apply; callers guarantee `i < n1`, `j < n2`.
pub(crate) fn rev_apply(n1: u64, n2: u64, i: u64, j: u64) -> u64 {
    (n1 - 1 - i) * n2 + (n2 - 1 - j)
}

/// `rev(n1, n2)` inverse; callers guarantee `x < n1·n2`.
pub(crate) fn rev_inverse(n1: u64, n2: u64, x: u64) -> [u64; 2] {
    [n1 - 1 - x / n2, n2 - 1 - x % n2]
}

/// `antidiag(n)` apply (paper Fig. 7); callers guarantee `i, j < n`.
///
/// Anti-diagonal `a = i + j + 1` (1-based). Diagonals `1..a-1` hold `a(a-1)/2` cells, so in the upper
/// triangle the cell is number `i` of its diagonal after those. In the lower triangle count from the end:
/// with `a' = 2n - a`, the diagonals after `a` hold `a'(a'-1)/2` cells, which gives the reference's
/// `n·n - n + i - a'(a'-1)/2`.
pub(crate) fn antidiag_apply(n: u64, i: u64, j: u64) -> u64 {
    let a = i + j + 1;
    if a <= n {
        i + a * (a - 1) / 2
    } else {
        let a2 = 2 * n - a;
        n * n - n + i - a2 * (a2 - 1) / 2
    }
}

/// `antidiag(n)` inverse; callers guarantee `x < n·n`.
///
/// The upper triangle (diagonals `1..=n`) holds the first `n(n+1)/2` flat indices, and there
/// `x = a(a-1)/2 + i` with `0 ≤ i < a`, so `a` is the largest integer with `a(a-1)/2 ≤ x`, which is
/// `(isqrt(8x+1) + 1) div 2` (because `(2a-1)² ≤ 8x+1 < (2a+1)²`). The lower triangle is the same
/// structure read backwards: `y = n·n-1-x = a'(a'-1)/2 + (n-1-i)` with `0 ≤ n-1-i < a'`.
/// This is the formula the MLIR emitter writes in `arith`, with `z` selecting `x` or `y`.
pub(crate) fn antidiag_inverse(n: u64, x: u64) -> [u64; 2] {
    let upper = x < n * (n + 1) / 2;
    let z = if upper { x } else { n * n - 1 - x };
    let a = isqrt(8 * z + 1).div_ceil(2);
    let d = z - a * (a - 1) / 2;
    if upper {
        [d, a - 1 - d]
    } else {
        // a is a' here: the diagonal is 2n - a', and j = (2n - a' - 1) - i with i = n-1-d.
        [n - 1 - d, n - a + d]
    }
}

/// Floor of the square root, exact for every `u64`.
pub fn isqrt(v: u64) -> u64 {
    if v < 2 {
        return v;
    }
    // A float estimate is within a few units for all u64; the correction loops make it exact.
    // `s > v / s` is `s² > v` without overflow (s ≥ 1 here, since v ≥ 2 has sqrt ≥ 1).
    let mut s = ((v as f64).sqrt() as u64).max(1);
    while s > v / s {
        s -= 1;
    }
    while s < v / (s + 1) {
        s += 1;
    }
    s
}

/// Number of bits needed to write `v` (0 for 0).
pub(crate) fn bit_length(v: u64) -> u32 {
    u64::BITS - v.leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isqrt_is_exact() {
        for v in 0..100_000u64 {
            let s = isqrt(v);
            assert!(s * s <= v && (s + 1) * (s + 1) > v, "isqrt({v}) = {s}");
        }
        for v in [u64::MAX, u64::MAX - 1, (1u64 << 32) * (1u64 << 31), 4294967295 * 4294967295] {
            let s = isqrt(v);
            assert!(s * s <= v, "isqrt({v}) = {s}");
            assert!(!matches!((s + 1).checked_mul(s + 1), Some(sq) if sq <= v), "isqrt({v}) = {s}");
        }
    }

    #[test]
    fn antidiag_4_matches_the_spec_table() {
        // docs/reference/semantics.md: antidiag(4) laid out by rows.
        let expected = [[0, 1, 3, 6], [2, 4, 7, 10], [5, 8, 11, 13], [9, 12, 14, 15]];
        for (i, row) in expected.iter().enumerate() {
            for (j, &f) in row.iter().enumerate() {
                assert_eq!(antidiag_apply(4, i as u64, j as u64), f, "antidiag(4)({i}, {j})");
                assert_eq!(antidiag_inverse(4, f), [i as u64, j as u64], "antidiag(4)⁻¹({f})");
            }
        }
    }

    /// Characterises antidiag independently of the closed form: cells are numbered in the order of
    /// (anti-diagonal, row). Also checks the inverse exhaustively for every n up to 64.
    #[test]
    fn antidiag_is_the_antidiagonal_order_and_inverse_is_exact_up_to_64() {
        for n in 1..=64u64 {
            let mut cells: Vec<(u64, u64)> = (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).collect();
            cells.sort_by_key(|&(i, j)| (i + j, i));
            for (expected, &(i, j)) in cells.iter().enumerate() {
                let f = antidiag_apply(n, i, j);
                assert_eq!(f, expected as u64, "antidiag({n})({i}, {j})");
                assert_eq!(antidiag_inverse(n, f), [i, j], "antidiag({n})⁻¹({f})");
            }
        }
    }

    #[test]
    fn rev_matches_hand_values() {
        // rev(3, 2): (0,0) is the last element, (2,1) the first; (1,0) -> (3-1-1)*2 + (2-1-0) = 3.
        assert_eq!(rev_apply(3, 2, 0, 0), 5);
        assert_eq!(rev_apply(3, 2, 2, 1), 0);
        assert_eq!(rev_apply(3, 2, 1, 0), 3);
        assert_eq!(rev_inverse(3, 2, 3), [1, 0]);
        for x in 0..6 {
            let [i, j] = rev_inverse(3, 2, x);
            assert_eq!(rev_apply(3, 2, i, j), x);
        }
    }

    #[test]
    fn custom_equality_is_by_identity() {
        let a = GenFn::custom("f", |i: &[u64]| i[0], None);
        let b = GenFn::custom("f", |i: &[u64]| i[0], None);
        assert_eq!(a, a.clone());
        assert_ne!(a, b);
        assert_eq!(GenFn::Rev { n1: 2, n2: 3 }, GenFn::Rev { n1: 2, n2: 3 });
        assert_ne!(GenFn::Rev { n1: 2, n2: 3 }, GenFn::Rev { n1: 3, n2: 2 });
    }
}
