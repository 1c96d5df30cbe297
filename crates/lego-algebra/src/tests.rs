//! Crate-level tests: every worked example of docs/reference/semantics.md, round trips of every op, normalization, and
//! error cases. Expected numbers are computed by hand from the reference's formulas (shown in comments).

use std::sync::Arc;

use crate::examples::{self, antidiag, rev};
use crate::random::{random_layout, RandomConfig, SplitMix64};
use crate::*;

type TestResult = std::result::Result<(), AlgebraError>;

/// All logical indices of `layout` in row-major order.
fn all_indices(layout: &Layout) -> impl Iterator<Item = Vec<u64>> + '_ {
    (0..layout.numel()).map(move |p| mixed_radix_unflatten(layout.dims(), p))
}

fn assert_bijective(layout: &Layout) {
    let report = layout.check_bijective(1 << 17).expect("check runs");
    assert!(
        matches!(report, BijectivityReport::Bijective { inverse_checked: true, .. }),
        "{layout}: {report:?}"
    );
}

/// `a` and `b` have the same dims, apply and inverse on every input.
fn assert_same_semantics(a: &Layout, b: &Layout) {
    assert_eq!(a.dims(), b.dims(), "{a} vs {b}");
    assert_eq!(a.codomain_size(), b.codomain_size(), "{a} vs {b}");
    for index in all_indices(a) {
        assert_eq!(a.apply(&index), b.apply(&index), "apply{index:?} of {a} vs {b}");
    }
    for flat in 0..a.codomain_size() {
        assert_eq!(a.apply_inverse(flat), b.apply_inverse(flat), "apply_inverse({flat}) of {a} vs {b}");
    }
}

// ---------------------------------------------------------------------------------------------------
// Worked examples of docs/reference/semantics.md

#[test]
fn example_1_fig2() -> TestResult {
    let l = examples::fig2();
    // B([6,4],(4,1)) = 17 → B⁻¹([2,2,3,2], 17) = (1,0,2,1); reg_p [1,0] (1,0) = 0·2+1 = 1;
    // rev(3,2)(2,1) = 0·2 + 0 = 0; order_by: 1·6 + 0 = 6.
    assert_eq!(l.apply(&[4, 1])?, 6);
    assert_eq!(l.apply_inverse(6)?, vec![4, 1]);
    assert_eq!(l.numel(), 24);
    assert_eq!(l.check_bijective(24)?, BijectivityReport::Bijective { points: 24, masked: 0, inverse_checked: true });
    assert_eq!(
        l.to_string(),
        "group_by [6, 4](order_by(reg_p perm [1, 0] dims [2, 2], gen_p [3, 2] rev(3, 2)))"
    );
    Ok(())
}

#[test]
fn example_2_fig6() -> TestResult {
    // Logical (4, 2) of [6, 6] is flat 4·6 + 2 = 26 = B([2,3,2,3], (1,1,0,2)).
    let o2 = examples::fig6_o2();
    assert_eq!(o2.dims(), &[2, 3, 2, 3]);
    // reg_p [0,2,1,3]: σ(n) = [2,2,3,3], σ(i) = [1,0,1,2] → ((1·2+0)·3+1)·3+2 = 23.
    assert_eq!(o2.apply(&[1, 1, 0, 2])?, 23);
    let l = examples::fig6();
    // O2 first: 26 → 23; O1 on B⁻¹([2,2,3,3], 23) = (1,0,1,2): reg_p [1,0](1,0) = 1,
    // antidiag(3)(1,2): a = 4 > 3, a' = 2, f = 9-3+1-1 = 6; order_by: 1·9 + 6 = 15.
    assert_eq!(l.apply(&[4, 2])?, 15);
    assert_eq!(l.apply_inverse(15)?, vec![4, 2]);
    assert_bijective(&l);
    // Running the objects in the other order gives a different number (17), so the order is tested:
    // O1 on B⁻¹([2,2,3,3], 26) = (1,0,2,2) → 1·9 + antidiag(3)(2,2) = 9 + 8 = 17;
    // O2 on B⁻¹([2,3,2,3], 17) = (0,2,1,2) → ((0·2+1)·3+2)·3+2 = 17.
    let swapped = Layout::group_by([6, 6], [examples::fig6_o2(), examples::fig6_o1()])?;
    assert_eq!(swapped.apply(&[4, 2])?, 17);
    Ok(())
}

#[test]
fn example_3_tile_by() -> TestResult {
    let l = examples::tiled_8x12();
    assert_eq!(l.dims(), &[2, 4, 4, 3]);
    // (1·4+3)·12 + 2·3+1 = 91.
    assert_eq!(l.apply(&[1, 2, 3, 1])?, 91);
    assert_eq!(l.apply_inverse(91)?, vec![1, 2, 3, 1]);
    assert_bijective(&l);
    Ok(())
}

// docs/reference/semantics.md, tile_by worked examples: each value by hand, each layout an exhaustive bijection.

#[test]
fn tile_by_example_two_blocks_of_rank_one() -> TestResult {
    let l = examples::tiled_two_blocks_rank1();
    assert_eq!(l.dims(), &[2, 5, 5, 4]);
    // c = B([2,5,5,4], (1,2,3,1)) = 153; split over [10, 20] → (7, 13); row[10](7)·20 + col[20](13) = 153.
    assert_eq!(l.apply(&[1, 2, 3, 1])?, 153);
    assert_eq!(l.apply_inverse(7)?, vec![0, 0, 1, 3]);
    assert_bijective(&l);
    Ok(())
}

#[test]
fn tile_by_example_identity_shortcut() -> TestResult {
    let l = examples::tiled_identity_6x8();
    assert_eq!(l.dims(), &[6, 6, 6, 8, 8, 8]);
    // row[6,6,6](1,2,3) = 51, row[8,8,8](4,5,6) = 302: 51·512 + 302 = 26414.
    assert_eq!(l.apply(&[1, 2, 3, 4, 5, 6])?, 26414);
    assert_eq!(l.apply_inverse(26414)?, vec![1, 2, 3, 4, 5, 6]);
    assert_bijective(&l);
    Ok(())
}

