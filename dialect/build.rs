//! Compiles `csrc/parse.cpp`, the shim that parses a text of several top-level ops straight into a module (the
//! MLIR C API parses single ops only). Without a C++ compiler the build still succeeds:
//! `cfg(lego_no_parse_shim)` is set and such texts are parsed wrapped in a module instead (see `src/source.rs`),
//! with the same result, only slower.

include!("../build-support/mlir_shim.rs");

fn main() {
    println!("cargo::rustc-check-cfg=cfg(lego_no_parse_shim)");
    if let Err(error) = compile_mlir_shim("lego_parse", &["csrc/parse.cpp"]) {
        println!("cargo:warning=lego-dialect: could not compile the MLIR parse shim ({error}); files of several top-level ops will be parsed wrapped in a module instead (slower, same result)");
        println!("cargo:rustc-cfg=lego_no_parse_shim");
    }
}
