//! Desugaring into the core ops (`reg_p`, `gen_p`, `order_by`, `group_by`, plus `expand_by`), as the
//! `lego-normalization` pass does, so that the pass can be tested against it.

use crate::error::Result;
use crate::layout::{Dim, Layout, LayoutNode};

impl Layout {
    /// Rewrites `row`/`col`/`tile_by` everywhere in the tree, exactly as docs/reference/semantics.md defines them:
    /// - `row [n⃗]` → `reg_p perm [0, …, d-1] dims [n⃗]`, `col [n⃗]` → `reg_p perm [d-1, …, 0] dims [n⃗]`;
    /// - `tile_by O tile_dims [t⃗]`: the identity shortcut (every tile dim of level `h` is the same literal as dim
    ///   `k` of block `h`, as many levels as blocks) → `O`; otherwise the normal form of docs/reference/semantics.md,
    ///   `group_by [t⃗](O, OB_mid, OB_fin)` with `OB_mid = order_by(reg_p perm σ_o⁻¹ dims σ_o(dims O))` (kept
    ///   even when it is the identity) and `OB_fin = order_by(reg_p perm σ_t dims t⃗)`,
    ///   `σ_o = Σ(d_o, q_o)`, `σ_t = Σ(d_t, q_t)`, `Σ(d, q) = [0, d, 2d, …, 1, d+1, …]`;
    /// - `expand_by` stays, with its input normalized.
    ///
    /// The result has the same dims, `apply` and `apply_inverse`; normalizing twice changes nothing.
    /// Size entries keep their symbolic flags (tile sizes become the `group_by` and `OB_fin` sizes, the
    /// input's sizes those of `OB_mid`). A symbolic size is a run-time value of its own (the MLIR emitter
    /// passes each as a separate argument), so it is never "the same value" for the identity shortcut.
    pub fn normalize(&self) -> Layout {
        // Every constructor below receives the sizes and sub-layouts of an already validated layout with
        // the same element counts, so it cannot fail; a failure would be a bug in this function.
        self.try_normalize().expect("normalizing a valid layout yields a valid layout")
    }

    fn try_normalize(&self) -> Result<Layout> {
        match self.node() {
            LayoutNode::Row { dims } => Layout::reg_p(0..dims.len(), dims),
            LayoutNode::Col { dims } => Layout::reg_p((0..dims.len()).rev(), dims),
            LayoutNode::RegP { .. } | LayoutNode::GenP { .. } | LayoutNode::Swizzle { .. } | LayoutNode::Strided { .. } => {
                Ok(self.clone())
            }
            LayoutNode::OrderBy { parts } => Layout::order_by(parts.iter().map(Layout::normalize)),
            LayoutNode::GroupBy { dims, objects } => Layout::group_by(dims, objects.iter().map(Layout::normalize)),
            LayoutNode::TileBy { inner, tile_dims } => {
                let blocks = match inner.node() {
                    LayoutNode::OrderBy { parts } => parts.as_slice(),
                    _ => std::slice::from_ref(inner),
                };
                if is_literal_identity_tiling(tile_dims, blocks) {
                    return Ok(inner.normalize());
                }
                let d = blocks[0].rank();
                let sigma_o = interleave_permutation(d, blocks.len());
                let block_dims = inner.logical_dim_entries();
                let mid_dims: Vec<Dim> = sigma_o.iter().map(|&p| block_dims[p]).collect();
                let mid = Layout::order_by([Layout::reg_p(inverse_permutation(&sigma_o), &mid_dims)?])?;
                let flat: Vec<Dim> = tile_dims.iter().flatten().copied().collect();
                let fin = Layout::order_by([Layout::reg_p(tile_permutation(tile_dims), &flat)?])?;
                Layout::group_by(&flat, [inner.normalize(), mid, fin])
            }
            LayoutNode::ExpandBy { inner, dims, to } => Layout::expand_by(inner.normalize(), dims, to),
            LayoutNode::Compose { outer, inner } => Layout::compose(outer.normalize(), inner.normalize()),
            LayoutNode::Inverse { inner } => Layout::inverse(inner.normalize()),
        }
    }
}