#[test]
fn tile_by_example_multi_block_split() -> TestResult {
    let l = examples::tiled_split_2x4_3x2();
    // c = (3, 7); 3 over [2,3] → (1, 0); 7 over [4,2] → (3, 1); row[2,4](1,3)·6 + row[3,2](0,1) = 43.
    assert_eq!(l.apply(&[1, 1, 1, 3])?, 43);
    assert_eq!(l.apply_inverse(43)?, vec![1, 1, 1, 3]);
    assert_bijective(&l);
    // Not the single-block reading: order_by's total rank is 4, but d_o = 2.
    assert_eq!(l.rank(), 4);
    Ok(())
}

#[test]
fn tile_by_example_triton_grouped_pid() -> TestResult {
    let l = examples::triton_grouped_pid();
    assert_eq!(l.dims(), &[4, 3]);
    assert_eq!(l.apply_inverse(7)?, vec![3, 0]);
    assert_eq!(l.apply(&[3, 0])?, 7);
    assert_bijective(&l);
    Ok(())
}

#[test]
fn tile_by_paper_table_one_uses_the_inner_dims_as_strides() -> TestResult {
    // (M/BM, K/BK, BM, BK) = (2, 3, 4, 4) over row [8, 12]: (pm·BM + i)·K + pk·BK + k.
    let l = examples::fig1_tiled(8, 12, 4, 4)?;
    for index in all_indices(&l) {
        let (pm, pk, i, k) = (index[0], index[1], index[2], index[3]);
        assert_eq!(l.apply(&index)?, (pm * 4 + i) * 12 + pk * 4 + k, "{index:?}");
    }
    Ok(())
}

#[test]
fn tile_by_identity_shortcut_agrees_with_the_general_formula() -> TestResult {
    // Same numbers, once as the shortcut and once with the levels swapped into a non-identity split.
    let shortcut = Layout::tile_by(Layout::order_by([Layout::row([2, 3])?, Layout::col([4, 5])?])?, [[2, 3], [4, 5]])?;
    let general = Layout::tile_by(Layout::order_by([Layout::row([2, 3])?, Layout::col([4, 5])?])?, [[1, 1], [8, 15]])?;
    for index in all_indices(&shortcut) {
        // Level-major (i0,i1,j0,j1) under the shortcut is block-major; the general tiling with outer level
        // of size 1 combines c_k = j_k over [8, 15] and splits it over [o_{0,k}, o_{1,k}] = [2,4], [3,5].
        let c = [index[0] * 4 + index[2], index[1] * 5 + index[3]];
        assert_eq!(shortcut.apply(&index)?, general.apply(&[0, 0, c[0], c[1]])?);
    }
    assert_bijective(&shortcut);
    assert_bijective(&general);
    Ok(())
}

#[test]
fn example_4_row_and_col() -> TestResult {
    let (row, col) = (examples::row_4x8(), examples::col_4x8());
    assert_eq!(row.apply(&[1, 2])?, 10); // 1·8 + 2
    assert_eq!(col.apply(&[1, 2])?, 9); // 2·4 + 1
    assert_eq!(row.apply_inverse(10)?, vec![1, 2]);
    assert_eq!(col.apply_inverse(9)?, vec![1, 2]);
    assert_bijective(&row);
    assert_bijective(&col);
    Ok(())
}

#[test]
fn antidiag_4_by_rows() -> TestResult {
    let l = antidiag(4)?;
    let expected = [[0, 1, 3, 6], [2, 4, 7, 10], [5, 8, 11, 13], [9, 12, 14, 15]];
    for (i, row) in expected.iter().enumerate() {
        for (j, &f) in row.iter().enumerate() {
            assert_eq!(l.apply(&[i as u64, j as u64])?, f);
            assert_eq!(l.apply_inverse(f)?, vec![i as u64, j as u64]);
        }
    }
    Ok(())
}

#[test]
fn antidiag_layout_is_bijective_up_to_64() {
    for n in 1..=64 {
        assert_bijective(&antidiag(n).expect("valid"));
    }
}

#[test]
fn fig1_table_i_formula() -> TestResult {
    let (m, k, bm, bk) = (8, 12, 4, 3);
    let l = examples::fig1_tiled(m, k, bm, bk)?;
    for ti in 0..m / bm {
        for tk in 0..k / bk {
            for i in 0..bm {
                for kk in 0..bk {
                    // Table I: (ti·BM + i)·K + tk·BK + k.
                    assert_eq!(l.apply(&[ti, tk, i, kk])?, (ti * bm + i) * k + tk * bk + kk);
                }
            }
        }
    }
    assert!(examples::fig1_tiled(8, 12, 3, 3).is_err());
    assert!(examples::fig1_tiled(8, 12, 0, 3).is_err());
    Ok(())
}

#[test]
fn every_fixed_example_is_bijective() {
    for (name, l) in examples::all() {
        let report = l.check_bijective(1 << 17).expect("check runs");
        assert!(report.is_bijective(), "{name}: {report:?}");
    }
}

// ---------------------------------------------------------------------------------------------------
// Each op kind, by hand

#[test]
fn reg_p_perm_direction() -> TestResult {
    let l = Layout::reg_p([1, 2, 0], [2, 3, 4])?;
    // σ(n) = [3, 4, 2], σ(1,2,3) = [2, 3, 1] → (2·4 + 3)·2 + 1 = 23.
    assert_eq!(l.apply(&[1, 2, 3])?, 23);
    // phys = B⁻¹([3,4,2], 23) = [2, 3, 1]; result[σ_k] = phys[k] → result = [1, 2, 3].
    assert_eq!(l.apply_inverse(23)?, vec![1, 2, 3]);
    assert_bijective(&l);
    Ok(())
}

