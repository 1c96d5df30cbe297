//! A layout as plain JSON data — how LEGO Studio's server hands a layout parsed from dialect text to the page,
//! where lego-algebra (compiled to wasm32) evaluates it, and how presets and the builder describe layouts.
//!
//! One object per constructor, mirroring the dialect ops (`docs/reference/syntax.md`); sizes are numbers, or
//! `{"value": n, "symbolic": true}` for a size written as an SSA value:
//!
//! ```text
//! {"op": "row", "dims": [4, 8]}                 {"op": "col", "dims": [4, 8]}
//! {"op": "reg_p", "perm": [1, 0], "dims": [4, 8]}
//! {"op": "gen_p", "dims": [4, 4], "kind": "rev"}          {"op": "gen_p", "dims": [4, 4], "kind": "antidiag"}
//! {"op": "gen_p", "dims": [2, 2], "kind": "table", "apply": [0, 2, 1, 3]}   (flat value of each index, row-major)
//! {"op": "order_by", "parts": [L, ...]}          {"op": "group_by", "dims": [...], "objects": [L, ...]}
//! {"op": "tile_by", "inner": L, "tile_dims": [[...], ...]}
//! {"op": "expand_by", "inner": L, "dims": [...], "to": [...]}
//! {"op": "swizzle", "bits": 3, "base": 4, "shift": 3, "dims": [...]}
//! {"op": "compose", "outer": L, "inner": L}     {"op": "inverse", "inner": L}
//! {"op": "strided", "modes": [[[4, 1], [2, 32]], [[8, 4]]]}   (per mode, its [size, stride] leaves)
//! ```
//!
//! A `table` gen_p is invertible exactly when its table is a permutation of `0..numel` (else apply-only).
//!
//! ```
//! use lego_algebra::{describe, Layout};
//! let l = Layout::tile_by(Layout::order_by([Layout::row([2, 2]).unwrap()]).unwrap(), [[1u64, 2], [2, 1]]).unwrap();
//! let json = describe::to_json(&l).unwrap();
//! let back = describe::from_json(&json).unwrap();
//! for flat in 0..4 {
//!     assert_eq!(back.apply_inverse(flat).unwrap(), l.apply_inverse(flat).unwrap());
//! }
//! ```

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::error::{AlgebraError, Result};
use crate::eval::{mixed_radix_flatten, mixed_radix_unflatten};
use crate::genfn::{GenFn, InverseFn};
use crate::layout::{Dim, Layout, LayoutNode};

/// The most elements a `table` gen_p may have (its table is written out in full).
pub const MAX_TABLE_ELEMENTS: u64 = 1 << 20;

/// One size: a bare number, or a number marked as written symbolically.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum DimDesc {
    Literal(u64),
    Marked { value: u64, #[serde(default)] symbolic: bool },
}

impl From<Dim> for DimDesc {
    fn from(dim: Dim) -> Self {
        if dim.symbolic {
            DimDesc::Marked { value: dim.value, symbolic: true }
        } else {
            DimDesc::Literal(dim.value)
        }
    }
}

impl From<DimDesc> for Dim {
    fn from(desc: DimDesc) -> Self {
        match desc {
            DimDesc::Literal(value) => Dim::lit(value),
            DimDesc::Marked { value, symbolic } => Dim { value, symbolic },
        }
    }
}

/// A `gen_p` map: a named kind or a full table of its values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GenDesc {
    Rev,
    Antidiag,
    Table { apply: Vec<u64> },
}

/// A layout as data (see the module docs for the JSON form).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum LayoutDesc {
    Row { dims: Vec<DimDesc> },
    Col { dims: Vec<DimDesc> },
    RegP { perm: Vec<usize>, dims: Vec<DimDesc> },
    GenP { dims: Vec<DimDesc>, #[serde(flatten)] gen: GenDesc },
    OrderBy { parts: Vec<LayoutDesc> },
    GroupBy { dims: Vec<DimDesc>, objects: Vec<LayoutDesc> },
    TileBy { inner: Box<LayoutDesc>, tile_dims: Vec<Vec<DimDesc>> },
    ExpandBy { inner: Box<LayoutDesc>, dims: Vec<DimDesc>, to: Vec<DimDesc> },
    Swizzle { bits: u32, base: u32, shift: u32, dims: Vec<DimDesc> },
    Compose { outer: Box<LayoutDesc>, inner: Box<LayoutDesc> },
    Inverse { inner: Box<LayoutDesc> },
    Strided { modes: Vec<Vec<(u64, u64)>> },
}

fn descs(dims: &[Dim]) -> Vec<DimDesc> {
    dims.iter().copied().map(DimDesc::from).collect()
}

fn dims_of(descs: &[DimDesc]) -> Vec<Dim> {
    descs.iter().copied().map(Dim::from).collect()
}

