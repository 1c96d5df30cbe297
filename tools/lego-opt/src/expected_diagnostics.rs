//! `--verify-diagnostics`: match the diagnostics a run produced against the `expected-*`
//! annotations in the input, following mlir-opt's `SourceMgrDiagnosticVerifierHandler`.
//!
//! An annotation looks like
//!
//! ```text
//! // expected-error @+1 {{'lego.apply' op Dimension {{-?[0-9]+}} must be}}
//! ```
//!
//! * kinds: `expected-error`, `expected-warning`, `expected-note`, `expected-remark`;
//! * an optional designator: `@+N` / `@-N` (relative to the annotation's line), `@above` (the
//!   closest line above that carries no annotation), `@below` (the closest such line below) or
//!   `@unknown` (a diagnostic without a file location); without one, the annotation's own line;
//! * a body between `{{` and `}}` that must occur as a *substring* of the diagnostic message;
//!   inside it, `{{...}}` segments are regular expressions and the rest is literal text.
//!
//! `@above`/`@below` skip annotation lines exactly as in MLIR, so a stack of
//! `// expected-note @below` / `// expected-error @below` comments all target the first code line
//! after them. Unlike MLIR, several annotations may share a line (each body ends at the first
//! `}}` outside a regex segment). As in MLIR, one annotation absorbs *every* diagnostic of its
//! kind on its line whose message it matches (a pass that reports the same thing twice on one op
//! needs one annotation); a diagnostic prefers an annotation nothing matched yet, so stacking one
//! annotation per diagnostic also works. An annotation that matches nothing still fails.

use regex::Regex;
use std::fmt;

/// Diagnostic severities, named as in `expected-<severity>` and in MLIR's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
    Remark,
}

impl Severity {
    const ALL: [Severity; 4] = [
        Severity::Error,
        Severity::Warning,
        Severity::Note,
        Severity::Remark,
    ];

    /// The lower-case name used in `expected-<name>` and in diagnostics (`error`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Remark => "remark",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One `expected-*` annotation.
#[derive(Debug, Clone)]
pub struct Expectation {
    pub severity: Severity,
    /// The line (1-based, in the original file) the diagnostic must be reported on.
    /// 0 for `@unknown` annotations, which match only diagnostics without a location.
    pub line: usize,
    /// The body as written between the outer `{{` `}}`, regex segments included.
    pub pattern: String,
    /// Where the annotation's `expected-` starts: 1-based line in the original file and
    /// 1-based byte column, for "was not produced" messages.
    pub decl_line: usize,
    pub decl_col: usize,
    matched: bool,
    unknown_location: bool,
    /// Compiled only when the body has `{{regex}}` segments; plain bodies use `contains`, which
    /// keeps them exact no matter what regex metacharacters they contain.
    regex: Option<Regex>,
}

impl Expectation {
    /// Whether `message` contains a match of the body.
    pub fn matches_message(&self, message: &str) -> bool {
        match &self.regex {
            Some(regex) => regex.is_match(message),
            None => message.contains(&self.pattern),
        }
    }
}

/// A diagnostic as the driver saw it, with its location already decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportedDiagnostic {
    pub severity: Severity,
    /// The file of the location; `None` means the input file itself.
    pub file: Option<String>,
    /// 1-based line; `None` for diagnostics without a file location.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    pub message: String,
}

/// Where an annotation points, as written; `@above`/`@below` depend on the lines around it.
enum Target {
    Line(usize),
    Above,
    Below,
    Unknown,
}

