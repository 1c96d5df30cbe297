//! One lego op, independent of the form it was written in, and its two renderings: the generic form of
//! docs/generic-form.md and the custom form of the dialect spec. SSA names and types are kept as text.
//!
//! `gen_p` is rendered in pieces (header, middle, trailer) because its region bodies are not part of the
//! model: the rewriters copy them from the input between the pieces.

use crate::ops::OpKind;
use std::fmt::{self, Write as _};

/// `ShapedType::kDynamic`: the `static_dims` entry of an SSA dimension.
pub(crate) const DYNAMIC: i64 = i64::MIN;

/// One entry of a dimension list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Dim {
    Static(i64),
    Dynamic(String),
}

/// A region argument, `%i: index` with an optional `loc(...)` (printed under `--mlir-print-debuginfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BlockArg {
    pub name: String,
    pub ty: String,
    pub loc: Option<String>,
}

impl fmt::Display for BlockArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.ty)?;
        match &self.loc {
            Some(loc) => write!(f, " {loc}"),
            None => Ok(()),
        }
    }
}

/// The ops of the dialect. `ty` is the one `!lego.layout` type the custom form spells out (as written, so a
/// type alias survives): the result type of constructors, the layout operand's type of the other ops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LegoOp {
    Row {
        dims: Vec<Dim>,
        ty: String,
    },
    Col {
        dims: Vec<Dim>,
        ty: String,
    },
    RegP {
        perm: Vec<i64>,
        dims: Vec<Dim>,
        ty: String,
    },
    GenP {
        dims: Vec<Dim>,
        apply: Vec<BlockArg>,
        inv: Option<Vec<BlockArg>>,
        ty: String,
    },
    OrderBy {
        objects: Vec<String>,
        ty: String,
    },
    GroupBy {
        dims: Vec<Dim>,
        objects: Vec<String>,
        ty: String,
    },
    TileBy {
        inner: String,
        levels: Vec<Vec<Dim>>,
        ty: String,
    },
    ExpandBy {
        inner: String,
        dims: Vec<Dim>,
        to: Vec<Dim>,
        ty: String,
    },
    /// `swizzle` is `[bits, base, shift]`.
    Swizzle {
        swizzle: [i64; 3],
        dims: Vec<Dim>,
        ty: String,
    },
    Compose {
        outer: String,
        inner: String,
        ty: String,
    },
    Inverse {
        inner: String,
        ty: String,
    },
    /// `shape[k]` / `stride[k]`: the leaves of mode `k` (one leaf: written without parentheses).
    Strided {
        shape: Vec<Vec<i64>>,
        stride: Vec<Vec<i64>>,
        ty: String,
    },
    Apply {
        layout: String,
        indices: Vec<String>,
        ty: String,
    },
    ApplyInverse {
        layout: String,
        flat: Vec<String>,
        ty: String,
        results: Vec<String>,
    },
    CastView {
        memref: String,
        layout: String,
        memref_ty: String,
        layout_ty: String,
        view_ty: String,
    },
    /// `types` are the operand types as listed; `element` (the result type) comes from the view type.
    Load {
        view: String,
        indices: Vec<String>,
        types: Vec<String>,
        element: String,
    },
    Store {
        value: String,
        view: String,
        indices: Vec<String>,
        types: Vec<String>,
    },
    /// `dict` is the attribute dictionary exactly as written, braces included.
    Check {
        address: String,
        dict: Option<String>,
    },
    Assume {
        condition: String,
    },
    AssumeBounds {
        value: String,
        lb: Option<String>,
        ub: Option<String>,
    },
    AssertApplyBounds {
        layout: String,
        indices: Vec<String>,
        ty: String,
    },
    AssertInvBounds {
        layout: String,
        flat: Vec<String>,
        ty: String,
    },
    /// `lego.yield`, generically the upstream `smt.yield`.
    Yield {
        values: Vec<String>,
        types: Vec<String>,
    },
}

/// The op names of the custom syntax: every dialect op ([`OpKind`], the one list of them), plus `lego.yield`,
/// which only exists in custom syntax (generically it is the upstream `smt.yield`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OpName {
    Op(OpKind),
    Yield,
}

