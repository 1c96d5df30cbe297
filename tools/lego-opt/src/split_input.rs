//! `--split-input-file`: cut the input into independently processed chunks, as mlir-opt does.
//!
//! Chunks are separated by lines that consist of the marker `// -----` (trailing whitespace,
//! including a `\r` from CRLF files, allowed). Each chunk remembers where it started so that
//! diagnostics and `expected-*` line numbers refer to the original file, not to the chunk.

/// mlir-opt's default split marker.
pub const SPLIT_MARKER: &str = "// -----";

/// What goes between the outputs of consecutive chunks (mlir-opt's default output marker).
pub const OUTPUT_SEPARATOR: &str = "// -----\n";

/// One piece of a split input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The chunk's text, marker lines excluded, newlines kept as in the input.
    pub text: String,
    /// Line number (1-based) of the chunk's first line in the original file.
    pub first_line: usize,
}

impl Chunk {
    /// The chunk text preceded by `first_line - 1` newlines. Parsing this instead of
    /// [`Chunk::text`] makes MLIR report line numbers of the original file, and columns are
    /// untouched, so no location rewriting is needed afterwards.
    #[cfg(test)]
    pub fn padded_text(&self) -> std::borrow::Cow<'_, str> {
        padded(&self.text, self.first_line)
    }
}

/// `text` preceded by `first_line - 1` newlines (see [`Chunk::padded_text`]); not copied when it starts on
/// line 1 (the whole input, when it is not split: megabytes).
pub fn padded(text: &str, first_line: usize) -> std::borrow::Cow<'_, str> {
    if first_line <= 1 {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut padded = "\n".repeat(first_line - 1);
    padded.push_str(text);
    std::borrow::Cow::Owned(padded)
}

/// Whether `line` (without its `\n`) is a split marker line.
fn is_marker(line: &str) -> bool {
    line.strip_prefix(SPLIT_MARKER)
        .is_some_and(|rest| rest.trim_end().is_empty())
}

/// Splits `text` at marker lines. There is always at least one chunk, and `n` markers give
/// `n + 1` chunks, even when some are empty (mlir-opt processes an empty chunk as an empty
/// module, so a trailing marker still yields a final, empty output).
pub fn split_chunks(text: &str) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut chunk_start = 0;
    let mut chunk_first_line = 1;
    let mut line_start = 0;
    let mut line_number = 1;
    while line_start < text.len() {
        let line_end = text[line_start..]
            .find('\n')
            .map_or(text.len(), |i| line_start + i);
        if is_marker(&text[line_start..line_end]) {
            chunks.push(Chunk {
                text: text[chunk_start..line_start].to_string(),
                first_line: chunk_first_line,
            });
            // The marker's newline belongs to neither chunk; a marker on the last line
            // without a newline leaves an empty final chunk.
            chunk_start = (line_end + 1).min(text.len());
            chunk_first_line = line_number + 1;
        }
        line_start = line_end + 1;
        line_number += 1;
    }
    chunks.push(Chunk {
        text: text[chunk_start..].to_string(),
        first_line: chunk_first_line,
    });
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(text: &str, first_line: usize) -> Chunk {
        Chunk {
            text: text.to_string(),
            first_line,
        }
    }

    #[test]
    fn no_marker_is_one_chunk() {
        assert_eq!(split_chunks(""), vec![chunk("", 1)]);
        let text = "module {\n}\n";
        assert_eq!(split_chunks(text), vec![chunk(text, 1)]);
    }

    #[test]
    fn splits_on_marker_lines_and_tracks_first_lines() {
        let text = "a\nb\n// -----\nc\n// -----  \t\nd\ne";
        assert_eq!(
            split_chunks(text),
            vec![chunk("a\nb\n", 1), chunk("c\n", 4), chunk("d\ne", 6)]
        );
    }

    #[test]
    fn leading_and_trailing_markers_give_empty_chunks() {
        assert_eq!(
            split_chunks("// -----\nx\n// -----\n"),
            vec![chunk("", 1), chunk("x\n", 2), chunk("", 4)]
        );
        assert_eq!(
            split_chunks("x\n// -----"),
            vec![chunk("x\n", 1), chunk("", 3)]
        );
        assert_eq!(
            split_chunks("// -----\n// -----\n"),
            vec![chunk("", 1), chunk("", 2), chunk("", 3)]
        );
    }

    #[test]
    fn crlf_markers_are_recognised() {
        assert_eq!(
            split_chunks("a\r\n// -----\r\nb\r\n"),
            vec![chunk("a\r\n", 1), chunk("b\r\n", 3)]
        );
    }

    #[test]
    fn near_misses_are_not_markers() {
        for text in [
            "  // -----\n",
            "// ----\n",
            "// ------\n",
            "// ----- x\n",
            "//-----\n",
            "x // -----\n",
        ] {
            assert_eq!(split_chunks(text).len(), 1, "{text:?}");
        }
    }

    #[test]
    fn padded_text_restores_original_line_numbers() {
        let text = "a\n// -----\nfunc.func @f()\n";
        let chunks = split_chunks(text);
        assert_eq!(chunks[0].padded_text(), "a\n");
        assert_eq!(chunks[1].padded_text(), "\n\nfunc.func @f()\n");
        let padded = chunks[1].padded_text();
        let line = padded.lines().position(|l| l.starts_with("func.func"));
        assert_eq!(line.map(|i| i + 1), Some(3));
        assert_eq!(text.lines().nth(2), Some("func.func @f()"));
    }

    #[test]
    fn chunks_reassemble_to_the_input() {
        let text = "a\n// -----\nb\n\n// -----\nc";
        let joined = split_chunks(text)
            .iter()
            .map(|c| c.text.as_str())
            .collect::<Vec<_>>()
            .join(OUTPUT_SEPARATOR);
        assert_eq!(joined, text);
    }
}
