//! A tokenizer for MLIR's lexical grammar.
//!
//! It only has to be good enough to find op boundaries in arbitrary MLIR text (upstream ops included), so it
//! keeps the coarse structure of the language and treats a `<...>` dialect body as one unit: inside
//! `memref<4x?xf32>` or `affine_map<(d0) -> (d0)>` the usual token rules do not apply (`4x?xf32`, `->`).
//! Every token carries its byte offset and its 1-based line and column (columns count bytes, as MLIR does).

use super::SyntaxError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// `lego.row`, `index`, `x`; a directly following `<...>` body is part of it (`memref<4x?xf32>`).
    BareIdent,
    /// `%x`, `%0`, and a use of one result of a group, `%r#1`.
    ValueId,
    /// `^bb0`.
    BlockId,
    /// `@f`, `@"a b"`.
    SymbolRef,
    /// `!lego.layout`, `!lego.view<f32>`, `!v`.
    TypeId,
    /// `#map`, `#loc3`, `#llvm.foo<...>`.
    AttrId,
    /// `"..."` with its quotes; escapes are kept as written.
    String,
    /// `42`, `-5`, `0x1F`.
    Integer,
    /// `1.5`, `-2.0e-3`.
    Float,
    /// `( ) [ ] { } < > , : = -> ... ? * + - |` and the file-metadata brackets `{-#` `#-}`.
    Punct,
    /// `// ...` up to (not including) the end of the line.
    Comment,
    /// `loc(...)` with its balanced parentheses (nested locations included).
    Loc,
    /// End of input (or of the range a parser is confined to).
    Eof,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    pub kind: TokenKind,
    pub text: &'a str,
    /// Byte offset of the first character.
    pub offset: usize,
    pub line: usize,
    pub column: usize,
}

impl Token<'_> {
    /// Byte offset just past the token.
    pub fn end(&self) -> usize {
        self.offset + self.text.len()
    }

    pub fn is_punct(&self, punct: &str) -> bool {
        self.kind == TokenKind::Punct && self.text == punct
    }

    /// A bare identifier spelled exactly `word` (keywords such as `dims`, `apply`, `inv`).
    pub fn is_word(&self, word: &str) -> bool {
        self.kind == TokenKind::BareIdent && self.text == word
    }

    pub fn error(&self, message: impl Into<String>) -> SyntaxError {
        SyntaxError { line: self.line, column: self.column, message: message.into() }
    }
}

/// The tokens of a text (comments included, no `Eof`) and the lexical errors found on the way.
#[derive(Debug)]
pub struct Lexed<'a> {
    pub tokens: Vec<Token<'a>>,
    pub errors: Vec<SyntaxError>,
    /// The first bracket of a dialect body or location nested deeper than [`MAX_NESTING`].
    pub nesting_error: Option<SyntaxError>,
}

/// The deepest nesting of brackets (`( [ { <`, inside or outside dialect bodies and locations) a text may
/// have. MLIR's parser is recursive descent: about 6 000 nested regions or 10 000 nested attribute brackets
/// overflow its stack (docs/known-upstream-bugs.md), so deeper input is rejected here with a located error
/// before MLIR sees it. Hand-written and generated IR stays far below this.
pub const MAX_NESTING: usize = 1000;

/// The error for a bracket that opens nesting level `MAX_NESTING + 1`.
pub fn nesting_error(line: usize, column: usize) -> SyntaxError {
    SyntaxError {
        line,
        column,
        message: format!("brackets nested more than {MAX_NESTING} deep are not supported (MLIR's parser would overflow its stack)"),
    }
}

pub fn tokenize(text: &str) -> Lexed<'_> {
    let mut lexer = Lexer::new(text, true);
    lexer.run();
    lexer.lexed
}

/// [`tokenize`] without the comments, and the line and column of the end of the text: what
/// [`super::source::Source`] needs, without a second pass over the tokens to drop the comments.
pub(crate) fn tokenize_significant(text: &str) -> (Lexed<'_>, (usize, usize)) {
    let mut lexer = Lexer::new(text, false);
    lexer.run();
    let end = lexer.position(text.len());
    (lexer.lexed, end)
}