/// Bytes that can continue an identifier such as `unexpected-error` or `expected-errors`, so
/// that those are not taken for annotations.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Reads the annotations of `text`, whose first line is line `first_line` (1-based) of the
/// original file (not 1 for `--split-input-file` chunks).
///
/// Malformed annotations (a bad designator, a missing `{{` or `}}`, an invalid regex) are
/// reported as `LINE:COL: error: MESSAGE` strings, positions in the original file, for the
/// caller to prefix with the file name. Text that merely mentions `expected-error` without a
/// designator or `{` after it is not an annotation and is ignored, as in MLIR.
///
/// # Errors
///
/// Every malformed annotation of the text, in order, when there is at least one.
pub fn parse_expectations(text: &str, first_line: usize) -> Result<Vec<Expectation>, Vec<String>> {
    let first_line = first_line.max(1);
    let mut expectations: Vec<Expectation> = Vec::new();
    let mut errors = Vec::new();
    let mut last_plain_line = None;
    // Indices of `@below` annotations waiting for the next line without annotations.
    let mut pending_below: Vec<usize> = Vec::new();
    let mut line_number = first_line;
    for line in text.split('\n') {
        let mut found_any = false;
        for parsed in parse_line(line, line_number) {
            found_any = true;
            let (mut expectation, target) = match parsed {
                Ok(parsed) => parsed,
                Err(message) => {
                    errors.push(message);
                    continue;
                }
            };
            match target {
                Target::Line(line) => expectation.line = line,
                Target::Unknown => expectation.unknown_location = true,
                Target::Below => pending_below.push(expectations.len()),
                // Annotation lines never become `last_plain_line`, so every `@above` of a
                // stack of annotation lines targets the same code line.
                Target::Above => match last_plain_line {
                    Some(line) => expectation.line = line,
                    None => {
                        errors.push(format!(
                            "{}:{}: error: '@above' designator of expected-{} has no line \
                             without annotations above it",
                            expectation.decl_line, expectation.decl_col, expectation.severity
                        ));
                        continue;
                    }
                },
            }
            expectations.push(expectation);
        }
        if !found_any {
            for index in pending_below.drain(..) {
                expectations[index].line = line_number;
            }
            last_plain_line = Some(line_number);
        }
        line_number = line_number.saturating_add(1);
    }
    // A dangling `@below` points past the end of the text, so it can only be reported as
    // "not produced" rather than silently matching something.
    for index in pending_below {
        expectations[index].line = line_number;
    }
    if errors.is_empty() {
        Ok(expectations)
    } else {
        Err(errors)
    }
}

type ParsedAnnotation = Result<(Expectation, Target), String>;

/// Finds every annotation on one line (without its `\n`).
fn parse_line(line: &str, line_number: usize) -> Vec<ParsedAnnotation> {
    let mut found = Vec::new();
    let mut search_from = 0;
    while let Some(rel) = line[search_from..].find("expected-") {
        let start = search_from + rel;
        search_from = start + "expected-".len();
        if start > 0 && is_word_byte(line.as_bytes()[start - 1]) {
            continue;
        }
        let rest = &line[search_from..];
        let Some(severity) = Severity::ALL
            .into_iter()
            .find(|s| rest.starts_with(s.as_str()))
        else {
            continue;
        };
        let after_kind = search_from + severity.as_str().len();
        let col = start + 1;
        let error = |col: usize, message: String| format!("{line_number}:{col}: error: {message}");
        if line[after_kind..].starts_with("-re")
            && !line
                .as_bytes()
                .get(after_kind + 3)
                .copied()
                .is_some_and(is_word_byte)
        {
            found.push(Err(error(
                col,
                format!(
                    "'expected-{severity}-re' is not supported; put regular expressions in \
                     {{{{...}}}} segments of an expected-{severity} message"
                ),
            )));
            search_from = after_kind;
            continue;
        }
        if line
            .as_bytes()
            .get(after_kind)
            .copied()
            .is_some_and(is_word_byte)
        {
            continue;
        }
        match parse_annotation(line, after_kind, line_number, severity, col) {
            Ok(None) => search_from = after_kind,
            Ok(Some((expectation, target, end))) => {
                found.push(Ok((expectation, target)));
                search_from = end;
            }
            Err((err_col, message)) => {
                found.push(Err(error(err_col, message)));
                // Nothing after a malformed annotation can be trusted on this line.
                break;
            }
        }
    }
    found
}