/// The identity shortcut as `lego-normalization` sees it: as many levels as blocks and every tile dim of
/// level `h` the same literal as dim `k` of block `h`.
fn is_literal_identity_tiling(tile_dims: &[Vec<Dim>], blocks: &[Layout]) -> bool {
    tile_dims.len() == blocks.len()
        && tile_dims.iter().zip(blocks).all(|(level, block)| {
            let dims = block.logical_dim_entries();
            level.len() == dims.len() && level.iter().zip(&dims).all(|(t, o)| !t.symbolic && !o.symbolic && t.value == o.value)
        })
}

/// `Σ(d, q) = [k + d·h for k in 0..d for h in 0..q] = [0, d, 2d, …, 1, d+1, …]`: gathers `q` groups of `d`
/// (level-major or block-major) into dim-major order.
pub fn interleave_permutation(d: usize, q: usize) -> Vec<usize> {
    (0..d).flat_map(|k| (0..q).map(move |h| k + d * h)).collect()
}

/// `σ⁻¹` with `σ⁻¹[σ[i]] = i`.
pub fn inverse_permutation(perm: &[usize]) -> Vec<usize> {
    let mut inverse = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inverse[p] = i;
    }
    inverse
}

/// `σ_t = Σ(d_t, q_t)` for the tile levels: `σ[k·q + l] = l·d + k`, which gathers the level-major logical
/// sizes `[t_{0,·}, t_{1,·}, …]` into dim-major order `[t_{0,0}, t_{1,0}, …, t_{0,1}, …]`.
pub fn tile_permutation(tile_dims: &[Vec<Dim>]) -> Vec<usize> {
    interleave_permutation(tile_dims.first().map_or(0, Vec::len), tile_dims.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleave_and_inverse_permutations() {
        assert_eq!(interleave_permutation(3, 2), vec![0, 3, 1, 4, 2, 5]);
        assert_eq!(interleave_permutation(1, 4), vec![0, 1, 2, 3]);
        assert_eq!(inverse_permutation(&[0, 3, 1, 4, 2, 5]), vec![0, 2, 4, 1, 3, 5]);
        assert_eq!(inverse_permutation(&[2, 0, 1]), vec![1, 2, 0]);
    }

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
                Layout::order_by([Layout::reg_p([0, 1], [8, 12])?])?,
                Layout::order_by([Layout::reg_p([0, 2, 1, 3], [2, 4, 4, 3])?])?,
            ],
        )?;
        assert_eq!(tiled.normalize(), expected);
        // Identity shortcut: the input order_by itself (normalized).
        let inner = Layout::order_by([Layout::row([6, 6, 6])?, Layout::row([8, 8, 8])?])?;
        let tiled = Layout::tile_by(inner, [[6, 6, 6], [8, 8, 8]])?;
        let expected = Layout::order_by([Layout::reg_p([0, 1, 2], [6, 6, 6])?, Layout::reg_p([0, 1, 2], [8, 8, 8])?])?;
        assert_eq!(tiled.normalize(), expected);
        // Two blocks of rank 2: σ_o = Σ(2, 2) = [0, 2, 1, 3], its inverse is itself; OB_mid's dims are
        // σ_o([2, 4, 3, 2]) = [2, 3, 4, 2].
        let inner = Layout::order_by([Layout::row([2, 4])?, Layout::row([3, 2])?])?;
        let tiled = Layout::tile_by(inner, [[3, 2], [2, 4]])?;
        let expected = Layout::group_by(
            [3, 2, 2, 4],
            [
                Layout::order_by([Layout::reg_p([0, 1], [2, 4])?, Layout::reg_p([0, 1], [3, 2])?])?,
                Layout::order_by([Layout::reg_p([0, 2, 1, 3], [2, 3, 4, 2])?])?,
                Layout::order_by([Layout::reg_p([0, 2, 1, 3], [3, 2, 2, 4])?])?,
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
        assert_eq!(objects[1].symbolic_sizes(), vec![8]);
        assert_eq!(objects[2].symbolic_sizes(), vec![2, 3]);
        Ok(())
    }
}
