//! A panic inside lego becomes a Python exception carrying the panic's message (and its location, which the
//! panic hook prints to stderr as Rust does): used by the entry points of `translate` and `arith`, and by the
//! test hook [`raise_panic`] that checks the path (python/tests/test_published_errors.py).

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::prelude::*;

use crate::LegoError;

/// The text of a caught panic.
pub fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".to_string())
}

/// Runs `body`; a panic becomes `LegoError("internal error in lego (a bug: please report it) while WHAT: MESSAGE")`.
pub fn guard<T>(what: &str, body: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(result) => result,
        Err(panic) => Err(LegoError::new_err(format!(
            "internal error in lego (a bug: please report it) while {what}: {}",
            panic_message(panic)
        ))),
    }
}

/// Test hook: panics with `message` under [`guard`] (the interpreter must survive and see a `LegoError`).
#[pyfunction]
pub fn raise_panic(message: &str) -> PyResult<()> {
    guard("running the panic test hook", || -> PyResult<()> { panic!("{message}") })
}
