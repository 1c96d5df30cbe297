//! `apply` and `apply_inverse`, exactly as docs/reference/semantics.md defines them.
//!
//! The public entry points validate their inputs (index count, ranges, invertibility); the recursive
//! workers trust them, because every inner call receives indices that the enclosing op derived from a
//! validated input. Arithmetic is still checked, since `Custom` maps may return anything.

use crate::error::{AlgebraError, Result};
use crate::layout::{Dim, Layout, LayoutNode};

/// The value `apply` returns for "no element" (an `expand_by` padding position): all ones in `index`.
pub const NO_ELEMENT: u64 = u64::MAX;

/// `B(n⃗, i⃗) = (((i1·n2 + i2)·n3 + i3)…)·nq + iq`, row-major mixed radix. Checked: errors on overflow.
/// Indices are not required to be below their sizes (that is the caller's contract).
pub fn mixed_radix_flatten(dims: &[u64], index: &[u64]) -> Result<u64> {
    debug_assert_eq!(dims.len(), index.len());
    dims.iter().zip(index).try_fold(0u64, |x, (&n, &i)| {
        x.checked_mul(n).and_then(|x| x.checked_add(i)).ok_or(AlgebraError::Overflow("a mixed-radix flat index"))
    })
}

/// `B⁻¹(n⃗, x)`: for k = q down to 1, `i_k = x mod n_k; x = x div n_k`. Sizes must be non-zero.
/// Whatever is left of `x` after the last digit is dropped, as in the lowering.
pub fn mixed_radix_unflatten(dims: &[u64], mut x: u64) -> Vec<u64> {
    let mut index = vec![0; dims.len()];
    for (slot, &n) in index.iter_mut().zip(dims).rev() {
        *slot = x % n;
        x /= n;
    }
    index
}

fn dim_values(dims: &[Dim]) -> Vec<u64> {
    dims.iter().map(|d| d.value).collect()
}

/// `σ(v) = [v[σ0], v[σ1], …]`.
fn permute<T: Copy>(perm: &[usize], v: &[T]) -> Vec<T> {
    perm.iter().map(|&p| v[p]).collect()
}

fn identity_perm(rank: usize) -> Vec<usize> {
    (0..rank).collect()
}

fn reversed_perm(rank: usize) -> Vec<usize> {
    (0..rank).rev().collect()
}

fn reg_p_apply(perm: &[usize], dims: &[Dim], index: &[u64]) -> Result<u64> {
    mixed_radix_flatten(&permute(perm, &dim_values(dims)), &permute(perm, index))
}

fn reg_p_inverse(perm: &[usize], dims: &[Dim], x: u64) -> Vec<u64> {
    let phys = mixed_radix_unflatten(&permute(perm, &dim_values(dims)), x);
    let mut result = vec![0; perm.len()];
    for (k, &p) in perm.iter().enumerate() {
        result[p] = phys[k];
    }
    result
}

/// CuTe's `Swizzle<bits, base, shift>` on a flat index: `x ^ ((x & yyy) >> shift)` with
/// `yyy = (2^bits − 1) << (base + shift)`. Its own inverse when `shift ≥ bits`.
pub fn swizzle_flat(bits: u32, base: u32, shift: u32, x: u64) -> u64 {
    let yyy = ((1u64 << bits) - 1) << (base + shift);
    x ^ ((x & yyy) >> shift)
}

impl Layout {
    /// `apply(L, i⃗)`: the flat (physical) index of logical index `index`, or [`NO_ELEMENT`] where an
    /// `expand_by` maps it to padding.
    ///
    /// docs/reference/semantics.md defines "no element" only for `expand_by` itself; when an `expand_by` is nested inside
    /// another op, this crate propagates "no element" to the result (the lowering, which computes with
    /// the all-ones value, would produce a wrapped number instead). Differential tests should therefore
    /// put `expand_by` at the root only, as [`crate::random`] does.
    ///
    /// Errors: wrong index count, an index not below its size, arithmetic overflow (possible only with
    /// `Custom` maps).
    pub fn apply(&self, index: &[u64]) -> Result<u64> {
        self.check_index(index)?;
        Ok(self.apply_unchecked(index)?.unwrap_or(NO_ELEMENT))
    }