/// A `Custom` gen_p from the table of its values (row-major over `dims`): invertible exactly when the table
/// is a permutation of `0..numel`.
pub fn gen_table(dims: &[u64], table: Vec<u64>) -> Result<GenFn> {
    let numel = dims
        .iter()
        .try_fold(1u64, |n, d| n.checked_mul(*d))
        .filter(|n| *n <= MAX_TABLE_ELEMENTS)
        .ok_or_else(|| AlgebraError::Unsupported(format!("a gen_p table of more than {MAX_TABLE_ELEMENTS} elements")))?;
    if table.len() as u64 != numel {
        return Err(AlgebraError::Unsupported(format!(
            "a gen_p table of {} values for dims {dims:?} ({numel} elements)",
            table.len()
        )));
    }
    let mut inverse = vec![u64::MAX; table.len()];
    let mut bijective = true;
    for (flat, value) in table.iter().enumerate() {
        match usize::try_from(*value).ok().and_then(|v| inverse.get_mut(v)) {
            Some(slot) if *slot == u64::MAX => *slot = flat as u64,
            _ => bijective = false,
        }
    }
    let dims_apply = dims.to_vec();
    let dims_inverse = dims.to_vec();
    let table = Arc::new(table);
    let apply = move |index: &[u64]| {
        mixed_radix_flatten(&dims_apply, index).map(|flat| table[flat as usize]).unwrap_or(u64::MAX)
    };
    let inverse: Option<InverseFn> = bijective.then(|| {
        let inverse = Arc::new(inverse);
        Arc::new(move |x: u64| mixed_radix_unflatten(&dims_inverse, inverse.get(x as usize).copied().unwrap_or(0)))
            as InverseFn
    });
    Ok(GenFn::custom("table", apply, inverse))
}

impl LayoutDesc {
    /// The description of `layout`; a `Custom` gen_p is tabulated (at most [`MAX_TABLE_ELEMENTS`] elements).
    pub fn of(layout: &Layout) -> Result<Self> {
        Ok(match layout.node() {
            LayoutNode::Row { dims } => LayoutDesc::Row { dims: descs(dims) },
            LayoutNode::Col { dims } => LayoutDesc::Col { dims: descs(dims) },
            LayoutNode::RegP { perm, dims } => LayoutDesc::RegP { perm: perm.clone(), dims: descs(dims) },
            LayoutNode::GenP { dims, gen } => {
                let gen = match gen {
                    GenFn::Rev { .. } => GenDesc::Rev,
                    GenFn::Antidiag { .. } => GenDesc::Antidiag,
                    GenFn::Custom { .. } => {
                        let sizes: Vec<u64> = dims.iter().map(|d| d.value).collect();
                        let numel = layout.numel();
                        if numel > MAX_TABLE_ELEMENTS {
                            return Err(AlgebraError::Unsupported(format!(
                                "a gen_p of {numel} elements as a table (at most {MAX_TABLE_ELEMENTS})"
                            )));
                        }
                        let apply = (0..numel).map(|flat| gen.apply(&mixed_radix_unflatten(&sizes, flat))).collect();
                        GenDesc::Table { apply }
                    }
                };
                LayoutDesc::GenP { dims: descs(dims), gen }
            }
            LayoutNode::OrderBy { parts } => {
                LayoutDesc::OrderBy { parts: parts.iter().map(LayoutDesc::of).collect::<Result<_>>()? }
            }
            LayoutNode::GroupBy { dims, objects } => LayoutDesc::GroupBy {
                dims: descs(dims),
                objects: objects.iter().map(LayoutDesc::of).collect::<Result<_>>()?,
            },
            LayoutNode::TileBy { inner, tile_dims } => LayoutDesc::TileBy {
                inner: Box::new(LayoutDesc::of(inner)?),
                tile_dims: tile_dims.iter().map(|level| descs(level)).collect(),
            },
            LayoutNode::ExpandBy { inner, dims, to } => LayoutDesc::ExpandBy {
                inner: Box::new(LayoutDesc::of(inner)?),
                dims: descs(dims),
                to: descs(to),
            },
            LayoutNode::Swizzle { bits, base, shift, dims } => {
                LayoutDesc::Swizzle { bits: *bits, base: *base, shift: *shift, dims: descs(dims) }
            }
            LayoutNode::Compose { outer, inner } => LayoutDesc::Compose {
                outer: Box::new(LayoutDesc::of(outer)?),
                inner: Box::new(LayoutDesc::of(inner)?),
            },
            LayoutNode::Inverse { inner } => LayoutDesc::Inverse { inner: Box::new(LayoutDesc::of(inner)?) },
            LayoutNode::Strided { modes } => LayoutDesc::Strided { modes: modes.clone() },
        })
    }

