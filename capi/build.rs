//! Links the C API library against MLIR's *shared* library, so that a host program and lego share one MLIR.
//!
//! mlir-sys links every `libMLIR*.a` archive statically (Debian ships no `libMLIR-C.so`, so its shared mode
//! cannot be used). A copy of MLIR inside our library would have its own TypeID registry, pass registry and
//! command-line option registry: a host's `MlirContext` handed to it would break, or abort at load time with
//! "Option ... registered more than once". So this crate puts `-lMLIR -lLLVM` (Debian's `libMLIR.so` /
//! `libLLVM.so`) on the link line *before* the dependencies' archives: rustc emits a crate's own native
//! libraries ahead of its upstream crates, and a static-archive member is only pulled in for a symbol that is
//! still undefined. Every C++ MLIR/LLVM symbol is then already defined by the shared libraries, and the only
//! members taken from the archives are the thin C API wrappers (`mlirContextCreate`, ...) that our Rust code
//! calls, which call straight into `libMLIR.so`. `test/capi/check-single-mlir.test` checks the result.
//!
//! The same holds for a host linking `liblego_capi.a` (the staticlib): it must put `-lMLIR -lLLVM` before it.

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
            "cargo:warning=lego-capi: {} has no libMLIR.so (install Debian's libmlir-22-dev); the C API library \
             needs MLIR as a shared library",
            libdir.display()
        );
    }
    println!("cargo:rustc-link-search=native={}", libdir.display());
    println!("cargo:rustc-link-lib=dylib=MLIR");
    println!("cargo:rustc-link-lib=dylib=LLVM");
    // Find libMLIR.so at run time without LD_LIBRARY_PATH (Debian does not put llvm-22/lib on the loader path):
    // for the library and for this crate's tests.
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", libdir.display());
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,liblego_capi.so");

    // The shim that registers lego passes and pipelines in MLIR's global pass registry (csrc/pass_registry.cpp:
    // MLIR's C API has no way to register a pass by name). Without a C++ compiler the library still builds;
    // legoRegisterCorePasses / legoRegisterPasses then only make them available through lego's own registry.
    println!("cargo:rerun-if-changed=csrc/pass_registry.cpp");
    println!("cargo::rustc-check-cfg=cfg(lego_no_pass_registry_shim)");
    let include = libdir.parent().map(|prefix| prefix.join("include")).unwrap_or_else(|| PathBuf::from("/usr/lib/llvm-22/include"));
    let compiled = cc::Build::new()
        .cpp(true)
        .std("c++17")
        .flag_if_supported("-fno-rtti")
        .flag_if_supported("-fno-exceptions")
        .flag_if_supported("-w")
        .include(include)
        .file("csrc/pass_registry.cpp")
        .try_compile("lego_capi_pass_registry");
    if let Err(error) = compiled {
        println!("cargo:warning=lego-capi: could not compile the pass-registry shim ({error}); lego passes will not be registered in MLIR's global pass registry");
        println!("cargo:rustc-cfg=lego_no_pass_registry_shim");
    }
}