#[test]
fn order_by_two_parts() -> TestResult {
    let l = Layout::order_by([Layout::row([2, 3])?, Layout::col([2, 2])?])?;
    assert_eq!(l.dims(), &[2, 3, 2, 2]);
    // row [2,3](1,2) = 5; col [2,2](0,1) = 1·2 + 0 = 2; 5·4 + 2 = 22.
    assert_eq!(l.apply(&[1, 2, 0, 1])?, 22);
    assert_eq!(l.apply_inverse(22)?, vec![1, 2, 0, 1]);
    assert_bijective(&l);
    Ok(())
}

#[test]
fn group_by_without_objects_is_row_major() -> TestResult {
    let l = Layout::group_by([3, 4], Vec::new())?;
    assert_eq!(l.apply(&[2, 1])?, 9);
    assert_eq!(l.apply_inverse(9)?, vec![2, 1]);
    Ok(())
}

#[test]
fn group_by_reshapes_between_objects() -> TestResult {
    // group_by [6](rev(2,3)): x = 4 → B⁻¹([2,3], 4) = (1,1) → rev: (0)·3 + 1 = 1.
    let l = Layout::group_by([6], [rev(2, 3)?])?;
    assert_eq!(l.apply(&[4])?, 1);
    assert_eq!(l.apply_inverse(1)?, vec![4]);
    assert_bijective(&l);
    Ok(())
}

#[test]
fn tile_by_three_levels() -> TestResult {
    let l = Layout::tile_by(Layout::order_by([Layout::row([8])?])?, [[2], [2], [2]])?;
    // c = B([2,2,2], (1,0,1)) = 5.
    assert_eq!(l.apply(&[1, 0, 1])?, 5);
    assert_eq!(l.apply_inverse(5)?, vec![1, 0, 1]);
    // A tiled column-major inner: c = (B([2,2],(1,1)), B([3,1],(2,0))) = (3, 2); col [4,3](3,2) = 2·4+3 = 11.
    let l = Layout::tile_by(Layout::order_by([Layout::col([4, 3])?])?, [[2, 3], [2, 1]])?;
    assert_eq!(l.apply(&[1, 2, 1, 0])?, 11);
    assert_eq!(l.apply_inverse(11)?, vec![1, 2, 1, 0]);
    assert_bijective(&l);
    Ok(())
}

#[test]
fn expand_by_partial_tiles() -> TestResult {
    let l = examples::partial_tiles_5x6();
    assert_eq!(l.dims(), &[2, 2, 4, 4]);
    assert_eq!(l.numel(), 64);
    assert_eq!(l.codomain_size(), 30);
    // Row ti·4+i, column tj·4+j of the padded 8×8; an element iff row < 5 and column < 6.
    for index in all_indices(&l) {
        let (r, c) = (index[0] * 4 + index[2], index[1] * 4 + index[3]);
        let expected = if r < 5 && c < 6 { r * 6 + c } else { NO_ELEMENT };
        assert_eq!(l.apply(&index)?, expected, "{index:?}");
    }
    // (1,1,0,1): row 4, column 5 → 4·6 + 5 = 29.
    assert_eq!(l.apply(&[1, 1, 0, 1])?, 29);
    assert_eq!(l.apply_inverse(29)?, vec![1, 1, 0, 1]);
    assert_eq!(l.apply(&[0, 1, 2, 3])?, u64::MAX); // column 7
    assert_eq!(l.check_bijective(64)?, BijectivityReport::Bijective { points: 64, masked: 34, inverse_checked: true });
    assert!(matches!(l.apply_inverse(30), Err(AlgebraError::FlatOutOfRange { flat: 30, size: 30 })));
    Ok(())
}

#[test]
fn custom_gen_p_round_trips_inside_composites() -> TestResult {
    // A transpose of a 2×3 array, with its inverse.
    let t = GenFn::Custom {
        name: "transpose".into(),
        apply: Arc::new(|i: &[u64]| i[1] * 2 + i[0]),
        inverse: Some(Arc::new(|x: u64| vec![x % 2, x / 2])),
    };
    let l = Layout::group_by([6], [Layout::gen_p([2, 3], t)?])?;
    // x = 5 → (1, 2) → 2·2 + 1 = 5; x = 1 → (0, 1) → 2.
    assert_eq!(l.apply(&[1])?, 2);
    assert_eq!(l.apply_inverse(2)?, vec![1]);
    assert_bijective(&l);
    Ok(())
}

#[test]
fn symbolic_flags_do_not_change_semantics() -> TestResult {
    let lit = Layout::row([4, 8])?;
    let sym = Layout::row([Dim::sym(4), Dim::lit(8)])?;
    assert_ne!(lit, sym);
    assert_same_semantics(&lit, &sym);
    assert_eq!(sym.symbolic_sizes(), vec![4]);
    assert_eq!(sym.to_string(), "row [$4, 8]");
    Ok(())
}

// ---------------------------------------------------------------------------------------------------
// Normalization

#[test]
fn normalize_preserves_every_fixed_example() {
    for (name, l) in examples::all() {
        let n = l.normalize();
        assert_same_semantics(&l, &n);
        assert_eq!(n.normalize(), n, "{name}: normalize is not idempotent");
    }
}

fn has_sugar(l: &Layout) -> bool {
    matches!(l.node(), LayoutNode::Row { .. } | LayoutNode::Col { .. } | LayoutNode::TileBy { .. })
        || l.children().into_iter().any(has_sugar)
}

#[test]
fn normalize_preserves_random_layouts() {
    let config = RandomConfig { max_numel: 1024, symbolic_percent: 20, ..RandomConfig::default() };
    let mut rng = SplitMix64::new(2024);
    for _ in 0..300 {
        let l = random_layout(&mut rng, &config);
        let n = l.normalize();
        assert!(!has_sugar(&n), "{n}");
        assert!(n.symbolic_sizes().len() >= l.symbolic_sizes().len(), "{l} → {n}");
        assert_same_semantics(&l, &n);
        assert_eq!(n.normalize(), n, "{l}");
    }
}