/// Parses the designator and body after `expected-<severity>` (which ends at byte `pos`).
/// `Ok(None)` means this is prose, not an annotation. On success, also returns the byte offset
/// just past the closing `}}`. Errors carry a 1-based column and a message.
#[allow(clippy::type_complexity)]
fn parse_annotation(
    line: &str,
    mut pos: usize,
    line_number: usize,
    severity: Severity,
    col: usize,
) -> Result<Option<(Expectation, Target, usize)>, (usize, String)> {
    let bytes = line.as_bytes();
    let skip_blanks = |mut pos: usize| {
        while bytes.get(pos).is_some_and(|&b| b == b' ' || b == b'\t') {
            pos += 1;
        }
        pos
    };
    pos = skip_blanks(pos);
    let mut target = Target::Line(line_number);
    let mut has_designator = false;
    if bytes.get(pos) == Some(&b'@') {
        has_designator = true;
        let designator_start = pos;
        pos += 1;
        let word_end = pos
            + bytes[pos..]
                .iter()
                .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-')
                .count();
        let word = &line[pos..word_end];
        let bad = |why: &str| {
            (
                designator_start + 1,
                format!("invalid designator '@{word}' for expected-{severity}{why}; expected @+N, @-N, @above, @below or @unknown"),
            )
        };
        target = match word {
            "above" => Target::Above,
            "below" => Target::Below,
            "unknown" => Target::Unknown,
            _ => {
                let (sign, digits) = word.split_at(word.len().min(1));
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad(""));
                }
                let offset: usize = digits.parse().map_err(|_| bad(" (offset too large)"))?;
                let line = match sign {
                    "+" => line_number.checked_add(offset),
                    "-" => line_number.checked_sub(offset).filter(|&l| l >= 1),
                    _ => return Err(bad("")),
                };
                Target::Line(line.ok_or_else(|| bad(" (points outside the file)"))?)
            }
        };
        pos = skip_blanks(word_end);
    }
    if !line[pos..].starts_with("{{") {
        if has_designator || bytes.get(pos) == Some(&b'{') {
            return Err((
                pos + 1,
                format!("expected '{{{{' to begin the expected-{severity} message"),
            ));
        }
        return Ok(None);
    }
    let body_start = pos + 2;
    let (body_end, regex_source) = scan_body(line, body_start, severity)?;
    let pattern = line[body_start..body_end].to_string();
    let regex = match regex_source {
        None => None,
        Some(source) => Some(Regex::new(&source).map_err(|err| {
            // regex's syntax errors span several lines (pattern, caret, message); the last
            // one says what is wrong, which is enough next to the annotation's position.
            let why = err.to_string();
            let why = why.lines().last().unwrap_or_default();
            let why = why.strip_prefix("error: ").unwrap_or(why).to_string();
            (
                body_start + 1,
                format!("invalid regex in expected-{severity} message '{pattern}': {why}"),
            )
        })?),
    };
    let expectation = Expectation {
        severity,
        line: 0,
        pattern,
        decl_line: line_number,
        decl_col: col,
        matched: false,
        unknown_location: false,
        regex,
    };
    Ok(Some((expectation, target, body_end + 2)))
}

