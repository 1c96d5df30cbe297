//! Output built from an input text by replacing some of its byte ranges, in increasing order, and copying
//! the rest verbatim (comments and whitespace included).

use super::lexer::LineCounter;

pub(crate) struct Splicer<'a> {
    text: &'a str,
    out: String,
    /// Byte offset up to which the input has been copied or replaced.
    copied: usize,
    /// Lines of `out` ([`Splicer::line_column`]).
    lines: LineCounter,
}

impl<'a> Splicer<'a> {
    pub fn new(text: &'a str) -> Self {
        Self {
            text,
            out: String::with_capacity(text.len() + text.len() / 2),
            copied: 0,
            lines: LineCounter::default(),
        }
    }

    /// Writes at the end of the output, without copying more of the input.
    pub fn append(&mut self, write: impl FnOnce(&mut String)) {
        write(&mut self.out);
    }

    /// Line and one-based byte column of output byte `at`, as MLIR's parser counts them. Asked for offsets that
    /// do not decrease (as the rewriter does), it counts the output once in all.
    pub fn line_column(&mut self, at: usize) -> (usize, usize) {
        let out = self.out.as_bytes();
        self.lines.at(out, at).unwrap_or_else(|| {
            // An earlier offset: count again from the start (from it, every offset is ahead).
            self.lines = LineCounter::default();
            self.lines.at(out, at).unwrap_or((1, at + 1))
        })
    }

    /// Copies the input up to byte `start`, then writes `replacement` in place of `start..end`.
    pub fn replace(&mut self, start: usize, end: usize, replacement: &str) {
        self.replace_with(start, end, |out| out.push_str(replacement));
    }

    /// [`Splicer::replace`] with the replacement written by `write` straight into the output.
    pub fn replace_with(&mut self, start: usize, end: usize, write: impl FnOnce(&mut String)) {
        if let Some(skipped) = self.text.get(self.copied..start) {
            self.out.push_str(skipped);
        }
        write(&mut self.out);
        self.copied = self.copied.max(end);
    }

    pub fn finish(mut self) -> String {
        if let Some(rest) = self.text.get(self.copied..) {
            self.out.push_str(rest);
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::Splicer;

    #[test]
    fn replaces_ranges_and_copies_the_rest() {
        let mut splicer = Splicer::new("a bb c dd e");
        splicer.replace(2, 4, "X");
        splicer.replace(7, 9, "YY");
        assert_eq!(splicer.finish(), "a X c YY e");
    }

    #[test]
    fn line_and_column_of_the_output() {
        let mut splicer = Splicer::new("ab\ncd ef\n");
        splicer.replace(3, 5, "X\nY");
        assert_eq!(splicer.line_column(3), (2, 1)); // X
        assert_eq!(splicer.line_column(5), (3, 1)); // Y
        splicer.append(|out| out.push_str(" Z"));
        assert_eq!(splicer.line_column(7), (3, 3)); // Z
        assert_eq!(splicer.line_column(1), (1, 2)); // back to b: counted again
        assert_eq!(splicer.finish(), "ab\nX\nY Z ef\n");
    }
}
