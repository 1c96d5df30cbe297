//! The direct lowering of `lego.tile_by` (docs/reference/semantics.md, tile_by; docs/reference/lowering.md §2–§3): what `lego-to-arith`
//! and `lego-lower` compute for an `apply` / `apply_inverse` whose layout is a `tile_by`, without going through
//! the normal form.
//!
//! The input is an `order_by(P_0, …, P_{q_o-1})` of blocks of the tile rank `d = rank(P_0)`:
//! 1. identity shortcut — as many levels as blocks and every tile dim of level `h` the same value as dim `k` of
//!    block `h` (same SSA value or equal constants): the indices pass through unchanged (no div/rem);
//! 2. otherwise `c_k = B([t_{0,k}, t_{1,k}, …], [i_{0,k}, i_{1,k}, …])` per dim `k`;
//! 3. one block: `apply(O, c⃗)`; several: each `c_k` is split over the blocks' dims at `k`,
//!    `(s_{0,k}, s_{1,k}, …) = B⁻¹([o_{0,k}, o_{1,k}, …], c_k)`, and `apply(O, s⃗)` takes them block-major.
//!
//! The inverse mirrors it. `B` / `B⁻¹` are the lowering's flatten / unflatten helpers, so the op order is theirs.
//! The emitter (emit.rs) applies or inverts the input itself, on its explicit stack: these are the steps before
//! and after.

use super::emit::{logical_dims, node, same_dim, Site};
use super::ir::{Builder, Located, Result};
use lego_dialect::ops::{Dim, LayoutOp};
use melior::ir::Value;

/// What the lowering needs to know about a tile_by: its levels and its input's blocks (each block's dims).
pub(super) struct Tiling<'c, 'a> {
    levels: Vec<Vec<Dim<'c, 'a>>>,
    blocks: Vec<Vec<Dim<'c, 'a>>>,
    /// The tile rank `d` (= d_t = d_o).
    rank: usize,
}

impl<'c, 'a> Tiling<'c, 'a> {
    pub(super) fn read(
        b: &Builder<'_, 'c, 'a>,
        site: &Site,
        inner: Value<'c, 'a>,
        levels: Vec<Vec<Dim<'c, 'a>>>,
    ) -> Result<'c, Self> {
        let error = |reason: String| Located::new(b.location, format!("'{}' op cannot be lowered: {reason}", site.op_name));
        let rank = levels.first().map_or(0, Vec::len);
        if rank == 0 || levels.iter().any(|level| level.len() != rank) {
            return Err(error("tile_by levels must be non-empty and of equal length".into()));
        }
        let objects = match node(b, site, inner)? {
            LayoutOp::OrderBy { objects } if !objects.is_empty() => objects,
            // A plain row / col / reg_p: an order_by of that one block (semantics.md: q_o = 1).
            LayoutOp::Row { .. } | LayoutOp::Col { .. } | LayoutOp::RegP { .. } => vec![inner],
            _ => return Err(error("tile_by input must be an OrderBy layout".into())),
        };
        let mut blocks = Vec::with_capacity(objects.len());
        for object in objects {
            blocks.push(logical_dims(b, site, object)?);
        }
        let block_rank = blocks[0].len();
        if let Some((h, block)) = blocks.iter().enumerate().find(|(_, block)| block.len() != block_rank) {
            return Err(error(format!(
                "tile_by block {h} has rank {}, but the tile rank (rank of block 0) is {block_rank}",
                block.len()
            )));
        }
        if rank != block_rank {
            return Err(error(format!(
                "tile_by levels have {rank} entries, but the tile rank (rank of the first block) is {block_rank}"
            )));
        }
        Ok(Tiling { levels, blocks, rank })
    }

    /// docs/reference/semantics.md's identity shortcut: `q_t = q_o` and `t_{h,k}` is the same value as `o_{h,k}`.
    fn is_identity(&self) -> bool {
        self.levels.len() == self.blocks.len()
            && self.levels.iter().zip(&self.blocks).all(|(level, block)| level.iter().zip(block).all(|(t, o)| same_dim(t, o)))
    }

    /// The size-consistency equations of the symbolic-size contract (docs/reference/semantics.md: `Π_l t_{l,k} = Π_h o_{h,k}`
    /// for every dim `k`; the verifier checks it when the sizes are known): `(Π_l t_{l,k}, Π_h o_{h,k})` for each
    /// dim where some size is symbolic and the two sides are not the same value already. None for the identity
    /// shortcut (its indices pass through: no equation is used). The products are emitted (left to right).
    pub(super) fn consistency(&self, b: &Builder<'_, 'c, 'a>) -> Vec<(Dim<'c, 'a>, Dim<'c, 'a>)> {
        if self.is_identity() {
            return Vec::new();
        }
        (0..self.rank)
            .filter_map(|k| {
                let (tiles, blocks) = (self.level_sizes(k), self.block_sizes(k));
                if tiles.iter().chain(&blocks).all(|dim| matches!(dim, Dim::Static(_))) {
                    return None;
                }
                let (tiles, blocks) = (b.product(&tiles), b.product(&blocks));
                (!same_dim(&tiles, &blocks)).then_some((tiles, blocks))
            })
            .collect()
    }

    /// `[t_{0,k}, t_{1,k}, …]`.
    fn level_sizes(&self, k: usize) -> Vec<Dim<'c, 'a>> {
        self.levels.iter().map(|level| level[k]).collect()
    }

    /// `[o_{0,k}, o_{1,k}, …]`.
    fn block_sizes(&self, k: usize) -> Vec<Dim<'c, 'a>> {
        self.blocks.iter().map(|block| block[k]).collect()
    }
}

