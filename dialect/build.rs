//! Compiles `csrc/parse.cpp`, the shim that parses a text of several top-level ops straight into a module (the
//! MLIR C API parses single ops only). Without a C++ compiler the build still succeeds:
//! `cfg(lego_no_parse_shim)` is set and such texts are parsed wrapped in a module instead (see `src/source.rs`),
//! with the same result, only slower.

use std::{env, path::PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=csrc/parse.cpp");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    println!("cargo::rustc-check-cfg=cfg(lego_no_parse_shim)");
    let prefix = env::var_os("MLIR_SYS_220_PREFIX").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/usr/lib/llvm-22"));
    let result = cc::Build::new()
        .cpp(true)
        .std("c++17")
        .flag_if_supported("-fno-rtti")
        .flag_if_supported("-fno-exceptions")
        .flag_if_supported("-w")
        .include(prefix.join("include"))
        .file("csrc/parse.cpp")
        .try_compile("lego_parse");
    if let Err(error) = result {
        println!("cargo:warning=lego-dialect: could not compile the MLIR parse shim ({error}); files of several top-level ops will be parsed wrapped in a module instead (slower, same result)");
        println!("cargo:rustc-cfg=lego_no_parse_shim");
    }
}
