//! A tokenized text ready for both rewriting directions: the significant tokens (comments dropped; the
//! rewriters copy everything between tokens verbatim from the text, so comments survive), the partner of
//! every bracket, type aliases, and the rule that tells where an op starts.

use super::lexer::{tokenize_significant, Token, TokenKind};
use super::SyntaxError;
use std::collections::HashMap;

pub(crate) struct Source<'a> {
    pub text: &'a str,
    /// Significant tokens, always ending with one `Eof` token.
    pub toks: Vec<Token<'a>>,
    /// For each `(`, `[`, `{` the index of its closing token and vice versa.
    partner: Vec<Option<usize>>,
    /// The first unbalanced bracket, if any. Not fatal: the op parsers give a more precise message when the
    /// stray bracket is part of a lego op (`lego.row 4, 8]`), so callers report it only when they found
    /// nothing else.
    pub bracket_error: Option<SyntaxError>,
    /// The first bracket nested deeper than [`super::lexer::MAX_NESTING`]: fatal for text going to MLIR's
    /// parser, harmless in text MLIR printed.
    pub nesting_error: Option<SyntaxError>,
    aliases: HashMap<&'a str, &'a str>,
}

/// Where a run of statements sits: directly in a `gen_p` region (where `lego.yield` is the terminator) or
/// not, and how many `gen_p` regions deep, a bound that keeps hostile input from exhausting the stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Scope {
    pub in_gen_p: bool,
    pub depth: usize,
}

impl Scope {
    pub const MAX_DEPTH: usize = 64;
    pub const TOP: Scope = Scope { in_gen_p: false, depth: 0 };

    /// The scope of the statements of a `gen_p` region opened in this scope.
    pub fn gen_p_region(self) -> Scope {
        Scope { in_gen_p: true, depth: self.depth + 1 }
    }

    pub fn too_deep(self) -> bool {
        self.depth >= Self::MAX_DEPTH
    }
}

/// The beginning of an op: `first` is its first token (the result list, or the name), `name` its name token
/// (a bare identifier such as `lego.row` or a string such as `"lego.row"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OpHead {
    pub first: usize,
    pub results: Option<String>,
    pub name: usize,
}

impl<'a> Source<'a> {
    /// Tokenizes `text` and matches its brackets; lexical errors are fatal.
    pub fn new(text: &'a str) -> Result<Self, Vec<SyntaxError>> {
        let (lexed, (line, column)) = tokenize_significant(text);
        if !lexed.errors.is_empty() {
            return Err(lexed.errors);
        }
        let mut toks = lexed.tokens;
        toks.push(Token { kind: TokenKind::Eof, text: "", offset: text.len(), line, column });
        let (partner, bracket_error, bracket_nesting_error) = match_brackets(&toks);
        let nesting_error = match (lexed.nesting_error, bracket_nesting_error) {
            (Some(a), Some(b)) => Some(if (a.line, a.column) <= (b.line, b.column) { a } else { b }),
            (a, b) => a.or(b),
        };
        let aliases = collect_aliases(&toks);
        Ok(Self { text, toks, partner, bracket_error, nesting_error, aliases })
    }

    pub fn partner(&self, index: usize) -> Option<usize> {
        self.partner.get(index).copied().flatten()
    }

    pub fn eof(&self) -> usize {
        self.toks.len() - 1
    }

