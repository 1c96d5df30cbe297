//! The `Layout` value type and its validating constructors.

use std::fmt;
use std::sync::Arc;

use crate::error::{AlgebraError, Result};
use crate::genfn::GenFn;
use crate::size::ElementCount;

/// One entry of a size list.
///
/// The algebra always knows the value. `symbolic` records how the size is *written* in MLIR: as a
/// literal, or as an SSA value of type `index` passed at run time (see docs/reference/syntax.md, "Size lists").
/// It changes nothing in the math; the MLIR emitter turns symbolic entries into function arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dim {
    pub value: u64,
    pub symbolic: bool,
}

impl Dim {
    /// A size written as an integer literal.
    pub const fn lit(value: u64) -> Self {
        Dim { value, symbolic: false }
    }

    /// A size passed at run time as an SSA value.
    pub const fn sym(value: u64) -> Self {
        Dim { value, symbolic: true }
    }
}

impl From<u64> for Dim {
    fn from(value: u64) -> Self {
        Dim::lit(value)
    }
}

impl From<&u64> for Dim {
    fn from(value: &u64) -> Self {
        Dim::lit(*value)
    }
}

impl From<&Dim> for Dim {
    fn from(dim: &Dim) -> Self {
        *dim
    }
}

impl fmt::Display for Dim {
    /// Symbolic sizes print with a `$` prefix so that printed layouts show which sizes are run-time values.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.symbolic {
            write!(f, "${}", self.value)
        } else {
            write!(f, "{}", self.value)
        }
    }
}

/// The structure of a layout: one variant per dialect constructor.
///
/// Obtained through [`Layout::node`]; every `LayoutNode` reachable from a `Layout` passed its
/// constructor's validation.
#[derive(Debug, Clone, PartialEq)]
pub enum LayoutNode {
    Row { dims: Vec<Dim> },
    Col { dims: Vec<Dim> },
    RegP { perm: Vec<usize>, dims: Vec<Dim> },
    GenP { dims: Vec<Dim>, gen: GenFn },
    OrderBy { parts: Vec<Layout> },
    GroupBy { dims: Vec<Dim>, objects: Vec<Layout> },
    /// `tile_dims[level][k]`: level 0 is the outermost (`a⃗`), the last level the innermost.
    TileBy { inner: Layout, tile_dims: Vec<Vec<Dim>> },
    /// `dims` are the real sizes `n⃗`, `to` the expanded sizes `m⃗`.
    ExpandBy { inner: Layout, dims: Vec<Dim>, to: Vec<Dim> },
    /// CuTe's `Swizzle<bits, base, shift>` on the row-major flat index over `dims`: bits
    /// `[base, base+bits)` XORed with bits `[base+shift, base+shift+bits)`.
    Swizzle { bits: u32, base: u32, shift: u32, dims: Vec<Dim> },
    /// `outer` after `inner`: `apply(i⃗) = apply(outer, B⁻¹(dims(outer), apply(inner, i⃗)))`.
    Compose { outer: Layout, inner: Layout },
    /// The inverse of a bijection as a layout over `[numel(inner)]`.
    Inverse { inner: Layout },
    /// CuTe's `shape:stride`: one entry per logical dim (a mode), each a list of `(size, stride)` leaves; a
    /// mode's index is split over its leaves first leaf fastest (CuTe's colexicographic order).
    Strided { modes: Vec<Vec<(u64, u64)>> },
}

/// A layout of the LEGO algebra: logical dims, `apply` (logical index → flat index) and, unless it is
/// built from an apply-only `gen_p`, `apply_inverse`.
///
/// Cloning is cheap (one `Arc`). Equality is structural (see [`GenFn`]'s `PartialEq` for closures).
#[derive(Clone, PartialEq)]
pub struct Layout(Arc<Inner>);

#[derive(PartialEq)]
struct Inner {
    node: LayoutNode,
    /// Logical dims, cached because every evaluation step needs them.
    dims: Vec<u64>,
    /// `Π dims`, validated at construction to be at most [`crate::MAX_ELEMENTS`] (2^63 − 1).
    numel: u64,
    invertible: bool,
}

fn values(dims: &[Dim]) -> Vec<u64> {
    dims.iter().map(|d| d.value).collect()
}

fn into_dims<D: Into<Dim>>(dims: impl IntoIterator<Item = D>) -> Vec<Dim> {
    dims.into_iter().map(Into::into).collect()
}

