//! Textual pass pipelines, parsed the way `mlir-opt --pass-pipeline=...` reads them.
//!
//! `lego-opt` runs lego passes itself but hands upstream passes to MLIR as text, one pipeline
//! element at a time. That needs the pipeline as a tree it can walk, which the MLIR C API does
//! not expose, hence this small parser. It is deliberately close to MLIR's
//! `TextualPipeline::parsePipelineText`:
//!
//! ```text
//! pipeline     ::= op-name '(' element-list ')'
//! element-list ::= (element (',' element)*)?
//! element      ::= pass-name ('{' options '}')?
//!                | op-name '(' element-list ')'
//! ```
//!
//! Whitespace may appear between any two tokens. Option text is kept raw (braces excluded) so it
//! can be handed back to MLIR unchanged; [`parse_pass_options`] splits it into key/value pairs for
//! the passes we implement ourselves.
//!
//! Where this parser is stricter than MLIR's (which resolves most oddities only later, when it
//! looks up pass names), it is so to give a precise error location instead of a vague one.
//! No input makes it panic: every failure is a [`PipelineError`] carrying a byte offset.

use std::fmt;

/// Nesting depth beyond which parsing gives up, so hostile input like `a(a(a(...` cannot
/// overflow the stack of the recursive descent. Real pipelines nest three or four levels.
const MAX_NESTING_DEPTH: usize = 128;

/// A pass-pipeline syntax error, positioned at a byte offset of the parsed text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PipelineError {
    /// Byte offset into the text given to the parse function (always on a char boundary,
    /// at most the text's length).
    pub offset: usize,
    /// What went wrong, phrased like MLIR's pass-pipeline parser, without an `error:` prefix.
    pub message: String,
}

impl PipelineError {
    fn new(offset: usize, message: impl Into<String>) -> Self {
        Self {
            offset,
            message: message.into(),
        }
    }

    /// Moves the error by `delta` bytes, for callers that parsed a slice of a larger text
    /// (e.g. the options of one element) and want to point into the larger text.
    #[must_use]
    pub fn shifted(self, delta: usize) -> Self {
        Self {
            offset: self.offset + delta,
            ..self
        }
    }

    /// The line of `text` that contains the error, followed by a caret line under the error
    /// column, ready to print after an `error: ...` line:
    ///
    /// ```text
    /// builtin.module(cse canonicalize)
    ///                    ^
    /// ```
    ///
    /// `text` must be the text that was parsed; an out-of-range offset is clamped rather than
    /// trusted, since the error may have been shifted by a caller.
    pub fn caret_snippet(&self, text: &str) -> String {
        let mut offset = self.offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
        let line = &text[line_start..line_end];
        // Columns are counted in chars so the caret lines up for non-ASCII text too;
        // tabs are copied so terminals expand them the same way on both lines.
        let pad: String = text[line_start..offset]
            .chars()
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        format!("{line}\n{pad}^")
    }
}

/// One pass (or registered pipeline) invocation, e.g. `canonicalize{max-iterations=3}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassElement {
    /// The pass or pipeline name, e.g. `canonicalize` or `lego-to-nvvm`.
    pub name: String,
    /// The raw text between the braces (braces excluded), `None` when there were no braces.
    /// `Some("")` records an explicit `name{}`.
    pub options: Option<String>,
    /// Byte offset of the name in the pipeline text, for error carets.
    pub offset: usize,
}

/// An entry of a pipeline: a pass, or a nested pipeline anchored on an operation name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PipelineElement {
    /// `name` or `name{options}`.
    Pass(PassElement),
    /// `op.name(elements...)`, e.g. `func.func(cse)` or `any(canonicalize)`.
    Nested {
        /// The anchor operation, e.g. `func.func`, `gpu.module` or `any`.
        op_name: String,
        /// The nested pipeline (may be empty, as in MLIR).
        elements: Vec<PipelineElement>,
        /// Byte offset of the op name in the pipeline text.
        offset: usize,
    },
}