#[test]
fn random_layouts_are_bijective() {
    let mut rng = SplitMix64::new(99);
    for _ in 0..300 {
        let l = random_layout(&mut rng, &RandomConfig::default());
        assert_bijective(&l);
    }
}

// ---------------------------------------------------------------------------------------------------
// Errors (messages in the dialect contract's wording where it has one)

fn message(e: AlgebraError) -> String {
    e.to_string()
}

#[test]
fn reg_p_errors() {
    let e = Layout::reg_p([0, 1], [2, 3, 4]).map(|_| ()).map_err(message);
    assert_eq!(e, Err("Permutation rank 2 does not match dimensions rank 3".to_string()));
    let e = Layout::reg_p([0, 0, 2], [2, 3, 4]).map(|_| ()).map_err(message);
    assert_eq!(e, Err("Invalid permutation: not a permutation of 0..2".to_string()));
    let e = Layout::reg_p([0, 3, 1], [2, 3, 4]).map(|_| ()).map_err(message);
    assert_eq!(e, Err("Invalid permutation: not a permutation of 0..2".to_string()));
    let e = Layout::reg_p([0, 1], [2, 0]).map(|_| ()).map_err(message);
    assert_eq!(e, Err("Dimension 0 must be strictly positive".to_string()));
}

#[test]
fn empty_and_zero_dims() {
    let empty: [u64; 0] = [];
    assert!(matches!(Layout::row(empty), Err(AlgebraError::Empty { op: "row", .. })));
    assert!(matches!(Layout::group_by(empty, []), Err(AlgebraError::Empty { op: "group_by", .. })));
    assert!(matches!(Layout::order_by([]), Err(AlgebraError::Empty { op: "order_by", .. })));
    assert_eq!(Layout::col([3, 0]).map(|_| ()), Err(AlgebraError::NonPositiveDimension(0)));
    assert_eq!(Layout::group_by([0], []).map(|_| ()), Err(AlgebraError::NonPositiveDimension(0)));
}

#[test]
fn tile_by_errors() -> TestResult {
    let inner = Layout::order_by([Layout::row([10])?])?;
    let e = |r: Result<Layout>| r.map(|_| ()).map_err(message);
    assert_eq!(
        e(Layout::tile_by(inner.clone(), [[2], [2]])),
        Err("Total product of tile dims (4) does not match total product of input dims (10)".to_string())
    );
    assert_eq!(
        e(Layout::tile_by(inner.clone(), [[2, 5]])),
        Err("Inner tile dimension 2 does not match input layout dimension 1".to_string())
    );
    assert_eq!(
        e(Layout::tile_by(inner.clone(), [[0], [10]])),
        Err("Tile dimension 0 must be strictly positive".to_string())
    );
    // A plain row is the order_by of that one block (semantics.md: q_o = 1): apply(a, b) = row([10])(5a + b),
    // by hand (1, 3) -> 8 and inverse 8 -> (1, 3); the same layout as through an explicit order_by.
    let plain = Layout::tile_by(Layout::row([10])?, [[2], [5]])?;
    assert_eq!(plain.apply(&[1, 3])?, 8);
    assert_eq!(plain.apply_inverse(8)?, vec![1, 3]);
    assert_same_semantics(&plain, &Layout::tile_by(inner.clone(), [[2], [5]])?);
    // col [2, 3] as one block, tiles [[1, 3], [2, 1]]: c = (a0·2 + b0, a1·1 + b1) = (b0, a1), and
    // col(2, 3)(c0, c1) = c0 + 2·c1: (0, 2, 1, 0) -> 1 + 2·2 = 5.
    let col = Layout::tile_by(Layout::col([2, 3])?, [[1, 3], [2, 1]])?;
    assert_eq!(col.apply(&[0, 2, 1, 0])?, 5);
    // Other layouts are no plain block: a group_by input is still refused.
    let grouped = Layout::group_by([10], [Layout::row([10])?])?;
    assert_eq!(e(Layout::tile_by(grouped, [[2], [5]])), Err("input must be an OrderBy layout".to_string()));
    // Blocks of different ranks.
    let ragged = Layout::order_by([Layout::row([2, 3])?, Layout::row([4])?])?;
    assert_eq!(
        e(Layout::tile_by(ragged, [[6], [4]])),
        Err("Block 1 of the input layout has rank 1, but the tile rank (rank of block 0) is 2".to_string())
    );
    // d is the first block's rank, not the order_by's total rank (2 here).
    let two_blocks = Layout::order_by([Layout::row([10])?, Layout::col([20])?])?;
    assert_eq!(
        e(Layout::tile_by(two_blocks.clone(), [[10, 20]])),
        Err("Inner tile dimension 2 does not match input layout dimension 1".to_string())
    );
    // Per-dim product over blocks: dim 0 of the two rank-2 blocks is 2·3 = 6, the tiles give 3·1.
    let blocks2 = Layout::order_by([Layout::row([2, 4])?, Layout::row([3, 2])?])?;
    assert_eq!(
        Layout::tile_by(blocks2, [[3, 8], [1, 2]]).map(|_| ()),
        Err(AlgebraError::TileDimensionProductMismatch { dim: 0, tile: 3, input: 6 })
    );
    let no_levels: [[u64; 1]; 0] = [];
    assert!(matches!(Layout::tile_by(inner.clone(), no_levels), Err(AlgebraError::Empty { op: "tile_by", .. })));
    // Levels of different lengths: the second is checked against the rank too.
    let inner2 = Layout::order_by([Layout::row([4, 6])?])?;
    assert_eq!(
        e(Layout::tile_by(inner2.clone(), vec![vec![2, 2], vec![2, 3, 1]])),
        Err("Inner tile dimension 3 does not match input layout dimension 2".to_string())
    );
    // Total 24 agrees, but dim 0 gets 3·2 = 6 ≠ 4.
    assert_eq!(
        Layout::tile_by(inner2, [[3, 2], [2, 2]]).map(|_| ()),
        Err(AlgebraError::TileDimensionProductMismatch { dim: 0, tile: 6, input: 4 })
    );
    Ok(())
}