/// Product of sizes, or an overflow error naming `what`.
pub(crate) fn checked_product(values: impl IntoIterator<Item = u64>, what: &'static str) -> Result<u64> {
    values
        .into_iter()
        .try_fold(1u64, |acc, v| acc.checked_mul(v))
        .ok_or(AlgebraError::Overflow(what))
}

/// `Π sizes` when it is at most [`crate::MAX_ELEMENTS`], else [`AlgebraError::TooManyElements`] naming `op`.
/// Exact: a product that wraps modulo 2^64 never passes for a small one.
fn bounded_count(op: &'static str, sizes: impl IntoIterator<Item = u64>) -> Result<u64> {
    let count = ElementCount::of(sizes);
    match count.to_u64() {
        Some(value) if count.fits() => Ok(value),
        _ => Err(AlgebraError::TooManyElements { op, count }),
    }
}

/// The constructor's name, for errors.
fn op_name(node: &LayoutNode) -> &'static str {
    match node {
        LayoutNode::Row { .. } => "row",
        LayoutNode::Col { .. } => "col",
        LayoutNode::RegP { .. } => "reg_p",
        LayoutNode::GenP { .. } => "gen_p",
        LayoutNode::OrderBy { .. } => "order_by",
        LayoutNode::GroupBy { .. } => "group_by",
        LayoutNode::TileBy { .. } => "tile_by",
        LayoutNode::ExpandBy { .. } => "expand_by",
        LayoutNode::Swizzle { .. } => "swizzle",
        LayoutNode::Compose { .. } => "compose",
        LayoutNode::Inverse { .. } => "inverse",
        LayoutNode::Strided { .. } => "strided",
    }
}

/// `lego.swizzle`'s parameter rules (docs/ops/swizzle.md): `shift ≥ bits` (the XORed bit ranges do not
/// overlap, so the map is an involution) and `bits + base + shift ≤ 62` (the period `2^(B+M+S)` is a
/// valid element count).
pub fn check_swizzle_parameters(bits: u32, base: u32, shift: u32) -> Result<()> {
    if shift < bits {
        return Err(AlgebraError::SwizzleParameters {
            bits,
            base,
            shift,
            reason: format!("shift ({shift}) must be at least bits ({bits}), so that the XORed bit ranges do not overlap"),
        });
    }
    if u64::from(bits) + u64::from(base) + u64::from(shift) > 62 {
        return Err(AlgebraError::SwizzleParameters {
            bits,
            base,
            shift,
            reason: "bits + base + shift must be at most 62".to_string(),
        });
    }
    Ok(())
}

/// What [`check_strided`] finds out about a valid `shape:stride`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StridedInfo {
    pub numel: u64,
    /// `1 + Σ (size − 1)·stride`: the number of positions the layout spans.
    pub extent: u64,
    /// The leaves of size > 1, sorted by stride, are a mixed radix (stride 1, then each stride the previous
    /// stride times the previous size): a bijection onto `[0, numel)`.
    pub compact: bool,
}

/// The most elements a `strided` layout may have when its injectivity has to be checked point by point
/// (leaves that overlap once sorted by stride).
pub const STRIDED_ENUMERATION_LIMIT: u64 = 1 << 22;

/// `shape` and `stride` as written in CuTe style: `[(4, 2), 8]`, `[(1, 32), 4]`.
pub fn strided_text(modes: &[Vec<(u64, u64)>]) -> (String, String) {
    let list = |pick: &dyn Fn(&(u64, u64)) -> u64| {
        let entries: Vec<String> = modes
            .iter()
            .map(|mode| match mode.as_slice() {
                [leaf] => pick(leaf).to_string(),
                _ => format!("({})", mode.iter().map(|leaf| pick(leaf).to_string()).collect::<Vec<_>>().join(", ")),
            })
            .collect();
        format!("[{}]", entries.join(", "))
    };
    (list(&|leaf| leaf.0), list(&|leaf| leaf.1))
}