/// `apply(tile_by, indices)` is `apply(input order_by, these)`: the indices handed to the input (level-major in,
/// block-major out). The caller emits the input's apply (the emitter walks layout chains with its own stack).
pub(super) fn input_indices<'c, 'a>(
    b: &Builder<'_, 'c, 'a>,
    site: &Site,
    tiling: &Tiling<'c, 'a>,
    indices: &[Value<'c, 'a>],
) -> Result<'c, Vec<Value<'c, 'a>>> {
    let (d, q_t, q_o) = (tiling.rank, tiling.levels.len(), tiling.blocks.len());
    if indices.len() != d * q_t {
        return Err(Located::new(
            b.location,
            format!("'{}' op number of indices ({}) does not match layout rank ({})", site.op_name, indices.len(), d * q_t),
        ));
    }
    if tiling.is_identity() {
        return Ok(indices.to_vec());
    }
    let coordinates: Vec<Value> = (0..d)
        .map(|k| {
            let digits: Vec<Value> = (0..q_t).map(|l| indices[l * d + k]).collect();
            b.flatten(&digits, &tiling.level_sizes(k))
        })
        .collect();
    if q_o == 1 {
        return Ok(coordinates);
    }
    let mut split = vec![coordinates[0]; d * q_o];
    for (k, coordinate) in coordinates.iter().enumerate() {
        for (h, digit) in b.unflatten(*coordinate, &tiling.block_sizes(k)).into_iter().enumerate() {
            split[h * d + k] = digit;
        }
    }
    Ok(split)
}

/// `apply_inverse(tile_by, flat)` from `split`, the input order_by's inverse of `flat` (block-major): the
/// level-major logical index.
pub(super) fn regroup_inverse<'c, 'a>(
    b: &Builder<'_, 'c, 'a>,
    site: &Site,
    tiling: &Tiling<'c, 'a>,
    flat: Value<'c, 'a>,
    split: Vec<Value<'c, 'a>>,
) -> Result<'c, Vec<Value<'c, 'a>>> {
    let (d, q_t, q_o) = (tiling.rank, tiling.levels.len(), tiling.blocks.len());
    if split.len() != d * q_o {
        return Err(Located::new(
            b.location,
            format!(
                "'{}' op cannot be lowered: the tile_by input's inverse has {} values, expected {}",
                site.op_name,
                split.len(),
                d * q_o
            ),
        ));
    }
    if tiling.is_identity() {
        return Ok(split);
    }
    let mut logical = vec![flat; d * q_t];
    for k in 0..d {
        let coordinate = if q_o == 1 {
            split[k]
        } else {
            let digits: Vec<Value> = (0..q_o).map(|h| split[h * d + k]).collect();
            b.flatten(&digits, &tiling.block_sizes(k))
        };
        for (l, part) in b.unflatten(coordinate, &tiling.level_sizes(k)).into_iter().enumerate() {
            logical[l * d + k] = part;
        }
    }
    Ok(logical)
}
