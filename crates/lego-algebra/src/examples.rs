//! The layouts of the paper and of docs/reference/semantics.md's worked examples, ready to use in tests.
//!
//! The builders for fixed examples return `Layout` directly: their data is constant and valid, which
//! this module's tests check.

use crate::error::Result;
use crate::genfn::GenFn;
use crate::layout::Layout;

/// A constant example; a failure here is a bug in this module, caught by its tests.
fn fixed(layout: Result<Layout>) -> Layout {
    layout.expect("fixed example layouts are valid")
}

/// `rev(n1, n2)`: the `gen_p [n1, n2]` that reverses both axes of a row-major `n1 × n2` array.
pub fn rev(n1: u64, n2: u64) -> Result<Layout> {
    Layout::gen_p([n1, n2], GenFn::Rev { n1, n2 })
}

/// `antidiag(n)`: the `gen_p [n, n]` of paper Fig. 7, numbering cells by anti-diagonal, then row.
pub fn antidiag(n: u64) -> Result<Layout> {
    Layout::gen_p([n, n], GenFn::Antidiag { n })
}

/// `row [4, 8]` (worked example 4): `apply(1, 2) = 10`.
pub fn row_4x8() -> Layout {
    fixed(Layout::row([4, 8]))
}

/// `col [4, 8]` (worked example 4): `apply(1, 2) = 9`.
pub fn col_4x8() -> Layout {
    fixed(Layout::col([4, 8]))
}

/// Paper Fig. 2 (worked example 1): `group_by [6, 4](order_by(reg_p perm [1, 0] dims [2, 2], rev(3, 2)))`.
pub fn fig2() -> Layout {
    fixed((|| {
        let parts = Layout::order_by([Layout::reg_p([1, 0], [2, 2])?, rev(3, 2)?])?;
        Layout::group_by([6, 4], [parts])
    })())
}

/// Paper Fig. 6's `O2 = order_by(reg_p perm [0, 2, 1, 3] dims [2, 3, 2, 3])`.
pub fn fig6_o2() -> Layout {
    fixed((|| Layout::order_by([Layout::reg_p([0, 2, 1, 3], [2, 3, 2, 3])?]))())
}

/// Paper Fig. 6's `O1 = order_by(reg_p perm [1, 0] dims [2, 2], antidiag(3))`.
pub fn fig6_o1() -> Layout {
    fixed((|| Layout::order_by([Layout::reg_p([1, 0], [2, 2])?, antidiag(3)?]))())
}

/// Paper Fig. 6 (worked example 2): `group_by [6, 6](O1, O2)` — `O2` is applied first.
pub fn fig6() -> Layout {
    fixed(Layout::group_by([6, 6], [fig6_o1(), fig6_o2()]))
}

/// Worked example 3: `tile_by (order_by(row [8, 12])) tile_dims [[2, 4], [4, 3]]`.
pub fn tiled_8x12() -> Layout {
    fixed((|| Layout::tile_by(Layout::order_by([Layout::row([8, 12])?])?, [[2, 4], [4, 3]]))())
}

/// Paper Fig. 1 / Table I: `tile_by (order_by(row [M, K])) tile_dims [[M/BM, K/BK], [BM, BK]]`, whose
/// `apply(ti, tk, i, k) = (ti·BM + i)·K + tk·BK + k`. Fails unless the block sizes divide the matrix sizes.
pub fn fig1_tiled(m: u64, k: u64, bm: u64, bk: u64) -> Result<Layout> {
    let inner = Layout::order_by([Layout::row([m, k])?])?;
    // Division by a zero block size is avoided so that the zero reaches tile_by's own check.
    let outer = |size: u64, block: u64| size.checked_div(block).unwrap_or(0);
    Layout::tile_by(inner, [[outer(m, bm), outer(k, bk)], [bm, bk]])
}

/// docs/reference/semantics.md worked example 5, tile_by (d_o = 1, two blocks, four levels):
/// `tile_by (order_by(row [10], col [20])) tile_dims [[2], [5], [5], [4]]`: apply(1, 2, 3, 1) = 153.
pub fn tiled_two_blocks_rank1() -> Layout {
    fixed((|| Layout::tile_by(Layout::order_by([Layout::row([10])?, Layout::col([20])?])?, [[2], [5], [5], [4]]))())
}

/// docs/reference/semantics.md worked example 6, tile_by (identity shortcut):
/// `tile_by (order_by(row [6,6,6], row [8,8,8])) tile_dims [[6,6,6], [8,8,8]]`: apply(1,…,6) = 26414.
pub fn tiled_identity_6x8() -> Layout {
    fixed((|| {
        let inner = Layout::order_by([Layout::row([6, 6, 6])?, Layout::row([8, 8, 8])?])?;
        Layout::tile_by(inner, [[6, 6, 6], [8, 8, 8]])
    })())
}

/// docs/reference/semantics.md worked example 7, tile_by (multi-block split):
/// `tile_by (order_by(row [2,4], row [3,2])) tile_dims [[3,2], [2,4]]`: apply(1, 1, 1, 3) = 43.
pub fn tiled_split_2x4_3x2() -> Layout {
    fixed((|| Layout::tile_by(Layout::order_by([Layout::row([2, 4])?, Layout::row([3, 2])?])?, [[3, 2], [2, 4]]))())
}

/// docs/reference/semantics.md worked example 8, tile_by (Triton's grouped program-id remap, GM = 2):
/// `tile_by (order_by(col [2,1], col [2,3])) tile_dims [[4, 3]]`: inverse(7) = (3, 0).
pub fn triton_grouped_pid() -> Layout {
    fixed((|| Layout::tile_by(Layout::order_by([Layout::col([2, 1])?, Layout::col([2, 3])?])?, [[4, 3]]))())
}

/// A partial-tile layout (paper Fig. 9 style): a `5 × 6` row-major matrix seen as `2 × 2` tiles of
/// `4 × 4` over the padded `8 × 8` shape:
/// `expand_by (tile_by (order_by(row [8, 8])) tile_dims [[2, 2], [4, 4]]) dims [5, 6] to [8, 8]`.
pub fn partial_tiles_5x6() -> Layout {
    fixed((|| {
        let tiled = Layout::tile_by(Layout::order_by([Layout::row([8, 8])?])?, [[2, 2], [4, 4]])?;
        Layout::expand_by(tiled, [5, 6], [8, 8])
    })())
}

/// Every fixed example, named, for sweeping tests.
pub fn all() -> Vec<(&'static str, Layout)> {
    vec![
        ("row_4x8", row_4x8()),
        ("col_4x8", col_4x8()),
        ("fig2", fig2()),
        ("fig6_o1", fig6_o1()),
        ("fig6_o2", fig6_o2()),
        ("fig6", fig6()),
        ("tiled_8x12", tiled_8x12()),
        ("partial_tiles_5x6", partial_tiles_5x6()),
        ("tiled_two_blocks_rank1", tiled_two_blocks_rank1()),
        ("tiled_identity_6x8", tiled_identity_6x8()),
        ("tiled_split_2x4_3x2", tiled_split_2x4_3x2()),
        ("triton_grouped_pid", triton_grouped_pid()),
    ]
}