impl OpName {
    /// `name` is the full op name, `lego.row`.
    pub fn parse(name: &str) -> Option<Self> {
        if name == "lego.yield" {
            return Some(OpName::Yield);
        }
        OpKind::from_name(name).map(OpName::Op)
    }

    pub fn suffix(self) -> &'static str {
        match self {
            OpName::Op(kind) => kind.name().strip_prefix("lego.").unwrap_or(kind.name()),
            OpName::Yield => "yield",
        }
    }
}

/// What a generic op needs besides its name and results, borrowed from the op: this is rendered once per lego
/// op in both directions (and again to check each printed op), so it copies no names.
struct GenericParts<'m> {
    operands: Vec<&'m str>,
    operand_types: Vec<&'m str>,
    /// The attribute dictionary, braces included; `None` prints none.
    dict: Option<String>,
    result_types: Vec<&'m str>,
}

/// The generic rendering of `gen_p`, to be interleaved with the region bodies:
/// `header BODY1 middle BODY2 trailer`, or `header BODY1 trailer` when there is no inverse region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pieces {
    pub header: String,
    pub middle: Option<String>,
    pub trailer: String,
}

const LAYOUT: &str = "!lego.layout";
const INDEX: &str = "index";

fn results_prefix(results: Option<&str>) -> String {
    results.map(|results| format!("{results} = ")).unwrap_or_default()
}

fn dynamic_names(dims: &[Dim]) -> impl Iterator<Item = &str> + '_ {
    dims.iter().filter_map(|dim| match dim {
        Dim::Dynamic(name) => Some(name.as_str()),
        Dim::Static(_) => None,
    })
}

/// `items` separated by `, `.
fn write_list<'i>(out: &mut String, items: impl IntoIterator<Item = &'i str>) {
    for (index, item) in items.into_iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        out.push_str(item);
    }
}

/// `array<element>` or `array<element: v, ...>`.
fn write_dense_array(out: &mut String, element: &str, values: impl IntoIterator<Item = i64>) {
    let _ = write!(out, "array<{element}");
    for (index, value) in values.into_iter().enumerate() {
        out.push_str(if index == 0 { ": " } else { ", " });
        let _ = write!(out, "{value}");
    }
    out.push('>');
}

fn dense_array(element: &str, values: impl IntoIterator<Item = i64>) -> String {
    let mut out = String::new();
    write_dense_array(&mut out, element, values);
    out
}

fn write_static_dims(out: &mut String, dims: &[Dim]) {
    write_dense_array(
        out,
        "i64",
        dims.iter().map(|dim| match dim {
            Dim::Static(value) => *value,
            Dim::Dynamic(_) => DYNAMIC,
        }),
    )
}

fn static_dims(dims: &[Dim]) -> String {
    let mut out = String::new();
    write_static_dims(&mut out, dims);
    out
}

fn segments(sizes: &[usize]) -> String {
    dense_array("i32", sizes.iter().map(|&size| i64::try_from(size).unwrap_or(i64::MAX)))
}

/// `{name = value, ...}`.
fn dict(entries: &[(&str, String)]) -> Option<String> {
    let mut out = String::from("{");
    for (index, (name, value)) in entries.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{name} = {value}");
    }
    out.push('}');
    Some(out)
}

/// `{static_dims = array<i64: ...>}`, the dictionary of the constructors with one dimension list.
fn static_dims_dict(dims: &[Dim]) -> Option<String> {
    let mut out = String::from("{static_dims = ");
    write_static_dims(&mut out, dims);
    out.push('}');
    Some(out)
}

/// MLIR's result type list: `()`, `t` or `(a, b)`; a lone function type needs parentheses.
fn write_result_types(out: &mut String, types: &[&str]) {
    match types {
        [single] if !single.starts_with('(') => out.push_str(single),
        _ => {
            out.push('(');
            write_list(out, types.iter().copied());
            out.push(')');
        }
    }
}

#[cfg(test)]
fn result_types(types: &[String]) -> String {
    let mut out = String::new();
    write_result_types(&mut out, &types.iter().map(String::as_str).collect::<Vec<_>>());
    out
}