    /// Builds the layout, with every constructor's validation.
    pub fn build(&self) -> Result<Layout> {
        match self {
            LayoutDesc::Row { dims } => Layout::row(dims_of(dims)),
            LayoutDesc::Col { dims } => Layout::col(dims_of(dims)),
            LayoutDesc::RegP { perm, dims } => Layout::reg_p(perm.clone(), dims_of(dims)),
            LayoutDesc::GenP { dims, gen } => {
                let dims = dims_of(dims);
                let sizes: Vec<u64> = dims.iter().map(|d| d.value).collect();
                let gen = match gen {
                    GenDesc::Rev => match sizes.as_slice() {
                        [n1, n2] => GenFn::Rev { n1: *n1, n2: *n2 },
                        _ => return Err(AlgebraError::GenDimsMismatch { kind: "rev".into(), expected: vec![0, 0], found: sizes }),
                    },
                    GenDesc::Antidiag => match sizes.as_slice() {
                        [n, _] => GenFn::Antidiag { n: *n },
                        _ => {
                            return Err(AlgebraError::GenDimsMismatch { kind: "antidiag".into(), expected: vec![0, 0], found: sizes })
                        }
                    },
                    GenDesc::Table { apply } => gen_table(&sizes, apply.clone())?,
                };
                Layout::gen_p(dims, gen)
            }
            LayoutDesc::OrderBy { parts } => Layout::order_by(parts.iter().map(LayoutDesc::build).collect::<Result<Vec<_>>>()?),
            LayoutDesc::GroupBy { dims, objects } => {
                Layout::group_by(dims_of(dims), objects.iter().map(LayoutDesc::build).collect::<Result<Vec<_>>>()?)
            }
            LayoutDesc::TileBy { inner, tile_dims } => {
                Layout::tile_by(inner.build()?, tile_dims.iter().map(|level| dims_of(level)).collect::<Vec<_>>())
            }
            LayoutDesc::ExpandBy { inner, dims, to } => Layout::expand_by(inner.build()?, dims_of(dims), dims_of(to)),
            LayoutDesc::Swizzle { bits, base, shift, dims } => Layout::swizzle(*bits, *base, *shift, dims_of(dims)),
            LayoutDesc::Compose { outer, inner } => Layout::compose(outer.build()?, inner.build()?),
            LayoutDesc::Inverse { inner } => Layout::inverse(inner.build()?),
            LayoutDesc::Strided { modes } => Layout::strided(modes.clone()),
        }
    }
}

/// `layout` as JSON text (see the module docs).
pub fn to_json(layout: &Layout) -> Result<String> {
    serde_json::to_string(&LayoutDesc::of(layout)?).map_err(|e| AlgebraError::Unsupported(format!("layout as JSON: {e}")))
}

/// The layout a JSON description denotes; malformed JSON and invalid layouts are errors, never panics.
pub fn from_json(text: &str) -> Result<Layout> {
    let desc: LayoutDesc =
        serde_json::from_str(text).map_err(|e| AlgebraError::Unsupported(format!("layout description: {e}")))?;
    desc.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{examples, random};

    fn same(a: &Layout, b: &Layout) {
        assert_eq!(a.dims(), b.dims());
        for flat in 0..a.numel() {
            let index = mixed_radix_unflatten(a.dims(), flat);
            assert_eq!(a.apply(&index).unwrap(), b.apply(&index).unwrap());
        }
        if a.is_invertible() {
            for flat in 0..a.codomain_size().min(a.numel()) {
                assert_eq!(a.apply_inverse(flat).unwrap(), b.apply_inverse(flat).unwrap());
            }
        }
    }

    #[test]
    fn random_layouts_round_trip_with_equal_values() {
        let mut rng = random::SplitMix64::new(7);
        for _ in 0..300 {
            let layout = random::random_layout(&mut rng, &random::RandomConfig::default());
            let back = from_json(&to_json(&layout).unwrap()).unwrap();
            same(&layout, &back);
        }
    }

    #[test]
    fn paper_examples_round_trip() {
        for layout in [examples::fig2(), examples::fig6(), examples::tiled_8x12(), examples::antidiag(5).unwrap(), examples::rev(3, 4).unwrap()] {
            same(&layout, &from_json(&to_json(&layout).unwrap()).unwrap());
        }
    }

    #[test]
    fn the_documented_forms_parse() {
        let l = from_json(r#"{"op":"gen_p","dims":[2,2],"kind":"table","apply":[0,2,1,3]}"#).unwrap();
        assert_eq!(l.apply(&[0, 1]).unwrap(), 2);
        assert_eq!(l.apply_inverse(2).unwrap(), vec![0, 1]);
        let l = from_json(r#"{"op":"row","dims":[4,{"value":8,"symbolic":true}]}"#).unwrap();
        assert_eq!(l.apply(&[1, 2]).unwrap(), 10);
        let apply_only = from_json(r#"{"op":"gen_p","dims":[2],"kind":"table","apply":[0,0]}"#).unwrap();
        assert!(!apply_only.is_invertible());
    }

    #[test]
    fn bad_descriptions_are_errors() {
        for bad in [
            "",
            "{",
            r#"{"op":"row","dims":[0]}"#,
            r#"{"op":"nope"}"#,
            r#"{"op":"gen_p","dims":[2,2],"kind":"table","apply":[0]}"#,
            r#"{"op":"gen_p","dims":[3],"kind":"rev"}"#,
            r#"{"op":"row","dims":[4294967296,4294967296]}"#,
            r#"{"op":"swizzle","bits":3,"base":4,"shift":3,"dims":[1000]}"#,
            r#"{"op":"swizzle","bits":3,"base":0,"shift":2,"dims":[64]}"#,
        ] {
            assert!(from_json(bad).is_err(), "{bad}");
        }
    }
}
