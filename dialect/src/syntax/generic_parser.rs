//! Parser for MLIR's generic op form, as the printer writes it:
//! `%r = "name"(%a, %b) ({ ^bb0(%x: t): ... }, {...}) {attr = value} : (ta, tb) -> tr loc(...)`,
//! and the reading of a generic lego op into a [`LegoOp`].
//!
//! The reading is deliberately lenient: callers only accept it after checking that the op renders back to
//! exactly the tokens it was read from, so anything the model cannot hold (an extra attribute, an odd type)
//! makes the check fail and the op stays as printed.

use crate::ops::OpKind;
use super::lexer::{Token, TokenKind};
use super::model::{BlockArg, Dim, LegoOp, OpName, DYNAMIC};
use super::parser::{parse_integer, Parsed, Parser};
use super::source::{OpHead, Source};

/// A region of a generic op: `{` at `open`, the entry block's label and arguments (if printed), the first
/// token of the body, and `}` at `close`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GenericRegion {
    pub open: usize,
    pub args: Option<Vec<BlockArg>>,
    pub body_start: usize,
    pub close: usize,
}

/// One `name = value` entry of an attribute dictionary; `value` is a token range, empty for unit attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Attribute<'a> {
    pub name: &'a str,
    pub value: std::ops::Range<usize>,
}

/// An attribute dictionary: its `{` and `}` token indices and its entries.
#[derive(Debug)]
pub(crate) struct AttributeDict<'a> {
    pub open: usize,
    pub close: usize,
    pub entries: Vec<Attribute<'a>>,
}

#[derive(Debug)]
pub(crate) struct GenericOp<'a> {
    /// The op name without quotes.
    pub name: &'a str,
    pub operands: Vec<String>,
    pub regions: Vec<GenericRegion>,
    pub dict: Option<AttributeDict<'a>>,
    pub operand_types: Vec<String>,
    pub result_types: Vec<String>,
    /// Index of the last token, not counting a trailing `loc(...)`.
    pub last: usize,
}

/// Parses the generic op at `head` (whose name token is a string), within tokens `..hi`. `None` for
/// anything outside the subset above: properties `<{...}>`, successors, escaped names, malformed text.
pub(crate) fn parse_generic_op<'a>(source: &Source<'a>, head: &OpHead, hi: usize) -> Option<GenericOp<'a>> {
    let name_token = source.toks.get(head.name)?;
    let name = name_token.text.strip_prefix('"')?.strip_suffix('"')?;
    if name.contains('\\') {
        return None;
    }
    let mut parser = Parser::new(source, head.name + 1, hi);
    parser.expect_punct("(", String::new).ok()?;
    let operands = parser.values_until(")").ok()?;
    let regions = if parser.peek().is_punct("(") { parser.generic_regions().ok()? } else { Vec::new() };
    let dict = if parser.peek().is_punct("{") { Some(parser.attribute_dict()?) } else { None };
    parser.expect_punct(":", String::new).ok()?;
    parser.expect_punct("(", String::new).ok()?;
    let operand_types = parser.types_until_paren(0).ok()?;
    parser.expect_punct("->", String::new).ok()?;
    let result_types = if parser.eat_punct("(") { parser.types_until_paren(0).ok()? } else { vec![parser.ty().ok()?] };
    Some(GenericOp { name, operands, regions, dict, operand_types, result_types, last: parser.pos - 1 })
}