    /// `inv(L, flat)`: the logical index whose `apply` is `flat`.
    ///
    /// Errors: the layout is apply-only (or contains an apply-only part), `flat ≥ codomain_size()`,
    /// arithmetic overflow or a malformed result from a `Custom` inverse.
    pub fn apply_inverse(&self, flat: u64) -> Result<Vec<u64>> {
        if !self.is_invertible() {
            return Err(AlgebraError::NotInvertible(self.apply_only_part()));
        }
        let size = self.codomain_size();
        if flat >= size {
            return Err(AlgebraError::FlatOutOfRange { flat, size });
        }
        self.inverse_unchecked(flat)
    }

    /// Validates an `apply` input against the logical dims.
    pub fn check_index(&self, index: &[u64]) -> Result<()> {
        if index.len() != self.rank() {
            return Err(AlgebraError::IndexCount { found: index.len(), rank: self.rank() });
        }
        match index.iter().zip(self.dims()).position(|(i, n)| i >= n) {
            Some(position) => {
                Err(AlgebraError::IndexOutOfRange { position, index: index[position], size: self.dims()[position] })
            }
            None => Ok(()),
        }
    }

    /// Describes the first apply-only `gen_p` found, for the `NotInvertible` message.
    pub(crate) fn apply_only_description(&self) -> String {
        self.apply_only_part()
    }

    fn apply_only_part(&self) -> String {
        if let LayoutNode::GenP { gen, .. } = self.node() {
            if !gen.is_invertible() {
                return format!("gen_p {gen}");
            }
        }
        self.children()
            .into_iter()
            .find(|c| !c.is_invertible())
            .map_or_else(|| self.to_string(), Layout::apply_only_part)
    }

    /// `apply` without input validation; `None` means "no element".
    fn apply_unchecked(&self, index: &[u64]) -> Result<Option<u64>> {
        match self.node() {
            LayoutNode::Row { dims } => reg_p_apply(&identity_perm(dims.len()), dims, index).map(Some),
            LayoutNode::Col { dims } => reg_p_apply(&reversed_perm(dims.len()), dims, index).map(Some),
            LayoutNode::RegP { perm, dims } => reg_p_apply(perm, dims, index).map(Some),
            LayoutNode::GenP { gen, .. } => Ok(Some(gen.apply(index))),
            LayoutNode::OrderBy { parts } => {
                let mut x = 0u64;
                let mut offset = 0;
                for part in parts {
                    let slice = &index[offset..offset + part.rank()];
                    offset += part.rank();
                    // "No element" anywhere means no element overall: the padding position of one part
                    // has no flat index to combine with the others.
                    let Some(sub) = part.apply_unchecked(slice)? else { return Ok(None) };
                    x = x
                        .checked_mul(part.numel())
                        .and_then(|x| x.checked_add(sub))
                        .ok_or(AlgebraError::Overflow("an order_by flat index"))?;
                }
                Ok(Some(x))
            }
            LayoutNode::GroupBy { dims, objects } => {
                let mut x = mixed_radix_flatten(&dim_values(dims), index)?;
                for object in objects.iter().rev() {
                    // Only a `Custom` map can hand the next object a value past its element count; its
                    // top digit would then exceed its size, which the named maps must never see.
                    if x >= object.numel() {
                        return Err(AlgebraError::FlatOutOfRange { flat: x, size: object.numel() });
                    }
                    let digits = mixed_radix_unflatten(object.dims(), x);
                    let Some(next) = object.apply_unchecked(&digits)? else { return Ok(None) };
                    x = next;
                }
                Ok(Some(x))
            }
            LayoutNode::TileBy { inner, tile_dims } => {
                let blocks = tile_blocks(inner);
                if is_identity_tiling(tile_dims, blocks) {
                    return inner.apply_unchecked(index);
                }
                let coords = tile_coordinates(tile_dims, index)?;
                if blocks.len() == 1 {
                    return inner.apply_unchecked(&coords);
                }
                inner.apply_unchecked(&split_over_blocks(blocks, &coords))
            }
            LayoutNode::Swizzle { bits, base, shift, dims } => {
                let x = mixed_radix_flatten(&dim_values(dims), index)?;
                Ok(Some(swizzle_flat(*bits, *base, *shift, x)))
            }
            LayoutNode::Strided { modes } => Ok(Some(crate::layout::strided_offset(modes, index))),
            LayoutNode::Compose { outer, inner } => {
                let Some(x) = inner.apply_unchecked(index)? else { return Ok(None) };
                if x >= outer.numel() {
                    return Err(AlgebraError::FlatOutOfRange { flat: x, size: outer.numel() });
                }
                outer.apply_unchecked(&mixed_radix_unflatten(outer.dims(), x))
            }
            LayoutNode::Inverse { inner } => {
                let index = inner.inverse_in_range(index[0])?;
                mixed_radix_flatten(inner.dims(), &index).map(Some)
            }
            LayoutNode::ExpandBy { inner, dims, to } => {
                let Some(x) = inner.apply_unchecked(index)? else { return Ok(None) };
                let j = mixed_radix_unflatten(&dim_values(to), x);
                if j.iter().zip(dims).all(|(&jk, nk)| jk < nk.value) {
                    mixed_radix_flatten(&dim_values(dims), &j).map(Some)
                } else {
                    Ok(None)
                }
            }
        }
    }

