//! Collects MLIR diagnostics (ours and upstream's) and prints them like mlir-opt: `file:line:col: error: ...`
//! followed by the source line and a caret.

use crate::expected_diagnostics::{ReportedDiagnostic, Severity};
use melior::{
    diagnostic::{Diagnostic, DiagnosticSeverity},
    ir::Location,
    Context,
};
use std::{
    ffi::{c_char, CStr},
    panic::{catch_unwind, AssertUnwindSafe},
    sync::{Arc, Mutex, OnceLock},
};

/// A diagnostic, detached from MLIR.
#[derive(Debug, Clone)]
pub struct Reported {
    pub severity: Severity,
    pub file: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl Reported {
    pub fn to_expected_form(&self) -> ReportedDiagnostic {
        ReportedDiagnostic {
            severity: self.severity,
            file: self.file.clone(),
            line: self.line,
            column: self.column,
            message: self.message.clone(),
        }
    }
}

/// Owns the collected diagnostics; the handler registered on the context appends to it.
pub struct DiagnosticSink {
    collected: Arc<Mutex<Vec<Reported>>>,
}

impl DiagnosticSink {
    pub fn attach(context: &Context) -> Self {
        let collected = Arc::new(Mutex::new(Vec::new()));
        let target = Arc::clone(&collected);
        context.attach_diagnostic_handler(move |diagnostic| {
            // Called from C++: never let a panic escape.
            let _ = catch_unwind(AssertUnwindSafe(|| {
                if let Ok(mut collected) = target.lock() {
                    collect(&diagnostic, &mut collected);
                }
            }));
            true
        });
        DiagnosticSink { collected }
    }

    /// Routes LLVM's fatal errors (a backend giving up inside `gpu-module-to-binary`, say) to stderr as an
    /// `error:` naming the input, after the diagnostics collected so far: LLVM then exits with status 1, and
    /// its default handler would print only `LLVM ERROR: <reason>`, losing them. The pipelines check what they
    /// know LLVM rejects before it sees it, at the op; this is the net under what they do not know.
    pub fn report_llvm_fatal_errors(&self, file_name: &str, source: &str) {
        let report = FatalErrorReport {
            file_name: file_name.to_string(),
            source: source.to_string(),
            collected: Arc::clone(&self.collected),
        };
        if FATAL_ERROR_REPORT.set(report).is_ok() {
            unsafe { LLVMInstallFatalErrorHandler(on_llvm_fatal_error) };
        }
    }

    /// Takes what was collected since the last call.
    pub fn take(&self) -> Vec<Reported> {
        self.collected.lock().map(|mut collected| std::mem::take(&mut *collected)).unwrap_or_default()
    }
}

extern "C" {
    // llvm-c/ErrorHandling.h (LLVMSupport, linked with MLIR).
    fn LLVMInstallFatalErrorHandler(handler: extern "C" fn(*const c_char));
}

/// What the fatal-error handler prints besides the reason. LLVM's C API handler takes no user data, so it is
/// process-wide; it is set once, for the one input lego-opt reads.
struct FatalErrorReport {
    file_name: String,
    source: String,
    collected: Arc<Mutex<Vec<Reported>>>,
}

static FATAL_ERROR_REPORT: OnceLock<FatalErrorReport> = OnceLock::new();

extern "C" fn on_llvm_fatal_error(reason: *const c_char) {
    // Called from C++ right before LLVM exits: never let a panic escape.
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let reason = if reason.is_null() {
            "(no reason given)".into()
        } else {
            unsafe { CStr::from_ptr(reason) }.to_string_lossy()
        };
        match FATAL_ERROR_REPORT.get() {
            Some(report) => {
                // try_lock: a diagnostic handler that was interrupted must not deadlock the exit.
                if let Ok(mut collected) = report.collected.try_lock() {
                    print(&std::mem::take(&mut *collected), &report.source);
                }
                eprintln!("{}: error: LLVM fatal error: {reason}", report.file_name);
            }
            None => eprintln!("error: LLVM fatal error: {reason}"),
        }
    }));
}

fn collect(diagnostic: &Diagnostic, into: &mut Vec<Reported>) {
    let severity = match diagnostic.severity() {
        DiagnosticSeverity::Error => Severity::Error,
        DiagnosticSeverity::Warning => Severity::Warning,
        DiagnosticSeverity::Note => Severity::Note,
        DiagnosticSeverity::Remark => Severity::Remark,
    };
    let (file, line, column) = file_line_column(diagnostic.location()).map_or((None, None, None), |(file, line, column)| {
        (Some(file), Some(line), Some(column))
    });
    into.push(Reported { severity, file, line, column, message: diagnostic.to_string() });
    for index in 0..diagnostic.note_count() {
        if let Ok(note) = diagnostic.note(index) {
            collect(&note, into);
        }
    }
}

