//! Collects MLIR diagnostics (ours and upstream's) and prints them like mlir-opt: `file:line:col: error: ...`
//! followed by the source line and a caret.

use crate::expected_diagnostics::{ReportedDiagnostic, Severity};
use melior::{
    diagnostic::{Diagnostic, DiagnosticSeverity},
    ir::Location,
    Context,
};
use std::{
    panic::{catch_unwind, AssertUnwindSafe},
    sync::{Arc, Mutex},
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

    /// Takes what was collected since the last call.
    pub fn take(&self) -> Vec<Reported> {
        self.collected.lock().map(|mut collected| std::mem::take(&mut *collected)).unwrap_or_default()
    }
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
                    eprintln!("{text}");
                    let width = text.chars().take(column.saturating_sub(1)).map(|c| if c == '\t' { '\t' } else { ' ' });
                    eprintln!("{}^", width.collect::<String>());
                }
            }
            _ => eprintln!("{severity}: {}", diagnostic.message),
        }
    }
}
