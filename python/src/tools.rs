//! The command-line tools inside the extension module: the wheel's `lego-opt`, `lego-translate` and
//! `lego-studio` console scripts (`lego/_tools.py`) call [`run_tool`] with their arguments.
//!
//! Why not bundled binaries: each tool links all of MLIR and LLVM statically, so three more executables would
//! put three more copies of them into the wheel (about 45 MB compressed each, docs/python.md "Installing"). The
//! drivers are libraries (`tools/lego-opt/src/lib.rs`, …) and the module already holds the one copy.
//!
//! A console script is its own process: the tool owns it as its binary would (tracing subscriber, exit status),
//! and the GIL is released while it runs (`lego-studio serve` runs until interrupted).

use std::ffi::OsString;

use pyo3::{exceptions::PyValueError, prelude::*};

use crate::guard::guard;

/// Runs tool `name` (`lego-opt`, `lego-translate`, `lego-studio`) with `arguments` (without the program name);
/// `self_command` is the command line that starts this same tool again (what `lego-studio serve` runs for its
/// worker processes: the interpreter and `-m lego._tools NAME`). Returns the exit status.
#[pyfunction]
#[pyo3(signature = (name, arguments, self_command))]
pub fn run_tool(py: Python<'_>, name: &str, arguments: Vec<String>, self_command: Vec<String>) -> PyResult<u8> {
    let tool: fn(Vec<OsString>, Vec<OsString>) -> u8 = match name {
        "lego-opt" => |arguments, _| lego_opt::main_with_args(arguments),
        "lego-translate" => |arguments, _| lego_translate::main_with_args(arguments),
        "lego-studio" => lego_studio::main_with_args,
        other => {
            return Err(PyValueError::new_err(format!(
                "no tool '{other}' (the tools are lego-opt, lego-translate and lego-studio)"
            )))
        }
    };
    let program = OsString::from(name);
    let arguments: Vec<OsString> = std::iter::once(program).chain(arguments.into_iter().map(OsString::from)).collect();
    let self_command: Vec<OsString> = self_command.into_iter().map(OsString::from).collect();
    guard(&format!("running {name}"), || Ok(py.detach(|| tool(arguments, self_command))))
}