    /// `apply_inverse` without input validation (the layout must be invertible).
    fn inverse_unchecked(&self, x: u64) -> Result<Vec<u64>> {
        match self.node() {
            LayoutNode::Row { dims } => Ok(reg_p_inverse(&identity_perm(dims.len()), dims, x)),
            LayoutNode::Col { dims } => Ok(reg_p_inverse(&reversed_perm(dims.len()), dims, x)),
            LayoutNode::RegP { perm, dims } => Ok(reg_p_inverse(perm, dims, x)),
            LayoutNode::GenP { gen, .. } => gen.apply_inverse(x, self.rank()),
            LayoutNode::OrderBy { parts } => {
                let mut index = vec![0; self.rank()];
                let mut end = self.rank();
                let mut x = x;
                for part in parts.iter().rev() {
                    let c = x % part.numel();
                    x /= part.numel();
                    let slice = part.inverse_in_range(c)?;
                    index[end - part.rank()..end].copy_from_slice(&slice);
                    end -= part.rank();
                }
                Ok(index)
            }
            LayoutNode::GroupBy { dims, objects } => {
                let mut x = x;
                for object in objects {
                    let index = object.inverse_in_range(x)?;
                    x = mixed_radix_flatten(object.dims(), &index)?;
                }
                Ok(mixed_radix_unflatten(&dim_values(dims), x))
            }
            LayoutNode::TileBy { inner, tile_dims } => {
                let blocks = tile_blocks(inner);
                let split = inner.inverse_in_range(x)?;
                if is_identity_tiling(tile_dims, blocks) {
                    return Ok(split);
                }
                let coords = if blocks.len() == 1 { split } else { join_over_blocks(blocks, &split)? };
                Ok(tile_index(tile_dims, &coords))
            }
            LayoutNode::Swizzle { bits, base, shift, dims } => {
                Ok(mixed_radix_unflatten(&dim_values(dims), swizzle_flat(*bits, *base, *shift, x)))
            }
            LayoutNode::Strided { modes } => {
                // Compact (the only invertible case): each leaf's digit is (x div stride) mod size; a mode's
                // index combines its digits first leaf fastest.
                Ok(modes
                    .iter()
                    .map(|mode| {
                        let mut index = 0;
                        let mut weight = 1;
                        for &(size, stride) in mode {
                            let digit = if size == 1 { 0 } else { (x / stride) % size };
                            index += digit * weight;
                            weight *= size;
                        }
                        index
                    })
                    .collect())
            }
            LayoutNode::Compose { outer, inner } => {
                let index = outer.inverse_in_range(x)?;
                inner.inverse_in_range(mixed_radix_flatten(outer.dims(), &index)?)
            }
            LayoutNode::Inverse { inner } => {
                let index = mixed_radix_unflatten(inner.dims(), x);
                Ok(vec![inner.apply_unchecked(&index)?.unwrap_or(NO_ELEMENT)])
            }
            LayoutNode::ExpandBy { inner, dims, to } => {
                let j = mixed_radix_unflatten(&dim_values(dims), x);
                inner.inverse_in_range(mixed_radix_flatten(&dim_values(to), &j)?)
            }
        }
    }

    /// Inner inverse for values an enclosing op computed. Only an `expand_by` (valid inputs `< Π n⃗`,
    /// fewer than its `numel`) can receive an out-of-range value there, when it is nested; that is reported
    /// rather than silently wrapped.
    fn inverse_in_range(&self, x: u64) -> Result<Vec<u64>> {
        let size = self.codomain_size();
        if x >= size {
            return Err(AlgebraError::FlatOutOfRange { flat: x, size });
        }
        self.inverse_unchecked(x)
    }
}

/// The blocks of a tile_by's input (its `order_by`'s parts; the constructor guarantees the `order_by`).
fn tile_blocks(inner: &Layout) -> &[Layout] {
    match inner.node() {
        LayoutNode::OrderBy { parts } => parts,
        _ => std::slice::from_ref(inner),
    }
}