/// Maps byte offsets to 1-based (line, column).
#[derive(Debug)]
pub struct LineIndex {
    line_starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let newlines = text.bytes().enumerate().filter(|&(_, byte)| byte == b'\n').map(|(offset, _)| offset + 1);
        Self { line_starts: std::iter::once(0).chain(newlines).collect() }
    }

    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        // `line_starts[0] == 0 <= offset`, so the partition point is at least 1.
        let line = self.line_starts.partition_point(|&start| start <= offset).max(1);
        (line, offset - self.line_starts[line - 1] + 1)
    }
}

/// The 1-based line and byte column of increasing offsets into one text, counting its line breaks once in all
/// (where a binary search per offset, or a table of every line, costs more than the rest of a pass over it):
/// `scanned` is the offset up to which line breaks have been counted, `line` the line it is on, `line_start`
/// where that line starts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LineCounter {
    scanned: usize,
    line: usize,
    line_start: usize,
}

impl Default for LineCounter {
    fn default() -> Self {
        LineCounter { scanned: 0, line: 1, line_start: 0 }
    }
}

impl LineCounter {
    /// The line and column of `offset` in `bytes` (the text's bytes, up to at least the offsets asked for so
    /// far); `None` for an offset before the previous call's.
    pub fn at(&mut self, bytes: &[u8], offset: usize) -> Option<(usize, usize)> {
        if offset < self.scanned {
            return None;
        }
        if let Some(skipped) = bytes.get(self.scanned..offset) {
            // One pass over the bytes skipped since the last offset (between tokens, usually a blank or two).
            for (index, &byte) in skipped.iter().enumerate() {
                if byte == b'\n' {
                    self.line += 1;
                    self.line_start = self.scanned + index + 1;
                }
            }
            self.scanned = offset;
        }
        Some((self.line, offset - self.line_start + 1))
    }
}

struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Whether comments are kept as tokens.
    comments: bool,
    /// Line and column of tokens, which start at increasing offsets.
    lines: LineCounter,
    /// For errors, which may point back into a token already scanned past: built on the first one.
    error_lines: Option<LineIndex>,
    lexed: Lexed<'a>,
}

/// Characters of a bare identifier after the first (`[a-zA-Z0-9_$.]`).
fn is_bare_continue(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$' | b'.')
}

/// Characters of MLIR's `suffix-id` after the first (`[a-zA-Z0-9$._-]`), used by `%`, `^`, `!` and `#` names.
fn is_suffix_continue(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$' | b'.' | b'-')
}

const SINGLE_PUNCT: &[u8] = b"()[]}<>,:=?*+|";

impl<'a> Lexer<'a> {
    fn new(text: &'a str, comments: bool) -> Self {
        Lexer {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            comments,
            lines: LineCounter::default(),
            error_lines: None,
            // About one token per 4 bytes of MLIR text: reserving that avoids copying a large token vector
            // as it grows (pages reserved but never written cost nothing).
            lexed: Lexed { tokens: Vec::with_capacity(text.len() / 4 + 1), errors: Vec::new(), nesting_error: None },
        }
    }

    fn peek_at(&self, offset: usize) -> Option<u8> {
        self.bytes.get(self.pos + offset).copied()
    }

    /// The 1-based line and byte column of `offset`, which must not be before the previous call's.
    fn position(&mut self, offset: usize) -> (usize, usize) {
        match self.lines.at(self.bytes, offset) {
            Some(position) => position,
            None => self.error_position(offset), // not reached: tokens are pushed in order
        }
    }

    fn push(&mut self, kind: TokenKind, start: usize) {
        let (line, column) = self.position(start);
        self.lexed.tokens.push(Token { kind, text: &self.text[start..self.pos], offset: start, line, column });
    }