#[test]
fn group_by_gen_p_and_expand_by_errors() -> TestResult {
    assert_eq!(
        Layout::group_by([6, 4], [Layout::row([5, 5])?]).map(|_| ()),
        Err(AlgebraError::GroupProductMismatch { group: 24, object: 0, numel: 25 })
    );
    assert!(matches!(Layout::gen_p([3, 3], GenFn::Rev { n1: 3, n2: 2 }), Err(AlgebraError::GenDimsMismatch { .. })));
    assert!(matches!(Layout::gen_p([4, 5], GenFn::Antidiag { n: 4 }), Err(AlgebraError::GenDimsMismatch { .. })));
    assert!(matches!(antidiag(ANTIDIAG_MAX_N), Err(AlgebraError::GenParameter { .. })));
    assert!(matches!(rev(0, 3), Err(AlgebraError::NonPositiveDimension(0))));
    let l = Layout::row([8, 8])?;
    assert_eq!(
        Layout::expand_by(l.clone(), [5], [8, 8]).map(|_| ()),
        Err(AlgebraError::ExpandRankMismatch { dims_rank: 1, to_rank: 2 })
    );
    assert_eq!(
        Layout::expand_by(l.clone(), [5, 9], [8, 8]).map(|_| ()),
        Err(AlgebraError::ExpandDimensionTooLarge { dim: 1, size: 9, to: 8 })
    );
    assert_eq!(
        Layout::expand_by(l, [5, 6], [8, 7]).map(|_| ()),
        Err(AlgebraError::ExpandVolumeMismatch { to: 56, input: 64 })
    );
    Ok(())
}

#[test]
fn apply_and_inverse_input_errors() -> TestResult {
    let l = Layout::row([4, 8])?;
    assert_eq!(
        l.apply(&[1]).map_err(message),
        Err("number of indices (1) does not match layout rank (2)".to_string())
    );
    assert_eq!(l.apply(&[1, 2, 3]), Err(AlgebraError::IndexCount { found: 3, rank: 2 }));
    assert_eq!(l.apply(&[1, 8]), Err(AlgebraError::IndexOutOfRange { position: 1, index: 8, size: 8 }));
    assert_eq!(l.apply(&[4, 0]), Err(AlgebraError::IndexOutOfRange { position: 0, index: 4, size: 4 }));
    assert_eq!(l.apply_inverse(32), Err(AlgebraError::FlatOutOfRange { flat: 32, size: 32 }));
    assert_eq!(examples::tiled_8x12().apply(&[1, 2, 3]), Err(AlgebraError::IndexCount { found: 3, rank: 4 }));
    Ok(())
}

#[test]
fn inverse_of_apply_only_layouts_is_an_error() -> TestResult {
    // An injective map into a larger range (a padded "broadcast"-like embedding): no inverse.
    let embed = Layout::gen_p([4], GenFn::custom("bcast", |i: &[u64]| 2 * i[0], None))?;
    assert!(!embed.is_invertible());
    assert_eq!(embed.apply(&[3])?, 6);
    let nested = Layout::order_by([Layout::row([2])?, embed])?;
    assert!(!nested.is_invertible());
    // order_by: 1·4 + 2·2 = 8.
    assert_eq!(nested.apply(&[1, 2])?, 8);
    let grouped = Layout::group_by([8], [nested])?;
    assert!(!grouped.is_invertible());
    let e = grouped.apply_inverse(0);
    assert_eq!(e, Err(AlgebraError::NotInvertible("gen_p custom(bcast, apply-only)".to_string())));
    assert_eq!(
        e.map_err(message),
        Err("layout is not invertible: gen_p custom(bcast, apply-only) has no inverse".to_string())
    );
    Ok(())
}

/// The element-count bound (2^63 − 1), checked exactly by every constructor that makes a count.
fn too_many(op: &'static str, sizes: &[u64]) -> Result<(), AlgebraError> {
    Err(AlgebraError::TooManyElements { op, count: ElementCount::of(sizes.iter().copied()) })
}

#[test]
fn constructors_reject_more_than_two_to_the_63_minus_one_elements() -> TestResult {
    const P62: u64 = 1 << 62;
    // The inputs: 2^65 elements, 2^124 elements.
    assert_eq!(Layout::row([P62, 8]).map(|_| ()), too_many("row", &[P62, 8]));
    assert_eq!(Layout::col([P62, P62]).map(|_| ()), too_many("col", &[P62, P62]));
    // Just at the bound: 2^62 · 2 = 2^63 is one too many; 2^63 − 1 and 2^31 · 2^31 = 2^62 are fine.
    assert_eq!(Layout::row([P62, 2]).map(|_| ()), too_many("row", &[P62, 2]));
    assert_eq!(Layout::row([MAX_ELEMENTS]).map(|l| l.numel()), Ok(MAX_ELEMENTS));
    assert_eq!(Layout::row([1 << 31, 1 << 31]).map(|l| l.numel()), Ok(P62));
    assert_eq!(Layout::reg_p([1, 0], [P62, 2]).map(|_| ()), too_many("reg_p", &[P62, 2]));
    assert_eq!(Layout::row([1u64 << 63]).map(|_| ()), too_many("row", &[1 << 63]));
    assert_eq!(Layout::row([u64::MAX]).map(|_| ()), too_many("row", &[u64::MAX]));
    let identity = GenFn::custom("id", |i: &[u64]| i[0], Some(Arc::new(|x: u64| vec![x])));
    assert_eq!(Layout::gen_p([P62, 2], identity).map(|_| ()), too_many("gen_p", &[P62, 2]));

    // group_by [2^62 + 1, 4](order_by(row [4])): 2^64 + 4 ≡ 4 (mod 2^64) must not match the object's 4.
    let four = Layout::order_by([Layout::row([4])?])?;
    assert_eq!(Layout::group_by([P62 + 1, 4], [four.clone()]).map(|_| ()), too_many("group_by", &[P62 + 1, 4]));
    // tile_by (order_by(row [4])) tile_dims [[2^62 + 1], [4]]: likewise.
    let tiled = Layout::tile_by(four.clone(), [[Dim::lit(P62 + 1)], [Dim::lit(4)]]);
    assert_eq!(tiled.map(|_| ()), too_many("tile_by", &[P62 + 1, 4]));
    // order_by of parts that each fit but together do not: the order_by is the op that makes the count.
    let half = Layout::row([P62])?;
    assert_eq!(Layout::order_by([half.clone(), Layout::row([2])?]).map(|_| ()), too_many("order_by", &[P62, 2]));
    assert_eq!(Layout::order_by([half, Layout::row([1])?])?.numel(), P62);
    // expand_by with a too large expanded volume.
    assert_eq!(Layout::expand_by(four, [3], [1u64 << 63]).map(|_| ()), too_many("expand_by", &[1 << 63]));

    // Normal layouts are unchanged.
    assert_eq!(Layout::row([4, 8])?.numel(), 32);
    assert_eq!(Layout::group_by([6, 4], [examples::fig2()])?.numel(), 24);
    Ok(())
}

