//! Compiles `csrc/diagnostics.cpp`, the shim that lets passes emit MLIR warnings and remarks (the MLIR C
//! API only emits errors), `csrc/canonicalize.cpp` (`canonicalize` as lego-lower runs it) and `csrc/fold_once.cpp`
//! (one iteration of the §0 clean-up's greedy driver, `src/cleanup.rs`). Without a
//! C++ compiler the build still succeeds: `cfg(lego_no_diagnostic_shim)`
//! is set and warnings/remarks go to stderr instead (see `src/diagnostics.rs`).

use std::{env, path::PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=csrc/diagnostics.cpp");
    println!("cargo:rerun-if-changed=csrc/canonicalize.cpp");
    println!("cargo:rerun-if-changed=csrc/fold_once.cpp");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    println!("cargo::rustc-check-cfg=cfg(lego_no_diagnostic_shim)");
    let prefix = env::var_os("MLIR_SYS_220_PREFIX").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/usr/lib/llvm-22"));
    let result = cc::Build::new()
        .cpp(true)
        .std("c++17")
        .flag_if_supported("-fno-rtti")
        .flag_if_supported("-fno-exceptions")
        .flag_if_supported("-w")
        .include(prefix.join("include"))
        .file("csrc/diagnostics.cpp")
        .file("csrc/canonicalize.cpp")
        .file("csrc/fold_once.cpp")
        .try_compile("lego_diagnostics");
    if let Err(error) = result {
        println!("cargo:warning=lego-passes: could not compile the MLIR diagnostic shim ({error}); warnings and remarks of the verification passes will be printed to stderr instead of MLIR's diagnostic engine");
        println!("cargo:rustc-cfg=lego_no_diagnostic_shim");
    }
}
