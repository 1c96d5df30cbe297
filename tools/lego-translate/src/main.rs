//! The `lego-translate` binary: the driver of the library (src/driver.rs) with the process's command line.

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(lego_translate::main_with_args(std::env::args_os().collect()))
}