impl PipelineElement {
    /// Byte offset of this element's name in the pipeline text.
    pub fn offset(&self) -> usize {
        match self {
            PipelineElement::Pass(pass) => pass.offset,
            PipelineElement::Nested { offset, .. } => *offset,
        }
    }
}

/// A whole pipeline: `anchor(elements...)`, e.g. `builtin.module(cse, func.func(canonicalize))`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipeline {
    /// The outermost operation name, e.g. `builtin.module` (or `any`).
    pub anchor: String,
    /// The top-level elements, in order.
    pub elements: Vec<PipelineElement>,
}

/// Writes elements joined by `,` without spaces, the way MLIR prints pipelines, so the text
/// can be handed straight back to `mlirOpPassManagerAddPipeline` / `mlirParsePassPipeline`.
fn write_elements(f: &mut fmt::Formatter<'_>, elements: &[PipelineElement]) -> fmt::Result {
    for (i, element) in elements.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{element}")?;
    }
    Ok(())
}

impl fmt::Display for PassElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if let Some(options) = &self.options {
            write!(f, "{{{options}}}")?;
        }
        Ok(())
    }
}

impl fmt::Display for PipelineElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PipelineElement::Pass(pass) => write!(f, "{pass}"),
            PipelineElement::Nested {
                op_name, elements, ..
            } => {
                write!(f, "{op_name}(")?;
                write_elements(f, elements)?;
                f.write_str(")")
            }
        }
    }
}

impl fmt::Display for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.anchor)?;
        write_elements(f, &self.elements)?;
        f.write_str(")")
    }
}

/// Parses a full, anchored pipeline such as `builtin.module(a{x=1 y="s t"}, func.func(cse), b)`
/// or `any(canonicalize)`.
///
/// # Errors
///
/// The first syntax error, positioned at a byte offset into `text`: a missing anchor,
/// unbalanced `(`/`)`/`{`, an empty pass name, a missing `,`, an unterminated quoted string,
/// trailing text after the closing `)`, or nesting deeper than any real pipeline.
pub fn parse_pipeline(text: &str) -> Result<Pipeline, PipelineError> {
    const UNANCHORED: &str = "expected pipeline anchored on an operation, e.g. builtin.module(...)";
    let mut parser = Parser::new(text);
    parser.skip_ws();
    let anchor_offset = parser.pos;
    let anchor = parser.take_name();
    parser.skip_ws();
    if anchor.is_empty() || parser.peek() != Some(b'(') {
        return Err(PipelineError::new(anchor_offset, UNANCHORED));
    }
    check_op_name(anchor, anchor_offset)?;
    let open = parser.pos;
    parser.pos += 1;
    let elements = parser.parse_list(Some(open), 1)?;
    parser.skip_ws();
    if !parser.at_end() {
        return Err(PipelineError::new(
            parser.pos,
            "unexpected text after the end of the pipeline",
        ));
    }
    Ok(Pipeline {
        anchor: anchor.to_string(),
        elements,
    })
}

/// Parses the inside of a pipeline, e.g. `a, func.func(b{x=1}), c`; an empty or all-blank text
/// is an empty list.
///
/// # Errors
///
/// As [`parse_pipeline`], without the anchor; a stray `)` is `unbalanced ')'`.
pub fn parse_element_list(text: &str) -> Result<Vec<PipelineElement>, PipelineError> {
    Parser::new(text).parse_list(None, 0)
}

