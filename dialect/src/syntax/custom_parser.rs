//! Parser for the dialect's custom forms (`docs/reference/syntax.md`), from the token after the op
//! name to the end of the op. Messages follow MLIR's parser (`expected '[' after 'dims'`).

use crate::ops::OpKind;
use super::lexer::{Token, TokenKind};
use super::model::{Dim, LegoOp, OpName, DYNAMIC};
use super::parser::{parse_integer, Parsed, Parser};
use super::source::Source;
use super::SyntaxError;

/// A parsed custom op. For `gen_p`, `regions` holds the `{`/`}` token indices of the `apply` region and, if
/// present, of the `inv` region; their bodies are left to the caller.
#[derive(Debug)]
pub(crate) struct ParsedOp {
    pub op: LegoOp,
    pub regions: Vec<(usize, usize)>,
    /// Index of the last token of the op, not counting a trailing `loc(...)`.
    pub last: usize,
    /// Index of the trailing `loc(...)` token, if the op has one.
    pub loc: Option<usize>,
}

/// Parses the custom op `name` whose name token is at `name_index`, looking no further than token `hi`.
pub(crate) fn parse_op(source: &Source<'_>, name: OpName, name_index: usize, hi: usize) -> Result<ParsedOp, SyntaxError> {
    let mut parser = Parser::new(source, name_index + 1, hi);
    let op_name = source.toks[name_index].text;
    let op = parser.op(name, op_name)?;
    let last = parser.pos - 1;
    let loc = (parser.peek().kind == TokenKind::Loc).then_some(parser.pos);
    Ok(ParsedOp { op, regions: parser.regions, last, loc })
}