#[test]
fn too_many_elements_message_names_the_exact_count() {
    let error = Layout::row([1u64 << 62, 8]).map(|_| ()).expect_err("2^65 elements");
    assert_eq!(
        error.to_string(),
        "has 36893488147419103232 elements, more than 2^63 - 1, the most a layout may have (its indices, strides \
         and sizes must stay below 2^63, where signed and unsigned index arithmetic agree)"
    );
}

#[test]
fn overflow_is_reported() {
    // A custom map that returns a huge value overflows the enclosing order_by's arithmetic.
    let huge = Layout::gen_p([2], GenFn::custom("huge", |_: &[u64]| u64::MAX - 1, None)).expect("valid");
    let l = Layout::order_by([Layout::row([2]).expect("valid"), huge]).expect("valid");
    assert!(matches!(l.apply(&[1, 0]), Err(AlgebraError::Overflow(_))));
}

#[test]
fn bad_custom_inverse_arity_is_reported() -> TestResult {
    let bad = GenFn::Custom {
        name: "bad".into(),
        apply: Arc::new(|i: &[u64]| i[0] * 2 + i[1]),
        inverse: Some(Arc::new(|x: u64| vec![x])),
    };
    let l = Layout::gen_p([2, 2], bad)?;
    assert_eq!(l.apply_inverse(1), Err(AlgebraError::GenInverseArity { name: "bad".into(), found: 1, expected: 2 }));
    assert!(!l.check_bijective(4)?.is_bijective());
    Ok(())
}

// ---------------------------------------------------------------------------------------------------
// docs/reference/semantics.md: the examples it states beyond the worked examples above (each by hand there).

#[test]
fn reference_examples() -> TestResult {
    // row / col [4, 8] and their inverses.
    assert_eq!(examples::row_4x8().apply(&[1, 2])?, 10);
    assert_eq!(examples::row_4x8().apply_inverse(10)?, vec![1, 2]);
    assert_eq!(examples::col_4x8().apply(&[1, 2])?, 9);
    assert_eq!(examples::col_4x8().apply_inverse(9)?, vec![1, 2]);
    // The transpose: apply(i, j) = j·3 + i.
    let transpose = Layout::reg_p([1, 0], [3, 4])?;
    for (i, j) in [(0, 0), (2, 1), (1, 3)] {
        assert_eq!(transpose.apply(&[i, j])?, j * 3 + i);
    }
    assert_eq!(transpose.apply(&[2, 1])?, 5);
    assert_eq!(transpose.apply_inverse(5)?, vec![2, 1]);
    // reg_p perm [2, 0, 1] dims [2, 3, 4]: σ(n) = [4, 2, 3], σ(1, 2, 3) = (3, 1, 2) → (3·2 + 1)·3 + 2 = 23.
    let permuted = Layout::reg_p([2, 0, 1], [2, 3, 4])?;
    assert_eq!(permuted.apply(&[1, 2, 3])?, 23);
    assert_eq!(permuted.apply_inverse(23)?, vec![1, 2, 3]);
    assert_bijective(&permuted);
    // order_by(row [2, 3], col [2, 2]): 5·4 + 2 = 22.
    let stacked = Layout::order_by([Layout::row([2, 3])?, Layout::col([2, 2])?])?;
    assert_eq!(stacked.apply(&[1, 2, 0, 1])?, 22);
    assert_eq!(stacked.apply_inverse(22)?, vec![1, 2, 0, 1]);
    assert_bijective(&stacked);
    // group_by [4, 8](col [8, 4]): B([4, 8], (1, 2)) = 10 → (2, 2) over [8, 4] → 2·8 + 2 = 18.
    let regrouped = Layout::group_by([4, 8], [Layout::col([8, 4])?])?;
    assert_eq!(regrouped.apply(&[1, 2])?, 18);
    assert_eq!(regrouped.apply_inverse(18)?, vec![1, 2]);
    assert_bijective(&regrouped);
    // group_by with no object is row-major over its dims.
    assert_same_semantics(&Layout::group_by([3, 5], Vec::<Layout>::new())?, &Layout::row([3, 5])?);
    // expand_by (row [4, 4]) dims [3, 3] to [4, 4]: apply(1, 2) = 5, row 3 is padding, inv(5) = (1, 2).
    let padded = Layout::expand_by(Layout::row([4, 4])?, [3, 3], [4, 4])?;
    assert_eq!(padded.apply(&[1, 2])?, 5);
    assert_eq!(padded.apply(&[3, 0])?, NO_ELEMENT);
    assert_eq!(padded.apply_inverse(5)?, vec![1, 2]);
    // antidiag(4) laid out by rows.
    let antidiag4 = antidiag(4)?;
    let by_rows: Vec<u64> = all_indices(&antidiag4).map(|index| antidiag4.apply(&index)).collect::<Result<_>>()?;
    assert_eq!(by_rows, vec![0, 1, 3, 6, 2, 4, 7, 10, 5, 8, 11, 13, 9, 12, 14, 15]);
    // rev(3, 2): f(i, j) = (2 − i)·2 + (1 − j).
    assert_eq!(rev(3, 2)?.apply(&[2, 1])?, 0);
    assert_eq!(rev(3, 2)?.apply(&[0, 0])?, 5);
    Ok(())
}