impl<'a> Parser<'_, 'a> {
    /// `({...}, {...})`.
    fn generic_regions(&mut self) -> Parsed<Vec<GenericRegion>> {
        self.bump();
        let mut regions = Vec::new();
        loop {
            regions.push(self.generic_region()?);
            if self.eat_punct(")") {
                return Ok(regions);
            }
            self.expect_punct(",", String::new)?;
        }
    }

    /// `{ ^bb0(%a: t): body }`, `{ body }` (an entry block without arguments) or `{}` (no blocks).
    fn generic_region(&mut self) -> Parsed<GenericRegion> {
        let open_token = self.expect_punct("{", String::new)?;
        let open = self.pos - 1;
        let close =
            self.source.partner(open).filter(|&close| close < self.hi).ok_or_else(|| open_token.error("unbalanced '{'"))?;
        let mut label = Parser::new(self.source, open + 1, close);
        let args = if label.peek().kind == TokenKind::BlockId {
            label.bump();
            let args = if label.peek().is_punct("(") { label.block_args("^bb")? } else { Vec::new() };
            label.expect_punct(":", String::new)?;
            Some(args)
        } else {
            None
        };
        self.pos = close + 1;
        Ok(GenericRegion { open, args, body_start: label.pos, close })
    }

    /// `{name, name = value, ...}`; `None` if an entry is not `name` or `name = tokens`.
    fn attribute_dict(&mut self) -> Option<AttributeDict<'a>> {
        let open = self.pos;
        let close = self.source.partner(open).filter(|&close| close < self.hi)?;
        let mut entries = Vec::new();
        let mut index = open + 1;
        while index < close {
            let name = self.source.toks[index];
            if !matches!(name.kind, TokenKind::BareIdent | TokenKind::String) {
                return None;
            }
            index += 1;
            let start = if self.source.toks[index].is_punct("=") { index + 1 } else { index };
            let end = self.attribute_value_end(start, close);
            entries.push(Attribute { name: name.text, value: start..end });
            index = if end < close { end + 1 } else { end };
        }
        self.pos = close + 1;
        Some(AttributeDict { open, close, entries })
    }

    /// The token after an attribute value starting at `start`: the next `,` or `}` outside brackets.
    fn attribute_value_end(&self, start: usize, close: usize) -> usize {
        let mut index = start;
        while index < close {
            let token = self.source.toks[index];
            if token.is_punct(",") {
                break;
            }
            index = match token.kind {
                TokenKind::Punct if matches!(token.text, "(" | "[" | "{") => {
                    self.source.partner(index).map_or(close, |partner| partner + 1)
                }
                _ => index + 1,
            };
        }
        index.min(close)
    }
}