/// The rules of `lego.strided` (docs/ops/strided.md): at least one mode, each with at least one leaf, sizes
/// ≥ 1, at most 2^63 − 1 elements and positions, and injective — proved from the strides when the leaves,
/// sorted by stride, do not overlap (`stride_{j+1} ≥ stride_j · size_j`), else checked point by point (at most
/// [`STRIDED_ENUMERATION_LIMIT`] elements), the error naming two indices with the same position.
pub fn check_strided(modes: &[Vec<(u64, u64)>]) -> Result<StridedInfo> {
    if modes.is_empty() {
        return Err(AlgebraError::Empty { op: "strided", what: "mode" });
    }
    if modes.iter().any(Vec::is_empty) {
        return Err(AlgebraError::Empty { op: "strided mode", what: "size" });
    }
    if let Some(&(size, _)) = modes.iter().flatten().find(|(size, _)| *size == 0) {
        return Err(AlgebraError::NonPositiveDimension(size));
    }
    let numel = bounded_count("strided", modes.iter().flatten().map(|(size, _)| *size))?;
    let extent = modes
        .iter()
        .flatten()
        .try_fold(1u64, |extent, (size, stride)| (size - 1).checked_mul(*stride).and_then(|span| extent.checked_add(span)))
        .filter(|extent| *extent <= crate::MAX_ELEMENTS)
        .ok_or(AlgebraError::StridedExtent)?;
    let mut leaves: Vec<(u64, u64)> = modes.iter().flatten().copied().filter(|(size, _)| *size > 1).collect();
    leaves.sort_by_key(|&(size, stride)| (stride, size));
    // A stride of 0 on a leaf of size > 1 collides at once: left to the point-by-point check, which names it.
    let mut separated = leaves.first().map_or(true, |&(_, stride)| stride > 0);
    let mut compact = true;
    let mut expected = 1u64;
    for window in leaves.windows(2) {
        let ((size, stride), (_, next)) = (window[0], window[1]);
        // Overflow means the next stride is certainly large enough.
        separated &= stride.checked_mul(size).map_or(true, |span| next >= span);
    }
    for &(size, stride) in &leaves {
        compact &= stride == expected;
        expected = expected.saturating_mul(size);
    }
    if !separated {
        if numel > STRIDED_ENUMERATION_LIMIT {
            return Err(AlgebraError::StridedUnproved { numel, limit: STRIDED_ENUMERATION_LIMIT });
        }
        let dims: Vec<u64> = modes.iter().map(|mode| mode.iter().map(|(size, _)| size).product()).collect();
        let mut seen = std::collections::HashMap::with_capacity(numel as usize);
        for flat in 0..numel {
            let index = crate::eval::mixed_radix_unflatten(&dims, flat);
            let position = strided_offset(modes, &index);
            if let Some(first) = seen.insert(position, flat) {
                let first = crate::eval::mixed_radix_unflatten(&dims, first);
                return Err(AlgebraError::StridedCollision { first, second: index, position });
            }
        }
    }
    Ok(StridedInfo { numel, extent, compact: compact && extent == numel })
}

/// `Σ digit · stride` with each `index[k]` split over mode `k`'s leaves, first leaf fastest (the last leaf takes
/// what is left). Indices in range and a validated layout keep every value below the extent.
pub(crate) fn strided_offset(modes: &[Vec<(u64, u64)>], index: &[u64]) -> u64 {
    let mut offset = 0u64;
    for (mode, &i) in modes.iter().zip(index) {
        let mut rest = i;
        for (position, &(size, stride)) in mode.iter().enumerate() {
            let digit = if position + 1 == mode.len() { rest } else { rest % size };
            rest /= size;
            offset = offset.wrapping_add(digit.wrapping_mul(stride));
        }
    }
    offset
}

/// The checks shared by every op with a plain size list.
fn check_dims(op: &'static str, dims: &[Dim]) -> Result<()> {
    if dims.is_empty() {
        return Err(AlgebraError::Empty { op, what: "dimension" });
    }
    if let Some(zero) = dims.iter().find(|d| d.value == 0) {
        return Err(AlgebraError::NonPositiveDimension(zero.value));
    }
    Ok(())
}

impl Layout {
    fn build(node: LayoutNode, dims: Vec<u64>, invertible: bool) -> Result<Self> {
        let numel = bounded_count(op_name(&node), dims.iter().copied())?;
        Ok(Layout(Arc::new(Inner { node, dims, numel, invertible })))
    }

    /// `lego.row [n⃗]`: row-major, i.e. `reg_p` with the identity permutation.
    pub fn row<D: Into<Dim>>(dims: impl IntoIterator<Item = D>) -> Result<Self> {
        let dims = into_dims(dims);
        check_dims("row", &dims)?;
        let values = values(&dims);
        Self::build(LayoutNode::Row { dims }, values, true)
    }