fn dims_text(dims: &[Dim]) -> String {
    let entries: Vec<String> = dims
        .iter()
        .map(|dim| match dim {
            Dim::Static(value) => value.to_string(),
            Dim::Dynamic(name) => name.clone(),
        })
        .collect();
    format!("[{}]", entries.join(", "))
}

/// CuTe style: `[(4, 2), 8]` (a mode of one leaf without parentheses).
fn modes_text(modes: &[Vec<i64>]) -> String {
    let entries: Vec<String> = modes
        .iter()
        .map(|mode| match mode.as_slice() {
            [single] => single.to_string(),
            _ => format!("({})", mode.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")),
        })
        .collect();
    format!("[{}]", entries.join(", "))
}

fn args_text(args: &[BlockArg]) -> String {
    args.iter().map(BlockArg::to_string).collect::<Vec<_>>().join(", ")
}

/// `^bb0(args):` after the `{` of a generic region; nothing when the entry block has no arguments, which is
/// how MLIR prints such a block.
fn entry_label(label: &str, args: &[BlockArg]) -> String {
    if args.is_empty() {
        String::new()
    } else {
        format!(" {label}({}):", args_text(args))
    }
}

impl LegoOp {
    pub fn name(&self) -> OpName {
        match self {
            LegoOp::Row { .. } => OpName::Op(OpKind::Row),
            LegoOp::Col { .. } => OpName::Op(OpKind::Col),
            LegoOp::RegP { .. } => OpName::Op(OpKind::RegP),
            LegoOp::GenP { .. } => OpName::Op(OpKind::GenP),
            LegoOp::OrderBy { .. } => OpName::Op(OpKind::OrderBy),
            LegoOp::GroupBy { .. } => OpName::Op(OpKind::GroupBy),
            LegoOp::TileBy { .. } => OpName::Op(OpKind::TileBy),
            LegoOp::ExpandBy { .. } => OpName::Op(OpKind::ExpandBy),
            LegoOp::Swizzle { .. } => OpName::Op(OpKind::Swizzle),
            LegoOp::Compose { .. } => OpName::Op(OpKind::Compose),
            LegoOp::Inverse { .. } => OpName::Op(OpKind::Inverse),
            LegoOp::Strided { .. } => OpName::Op(OpKind::Strided),
            LegoOp::Apply { .. } => OpName::Op(OpKind::Apply),
            LegoOp::ApplyInverse { .. } => OpName::Op(OpKind::ApplyInverse),
            LegoOp::CastView { .. } => OpName::Op(OpKind::CastView),
            LegoOp::Load { .. } => OpName::Op(OpKind::Load),
            LegoOp::Store { .. } => OpName::Op(OpKind::Store),
            LegoOp::Check { .. } => OpName::Op(OpKind::Check),
            LegoOp::Assume { .. } => OpName::Op(OpKind::Assume),
            LegoOp::AssumeBounds { .. } => OpName::Op(OpKind::AssumeBounds),
            LegoOp::AssertApplyBounds { .. } => OpName::Op(OpKind::AssertApplyBounds),
            LegoOp::AssertInvBounds { .. } => OpName::Op(OpKind::AssertInvBounds),
            LegoOp::Yield { .. } => OpName::Yield,
        }
    }

    fn generic_parts(&self) -> GenericParts<'_> {
        let indices = |count: usize| vec![INDEX; count];
        match self {
            LegoOp::Row { dims, ty } | LegoOp::Col { dims, ty } | LegoOp::GenP { dims, ty, .. } => GenericParts {
                operands: dynamic_names(dims).collect(),
                operand_types: indices(dynamic_names(dims).count()),
                dict: static_dims_dict(dims),
                result_types: vec![ty],
            },
            LegoOp::RegP { perm, dims, ty } => GenericParts {
                operands: dynamic_names(dims).collect(),
                operand_types: indices(dynamic_names(dims).count()),
                dict: dict(&[("perm", dense_array("i64", perm.iter().copied())), ("static_dims", static_dims(dims))]),
                result_types: vec![ty],
            },
            LegoOp::Swizzle { swizzle, dims, ty } => GenericParts {
                operands: dynamic_names(dims).collect(),
                operand_types: indices(dynamic_names(dims).count()),
                dict: dict(&[("static_dims", static_dims(dims)), ("swizzle", dense_array("i64", swizzle.iter().copied()))]),
                result_types: vec![ty],
            },
            LegoOp::Compose { outer, inner, ty } => GenericParts {
                operands: vec![outer, inner],
                operand_types: vec![LAYOUT; 2],
                dict: None,
                result_types: vec![ty],
            },
            LegoOp::Inverse { inner, ty } => GenericParts {
                operands: vec![inner],
                operand_types: vec![LAYOUT],
                dict: None,
                result_types: vec![ty],
            },
            LegoOp::Strided { shape, stride, ty } => GenericParts {
                operands: Vec::new(),
                operand_types: Vec::new(),
                dict: dict(&[
                    ("modes", dense_array("i64", shape.iter().map(|mode| mode.len() as i64))),
                    ("shape", dense_array("i64", shape.iter().flatten().copied())),
                    ("stride", dense_array("i64", stride.iter().flatten().copied())),
                ]),
                result_types: vec![ty],
            },
            LegoOp::OrderBy { objects, ty } => GenericParts {
                operands: objects.iter().map(String::as_str).collect(),
                operand_types: vec![LAYOUT; objects.len()],
                dict: None,
                result_types: vec![ty],
            },
            LegoOp::GroupBy { dims, objects, ty } => {
                let dynamic = dynamic_names(dims).count();
                GenericParts {
                    operands: dynamic_names(dims).chain(objects.iter().map(String::as_str)).collect(),
                    operand_types: [indices(dynamic), vec![LAYOUT; objects.len()]].concat(),
                    dict: dict(&[
                        ("operandSegmentSizes", segments(&[dynamic, objects.len()])),
                        ("static_dims", static_dims(dims)),
                    ]),
                    result_types: vec![ty],
                }
            }
            LegoOp::TileBy { inner, levels, ty } => {
                let operands: Vec<&str> =
                    std::iter::once(inner.as_str()).chain(levels.iter().flat_map(|level| dynamic_names(level))).collect();
                let mut dict = String::from("{static_tile_dims = [");
                for (index, level) in levels.iter().enumerate() {
                    if index > 0 {
                        dict.push_str(", ");
                    }
                    write_static_dims(&mut dict, level);
                }
                dict.push_str("]}");
                GenericParts {
                    operand_types: [vec![LAYOUT], indices(operands.len() - 1)].concat(),
                    operands,
                    dict: Some(dict),
                    result_types: vec![ty],
                }
            }
            LegoOp::ExpandBy { inner, dims, to, ty } => {
                let (from_count, to_count) = (dynamic_names(dims).count(), dynamic_names(to).count());
                GenericParts {
                    operands: std::iter::once(inner.as_str()).chain(dynamic_names(dims)).chain(dynamic_names(to)).collect(),
                    operand_types: [vec![LAYOUT], indices(from_count + to_count)].concat(),
                    dict: dict(&[
                        ("operandSegmentSizes", segments(&[1, from_count, to_count])),
                        ("static_dims", static_dims(dims)),
                        ("static_to_dims", static_dims(to)),
                    ]),
                    result_types: vec![ty],
                }
            }
            LegoOp::Apply { layout, indices: rest, ty } => layout_and_indices(layout, rest, ty, vec![INDEX]),
            LegoOp::ApplyInverse { layout, flat: rest, ty, results } => {
                layout_and_indices(layout, rest, ty, results.iter().map(String::as_str).collect())
            }
            LegoOp::AssertApplyBounds { layout, indices: rest, ty } | LegoOp::AssertInvBounds { layout, flat: rest, ty } => {
                layout_and_indices(layout, rest, ty, Vec::new())
            }
            LegoOp::CastView { memref, layout, memref_ty, layout_ty, view_ty } => GenericParts {
                operands: vec![memref, layout],
                operand_types: vec![memref_ty, layout_ty],
                dict: None,
                result_types: vec![view_ty],
            },
            LegoOp::Load { view, indices, types, element } => GenericParts {
                operands: std::iter::once(view.as_str()).chain(indices.iter().map(String::as_str)).collect(),
                operand_types: types.iter().map(String::as_str).collect(),
                dict: None,
                result_types: vec![element],
            },
            LegoOp::Store { value, view, indices, types } => GenericParts {
                operands: [value.as_str(), view.as_str()].into_iter().chain(indices.iter().map(String::as_str)).collect(),
                operand_types: types.iter().map(String::as_str).collect(),
                dict: None,
                result_types: Vec::new(),
            },
            LegoOp::Check { address, dict } => GenericParts {
                operands: vec![address],
                operand_types: vec![INDEX],
                dict: dict.clone(),
                result_types: Vec::new(),
            },
            LegoOp::Assume { condition } => GenericParts {
                operands: vec![condition],
                operand_types: vec!["i1"],
                dict: None,
                result_types: Vec::new(),
            },
            LegoOp::AssumeBounds { value, lb, ub } => {
                let operands: Vec<&str> = std::iter::once(value).chain(lb).chain(ub).map(String::as_str).collect();
                GenericParts {
                    operand_types: indices(operands.len()),
                    operands,
                    dict: dict(&[("operandSegmentSizes", segments(&[1, usize::from(lb.is_some()), usize::from(ub.is_some())]))]),
                    result_types: Vec::new(),
                }
            }
            LegoOp::Yield { values, types } => GenericParts {
                operands: values.iter().map(String::as_str).collect(),
                operand_types: types.iter().map(String::as_str).collect(),
                dict: None,
                result_types: Vec::new(),
            },
        }
    }

    /// The generic form on one line, without a location. Not for `gen_p` (see [`LegoOp::generic_pieces`]).
    pub fn generic(&self, results: Option<&str>) -> String {
        let mut text = String::with_capacity(160);
        self.write_generic(results, &mut text);
        text
    }

    /// [`LegoOp::generic`], appended to `text`; returns the byte offset in `text` at which the op's name (a
    /// string, where MLIR's parser locates the op) begins.
    pub fn write_generic(&self, results: Option<&str>, text: &mut String) -> usize {
        let parts = self.generic_parts();
        if let Some(results) = results {
            text.push_str(results);
            text.push_str(" = ");
        }
        let name_at = text.len();
        match self {
            LegoOp::Yield { .. } => text.push_str("\"smt.yield\""),
            _ => {
                text.push_str("\"lego.");
                text.push_str(self.name().suffix());
                text.push('"');
            }
        }
        text.push('(');
        write_list(text, parts.operands.iter().copied());
        text.push(')');
        if let Some(dict) = &parts.dict {
            text.push(' ');
            text.push_str(dict);
        }
        text.push_str(" : (");
        write_list(text, parts.operand_types.iter().copied());
        text.push_str(") -> ");
        write_result_types(text, &parts.result_types);
        name_at
    }

    /// The generic form of `gen_p` around its region bodies; `label` names the entry blocks.
    pub fn generic_pieces(&self, results: Option<&str>, label: &str) -> Option<Pieces> {
        let LegoOp::GenP { apply, inv, .. } = self else { return None };
        let parts = self.generic_parts();
        let header = format!(
            "{}\"lego.gen_p\"({}) ({{{}",
            results_prefix(results),
            parts.operands.join(", "),
            entry_label(label, apply)
        );
        let middle = inv.as_ref().map(|inv| format!("}}, {{{}", entry_label(label, inv)));
        let empty_inverse = if inv.is_some() { "" } else { ", {}" };
        let mut trailer = format!("}}{empty_inverse}) {} : (", parts.dict.unwrap_or_default());
        write_list(&mut trailer, parts.operand_types.iter().copied());
        trailer.push_str(") -> ");
        write_result_types(&mut trailer, &parts.result_types);
        Some(Pieces { header, middle, trailer })
    }

    /// The custom form on one line, without a location. Not for `gen_p` (see [`LegoOp::custom_pieces`]).
    pub fn custom(&self, results: Option<&str>) -> String {
        let name = format!("{}lego.{}", results_prefix(results), self.name().suffix());
        let list = |values: &[String]| values.join(", ");
        match self {
            // docs/reference/syntax.md's printed spelling: no space between an op name or keyword and a following `[`.
            LegoOp::Row { dims, ty } | LegoOp::Col { dims, ty } => format!("{name}{} : {ty}", dims_text(dims)),
            LegoOp::RegP { perm, dims, ty } => {
                let perm: Vec<Dim> = perm.iter().map(|&entry| Dim::Static(entry)).collect();
                format!("{name} perm {} dims{} : {ty}", dims_text(&perm), dims_text(dims))
            }
            LegoOp::GenP { .. } => String::new(),
            LegoOp::Swizzle { swizzle: [bits, base, shift], dims, ty } => {
                format!("{name} bits {bits} base {base} shift {shift} dims{} : {ty}", dims_text(dims))
            }
            LegoOp::OrderBy { objects, ty } => format!("{name}({}) : {ty}", list(objects)),
            LegoOp::Compose { outer, inner, ty } => format!("{name} {outer}, {inner} : {ty}"),
            LegoOp::Inverse { inner, ty } => format!("{name} {inner} : {ty}"),
            LegoOp::Strided { shape, stride, ty } => {
                format!("{name} shape {} stride {} : {ty}", modes_text(shape), modes_text(stride))
            }
            LegoOp::GroupBy { dims, objects, ty } => format!("{name}{} ({}) : {ty}", dims_text(dims), list(objects)),
            LegoOp::TileBy { inner, levels, ty } => {
                let levels: Vec<String> = levels.iter().map(|level| dims_text(level)).collect();
                format!("{name} {inner} tile_dims [{}] : {ty}", levels.join(", "))
            }
            LegoOp::ExpandBy { inner, dims, to, ty } => {
                format!("{name} {inner} dims {} to {} : {ty}", dims_text(dims), dims_text(to))
            }
            LegoOp::Apply { layout, indices: rest, ty }
            | LegoOp::AssertApplyBounds { layout, indices: rest, ty }
            | LegoOp::AssertInvBounds { layout, flat: rest, ty } => format!("{name} {layout}({}) : {ty}", list(rest)),
            LegoOp::ApplyInverse { layout, flat, ty, results } => {
                let results = if results.is_empty() { "()".to_string() } else { list(results) };
                format!("{name} {layout}({}) : {ty} -> {results}", list(flat))
            }
            LegoOp::CastView { memref, layout, memref_ty, layout_ty, view_ty } => {
                format!("{name} {memref}, {layout} : {memref_ty}, {layout_ty} -> {view_ty}")
            }
            LegoOp::Load { view, indices, types, .. } => format!("{name} {view}[{}] : {}", list(indices), list(types)),
            LegoOp::Store { value, view, indices, types } => {
                format!("{name} {value}, {view}[{}] : {}", list(indices), list(types))
            }
            LegoOp::Check { address, dict } => match dict {
                Some(dict) => format!("{name} {address} {dict}"),
                None => format!("{name} {address}"),
            },
            LegoOp::Assume { condition } => format!("{name} {condition}"),
            LegoOp::AssumeBounds { value, lb, ub } => {
                let mut text = format!("{name} {value}");
                if let Some(lb) = lb {
                    let _ = write!(text, " lb : {lb}");
                }
                if let Some(ub) = ub {
                    let _ = write!(text, " ub : {ub}");
                }
                text
            }
            LegoOp::Yield { values, types } if values.is_empty() && types.is_empty() => name,
            LegoOp::Yield { values, types } => format!("{name} {} : {}", list(values), list(types)),
        }
    }

    /// The custom form of `gen_p` around its region bodies.
    pub fn custom_pieces(&self, results: Option<&str>) -> Option<Pieces> {
        let LegoOp::GenP { dims, apply, inv, ty } = self else { return None };
        Some(Pieces {
            header: format!("{}lego.gen_p{} apply ({}) {{", results_prefix(results), dims_text(dims), args_text(apply)),
            middle: inv.as_ref().map(|inv| format!("}} inv ({}) {{", args_text(inv))),
            trailer: format!("}} : {ty}"),
        })
    }
}

