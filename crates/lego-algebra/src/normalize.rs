//! Desugaring into the core ops (`reg_p`, `gen_p`, `order_by`, `group_by`, plus `expand_by`), as the
//! `lego-normalization` pass does, so that the pass can be tested against it.

use crate::error::Result;
use crate::layout::{Dim, Layout, LayoutNode};

impl Layout {
    /// Rewrites `row`/`col`/`tile_by` everywhere in the tree, exactly as semantics.md defines them:
    /// - `row [n⃗]` → `reg_p perm [0, …, d-1] dims [n⃗]`, `col [n⃗]` → `reg_p perm [d-1, …, 0] dims [n⃗]`;
    /// - `tile_by L tile_dims [a⃗, b⃗, …]` → `group_by [a⃗, b⃗, …](L, order_by(reg_p perm σ dims [a⃗, b⃗, …]))`
    ///   with `σ = [0, d, 2d, …, 1, d+1, …]`;
    /// - `expand_by` stays, with its input normalized.
    ///
    /// The result has the same dims, `apply` and `apply_inverse`; normalizing twice changes nothing.
    /// Size entries keep their symbolic flags (tile sizes become the `group_by` and `reg_p` sizes).
    pub fn normalize(&self) -> Layout {
        // Every constructor below receives the sizes and sub-layouts of an already validated layout with
        // the same element counts, so it cannot fail; a failure would be a bug in this function.
        self.try_normalize().expect("normalizing a valid layout yields a valid layout")
    }

    fn try_normalize(&self) -> Result<Layout> {
        match self.node() {
            LayoutNode::Row { dims } => Layout::reg_p(0..dims.len(), dims),
            LayoutNode::Col { dims } => Layout::reg_p((0..dims.len()).rev(), dims),
            LayoutNode::RegP { .. } | LayoutNode::GenP { .. } => Ok(self.clone()),
            LayoutNode::OrderBy { parts } => Layout::order_by(parts.iter().map(Layout::normalize)),
            LayoutNode::GroupBy { dims, objects } => Layout::group_by(dims, objects.iter().map(Layout::normalize)),
            LayoutNode::TileBy { inner, tile_dims } => {
                let flat: Vec<Dim> = tile_dims.iter().flatten().copied().collect();
                let reorder = Layout::order_by([Layout::reg_p(tile_permutation(tile_dims), &flat)?])?;
                Layout::group_by(&flat, [inner.normalize(), reorder])
            }
            LayoutNode::ExpandBy { inner, dims, to } => Layout::expand_by(inner.normalize(), dims, to),
        }
    }
}

/// `σ = [0, d, 2d, …, 1, d+1, …]` for `q` levels of `d` dims: `σ[k·q + l] = l·d + k`, which gathers the
/// level-major logical sizes `[a⃗, b⃗, …]` into dim-major order `[a0, b0, …, a1, b1, …]`, so that the
/// `reg_p` flattens each full coordinate `c_k = B([a_k, b_k, …], …)` in row-major order over `dims(L)`.
pub fn tile_permutation(tile_dims: &[Vec<Dim>]) -> Vec<usize> {
    let q = tile_dims.len();
    let d = tile_dims.first().map_or(0, Vec::len);
    (0..d).flat_map(|k| (0..q).map(move |l| l * d + k)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_permutation_matches_the_spec_shape() {
        let level = |d: usize| vec![Dim::lit(1); d];
        // d = 2, q = 2: [0, d, 1, d+1] = [0, 2, 1, 3].
        assert_eq!(tile_permutation(&[level(2), level(2)]), vec![0, 2, 1, 3]);
        // d = 3, q = 2: [0, 3, 1, 4, 2, 5].
        assert_eq!(tile_permutation(&[level(3), level(3)]), vec![0, 3, 1, 4, 2, 5]);
        // d = 2, q = 3: [0, 2, 4, 1, 3, 5].
        assert_eq!(tile_permutation(&[level(2), level(2), level(2)]), vec![0, 2, 4, 1, 3, 5]);
    }

    #[test]
    fn normalize_rewrites_to_the_spec_shapes() -> Result<()> {
        assert_eq!(Layout::row([4, 8])?.normalize(), Layout::reg_p([0, 1], [4, 8])?);
        assert_eq!(Layout::col([4, 8, 2])?.normalize(), Layout::reg_p([2, 1, 0], [4, 8, 2])?);
        let inner = Layout::order_by([Layout::row([8, 12])?])?;
        let tiled = Layout::tile_by(inner, [[2, 4], [4, 3]])?;
        let expected = Layout::group_by(
            [2, 4, 4, 3],
            [
                Layout::order_by([Layout::reg_p([0, 1], [8, 12])?])?,
                Layout::order_by([Layout::reg_p([0, 2, 1, 3], [2, 4, 4, 3])?])?,
            ],
        )?;
        assert_eq!(tiled.normalize(), expected);
        Ok(())
    }

    #[test]
    fn normalize_keeps_symbolic_flags() -> Result<()> {
        let inner = Layout::order_by([Layout::row([Dim::sym(8), Dim::lit(12)])?])?;
        let tiled = Layout::tile_by(inner, [[Dim::sym(2), Dim::lit(4)], [Dim::lit(4), Dim::sym(3)]])?;
        let n = tiled.normalize();
        let LayoutNode::GroupBy { dims, objects } = n.node() else { panic!("expected group_by, got {n}") };
        assert_eq!(dims, &[Dim::sym(2), Dim::lit(4), Dim::lit(4), Dim::sym(3)]);
        assert_eq!(objects[0].symbolic_sizes(), vec![8]);
        assert_eq!(objects[1].symbolic_sizes(), vec![2, 3]);
        Ok(())
    }
}