/// `lego.swizzle`: CuTe's `Swizzle<B, M, S>` values, computed by hand.
mod swizzle {
    use crate::{swizzle_flat, AlgebraError, Layout};

    #[test]
    fn hand_values() {
        // Swizzle<3, 4, 3>: bits [4, 7) ^= bits [7, 10). x = 0b1_0110_0000 = 352: bits 7..10 = 0b010,
        // bits 4..7 = 0b110 -> 0b100: 0b1_0100_0000 = 320.
        assert_eq!(swizzle_flat(3, 4, 3, 352), 320);
        assert_eq!(swizzle_flat(3, 4, 3, 320), 352);
        // Swizzle<1, 0, 1> on [0, 4): 0 1 3 2.
        let l = Layout::swizzle(1, 0, 1, [4]).unwrap();
        let values: Vec<u64> = (0..4).map(|i| l.apply(&[i]).unwrap()).collect();
        assert_eq!(values, [0, 1, 3, 2]);
        // Swizzle<2, 0, 2> over [4, 4]: row r XORs its column with r (the classic 4x4 bank swizzle).
        let l = Layout::swizzle(2, 0, 2, [4, 4]).unwrap();
        assert_eq!(l.apply(&[3, 1]).unwrap(), 3 * 4 + (1 ^ 3));
        assert_eq!(l.apply_inverse(3 * 4 + 2).unwrap(), vec![3, 1]);
    }

    #[test]
    fn bijective_and_self_inverse() {
        for (b, m, s, n) in [(1, 0, 1, 4), (2, 1, 3, 64), (3, 4, 3, 2048), (3, 3, 3, 512), (2, 0, 4, 192)] {
            let l = Layout::swizzle(b, m, s, [n]).unwrap();
            assert!(l.check_bijective(1 << 12).unwrap().is_bijective(), "{l}");
            for x in 0..n {
                assert_eq!(swizzle_flat(b, m, s, swizzle_flat(b, m, s, x)), x);
            }
        }
    }

    #[test]
    fn rules() {
        assert!(matches!(Layout::swizzle(3, 4, 3, [1000]), Err(AlgebraError::SwizzleSize { period: 1024, .. })));
        assert!(matches!(Layout::swizzle(3, 0, 2, [64]), Err(AlgebraError::SwizzleParameters { .. })));
        assert!(matches!(Layout::swizzle(20, 20, 23, [1u64 << 62]), Err(AlgebraError::SwizzleParameters { .. })));
        assert!(matches!(Layout::swizzle(1, 0, 1, [0]), Err(AlgebraError::NonPositiveDimension(0))));
        assert_eq!(
            Layout::swizzle(3, 4, 3, [1000]).unwrap_err().to_string(),
            "number of elements (1000) is not a multiple of 2^(bits + base + shift) = 2^(3 + 4 + 3) = 1024"
        );
    }

    #[test]
    fn in_a_group_by_chain() {
        // group_by [32, 32](swizzle over [1024]) applied to (r, c): row-major, then swizzled.
        let l = Layout::group_by([32, 32], [Layout::swizzle(3, 2, 3, [1024]).unwrap()]).unwrap();
        for (r, c) in [(0, 0), (5, 7), (31, 31), (8, 3)] {
            assert_eq!(l.apply(&[r, c]).unwrap(), swizzle_flat(3, 2, 3, r * 32 + c));
        }
        assert!(l.check_bijective(1 << 12).unwrap().is_bijective());
    }
}

/// `lego.compose` and `lego.inverse`: values computed by hand.
mod compose_inverse {
    use crate::{examples, AlgebraError, Layout};

    #[test]
    fn compose_hand_values() {
        // col [4, 8] after row [8, 4]: (i, j) → row: 4i + j → as (a, b) over [4, 8]: (⌊(4i+j)/8⌋, (4i+j) mod 8)
        // → col: b·4 + a. (3, 2): 14 → (1, 6) → 25.
        let l = Layout::compose(Layout::col([4, 8]).unwrap(), Layout::row([8, 4]).unwrap()).unwrap();
        assert_eq!(l.dims(), &[8, 4]);
        assert_eq!(l.apply(&[3, 2]).unwrap(), 25);
        assert_eq!(l.apply_inverse(25).unwrap(), vec![3, 2]);
        assert!(l.check_bijective(1 << 12).unwrap().is_bijective());
        // Equals group_by [dims(inner)](outer, inner) when the sizes match (docs/ops/compose.md).
        let g = Layout::group_by([8, 4], [Layout::col([4, 8]).unwrap(), Layout::row([8, 4]).unwrap()]).unwrap();
        for i in 0..8 {
            for j in 0..4 {
                assert_eq!(l.apply(&[i, j]).unwrap(), g.apply(&[i, j]).unwrap());
            }
        }
        // Ranks may differ: rev(3, 2) after row [6].
        let l = Layout::compose(examples::rev(3, 2).unwrap(), Layout::row([6]).unwrap()).unwrap();
        assert_eq!((0..6).map(|x| l.apply(&[x]).unwrap()).collect::<Vec<_>>(), [5, 4, 3, 2, 1, 0]);
    }

