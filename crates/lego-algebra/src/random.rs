//! Seeded, reproducible random layouts for differential and property tests.
//!
//! The PRNG is SplitMix64 (Steele, Lea, Flood 2014), written here so that a seed means the same layout
//! on every platform and every version of every dependency.

use crate::genfn::{isqrt, GenFn};
use crate::layout::{Dim, Layout};

/// SplitMix64: a tiny, fast, statistically decent 64-bit generator.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, bound)`; 0 when `bound` is 0 (so callers need no special case for empty ranges).
    pub fn below(&mut self, bound: u64) -> u64 {
        if bound == 0 {
            return 0;
        }
        // Rejection sampling removes the modulo bias of the top, partial copy of [0, bound).
        let zone = u64::MAX - u64::MAX % bound;
        loop {
            let v = self.next_u64();
            if v < zone {
                return v % bound;
            }
        }
    }

    /// Uniform in `[lo, hi]` (`lo` when `hi < lo`).
    pub fn range_inclusive(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent / 100`.
    pub fn percent(&mut self, percent: u32) -> bool {
        self.below(100) < u64::from(percent)
    }

    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for k in (1..items.len()).rev() {
            let j = self.below(k as u64 + 1) as usize;
            items.swap(k, j);
        }
    }
}

/// Knobs of [`random_layout`].
#[derive(Debug, Clone)]
pub struct RandomConfig {
    /// Upper bound on `numel()` of the generated layout (clamped to at least 1).
    pub max_numel: u64,
    /// Nesting depth of composite ops below the root (0: a single primitive).
    pub max_depth: usize,
    /// Chance, in percent, that a size entry is marked symbolic (passed as an SSA value in MLIR).
    pub symbolic_percent: u32,
    /// Whether the root may be an `expand_by` (only the root: "no element" inside a composite has no
    /// defined meaning in docs/reference/semantics.md, see [`Layout::apply`]).
    pub allow_expand_by: bool,
    /// Every root is a `tile_by` (random tile rank d, q_o blocks, q_t levels; one in six an identity tiling),
    /// for focused tests of its lowering and normal form.
    pub only_tile_by: bool,
    /// Chance, in percent, that a sub-layout is one of the ops added after the published dialect
    /// (`swizzle`). 0 (the default) draws nothing extra from the generator, so seeds give the same
    /// layouts as before those ops existed.
    pub new_ops_percent: u32,
}

impl Default for RandomConfig {
    fn default() -> Self {
        RandomConfig {
            max_numel: 4096,
            max_depth: 3,
            symbolic_percent: 0,
            allow_expand_by: true,
            only_tile_by: false,
            new_ops_percent: 0,
        }
    }
}

/// A random layout drawn from `rng`: random nestings of `row`, `col`, `reg_p`, `gen_p` (`rev`,
/// `antidiag`), `order_by`, `group_by`, `tile_by` and, at the root, `expand_by`. Every result is a valid,
/// invertible layout; the same seed and config always give the same layout.
pub fn random_layout(rng: &mut SplitMix64, config: &RandomConfig) -> Layout {
    let mut generator = Generator { rng, config };
    let numel = generator.numel();
    if config.only_tile_by {
        return generator.tile(numel, config.max_depth).expect("the generator builds valid layouts");
    }
    // A padded (non-compact, apply-only) strided layout only at the root: its positions exceed its elements,
    // which no enclosing op accepts.
    if config.new_ops_percent > 0 && generator.rng.percent(config.new_ops_percent / 4) {
        let gap = generator.rng.range_inclusive(1, 3);
        return generator.strided(numel, gap);
    }
    let layout = generator.layout(numel, config.max_depth);
    if config.allow_expand_by && generator.rng.percent(25) {
        generator.expand(layout)
    } else {
        layout
    }
}

/// A uniformly random logical index of `layout` (a valid `apply` input).
pub fn random_index(layout: &Layout, rng: &mut SplitMix64) -> Vec<u64> {
    layout.dims().iter().map(|&n| rng.below(n)).collect()
}

/// A uniformly random valid `apply_inverse` input of `layout`.
pub fn random_flat(layout: &Layout, rng: &mut SplitMix64) -> u64 {
    rng.below(layout.codomain_size())
}

/// The prime factors of `n` with multiplicity (empty for 1).
fn prime_factors(mut n: u64) -> Vec<u64> {
    let mut factors = Vec::new();
    let mut p = 2;
    while p * p <= n {
        while n % p == 0 {
            factors.push(p);
            n /= p;
        }
        p += 1;
    }
    if n > 1 {
        factors.push(n);
    }
    factors
}

struct Generator<'a> {
    rng: &'a mut SplitMix64,
    config: &'a RandomConfig,
}

impl Generator<'_> {
    /// A random element count: a product of small factors, so that it splits into many shapes.
    fn numel(&mut self) -> u64 {
        let max = self.config.max_numel.max(1);
        let mut numel = 1u64;
        for _ in 0..self.rng.range_inclusive(1, 6) {
            let factor = self.rng.range_inclusive(1, 8);
            if numel.saturating_mul(factor) <= max {
                numel *= factor;
            }
        }
        numel
    }

    fn dim(&mut self, value: u64) -> Dim {
        Dim { value, symbolic: self.rng.percent(self.config.symbolic_percent) }
    }

    /// A gen_p's dims are always static: its bodies (`rev`, `antidiag`) have the sizes baked in as constants,
    /// so with a symbolic dim the gen_p would be a bijection only at the one run-time value the test passes, and
    /// the compiler's gen_p inverse obligation (proved for every value of the size) rightly refutes it.
    fn static_dim(value: u64) -> Dim {
        Dim { value, symbolic: false }
    }

    /// Splits `n` into `parts` factors (some may be 1) by scattering its prime factors.
    fn split(&mut self, n: u64, parts: usize) -> Vec<u64> {
        let mut out = vec![1u64; parts.max(1)];
        for p in prime_factors(n) {
            let slot = self.rng.below(out.len() as u64) as usize;
            out[slot] *= p;
        }
        out
    }

    fn dims(&mut self, n: u64, parts: usize) -> Vec<Dim> {
        self.split(n, parts).into_iter().map(|v| self.dim(v)).collect()
    }

    fn rank(&mut self) -> usize {
        self.rng.range_inclusive(1, 3) as usize
    }

    /// A layout with exactly `numel` elements.
    fn layout(&mut self, numel: u64, depth: usize) -> Layout {
        if self.config.new_ops_percent > 0 && self.rng.percent(self.config.new_ops_percent) {
            if let Some(layout) = self.new_op(numel, depth) {
                return layout;
            }
        }
        let kinds = if depth == 0 { 5 } else { 8 };
        let built = match self.rng.below(kinds) {
            0 => {
                let r = self.rank();
                Layout::row(self.dims(numel, r))
            }
            1 => {
                let r = self.rank();
                Layout::col(self.dims(numel, r))
            }
            2 => {
                let r = self.rank();
                let mut perm: Vec<usize> = (0..r).collect();
                self.rng.shuffle(&mut perm);
                Layout::reg_p(perm, self.dims(numel, r))
            }
            3 => {
                let [n1, n2] = self.split(numel, 2)[..] else { unreachable!("split(_, 2) has two parts") };
                Layout::gen_p([Self::static_dim(n1), Self::static_dim(n2)], GenFn::Rev { n1, n2 })
            }
            4 => {
                let n = isqrt(numel);
                if n * n == numel {
                    Layout::gen_p([Self::static_dim(n), Self::static_dim(n)], GenFn::Antidiag { n })
                } else {
                    // Not a square: fall back to a primitive that fits any count.
                    let r = self.rank();
                    Layout::row(self.dims(numel, r))
                }
            }
            5 => {
                let count = self.rng.range_inclusive(1, 3) as usize;
                let parts: Vec<Layout> =
                    self.split(numel, count).into_iter().map(|n| self.layout(n, depth - 1)).collect();
                Layout::order_by(parts)
            }
            6 => {
                let r = self.rank();
                let dims = self.dims(numel, r);
                let objects: Vec<Layout> =
                    (0..self.rng.range_inclusive(0, 3)).map(|_| self.layout(numel, depth - 1)).collect();
                Layout::group_by(dims, objects)
            }
            _ => self.tile(numel, depth),
        };
        built.expect("the generator builds valid layouts")
    }

    /// A `tile_by` over an `order_by` of `q_o` blocks of the same rank `d` (the tile rank), each a layout with
    /// the block dims `o_{h,·}`, tiled with `q_t` levels whose per-dim products match the blocks'. One in six
    /// is an identity tiling (the levels are the blocks' dims), exercising the shortcut.
    fn tile(&mut self, numel: u64, depth: usize) -> crate::Result<Layout> {
        let d = self.rng.range_inclusive(1, 3) as usize;
        // Keep d·q_o and d·q_t ≤ 8 for readable MLIR and fast enumeration.
        let max_levels = (8 / d).clamp(1, 3) as u64;
        let q_o = self.rng.range_inclusive(1, max_levels) as usize;
        let block_numels = self.split(numel, q_o);
        let block_dims: Vec<Vec<u64>> = block_numels.iter().map(|&n| self.split(n, d)).collect();
        let blocks: Vec<Layout> = block_dims
            .iter()
            .map(|dims| {
                let dims: Vec<Dim> = dims.iter().map(|&v| self.dim(v)).collect();
                self.layout_with_dims(dims, depth.saturating_sub(1))
            })
            .collect();
        let inner = Layout::order_by(blocks)?;
        if self.rng.percent(17) {
            let levels: Vec<Vec<Dim>> = block_dims.iter().map(|dims| dims.iter().map(|&v| Dim::lit(v)).collect()).collect();
            return Layout::tile_by(inner, levels);
        }
        let q_t = self.rng.range_inclusive(1, max_levels) as usize;
        let mut tile_dims = vec![Vec::with_capacity(d); q_t];
        for k in 0..d {
            let size: u64 = block_dims.iter().map(|dims| dims[k]).product();
            for (level, v) in tile_dims.iter_mut().zip(self.split(size, q_t)) {
                level.push(v);
            }
        }
        let tile_dims: Vec<Vec<Dim>> =
            tile_dims.into_iter().map(|level| level.into_iter().map(|v| self.dim(v)).collect()).collect();
        Layout::tile_by(inner, tile_dims)
    }

    /// A layout whose logical dims are exactly `dims`: a primitive, a `rev` when the rank is 2, or (with
    /// depth left) a `group_by` over random objects.
    fn layout_with_dims(&mut self, dims: Vec<Dim>, depth: usize) -> Layout {
        let kinds = if depth == 0 { 4 } else { 5 };
        let numel: u64 = dims.iter().map(|d| d.value).product();
        let built = match self.rng.below(kinds) {
            0 => Layout::row(dims),
            1 => Layout::col(dims),
            2 => {
                let mut perm: Vec<usize> = (0..dims.len()).collect();
                self.rng.shuffle(&mut perm);
                Layout::reg_p(perm, dims)
            }
            3 if dims.len() == 2 => {
                let (n1, n2) = (dims[0].value, dims[1].value);
                Layout::gen_p([Self::static_dim(n1), Self::static_dim(n2)], GenFn::Rev { n1, n2 })
            }
            3 => Layout::row(dims),
            _ => {
                let objects: Vec<Layout> =
                    (0..self.rng.range_inclusive(1, 2)).map(|_| self.layout(numel, depth - 1)).collect();
                Layout::group_by(dims, objects)
            }
        };
        built.expect("the generator builds valid layouts")
    }

    /// One of the ops added after the published dialect with exactly `numel` elements (`compose` and
    /// `inverse` of random layouts while depth is left), or `None` when `numel` does not suit the op drawn: a
    /// `swizzle` needs a factor `2^(bits+base+shift)` with `shift ≥ bits ≥ 1`.
    fn new_op(&mut self, numel: u64, depth: usize) -> Option<Layout> {
        match self.rng.below(if depth > 0 { 4 } else { 2 }) {
            0 => self.swizzle(numel),
            1 => Some(self.strided(numel, 1)),
            // `outer` after `inner`, both with `numel` elements (not an expand_by: "no element" inside a
            // composite has no defined meaning).
            2 => {
                let outer = self.layout(numel, depth - 1);
                let inner = self.layout(numel, depth - 1);
                Some(Layout::compose(outer, inner).expect("the generator builds valid compositions"))
            }
            _ => {
                let inner = self.layout(numel, depth - 1);
                Some(Layout::inverse(inner).expect("the generator's layouts are bijections"))
            }
        }
    }

    /// A CuTe-style `strided` layout with `numel` elements: 1–3 modes of 1–2 leaves, strides the mixed radix of
    /// a random order of the leaves, each stride scaled by `gap` (1: compact, a bijection; more: padded,
    /// injective and apply-only).
    fn strided(&mut self, numel: u64, gap: u64) -> Layout {
        let r = self.rank();
        let mut modes: Vec<Vec<(u64, u64)>> = self
            .split(numel, r)
            .into_iter()
            .map(|size| {
                let leaves = self.rng.range_inclusive(1, 2) as usize;
                self.split(size, leaves).into_iter().map(|leaf| (leaf, 0)).collect()
            })
            .collect();
        let mut order: Vec<(usize, usize)> =
            modes.iter().enumerate().flat_map(|(k, mode)| (0..mode.len()).map(move |j| (k, j))).collect();
        self.rng.shuffle(&mut order);
        let mut stride = 1u64;
        for (k, j) in order {
            modes[k][j].1 = stride;
            stride *= modes[k][j].0 * gap;
        }
        Layout::strided(modes).expect("mixed-radix strides are injective")
    }

    /// A `swizzle` with `numel` elements, when `numel` has the factor `2^(bits+base+shift)` it needs.
    fn swizzle(&mut self, numel: u64) -> Option<Layout> {
        let twos = numel.trailing_zeros();
        if twos < 2 {
            return None;
        }
        let bits = self.rng.range_inclusive(1, u64::from(twos / 2)) as u32;
        let shift = self.rng.range_inclusive(u64::from(bits), u64::from(twos - bits)) as u32;
        let base = self.rng.range_inclusive(0, u64::from(twos - bits - shift)) as u32;
        let r = self.rank();
        let dims = self.dims(numel, r);
        Some(Layout::swizzle(bits, base, shift, dims).expect("the generator builds valid swizzles"))
    }

    /// Wraps `layout` in an `expand_by` over a random shape with its element count.
    fn expand(&mut self, layout: Layout) -> Layout {
        let r = self.rank();
        let to = self.split(layout.numel(), r);
        let dims: Vec<Dim> = to
            .iter()
            .map(|&m| {
                let n = self.rng.range_inclusive(1, m);
                self.dim(n)
            })
            .collect();
        let to: Vec<Dim> = to.into_iter().map(|m| self.dim(m)).collect();
        Layout::expand_by(layout, dims, to).expect("the generator builds valid layouts")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::LayoutNode;

    #[test]
    fn splitmix64_reference_values() {
        // First outputs for seed 0 of the reference implementation (Vigna's splitmix64.c).
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(rng.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn below_stays_in_range() {
        let mut rng = SplitMix64::new(7);
        for bound in 1..50 {
            for _ in 0..50 {
                assert!(rng.below(bound) < bound);
            }
        }
        assert_eq!(rng.below(0), 0);
    }

    #[test]
    fn same_seed_same_layout() {
        let config = RandomConfig { symbolic_percent: 30, ..RandomConfig::default() };
        for seed in 0..20 {
            let a = random_layout(&mut SplitMix64::new(seed), &config);
            let b = random_layout(&mut SplitMix64::new(seed), &config);
            assert_eq!(a, b);
            assert_eq!(a.to_string(), b.to_string());
        }
    }

    /// Over many seeds the generator must produce every op kind, symbolic sizes, and respect the bound.
    #[test]
    fn covers_every_op_kind() {
        fn visit(l: &Layout, seen: &mut [bool; 8], symbolic: &mut bool) {
            let k = match l.node() {
                LayoutNode::Row { .. } => 0,
                LayoutNode::Col { .. } => 1,
                LayoutNode::RegP { .. } => 2,
                LayoutNode::GenP { gen: GenFn::Rev { .. }, .. } => 3,
                LayoutNode::GenP { .. } => 4,
                LayoutNode::OrderBy { .. } => 5,
                LayoutNode::GroupBy { .. } => 6,
                LayoutNode::TileBy { .. } | LayoutNode::ExpandBy { .. } => 7,
                // Drawn only with `new_ops_percent` (not in this test's config).
                LayoutNode::Swizzle { .. }
                | LayoutNode::Compose { .. }
                | LayoutNode::Inverse { .. }
                | LayoutNode::Strided { .. } => {
                    unreachable!("new ops are off by default")
                }
            };
            seen[k] = true;
            *symbolic |= l.own_dim_entries().iter().any(|d| d.symbolic);
            for c in l.children() {
                visit(c, seen, symbolic);
            }
        }
        let config = RandomConfig { symbolic_percent: 20, ..RandomConfig::default() };
        let mut rng = SplitMix64::new(1);
        let (mut seen, mut symbolic, mut expand, mut tile) = ([false; 8], false, false, false);
        for _ in 0..300 {
            let l = random_layout(&mut rng, &config);
            assert!(l.numel() <= config.max_numel, "{l}");
            expand |= matches!(l.node(), LayoutNode::ExpandBy { .. });
            tile |= l.to_string().contains("tile_by");
            visit(&l, &mut seen, &mut symbolic);
        }
        assert!(seen.iter().all(|&s| s), "{seen:?}");
        assert!(symbolic && expand && tile);
    }

    #[test]
    fn new_ops_are_drawn_when_asked_and_only_then() {
        let has_swizzle = |l: &Layout| l.to_string().contains("swizzle");
        let config = RandomConfig { new_ops_percent: 30, symbolic_percent: 20, ..RandomConfig::default() };
        let mut rng = SplitMix64::new(4);
        let layouts: Vec<Layout> = (0..200).map(|_| random_layout(&mut rng, &config)).collect();
        for op in ["swizzle", "compose(", "inverse(", "strided"] {
            let drawn = layouts.iter().filter(|l| l.to_string().contains(op)).count();
            assert!(drawn > 10, "{op}: {drawn}");
        }
        let mut rng = SplitMix64::new(4);
        assert!(!(0..200).any(|_| has_swizzle(&random_layout(&mut rng, &RandomConfig::default()))));
    }

    #[test]
    fn only_tile_by_covers_multi_block_shapes() {
        let config = RandomConfig { only_tile_by: true, symbolic_percent: 30, ..RandomConfig::default() };
        let mut rng = SplitMix64::new(11);
        let (mut multi_block, mut multi_level, mut identity, mut rank_above_one) = (false, false, false, false);
        for _ in 0..200 {
            let l = random_layout(&mut rng, &config);
            let Some((blocks, levels)) = l.tile_structure() else { panic!("not a tile_by: {l}") };
            multi_block |= blocks.len() > 1;
            multi_level |= levels.len() > 1;
            rank_above_one |= levels[0].len() > 1;
            identity |= levels.len() == blocks.len()
                && levels.iter().zip(blocks).all(|(level, block)| level.iter().map(|d| d.value).eq(block.dims().iter().copied()));
        }
        assert!(multi_block && multi_level && identity && rank_above_one);
    }

    #[test]
    fn random_inputs_are_in_range() {
        let mut rng = SplitMix64::new(3);
        for _ in 0..50 {
            let l = random_layout(&mut rng, &RandomConfig::default());
            let index = random_index(&l, &mut rng);
            assert!(l.check_index(&index).is_ok());
            assert!(random_flat(&l, &mut rng) < l.codomain_size());
        }
    }
}