    /// `lego.col [n⃗]`: column-major, i.e. `reg_p` with the reversed permutation.
    pub fn col<D: Into<Dim>>(dims: impl IntoIterator<Item = D>) -> Result<Self> {
        let dims = into_dims(dims);
        check_dims("col", &dims)?;
        let values = values(&dims);
        Self::build(LayoutNode::Col { dims }, values, true)
    }

    /// `lego.reg_p perm [σ] dims [n⃗]`: `apply(i⃗) = B(σ(n⃗), σ(i⃗))` with `σ(v) = [v[σ0], v[σ1], …]`.
    pub fn reg_p<D: Into<Dim>>(
        perm: impl IntoIterator<Item = usize>,
        dims: impl IntoIterator<Item = D>,
    ) -> Result<Self> {
        let perm: Vec<usize> = perm.into_iter().collect();
        let dims = into_dims(dims);
        check_dims("reg_p", &dims)?;
        if perm.len() != dims.len() {
            return Err(AlgebraError::PermutationRankMismatch { perm_rank: perm.len(), dims_rank: dims.len() });
        }
        let mut seen = vec![false; perm.len()];
        for &p in &perm {
            match seen.get_mut(p) {
                Some(slot) if !*slot => *slot = true,
                _ => return Err(AlgebraError::InvalidPermutation { max: perm.len() - 1 }),
            }
        }
        let values = values(&dims);
        Self::build(LayoutNode::RegP { perm, dims }, values, true)
    }

    /// `lego.gen_p [n⃗] apply {…} inv {…}` with the map `gen`. Named kinds must be given the dims they
    /// describe (`rev(n1, n2)` ↔ `[n1, n2]`, `antidiag(n)` ↔ `[n, n]`).
    pub fn gen_p<D: Into<Dim>>(dims: impl IntoIterator<Item = D>, gen: GenFn) -> Result<Self> {
        let dims = into_dims(dims);
        check_dims("gen_p", &dims)?;
        let values = values(&dims);
        if let Some(expected) = gen.required_dims() {
            if expected != values {
                return Err(AlgebraError::GenDimsMismatch { kind: gen.to_string(), expected, found: values });
            }
        }
        gen.validate()?;
        let invertible = gen.is_invertible();
        Self::build(LayoutNode::GenP { dims, gen }, values, invertible)
    }

    /// `lego.order_by(P1, …, Pq)`: dims are the concatenation; `P1` is the most significant part.
    pub fn order_by(parts: impl IntoIterator<Item = Layout>) -> Result<Self> {
        let parts: Vec<Layout> = parts.into_iter().collect();
        if parts.is_empty() {
            return Err(AlgebraError::Empty { op: "order_by", what: "layout" });
        }
        let values: Vec<u64> = parts.iter().flat_map(|p| p.dims().iter().copied()).collect();
        let invertible = parts.iter().all(Layout::is_invertible);
        Self::build(LayoutNode::OrderBy { parts }, values, invertible)
    }

    /// `lego.group_by [g⃗](O1, …, Ov)`. `apply` runs the objects last to first (so the paper's
    /// `GroupBy(g).OrderBy(A).OrderBy(B)` is `group_by(g, [B, A])`). Every object must have `Π g⃗` elements.
    pub fn group_by<D: Into<Dim>>(
        dims: impl IntoIterator<Item = D>,
        objects: impl IntoIterator<Item = Layout>,
    ) -> Result<Self> {
        let dims = into_dims(dims);
        check_dims("group_by", &dims)?;
        let objects: Vec<Layout> = objects.into_iter().collect();
        let values = values(&dims);
        let group = bounded_count("group_by", values.iter().copied())?;
        if let Some((object, o)) = objects.iter().enumerate().find(|(_, o)| o.numel() != group) {
            return Err(AlgebraError::GroupProductMismatch { group, object, numel: o.numel() });
        }
        let invertible = objects.iter().all(Layout::is_invertible);
        Self::build(LayoutNode::GroupBy { dims, objects }, values, invertible)
    }

