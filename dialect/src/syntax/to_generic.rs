//! Custom → generic: rewrites every custom lego op of a text to the generic form of docs/generic-form.md and
//! copies everything else (upstream ops, generic ops, comments, whitespace) verbatim.

use crate::ops::OpKind;
use super::custom_parser::{parse_op, ParsedOp};
use super::generic_parser::parse_generic_op;
use super::lexer::{Token, TokenKind};
use std::fmt::Write as _;
use super::model::OpName;
use super::source::{OpHead, Scope, Source};
use super::splice::Splicer;
use super::SyntaxError;

/// Where a rewritten op gets an explicit `loc(...)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Locations {
    /// On every rewritten op: for a text parsed under any buffer name.
    Explicit,
    /// Only where MLIR's parser would not place the op at the user's line and column by itself (where the
    /// generic form moved its name). The caller parses the text under `file_name`, or moves the parser's
    /// positions back to it, as it must for the upstream ops of the text anyway.
    WhereMoved,
}

pub fn to_generic(file_name: &str, text: &str, locations: Locations) -> Result<String, Vec<SyntaxError>> {
    let source = Source::new(text)?;
    if let Some(error) = &source.nesting_error {
        return Err(vec![error.clone()]);
    }
    let crashing_shapes = super::upstream_guards::check(&source);
    if !crashing_shapes.is_empty() {
        return Err(crashing_shapes);
    }
    let mut rewriter =
        Rewriter { source: &source, file: escape_string(file_name), locations, out: Splicer::new(text), errors: Vec::new() };
    rewriter.statements(0, source.eof(), Scope::TOP);
    if rewriter.errors.is_empty() {
        match source.bracket_error {
            Some(error) => Err(vec![error]),
            None => Ok(rewriter.out.finish()),
        }
    } else {
        rewriter.errors.sort_by_key(|error| (error.line, error.column));
        Err(rewriter.errors)
    }
}

/// `text` as the body of an MLIR string literal, escaped the way MLIR's printer does.
fn escape_string(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'"' | b'\\' => {
                escaped.push('\\');
                escaped.push(char::from(byte));
            }
            b' '..=b'~' => escaped.push(char::from(byte)),
            _ => escaped.push_str(&format!("\\{byte:02X}")),
        }
    }
    escaped
}

struct Rewriter<'s, 'a> {
    source: &'s Source<'a>,
    /// The file name, escaped for `loc("...")`.
    file: String,
    locations: Locations,
    out: Splicer<'a>,
    errors: Vec<SyntaxError>,
}

impl Rewriter<'_, '_> {
    /// Rewrites the custom lego ops among the statements of tokens `lo..hi`.
    fn statements(&mut self, lo: usize, hi: usize, scope: Scope) {
        let source = self.source;
        source.walk(lo, hi, scope, |head, scope| self.op(head, hi, scope));
    }

    /// Handles the op at `head` if it is ours; returns the index of the token after it.
    fn op(&mut self, head: &OpHead, hi: usize, scope: Scope) -> Option<usize> {
        let name = self.source.toks[head.name];
        match name.kind {
            TokenKind::BareIdent if name.text.starts_with("lego.") && self.is_op_name(head) => {
                Some(self.custom_op(head, hi, scope))
            }
            TokenKind::String if name.text == "\"lego.gen_p\"" => self.generic_gen_p(head, hi, scope),
            _ => None,
        }
    }

    /// A bare `lego.x` at the start of a line is an op, unless it is an attribute name in a dictionary that
    /// spans lines (`{\n lego.thread_id}`, `lego.x = 1,`).
    fn is_op_name(&self, head: &OpHead) -> bool {
        let name = &self.source.toks[head.name];
        let next = &self.source.toks[head.name + 1];
        let attribute_like = next.line == name.line && (next.is_punct("=") || next.is_punct(",") || next.is_punct("}"));
        head.results.is_some() || !attribute_like
    }

    fn custom_op(&mut self, head: &OpHead, hi: usize, scope: Scope) -> usize {
        let name = self.source.toks[head.name];
        let first = self.source.toks[head.first];
        let result = match OpName::parse(name.text) {
            None => Err(name.error(format!("custom op '{}' is unknown", name.text))),
            Some(OpName::Yield) if !scope.in_gen_p => Err(first.error("'lego.yield' op expects parent op 'lego.gen_p'")),
            Some(OpName::Op(OpKind::GenP)) if scope.too_deep() => Err(first.error("'lego.gen_p' regions are nested too deeply")),
            Some(op_name) => parse_op(self.source, op_name, head.name, hi),
        };
        match result {
            Ok(parsed) => {
                let end = parsed.loc.unwrap_or(parsed.last);
                if let Some(error) = self.stray_after(end, hi, name.text) {
                    self.errors.push(error);
                    return self.source.recover(head.name, hi);
                }
                self.emit(head, &parsed, scope);
                end + 1
            }
            Err(error) => {
                self.errors.push(error);
                self.source.recover(head.name, hi)
            }
        }
    }