    /// Follows `!alias = ...` definitions of this text (a bounded number of steps, so a cycle cannot hang).
    pub fn resolve_alias<'t>(&self, ty: &'t str) -> &'t str
    where
        'a: 't,
    {
        let mut resolved = ty;
        for _ in 0..16 {
            match self.aliases.get(resolved) {
                Some(&target) => resolved = target,
                None => break,
            }
        }
        resolved
    }

    /// Number of line breaks between the start of token `first` and the end of token `last`.
    pub fn newlines_between(&self, first: usize, last: usize) -> usize {
        let start = self.toks[first].offset;
        let end = self.toks[last].end().max(start);
        self.text[start..end].bytes().filter(|&byte| byte == b'\n').count()
    }

    /// Whether token `index` can begin an op: it is the first on its line, or follows a `{` or `}`
    /// (`scf.if %c { lego.assume %x }`) or a block label (`({ ^bb0(%i: index): lego.yield %i : index })`)
    /// on the same line.
    pub fn starts_statement(&self, index: usize) -> bool {
        let Some(previous) = index.checked_sub(1).map(|previous| &self.toks[previous]) else { return true };
        previous.line < self.toks[index].line
            || previous.is_punct("{")
            || previous.is_punct("}")
            || self.ends_block_label(index - 1)
    }

    /// Token `colon` is the `:` of `^bb1:` or `^bb0(%a: index):`.
    fn ends_block_label(&self, colon: usize) -> bool {
        if !self.toks[colon].is_punct(":") || colon == 0 {
            return false;
        }
        let before = colon - 1;
        let label = if self.toks[before].is_punct(")") {
            self.partner(before).and_then(|open| open.checked_sub(1))
        } else {
            Some(before)
        };
        label.is_some_and(|label| self.toks[label].kind == TokenKind::BlockId)
    }

    /// Recognises `[results =] name` at token `index`, where `results` is `%a`, `%a, %b` or `%r:2`.
    ///
    /// A lego op may also follow another op on the same line (`%c = arith.constant 0 : index %l = lego.row
    /// [4]`), as MLIR allows: a known `lego.` op name (with or without results) not preceded by `,` or `=`
    /// begins an op wherever it stands. Upstream ops cannot be recognised mid-line without their grammar,
    /// and need not be: MLIR parses them itself.
    pub fn op_head(&self, index: usize) -> Option<OpHead> {
        let head = self.op_head_at(index)?;
        if self.starts_statement(index) || self.begins_lego_op_mid_line(index, &head) {
            Some(head)
        } else {
            None
        }
    }

    fn begins_lego_op_mid_line(&self, index: usize, head: &OpHead) -> bool {
        let name = &self.toks[head.name];
        let after_separator = index.checked_sub(1).is_some_and(|previous| {
            let previous = &self.toks[previous];
            previous.is_punct(",") || previous.is_punct("=") || previous.is_punct("(") || previous.is_punct("[")
        });
        name.kind == TokenKind::BareIdent && super::model::OpName::parse(name.text).is_some() && !after_separator
    }

    fn op_head_at(&self, index: usize) -> Option<OpHead> {
        let mut cursor = index;
        let mut results = None;
        if self.toks[cursor].kind == TokenKind::ValueId {
            let mut text = String::new();
            loop {
                // `Eof` ends the token list and matches none of these, so `cursor` stays in bounds.
                if self.toks[cursor].kind != TokenKind::ValueId {
                    return None;
                }
                text.push_str(self.toks[cursor].text);
                cursor += 1;
                if self.toks[cursor].is_punct(":") && self.toks[cursor + 1].kind == TokenKind::Integer {
                    text.push(':');
                    text.push_str(self.toks[cursor + 1].text);
                    cursor += 2;
                }
                if !self.toks[cursor].is_punct(",") {
                    break;
                }
                text.push_str(", ");
                cursor += 1;
            }
            if !self.toks[cursor].is_punct("=") {
                return None;
            }
            results = Some(text);
            cursor += 1;
        }
        matches!(self.toks[cursor].kind, TokenKind::BareIdent | TokenKind::String).then_some(OpHead {
            first: index,
            results,
            name: cursor,
        })
    }

    /// Walks tokens `lo..hi` (the statements of one block or region, in `scope`) and offers every op head
    /// to `op`, which returns the index after the op if it consumed it. Statements nested in braces are in
    /// the same scope but no longer direct children of a `gen_p` region.
    pub fn walk(&self, lo: usize, hi: usize, scope: Scope, mut op: impl FnMut(&OpHead, Scope) -> Option<usize>) {
        let mut index = lo;
        let mut braces = 0usize;
        while index < hi {
            let token = &self.toks[index];
            if token.is_punct("{") {
                braces += 1;
            } else if token.is_punct("}") {
                braces = braces.saturating_sub(1);
            } else if let Some(head) = self.op_head(index).filter(|head| head.name < hi) {
                if let Some(next) = op(&head, Scope { in_gen_p: scope.in_gen_p && braces == 0, ..scope }) {
                    index = next;
                    continue;
                }
            }
            index += 1;
        }
    }

    /// Skips past a statement that failed to parse, to the next token that begins a line outside any bracket
    /// opened after `from`, so that one mistake gives one error.
    pub fn recover(&self, from: usize, hi: usize) -> usize {
        let mut depth = 0i64;
        let mut index = from + 1;
        while index < hi {
            let token = &self.toks[index];
            if depth <= 0 && token.line > self.toks[index - 1].line {
                return index;
            }
            match token.text {
                "(" | "[" | "{" if token.kind == TokenKind::Punct => depth += 1,
                ")" | "]" | "}" if token.kind == TokenKind::Punct => depth -= 1,
                _ => {}
            }
            index += 1;
        }
        hi
    }
}

