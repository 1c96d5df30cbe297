//! Located diagnostics of every severity for lego passes.
//!
//! MLIR's C API (LLVM 22, `mlir-c/Diagnostics.h`) can only *emit* errors (`mlirEmitError`); warnings and
//! remarks exist in `MlirDiagnosticSeverity` for handlers but have no emitter. The verification passes need
//! them ("cannot verify: ..." must not be an error; "proved" is a remark), so `csrc/diagnostics.cpp` is a
//! two-line C++ shim over `mlir::emitWarning` / `mlir::emitRemark`, compiled by `build.rs`. If no C++
//! compiler was available at build time, warnings and remarks are printed to stderr instead (errors always
//! go through MLIR).

use melior::ir::Location;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Remark,
}

/// The published error of the legacy consistency passes (with the period). It lives here rather than in
/// `verify_bijectivity`, which reports it, because [`error_fails_the_run`] must recognise it and the
/// diagnostics sit below every pass.
pub const INCONSISTENT_GEN_P: &str = "Inconsistent GenP: apply and inv regions are not bijections.";

/// Whether an error diagnostic with this message fails the run that reported it (lego-opt's exit status, the C
/// API's `legoRunPipeline`). Every error does — some upstream passes report one and still succeed — except the
/// published legacy consistency passes' verdict, which they print without failing (docs/reference/passes.md).
pub fn error_fails_the_run(message: &str) -> bool {
    message != INCONSISTENT_GEN_P
}

#[cfg(not(lego_no_diagnostic_shim))]
extern "C" {
    fn legoEmitDiagnostic(
        location: mlir_sys::MlirLocation,
        severity: std::ffi::c_int,
        message: *const std::ffi::c_char,
        note_location: *const mlir_sys::MlirLocation,
        note: *const std::ffi::c_char,
    );
}

#[cfg(not(lego_no_diagnostic_shim))]
extern "C" {
    fn legoMarkAllAnalysesPreserved(external_pass: *mut std::ffi::c_void);
}

/// Reports that the running external pass `pass` preserved every analysis (it changed nothing), so the pass
/// manager does not verify the IR again after it (csrc/diagnostics.cpp). Without the shim: nothing (the IR
/// is verified again, as after any pass).
pub fn mark_all_analyses_preserved(pass: melior::pass::ExternalPass<'_>) {
    #[cfg(not(lego_no_diagnostic_shim))]
    {
        // SAFETY: melior's ExternalPass holds only the C API handle (plus a zero-sized marker); transmute checks
        // that the sizes agree. The handle is the live mlir::Pass running this callback.
        let raw: mlir_sys::MlirExternalPass = unsafe { std::mem::transmute(pass) };
        unsafe { legoMarkAllAnalysesPreserved(raw.ptr) }
    }
    #[cfg(lego_no_diagnostic_shim)]
    let _ = pass;
}

/// Emits `message` at `location` with `severity` through MLIR's diagnostic engine.
pub fn emit(location: Location, severity: Severity, message: &str) {
    emit_with_note(location, severity, message, None);
}

/// Like [`emit`], with a note (`note: ...` at its own location) attached to the diagnostic.
pub fn emit_with_note(location: Location, severity: Severity, message: &str, note: Option<(Location, &str)>) {
    let text = std::ffi::CString::new(message.replace('\0', "")).unwrap_or_default();
    #[cfg(not(lego_no_diagnostic_shim))]
    {
        let code = match severity {
            Severity::Error => 0,
            Severity::Warning => 1,
            Severity::Remark => 2,
        };
        let note_text = note.map(|(_, text)| std::ffi::CString::new(text.replace('\0', "")).unwrap_or_default());
        let note_location = note.map(|(location, _)| location.to_raw());
        unsafe {
            legoEmitDiagnostic(
                location.to_raw(),
                code,
                text.as_ptr(),
                note_location.as_ref().map_or(std::ptr::null(), |location| location as *const _),
                note_text.as_ref().map_or(std::ptr::null(), |text| text.as_ptr()),
            )
        }
    }
    #[cfg(lego_no_diagnostic_shim)]
    {
        match severity {
            Severity::Error => unsafe { mlir_sys::mlirEmitError(location.to_raw(), text.as_ptr()) },
            Severity::Warning | Severity::Remark => {
                let kind = if severity == Severity::Warning { "warning" } else { "remark" };
                eprintln!("{location}: {kind}: {message}");
            }
        }
        if let Some((note_location, note)) = note {
            eprintln!("{note_location}: note: {note}");
        }
    }
}

pub fn error(location: Location, message: &str) {
    emit(location, Severity::Error, message);
}

pub fn warning(location: Location, message: &str) {
    emit(location, Severity::Warning, message);
}

pub fn remark(location: Location, message: &str) {
    emit(location, Severity::Remark, message);
}