impl GenericOp<'_> {
    fn attribute<'s>(&self, source: &'s Source<'_>, name: &str) -> Option<&'s [Token<'s>]> {
        let attribute = self.dict.as_ref()?.entries.iter().find(|attribute| attribute.name == name)?;
        source.toks.get(attribute.value.clone())
    }

    /// Reads the op as a lego op (or `smt.yield` as `lego.yield`); see the module comment on leniency.
    pub fn to_lego(&self, source: &Source<'_>) -> Option<LegoOp> {
        let op_name = if self.name == "smt.yield" { OpName::Yield } else { OpName::parse(self.name)? };
        let mut operands = self.operands.iter().cloned();
        let operands = &mut operands;
        let dims = |name: &str, operands: &mut dyn Iterator<Item = String>| {
            mixed_dims(&dense_i64(self.attribute(source, name)?)?, operands)
        };
        let single = |types: &[String]| match types {
            [single] => Some(single.clone()),
            _ => None,
        };
        let layout_ty = || self.operand_types.first().cloned();
        let rest = |operands: &mut dyn Iterator<Item = String>| operands.collect::<Vec<_>>();
        let op = match op_name {
            OpName::Op(OpKind::Row) => LegoOp::Row { dims: dims("static_dims", operands)?, ty: single(&self.result_types)? },
            OpName::Op(OpKind::Col) => LegoOp::Col { dims: dims("static_dims", operands)?, ty: single(&self.result_types)? },
            OpName::Op(OpKind::RegP) => LegoOp::RegP {
                perm: dense_i64(self.attribute(source, "perm")?)?,
                dims: dims("static_dims", operands)?,
                ty: single(&self.result_types)?,
            },
            OpName::Op(OpKind::GenP) => self.gen_p(dims("static_dims", operands)?, single(&self.result_types)?)?,
            OpName::Op(OpKind::OrderBy) => LegoOp::OrderBy { objects: rest(operands), ty: single(&self.result_types)? },
            OpName::Op(OpKind::GroupBy) => {
                LegoOp::GroupBy { dims: dims("static_dims", operands)?, objects: rest(operands), ty: single(&self.result_types)? }
            }
            OpName::Op(OpKind::TileBy) => {
                let inner = operands.next()?;
                let levels = tile_levels(self.attribute(source, "static_tile_dims")?)?;
                let levels = levels.iter().map(|level| mixed_dims(level, operands)).collect::<Option<Vec<_>>>()?;
                LegoOp::TileBy { inner, levels, ty: single(&self.result_types)? }
            }
            OpName::Op(OpKind::ExpandBy) => LegoOp::ExpandBy {
                inner: operands.next()?,
                dims: dims("static_dims", operands)?,
                to: dims("static_to_dims", operands)?,
                ty: single(&self.result_types)?,
            },
            OpName::Op(OpKind::Swizzle) => LegoOp::Swizzle {
                swizzle: <[i64; 3]>::try_from(dense_i64(self.attribute(source, "swizzle")?)?).ok()?,
                dims: dims("static_dims", operands)?,
                ty: single(&self.result_types)?,
            },
            OpName::Op(OpKind::Strided) => {
                let counts = dense_i64(self.attribute(source, "modes")?)?;
                let shape = dense_i64(self.attribute(source, "shape")?)?;
                let stride = dense_i64(self.attribute(source, "stride")?)?;
                let total = counts.iter().try_fold(0usize, |total, count| total.checked_add(usize::try_from(*count).ok()?))?;
                // A mode without leaves has no custom spelling; such IR stays generic (the verifier reports it).
                if total != shape.len() || shape.len() != stride.len() || counts.contains(&0) {
                    return None;
                }
                let split = |values: Vec<i64>| {
                    let mut values = values.into_iter();
                    counts.iter().map(|&count| values.by_ref().take(count as usize).collect()).collect::<Vec<Vec<i64>>>()
                };
                LegoOp::Strided { shape: split(shape), stride: split(stride), ty: single(&self.result_types)? }
            }
            OpName::Op(OpKind::Compose) => match self.operands.as_slice() {
                [outer, inner] => LegoOp::Compose { outer: outer.clone(), inner: inner.clone(), ty: single(&self.result_types)? },
                _ => return None,
            },
            OpName::Op(OpKind::Inverse) => match self.operands.as_slice() {
                [inner] => LegoOp::Inverse { inner: inner.clone(), ty: single(&self.result_types)? },
                _ => return None,
            },
            OpName::Op(OpKind::Apply) => LegoOp::Apply { layout: operands.next()?, indices: rest(operands), ty: layout_ty()? },
            OpName::Op(OpKind::ApplyInverse) => LegoOp::ApplyInverse {
                layout: operands.next()?,
                flat: rest(operands),
                ty: layout_ty()?,
                results: self.result_types.clone(),
            },
            OpName::Op(OpKind::CastView) => match (self.operands.as_slice(), self.operand_types.as_slice()) {
                ([memref, layout], [memref_ty, layout_ty]) => LegoOp::CastView {
                    memref: memref.clone(),
                    layout: layout.clone(),
                    memref_ty: memref_ty.clone(),
                    layout_ty: layout_ty.clone(),
                    view_ty: single(&self.result_types)?,
                },
                _ => return None,
            },
            OpName::Op(OpKind::Load) => LegoOp::Load {
                view: operands.next()?,
                indices: rest(operands),
                types: self.operand_types.clone(),
                element: single(&self.result_types)?,
            },
            OpName::Op(OpKind::Store) => LegoOp::Store {
                value: operands.next()?,
                view: operands.next()?,
                indices: rest(operands),
                types: self.operand_types.clone(),
            },
            OpName::Op(OpKind::Check) => {
                let dict = self
                    .dict
                    .as_ref()
                    .map(|dict| source.text[source.toks[dict.open].offset..source.toks[dict.close].end()].to_string());
                LegoOp::Check { address: operands.next()?, dict }
            }
            OpName::Op(OpKind::Assume) => LegoOp::Assume { condition: operands.next()? },
            OpName::Op(OpKind::AssumeBounds) => {
                let value = operands.next()?;
                let sizes = dense_i64(self.attribute(source, "operandSegmentSizes")?)?;
                let (lb, ub) = match sizes.as_slice() {
                    [1, lb, ub] => ((*lb == 1).then(|| operands.next()).flatten(), (*ub == 1).then(|| operands.next()).flatten()),
                    _ => return None,
                };
                LegoOp::AssumeBounds { value, lb, ub }
            }
            OpName::Op(OpKind::AssertApplyBounds) => {
                LegoOp::AssertApplyBounds { layout: operands.next()?, indices: rest(operands), ty: layout_ty()? }
            }
            OpName::Op(OpKind::AssertInvBounds) => {
                LegoOp::AssertInvBounds { layout: operands.next()?, flat: rest(operands), ty: layout_ty()? }
            }
            OpName::Yield => LegoOp::Yield { values: self.operands.clone(), types: self.operand_types.clone() },
        };
        Some(op)
    }

    /// `gen_p` needs two regions, the first with a block; an empty second region means no inverse.
    fn gen_p(&self, dims: Vec<Dim>, ty: String) -> Option<LegoOp> {
        let [apply, inv] = self.regions.as_slice() else { return None };
        if apply.open + 1 == apply.close {
            return None;
        }
        let inv = (inv.open + 1 != inv.close).then(|| inv.args.clone().unwrap_or_default());
        Some(LegoOp::GenP { dims, apply: apply.args.clone().unwrap_or_default(), inv, ty })
    }
}