/// Scans a body starting at `start` (just past `{{`). Returns the offset of the closing `}}`
/// and, when the body has `{{regex}}` segments, the regex source matching it (literal parts
/// escaped, regex parts grouped so alternations stay inside their segment).
fn scan_body(
    line: &str,
    start: usize,
    severity: Severity,
) -> Result<(usize, Option<String>), (usize, String)> {
    let mut pos = start;
    let mut source = String::new();
    let mut has_regex = false;
    loop {
        let rest = &line[pos..];
        let close = rest.find("}}");
        // A `{{` before the next `}}` (or with no `}}` at all) opens a regex segment;
        // otherwise that `}}` ends the body.
        let regex_open = match (rest.find("{{"), close) {
            (Some(open), Some(close)) if close < open => None,
            (open, _) => open,
        };
        if let Some(open) = regex_open {
            source.push_str(&regex::escape(&rest[..open]));
            let regex_start = pos + open + 2;
            let Some(regex_len) = line[regex_start..].find("}}") else {
                return Err((
                    pos + open + 1,
                    "found start of regex with no end '}}'".to_string(),
                ));
            };
            source.push_str("(?:");
            source.push_str(&line[regex_start..regex_start + regex_len]);
            source.push(')');
            has_regex = true;
            pos = regex_start + regex_len + 2;
            continue;
        }
        let Some(close) = close else {
            return Err((
                start - 1,
                format!("expected '}}}}' to end the expected-{severity} message"),
            ));
        };
        source.push_str(&regex::escape(&rest[..close]));
        return Ok((pos + close, has_regex.then_some(source)));
    }
}

