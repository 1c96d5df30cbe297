//! Output built from an input text by replacing some of its byte ranges, in increasing order, and copying
//! the rest verbatim (comments and whitespace included).

pub(crate) struct Splicer<'a> {
    text: &'a str,
    out: String,
    /// Byte offset up to which the input has been copied or replaced.
    copied: usize,
}

impl<'a> Splicer<'a> {
    pub fn new(text: &'a str) -> Self {
        Self { text, out: String::with_capacity(text.len() + text.len() / 2), copied: 0 }
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
}
