//! The `lego-opt` binary: the driver of the library (src/lib.rs) with the process's command line.

use std::process::ExitCode;

/// jemalloc serves every allocation of the process, MLIR's C++ ones included (the crate's unprefixed `malloc`
/// and `free` take the place of glibc's). A lowering run creates and erases millions of small ops, attributes
/// and Rust values; glibc's allocator spent a fifth to two fifths of `lego-lower`'s CPU time on that
/// (bench/compile-time/notes.md, "The allocator"). The output does not depend on the allocator.
/// Only here, in the binary: the library is also linked into the Python extension module, where replacing the
/// interpreter's `malloc` is not ours to do (feature `jemalloc`, which the extension turns off).
#[cfg(all(feature = "jemalloc", target_os = "linux", not(target_env = "musl")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    ExitCode::from(lego_opt::main_with_args(std::env::args_os().collect()))
}