    fn error_position(&mut self, offset: usize) -> (usize, usize) {
        self.error_lines.get_or_insert_with(|| LineIndex::new(self.text)).line_col(offset)
    }

    fn too_deep_at(&mut self, offset: usize) {
        let (line, column) = self.error_position(offset);
        self.lexed.nesting_error.get_or_insert(nesting_error(line, column));
    }

    fn error_at(&mut self, offset: usize, message: impl Into<String>) {
        let (line, column) = self.error_position(offset);
        self.lexed.errors.push(SyntaxError { line, column, message: message.into() });
    }

    fn run(&mut self) {
        while let Some(byte) = self.peek_at(0) {
            let start = self.pos;
            match byte {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'/' if self.peek_at(1) == Some(b'/') => self.comment(start),
                b'"' => {
                    self.string();
                    self.push(TokenKind::String, start);
                }
                b'%' => self.value_id(start),
                b'^' => self.prefixed(start, TokenKind::BlockId, false),
                b'!' => self.prefixed(start, TokenKind::TypeId, true),
                b'#' if self.peek_at(1) == Some(b'-') && self.peek_at(2) == Some(b'}') => self.punct(start, 3),
                b'#' => self.prefixed(start, TokenKind::AttrId, true),
                b'@' => self.symbol(start),
                b'{' if self.peek_at(1) == Some(b'-') && self.peek_at(2) == Some(b'#') => self.punct(start, 3),
                b'{' => self.punct(start, 1),
                b'-' if self.peek_at(1) == Some(b'>') => self.punct(start, 2),
                b'-' if self.peek_at(1).is_some_and(|next| next.is_ascii_digit()) => self.number(start),
                b'-' => self.punct(start, 1),
                b'.' if self.peek_at(1) == Some(b'.') && self.peek_at(2) == Some(b'.') => self.punct(start, 3),
                b'0'..=b'9' => self.number(start),
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => self.bare_ident(start),
                _ if SINGLE_PUNCT.contains(&byte) => self.punct(start, 1),
                _ => self.unexpected_char(start),
            }
        }
    }

    fn punct(&mut self, start: usize, len: usize) {
        self.pos += len;
        self.push(TokenKind::Punct, start);
    }

    fn unexpected_char(&mut self, start: usize) {
        let character = self.text[start..].chars().next().unwrap_or('\u{fffd}');
        self.pos += character.len_utf8().max(1);
        self.error_at(start, format!("unexpected character '{}'", character.escape_debug()));
    }

    fn comment(&mut self, start: usize) {
        self.pos = self.text[start..].find('\n').map_or(self.bytes.len(), |newline| start + newline);
        if self.comments {
            self.push(TokenKind::Comment, start);
        }
    }

    /// Consumes a string literal starting at the current `"`. MLIR strings cannot span lines.
    fn string(&mut self) {
        let start = self.pos;
        self.pos += 1;
        while let Some(byte) = self.peek_at(0) {
            match byte {
                b'"' => {
                    self.pos += 1;
                    return;
                }
                b'\\' if self.peek_at(1).is_some_and(|next| next != b'\n') => self.pos += 2,
                b'\n' => break,
                _ => self.pos += 1,
            }
        }
        self.error_at(start, "unterminated string literal");
    }

    /// Consumes an MLIR `suffix-id` (`[0-9]+` or `[a-zA-Z$._-][a-zA-Z0-9$._-]*`); false if there is none.
    fn suffix_id(&mut self) -> bool {
        match self.peek_at(0) {
            Some(byte) if byte.is_ascii_digit() => {
                while self.peek_at(0).is_some_and(|byte| byte.is_ascii_digit()) {
                    self.pos += 1;
                }
                true
            }
            Some(byte) if byte.is_ascii_alphabetic() || matches!(byte, b'_' | b'$' | b'.' | b'-') => {
                while self.peek_at(0).is_some_and(is_suffix_continue) {
                    self.pos += 1;
                }
                true
            }
            _ => false,
        }
    }