/// The identity shortcut of docs/reference/semantics.md: as many levels as blocks, and every tile dim of level `h` equal to
/// dim `k` of block `h`. The indices then pass through unchanged.
fn is_identity_tiling(tile_dims: &[Vec<Dim>], blocks: &[Layout]) -> bool {
    tile_dims.len() == blocks.len()
        && tile_dims.iter().zip(blocks).all(|(level, block)| {
            level.len() == block.rank() && level.iter().zip(block.dims()).all(|(t, &o)| t.value == o)
        })
}

/// tile_by: `c_k = B([t_{0,k}, t_{1,k}, …], [i_{0,k}, i_{1,k}, …])` for each dim `k`, where the logical index
/// is level-major: `index[l·d + k] = i_{l,k}`.
fn tile_coordinates(tile_dims: &[Vec<Dim>], index: &[u64]) -> Result<Vec<u64>> {
    let d = tile_dims.first().map_or(0, Vec::len);
    (0..d)
        .map(|k| {
            let sizes: Vec<u64> = tile_dims.iter().map(|level| level[k].value).collect();
            let digits: Vec<u64> = (0..tile_dims.len()).map(|l| index[l * d + k]).collect();
            mixed_radix_flatten(&sizes, &digits)
        })
        .collect()
}

/// Inverse of [`tile_coordinates`]: split each `c_k` into its per-level digits.
fn tile_index(tile_dims: &[Vec<Dim>], coords: &[u64]) -> Vec<u64> {
    let d = coords.len();
    let mut index = vec![0; d * tile_dims.len()];
    for (k, &c) in coords.iter().enumerate() {
        let sizes: Vec<u64> = tile_dims.iter().map(|level| level[k].value).collect();
        for (l, digit) in mixed_radix_unflatten(&sizes, c).into_iter().enumerate() {
            index[l * d + k] = digit;
        }
    }
    index
}

/// Multi-block split: `(s_{0,k}, s_{1,k}, …) = B⁻¹([o_{0,k}, o_{1,k}, …], c_k)`, returned block-major
/// (`s[h·d + k]`), the input of `apply(O, …)`.
fn split_over_blocks(blocks: &[Layout], coords: &[u64]) -> Vec<u64> {
    let d = coords.len();
    let mut split = vec![0; d * blocks.len()];
    for (k, &c) in coords.iter().enumerate() {
        let sizes: Vec<u64> = blocks.iter().map(|b| b.dims()[k]).collect();
        for (h, digit) in mixed_radix_unflatten(&sizes, c).into_iter().enumerate() {
            split[h * d + k] = digit;
        }
    }
    split
}

/// Inverse of [`split_over_blocks`]: `c_k = B([o_{0,k}, o_{1,k}, …], [s_{0,k}, s_{1,k}, …])`.
fn join_over_blocks(blocks: &[Layout], split: &[u64]) -> Result<Vec<u64>> {
    let d = blocks.first().map_or(0, Layout::rank);
    (0..d)
        .map(|k| {
            let sizes: Vec<u64> = blocks.iter().map(|b| b.dims()[k]).collect();
            let digits: Vec<u64> = (0..blocks.len()).map(|h| split[h * d + k]).collect();
            mixed_radix_flatten(&sizes, &digits)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_radix_matches_hand_values() {
        // B([2, 3, 4], [1, 2, 3]) = (1·3 + 2)·4 + 3 = 23.
        assert_eq!(mixed_radix_flatten(&[2, 3, 4], &[1, 2, 3]), Ok(23));
        assert_eq!(mixed_radix_unflatten(&[2, 3, 4], 23), vec![1, 2, 3]);
        assert_eq!(mixed_radix_flatten(&[], &[]), Ok(0));
        assert!(mixed_radix_flatten(&[u64::MAX, 2], &[u64::MAX - 1, 1]).is_err());
    }

    #[test]
    fn tile_index_roundtrips() {
        let tiles = vec![vec![Dim::lit(2), Dim::lit(4)], vec![Dim::lit(4), Dim::lit(3)]];
        // c_0 = B([2, 4], [1, 3]) = 7; c_1 = B([4, 3], [2, 1]) = 7.
        assert_eq!(tile_coordinates(&tiles, &[1, 2, 3, 1]), Ok(vec![7, 7]));
        assert_eq!(tile_index(&tiles, &[7, 7]), vec![1, 2, 3, 1]);
    }
}