impl<'a> Parser<'_, 'a> {
    /// `open v, v, ... close`.
    fn delimited_values(&mut self, open: &str, close: &str, after: &str) -> Parsed<Vec<String>> {
        self.expect_punct(open, || format!("expected '{open}' after '{after}'"))?;
        self.values_until(close)
    }

    /// `v (, v)*` without brackets: a `yield` operand list.
    fn bare_values(&mut self) -> Parsed<Vec<String>> {
        let mut values = Vec::new();
        if self.peek().kind != TokenKind::ValueId {
            return Ok(values);
        }
        values.push(self.value()?);
        while self.eat_punct(",") {
            values.push(self.value()?);
        }
        Ok(values)
    }

    fn integer(&mut self) -> Parsed<i64> {
        let token = self.peek();
        let value = parse_integer(token.text)
            // A literal of thousands of digits is shown abbreviated (its first and last digits and its length).
            .ok_or_else(|| {
                token.error(format!(
                    "integer literal '{}' does not fit in 64 bits",
                    lego_algebra::abbreviate_decimal(token.text)
                ))
            })?;
        self.bump();
        Ok(value)
    }

    /// `[d0, d1, ...]` where each entry is an integer literal or an SSA value; `after` names what precedes
    /// the list in messages.
    fn dims(&mut self, after: &str) -> Parsed<Vec<Dim>> {
        self.expect_punct("[", || format!("expected '[' after '{after}'"))?;
        self.list_until_bracket(|parser| match parser.peek().kind {
            TokenKind::Integer => {
                let token = parser.peek();
                let value = parser.integer()?;
                if value == DYNAMIC {
                    return Err(token.error(format!("dimension {value} is reserved for dynamic sizes")));
                }
                Ok(Dim::Static(value))
            }
            TokenKind::ValueId => Ok(Dim::Dynamic(parser.value()?)),
            _ => parser.fail("expected integer literal or SSA value in dimension list"),
        })
    }

    /// Entries separated by `,` up to `]`, the `[` already consumed; may be empty.
    fn list_until_bracket<T>(&mut self, mut entry: impl FnMut(&mut Self) -> Parsed<T>) -> Parsed<Vec<T>> {
        let mut entries = Vec::new();
        if self.eat_punct("]") {
            return Ok(entries);
        }
        loop {
            entries.push(entry(self)?);
            if self.eat_punct("]") {
                return Ok(entries);
            }
            self.expect_punct(",", || "expected ',' or ']' in list".to_string())?;
        }
    }

    /// `[e, (e, e), ...]`: one entry per mode, an integer literal or a parenthesized list of them (the leaves).
    fn modes(&mut self, after: &str) -> Parsed<Vec<Vec<i64>>> {
        self.expect_punct("[", || format!("expected '[' after '{after}'"))?;
        let literal = |parser: &mut Self| match parser.peek().kind {
            TokenKind::Integer => parser.integer(),
            _ => parser.fail(format!("expected integer literal in '{after}' (strided sizes and strides are literals)")),
        };
        self.list_until_bracket(|parser| {
            if !parser.eat_punct("(") {
                return Ok(vec![literal(parser)?]);
            }
            let mut leaves = vec![literal(parser)?];
            while parser.eat_punct(",") {
                leaves.push(literal(parser)?);
            }
            parser.expect_punct(")", || "expected ',' or ')' in a nested mode".to_string())?;
            Ok(leaves)
        })
    }

    fn perm(&mut self) -> Parsed<Vec<i64>> {
        self.expect_punct("[", || "expected '[' after 'perm'".to_string())?;
        self.list_until_bracket(|parser| match parser.peek().kind {
            TokenKind::Integer => parser.integer(),
            TokenKind::ValueId => parser.fail("reg_p 'perm' entries must be integer literals"),
            _ => parser.fail("expected integer literal in 'perm' list"),
        })
    }

    /// `: !lego.layout` (or an alias of it); returns the type as written.
    fn layout_type(&mut self) -> Parsed<String> {
        let message = "expected ':' followed by '!lego.layout'";
        self.expect_punct(":", || message.to_string())?;
        let token = self.peek();
        if token.kind == TokenKind::TypeId && self.source.resolve_alias(token.text) == "!lego.layout" {
            self.bump();
            Ok(token.text.to_string())
        } else {
            self.fail(message)
        }
    }

    /// `{ ... }`: records the region and skips its body.
    fn region(&mut self, which: &str) -> Parsed<()> {
        let open = self.expect_punct("{", || format!("expected '{{' to begin the '{which}' region"))?;
        let open_index = self.pos - 1;
        let close =
            self.source.partner(open_index).filter(|&close| close < self.hi).ok_or_else(|| open.error("unbalanced '{'"))?;
        self.regions.push((open_index, close));
        self.pos = close + 1;
        Ok(())
    }

    /// The attribute dictionary of `lego.check`, verbatim.
    fn verbatim_dict(&mut self) -> Parsed<Option<String>> {
        if !self.peek().is_punct("{") {
            return Ok(None);
        }
        let open = self.peek();
        let close = self.source.partner(self.pos).filter(|&close| close < self.hi).ok_or_else(|| open.error("unbalanced '{'"))?;
        let text = &self.source.text[open.offset..self.source.toks[close].end()];
        self.pos = close + 1;
        Ok(Some(text.to_string()))
    }

    fn op(&mut self, name: OpName, op_name: &str) -> Parsed<LegoOp> {
        match name {
            OpName::Op(OpKind::Row) => Ok(LegoOp::Row { dims: self.dims(op_name)?, ty: self.layout_type()? }),
            OpName::Op(OpKind::Col) => Ok(LegoOp::Col { dims: self.dims(op_name)?, ty: self.layout_type()? }),
            OpName::Op(OpKind::RegP) => {
                self.expect_word("perm", op_name)?;
                let perm = self.perm()?;
                self.expect_word("dims", "perm [...]")?;
                Ok(LegoOp::RegP { perm, dims: self.dims("dims")?, ty: self.layout_type()? })
            }
            OpName::Op(OpKind::GenP) => self.gen_p(op_name),
            OpName::Op(OpKind::OrderBy) => {
                Ok(LegoOp::OrderBy { objects: self.delimited_values("(", ")", op_name)?, ty: self.layout_type()? })
            }
            OpName::Op(OpKind::GroupBy) => {
                let dims = self.dims(op_name)?;
                Ok(LegoOp::GroupBy { dims, objects: self.delimited_values("(", ")", "]")?, ty: self.layout_type()? })
            }
            OpName::Op(OpKind::TileBy) => {
                let inner = self.value()?;
                self.expect_word("tile_dims", &inner)?;
                self.expect_punct("[", || "expected '[' after 'tile_dims'".to_string())?;
                let levels = self.list_until_bracket(|parser| parser.dims("tile_dims"))?;
                Ok(LegoOp::TileBy { inner, levels, ty: self.layout_type()? })
            }
            OpName::Op(OpKind::ExpandBy) => {
                let inner = self.value()?;
                self.expect_word("dims", &inner)?;
                let dims = self.dims("dims")?;
                self.expect_word("to", "dims [...]")?;
                Ok(LegoOp::ExpandBy { inner, dims, to: self.dims("to")?, ty: self.layout_type()? })
            }
            OpName::Op(OpKind::Swizzle) => {
                // `bits B base M shift S dims [...]`: CuTe's Swizzle<B, M, S>, each parameter a literal.
                let mut swizzle = [0; 3];
                let mut after = op_name.to_string();
                for (slot, word) in swizzle.iter_mut().zip(["bits", "base", "shift"]) {
                    self.expect_word(word, &after)?;
                    if self.peek().kind != TokenKind::Integer {
                        return self.fail(format!("expected integer literal after '{word}'"));
                    }
                    *slot = self.integer()?;
                    after = slot.to_string();
                }
                self.expect_word("dims", &after)?;
                Ok(LegoOp::Swizzle { swizzle, dims: self.dims("dims")?, ty: self.layout_type()? })
            }
            OpName::Op(OpKind::Compose) => {
                let outer = self.value()?;
                self.expect_punct(",", || "expected ',' after the outer layout".to_string())?;
                Ok(LegoOp::Compose { outer, inner: self.value()?, ty: self.layout_type()? })
            }
            OpName::Op(OpKind::Inverse) => Ok(LegoOp::Inverse { inner: self.value()?, ty: self.layout_type()? }),
            OpName::Op(OpKind::Strided) => {
                // `shape [(4, 2), 8] stride [(1, 32), 4]`: CuTe's shape:stride, literals only.
                self.expect_word("shape", op_name)?;
                let shape_token = self.peek();
                let shape = self.modes("shape")?;
                self.expect_word("stride", "shape [...]")?;
                let stride = self.modes("stride")?;
                let same = shape.len() == stride.len() && shape.iter().zip(&stride).all(|(a, b)| a.len() == b.len());
                if !same {
                    return Err(shape_token.error("'shape' and 'stride' must have the same structure (modes and their leaves)"));
                }
                Ok(LegoOp::Strided { shape, stride, ty: self.layout_type()? })
            }
            OpName::Op(OpKind::Apply) => {
                let layout = self.value()?;
                Ok(LegoOp::Apply { indices: self.delimited_values("(", ")", &layout)?, layout, ty: self.layout_type()? })
            }
            OpName::Op(OpKind::ApplyInverse) => self.apply_inverse(),
            OpName::Op(OpKind::CastView) => self.cast_view(),
            OpName::Op(OpKind::Load) => self.load(),
            OpName::Op(OpKind::Store) => self.store(),
            OpName::Op(OpKind::Check) => Ok(LegoOp::Check { address: self.value()?, dict: self.verbatim_dict()? }),
            OpName::Op(OpKind::Assume) => Ok(LegoOp::Assume { condition: self.value()? }),
            OpName::Op(OpKind::AssumeBounds) => self.assume_bounds(),
            OpName::Op(OpKind::AssertApplyBounds) => {
                let layout = self.value()?;
                Ok(LegoOp::AssertApplyBounds {
                    indices: self.delimited_values("(", ")", &layout)?,
                    layout,
                    ty: self.layout_type()?,
                })
            }
            OpName::Op(OpKind::AssertInvBounds) => {
                let layout = self.value()?;
                Ok(LegoOp::AssertInvBounds { flat: self.delimited_values("(", ")", &layout)?, layout, ty: self.layout_type()? })
            }
            OpName::Yield => {
                let values = self.bare_values()?;
                let types = if values.is_empty() && !self.peek().is_punct(":") {
                    Vec::new()
                } else {
                    self.expect_punct(":", || "expected ':' followed by the types of the yielded values".to_string())?;
                    self.type_list()?
                };
                Ok(LegoOp::Yield { values, types })
            }
        }
    }

    fn gen_p(&mut self, op_name: &str) -> Parsed<LegoOp> {
        let dims = self.dims(op_name)?;
        self.expect_word("apply", "]")?;
        let apply = self.block_args("apply")?;
        self.region("apply")?;
        let inv = if self.eat_word("inv") {
            let args = self.block_args("inv")?;
            self.region("inv")?;
            Some(args)
        } else {
            None
        };
        Ok(LegoOp::GenP { dims, apply, inv, ty: self.layout_type()? })
    }

    fn apply_inverse(&mut self) -> Parsed<LegoOp> {
        let layout = self.value()?;
        let flat = self.delimited_values("(", ")", &layout)?;
        let ty = self.layout_type()?;
        self.expect_punct("->", || "expected '->' followed by the result types".to_string())?;
        let results = if self.eat_punct("(") { self.types_until_paren(0)? } else { self.type_list()? };
        Ok(LegoOp::ApplyInverse { layout, flat, ty, results })
    }

    fn cast_view(&mut self) -> Parsed<LegoOp> {
        let memref = self.value()?;
        self.expect_punct(",", || "expected ',' after the memref operand".to_string())?;
        let layout = self.value()?;
        self.expect_punct(":", || "expected ':' followed by the memref and layout types".to_string())?;
        let memref_ty = self.ty()?;
        self.expect_punct(",", || "expected ',' after the memref type".to_string())?;
        let layout_ty = self.ty()?;
        self.expect_punct("->", || "expected '->' followed by the view type".to_string())?;
        Ok(LegoOp::CastView { memref, layout, memref_ty, layout_ty, view_ty: self.ty()? })
    }

    /// `: t1, t2, ...` with one type per operand; also returns the first type's token, for messages.
    fn operand_types(&mut self, operands: usize) -> Parsed<(Token<'a>, Vec<String>)> {
        self.expect_punct(":", || "expected ':' followed by the operand types".to_string())?;
        let first = self.peek();
        let types = self.type_list()?;
        if types.len() != operands {
            return Err(first.error(format!("expected {operands} types (one per operand), found {}", types.len())));
        }
        Ok((first, types))
    }

    fn load(&mut self) -> Parsed<LegoOp> {
        let view = self.value()?;
        let indices = self.delimited_values("[", "]", &view)?;
        let (view_token, types) = self.operand_types(indices.len() + 1)?;
        // The generic form needs the result type, which the custom form leaves to the view type.
        let element =
            types.first().and_then(|view_type| view_element_type(self.source.resolve_alias(view_type))).ok_or_else(|| {
                view_token.error(format!(
                    "cannot determine the element type of 'lego.load': expected '!lego.view<T>', found '{}'",
                    view_token.text
                ))
            })?;
        Ok(LegoOp::Load { element: element.to_string(), view, indices, types })
    }

    fn store(&mut self) -> Parsed<LegoOp> {
        let value = self.value()?;
        self.expect_punct(",", || "expected ',' after the stored value".to_string())?;
        let view = self.value()?;
        let indices = self.delimited_values("[", "]", &view)?;
        let (_, types) = self.operand_types(indices.len() + 2)?;
        Ok(LegoOp::Store { value, view, indices, types })
    }

    /// `%x (lb : %lo)? (ub : %hi)?`, the bounds in either order, each at most once.
    fn assume_bounds(&mut self) -> Parsed<LegoOp> {
        let value = self.value()?;
        let (mut lb, mut ub) = (None, None);
        loop {
            let keyword = self.peek();
            let slot = if keyword.is_word("lb") {
                &mut lb
            } else if keyword.is_word("ub") {
                &mut ub
            } else {
                break;
            };
            if slot.is_some() {
                return Err(keyword.error(format!("'{}' given twice", keyword.text)));
            }
            self.bump();
            self.expect_punct(":", || format!("expected ':' after '{}'", keyword.text))?;
            *slot = Some(self.value()?);
        }
        Ok(LegoOp::AssumeBounds { value, lb, ub })
    }
}

/// `T` of `!lego.view<T>`.
pub(crate) fn view_element_type(ty: &str) -> Option<&str> {
    let element = ty.strip_prefix("!lego.view<")?.strip_suffix('>')?.trim();
    (!element.is_empty()).then_some(element)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_element_types() {
        assert_eq!(view_element_type("!lego.view<f32>"), Some("f32"));
        assert_eq!(view_element_type("!lego.view<vector<4xf32>>"), Some("vector<4xf32>"));
        assert_eq!(view_element_type("!lego.layout"), None);
        assert_eq!(view_element_type("!lego.view<>"), None);
    }
}