fn closer_of(open: &str) -> &'static str {
    match open {
        "(" => ")",
        "[" => "]",
        _ => "}",
    }
}

/// Pairs up `(`/`)`, `[`/`]` and `{`/`}`; brackets left unpaired get no partner. Returns the first error
/// (the later ones are usually its echoes), and the first bracket nested deeper than
/// [`super::lexer::MAX_NESTING`] (fatal: MLIR's recursive parser would overflow its stack on it).
fn match_brackets(toks: &[Token<'_>]) -> (Vec<Option<usize>>, Option<SyntaxError>, Option<SyntaxError>) {
    let mut partner = vec![None; toks.len()];
    let mut open: Vec<usize> = Vec::new();
    let mut first_error = None;
    let mut nesting_error = None;
    for (index, token) in toks.iter().enumerate() {
        if token.kind != TokenKind::Punct {
            continue;
        }
        match token.text {
            "(" | "[" | "{" => {
                open.push(index);
                if open.len() > super::lexer::MAX_NESTING && nesting_error.is_none() {
                    nesting_error = Some(super::lexer::nesting_error(token.line, token.column));
                }
            }
            ")" | "]" | "}" => {
                // Pair with the innermost opener of the same kind; openers in between stay unpaired.
                let depth = open.iter().rposition(|&opener| closer_of(toks[opener].text) == token.text);
                let pairs_innermost = open.len().checked_sub(1).is_some_and(|top| depth == Some(top));
                if let Some(&innermost) = open.last().filter(|_| !pairs_innermost) {
                    let at = &toks[innermost];
                    let expected = closer_of(at.text);
                    first_error.get_or_insert_with(|| {
                        token.error(format!(
                            "expected '{expected}' to match '{}' at {}:{}, found '{}'",
                            at.text, at.line, at.column, token.text
                        ))
                    });
                }
                let Some(depth) = depth else {
                    first_error.get_or_insert_with(|| token.error(format!("unbalanced '{}'", token.text)));
                    continue;
                };
                let opener = open[depth];
                open.truncate(depth);
                partner[opener] = Some(index);
                partner[index] = Some(opener);
            }
            _ => {}
        }
    }
    if let Some(&opener) = open.first() {
        let token = &toks[opener];
        first_error
            .get_or_insert_with(|| token.error(format!("unbalanced '{}': no matching '{}'", token.text, closer_of(token.text))));
    }
    (partner, first_error, nesting_error)
}

/// `!name = <type>` at the start of a line defines a type alias.
fn collect_aliases<'a>(toks: &[Token<'a>]) -> HashMap<&'a str, &'a str> {
    toks.windows(3)
        .enumerate()
        .filter(|(index, window)| {
            let starts_line = *index == 0 || toks[index - 1].line < window[0].line;
            starts_line
                && window[0].kind == TokenKind::TypeId
                && window[1].is_punct("=")
                && matches!(window[2].kind, TokenKind::TypeId | TokenKind::BareIdent)
        })
        .map(|(_, window)| (window[0].text, window[2].text))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(text: &str, index: usize) -> Option<(Option<String>, String)> {
        let source = Source::new(text).ok()?;
        source.op_head(index).map(|head| (head.results, source.toks[head.name].text.to_string()))
    }

    #[test]
    fn op_heads() {
        assert_eq!(head("%a, %b = lego.apply_inverse", 0), Some((Some("%a, %b".into()), "lego.apply_inverse".into())));
        assert_eq!(head("%r:2 = lego.apply_inverse", 0), Some((Some("%r:2".into()), "lego.apply_inverse".into())));
        assert_eq!(head("lego.assume %c", 0), Some((None, "lego.assume".into())));
        assert_eq!(head("%0 = \"lego.row\"()", 0), Some((Some("%0".into()), "\"lego.row\"".into())));
        // Not at the start of a statement: an operand, an attribute value.
        assert_eq!(head("foo.bar %a lego.x", 2), None);
        assert_eq!(head("%a %b = lego.x", 0), None);
        assert_eq!(head("%a = 4", 0), None);
        // After a brace on the same line.
        assert_eq!(head("scf.if %c { lego.assume %x }", 3), Some((None, "lego.assume".into())));
        // A lego op after another op on the same line; not an operand list or a result of a group.
        assert_eq!(head("%c = arith.constant 0 : index %l = lego.row [4]", 6), Some((Some("%l".into()), "lego.row".into())));
        assert_eq!(head("return %x lego.assume %c", 2), Some((None, "lego.assume".into())));
        assert_eq!(head("%a, %b = lego.apply_inverse", 2), None);
        assert_eq!(head("%a, %b = lego.apply_inverse", 4), None);
        assert_eq!(head("%c = arith.constant 0 : index %l = foo.bar", 6), None);
    }

    #[test]
    fn brackets_are_matched() {
        let source = Source::new("a ( [ { } ] )").expect("balanced");
        assert_eq!(
            (1..=6).map(|index| source.partner(index)).collect::<Vec<_>>(),
            vec![Some(6), Some(5), Some(4), Some(3), Some(2), Some(1)]
        );
    }

    #[test]
    fn bracket_errors() {
        let message = |text: &str| Source::new(text).ok()?.bracket_error.map(|error| (error.line, error.column, error.message));
        assert_eq!(message("a )"), Some((1, 3, "unbalanced ')'".into())));
        assert_eq!(message("a (\n]"), Some((2, 1, "expected ')' to match '(' at 1:3, found ']'".into())));
        assert_eq!(message("{ ( )"), Some((1, 1, "unbalanced '{': no matching '}'".into())));
        assert_eq!(message("{ ( }"), Some((1, 5, "expected ')' to match '(' at 1:3, found '}'".into())));
        assert_eq!(message("{ ( ) }"), None);
    }

    #[test]
    fn unbalanced_brackets_leave_the_rest_paired() {
        let source = Source::new("{ ( } ] ( )").expect("lexes");
        assert_eq!(source.partner(0), Some(2));
        assert_eq!(source.partner(1), None);
        assert_eq!(source.partner(3), None);
        assert_eq!(source.partner(4), Some(5));
    }

    #[test]
    fn aliases_resolve_through_chains() {
        let source = Source::new("!v = !lego.view<f32>\n!w = !v\n!m = memref<4xf32>").expect("lexes");
        assert_eq!(source.resolve_alias("!w"), "!lego.view<f32>");
        assert_eq!(source.resolve_alias("!m"), "memref<4xf32>");
        assert_eq!(source.resolve_alias("!x"), "!x");
        let cyclic = Source::new("!a = !b\n!b = !a").expect("lexes");
        assert!(["!a", "!b"].contains(&cyclic.resolve_alias("!a")));
    }

    #[test]
    fn recovery_skips_to_the_next_line_outside_brackets() {
        let source = Source::new("lego.bad [\n 1 ] x\nnext").expect("lexes");
        let next = source.recover(0, source.eof());
        assert_eq!(source.toks[next].text, "next");
    }
}
