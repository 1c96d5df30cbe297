//! Expected values for test/targets/wasm.mlir: the layouts of that file's functions, built with this crate's
//! constructors, and every point of each evaluated with the reference interpreter (`apply` /
//! `apply_inverse`). One line per call:
//!
//! ```text
//! FUNCTION ARG… -> RESULT…
//! ```
//!
//! where the arguments are the function's parameters in order (logical index or flat index, then the
//! run-time sizes of symbolic layouts). test/targets/Inputs/wasm_harness.js calls the compiled function
//! with them and compares. Run: `cargo run -p lego-algebra --example wasm_expected`.

use lego_algebra::{examples, Dim, GenFn, Layout, Result};
use std::sync::Arc;

/// The 8 × 8 XOR swizzle of wasm.mlir: (i, j) ↦ 8·i + (j xor i), inverse x ↦ (x div 8, (x mod 8) xor (x div 8)).
fn swizzle() -> Result<Layout> {
    let apply = |index: &[u64]| 8 * index[0] + (index[1] ^ index[0]);
    let inverse = Arc::new(|x: u64| vec![x / 8, (x % 8) ^ (x / 8)]);
    Layout::gen_p([8, 8], GenFn::custom("swizzle8", apply, Some(inverse)))
}

/// Every logical index of `layout`, row-major.
fn points(layout: &Layout) -> Vec<Vec<u64>> {
    (0..layout.numel()).map(|flat| lego_algebra::mixed_radix_unflatten(layout.dims(), flat)).collect()
}

fn join(values: &[u64]) -> String {
    values.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
}

/// `apply` at every point; `sizes` are appended to each call's arguments.
fn apply_lines(name: &str, layout: &Layout, sizes: &[u64], out: &mut Vec<String>) -> Result<()> {
    for index in points(layout) {
        let flat = layout.apply(&index)?;
        out.push(format!("{name} {} -> {flat}", join(&[index.as_slice(), sizes].concat())));
    }
    Ok(())
}

/// `apply_inverse` at every flat index.
fn inverse_lines(name: &str, layout: &Layout, sizes: &[u64], out: &mut Vec<String>) -> Result<()> {
    for flat in 0..layout.codomain_size() {
        let index = layout.apply_inverse(flat)?;
        out.push(format!("{name} {} -> {}", join(&[&[flat][..], sizes].concat()), join(&index)));
    }
    Ok(())
}

fn main() -> Result<()> {
    let mut out = Vec::new();
    let row = examples::row_4x8();
    apply_lines("row_apply", &row, &[], &mut out)?;
    inverse_lines("row_inverse", &row, &[], &mut out)?;
    let col = examples::col_4x8();
    apply_lines("col_apply", &col, &[], &mut out)?;
    inverse_lines("col_inverse", &col, &[], &mut out)?;
    // semantics.md worked example 3.
    let tiled = examples::tiled_8x12();
    apply_lines("tiled_apply", &tiled, &[], &mut out)?;
    inverse_lines("tiled_inverse", &tiled, &[], &mut out)?;
    let swizzle = swizzle()?;
    apply_lines("swizzle_apply", &swizzle, &[], &mut out)?;
    inverse_lines("swizzle_inverse", &swizzle, &[], &mut out)?;
    let swizzle_tiled = Layout::tile_by(Layout::order_by([Layout::row([2, 3])?, swizzle])?, [[2, 3], [8, 8]])?;
    apply_lines("swizzle_tiled_apply", &swizzle_tiled, &[], &mut out)?;
    inverse_lines("swizzle_tiled_inverse", &swizzle_tiled, &[], &mut out)?;

    // row [4, %n]: every point for small n; the corners for n = 2^33 + 1, whose flat indices pass 2^32.
    for n in [1u64, 3, 7] {
        apply_lines("sym_row_apply", &Layout::row([Dim::lit(4), Dim::sym(n)])?, &[n], &mut out)?;
    }
    let big = (1u64 << 33) + 1;
    let wide = Layout::row([Dim::lit(4), Dim::sym(big)])?;
    for index in [[0, 0], [0, big - 1], [1, 0], [3, big - 1], [2, 12345]] {
        out.push(format!("sym_row_apply {} {big} -> {}", join(&index), wide.apply(&index)?));
    }
    // tile_by (order_by(row [%m, %k])) tile_dims [[%mt, %kt], [4, 4]] with m = 4·mt, k = 4·kt.
    for (mt, kt) in [(1u64, 1u64), (2, 3), (3, 2)] {
        let (m, k) = (4 * mt, 4 * kt);
        let inner = Layout::order_by([Layout::row([Dim::sym(m), Dim::sym(k)])?])?;
        let layout = Layout::tile_by(inner, [[Dim::sym(mt), Dim::sym(kt)], [Dim::lit(4), Dim::lit(4)]])?;
        let sizes = [m, k, mt, kt];
        apply_lines("sym_tiled_apply", &layout, &sizes, &mut out)?;
        inverse_lines("sym_tiled_inverse", &layout, &sizes, &mut out)?;
    }

    for line in out {
        println!("{line}");
    }
    Ok(())
}
