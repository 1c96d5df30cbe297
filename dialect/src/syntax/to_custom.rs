//! Generic → custom: rewrites the generic lego ops of MLIR's printed output to the custom form, and the
//! `smt.yield` terminators of their `gen_p` regions to `lego.yield`. Everything else is copied verbatim.
//!
//! An op is only rewritten when its custom form parses back to exactly the generic tokens it came from
//! (region bodies aside), so the round trip cannot lose information: an op with an extra attribute, an
//! unexpected type or anything else the custom form cannot say stays as printed.

use super::custom_parser::parse_op;
use super::generic_parser::{parse_generic_op, GenericOp};
use super::lexer::{tokenize_significant, Token, TokenKind};
use super::model::{LegoOp, OpName};
use super::source::{OpHead, Scope, Source};
use super::splice::Splicer;

pub fn to_custom(printed: &str) -> String {
    rewritten(printed).unwrap_or_else(|| printed.to_string())
}

/// [`to_custom`] of a text it owns: a text it leaves alone is returned as it is, not copied (the lowered IR of
/// a large module is megabytes).
pub fn to_custom_owned(printed: String) -> String {
    rewritten(&printed).unwrap_or(printed)
}

/// The text with its lego ops in custom form; `None` where it stays as it is.
fn rewritten(printed: &str) -> Option<String> {
    // Only a generic `"lego.…"` op is ever rewritten (an `smt.yield` only inside a `"lego.gen_p"`), so a text
    // without one is its own custom form: the usual case for lowered IR, which is then not tokenized at all.
    if !printed.contains("\"lego.") {
        return None;
    }
    // Text that does not even tokenize, or has unbalanced brackets, is not MLIR's output; leave it alone.
    let source = Source::new(printed).ok().filter(|source| source.bracket_error.is_none())?;
    let mut printer = Printer { source: &source, out: Splicer::new(printed), seen: Seen::default() };
    printer.statements(0, source.eof(), Scope::TOP);
    Some(printer.out.finish())
}

struct Printer<'s, 'a> {
    source: &'s Source<'a>,
    out: Splicer<'a>,
    seen: Seen<'a>,
}

/// What became of the generic ops (other than `gen_p`) already converted, by their printed text: an op's
/// custom form and its round-trip check depend only on its tokens (and the text's type aliases, the same for
/// all of it), so an op printed exactly like an earlier one gets the same answer without parsing, rendering
/// and checking it again. MLIR numbers values afresh in each function, so a module of many similar functions
/// prints the same ops over and over; where it does not (one large function), the table stops growing after
/// [`Seen::TRIAL`] ops without a repeat.
#[derive(Default)]
struct Seen<'a> {
    custom: std::collections::HashMap<&'a str, Option<String>>,
    hits: usize,
    /// The round-trip check's verdict by the op's tokens with its values renamed in order of appearance
    /// ([`renamed_tokens`]): the check reads value names only as names (copied into the custom text and
    /// compared as tokens), so ops that differ only in their value names — the ops of one large function —
    /// pass or fail it alike.
    checked: std::collections::HashMap<String, bool>,
    checked_hits: usize,
}

impl Seen<'_> {
    const TRIAL: usize = 4096;

    fn keeps_learning(&self) -> bool {
        self.custom.len() < Self::TRIAL || self.hits * 8 >= self.custom.len()
    }

    fn keeps_checking(&self) -> bool {
        self.checked.len() < Self::TRIAL || self.checked_hits * 8 >= self.checked.len()
    }
}

