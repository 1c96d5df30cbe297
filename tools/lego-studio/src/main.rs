//! The `lego-studio` binary: the driver of the library (src/lib.rs) with the process's command line.

use std::process::ExitCode;

fn main() -> ExitCode {
    let self_command = std::env::current_exe().map(|path| vec![path.into_os_string()]).unwrap_or_default();
    ExitCode::from(lego_studio::main_with_args(std::env::args_os().collect(), self_command))
}