    /// `^bb0`, `!type.name<...>`, `#attr.name<...>`.
    fn prefixed(&mut self, start: usize, kind: TokenKind, may_have_body: bool) {
        self.pos += 1;
        if !self.suffix_id() {
            self.error_at(start, format!("invalid name after '{}'", &self.text[start..self.pos]));
            return;
        }
        if may_have_body && self.peek_at(0) == Some(b'<') {
            self.angle_body(start);
        }
        self.push(kind, start);
    }

    /// `%name`, with a directly following result number (`%r#1`) taken as part of the use.
    fn value_id(&mut self, start: usize) {
        self.pos += 1;
        if !self.suffix_id() {
            self.error_at(start, "invalid SSA name after '%'");
            return;
        }
        if self.peek_at(0) == Some(b'#') && self.peek_at(1).is_some_and(|next| next.is_ascii_digit()) {
            self.pos += 1;
            self.suffix_id();
        }
        self.push(TokenKind::ValueId, start);
    }

    fn symbol(&mut self, start: usize) {
        self.pos += 1;
        match self.peek_at(0) {
            Some(b'"') => self.string(),
            Some(byte) if byte.is_ascii_alphabetic() || byte == b'_' => {
                while self.peek_at(0).is_some_and(is_bare_continue) {
                    self.pos += 1;
                }
            }
            _ => {
                self.error_at(start, "invalid symbol name after '@'");
                return;
            }
        }
        self.push(TokenKind::SymbolRef, start);
    }

    fn bare_ident(&mut self, start: usize) {
        while self.peek_at(0).is_some_and(is_bare_continue) {
            self.pos += 1;
        }
        if &self.text[start..self.pos] == "loc" && self.loc_parens(start) {
            self.push(TokenKind::Loc, start);
            return;
        }
        if self.peek_at(0) == Some(b'<') {
            self.angle_body(start);
        }
        self.push(TokenKind::BareIdent, start);
    }