    /// `lego.tile_by O tile_dims [[t_{0,·}], [t_{1,·}], …]` (docs/reference/semantics.md): `O` must be an
    /// `order_by(P_0, …, P_{q_o-1})` of blocks that all have the tile rank `d_o = rank(P_0)` (the first
    /// block's rank, not the order_by's total rank); every level has `d_o` entries and, for each dim `k`,
    /// `Π_l t_{l,k} = Π_h o_{h,k}` (`o_{h,k}` = dim `k` of block `h`). The logical index is level-major:
    /// `(level-0 indices…, level-1 indices…, …)`. A plain `row` / `col` / `reg_p` input is the order_by of
    /// that one block (`q_o = 1`), as the dialect verifier and the published algebra take it.
    pub fn tile_by<D, Level>(inner: Layout, tile_dims: impl IntoIterator<Item = Level>) -> Result<Self>
    where
        D: Into<Dim>,
        Level: IntoIterator<Item = D>,
    {
        let inner = match inner.node() {
            LayoutNode::Row { .. } | LayoutNode::Col { .. } | LayoutNode::RegP { .. } => Layout::order_by([inner])?,
            _ => inner,
        };
        let LayoutNode::OrderBy { parts: blocks } = inner.node() else {
            return Err(AlgebraError::TileInputNotOrderBy);
        };
        let tile_dims: Vec<Vec<Dim>> = tile_dims.into_iter().map(into_dims).collect();
        if tile_dims.is_empty() {
            return Err(AlgebraError::Empty { op: "tile_by", what: "tiling level" });
        }
        // `order_by` has at least one part (checked by its constructor).
        let rank = blocks[0].rank();
        if let Some((block, b)) = blocks.iter().enumerate().find(|(_, b)| b.rank() != rank) {
            return Err(AlgebraError::TileBlockRankMismatch { block, rank: b.rank(), first: rank });
        }
        if let Some(level) = tile_dims.iter().find(|level| level.len() != rank) {
            return Err(AlgebraError::TileRankMismatch { level_len: level.len(), input_rank: rank });
        }
        if let Some(zero) = tile_dims.iter().flatten().find(|d| d.value == 0) {
            return Err(AlgebraError::NonPositiveTileDimension(zero.value));
        }
        // The total product comes first: when it differs some per-dim product differs too, and the total
        // is the message the dialect contract names.
        let tile = bounded_count("tile_by", tile_dims.iter().flatten().map(|d| d.value))?;
        if tile != inner.numel() {
            return Err(AlgebraError::TileProductMismatch { tile, input: inner.numel() });
        }
        for k in 0..rank {
            let product = checked_product(tile_dims.iter().map(|level| level[k].value), "the product of tile dims")?;
            let size = checked_product(blocks.iter().map(|b| b.dims()[k]), "the product of block dims")?;
            if product != size {
                return Err(AlgebraError::TileDimensionProductMismatch { dim: k, tile: product, input: size });
            }
        }
        let values: Vec<u64> = tile_dims.iter().flatten().map(|d| d.value).collect();
        let invertible = inner.is_invertible();
        Self::build(LayoutNode::TileBy { inner, tile_dims }, values, invertible)
    }

    /// `lego.expand_by L dims [n⃗] to [m⃗]` (partial tiles): `L` is a layout over the expanded shape
    /// (`numel(L) = Π m⃗`), its flat output is read as an index into `m⃗`, and positions outside `n⃗`
    /// have no element. The logical dims are `dims(L)`; valid inverse inputs are `[0, Π n⃗)`.
    pub fn expand_by<D1: Into<Dim>, D2: Into<Dim>>(
        inner: Layout,
        dims: impl IntoIterator<Item = D1>,
        to: impl IntoIterator<Item = D2>,
    ) -> Result<Self> {
        let dims = into_dims(dims);
        let to = into_dims(to);
        check_dims("expand_by", &dims)?;
        check_dims("expand_by", &to)?;
        if dims.len() != to.len() {
            return Err(AlgebraError::ExpandRankMismatch { dims_rank: dims.len(), to_rank: to.len() });
        }
        if let Some((dim, (n, m))) = dims.iter().zip(&to).enumerate().find(|(_, (n, m))| n.value > m.value) {
            return Err(AlgebraError::ExpandDimensionTooLarge { dim, size: n.value, to: m.value });
        }
        // Π n⃗ ≤ Π m⃗ once every n_k ≤ m_k, so bounding the expanded volume bounds the real one too.
        let volume = bounded_count("expand_by", to.iter().map(|d| d.value))?;
        if volume != inner.numel() {
            return Err(AlgebraError::ExpandVolumeMismatch { to: volume, input: inner.numel() });
        }
        let values = inner.dims().to_vec();
        let invertible = inner.is_invertible();
        Self::build(LayoutNode::ExpandBy { inner, dims, to }, values, invertible)
    }