    #[test]
    fn inverse_hand_values() {
        // inverse(col [4, 8]) over [32]: x → col⁻¹(x) = (x mod 4, x div 4) → row-major 8·(x mod 4) + x div 4.
        let l = Layout::inverse(Layout::col([4, 8]).unwrap()).unwrap();
        assert_eq!(l.dims(), &[32]);
        assert_eq!(l.apply(&[9]).unwrap(), 8 + 2);
        assert_eq!(l.apply_inverse(10).unwrap(), vec![9]);
        // inverse(L) after L is the row-major identity; inverse(inverse(L)) has L's values on flat indices.
        let fig2 = examples::fig2();
        let id = Layout::compose(Layout::inverse(fig2.clone()).unwrap(), fig2.clone()).unwrap();
        for x in 0..24 {
            let index = crate::mixed_radix_unflatten(&[6, 4], x);
            assert_eq!(id.apply(&index).unwrap(), x);
        }
        let twice = Layout::inverse(Layout::inverse(fig2.clone()).unwrap()).unwrap();
        assert_eq!(twice.apply(&[4 * 4 + 1]).unwrap(), fig2.apply(&[4, 1]).unwrap());
    }

    #[test]
    fn rules() {
        assert_eq!(
            Layout::compose(Layout::row([4, 4]).unwrap(), Layout::row([8]).unwrap()).unwrap_err(),
            AlgebraError::ComposeSizeMismatch { inner: 8, outer: 16 }
        );
        let partial = Layout::expand_by(Layout::row([4, 4]).unwrap(), [3, 4], [4, 4]).unwrap();
        assert!(matches!(Layout::inverse(partial.clone()), Err(AlgebraError::NotBijective(_))));
        // An expand_by as the inner layout maps onto Π n⃗ = 12 positions.
        assert!(Layout::compose(Layout::row([12]).unwrap(), partial).is_ok());
        let apply_only = Layout::gen_p([4], crate::GenFn::custom("id", |i: &[u64]| i[0], None)).unwrap();
        assert!(matches!(Layout::inverse(apply_only), Err(AlgebraError::NotInvertible(_))));
    }
}

/// `lego.strided`: CuTe's `shape:stride`, values computed by hand.
mod strided {
    use crate::{AlgebraError, Layout};

    #[test]
    fn hierarchical_compact() {
        // ((4, 2), 8) : ((1, 32), 4): i0 splits into (i0 mod 4, i0 div 4), first leaf fastest.
        // (5, 3): 1·1 + 1·32 + 3·4 = 45.
        let l = Layout::strided(vec![vec![(4, 1), (2, 32)], vec![(8, 4)]]).unwrap();
        assert_eq!(l.dims(), &[8, 8]);
        assert_eq!(l.apply(&[5, 3]).unwrap(), 45);
        assert_eq!(l.apply_inverse(45).unwrap(), vec![5, 3]);
        assert!(l.is_invertible());
        assert_eq!(l.codomain_size(), 64);
        assert!(l.check_bijective(1 << 12).unwrap().is_bijective());
        // (4, 8) : (1, 4) is col [4, 8]; (4, 8) : (8, 1) is row [4, 8].
        let col = Layout::strided(vec![vec![(4, 1)], vec![(8, 4)]]).unwrap();
        let row = Layout::strided(vec![vec![(4, 8)], vec![(8, 1)]]).unwrap();
        assert_eq!(col.apply(&[1, 2]).unwrap(), 9);
        assert_eq!(row.apply(&[1, 2]).unwrap(), 10);
    }

    #[test]
    fn padded_is_injective_and_apply_only() {
        // (4, 8) : (9, 1): a row-major tile with one word of padding per row; extent 1 + 3·9 + 7 = 35.
        let l = Layout::strided(vec![vec![(4, 9)], vec![(8, 1)]]).unwrap();
        assert_eq!(l.apply(&[1, 2]).unwrap(), 11);
        assert!(!l.is_invertible());
        assert_eq!(l.codomain_size(), 35);
        assert!(matches!(l.apply_inverse(11), Err(AlgebraError::NotInvertible(_))));
        assert!(matches!(Layout::inverse(l), Err(AlgebraError::NotInvertible(_))));
        // Overlapping when sorted, yet injective (checked point by point): (3, 2) : (2, 3) → 0 2 4 3 5 7.
        let l = Layout::strided(vec![vec![(3, 2)], vec![(2, 3)]]).unwrap();
        assert_eq!((0..3).flat_map(|i| (0..2).map(move |j| (i, j))).map(|(i, j)| l.apply(&[i, j]).unwrap()).collect::<Vec<_>>(), [0, 3, 2, 5, 4, 7]);
    }

    #[test]
    fn collisions_and_rules() {
        assert_eq!(
            Layout::strided(vec![vec![(2, 1)], vec![(2, 1)]]).unwrap_err().to_string(),
            "not injective: indices [0, 1] and [1, 0] both map to position 1"
        );
        assert!(matches!(Layout::strided(vec![vec![(4, 0)]]), Err(AlgebraError::StridedCollision { .. })));
        assert!(matches!(Layout::strided(vec![vec![(0, 1)]]), Err(AlgebraError::NonPositiveDimension(0))));
        assert!(matches!(Layout::strided(vec![]), Err(AlgebraError::Empty { .. })));
        assert!(matches!(Layout::strided(vec![vec![(2, 1 << 62)], vec![(4, 1 << 61)]]), Err(AlgebraError::StridedExtent)));
        assert!(matches!(
            Layout::strided(vec![vec![(1 << 12, 1)], vec![(1 << 12, 1 << 11)]]),
            Err(AlgebraError::StridedUnproved { .. })
        ));
        // A stride of 0 on a size-1 leaf is harmless.
        assert!(Layout::strided(vec![vec![(1, 0)], vec![(4, 1)]]).unwrap().is_invertible());
    }
}