/// The kinds and texts of `tokens`, each value name replaced by its number in order of first appearance, in
/// one unambiguous string (each token as its kind, its length and its text).
fn renamed_tokens(tokens: &[Token<'_>]) -> String {
    use std::fmt::Write as _;
    let mut names: Vec<&str> = Vec::new();
    let mut key = String::with_capacity(tokens.iter().map(|token| token.text.len() + 4).sum());
    for token in tokens {
        if token.kind == TokenKind::ValueId {
            let number = names.iter().position(|name| *name == token.text).unwrap_or_else(|| {
                names.push(token.text);
                names.len() - 1
            });
            let _ = write!(key, "%{number};");
        } else {
            let _ = write!(key, "{:?}{}:{}", token.kind, token.text.len(), token.text);
        }
    }
    key
}

impl<'a> Printer<'_, 'a> {
    /// Replaces tokens `first..=last` by `text`.
    fn replace_tokens(&mut self, first: usize, last: usize, text: &str) {
        let (start, end) = (self.source.toks[first].offset, self.source.toks[last].end());
        self.out.replace(start, end, text);
    }

    /// Converts the lego ops among the statements of tokens `lo..hi`.
    fn statements(&mut self, lo: usize, hi: usize, scope: Scope) {
        let source = self.source;
        source.walk(lo, hi, scope, |head, scope| self.op(head, hi, scope));
    }

    /// Converts the op at `head` if it is a lego op (or a `gen_p` terminator); returns the index after it.
    fn op(&mut self, head: &OpHead, hi: usize, scope: Scope) -> Option<usize> {
        let name = self.source.toks[head.name];
        match name.kind {
            TokenKind::BareIdent if scope.in_gen_p && name.text == "smt.yield" => self.custom_yield(head, hi),
            TokenKind::String if name.text.starts_with("\"lego.") || (scope.in_gen_p && name.text == "\"smt.yield\"") => {
                self.generic_op(head, hi, scope)
            }
            _ => None,
        }
    }

    /// `smt.yield %a : index` (its custom form) becomes `lego.yield %a : index`; the syntax is the same.
    fn custom_yield(&mut self, head: &OpHead, hi: usize) -> Option<usize> {
        if head.results.is_some() {
            return None;
        }
        let parsed = parse_op(self.source, OpName::Yield, head.name, hi).ok()?;
        let end = parsed.loc.unwrap_or(parsed.last);
        // Anything else on the line (an attribute dictionary) has no place in the custom form.
        let next = &self.source.toks[end + 1];
        let ends_statement = end + 1 >= hi || next.kind == TokenKind::Eof || next.line > self.source.toks[end].line;
        if !ends_statement {
            return None;
        }
        self.replace_tokens(head.name, head.name, "lego.yield");
        Some(end + 1)
    }

    fn generic_op(&mut self, head: &OpHead, hi: usize, scope: Scope) -> Option<usize> {
        let generic = parse_generic_op(self.source, head, hi)?;
        let next = generic.last + 1;
        let source = self.source;
        let text = &source.text[source.toks[head.first].offset..source.toks[generic.last].end()];
        // Only ops that are not `gen_p` are ever recorded.
        if let Some(custom) = self.seen.custom.get(text) {
            self.seen.hits += 1;
            let custom = custom.as_deref()?;
            let (start, end) = (source.toks[head.first].offset, source.toks[generic.last].end());
            self.out.replace(start, end, custom);
            return Some(next);
        }
        let Some(op) = generic.to_lego(source) else {
            self.remember(text, None);
            return None;
        };
        let results = head.results.as_deref();
        if let LegoOp::GenP { .. } = op {
            return (!scope.too_deep() && self.gen_p(head, &generic, &op, scope)).then_some(next);
        }
        let custom = op.custom(results);
        if !self.renders_back(&source.toks[head.first..=generic.last], &custom, results) {
            self.remember(text, None);
            return None;
        }
        self.replace_tokens(head.first, generic.last, &custom);
        self.remember(text, Some(custom));
        Some(next)
    }

    /// [`renders_back`], its verdict reused for ops that differ only in their value names.
    fn renders_back(&mut self, original: &[Token<'_>], custom: &str, results: Option<&str>) -> bool {
        let key = renamed_tokens(original);
        if let Some(&verdict) = self.seen.checked.get(&key) {
            self.seen.checked_hits += 1;
            return verdict;
        }
        let verdict = renders_back(original, custom, results);
        if self.seen.keeps_checking() {
            self.seen.checked.insert(key, verdict);
        }
        verdict
    }

    fn remember(&mut self, text: &'a str, custom: Option<String>) {
        if self.seen.keeps_learning() {
            self.seen.custom.insert(text, custom);
        }
    }

    fn gen_p(&mut self, head: &OpHead, generic: &GenericOp<'_>, op: &LegoOp, scope: Scope) -> bool {
        let [apply, inv] = generic.regions.as_slice() else { return false };
        let results = head.results.as_deref();
        let Some(pieces) = op.custom_pieces(results) else { return false };
        // Check everything but the bodies, which are copied (and converted) separately.
        let toks = &self.source.toks;
        let outside_bodies: Vec<Token<'_>> =
            [&toks[head.first..apply.body_start], &toks[apply.close..inv.body_start], &toks[inv.close..=generic.last]].concat();
        let custom_without_bodies = [Some(pieces.header.as_str()), pieces.middle.as_deref(), Some(pieces.trailer.as_str())]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n");
        if !renders_back(&outside_bodies, &custom_without_bodies, results) {
            return false;
        }
        self.replace_tokens(head.first, apply.body_start - 1, &pieces.header);
        self.statements(apply.body_start, apply.close, scope.gen_p_region());
        let tail = match &pieces.middle {
            Some(middle) => {
                self.replace_tokens(apply.close, inv.body_start - 1, middle);
                self.statements(inv.body_start, inv.close, scope.gen_p_region());
                inv
            }
            None => apply,
        };
        self.replace_tokens(tail.close, generic.last, &pieces.trailer);
        true
    }
}

/// Whether what `to_generic` makes of the custom text of one op (with empty region bodies) has exactly the
/// tokens `original`; false if it does not parse. Runs once per printed lego op, so it compares in place
/// rather than building token lists.
fn renders_back(original: &[Token<'_>], custom: &str, results: Option<&str>) -> bool {
    let Some(generic) = reparsed_generic(custom, results) else { return false };
    let (lexed, _) = tokenize_significant(&generic);
    lexed.errors.is_empty()
        && original.len() == lexed.tokens.len()
        && original.iter().zip(&lexed.tokens).all(|(token, reparsed)| token.kind == reparsed.kind && same_text(token, reparsed.text))
}

/// What `to_generic` makes of the custom text of one op (with empty region bodies); `None` if it does not
/// parse.
fn reparsed_generic(custom: &str, results: Option<&str>) -> Option<String> {
    let source = Source::new(custom).ok()?;
    let head = source.op_head(0)?;
    let name = OpName::parse(source.toks[head.name].text)?;
    let parsed = parse_op(&source, name, head.name, source.eof()).ok()?;
    if parsed.last + 1 != source.eof() {
        return None;
    }
    Some(match parsed.op.generic_pieces(results, "^bb0") {
        Some(pieces) => {
            [Some(pieces.header), pieces.middle, Some(pieces.trailer)].into_iter().flatten().collect::<Vec<_>>().join(" ")
        }
        None => parsed.op.generic(results),
    })
}

/// Token texts compare with whitespace inside `<...>` bodies ignored, so `array<i64: 1>` equals `array<i64:1>`.
fn same_text(token: &Token<'_>, other: &str) -> bool {
    token.text == other
        || match token.kind {
            TokenKind::BareIdent | TokenKind::TypeId | TokenKind::AttrId => {
                fn significant(text: &str) -> impl Iterator<Item = char> + '_ {
                    text.chars().filter(|character| !character.is_whitespace())
                }
                significant(token.text).eq(significant(other))
            }
            _ => false,
        }
}