/// Rebuilds a mixed dimension list from its `static_dims` entries and the SSA operands, in order.
fn mixed_dims(entries: &[i64], operands: &mut dyn Iterator<Item = String>) -> Option<Vec<Dim>> {
    entries
        .iter()
        .map(|&entry| if entry == DYNAMIC { operands.next().map(Dim::Dynamic) } else { Some(Dim::Static(entry)) })
        .collect()
}

/// `array<i64: 1, 2>` / `array<i32: 1, 2>` / `array<i64>` as one token.
fn dense_i64(tokens: &[Token<'_>]) -> Option<Vec<i64>> {
    let [token] = tokens else { return None };
    let body = token.text.strip_prefix("array<")?.strip_suffix('>')?;
    let Some((_, values)) = body.split_once(':') else { return Some(Vec::new()) };
    values.split(',').map(|value| parse_integer(value.trim())).collect()
}

/// `[array<i64: ...>, array<i64: ...>]`.
fn tile_levels(tokens: &[Token<'_>]) -> Option<Vec<Vec<i64>>> {
    let (first, rest) = tokens.split_first()?;
    let (last, inner) = rest.split_last()?;
    if !first.is_punct("[") || !last.is_punct("]") {
        return None;
    }
    inner.iter().filter(|token| !token.is_punct(",")).map(|token| dense_i64(std::slice::from_ref(token))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Option<(LegoOp, usize)> {
        let source = Source::new(text).ok()?;
        let head = source.op_head(0)?;
        let op = parse_generic_op(&source, &head, source.eof())?;
        Some((op.to_lego(&source)?, op.last))
    }

    #[test]
    fn reads_mixed_dims() {
        let (op, last) = parse(
            "%0 = \"lego.row\"(%arg0) {static_dims = array<i64: 4, -9223372036854775808>} : (index) -> !lego.layout loc(#loc1)",
        )
        .expect("parses");
        assert_eq!(op, LegoOp::Row { dims: vec![Dim::Static(4), Dim::Dynamic("%arg0".into())], ty: "!lego.layout".into() });
        assert_eq!(last, 16);
    }

    #[test]
    fn reads_gen_p_regions() {
        let text = "%1 = \"lego.gen_p\"() ({\n^bb0(%a: index loc(\"f\":1:2)):\n  smt.yield %a : index\n}, {\n}) {static_dims = array<i64: 4>} : () -> !lego.layout";
        let source = Source::new(text).expect("lexes");
        let head = source.op_head(0).expect("op");
        let op = parse_generic_op(&source, &head, source.eof()).expect("parses");
        assert_eq!(op.regions.len(), 2);
        assert_eq!(source.toks[op.regions[0].body_start].text, "smt.yield");
        assert_eq!(op.regions[1].open + 1, op.regions[1].close);
        let Some(LegoOp::GenP { apply, inv, .. }) = op.to_lego(&source) else { panic!("not a gen_p") };
        assert_eq!(apply, vec![BlockArg { name: "%a".into(), ty: "index".into(), loc: Some("loc(\"f\":1:2)".into()) }]);
        assert_eq!(inv, None);
    }

    #[test]
    fn reads_attribute_entries() {
        let text = "\"lego.check\"(%a) {bank_conflict_free, num_banks = 16 : i64, \"odd name\" = [1, {x = 2}]} : (index) -> ()";
        let source = Source::new(text).expect("lexes");
        let head = source.op_head(0).expect("op");
        let op = parse_generic_op(&source, &head, source.eof()).expect("parses");
        let entries = op.dict.map(|dict| dict.entries).unwrap_or_default();
        let names: Vec<&str> = entries.iter().map(|attribute| attribute.name).collect();
        assert_eq!(names, vec!["bank_conflict_free", "num_banks", "\"odd name\""]);
        let values: Vec<usize> = entries.iter().map(|attribute| attribute.value.len()).collect();
        assert_eq!(values, vec![0, 3, 9]);
    }

    #[test]
    fn rejects_properties_and_successors() {
        assert!(parse("\"lego.row\"() <{static_dims = array<i64: 4>}> : () -> !lego.layout").is_none());
        assert!(parse("\"lego.assume\"(%c)[^bb1] : (i1) -> ()").is_none());
    }

    #[test]
    fn dense_arrays() {
        let source = Source::new("array<i64: 1, -9223372036854775808> array<i64> array<i32: 1, 0, 1>").expect("lexes");
        assert_eq!(dense_i64(&source.toks[0..1]), Some(vec![1, i64::MIN]));
        assert_eq!(dense_i64(&source.toks[1..2]), Some(vec![]));
        assert_eq!(dense_i64(&source.toks[2..3]), Some(vec![1, 0, 1]));
    }
}