    /// After the keyword `loc`: if a `(` follows (whitespace allowed), consume the balanced parentheses.
    fn loc_parens(&mut self, start: usize) -> bool {
        let after_keyword = self.pos;
        while self.peek_at(0).is_some_and(|byte| byte == b' ' || byte == b'\t') {
            self.pos += 1;
        }
        if self.peek_at(0) != Some(b'(') {
            self.pos = after_keyword;
            return false;
        }
        let mut depth = 0usize;
        let mut too_deep = false;
        while let Some(byte) = self.peek_at(0) {
            match byte {
                b'"' => {
                    self.string();
                    continue;
                }
                b'(' => {
                    depth += 1;
                    if depth > MAX_NESTING && !too_deep {
                        too_deep = true;
                        self.too_deep_at(self.pos);
                    }
                }
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos += 1;
                        return true;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        self.error_at(start, "unbalanced '(' in location");
        true
    }

    /// Consumes a `<...>` dialect body starting at the current `<`, as MLIR's `parseDialectSymbolBody` does:
    /// nested `<([{` must balance, `->` is an arrow, and a `>` or `<=` inside parentheses or brackets is a
    /// comparison (`affine_set<(d0) : (d0 >= 0)>`).
    fn angle_body(&mut self, token_start: usize) {
        let mut open: Vec<u8> = Vec::new();
        let mut too_deep = false;
        while let Some(byte) = self.peek_at(0) {
            match byte {
                b'"' => {
                    self.string();
                    continue;
                }
                b'<' if self.peek_at(1) == Some(b'=') && matches!(open.last(), Some(b'(' | b'[' | b'{')) => self.pos += 1,
                b'<' | b'(' | b'[' | b'{' => {
                    open.push(byte);
                    if open.len() > MAX_NESTING && !too_deep {
                        too_deep = true;
                        self.too_deep_at(self.pos);
                    }
                }
                b'>' if self.pos > 0 && self.bytes[self.pos - 1] == b'-' => {}
                b'>' if open.last() == Some(&b'<') => {
                    open.pop();
                    if open.is_empty() {
                        self.pos += 1;
                        return;
                    }
                }
                b'>' => {}
                b')' | b']' | b'}' => {
                    let expected = match byte {
                        b')' => b'(',
                        b']' => b'[',
                        _ => b'{',
                    };
                    if open.last() != Some(&expected) {
                        self.error_at(self.pos, format!("unbalanced '{}' in dialect body", byte as char));
                        self.pos += 1;
                        return;
                    }
                    open.pop();
                }
                _ => {}
            }
            self.pos += 1;
        }
        self.error_at(token_start, "unbalanced '<' in type or attribute body");
    }

    /// `42`, `-5`, `0x1F`, `1.5`, `2.0e-3`, `4.` (MLIR accepts a trailing dot).
    fn number(&mut self, start: usize) {
        if self.peek_at(0) == Some(b'-') {
            self.pos += 1;
        }
        if self.peek_at(0) == Some(b'0')
            && self.peek_at(1) == Some(b'x')
            && self.peek_at(2).is_some_and(|byte| byte.is_ascii_hexdigit())
        {
            self.pos += 2;
            while self.peek_at(0).is_some_and(|byte| byte.is_ascii_hexdigit()) {
                self.pos += 1;
            }
            self.push(TokenKind::Integer, start);
            return;
        }
        self.digits();
        if self.peek_at(0) != Some(b'.') || self.peek_at(1) == Some(b'.') {
            self.push(TokenKind::Integer, start);
            return;
        }
        self.pos += 1;
        self.digits();
        let exponent_digit = |offset: usize| self.peek_at(offset).is_some_and(|byte| byte.is_ascii_digit());
        if matches!(self.peek_at(0), Some(b'e' | b'E')) {
            if exponent_digit(1) {
                self.pos += 1;
            } else if matches!(self.peek_at(1), Some(b'+' | b'-')) && exponent_digit(2) {
                self.pos += 2;
            }
            self.digits();
        }
        self.push(TokenKind::Float, start);
    }

    fn digits(&mut self) {
        while self.peek_at(0).is_some_and(|byte| byte.is_ascii_digit()) {
            self.pos += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use TokenKind::*;

    fn kinds_and_texts(text: &str) -> Vec<(TokenKind, &str)> {
        let lexed = tokenize(text);
        assert!(lexed.errors.is_empty(), "{:?}", lexed.errors);
        lexed.tokens.iter().map(|token| (token.kind, token.text)).collect()
    }

    #[test]
    fn identifiers_with_dots() {
        assert_eq!(
            kinds_and_texts("lego.row func.func index _x$1"),
            vec![(BareIdent, "lego.row"), (BareIdent, "func.func"), (BareIdent, "index"), (BareIdent, "_x$1")]
        );
    }

    #[test]
    fn ssa_names_and_result_groups() {
        assert_eq!(
            kinds_and_texts("%a, %b = %r:2 = %0 %r#1 %arg-1"),
            vec![
                (ValueId, "%a"),
                (Punct, ","),
                (ValueId, "%b"),
                (Punct, "="),
                (ValueId, "%r"),
                (Punct, ":"),
                (Integer, "2"),
                (Punct, "="),
                (ValueId, "%0"),
                (ValueId, "%r#1"),
                (ValueId, "%arg-1"),
            ]
        );
    }

    #[test]
    fn block_labels_symbols_types_and_attributes() {
        assert_eq!(
            kinds_and_texts("^bb0(%x: index): @f @\"a b\" !lego.view<f32> !v #map #loc3 #llvm.x<\"a>b\">"),
            vec![
                (BlockId, "^bb0"),
                (Punct, "("),
                (ValueId, "%x"),
                (Punct, ":"),
                (BareIdent, "index"),
                (Punct, ")"),
                (Punct, ":"),
                (SymbolRef, "@f"),
                (SymbolRef, "@\"a b\""),
                (TypeId, "!lego.view<f32>"),
                (TypeId, "!v"),
                (AttrId, "#map"),
                (AttrId, "#loc3"),
                (AttrId, "#llvm.x<\"a>b\">"),
            ]
        );
    }

    #[test]
    fn angle_bodies_are_one_token() {
        assert_eq!(
            kinds_and_texts("memref<4x?xf32> !llvm.ptr<1> vector<[4]xf32> !lego.view<vector<4xf32>>"),
            vec![
                (BareIdent, "memref<4x?xf32>"),
                (TypeId, "!llvm.ptr<1>"),
                (BareIdent, "vector<[4]xf32>"),
                (TypeId, "!lego.view<vector<4xf32>>")
            ]
        );
        assert_eq!(
            kinds_and_texts("#map = affine_map<(d0)[s0] -> (d0 + s0)>"),
            vec![(AttrId, "#map"), (Punct, "="), (BareIdent, "affine_map<(d0)[s0] -> (d0 + s0)>")]
        );
        assert_eq!(
            kinds_and_texts("affine_set<(d0) : (d0 >= 0, -d0 + 4 >= 0)>"),
            vec![(BareIdent, "affine_set<(d0) : (d0 >= 0, -d0 + 4 >= 0)>")]
        );
        assert_eq!(
            kinds_and_texts("array<i64: 4, -9223372036854775808>"),
            vec![(BareIdent, "array<i64: 4, -9223372036854775808>")]
        );
    }

    #[test]
    fn a_separated_angle_bracket_is_punctuation() {
        assert_eq!(
            kinds_and_texts("\"x\"() <{a = 1}>"),
            vec![
                (String, "\"x\""),
                (Punct, "("),
                (Punct, ")"),
                (Punct, "<"),
                (Punct, "{"),
                (BareIdent, "a"),
                (Punct, "="),
                (Integer, "1"),
                (Punct, "}"),
                (Punct, ">")
            ]
        );
    }

    #[test]
    fn strings_with_escapes() {
        assert_eq!(kinds_and_texts(r#""a\"b\\" "\0A""#), vec![(String, r#""a\"b\\""#), (String, r#""\0A""#)]);
    }

    #[test]
    fn numbers() {
        assert_eq!(
            kinds_and_texts("4 -5 0x1F 1.5 -2.0e-3 4. 1.0E5"),
            vec![
                (Integer, "4"),
                (Integer, "-5"),
                (Integer, "0x1F"),
                (Float, "1.5"),
                (Float, "-2.0e-3"),
                (Float, "4."),
                (Float, "1.0E5")
            ]
        );
    }

    #[test]
    fn punctuation() {
        let texts: Vec<&str> = kinds_and_texts("( ) [ ] { } , : = -> ... ? * + - | {-# #-}")
            .into_iter()
            .map(|(kind, text)| {
                assert_eq!(kind, Punct);
                text
            })
            .collect();
        assert_eq!(texts, vec!["(", ")", "[", "]", "{", "}", ",", ":", "=", "->", "...", "?", "*", "+", "-", "|", "{-#", "#-}"]);
    }

    #[test]
    fn comments_are_tokens() {
        assert_eq!(
            kinds_and_texts("%a // note: lego.row [4]\n%b"),
            vec![(ValueId, "%a"), (Comment, "// note: lego.row [4]"), (ValueId, "%b")]
        );
    }

    #[test]
    fn locations_are_one_token() {
        assert_eq!(
            kinds_and_texts("loc(\"f.mlir\":1:2) loc (callsite(\"a)\":1:2 at #loc1)) loc = 3"),
            vec![
                (Loc, "loc(\"f.mlir\":1:2)"),
                (Loc, "loc (callsite(\"a)\":1:2 at #loc1))"),
                (BareIdent, "loc"),
                (Punct, "="),
                (Integer, "3")
            ]
        );
    }

    #[test]
    fn positions_are_one_based_byte_columns() {
        let lexed = tokenize("%a = lego.row\n  [4]");
        let positions: Vec<(usize, usize, usize)> =
            lexed.tokens.iter().map(|token| (token.offset, token.line, token.column)).collect();
        assert_eq!(positions, vec![(0, 1, 1), (3, 1, 4), (5, 1, 6), (16, 2, 3), (17, 2, 4), (18, 2, 5)]);
    }

    #[test]
    fn positions_after_multi_byte_characters_and_tokens_spanning_lines() {
        // Offsets by hand: `"é"` is bytes 0..4 (é is 2 bytes), `%a` 5, line 2 starts at 8 with `!x<` at 10 (its
        // body spans to line 3, which starts at 14), `%b` 16, line 4 (19) holds the comment with ü, line 5 (25) `%c`.
        let text = "\"é\" %a\n  !x<\n> %b\n// ü\n%c";
        fn positions<'a>(tokens: &[Token<'a>]) -> Vec<(&'a str, usize, usize, usize)> {
            tokens.iter().map(|token| (token.text, token.offset, token.line, token.column)).collect()
        }
        let lexed = tokenize(text);
        assert_eq!(
            positions(&lexed.tokens),
            vec![
                ("\"é\"", 0, 1, 1),
                ("%a", 5, 1, 6),
                ("!x<\n>", 10, 2, 3),
                ("%b", 16, 3, 3),
                ("// ü", 19, 4, 1),
                ("%c", 25, 5, 1)
            ]
        );
        // Without the comment, and with the end of the text (byte 27: line 5, column 3) for `Eof`.
        let (significant, end) = tokenize_significant(text);
        assert_eq!(positions(&significant.tokens), [&positions(&lexed.tokens)[..4], &positions(&lexed.tokens)[5..]].concat());
        assert_eq!(end, (5, 3));
        assert_eq!(tokenize_significant("").1, (1, 1));
        assert_eq!(tokenize_significant("%a\n").1, (2, 1));
    }

    #[test]
    fn positions_on_a_very_long_line_and_after_an_error() {
        let text = format!("{}%a\n%b", " ".repeat(100_000));
        let lexed = tokenize(&text);
        let positions: Vec<(usize, usize)> = lexed.tokens.iter().map(|token| (token.line, token.column)).collect();
        assert_eq!(positions, vec![(1, 100_001), (2, 1)]);
        // An error behind the tokens already placed (the start of an unterminated string) and tokens after it.
        let lexed = tokenize("%a é %b\n  \"x\n%c");
        let errors: Vec<(usize, usize)> = lexed.errors.iter().map(|error| (error.line, error.column)).collect();
        assert_eq!(errors, vec![(1, 4), (2, 3)]); // é is byte 3 (column 4) and 3..5
        let positions: Vec<(&str, usize, usize)> = lexed.tokens.iter().map(|token| (token.text, token.line, token.column)).collect();
        // The unterminated string is still a token (to the end of its line), at the error's position.
        assert_eq!(positions, vec![("%a", 1, 1), ("%b", 1, 7), ("\"x", 2, 3), ("%c", 3, 1)]);
    }

    #[test]
    fn lexical_errors_are_located() {
        let lexed = tokenize("%a = \"abc\n%b = memref<4xf32\n");
        let errors: Vec<(usize, usize, &str)> =
            lexed.errors.iter().map(|error| (error.line, error.column, error.message.as_str())).collect();
        assert_eq!(errors, vec![(1, 6, "unterminated string literal"), (2, 6, "unbalanced '<' in type or attribute body")]);
        let lexed = tokenize("a ` b");
        assert_eq!(lexed.errors[0].message, "unexpected character '`'");
        assert_eq!((lexed.errors[0].line, lexed.errors[0].column), (1, 3));
    }

    #[test]
    fn non_ascii_input_does_not_split_characters() {
        let lexed = tokenize("é // ü\n\"ß\"");
        assert_eq!(lexed.errors.len(), 1);
        assert_eq!(lexed.tokens.iter().map(|token| token.text).collect::<Vec<_>>(), vec!["// ü", "\"ß\""]);
    }
}
