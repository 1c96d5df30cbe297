//! The diagnostics MLIR reports while the package runs something on a session's context, detached from MLIR
//! as `file:line:col: severity: message` lines — collected the same way for an evaluation
//! (`Session.evaluate`), a translation (`lego.translate`) and `arith_to_sympy`.

use std::{
    panic::{catch_unwind, AssertUnwindSafe},
    sync::{Arc, Mutex},
};

use melior::{
    diagnostic::{Diagnostic, DiagnosticSeverity},
    Context,
};

use crate::format_diagnostic;

/// What was reported, in order; notes follow their diagnostic.
#[derive(Default, Clone)]
pub struct Reported {
    /// Every line.
    pub all: Vec<String>,
    /// The errors that fail a lego-opt run (`lego_passes::diagnostics::error_fails_the_run`).
    pub failing: Vec<String>,
    /// The other lines (warnings, remarks, notes, errors that do not fail the run).
    pub others: Vec<String>,
}

impl Reported {
    fn add(&mut self, diagnostic: &Diagnostic) {
        let message = diagnostic.to_string();
        let text = format_diagnostic(diagnostic.location(), diagnostic.severity(), &message);
        let fails = matches!(diagnostic.severity(), DiagnosticSeverity::Error)
            && lego_passes::diagnostics::error_fails_the_run(&message);
        self.all.push(text.clone());
        if fails {
            self.failing.push(text);
        } else {
            self.others.push(text);
        }
        for index in 0..diagnostic.note_count() {
            if let Ok(note) = diagnostic.note(index) {
                let text = format_diagnostic(note.location(), note.severity(), &note.to_string());
                self.all.push(text.clone());
                self.others.push(text);
            }
        }
    }
}

/// Runs `body` with a handler on `context` that keeps every diagnostic, and returns the body's outcome (its
/// panic caught: nothing unwinds into Python or C++) with what was reported.
pub fn collecting<T>(context: &Context, body: impl FnOnce() -> T) -> (std::thread::Result<T>, Reported) {
    let collected: Arc<Mutex<Reported>> = Arc::default();
    let sink = Arc::clone(&collected);
    let handler = context.attach_diagnostic_handler(move |diagnostic| {
        // Called from C++: never let a panic escape.
        let _ = catch_unwind(AssertUnwindSafe(|| {
            if let Ok(mut sink) = sink.lock() {
                sink.add(&diagnostic);
            }
        }));
        true
    });
    let outcome = catch_unwind(AssertUnwindSafe(body));
    context.detach_diagnostic_handler(handler);
    let reported = collected.lock().map(|reported| reported.clone()).unwrap_or_default();
    (outcome, reported)
}