    /// `lego.swizzle bits B base M shift S dims [n⃗]`: CuTe's `Swizzle<B, M, S>` on the row-major flat index
    /// `x = B(n⃗, i⃗)`: `apply(i⃗) = x ^ ((x & yyy) >> S)` with `yyy = (2^B − 1) << (M + S)`, i.e. bits
    /// `[M, M+B)` XORed with bits `[M+S, M+S+B)`. `S ≥ B` keeps the two bit ranges apart, which makes the map
    /// its own inverse; `Π n⃗` must be a multiple of `2^(M+S+B)` so that it permutes `[0, Π n⃗)`.
    pub fn swizzle<D: Into<Dim>>(bits: u32, base: u32, shift: u32, dims: impl IntoIterator<Item = D>) -> Result<Self> {
        let dims = into_dims(dims);
        check_dims("swizzle", &dims)?;
        check_swizzle_parameters(bits, base, shift)?;
        let values = values(&dims);
        let numel = bounded_count("swizzle", values.iter().copied())?;
        let period = 1u64 << (bits + base + shift);
        if numel % period != 0 {
            return Err(AlgebraError::SwizzleSize { numel, bits, base, shift, period });
        }
        Self::build(LayoutNode::Swizzle { bits, base, shift, dims }, values, true)
    }

    /// `lego.compose %outer, %inner`: `outer` after `inner` (CuTe's `composition(outer, inner)`). The logical
    /// dims are `inner`'s; `inner`'s flat output is read as a row-major index into `outer`'s dims, so the
    /// number of positions `inner` maps to ([`Layout::codomain_size`]) must be `numel(outer)`.
    /// `apply(i⃗) = apply(outer, B⁻¹(dims(outer), apply(inner, i⃗)))`,
    /// `inv(y) = inv(inner, B(dims(outer), inv(outer, y)))`.
    pub fn compose(outer: Layout, inner: Layout) -> Result<Self> {
        if inner.codomain_size() != outer.numel() {
            return Err(AlgebraError::ComposeSizeMismatch { inner: inner.codomain_size(), outer: outer.numel() });
        }
        let values = inner.dims().to_vec();
        let invertible = inner.is_invertible() && outer.is_invertible();
        Self::build(LayoutNode::Compose { outer, inner }, values, invertible)
    }

    /// `lego.inverse %l`: the inverse of the bijection `l` as a layout with the one dim `[numel(l)]`:
    /// `apply(x) = B(dims(l), inv(l, x))`, `inv(y) = (apply(l, B⁻¹(dims(l), y)))`. `l` must be invertible and
    /// onto its elements (not an `expand_by`, whose inverse covers fewer positions than it has elements).
    pub fn inverse(inner: Layout) -> Result<Self> {
        if !inner.is_invertible() {
            return Err(AlgebraError::NotInvertible(inner.apply_only_description()));
        }
        if !inner.is_onto() {
            return Err(AlgebraError::NotBijective(inner.to_string()));
        }
        let values = vec![inner.numel()];
        Self::build(LayoutNode::Inverse { inner }, values, true)
    }

    /// `lego.strided shape [...] stride [...]` (CuTe's `shape:stride`, hierarchical modes allowed): `modes[k]`
    /// lists the `(size, stride)` leaves of logical dim `k`, whose size is the product of its leaf sizes.
    /// `apply(i⃗) = Σ_leaves digit · stride`, each `i_k` split over its mode's leaves first leaf fastest.
    /// Must be injective (checked: a colliding pair of indices is the error); invertible exactly when compact
    /// (the leaves, sorted by stride, form a mixed radix: then it is a bijection onto `[0, numel)`), otherwise
    /// apply-only with positions up to its extent `1 + Σ (size − 1)·stride`.
    pub fn strided(modes: Vec<Vec<(u64, u64)>>) -> Result<Self> {
        let info = check_strided(&modes)?;
        let values: Vec<u64> = modes.iter().map(|mode| mode.iter().map(|(size, _)| size).product()).collect();
        Self::build(LayoutNode::Strided { modes }, values, info.compact)
    }

    /// Whether `apply` maps onto `[0, numel)` (with `is_invertible`: a bijection): false when an `expand_by`
    /// is the layout or the last stage of it (padding positions have no element), true otherwise.
    pub fn is_onto(&self) -> bool {
        match self.node() {
            LayoutNode::ExpandBy { .. } => false,
            LayoutNode::Strided { modes } => check_strided(modes).is_ok_and(|info| info.compact),
            LayoutNode::Compose { outer, .. } => outer.is_onto(),
            LayoutNode::OrderBy { parts } => parts.iter().all(Layout::is_onto),
            LayoutNode::GroupBy { objects, .. } => objects.first().map_or(true, Layout::is_onto),
            LayoutNode::TileBy { inner, .. } => inner.is_onto(),
            _ => true,
        }
    }

