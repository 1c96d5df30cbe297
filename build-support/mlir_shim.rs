// Included (`include!`) by the build scripts of lego-dialect and lego-passes: both compile small C++ shims
// against MLIR's C++ headers for what the MLIR C API does not offer. One place for where the headers are
// (MLIR_SYS_220_PREFIX, as mlir-sys reads it) and how the shims are compiled (as LLVM itself is: no RTTI, no
// exceptions), so the two crates cannot drift apart.

/// Compiles `files` (paths relative to the crate) into the static library `name` and links it; asks cargo to
/// rerun the build script when a file, this helper or the MLIR prefix changes. `Err` when there is no C++
/// compiler or the shims do not compile: the caller then falls back to its C-API-only path.
fn compile_mlir_shim(name: &str, files: &[&str]) -> Result<(), cc::Error> {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=../build-support/mlir_shim.rs");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    let prefix = std::env::var_os("MLIR_SYS_220_PREFIX")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from("/usr/lib/llvm-22"));
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .flag_if_supported("-fno-rtti")
        .flag_if_supported("-fno-exceptions")
        .flag_if_supported("-w")
        .include(prefix.join("include"));
    for file in files {
        println!("cargo:rerun-if-changed={file}");
        build.file(file);
    }
    build.try_compile(name)
}
