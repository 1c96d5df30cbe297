//! Shapes of upstream syntax on which MLIR 22's own parser crashes (docs/known-upstream-bugs.md). The whole
//! input passes through this layer before MLIR sees it, so they are rejected here with a located error;
//! everything else stays MLIR's to judge. (Too-deep nesting is the lexer's and the bracket matcher's
//! job: [`super::lexer::MAX_NESTING`].)

use super::lexer::{LineIndex, TokenKind};
use super::source::Source;
use super::SyntaxError;

/// The located errors for every crashing shape in `source`.
pub(crate) fn check(source: &Source<'_>) -> Vec<SyntaxError> {
    let mut errors = Vec::new();
    gpu_launch_id_lists(source, &mut errors);
    index_dense_arrays(source, &mut errors);
    errors
}

/// `gpu.launch blocks(%a, %b, %c) in (...)`: upstream copies the id list into a fixed array of three
/// without checking its length (more ids: memory corruption or a crash; fewer: garbage locations).
fn gpu_launch_id_lists(source: &Source<'_>, errors: &mut Vec<SyntaxError>) {
    let toks = &source.toks;
    for (index, token) in toks.iter().enumerate() {
        if !token.is_word("gpu.launch") {
            continue;
        }
        // The id lists come before the body's `{`.
        let mut cursor = index + 1;
        while cursor + 1 < toks.len() && !toks[cursor].is_punct("{") && toks[cursor].kind != TokenKind::Eof {
            let keyword = &toks[cursor];
            let is_list = matches!(keyword.text, "blocks" | "threads" | "clusters")
                && keyword.kind == TokenKind::BareIdent
                && toks[cursor + 1].is_punct("(");
            if !is_list {
                cursor += 1;
                continue;
            }
            let Some(close) = source.partner(cursor + 1) else { break };
            let inside = &toks[cursor + 2..close];
            let mut ids = 0usize;
            let mut depth = 0i64;
            for inner in inside {
                match inner.text {
                    "(" | "[" | "{" if inner.kind == TokenKind::Punct => depth += 1,
                    ")" | "]" | "}" if inner.kind == TokenKind::Punct => depth -= 1,
                    "," if inner.kind == TokenKind::Punct && depth == 0 => ids += 1,
                    _ => {}
                }
            }
            if !inside.is_empty() {
                ids += 1;
            }
            if ids != 3 {
                errors.push(keyword.error(format!(
                    "'gpu.launch' expects 3 ids in '{}(...)', found {ids}",
                    keyword.text
                )));
            }
            cursor = close + 1;
        }
    }
}

/// `array<index: ...>`: upstream accepts `index` as a dense array element type and then asks for its bit
/// width (a crash). Found inside any token (`array<...>` directly glued, or nested in a dialect body or a
/// location) and in the spaced form `array <index: ...>`.
fn index_dense_arrays(source: &Source<'_>, errors: &mut Vec<SyntaxError>) {
    let mut lines: Option<LineIndex> = None;
    let toks = &source.toks;
    for (index, token) in toks.iter().enumerate() {
        if matches!(token.kind, TokenKind::String | TokenKind::Eof | TokenKind::Comment) {
            continue;
        }
        for (offset, element) in dense_array_element_types(token.text) {
            if source.resolve_alias(element) == "index" {
                let lines = lines.get_or_insert_with(|| LineIndex::new(source.text));
                let (line, column) = lines.line_col(token.offset + offset);
                errors.push(element_error(line, column, element));
            }
        }
        if token.is_word("array") && toks.get(index + 1).is_some_and(|next| next.is_punct("<")) {
            if let Some(element) = toks.get(index + 2).filter(|element| matches!(element.kind, TokenKind::BareIdent | TokenKind::TypeId)) {
                if source.resolve_alias(element.text) == "index" {
                    errors.push(element_error(element.line, element.column, element.text));
                }
            }
        }
    }
}

fn element_error(line: usize, column: usize, element: &str) -> SyntaxError {
    SyntaxError {
        line,
        column,
        message: format!(
            "dense array element type must be an integer or floating-point type, found '{element}' \
             (write 'array<i64: ...>'; MLIR 22 crashes on 'array<index: ...>')"
        ),
    }
}

/// The element types of the `array<TYPE ...` occurrences in `text` (outside string literals), with their
/// byte offsets in `text`.
fn dense_array_element_types(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut pos = 0;
    let is_ident = |byte: u8| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$' | b'.');
    while pos < bytes.len() {
        match bytes[pos] {
            b'"' => {
                pos += 1;
                while pos < bytes.len() && bytes[pos] != b'"' {
                    pos += if bytes[pos] == b'\\' { 2 } else { 1 };
                }
                pos += 1;
            }
            b'a' if text[pos..].starts_with("array") && (pos == 0 || !is_ident(bytes[pos - 1])) => {
                let mut cursor = pos + "array".len();
                while cursor < bytes.len() && bytes[cursor].is_ascii_whitespace() {
                    cursor += 1;
                }
                if cursor < bytes.len() && bytes[cursor] == b'<' {
                    cursor += 1;
                    while cursor < bytes.len() && bytes[cursor].is_ascii_whitespace() {
                        cursor += 1;
                    }
                    let start = cursor;
                    if cursor < bytes.len() && bytes[cursor] == b'!' {
                        cursor += 1;
                    }
                    while cursor < bytes.len() && (is_ident(bytes[cursor]) || bytes[cursor] == b'-') {
                        cursor += 1;
                    }
                    if cursor > start {
                        found.push((start, &text[start..cursor]));
                    }
                }
                pos += "array".len();
            }
            _ => pos += 1,
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(text: &str) -> Vec<(usize, usize, String)> {
        let source = Source::new(text).expect("lexes");
        check(&source).into_iter().map(|error| (error.line, error.column, error.message)).collect()
    }

    #[test]
    fn gpu_launch_lists_need_three_ids() {
        let ok = "gpu.launch blocks(%a, %b, %c) in (%x = %1, %y = %1, %z = %1) threads(%d, %e, %f) in (%p = %1, %q = %1, %r = %1) {\n}";
        assert!(messages(ok).is_empty());
        let four = "gpu.launch blocks(%a, %b, %c, %d) in (%x = %1, %y = %1, %z = %1) threads(%t) in (%p = %1) {\n}";
        let found = messages(four);
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].0, found[0].1), (1, 12));
        assert!(found[0].2.contains("'blocks(...)', found 4"), "{}", found[0].2);
        assert!(found[1].2.contains("'threads(...)', found 1"), "{}", found[1].2);
        // The body's own ops are not part of the launch's header.
        assert!(messages("gpu.launch blocks(%a, %b, %c) in (%x = %1, %y = %1, %z = %1) {\n foo.blocks(%q) }").is_empty());
    }

    #[test]
    fn index_dense_arrays_are_rejected() {
        let found = messages("%0 = \"lego.row\"() <{static_dims = array<index: 4>}> : () -> !lego.layout");
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].0, found[0].1), (1, 41));
        assert!(messages("x = array<i64: 4>, y = \"array<index: 4>\"").is_empty());
        assert_eq!(messages("x = array <index: 4>").len(), 1);
        assert_eq!(messages("!i = index\nx = #foo<{a = array<!i>}>").len(), 1);
        assert!(messages("x = bytearray<index>").is_empty());
    }
}