    /// The structure of this layout.
    pub fn node(&self) -> &LayoutNode {
        &self.0.node
    }

    /// The logical dims: the sizes of the indices `apply` takes.
    pub fn dims(&self) -> &[u64] {
        &self.0.dims
    }

    /// The number of logical indices `apply` takes.
    pub fn rank(&self) -> usize {
        self.0.dims.len()
    }

    /// `Π dims()`: the size of the logical index space. Construction rejects layouts where it exceeds
    /// [`crate::MAX_ELEMENTS`] (2^63 − 1), so this cannot fail.
    pub fn numel(&self) -> u64 {
        self.0.numel
    }

    /// The exclusive bound of valid `apply_inverse` inputs, i.e. the number of physical elements:
    /// `Π n⃗` for an `expand_by`, `numel()` for everything else.
    pub fn codomain_size(&self) -> u64 {
        match self.node() {
            // Validated at construction: Π n⃗ ≤ Π m⃗ = numel(L).
            LayoutNode::ExpandBy { dims, .. } => dims.iter().map(|d| d.value).product(),
            LayoutNode::Compose { outer, .. } => outer.codomain_size(),
            // Validated at construction: injective, extent ≤ MAX_ELEMENTS.
            LayoutNode::Strided { modes } => check_strided(modes).map_or(self.numel(), |info| info.extent),
            _ => self.numel(),
        }
    }

    /// Whether `apply_inverse` is defined: false when an apply-only `gen_p` occurs anywhere inside.
    pub fn is_invertible(&self) -> bool {
        self.0.invertible
    }

    /// The direct sub-layouts, in the order they appear in the op's operand list.
    pub fn children(&self) -> Vec<&Layout> {
        match self.node() {
            LayoutNode::Row { .. }
            | LayoutNode::Col { .. }
            | LayoutNode::RegP { .. }
            | LayoutNode::GenP { .. }
            | LayoutNode::Swizzle { .. }
            | LayoutNode::Strided { .. } => Vec::new(),
            LayoutNode::OrderBy { parts } => parts.iter().collect(),
            LayoutNode::GroupBy { objects, .. } => objects.iter().collect(),
            LayoutNode::TileBy { inner, .. } | LayoutNode::ExpandBy { inner, .. } | LayoutNode::Inverse { inner } => {
                vec![inner]
            }
            LayoutNode::Compose { outer, inner } => vec![outer, inner],
        }
    }

    /// The size entries written in this node's own op, in textual order (for `reg_p`, the `dims` list;
    /// for `tile_by`, the levels flattened; for `expand_by`, `dims` then `to`).
    pub fn own_dim_entries(&self) -> Vec<Dim> {
        match self.node() {
            LayoutNode::Row { dims }
            | LayoutNode::Col { dims }
            | LayoutNode::RegP { dims, .. }
            | LayoutNode::GenP { dims, .. }
            | LayoutNode::Swizzle { dims, .. }
            | LayoutNode::GroupBy { dims, .. } => dims.clone(),
            LayoutNode::OrderBy { .. } | LayoutNode::Compose { .. } | LayoutNode::Inverse { .. } => Vec::new(),
            // The logical sizes (products of the leaves), all literals.
            LayoutNode::Strided { .. } => self.dims().iter().map(|&d| Dim::lit(d)).collect(),
            LayoutNode::TileBy { tile_dims, .. } => tile_dims.iter().flatten().copied().collect(),
            LayoutNode::ExpandBy { dims, to, .. } => dims.iter().chain(to).copied().collect(),
        }
    }

    /// The logical dims as size entries (with their symbolic flags): `own_dim_entries` for ops that list
    /// their logical sizes, the concatenation of the parts for `order_by`, the input's for `expand_by`.
    pub fn logical_dim_entries(&self) -> Vec<Dim> {
        match self.node() {
            LayoutNode::OrderBy { parts } => parts.iter().flat_map(Layout::logical_dim_entries).collect(),
            LayoutNode::ExpandBy { inner, .. } | LayoutNode::Compose { inner, .. } => inner.logical_dim_entries(),
            // One size, Π dims(inner): symbolic when any factor is (it exists only at run time).
            LayoutNode::Inverse { inner } => {
                vec![Dim { value: inner.numel(), symbolic: inner.logical_dim_entries().iter().any(|d| d.symbolic) }]
            }
            _ => self.own_dim_entries(),
        }
    }

