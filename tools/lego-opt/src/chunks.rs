//! The input and output driver lego-opt and lego-translate share: read the input, split it
//! (`--split-input-file`), process each chunk, either print its diagnostics or match them against its
//! `expected-*` comments (`--verify-diagnostics`), and write the output.

use std::io::{Read, Write};

use crate::{
    diagnostics::{self, DiagnosticSink, Reported},
    expected_diagnostics, split_input,
};

/// How the input is taken apart and how diagnostics are judged.
pub struct ChunkOptions<'a> {
    pub file_name: &'a str,
    pub split_input_file: bool,
    pub verify_diagnostics: bool,
}

/// Runs `process` on every chunk of `text` (padded so its line numbers are those of the file). Returns the
/// outputs of the chunks that succeeded and whether all did (under `--verify-diagnostics`: whether every
/// chunk's diagnostics matched its expectations).
pub fn run(
    text: &str,
    options: &ChunkOptions,
    sink: &DiagnosticSink,
    mut process: impl FnMut(&str) -> Option<String>,
) -> (Vec<String>, bool) {
    // The whole input as one chunk is borrowed, not copied.
    let split;
    let chunks: Vec<(&str, usize)> = if options.split_input_file {
        split = split_input::split_chunks(text);
        split.iter().map(|chunk| (chunk.text.as_str(), chunk.first_line)).collect()
    } else {
        vec![(text, 1)]
    };
    let mut outputs = Vec::with_capacity(chunks.len());
    let mut all_ok = true;
    for &(chunk_text, first_line) in &chunks {
        let processed = process(&split_input::padded(chunk_text, first_line));
        let reported = sink.take();
        // An error fails the chunk whoever reported it (lower-affine reports one and succeeds); its
        // half-converted output is not printed.
        let reported_error = reported.iter().any(|diagnostic| {
            diagnostic.severity == expected_diagnostics::Severity::Error
                && lego_passes::diagnostics::error_fails_the_run(&diagnostic.message)
        });
        let processed = if reported_error && !options.verify_diagnostics { None } else { processed };
        if options.verify_diagnostics {
            let failures = verify_chunk_diagnostics(options.file_name, chunk_text, first_line, &reported);
            for failure in &failures {
                eprintln!("{failure}");
            }
            all_ok &= failures.is_empty();
        } else {
            diagnostics::print(&reported, text);
            all_ok &= processed.is_some();
        }
        outputs.extend(processed);
    }
    (outputs, all_ok)
}

fn verify_chunk_diagnostics(file_name: &str, chunk_text: &str, first_line: usize, reported: &[Reported]) -> Vec<String> {
    let mut expectations = match expected_diagnostics::parse_expectations(chunk_text, first_line) {
        Ok(expectations) => expectations,
        Err(errors) => return errors.into_iter().map(|error| format!("{file_name}: error: {error}")).collect(),
    };
    let reported: Vec<_> = reported
        .iter()
        .filter(|diagnostic| !diagnostic.message.starts_with("see current operation"))
        .map(Reported::to_expected_form)
        .collect();
    expected_diagnostics::check(&mut expectations, &reported, file_name)
}

/// The input file's text (`-`: standard input); errors read as mlir-opt's. Text that is not UTF-8 is an
/// error located at its first bad byte (line and byte column, as MLIR counts columns).
pub fn read_input(path: &str) -> Result<String, String> {
    let mut bytes = Vec::new();
    let name = if path == "-" {
        std::io::stdin().read_to_end(&mut bytes).map_err(|error| format!("error: could not read stdin: {error}"))?;
        "<stdin>"
    } else {
        bytes = std::fs::read(path)
            .map_err(|error| format!("error: could not open input file '{path}': {}", io_reason(&error)))?;
        path
    };
    String::from_utf8(bytes).map_err(|error| not_utf8(name, error.as_bytes(), error.utf8_error()))
}

/// `f.mlir:3:7: error: invalid UTF-8: byte 0xff does not start a valid UTF-8 sequence (the input must be
/// UTF-8)`, at the first byte that is not part of a valid sequence.
fn not_utf8(name: &str, bytes: &[u8], error: std::str::Utf8Error) -> String {
    let valid = &bytes[..error.valid_up_to()];
    let line = 1 + valid.iter().filter(|&&byte| byte == b'\n').count();
    let column = 1 + valid.iter().rev().take_while(|&&byte| byte != b'\n').count();
    let bad = &bytes[error.valid_up_to()..];
    let what = match error.error_len() {
        // A sequence cut off by the end of the input.
        None => "the input ends inside a UTF-8 sequence".to_string(),
        Some(length) => {
            let shown: Vec<String> = bad.iter().take(length).map(|byte| format!("0x{byte:02x}")).collect();
            let noun = if length == 1 { "byte" } else { "bytes" };
            format!("{noun} {} {} not a valid UTF-8 sequence", shown.join(" "), if length == 1 { "is" } else { "are" })
        }
    };
    format!("{name}:{line}:{column}: error: invalid UTF-8: {what} (the input must be UTF-8 text)")
}

fn io_reason(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".into(),
        _ => error.to_string(),
    }
}

/// Writes `output` (newline-terminated) to `path` (`-` or none: standard output).
pub fn write_output(path: Option<&str>, output: &str) -> Result<(), String> {
    // The newline is written after the text rather than appended to a copy of it (megabytes).
    let newline: &[u8] = if !output.is_empty() && !output.ends_with('\n') { b"\n" } else { b"" };
    match path {
        None | Some("-") => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(output.as_bytes())
                .and_then(|_| stdout.write_all(newline))
                .and_then(|_| stdout.flush())
                .map_err(|error| format!("error: {error}"))
        }
        // What `std::fs::write` does, in two writes.
        Some(path) => std::fs::File::create(path)
            .and_then(|mut file| file.write_all(output.as_bytes()).and_then(|_| file.write_all(newline)))
            .map_err(|error| format!("error: could not write output file '{path}': {}", io_reason(&error))),
    }
}
