//! A cursor over the significant tokens of a [`Source`] with the pieces both op grammars (custom and
//! generic) share: punctuation and keywords, SSA operand lists, types and region arguments.

use super::lexer::{Token, TokenKind};
use super::model::BlockArg;
use super::source::Source;
use super::SyntaxError;

/// Bound on nested function types, so hostile input cannot exhaust the stack.
const MAX_TYPE_NESTING: usize = 64;

/// A cursor over the tokens `pos..hi` of a source; past `hi` it sees an end of input located at token `hi`.
pub(crate) struct Parser<'s, 'a> {
    pub source: &'s Source<'a>,
    pub pos: usize,
    pub hi: usize,
    eof: Token<'a>,
    /// `{`/`}` token indices of the regions parsed so far.
    pub regions: Vec<(usize, usize)>,
}

pub(crate) type Parsed<T> = Result<T, SyntaxError>;

impl<'s, 'a> Parser<'s, 'a> {
    pub fn new(source: &'s Source<'a>, pos: usize, hi: usize) -> Self {
        let hi = hi.min(source.eof());
        let eof = Token { kind: TokenKind::Eof, text: "", ..source.toks[hi] };
        Self { source, pos, hi, eof, regions: Vec::new() }
    }

    pub fn peek(&self) -> Token<'a> {
        if self.pos < self.hi {
            self.source.toks[self.pos]
        } else {
            self.eof
        }
    }

    pub fn bump(&mut self) -> Token<'a> {
        let token = self.peek();
        if self.pos < self.hi {
            self.pos += 1;
        }
        token
    }

    pub fn fail<T>(&self, message: impl Into<String>) -> Parsed<T> {
        Err(self.peek().error(message))
    }

    pub fn eat_punct(&mut self, punct: &str) -> bool {
        let found = self.peek().is_punct(punct);
        if found {
            self.bump();
        }
        found
    }

    pub fn expect_punct(&mut self, punct: &str, message: impl FnOnce() -> String) -> Parsed<Token<'a>> {
        if self.peek().is_punct(punct) {
            Ok(self.bump())
        } else {
            self.fail(message())
        }
    }

    pub fn eat_word(&mut self, word: &str) -> bool {
        let found = self.peek().is_word(word);
        if found {
            self.bump();
        }
        found
    }

    pub fn expect_word(&mut self, word: &str, after: &str) -> Parsed<()> {
        if self.eat_word(word) {
            Ok(())
        } else {
            self.fail(format!("expected '{word}' after '{after}'"))
        }
    }

    pub fn value(&mut self) -> Parsed<String> {
        if self.peek().kind == TokenKind::ValueId {
            Ok(self.bump().text.to_string())
        } else {
            self.fail("expected SSA operand")
        }
    }

    /// `v (, v)*` up to `close`, the opening bracket already consumed; may be empty.
    pub fn values_until(&mut self, close: &str) -> Parsed<Vec<String>> {
        let mut values = Vec::new();
        if self.eat_punct(close) {
            return Ok(values);
        }
        loop {
            values.push(self.value()?);
            if self.eat_punct(close) {
                return Ok(values);
            }
            self.expect_punct(",", || format!("expected ',' or '{close}' in operand list"))?;
        }
    }

    pub fn ty(&mut self) -> Parsed<String> {
        self.ty_nested(0)
    }

    /// A type: one token (`index`, `memref<4xf32>`, `!lego.view<f32>`) or a function type `(a, b) -> c`.
    fn ty_nested(&mut self, depth: usize) -> Parsed<String> {
        let token = self.peek();
        match token.kind {
            TokenKind::BareIdent | TokenKind::TypeId => Ok(self.bump().text.to_string()),
            TokenKind::Punct if token.text == "(" && depth < MAX_TYPE_NESTING => {
                self.bump();
                let inputs = self.types_until_paren(depth + 1)?;
                self.expect_punct("->", || "expected '->' in function type".to_string())?;
                let outputs = if self.peek().is_punct("(") {
                    self.bump();
                    format!("({})", self.types_until_paren(depth + 1)?.join(", "))
                } else {
                    self.ty_nested(depth + 1)?
                };
                Ok(format!("({}) -> {outputs}", inputs.join(", ")))
            }
            TokenKind::Punct if token.text == "(" => self.fail("types are nested too deeply"),
            _ => self.fail("expected type"),
        }
    }

    /// `t, t, ... )`, the `(` already consumed; may be empty.
    pub fn types_until_paren(&mut self, depth: usize) -> Parsed<Vec<String>> {
        let mut types = Vec::new();
        if self.eat_punct(")") {
            return Ok(types);
        }
        loop {
            types.push(self.ty_nested(depth)?);
            if self.eat_punct(")") {
                return Ok(types);
            }
            self.expect_punct(",", || "expected ',' or ')' in type list".to_string())?;
        }
    }

    /// `t (, t)*`.
    pub fn type_list(&mut self) -> Parsed<Vec<String>> {
        let mut types = vec![self.ty()?];
        while self.eat_punct(",") {
            types.push(self.ty()?);
        }
        Ok(types)
    }

    /// `(%a: index loc(...)?, ...)` after `after`.
    pub fn block_args(&mut self, after: &str) -> Parsed<Vec<BlockArg>> {
        self.expect_punct("(", || format!("expected '(' after '{after}'"))?;
        let mut args = Vec::new();
        if self.eat_punct(")") {
            return Ok(args);
        }
        loop {
            let name = self.value()?;
            self.expect_punct(":", || "expected ':' and type for region argument".to_string())?;
            let ty = self.ty()?;
            let loc = (self.peek().kind == TokenKind::Loc).then(|| self.bump().text.to_string());
            args.push(BlockArg { name, ty, loc });
            if self.eat_punct(")") {
                return Ok(args);
            }
            self.expect_punct(",", || "expected ',' or ')' in region argument list".to_string())?;
        }
    }
}

/// An MLIR integer literal (`42`, `-5`, `0x1F`) as an `i64`.
pub(crate) fn parse_integer(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude = match digits.strip_prefix("0x") {
        Some(hex) => i128::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<i128>().ok()?,
    };
    i64::try_from(if negative { -magnitude } else { magnitude }).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(parse_integer("42"), Some(42));
        assert_eq!(parse_integer("-5"), Some(-5));
        assert_eq!(parse_integer("0x1F"), Some(31));
        assert_eq!(parse_integer("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_integer("9223372036854775808"), None);
        assert_eq!(parse_integer("99999999999999999999999999999999999999999"), None);
    }
}
