//! Adapter from our pass trait to MLIR external passes (melior's `create_external`).
//!
//! MLIR calls passes through C function pointers. A Rust panic must never unwind across them, so every run is
//! wrapped in `catch_unwind`: a panic becomes an error diagnostic at the op plus a pass failure, and the
//! driver exits 1 like for any other failure.

use melior::{
    ir::{operation::OperationLike, r#type::TypeId, OperationRef},
    pass::{create_external, ExternalPass, Pass, RunExternalPass},
    ContextRef,
};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Why a lego pass failed. The pass has already emitted located diagnostics for the user; this is for logs.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct PassFailure(pub String);

/// A lego pass. Implementations are small values holding their options; MLIR clones them per thread.
pub trait LegoPass: Clone + 'static {
    /// Registered name (`lego-to-arith`), also the command-line flag.
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
    /// Runs on `op` (a module, or whatever op the pass manager nests it under).
    fn run(&mut self, op: OperationRef<'_, '_>) -> Result<(), PassFailure>;
    /// After a successful [`run`](Self::run): whether a lego op may be left. A pass whose clean-up walk saw
    /// none says false, and the lego dialect verifier's walk of the whole op is skipped (it checks lego ops
    /// only).
    fn may_leave_lego_ops(&self) -> bool {
        true
    }
    /// After a successful [`run`](Self::run): whether the pass certainly left the IR as it found it. Then
    /// neither the lego dialect verifier nor MLIR's (the pass manager's verify-each) runs again on it: what
    /// the previous pass or the parser left was verified then. MLIR skips its verifier the same way after a
    /// pass that preserves all analyses, which is what such a pass reports.
    fn unchanged(&self) -> bool {
        false
    }
}

/// Type-id anchor: MLIR identifies a pass class by an 8-byte aligned address.
#[repr(align(8))]
pub struct PassId(#[allow(dead_code)] u64);

impl PassId {
    pub const fn new() -> Self {
        PassId(0)
    }
}

impl Default for PassId {
    fn default() -> Self {
        Self::new()
    }
}

#[derive(Clone)]
struct Adapter<P: LegoPass>(P);

impl<'c, P: LegoPass> RunExternalPass<'c> for Adapter<P> {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let name = self.0.name();
        let _span = tracing::debug_span!(target: "lego", "pass", name).entered();
        let outcome = catch_unwind(AssertUnwindSafe(|| self.0.run(operation)));
        match outcome {
            Ok(Ok(())) if self.0.unchanged() => crate::diagnostics::mark_all_analyses_preserved(pass),
            Ok(Ok(())) => {
                // A pass must leave IR that satisfies the dialect's rules.
                if self.0.may_leave_lego_ops() && !lego_dialect::verify::verify_and_emit(&operation) {
                    pass.signal_failure();
                }
            }
            Ok(Err(failure)) => {
                tracing::debug!(target: "lego", "pass {name} failed: {failure}");
                pass.signal_failure();
            }
            Err(panic) => {
                let detail = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("unknown cause");
                lego_dialect::verify::emit_error(
                    operation.location(),
                    &format!("internal error in pass '{name}': {detail} (please report this bug)"),
                );
                pass.signal_failure();
            }
        }
    }
}

/// Wraps a lego pass as an MLIR pass. `id` must be a `static PassId` unique to the pass type.
pub fn into_mlir_pass<P: LegoPass>(pass: P, id: &'static PassId) -> Pass {
    let name = pass.name();
    let description = pass.description();
    create_external(Adapter(pass), TypeId::create(id), name, name, description, "", &[])
}
