//! The assembly-format layer of the dialect: the dialect is registered through IRDL, so MLIR only parses and
//! prints lego ops in the generic form. This module rewrites the custom syntax users write
//! (`docs/reference/syntax.md`) to the generic form (`docs/generic-form.md`) before MLIR parses a text, and
//! MLIR's printed generic lego ops back to the custom syntax.
//!
//! It is pure text processing over MLIR's lexical grammar ([`lexer`]): it needs no MLIR context, and what it
//! does not recognise passes through untouched for MLIR to judge.

mod custom_parser;
mod generic_parser;
pub mod lexer;
mod model;
mod parser;
mod source;
mod splice;
mod to_custom;
mod to_generic;
mod upstream_guards;

#[cfg(test)]
mod tests;

use std::fmt;

/// A syntax error in the custom form, at a 1-based line and column (in bytes) of the input text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for SyntaxError {}

/// Rewrites every custom-form lego op in `text` to the generic form (docs/generic-form.md). `file_name` is
/// used in the explicit `loc("file_name":line:col)` attached to each rewritten op. Generic-form ops,
/// non-lego ops, comments etc. pass through. Each rewritten op keeps the number of lines it had, so MLIR's
/// diagnostics on the rest of the text keep their line numbers.
pub fn to_generic(file_name: &str, text: &str) -> Result<String, Vec<SyntaxError>> {
    to_generic::to_generic(file_name, text, to_generic::Locations::Explicit)
}

/// [`to_generic`] for a text MLIR parses under `file_name` (or whose parser positions are moved back to it): a
/// rewritten op whose generic name stands at the user's line and column gets no explicit `loc(...)`, since
/// MLIR's parser places it there itself. The parsed ops' locations are the same as with [`to_generic`].
pub fn to_generic_parsed_as(file_name: &str, text: &str) -> Result<String, Vec<SyntaxError>> {
    to_generic::to_generic(file_name, text, to_generic::Locations::WhereMoved)
}

/// Rewrites the generic lego ops in MLIR's printed output back to custom form. Never fails: anything it
/// does not recognise (or whose attributes don't fit the custom form) is left exactly as printed.
pub fn to_custom(printed: &str) -> String {
    to_custom::to_custom(printed)
}

/// [`to_custom`] of an owned text, which is returned as it is (not copied) where nothing is rewritten.
pub fn to_custom_owned(printed: String) -> String {
    to_custom::to_custom_owned(printed)
}

/// The line, column and name of the first custom-form lego op left in `text` (one the rewriter did not
/// recognise as an op), to locate an otherwise silent MLIR parse failure.
pub fn first_custom_lego_op(text: &str) -> Option<(usize, usize, String)> {
    let source = source::Source::new(text).ok()?;
    source.toks.iter().enumerate().find_map(|(index, token)| {
        let next = source.toks.get(index + 1)?;
        let attribute_like = next.line == token.line && (next.is_punct("=") || next.is_punct(",") || next.is_punct("}"));
        (token.kind == lexer::TokenKind::BareIdent && model::OpName::parse(token.text).is_some() && !attribute_like)
            .then(|| (token.line, token.column, token.text.to_string()))
    })
}