/// Matches `reported` (in emission order) against `expectations` and returns mlir-opt style
/// failure messages, empty when every diagnostic was expected and every expectation produced.
///
/// A diagnostic is absorbed by an expectation of the same severity on its line whose body
/// matches — the first one not matched yet, else the first one at all (as mlir-opt does, one
/// expectation absorbs every such diagnostic); diagnostics without a line can only match `@unknown` expectations, and those
/// located in another file than `file_name` match nothing. An unmatched diagnostic yields
/// `FILE:LINE:COL: error: unexpected SEVERITY: MESSAGE`, or, when an expectation of another
/// severity on that line matches its message, MLIR's near-miss message at that expectation.
/// Expectations left unmatched then yield `FILE:LINE:COL: error: expected SEVERITY "PATTERN"
/// was not produced` at the annotation. Matches are recorded in `expectations`, so a second
/// call only reports what is still missing.
pub fn check(
    expectations: &mut [Expectation],
    reported: &[ReportedDiagnostic],
    file_name: &str,
) -> Vec<String> {
    let mut failures = Vec::new();
    for diagnostic in reported {
        let in_input = diagnostic.file.as_deref().unwrap_or(file_name) == file_name;
        let applies = |e: &Expectation| match diagnostic.line {
            None => e.unknown_location,
            Some(line) => in_input && !e.unknown_location && e.line == line,
        };
        let candidate = |e: &Expectation| applies(e) && e.matches_message(&diagnostic.message);
        let same_kind = |e: &Expectation| e.severity == diagnostic.severity && candidate(e);
        let absorbing = expectations
            .iter()
            .position(|e| !e.matched && same_kind(e))
            .or_else(|| expectations.iter().position(|e| same_kind(e)));
        if let Some(index) = absorbing {
            expectations[index].matched = true;
            continue;
        }
        if let Some(near_miss) = expectations.iter().find(|e| candidate(e)) {
            failures.push(format!(
                "{file_name}:{}:{}: error: '{}' diagnostic emitted when expecting a '{}'",
                near_miss.decl_line, near_miss.decl_col, diagnostic.severity, near_miss.severity
            ));
            continue;
        }
        let location = match (diagnostic.line, diagnostic.column) {
            (None, _) => String::new(),
            (Some(line), column) => {
                let file = diagnostic.file.as_deref().unwrap_or(file_name);
                match column {
                    Some(column) => format!("{file}:{line}:{column}: "),
                    None => format!("{file}:{line}: "),
                }
            }
        };
        failures.push(format!(
            "{location}error: unexpected {}: {}",
            diagnostic.severity, diagnostic.message
        ));
    }
    for expectation in expectations.iter().filter(|e| !e.matched) {
        failures.push(format!(
            "{file_name}:{}:{}: error: expected {} \"{}\" was not produced",
            expectation.decl_line, expectation.decl_col, expectation.severity, expectation.pattern
        ));
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<Expectation> {
        match parse_expectations(text, 1) {
            Ok(expectations) => expectations,
            Err(errors) => panic!("unexpected parse errors: {errors:?}"),
        }
    }

    fn parse_errors(text: &str) -> Vec<String> {
        match parse_expectations(text, 1) {
            Ok(expectations) => panic!("expected parse errors, got {expectations:?}"),
            Err(errors) => errors,
        }
    }

    fn summary(expectations: &[Expectation]) -> Vec<(Severity, usize, &str, usize, usize)> {
        expectations
            .iter()
            .map(|e| {
                (
                    e.severity,
                    e.line,
                    e.pattern.as_str(),
                    e.decl_line,
                    e.decl_col,
                )
            })
            .collect()
    }

    fn diag(severity: Severity, line: usize, column: usize, message: &str) -> ReportedDiagnostic {
        ReportedDiagnostic {
            severity,
            file: Some("t.mlir".to_string()),
            line: Some(line),
            column: Some(column),
            message: message.to_string(),
        }
    }

    fn unlocated(severity: Severity, message: &str) -> ReportedDiagnostic {
        ReportedDiagnostic {
            severity,
            file: None,
            line: None,
            column: None,
            message: message.to_string(),
        }
    }

    #[test]
    fn parses_kinds_and_positions() {
        let text = "\
func.func @f() // expected-error {{bad op}}
// expected-warning @+1 {{w}}
x
  // expected-note@-2{{n}} expected-remark {{r}}
";
        use Severity::*;
        assert_eq!(
            summary(&parse(text)),
            vec![
                (Error, 1, "bad op", 1, 19),
                (Warning, 3, "w", 2, 4),
                (Note, 2, "n", 4, 6),
                (Remark, 4, "r", 4, 28),
            ]
        );
    }

    #[test]
    fn first_line_offsets_everything() {
        let e = parse_expectations("x\n// expected-error @-1 {{m}}\n", 10).unwrap();
        assert_eq!((e[0].line, e[0].decl_line), (10, 11));
    }

    #[test]
    fn above_and_below_skip_annotation_lines() {
        let text = "\
// expected-note @below {{first}}
// expected-error @below {{second}}
%0 = op
// expected-error @above {{third}}
// expected-note @above {{fourth}}

// expected-error @below {{dangling}}";
        let lines: Vec<usize> = parse(text).iter().map(|e| e.line).collect();
        // The dangling `@below` points past the last line (7).
        assert_eq!(lines, [3, 3, 3, 3, 8]);
        let text = "a\n// expected-error @above {{x}} expected-note @above {{y}}\n";
        let lines: Vec<usize> = parse(text).iter().map(|e| e.line).collect();
        assert_eq!(lines, [1, 1]);
    }

    #[test]
    fn unknown_designator() {
        let e = parse("// expected-error @unknown {{no loc}}");
        assert!(e[0].unknown_location);
        let mut e = e;
        assert!(check(
            &mut e,
            &[unlocated(Severity::Error, "no loc here")],
            "t.mlir"
        )
        .is_empty());
    }

    #[test]
    fn prose_is_not_an_annotation() {
        let text = "\
// this test has no expected-error annotations
// unexpected-error {{x}} expected-errors {{y}} myexpected-error {{z}}
// expected-error
\"expected-note\"";
        assert!(parse(text).is_empty());
    }

    #[test]
    fn malformed_annotations_are_errors() {
        let errors = parse_errors(
            "\
// expected-error @+x {{a}}
// expected-error @-5 {{a}}
// expected-error {a}
// expected-warning @+1 msg
// expected-note {{unterminated
// expected-remark {{a {{[0-9]+ b
// expected-error {{a {{[0-9+}} b}}
// expected-error-re {{a}}
// expected-error @above {{a}}",
        );
        let expected = [
            "1:19: error: invalid designator '@+x'",
            "2:19: error: invalid designator '@-5' for expected-error (points outside the file)",
            "3:19: error: expected '{{' to begin the expected-error message",
            "4:25: error: expected '{{' to begin the expected-warning message",
            "5:18: error: expected '}}' to end the expected-note message",
            "6:24: error: found start of regex with no end '}}'",
            "7:21: error: invalid regex in expected-error message 'a {{[0-9+}} b'",
            "8:4: error: 'expected-error-re' is not supported",
            "9:4: error: '@above' designator of expected-error has no line without annotations",
        ];
        assert_eq!(errors.len(), expected.len(), "{errors:#?}");
        for (error, expected) in errors.iter().zip(expected) {
            assert!(
                error.starts_with(expected),
                "{error:?} does not start with {expected:?}"
            );
        }
    }

    #[test]
    fn literal_bodies_are_substrings_even_with_metacharacters() {
        let mut e = parse("op // expected-error {{'lego.apply' op expects (i, j). got [3]*}}");
        assert!(e[0].matches_message("'lego.apply' op expects (i, j). got [3]* indices"));
        assert!(!e[0].matches_message("'lego.apply' op expects (i, j)x got [3]*"));
        let reported = [diag(
            Severity::Error,
            1,
            1,
            "'lego.apply' op expects (i, j). got [3]*",
        )];
        assert!(check(&mut e, &reported, "t.mlir").is_empty());
        assert!(e[0].matched);
    }

    #[test]
    fn regex_segments() {
        let e = parse("// expected-error {{Dimension {{-?[0-9]+}} must be}}");
        assert_eq!(e[0].pattern, "Dimension {{-?[0-9]+}} must be");
        assert!(e[0].matches_message("op: Dimension -12 must be positive"));
        assert!(e[0].matches_message("Dimension 3 must be"));
        assert!(!e[0].matches_message("Dimension x must be"));
        let e = parse("// expected-error {{Dimension -?[0-9]+ must be}}");
        assert!(!e[0].matches_message("Dimension 3 must be"));
        assert!(e[0].matches_message("Dimension -?[0-9]+ must be"));
        // Alternation stays inside its segment; literal parts around it are still escaped.
        let e = parse("// expected-error {{a.{{b|c}}(d)}}");
        assert!(e[0].matches_message("a.c(d)"));
        assert!(!e[0].matches_message("axc(d)"));
        assert!(!e[0].matches_message("c(d)"));
        // Whole-body regex.
        let e = parse("// expected-note {{{{^see .*}}}}");
        assert!(e[0].matches_message("see here"));
        assert!(!e[0].matches_message("do see here"));
    }

    #[test]
    fn several_annotations_per_line() {
        let text = "op // expected-error {{a {{[0-9]}}}} expected-error {{b}}";
        let e = parse(text);
        let patterns: Vec<&str> = e.iter().map(|e| e.pattern.as_str()).collect();
        assert_eq!(patterns, ["a {{[0-9]}}", "b"]);
    }

    #[test]
    fn check_reports_unexpected_and_missing() {
        let text = "\
%0 = op // expected-error {{first}}
%1 = op
// expected-warning @-1 {{never}}";
        let mut e = parse(text);
        let reported = [
            diag(Severity::Error, 1, 6, "the first problem"),
            diag(Severity::Error, 2, 6, "surprise"),
            diag(Severity::Remark, 1, 1, "first"),
            ReportedDiagnostic {
                column: None,
                ..diag(Severity::Note, 2, 0, "no column")
            },
            unlocated(Severity::Error, "nowhere"),
            ReportedDiagnostic {
                file: Some("other.mlir".to_string()),
                ..diag(Severity::Warning, 2, 3, "never")
            },
        ];
        assert_eq!(
            check(&mut e, &reported, "t.mlir"),
            [
                "t.mlir:2:6: error: unexpected error: surprise",
                // The error expectation matched already, but still makes this a near miss (as in mlir-opt).
                "t.mlir:1:12: error: 'remark' diagnostic emitted when expecting a 'error'",
                "t.mlir:2: error: unexpected note: no column",
                "error: unexpected error: nowhere",
                "other.mlir:2:3: error: unexpected warning: never",
                "t.mlir:3:4: error: expected warning \"never\" was not produced",
            ]
        );
        // Matches are remembered: nothing new to report for what matched before.
        assert_eq!(
            check(&mut e, &[diag(Severity::Warning, 2, 1, "never")], "t.mlir"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn one_expectation_absorbs_every_matching_diagnostic_of_its_kind() {
        let text = "op // expected-error {{dup}} expected-error {{d}}";
        let mut e = parse(text);
        let dup = diag(Severity::Error, 1, 1, "dup");
        // Unmatched expectations are preferred, so both are used by two diagnostics ...
        assert!(check(&mut e, &[dup.clone(), dup.clone()], "t.mlir").is_empty());
        assert!(e.iter().all(|e| e.matched));
        // ... and a third is absorbed.
        let mut e = parse(text);
        assert!(check(&mut e, &[dup.clone(), dup.clone(), dup.clone()], "t.mlir").is_empty());
        let mut e = parse("op // expected-error {{dup}}");
        let two = [diag(Severity::Error, 1, 1, "dup dup"), diag(Severity::Error, 1, 1, "dup")];
        assert!(check(&mut e, &two, "t.mlir").is_empty());
        // Absorbing is per kind and per line: a warning or another line is still unexpected.
        let mut e = parse("op // expected-error {{dup}}\nop");
        let others = [dup.clone(), diag(Severity::Warning, 1, 1, "dup"), diag(Severity::Error, 2, 1, "dup")];
        assert_eq!(
            check(&mut e, &others, "t.mlir"),
            [
                "t.mlir:1:7: error: 'warning' diagnostic emitted when expecting a 'error'",
                "t.mlir:2:1: error: unexpected error: dup"
            ]
        );
        // An expectation that matches nothing still fails, even next to one that absorbed two.
        let mut e = parse("op // expected-error {{dup}} expected-error {{other}}");
        assert_eq!(
            check(&mut e, &[dup.clone(), dup], "t.mlir"),
            ["t.mlir:1:30: error: expected error \"other\" was not produced"]
        );
    }

    #[test]
    fn diagnostics_without_file_name_belong_to_the_input() {
        let mut e = parse("op // expected-error {{m}}");
        let reported = [ReportedDiagnostic {
            file: None,
            ..diag(Severity::Error, 1, 1, "m")
        }];
        assert!(check(&mut e, &reported, "t.mlir").is_empty());
    }

    #[test]
    fn severity_mismatch_is_a_near_miss() {
        let mut e = parse("op // expected-warning {{careful}}");
        assert_eq!(
            check(&mut e, &[diag(Severity::Error, 1, 1, "careful")], "t.mlir"),
            [
                "t.mlir:1:7: error: 'error' diagnostic emitted when expecting a 'warning'",
                "t.mlir:1:7: error: expected warning \"careful\" was not produced",
            ]
        );
    }

    #[test]
    fn garbage_never_panics() {
        let seed = "op // expected-error @+1 {{a {{[0-9]+}} é}} expected-note @above {{x}}\n\
                    // expected-remark @below {{{{(}}}} expected-warning@-1{{}}\n";
        for (i, _) in seed.char_indices() {
            let _ = parse_expectations(&seed[..i], 1);
            let _ = parse_expectations(&seed[i..], usize::MAX - 1);
            let _ = parse_expectations(&seed[i..], 0);
        }
        for text in [
            "expected-error",
            "expected-error @",
            "expected-error @+",
            "@{{}}",
            "{{",
            "expected-error@+99999999999999999999999{{x}}",
        ] {
            let _ = parse_expectations(text, 1);
        }
    }
}
