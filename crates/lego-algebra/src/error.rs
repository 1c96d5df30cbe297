//! Errors of the layout algebra.
//!
//! Where the reference (`docs/reference/verifier.md`) fixes a message, the `Display` text here
//! is exactly that message (without MLIR's `'lego.<op>' op ` prefix), so verifiers built on this crate can
//! forward it unchanged. Other messages follow the same style: what was expected, what was found, numbers.

use thiserror::Error;

use crate::size::{too_many_elements, ElementCount};

/// Everything that can go wrong when building or evaluating a layout.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AlgebraError {
    /// `reg_p`: `len(perm) != len(dims)`.
    #[error("Permutation rank {perm_rank} does not match dimensions rank {dims_rank}")]
    PermutationRankMismatch { perm_rank: usize, dims_rank: usize },

    /// `reg_p`: `perm` is not a permutation of `0..=max`.
    #[error("Invalid permutation: not a permutation of 0..{max}")]
    InvalidPermutation { max: usize },

    /// A size of `row`/`col`/`reg_p`/`gen_p`/`group_by`/`expand_by` is zero.
    #[error("Dimension {0} must be strictly positive")]
    NonPositiveDimension(u64),

    /// A constructor that needs at least one dimension (or object) got none.
    #[error("{op} expects at least one {what}, found none")]
    Empty { op: &'static str, what: &'static str },

    /// `tile_by`: a tile size is zero.
    #[error("Tile dimension {0} must be strictly positive")]
    NonPositiveTileDimension(u64),

    /// `tile_by`: a tiling level's length differs from the rank of the input layout.
    #[error("Inner tile dimension {level_len} does not match input layout dimension {input_rank}")]
    TileRankMismatch { level_len: usize, input_rank: usize },

    /// `tile_by`: a block of the input `order_by` has a rank different from the first block's (the tile rank).
    #[error("Block {block} of the input layout has rank {rank}, but the tile rank (rank of block 0) is {first}")]
    TileBlockRankMismatch { block: usize, rank: usize, first: usize },

    /// `tile_by`: the product of all tile sizes differs from the input layout's element count.
    #[error("Total product of tile dims ({tile}) does not match total product of input dims ({input})")]
    TileProductMismatch { tile: u64, input: u64 },

    /// `tile_by`: the tile sizes of one dimension do not multiply to that dimension's size (the product of
    /// dim `k` over the input's blocks).
    #[error("Product of tile dims for dimension {dim} ({tile}) does not match input dimension size ({input})")]
    TileDimensionProductMismatch { dim: usize, tile: u64, input: u64 },

    /// `tile_by`: the input is not an `order_by` layout.
    #[error("input must be an OrderBy layout")]
    TileInputNotOrderBy,

    /// `group_by`: the product of its dims differs from an object's element count.
    #[error("Total product of group dims ({group}) does not match element count of object {object} ({numel})")]
    GroupProductMismatch { group: u64, object: usize, numel: u64 },

    /// `gen_p` with a named kind whose parameters disagree with the dims it is given.
    #[error("gen_p {kind} expects dims {expected:?}, found {found:?}")]
    GenDimsMismatch { kind: String, expected: Vec<u64>, found: Vec<u64> },

    /// `gen_p` with a named kind whose parameters are outside the supported range.
    #[error("gen_p {kind}: {reason}")]
    GenParameter { kind: String, reason: String },

    /// `expand_by`: `dims` and `to` have different lengths.
    #[error("expand_by dims rank {dims_rank} does not match target rank {to_rank}")]
    ExpandRankMismatch { dims_rank: usize, to_rank: usize },

    /// `expand_by`: a real size exceeds the expanded size.
    #[error("expand_by dimension {dim}: size {size} exceeds expanded size {to}")]
    ExpandDimensionTooLarge { dim: usize, size: u64, to: u64 },

    /// `expand_by`: the expanded shape's volume differs from the input layout's element count.
    #[error("expand_by target volume ({to}) does not match input layout volume ({input})")]
    ExpandVolumeMismatch { to: u64, input: u64 },

    /// `swizzle`: parameters outside the supported range.
    #[error("Invalid swizzle (bits {bits}, base {base}, shift {shift}): {reason}")]
    SwizzleParameters { bits: u32, base: u32, shift: u32, reason: String },

    /// `swizzle`: the element count is not a multiple of the swizzle's period `2^(bits+base+shift)`.
    #[error("number of elements ({numel}) is not a multiple of 2^(bits + base + shift) = 2^({bits} + {base} + {shift}) = {period}")]
    SwizzleSize { numel: u64, bits: u32, base: u32, shift: u32, period: u64 },

    /// `compose`: the inner layout's positions do not match the outer layout's elements.
    #[error("the inner layout maps to {inner} positions but the outer layout has {outer} elements")]
    ComposeSizeMismatch { inner: u64, outer: u64 },

    /// `inverse` of an injective layout that does not cover its positions (an `expand_by`, a non-compact strided).
    #[error("layout is not a bijection: {0} does not map onto its elements")]
    NotBijective(String),

    /// `strided`: two logical indices share a position.
    #[error("not injective: indices {first:?} and {second:?} both map to position {position}")]
    StridedCollision { first: Vec<u64>, second: Vec<u64>, position: u64 },

    /// `strided`: overlapping leaves and too many elements to check injectivity point by point.
    #[error("cannot check injectivity: the leaves overlap when sorted by stride and the layout has {numel} elements (at most {limit} are checked point by point)")]
    StridedUnproved { numel: u64, limit: u64 },

    /// `strided`: the extent `1 + Σ (size − 1)·stride` exceeds 2^63 − 1.
    #[error("the layout spans more than 2^63 - 1 positions")]
    StridedExtent,

    /// `apply`: wrong number of indices.
    #[error("number of indices ({found}) does not match layout rank ({rank})")]
    IndexCount { found: usize, rank: usize },

    /// `apply`: an index is not below its dimension's size.
    #[error("index {index} at position {position} is out of range for dimension of size {size}")]
    IndexOutOfRange { position: usize, index: u64, size: u64 },

    /// `apply_inverse`: the flat index is not below the number of physical elements.
    #[error("flat index {flat} is out of range for a layout of {size} elements")]
    FlatOutOfRange { flat: u64, size: u64 },

    /// `apply_inverse` on an apply-only layout, or on a composite containing one.
    #[error("layout is not invertible: {0} has no inverse")]
    NotInvertible(String),

    /// A user-supplied inverse returned the wrong number of indices.
    #[error("gen_p {name} inverse returned {found} indices, expected {expected}")]
    GenInverseArity { name: String, found: usize, expected: usize },

    /// A layout has more than [`crate::MAX_ELEMENTS`] = 2^63 − 1 elements (`op` names the constructor that
    /// makes the count too large; `count` is exact). The text is the dialect verifier's.
    #[error("{}", too_many_elements(count, false))]
    TooManyElements { op: &'static str, count: ElementCount },

    /// A checked computation left the range of `u64` (`index`).
    #[error("arithmetic overflow computing {0}")]
    Overflow(&'static str),

    /// An `arith` program divided by zero.
    #[error("division by zero in gen_p body")]
    DivisionByZero,

    /// A memory-cost query with arguments outside the hardware model (access width, bank count, address).
    #[error("{0}")]
    MemoryModel(String),

    /// The layout uses something the MLIR emitter cannot express (a `Custom` gen_p).
    #[error("cannot emit MLIR for {0}")]
    Unsupported(String),
}

/// Shorthand used throughout the crate.
pub type Result<T, E = AlgebraError> = std::result::Result<T, E>;