/// The first file/line/column inside `location` (through name, call-site and fused locations).
pub fn file_line_column(location: Location) -> Option<(String, usize, usize)> {
    if location.is_file_line_col_range() {
        let file = location.file_line_col_range_filename().as_string_ref().as_str().ok()?.to_string();
        return Some((file, location.file_line_col_range_start_line(), location.file_line_col_range_start_column()));
    }
    if location.is_call_site() {
        return file_line_column(location.call_site_callee());
    }
    let raw = location.to_raw();
    unsafe {
        if mlir_sys::mlirLocationIsAName(raw) {
            return file_line_column(Location::from_raw(mlir_sys::mlirLocationNameGetChildLoc(raw)));
        }
        if mlir_sys::mlirLocationIsAFused(raw) {
            let count = mlir_sys::mlirLocationFusedGetNumLocations(raw);
            let mut locations = vec![mlir_sys::MlirLocation { ptr: std::ptr::null() }; count as usize];
            mlir_sys::mlirLocationFusedGetLocations(raw, locations.as_mut_ptr());
            return locations.into_iter().find_map(|inner| file_line_column(Location::from_raw(inner)));
        }
    }
    None
}

/// Prints diagnostics mlir-opt style, with the source line and a caret when the location is in `source`.
pub fn print(reported: &[Reported], source: &str) {
    for diagnostic in reported {
        let severity = match diagnostic.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Remark => "remark",
        };
        match (&diagnostic.file, diagnostic.line, diagnostic.column) {
            (Some(file), Some(line), Some(column)) => {
                eprintln!("{file}:{line}:{column}: {severity}: {}", diagnostic.message);
                if let Some(text) = source.lines().nth(line.saturating_sub(1)) {
                    let (excerpt, caret) = excerpt(text, column);
                    eprintln!("{excerpt}");
                    let width = excerpt.chars().take(caret).map(|c| if c == '\t' { '\t' } else { ' ' });
                    eprintln!("{}^", width.collect::<String>());
                }
            }
            _ => eprintln!("{severity}: {}", diagnostic.message),
        }
    }
}

/// Source lines longer than this are shown as a window around the caret.
const EXCERPT_CHARS: usize = 200;

/// The part of source line `text` to print under a diagnostic at (byte) `column`, and the caret's position in
/// it, in characters. A line of at most [`EXCERPT_CHARS`] characters is shown whole; a longer one (a 10 000-operand
/// `order_by` is 80 KB on one line) as the [`EXCERPT_CHARS`] characters around the column, elided ends marked `…`.
fn excerpt(text: &str, column: usize) -> (String, usize) {
    // MLIR's columns count bytes; the caret is placed by characters.
    let caret = text.char_indices().take_while(|(offset, _)| *offset < column.saturating_sub(1)).count();
    let length = text.chars().count();
    if length <= EXCERPT_CHARS {
        return (text.to_string(), caret);
    }
    let start = caret.saturating_sub(EXCERPT_CHARS / 2).min(length - EXCERPT_CHARS);
    let end = start + EXCERPT_CHARS;
    let mut shown = String::new();
    if start > 0 {
        shown.push('…');
    }
    shown.extend(text.chars().skip(start).take(EXCERPT_CHARS));
    if end < length {
        shown.push('…');
    }
    (shown, caret - start + usize::from(start > 0))
}

#[cfg(test)]
mod tests {
    use super::excerpt;

    #[test]
    fn short_lines_are_shown_whole() {
        assert_eq!(excerpt("  %r = lego.row [0] : !lego.layout", 18), ("  %r = lego.row [0] : !lego.layout".to_string(), 17));
        // Column 4 is the byte after "é" (two bytes): the caret goes under the third character.
        assert_eq!(excerpt("aéx", 4), ("aéx".to_string(), 2));
    }

    #[test]
    fn long_lines_are_shown_around_the_column() {
        let line = format!("{}X{}", "a".repeat(1000), "b".repeat(1000));
        let (shown, caret) = excerpt(&line, 1001);
        assert_eq!(shown.chars().count(), 202);
        assert_eq!(shown.chars().nth(caret), Some('X'));
        assert!(shown.starts_with('…') && shown.ends_with('…'));
        // At the start of the line: no leading ellipsis.
        let (shown, caret) = excerpt(&line, 1);
        assert_eq!((caret, shown.chars().count()), (0, 201));
        assert!(shown.ends_with('…'));
        // At the end.
        let (shown, caret) = excerpt(&line, 2001);
        assert_eq!(shown.chars().nth(caret), Some('b'));
        assert_eq!(shown.chars().count(), 201);
    }
}
