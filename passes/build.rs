//! Compiles `csrc/diagnostics.cpp`, the shim that lets passes emit MLIR warnings and remarks (the MLIR C
//! API only emits errors), `csrc/canonicalize.cpp` (`canonicalize` as lego-lower runs it) and `csrc/fold_once.cpp`
//! (one iteration of the §0 clean-up's greedy driver, `src/cleanup.rs`). Without a
//! C++ compiler the build still succeeds: `cfg(lego_no_diagnostic_shim)`
//! is set and warnings/remarks go to stderr instead (see `src/diagnostics.rs`).

include!("../build-support/mlir_shim.rs");

fn main() {
    println!("cargo::rustc-check-cfg=cfg(lego_no_diagnostic_shim)");
    let shims = ["csrc/diagnostics.cpp", "csrc/canonicalize.cpp", "csrc/fold_once.cpp", "csrc/sink_index_computations.cpp"];
    if let Err(error) = compile_mlir_shim("lego_diagnostics", &shims) {
        println!("cargo:warning=lego-passes: could not compile the MLIR diagnostic shim ({error}); warnings and remarks of the verification passes will be printed to stderr instead of MLIR's diagnostic engine");
        println!("cargo:rustc-cfg=lego_no_diagnostic_shim");
    }
}
