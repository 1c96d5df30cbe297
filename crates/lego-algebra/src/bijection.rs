//! Exhaustive bijectivity checking, the ground truth for small layouts.

use crate::error::{AlgebraError, Result};
use crate::eval::{mixed_radix_unflatten, NO_ELEMENT};
use crate::layout::Layout;

/// The outcome of [`Layout::check_bijective`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BijectivityReport {
    /// `apply` maps the logical indices that have an element one-to-one onto `[0, codomain_size())`, and
    /// (when `inverse_checked`) `apply_inverse` undoes it in both directions.
    Bijective {
        /// Logical indices enumerated (`numel()`).
        points: u64,
        /// Logical indices mapped to "no element" (`expand_by` padding); 0 for everything else.
        masked: u64,
        /// False for apply-only layouts, where only `apply` could be checked.
        inverse_checked: bool,
    },
    /// A counterexample, described with the indices involved.
    NotBijective { counterexample: String },
    /// `numel()` exceeds the enumeration budget; nothing was checked.
    Skipped { numel: u64, max_points: u64 },
}

impl BijectivityReport {
    pub fn is_bijective(&self) -> bool {
        matches!(self, BijectivityReport::Bijective { .. })
    }
}

impl Layout {
    /// Enumerates every logical index (when `numel() ≤ max_points`) and checks that `apply` is a
    /// permutation of `[0, codomain_size())` — skipping indices that map to "no element" — and, when the
    /// layout is invertible, that `apply_inverse(apply(i⃗)) = i⃗` and `apply(apply_inverse(x)) = x`.
    ///
    /// Evaluation errors of the layout's own maps (e.g. a `Custom` inverse returning the wrong arity) are
    /// counterexamples, not errors; `Err` is reserved for failures of the check itself.
    pub fn check_bijective(&self, max_points: u64) -> Result<BijectivityReport> {
        let numel = self.numel();
        if numel > max_points {
            return Ok(BijectivityReport::Skipped { numel, max_points });
        }
        let codomain = self.codomain_size();
        // The codomain is never larger than numel (≤ max_points), so the bitmap stays within the budget.
        let len = usize::try_from(codomain).map_err(|_| AlgebraError::Overflow("the size of the bijectivity bitmap"))?;
        let mut hit = vec![false; len];
        let not_bijective = |counterexample: String| Ok(BijectivityReport::NotBijective { counterexample });
        let mut masked = 0;
        let mut covered = 0u64;
        for point in 0..numel {
            let index = mixed_radix_unflatten(self.dims(), point);
            let flat = match self.apply(&index) {
                Ok(flat) => flat,
                Err(e) => return not_bijective(format!("apply{index:?} failed: {e}")),
            };
            if flat == NO_ELEMENT {
                masked += 1;
                continue;
            }
            let Some(slot) = usize::try_from(flat).ok().and_then(|f| hit.get_mut(f)) else {
                return not_bijective(format!("apply{index:?} = {flat} is outside [0, {codomain})"));
            };
            if *slot {
                let other = self.first_preimage(flat, point);
                return not_bijective(format!("apply{index:?} = {flat} = apply{other:?}: not injective"));
            }
            *slot = true;
            covered += 1;
            if self.is_invertible() {
                match self.apply_inverse(flat) {
                    Ok(back) if back == index => {}
                    Ok(back) => {
                        return not_bijective(format!("apply{index:?} = {flat} but apply_inverse({flat}) = {back:?}"))
                    }
                    Err(e) => return not_bijective(format!("apply{index:?} = {flat} but apply_inverse({flat}) failed: {e}")),
                }
            }
        }
        if covered != codomain {
            let missing = hit.iter().position(|h| !h).unwrap_or(hit.len());
            return not_bijective(format!("no logical index maps to {missing}: apply is not onto [0, {codomain})"));
        }
        // Every x < codomain was hit and inverted correctly above, so apply(inv(x)) = x holds as well.
        Ok(BijectivityReport::Bijective { points: numel, masked, inverse_checked: self.is_invertible() })
    }

    /// The first logical index (in row-major order, before `limit`) that maps to `flat`; for messages.
    fn first_preimage(&self, flat: u64, limit: u64) -> Vec<u64> {
        (0..limit)
            .map(|p| mixed_radix_unflatten(self.dims(), p))
            .find(|index| self.apply(index).ok() == Some(flat))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::genfn::GenFn;
    use std::sync::Arc;

    #[test]
    fn detects_a_non_injective_map() -> Result<()> {
        // Broadcast-like: every row maps to the same flat indices.
        let bcast = Layout::gen_p([2, 3], GenFn::custom("bcast", |i: &[u64]| i[1], None))?;
        let report = bcast.check_bijective(100)?;
        let BijectivityReport::NotBijective { counterexample } = report else { panic!("{report:?}") };
        assert!(counterexample.contains("[1, 0]") && counterexample.contains("[0, 0]"), "{counterexample}");
        Ok(())
    }

    #[test]
    fn detects_a_wrong_inverse() -> Result<()> {
        let wrong = GenFn::Custom {
            name: "wrong".into(),
            apply: Arc::new(|i: &[u64]| i[0] * 3 + i[1]),
            inverse: Some(Arc::new(|x: u64| vec![x % 2, x / 2])),
        };
        let report = Layout::gen_p([2, 3], wrong)?.check_bijective(100)?;
        assert!(!report.is_bijective(), "{report:?}");
        Ok(())
    }

    #[test]
    fn apply_only_permutation_checks_apply_only() -> Result<()> {
        let swap = Layout::gen_p([2, 3], GenFn::custom("t", |i: &[u64]| i[1] * 2 + i[0], None))?;
        assert_eq!(
            swap.check_bijective(100)?,
            BijectivityReport::Bijective { points: 6, masked: 0, inverse_checked: false }
        );
        Ok(())
    }

    #[test]
    fn skips_large_layouts() -> Result<()> {
        let big = Layout::row([1000, 1000])?;
        assert_eq!(big.check_bijective(10)?, BijectivityReport::Skipped { numel: 1_000_000, max_points: 10 });
        Ok(())
    }
}
