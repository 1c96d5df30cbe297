//! Links the extension module against MLIR's *shared* library (Debian's `libMLIR.so` / `libLLVM.so` of
//! LLVM 22), as the C API does (capi/build.rs explains the mechanism): one MLIR per process.
//!
//! Why not static: mlir-sys links every `libMLIR*.a` archive into the module, so the extension would carry a
//! private copy of MLIR and LLVM (hundreds of MB of objects to link on every build, a much larger file) with
//! its own TypeID, pass and command-line-option registries. A process that also loads another MLIR user
//! (the C API library `liblego_capi.so`, MLIR's own Python bindings built on `libMLIR.so`, a JIT) would then
//! hold two MLIRs whose global registries clash ("Option ... registered more than once" aborts at load
//! time). Putting `-lMLIR -lLLVM` on the link line before the archives makes every C++ MLIR/LLVM symbol come
//! from the shared libraries; only the thin C API wrappers are taken from the archives. The cost: the module
//! needs LLVM 22's `libMLIR.so` at run time (`make setup` installs it; an rpath points at it).

use std::{env, path::PathBuf, process::Command};

fn llvm_libdir() -> PathBuf {
    if let Some(prefix) = env::var_os("MLIR_SYS_220_PREFIX") {
        return PathBuf::from(prefix).join("lib");
    }
    let output = Command::new("llvm-config").arg("--libdir").output();
    match output {
        Ok(output) if output.status.success() => PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()),
        _ => PathBuf::from("/usr/lib/llvm-22/lib"),
    }
}

fn main() {
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    println!("cargo:rerun-if-changed=build.rs");
    let libdir = llvm_libdir();
    if !libdir.join("libMLIR.so").exists() {
        println!(
            "cargo:warning=lego-python: {} has no libMLIR.so (install Debian's libmlir-22-dev: make setup); the \
             extension module links MLIR as a shared library",
            libdir.display()
        );
    }
    println!("cargo:rustc-link-search=native={}", libdir.display());
    println!("cargo:rustc-link-lib=dylib=MLIR");
    println!("cargo:rustc-link-lib=dylib=LLVM");
    // Debian does not put llvm-22/lib on the loader path: the module finds libMLIR.so through its rpath.
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", libdir.display());
}