/// `lego.apply` and its relatives: a layout operand, index operands, and the given results.
fn layout_and_indices<'m>(layout: &'m str, indices: &'m [String], ty: &'m str, results: Vec<&'m str>) -> GenericParts<'m> {
    let mut operand_types = Vec::with_capacity(indices.len() + 1);
    operand_types.push(ty);
    operand_types.resize(indices.len() + 1, INDEX);
    GenericParts {
        operands: std::iter::once(layout).chain(indices.iter().map(String::as_str)).collect(),
        operand_types,
        dict: None,
        result_types: results,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ssa(name: &str) -> String {
        name.to_string()
    }

    fn layout() -> String {
        LAYOUT.to_string()
    }

    #[test]
    fn op_names_round_trip() {
        let every = OpKind::ALL.into_iter().map(OpName::Op).chain([OpName::Yield]);
        for op in every {
            let suffix = op.suffix();
            assert_eq!(OpName::parse(&format!("lego.{suffix}")), Some(op));
        }
        assert_eq!(OpName::Op(OpKind::RegP).suffix(), "reg_p");
        assert_eq!(OpName::Op(OpKind::AssertInvBounds).suffix(), "assert_inv_bounds");
        assert_eq!(OpName::Yield.suffix(), "yield");
        assert_eq!(OpName::parse("lego.foo"), None);
        assert_eq!(OpName::parse("row"), None);
    }

    #[test]
    fn mixed_dims_render_with_the_dynamic_sentinel() {
        let op = LegoOp::Row { dims: vec![Dim::Static(4), Dim::Dynamic(ssa("%n"))], ty: layout() };
        assert_eq!(
            op.generic(Some("%l")),
            "%l = \"lego.row\"(%n) {static_dims = array<i64: 4, -9223372036854775808>} : (index) -> !lego.layout"
        );
        assert_eq!(op.custom(Some("%l")), "%l = lego.row[4, %n] : !lego.layout");
    }

    #[test]
    fn empty_lists_render_as_empty_arrays() {
        let op = LegoOp::Row { dims: Vec::new(), ty: layout() };
        assert_eq!(op.generic(None), "\"lego.row\"() {static_dims = array<i64>} : () -> !lego.layout");
        let op = LegoOp::TileBy { inner: ssa("%o"), levels: Vec::new(), ty: layout() };
        assert_eq!(op.generic(None), "\"lego.tile_by\"(%o) {static_tile_dims = []} : (!lego.layout) -> !lego.layout");
    }

    #[test]
    fn gen_p_pieces() {
        let arg = |name: &str| BlockArg { name: ssa(name), ty: INDEX.to_string(), loc: None };
        let op = LegoOp::GenP {
            dims: vec![Dim::Dynamic(ssa("%c4")), Dim::Static(4)],
            apply: vec![arg("%i"), arg("%j")],
            inv: Some(vec![arg("%x")]),
            ty: layout(),
        };
        assert_eq!(
            op.generic_pieces(Some("%l"), "^bb0"),
            Some(Pieces {
                header: "%l = \"lego.gen_p\"(%c4) ({ ^bb0(%i: index, %j: index):".into(),
                middle: Some("}, { ^bb0(%x: index):".into()),
                trailer: "}) {static_dims = array<i64: -9223372036854775808, 4>} : (index) -> !lego.layout".into(),
            })
        );
        assert_eq!(
            op.custom_pieces(Some("%l")),
            Some(Pieces {
                header: "%l = lego.gen_p[%c4, 4] apply (%i: index, %j: index) {".into(),
                middle: Some("} inv (%x: index) {".into()),
                trailer: "} : !lego.layout".into()
            })
        );
        let apply_only = LegoOp::GenP { dims: vec![Dim::Static(4)], apply: vec![arg("%i")], inv: None, ty: layout() };
        let pieces = apply_only.generic_pieces(None, "^bb0");
        assert_eq!(
            pieces.map(|pieces| (pieces.middle, pieces.trailer)),
            Some((None, "}, {}) {static_dims = array<i64: 4>} : () -> !lego.layout".into()))
        );
    }

    #[test]
    fn result_type_lists() {
        assert_eq!(result_types(&[]), "()");
        assert_eq!(result_types(&[ssa("index")]), "index");
        assert_eq!(result_types(&[ssa("index"), ssa("index")]), "(index, index)");
        assert_eq!(result_types(&[ssa("(i32) -> i32")]), "((i32) -> i32)");
    }

    #[test]
    fn block_args_keep_locations() {
        let arg = BlockArg { name: ssa("%i"), ty: ssa("index"), loc: Some(ssa("loc(\"f\":1:2)")) };
        assert_eq!(arg.to_string(), "%i: index loc(\"f\":1:2)");
    }
}
