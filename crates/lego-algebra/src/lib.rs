//! Reference semantics of the LEGO layout algebra (CGO 2026), with no MLIR dependency.
//!
//! This crate is the single source of truth for the layout math of `docs/reference/semantics.md`:
//! - [`Layout`]: validated constructors for every dialect op (`row`, `col`, `reg_p`, `gen_p`, `order_by`,
//!   `group_by`, `tile_by`, `expand_by`, `swizzle`), `apply` / `apply_inverse`, [`Layout::normalize`] (the desugaring
//!   of the `lego-normalization` pass) and exhaustive [`Layout::check_bijective`];
//! - [`examples`]: the paper's layouts and the reference's worked examples;
//! - [`random`]: a seeded generator of random layouts and inputs for differential tests;
//! - [`describe`]: a layout as JSON data (LEGO Studio's page and server exchange layouts in this form);
//! - [`memcost`]: the bank-conflict degree and sectors per request of one warp request;
//! - [`mlir`]: the same layouts as lego-dialect MLIR text, for feeding `lego-opt`.
//!
//! ```
//! use lego_algebra::{examples, Layout};
//! let l = Layout::row([4, 8]).unwrap();
//! assert_eq!(l.apply(&[1, 2]).unwrap(), 10);
//! assert_eq!(examples::fig2().apply_inverse(6).unwrap(), vec![4, 1]);
//! ```

mod bijection;
pub mod describe;
mod error;
mod eval;
pub mod examples;
mod genfn;
mod layout;
pub mod memcost;
pub mod mlir;
pub mod picture;
mod normalize;
pub mod random;
mod size;

pub use bijection::BijectivityReport;
pub use error::{AlgebraError, Result};
pub use eval::{mixed_radix_flatten, mixed_radix_unflatten, swizzle_flat, NO_ELEMENT};
pub use genfn::{isqrt, ApplyFn, GenFn, InverseFn, ANTIDIAG_MAX_N};
pub use layout::{check_strided, check_swizzle_parameters, strided_text, Dim, Layout, LayoutNode, StridedInfo, STRIDED_ENUMERATION_LIMIT};
pub use normalize::{interleave_permutation, inverse_permutation, tile_permutation};
pub use size::{abbreviate_decimal, too_many_elements, ElementCount, MAX_ELEMENTS};

#[cfg(test)]
mod tests;