/// Splits pass option text such as `chip=sm_90 features=+ptx80 name="a b" list={1,2} flag`
/// into `(key, value)` pairs, in order, duplicates kept (the pass decides what they mean).
///
/// Options are separated by whitespace and there is no whitespace around `=`, as in MLIR.
/// A bare `flag` yields `("flag", "true")`; `key=` yields an empty value. A value entirely
/// wrapped in `"..."` or `'...'` is unquoted; `{...}` values (lists, nested pipelines) are kept
/// raw, braces included, since only their consumer knows their syntax. Quotes and braces protect
/// whitespace inside a value.
///
/// # Errors
///
/// An empty or malformed option name, an unterminated quoted string or an unbalanced `{`,
/// positioned at a byte offset into `text`.
pub fn parse_pass_options(text: &str) -> Result<Vec<(String, String)>, PipelineError> {
    let bytes = text.as_bytes();
    let mut options = Vec::new();
    let mut pos = 0;
    loop {
        while pos < bytes.len() && bytes[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if pos == bytes.len() {
            return Ok(options);
        }
        let key_start = pos;
        while pos < bytes.len() && is_name_byte(bytes[pos]) {
            pos += 1;
        }
        let key = &text[key_start..pos];
        if key.is_empty() {
            let message = match bytes[pos] {
                b'=' => "expected option name before '='".to_string(),
                _ => format!("unexpected {} in option name", describe_char(text, pos)),
            };
            return Err(PipelineError::new(pos, message));
        }
        if pos == bytes.len() || bytes[pos].is_ascii_whitespace() {
            options.push((key.to_string(), "true".to_string()));
            continue;
        }
        if bytes[pos] != b'=' {
            return Err(PipelineError::new(
                pos,
                format!(
                    "unexpected {} in option name '{key}'",
                    describe_char(text, pos)
                ),
            ));
        }
        pos += 1;
        let value_start = pos;
        while pos < bytes.len() && !bytes[pos].is_ascii_whitespace() {
            pos = match bytes[pos] {
                b'"' | b'\'' => skip_quoted(text, pos)?,
                b'{' => skip_braced(text, pos)?,
                _ => pos + 1,
            };
        }
        options.push((
            key.to_string(),
            unquote(&text[value_start..pos]).to_string(),
        ));
    }
}

/// Strips one pair of matching quotes wrapping the whole value; anything else is kept as is.
fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if value.len() >= 2 && value.starts_with(quote) && value.ends_with(quote) {
            // `"a"b"` is not one quoted string: only unquote when the opening quote's
            // match is the last character.
            let inner = &value[1..value.len() - 1];
            if !inner.contains(quote) {
                return inner;
            }
        }
    }
    value
}

/// Pass and op names: `[A-Za-z0-9_.-]+`.
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

/// Describes the character at `pos` for an error message (`'x'`, or `end of text`).
fn describe_char(text: &str, pos: usize) -> String {
    match text.get(pos..).and_then(|rest| rest.chars().next()) {
        Some(c) => format!("'{c}'"),
        None => "end of text".to_string(),
    }
}

/// Given `text[open]` is a quote, returns the offset just past its closing quote. No escapes,
/// as in MLIR. Because quotes are ASCII, the returned offset is always a char boundary.
fn skip_quoted(text: &str, open: usize) -> Result<usize, PipelineError> {
    let quote = text.as_bytes()[open];
    match text.as_bytes()[open + 1..].iter().position(|&b| b == quote) {
        Some(len) => Ok(open + 1 + len + 1),
        None => Err(PipelineError::new(open, "unterminated quoted string")),
    }
}

/// Given `text[open]` is `{`, returns the offset just past its matching `}`, honouring nested
/// braces and quoted strings (which may contain `}`, `,` or `)`).
fn skip_braced(text: &str, open: usize) -> Result<usize, PipelineError> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut pos = open;
    while pos < bytes.len() {
        match bytes[pos] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(pos + 1);
                }
            }
            b'"' | b'\'' => {
                pos = skip_quoted(text, pos)?;
                continue;
            }
            _ => {}
        }
        pos += 1;
    }
    Err(PipelineError::new(open, "unbalanced '{'"))
}