    /// Punctuation on the line of a custom op's last token, right after it (`: !lego.layout -> index`): no
    /// op can start with it, so it is left over from the user's text. Caught here because the generic text
    /// that replaces the op is longer than it, and MLIR's parser would report the leftover at a column of the
    /// rewritten line, past the end of the line the user wrote.
    fn stray_after(&self, end: usize, hi: usize, op: &str) -> Option<SyntaxError> {
        let next = self.source.toks.get(end + 1).filter(|_| end + 1 < hi)?;
        let same_line = next.line == self.source.toks[end].line;
        (same_line && next.kind == TokenKind::Punct && !next.is_punct("}")).then(|| {
            next.error(format!("unexpected '{}' after the end of '{op}' (its custom form ends at its type)", next.text))
        })
    }

    /// ` loc("file":line:col)` at the op's name token, unless the user wrote one. MLIR's parser locates every op
    /// at its name (not its result list), so diagnostics point where users of a C++ dialect expect them.
    fn write_location(out: &mut String, file: &str, name: &Token<'_>, parsed: &ParsedOp) {
        if parsed.loc.is_none() {
            let _ = write!(out, " loc(\"{file}\":{}:{})", name.line, name.column);
        }
    }

    /// Replaces tokens `first..=last` by what `text` writes and, if `location` is given, the op's location,
    /// with the line breaks the tokens spanned between the two, so that the lines after them keep their
    /// numbers. `text` returns where in the output it wrote the op's name, if it did.
    fn replace_lines(
        &mut self,
        first: usize,
        last: usize,
        location: Option<(usize, &ParsedOp)>,
        text: impl FnOnce(&mut String) -> Option<usize>,
    ) {
        let padding = self.source.newlines_between(first, last);
        let (start, end) = (self.source.toks[first].offset, self.source.toks[last].end());
        let mut name_at = None;
        self.out.replace_with(start, end, |out| {
            name_at = text(out);
            out.extend(std::iter::repeat('\n').take(padding));
        });
        let Some((name, parsed)) = location else { return };
        let name = &self.source.toks[name];
        // MLIR's parser locates an op at its name: where that is the user's line and column already, an
        // explicit location would only repeat it (and cost the parser a second lookup of it). Not where more
        // of the line follows the op: leaving the location out would move what follows to other columns of
        // the generic text, and a block argument there is located at its column in that text.
        let rest_of_line_is_empty = self.source.toks.get(last + 1).is_none_or(|next| {
            next.kind == TokenKind::Eof || next.line != self.source.toks[last].line
        });
        let in_place = self.locations == Locations::WhereMoved
            && rest_of_line_is_empty
            && name_at.is_some_and(|at| self.out.line_column(at) == (name.line, name.column));
        if !in_place {
            let file = self.file.as_str();
            self.out.append(|out| Self::write_location(out, file, name, parsed));
        }
    }

    fn emit(&mut self, head: &OpHead, parsed: &ParsedOp, scope: Scope) {
        let results = head.results.as_deref();
        let location = Some((head.name, parsed));
        let Some(&(apply_open, apply_close)) = parsed.regions.first() else {
            self.replace_lines(head.first, parsed.last, location, |out| Some(parsed.op.write_generic(results, out)));
            return;
        };
        let label = self.entry_label(&parsed.regions);
        let Some(pieces) = parsed.op.generic_pieces(results, &label) else { return };
        self.replace_lines(head.first, apply_open, None, |out| {
            out.push_str(&pieces.header);
            None
        });
        self.statements(apply_open + 1, apply_close, scope.gen_p_region());
        let mut tail = apply_close;
        if let (Some(middle), Some(&(inv_open, inv_close))) = (&pieces.middle, parsed.regions.get(1)) {
            self.replace_lines(apply_close, inv_open, None, |out| {
                out.push_str(middle);
                None
            });
            self.statements(inv_open + 1, inv_close, scope.gen_p_region());
            tail = inv_close;
        }
        self.replace_lines(tail, parsed.last, location, |out| {
            out.push_str(&pieces.trailer);
            None
        });
    }

    /// A name for the entry blocks that no block label inside the regions uses (users may label further
    /// blocks of a region).
    fn entry_label(&self, regions: &[(usize, usize)]) -> String {
        let used = |label: &str| {
            regions.iter().any(|&(open, close)| {
                self.source.toks[open..close].iter().any(|token| token.kind == TokenKind::BlockId && token.text == label)
            })
        };
        (0..)
            .map(|n| if n == 0 { "^bb0".to_string() } else { format!("^bb0_{n}") })
            .find(|label| !used(label))
            .unwrap_or_default()
    }

    /// A user-written generic `"lego.gen_p"`: its regions hold `lego.yield` terminators too.
    fn generic_gen_p(&mut self, head: &OpHead, hi: usize, scope: Scope) -> Option<usize> {
        if scope.too_deep() {
            return None;
        }
        let op = parse_generic_op(self.source, head, hi)?;
        for region in &op.regions {
            self.statements(region.open + 1, region.close, scope.gen_p_region());
        }
        Some(op.last + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_escaped_like_mlir_strings() {
        assert_eq!(escape_string("a/b.mlir"), "a/b.mlir");
        assert_eq!(escape_string("a\"b\\c"), "a\\\"b\\\\c");
        assert_eq!(escape_string("tab\there"), "tab\\09here");
        assert_eq!(escape_string("é"), "\\C3\\A9");
    }
}