    /// For a `tile_by`: its input's blocks (the `order_by`'s parts) and its tile levels.
    pub fn tile_structure(&self) -> Option<(&[Layout], &[Vec<Dim>])> {
        match self.node() {
            LayoutNode::TileBy { inner, tile_dims } => match inner.node() {
                LayoutNode::OrderBy { parts } => Some((parts, tile_dims)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The values of all symbolic size entries, children before parents and each op's entries in textual
    /// order. This is the order in which [`crate::mlir`] passes them as function arguments.
    pub fn symbolic_sizes(&self) -> Vec<u64> {
        let mut out = Vec::new();
        self.collect_symbolic(&mut out);
        out
    }

    fn collect_symbolic(&self, out: &mut Vec<u64>) {
        for child in self.children() {
            child.collect_symbolic(out);
        }
        out.extend(self.own_dim_entries().iter().filter(|d| d.symbolic).map(|d| d.value));
    }

    /// The number of layout ops in the tree (shared sub-layouts counted once per use).
    pub fn op_count(&self) -> usize {
        1 + self.children().iter().map(|c| c.op_count()).sum::<usize>()
    }

    /// The depth of the tree (1 for a primitive).
    pub fn depth(&self) -> usize {
        1 + self.children().iter().map(|c| c.depth()).max().unwrap_or(0)
    }
}

fn write_list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    write!(f, "[")?;
    for (k, item) in items.iter().enumerate() {
        if k > 0 {
            write!(f, ", ")?;
        }
        write!(f, "{item}")?;
    }
    write!(f, "]")
}

fn write_layouts(f: &mut fmt::Formatter<'_>, layouts: &[Layout]) -> fmt::Result {
    write!(f, "(")?;
    for (k, l) in layouts.iter().enumerate() {
        if k > 0 {
            write!(f, ", ")?;
        }
        write!(f, "{l}")?;
    }
    write!(f, ")")
}

/// A one-line nested notation close to the dialect syntax, e.g.
/// `group_by [6, 4](order_by(reg_p perm [1, 0] dims [2, 2], gen_p [3, 2] rev(3, 2)))`.
impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.node() {
            LayoutNode::Row { dims } => {
                write!(f, "row ")?;
                write_list(f, dims)
            }
            LayoutNode::Col { dims } => {
                write!(f, "col ")?;
                write_list(f, dims)
            }
            LayoutNode::RegP { perm, dims } => {
                write!(f, "reg_p perm ")?;
                write_list(f, perm)?;
                write!(f, " dims ")?;
                write_list(f, dims)
            }
            LayoutNode::GenP { dims, gen } => {
                write!(f, "gen_p ")?;
                write_list(f, dims)?;
                write!(f, " {gen}")
            }
            LayoutNode::OrderBy { parts } => {
                write!(f, "order_by")?;
                write_layouts(f, parts)
            }
            LayoutNode::GroupBy { dims, objects } => {
                write!(f, "group_by ")?;
                write_list(f, dims)?;
                write_layouts(f, objects)
            }
            LayoutNode::TileBy { inner, tile_dims } => {
                write!(f, "tile_by {inner} tile_dims [")?;
                for (k, level) in tile_dims.iter().enumerate() {
                    if k > 0 {
                        write!(f, ", ")?;
                    }
                    write_list(f, level)?;
                }
                write!(f, "]")
            }
            LayoutNode::ExpandBy { inner, dims, to } => {
                write!(f, "expand_by {inner} dims ")?;
                write_list(f, dims)?;
                write!(f, " to ")?;
                write_list(f, to)
            }
            LayoutNode::Swizzle { bits, base, shift, dims } => {
                write!(f, "swizzle bits {bits} base {base} shift {shift} dims ")?;
                write_list(f, dims)
            }
            LayoutNode::Compose { outer, inner } => write!(f, "compose({outer}, {inner})"),
            LayoutNode::Inverse { inner } => write!(f, "inverse({inner})"),
            LayoutNode::Strided { modes } => {
                let (shape, stride) = strided_text(modes);
                write!(f, "strided shape {shape} stride {stride}")
            }
        }
    }
}

impl fmt::Debug for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Layout({self})")
    }
}