/// Nested pipelines are anchored on operation names: dot-separated identifiers such as
/// `func.func`, `gpu.module` or `any`. Pass names allow more (`-`, leading digits), so a stray
/// `(` after a pass name is caught here rather than silently becoming an anchor.
fn check_op_name(name: &str, offset: usize) -> Result<(), PipelineError> {
    let valid = name.split('.').all(|segment| {
        let mut chars = segment.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    if valid {
        Ok(())
    } else {
        Err(PipelineError::new(
            offset,
            format!("'{name}' is not a valid operation name to nest a pipeline on"),
        ))
    }
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Self { text, pos: 0 }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn take_name(&mut self) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(is_name_byte) {
            self.pos += 1;
        }
        &self.text[start..self.pos]
    }

    /// Parses a comma-separated element list. `open` is the offset of the `(` that opened it,
    /// `None` at top level; a nested list consumes its closing `)`, the top level runs to the
    /// end of the text.
    fn parse_list(
        &mut self,
        open: Option<usize>,
        depth: usize,
    ) -> Result<Vec<PipelineElement>, PipelineError> {
        if depth > MAX_NESTING_DEPTH {
            return Err(PipelineError::new(
                open.unwrap_or(self.pos),
                "pipeline is nested too deeply",
            ));
        }
        let mut elements = Vec::new();
        self.skip_ws();
        // An empty list is fine (`func.func()` is an empty nested pass manager in MLIR).
        if self.list_ends(open)? {
            return Ok(elements);
        }
        loop {
            elements.push(self.parse_element(depth)?);
            self.skip_ws();
            if self.list_ends(open)? {
                return Ok(elements);
            }
            if self.peek() != Some(b',') {
                let expected = if open.is_some() {
                    "expected ',' or ')'"
                } else {
                    "expected ','"
                };
                return Err(PipelineError::new(self.pos, expected));
            }
            self.pos += 1;
            self.skip_ws();
        }
    }

    /// Whether the current list ends here (consuming the `)` of a nested list).
    fn list_ends(&mut self, open: Option<usize>) -> Result<bool, PipelineError> {
        match (self.peek(), open) {
            (None, None) => Ok(true),
            (None, Some(open)) => Err(PipelineError::new(open, "unbalanced '('")),
            (Some(b')'), Some(_)) => {
                self.pos += 1;
                Ok(true)
            }
            (Some(b')'), None) => Err(PipelineError::new(self.pos, "unbalanced ')'")),
            _ => Ok(false),
        }
    }

    fn parse_element(&mut self, depth: usize) -> Result<PipelineElement, PipelineError> {
        let offset = self.pos;
        let name = self.take_name();
        if name.is_empty() {
            let message = match self.peek() {
                None | Some(b',' | b')' | b'(' | b'{') => "empty pass name".to_string(),
                Some(_) => format!(
                    "expected pass name, found {}",
                    describe_char(self.text, self.pos)
                ),
            };
            return Err(PipelineError::new(offset, message));
        }
        self.skip_ws();
        match self.peek() {
            Some(b'{') => {
                let open = self.pos;
                let close = skip_braced(self.text, open)?;
                self.pos = close;
                self.skip_ws();
                // MLIR would accept `name{...}(...)` here and fail later in a confusing way.
                if self.peek() == Some(b'(') {
                    return Err(PipelineError::new(
                        self.pos,
                        format!("unexpected '(' after the options of '{name}'"),
                    ));
                }
                Ok(PipelineElement::Pass(PassElement {
                    name: name.to_string(),
                    options: Some(self.text[open + 1..close - 1].to_string()),
                    offset,
                }))
            }
            Some(b'(') => {
                check_op_name(name, offset)?;
                let open = self.pos;
                self.pos += 1;
                let elements = self.parse_list(Some(open), depth + 1)?;
                Ok(PipelineElement::Nested {
                    op_name: name.to_string(),
                    elements,
                    offset,
                })
            }
            _ => Ok(PipelineElement::Pass(PassElement {
                name: name.to_string(),
                options: None,
                offset,
            })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pass(name: &str, options: Option<&str>, offset: usize) -> PipelineElement {
        PipelineElement::Pass(PassElement {
            name: name.to_string(),
            options: options.map(str::to_string),
            offset,
        })
    }

    fn err(text: &str) -> PipelineError {
        match parse_pipeline(text) {
            Ok(p) => panic!("expected an error for {text:?}, got {p:?}"),
            Err(e) => e,
        }
    }

    fn list_err(text: &str) -> PipelineError {
        match parse_element_list(text) {
            Ok(p) => panic!("expected an error for {text:?}, got {p:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn parses_the_example_pipeline() {
        let text = r#"builtin.module(a{x=1 y="s t"}, func.func(cse), b)"#;
        let p = parse_pipeline(text).unwrap();
        assert_eq!(p.anchor, "builtin.module");
        assert_eq!(
            p.elements,
            vec![
                pass("a", Some(r#"x=1 y="s t""#), 15),
                PipelineElement::Nested {
                    op_name: "func.func".into(),
                    elements: vec![pass("cse", None, 41)],
                    offset: 31,
                },
                pass("b", None, 47),
            ]
        );
        assert_eq!(
            p.to_string(),
            r#"builtin.module(a{x=1 y="s t"},func.func(cse),b)"#
        );
    }

    #[test]
    fn offsets_point_at_names() {
        let text = " builtin.module ( cse ,\n  gpu.module( gpu.func ( canonicalize{ } ) ) ) ";
        let p = parse_pipeline(text).unwrap();
        let PipelineElement::Nested {
            elements, offset, ..
        } = &p.elements[1]
        else {
            panic!("expected nesting: {p:?}");
        };
        assert_eq!(&text[*offset..*offset + 10], "gpu.module");
        assert_eq!(&text[p.elements[0].offset()..][..3], "cse");
        let PipelineElement::Nested {
            elements: inner, ..
        } = &elements[0]
        else {
            panic!("expected nesting: {p:?}");
        };
        assert_eq!(&text[inner[0].offset()..][..12], "canonicalize");
        assert_eq!(inner[0], pass("canonicalize", Some(" "), inner[0].offset()));
        assert_eq!(
            p.to_string(),
            "builtin.module(cse,gpu.module(gpu.func(canonicalize{ })))"
        );
    }

    #[test]
    fn any_anchor_and_empty_lists() {
        let p = parse_pipeline("any(canonicalize)").unwrap();
        assert_eq!(p.anchor, "any");
        assert_eq!(p.elements, vec![pass("canonicalize", None, 4)]);
        assert!(parse_pipeline("builtin.module()")
            .unwrap()
            .elements
            .is_empty());
        assert!(parse_pipeline("builtin.module(  )")
            .unwrap()
            .elements
            .is_empty());
        let p = parse_pipeline("builtin.module(func.func())").unwrap();
        assert_eq!(p.to_string(), "builtin.module(func.func())");
        assert_eq!(parse_element_list("").unwrap(), vec![]);
        assert_eq!(parse_element_list(" \n\t").unwrap(), vec![]);
    }

    #[test]
    fn element_lists() {
        let elements = parse_element_list("a, func.func(b{x=1}), c").unwrap();
        let text: Vec<String> = elements.iter().map(ToString::to_string).collect();
        assert_eq!(text, ["a", "func.func(b{x=1})", "c"]);
        assert_eq!(elements[2].offset(), 22);
    }

    #[test]
    fn options_may_contain_punctuation_in_quotes_and_nested_braces() {
        let elements = parse_element_list(r#"p{s="a,b)c}d" t='x}' l={1,{2}} q=")"}, q"#).unwrap();
        assert_eq!(
            elements[0],
            pass("p", Some(r#"s="a,b)c}d" t='x}' l={1,{2}} q=")""#), 0)
        );
        assert_eq!(elements[1], pass("q", None, 39));
        // A nested pipeline as an option value, the way MLIR passes take pipelines.
        let elements =
            parse_element_list("inline{default-pipeline=canonicalize op-pipelines=func.func(cse)}")
                .unwrap();
        assert_eq!(
            elements[0].to_string(),
            "inline{default-pipeline=canonicalize op-pipelines=func.func(cse)}"
        );
    }

    #[test]
    fn display_round_trips() {
        for text in [
            "builtin.module(canonicalize{max-iterations=3},func.func(cse),lego-lower)",
            "any(a{},b{x={1,2}},gpu.module(gpu.func(c)))",
        ] {
            assert_eq!(parse_pipeline(text).unwrap().to_string(), text);
        }
        let p = parse_pipeline("builtin.module(canonicalize{max-iterations=3})").unwrap();
        assert_eq!(p.elements[0].to_string(), "canonicalize{max-iterations=3}");
    }

    #[test]
    fn anchor_errors() {
        const MSG: &str = "expected pipeline anchored on an operation, e.g. builtin.module(...)";
        for text in [
            "",
            "  ",
            "cse",
            "cse, canonicalize",
            "cse{x=1}",
            "(cse)",
            "  {x}",
        ] {
            assert_eq!(err(text).message, MSG, "{text:?}");
        }
        assert_eq!(err("  cse").offset, 2);
        let e = err("builtin.module(cse) x");
        assert_eq!(
            (e.offset, e.message.as_str()),
            (20, "unexpected text after the end of the pipeline")
        );
        let e = err("builtin.module(cse))");
        assert_eq!(e.offset, 19);
        let e = err("lego-lower(cse)");
        assert_eq!(e.offset, 0);
        assert!(e.message.contains("not a valid operation name"), "{e}");
    }

    #[test]
    fn list_errors() {
        let e = err("builtin.module(cse canonicalize)");
        assert_eq!((e.offset, e.message.as_str()), (19, "expected ',' or ')'"));
        let e = err("builtin.module(cse,,b)");
        assert_eq!((e.offset, e.message.as_str()), (19, "empty pass name"));
        let e = err("builtin.module(cse,)");
        assert_eq!((e.offset, e.message.as_str()), (19, "empty pass name"));
        let e = err("builtin.module(,cse)");
        assert_eq!((e.offset, e.message.as_str()), (15, "empty pass name"));
        let e = err("builtin.module({x=1})");
        assert_eq!((e.offset, e.message.as_str()), (15, "empty pass name"));
        let e = err("builtin.module(func.func(cse)");
        assert_eq!((e.offset, e.message.as_str()), (14, "unbalanced '('"));
        let e = err("builtin.module(func.func(cse)");
        assert_eq!(e.offset, 14);
        let e = err("builtin.module(cse{x=1)");
        assert_eq!((e.offset, e.message.as_str()), (18, "unbalanced '{'"));
        let e = err(r#"builtin.module(cse{x="1})"#);
        assert_eq!(
            (e.offset, e.message.as_str()),
            (21, "unterminated quoted string")
        );
        let e = err("builtin.module(cse !)");
        assert_eq!(e.message, "expected ',' or ')'");
        let e = err("builtin.module(!)");
        assert_eq!(
            (e.offset, e.message.as_str()),
            (15, "expected pass name, found '!'")
        );
        let e = err("builtin.module(a{x}(b))");
        assert_eq!(e.offset, 19);
        let e = err("builtin.module(func..func(cse))");
        assert!(e.message.contains("'func..func'"), "{e}");

        let e = list_err("a, b)");
        assert_eq!((e.offset, e.message.as_str()), (4, "unbalanced ')'"));
        let e = list_err(")");
        assert_eq!((e.offset, e.message.as_str()), (0, "unbalanced ')'"));
        let e = list_err("a b");
        assert_eq!((e.offset, e.message.as_str()), (2, "expected ','"));
        let e = list_err("a,");
        assert_eq!((e.offset, e.message.as_str()), (2, "empty pass name"));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let text = format!(
            "builtin.module({}cse{})",
            "a(".repeat(100_000),
            ")".repeat(100_000)
        );
        let e = err(&text);
        assert_eq!(e.message, "pipeline is nested too deeply");
        let ok = format!("builtin.module({}cse{})", "a(".repeat(50), ")".repeat(50));
        assert!(parse_pipeline(&ok).is_ok());
    }

    #[test]
    fn caret_snippet_points_at_the_offset() {
        let text = "builtin.module(cse canonicalize)";
        let e = err(text);
        assert_eq!(
            e.caret_snippet(text),
            "builtin.module(cse canonicalize)\n                   ^"
        );
        let text = "any(\n  a{é} b)";
        let e = err(text);
        assert_eq!(e.caret_snippet(text), "  a{é} b)\n       ^");
        // Clamped, never panics.
        assert_eq!(PipelineError::new(99, "x").caret_snippet("ab"), "ab\n  ^");
        assert_eq!(PipelineError::new(1, "x").caret_snippet("é"), "é\n^");
        assert_eq!(e.clone().shifted(3).offset, e.offset + 3);
    }

    #[test]
    fn pass_options() {
        let opts =
            parse_pass_options(r#"chip=sm_90 features=+ptx80 name="a b" list={1,2} flag"#).unwrap();
        let expect = [
            ("chip", "sm_90"),
            ("features", "+ptx80"),
            ("name", "a b"),
            ("list", "{1,2}"),
            ("flag", "true"),
        ];
        let expect: Vec<(String, String)> = expect
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(opts, expect);

        let opts =
            parse_pass_options("  a=  b='x y'\tc={p{q=\"}\"} r} d= e=\"\" f=\"x\"y ").unwrap();
        let pairs: Vec<(&str, &str)> = opts.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(
            pairs,
            [
                ("a", ""),
                ("b", "x y"),
                ("c", "{p{q=\"}\"} r}"),
                ("d", ""),
                ("e", ""),
                ("f", "\"x\"y"),
            ]
        );
        assert_eq!(parse_pass_options("").unwrap(), vec![]);
        assert_eq!(parse_pass_options(" \n ").unwrap(), vec![]);
        // Duplicates are kept, in order.
        assert_eq!(parse_pass_options("x=1 x=2").unwrap().len(), 2);
    }

    #[test]
    fn pass_option_errors() {
        let e = parse_pass_options("a=1 =2").unwrap_err();
        assert_eq!(
            (e.offset, e.message.as_str()),
            (4, "expected option name before '='")
        );
        let e = parse_pass_options("a =2").unwrap_err();
        assert_eq!(e.offset, 2);
        let e = parse_pass_options(r#"a="x"#).unwrap_err();
        assert_eq!(
            (e.offset, e.message.as_str()),
            (2, "unterminated quoted string")
        );
        let e = parse_pass_options("a={1,2").unwrap_err();
        assert_eq!((e.offset, e.message.as_str()), (2, "unbalanced '{'"));
        let e = parse_pass_options("a\"b=1").unwrap_err();
        assert_eq!(e.offset, 1);
        let e = parse_pass_options("é=1").unwrap_err();
        assert_eq!(
            (e.offset, e.message.as_str()),
            (0, "unexpected 'é' in option name")
        );
    }

    /// Tiny deterministic generator so the fuzz test needs no extra dependency.
    fn lcg(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *state >> 33
    }

    fn check_never_panics(text: &str) {
        let check_offset = |e: &PipelineError| {
            assert!(
                e.offset <= text.len() && text.is_char_boundary(e.offset),
                "{text:?}: {e:?}"
            );
            let _ = e.caret_snippet(text);
        };
        match parse_pipeline(text) {
            Ok(p) => {
                // Whatever we accept must print back to something we accept identically.
                let printed = p.to_string();
                let reparsed = parse_pipeline(&printed).unwrap();
                assert_eq!(reparsed.to_string(), printed);
            }
            Err(e) => check_offset(&e),
        }
        if let Err(e) = parse_element_list(text) {
            check_offset(&e);
        }
        if let Err(e) = parse_pass_options(text) {
            check_offset(&e);
        }
    }

    #[test]
    fn truncations_and_garbage_never_panic() {
        let seeds = [
            r#"builtin.module(a{x=1 y="s t"}, func.func(cse{l={1,'}'}}), b)"#,
            "any( gpu.module(gpu.func(x)) ,\n é{ü=\"ö\"} )",
        ];
        for seed in seeds {
            for (i, _) in seed.char_indices() {
                check_never_panics(&seed[..i]);
                check_never_panics(&seed[i..]);
            }
        }
        let alphabet: Vec<char> = "ab.-_( ){}\"',=é\n".chars().collect();
        let mut state = 42;
        for _ in 0..20_000 {
            let len = (lcg(&mut state) % 24) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[(lcg(&mut state) % alphabet.len() as u64) as usize])
                .collect();
            check_never_panics(&text);
        }
    }
}
