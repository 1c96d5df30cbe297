//! `lego-to-wasm`: lego layouts compiled to a WebAssembly (wasm32) object, in-process.
//!
//! The pipeline is `lego-to-llvm`'s CPU path (lego-lower, then the upstream conversions to the LLVM dialect)
//! followed by `lego-wasm-emit`, the pass of this file: it translates the module to LLVM IR, runs LLVM's
//! optimization pipeline and LLVM 22's WebAssembly backend (through LLVM's C API, linked into every lego
//! binary by mlir-sys: the static `libLLVMWebAssembly*.a` of `/usr/lib/llvm-22/lib`), and stores the result on
//! the top-level module:
//! - `format=bin` (default; alias `binary`): `lego.wasm_binary`, the **relocatable wasm32 object file**
//!   (`wasm32-unknown-unknown`, as `llc -filetype=obj` writes it), base64 (RFC 4648, padded) — the published
//!   pipeline's output, which its Python frontend links with `wasm-ld` into an instantiable module;
//! - `format=assembly` (alias `isa`): `lego.wasm_assembly`, the same object as LLVM's WebAssembly assembly
//!   text (`llc -filetype=asm`), for reading.
//!
//! No link step runs here: an object is what the published pipeline hands out, and the output of a compiler
//! pass does not depend on which external tools the machine has. Linking is one command:
//! `wasm-ld --no-entry obj.o -o module.wasm` (Debian's `lld-22`). Every function the module defines with
//! external linkage (each public `func.func`) is marked `wasm-export-name`, so that command exports them by
//! name without `--export` flags.
//!
//! Index type: wasm32 pointers are 32 bits, but lego index arithmetic stays **64-bit** (LLVM's `i64`, a
//! wasm `i64`; JavaScript passes and receives `BigInt`s). semantics.md defines index arithmetic as 64-bit
//! address arithmetic, and lego-lower's proved rewrites (lego-arith-simplification) assume it; a 32-bit index
//! would wrap where intermediate values pass 2³² and change results. The LLVM module gets wasm32's data layout
//! (`p:32:32`): memory addresses are 32 bits, and LLVM truncates 64-bit offsets where it forms an address.

use super::Format;
use crate::external::{into_mlir_pass, LegoPass, PassFailure, PassId};
use crate::registry::{Entry, OptionSpec, Options, PassInfo, RegistryError};
use lego_dialect::verify::emit_error;
use melior::{
    ir::{attribute::AttributeLike, operation::OperationLike, OperationRef},
    StringRef,
};
use std::ffi::{c_char, c_int, c_uint, CStr, CString};

/// The attribute `format=bin` sets (the published name).
pub const WASM_BINARY_ATTRIBUTE: &str = "lego.wasm_binary";
/// The attribute `format=assembly` sets.
pub const WASM_ASSEMBLY_ATTRIBUTE: &str = "lego.wasm_assembly";
/// The target triple of the object.
pub const WASM_TRIPLE: &str = "wasm32-unknown-unknown";

const WASM_OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "opt-level", default: "2", description: "LLVM optimization level (0-3)" },
    OptionSpec {
        name: "format",
        default: "bin",
        description: "bin/binary: lego.wasm_binary = the relocatable wasm32 object, base64 (link with wasm-ld); assembly/isa: lego.wasm_assembly = its WebAssembly assembly text",
    },
];

const EMIT_OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "opt-level", default: "2", description: "LLVM optimization level (0-3)" },
    OptionSpec { name: "format", default: "bin", description: "bin/binary (lego.wasm_binary, base64 object) or assembly/isa (lego.wasm_assembly, text)" },
    OptionSpec { name: "pipeline", default: "", description: "name of the pipeline this step belongs to, for messages" },
];

/// Registry entries: the pipeline and its emission step.
pub fn passes() -> Vec<PassInfo> {
    vec![
        PassInfo {
            name: "lego-to-wasm",
            description: "lego-lower, the CPU path to the LLVM dialect (as lego-to-llvm), then LLVM's WebAssembly backend: lego.wasm_binary (wasm32 object, base64) or lego.wasm_assembly",
            options: WASM_OPTIONS,
            entry: Entry::Pipeline(lego_to_wasm),
        },
        PassInfo {
            name: "lego-wasm-emit",
            description: "Translate an LLVM-dialect module to LLVM IR and compile it for wasm32 with LLVM's WebAssembly backend; the object (base64) or its assembly becomes a top-module attribute",
            options: EMIT_OPTIONS,
            entry: Entry::Pass(|options: &Options| {
                static ID: PassId = PassId::new();
                let opt_level = super::opt_level(options)?;
                let format = Format::parse(options, &[Format::Binary, Format::Assembly])?;
                let pipeline = options.string("pipeline").trim();
                let pipeline = if pipeline.is_empty() { "lego-wasm-emit".to_string() } else { pipeline.to_string() };
                Ok(into_mlir_pass(WasmEmit { opt_level, format, pipeline }, &ID))
            }),
        },
    ]
}

fn lego_to_wasm(options: &Options) -> Result<String, RegistryError> {
    let pipeline = options.pass_name();
    // Validated here, before any pass runs, so a bad option is reported without reading the input.
    let opt_level = super::opt_level(options)?;
    let format = Format::parse(options, &[Format::Binary, Format::Assembly])?;
    Ok(format!(
        "{}, lego-wasm-emit{{opt-level={opt_level} format={} pipeline={pipeline}}}",
        super::cpu_to_llvm(pipeline),
        format.name()
    ))
}

#[derive(Clone)]
struct WasmEmit {
    opt_level: u64,
    format: Format,
    pipeline: String,
}

impl LegoPass for WasmEmit {
    fn name(&self) -> &'static str {
        "lego-wasm-emit"
    }

    fn description(&self) -> &'static str {
        "LLVM dialect to a wasm32 object (lego.wasm_binary) or its assembly (lego.wasm_assembly)"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let file_type = match self.format {
            Format::Assembly => llvm::ASSEMBLY_FILE,
            _ => llvm::OBJECT_FILE,
        };
        let bytes = match compile(root, self.opt_level, file_type) {
            Ok(bytes) => bytes,
            Err(message) => {
                let message = format!("{}: {message}", self.pipeline);
                emit_error(root.location(), &message);
                return Err(PassFailure(message));
            }
        };
        let (name, value) = match self.format {
            Format::Assembly => (WASM_ASSEMBLY_ATTRIBUTE, String::from_utf8_lossy(&bytes).into_owned()),
            _ => (WASM_BINARY_ATTRIBUTE, base64(&bytes)),
        };
        let context = crate::mlir_context::ContextHandle::of(&root);
        let attribute = melior::ir::attribute::StringAttribute::new(context.get(), &value);
        let name = StringRef::new(name);
        // SAFETY: `root` is the live operation the pass runs on; the attribute belongs to its context.
        unsafe { mlir_sys::mlirOperationSetDiscardableAttributeByName(root.to_raw(), name.to_raw(), attribute.to_raw()) };
        Ok(())
    }

    fn may_leave_lego_ops(&self) -> bool {
        // Runs after lego-lower and the LLVM conversions: the module holds LLVM dialect only.
        false
    }
}

/// LLVM-dialect `root` → LLVM IR → LLVM's optimization pipeline at `opt_level` → wasm32 object or assembly.
fn compile(root: OperationRef<'_, '_>, opt_level: u64, file_type: c_uint) -> Result<Vec<u8>, String> {
    llvm::initialize_webassembly();
    // One LLVM context per run: nothing is shared between threads or runs.
    let context = llvm::Context::new();
    // SAFETY: `root` is a live module operation; the LLVM context outlives the returned module (the module is
    // dropped first, below). Translation failures are reported by MLIR at the op that failed.
    let module = unsafe { mlir_sys::mlirTranslateModuleToLLVMIR(root.to_raw(), context.0) };
    if module.is_null() {
        return Err("could not translate the module to LLVM IR (is it all LLVM dialect? the errors above say where not)".into());
    }
    let module = llvm::Module(module);
    let machine = llvm::TargetMachine::wasm32(opt_level)?;
    module.set_target(&machine);
    module.mark_exports(&context);
    module.verify()?;
    module.optimize(&machine, opt_level)?;
    machine.emit(&module, file_type)
}

/// Base64 (RFC 4648 §4, standard alphabet, `=` padding), as `base64.b64decode` / `Buffer.from(s, 'base64')` read.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The few functions of LLVM's C API (llvm-c/*.h) the emission needs, with owning wrappers. mlir-sys links
/// every LLVM component library statically (its `llvm-config --libnames`), WebAssembly's included, but binds
/// only MLIR's C API, so they are declared here.
mod llvm {
    use super::*;
    use mlir_sys::{LLVMContextRef, LLVMModuleRef};

    type Bool = c_int;
    type TargetRef = *mut std::ffi::c_void;
    type TargetMachineRef = *mut std::ffi::c_void;
    type TargetDataRef = *mut std::ffi::c_void;
    type MemoryBufferRef = *mut std::ffi::c_void;
    type ValueRef = *mut std::ffi::c_void;
    type AttributeRef = *mut std::ffi::c_void;
    type ErrorRef = *mut std::ffi::c_void;
    type PassBuilderOptionsRef = *mut std::ffi::c_void;

    /// `LLVMCodeGenFileType`.
    pub const ASSEMBLY_FILE: c_uint = 0;
    pub const OBJECT_FILE: c_uint = 1;
    /// `LLVMRelocDefault`, `LLVMCodeModelDefault`.
    const RELOC_DEFAULT: c_uint = 0;
    const CODE_MODEL_DEFAULT: c_uint = 0;
    /// `LLVMReturnStatusAction`.
    const RETURN_STATUS_ACTION: c_uint = 2;
    /// `LLVMExternalLinkage`.
    const EXTERNAL_LINKAGE: c_uint = 0;
    /// `LLVMAttributeFunctionIndex` (`~0U`).
    const FUNCTION_INDEX: c_uint = !0;

    extern "C" {
        fn LLVMInitializeWebAssemblyTargetInfo();
        fn LLVMInitializeWebAssemblyTarget();
        fn LLVMInitializeWebAssemblyTargetMC();
        fn LLVMInitializeWebAssemblyAsmPrinter();
        fn LLVMContextCreate() -> LLVMContextRef;
        fn LLVMContextDispose(context: LLVMContextRef);
        fn LLVMDisposeModule(module: LLVMModuleRef);
        fn LLVMSetTarget(module: LLVMModuleRef, triple: *const c_char);
        fn LLVMSetModuleDataLayout(module: LLVMModuleRef, layout: TargetDataRef);
        fn LLVMGetTargetFromTriple(triple: *const c_char, target: *mut TargetRef, error: *mut *mut c_char) -> Bool;
        fn LLVMCreateTargetMachine(
            target: TargetRef,
            triple: *const c_char,
            cpu: *const c_char,
            features: *const c_char,
            level: c_uint,
            reloc: c_uint,
            code_model: c_uint,
        ) -> TargetMachineRef;
        fn LLVMDisposeTargetMachine(machine: TargetMachineRef);
        fn LLVMCreateTargetDataLayout(machine: TargetMachineRef) -> TargetDataRef;
        fn LLVMDisposeTargetData(layout: TargetDataRef);
        fn LLVMTargetMachineEmitToMemoryBuffer(
            machine: TargetMachineRef,
            module: LLVMModuleRef,
            file_type: c_uint,
            error: *mut *mut c_char,
            buffer: *mut MemoryBufferRef,
        ) -> Bool;
        fn LLVMGetBufferStart(buffer: MemoryBufferRef) -> *const c_char;
        fn LLVMGetBufferSize(buffer: MemoryBufferRef) -> usize;
        fn LLVMDisposeMemoryBuffer(buffer: MemoryBufferRef);
        fn LLVMDisposeMessage(message: *mut c_char);
        fn LLVMVerifyModule(module: LLVMModuleRef, action: c_uint, message: *mut *mut c_char) -> Bool;
        fn LLVMGetFirstFunction(module: LLVMModuleRef) -> ValueRef;
        fn LLVMGetNextFunction(function: ValueRef) -> ValueRef;
        fn LLVMIsDeclaration(global: ValueRef) -> Bool;
        fn LLVMGetLinkage(global: ValueRef) -> c_uint;
        fn LLVMGetValueName2(value: ValueRef, length: *mut usize) -> *const c_char;
        fn LLVMCreateStringAttribute(
            context: LLVMContextRef,
            key: *const c_char,
            key_length: c_uint,
            value: *const c_char,
            value_length: c_uint,
        ) -> AttributeRef;
        fn LLVMAddAttributeAtIndex(function: ValueRef, index: c_uint, attribute: AttributeRef);
        fn LLVMCreatePassBuilderOptions() -> PassBuilderOptionsRef;
        fn LLVMDisposePassBuilderOptions(options: PassBuilderOptionsRef);
        fn LLVMRunPasses(
            module: LLVMModuleRef,
            passes: *const c_char,
            machine: TargetMachineRef,
            options: PassBuilderOptionsRef,
        ) -> ErrorRef;
        fn LLVMGetErrorMessage(error: ErrorRef) -> *mut c_char;
        fn LLVMDisposeErrorMessage(message: *mut c_char);
    }

    /// Registers the WebAssembly target with LLVM's target registry (once per process; LLVM's own
    /// registration is idempotent, the `Once` only saves the calls).
    pub fn initialize_webassembly() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: plain registration functions without arguments.
        ONCE.call_once(|| unsafe {
            LLVMInitializeWebAssemblyTargetInfo();
            LLVMInitializeWebAssemblyTarget();
            LLVMInitializeWebAssemblyTargetMC();
            LLVMInitializeWebAssemblyAsmPrinter();
        });
    }

    /// Takes an LLVM-allocated message (`LLVMDisposeMessage`), or `fallback` when there is none.
    fn take_message(message: *mut c_char, fallback: &str) -> String {
        if message.is_null() {
            return fallback.to_string();
        }
        // SAFETY: LLVM returns a NUL-terminated string that we own and dispose of once.
        let text = unsafe { CStr::from_ptr(message) }.to_string_lossy().trim().to_string();
        unsafe { LLVMDisposeMessage(message) };
        if text.is_empty() {
            fallback.to_string()
        } else {
            text
        }
    }

    pub struct Context(pub LLVMContextRef);

    impl Context {
        pub fn new() -> Self {
            // SAFETY: creates a fresh context, disposed of in `drop`.
            Context(unsafe { LLVMContextCreate() })
        }
    }

    impl Drop for Context {
        fn drop(&mut self) {
            // SAFETY: created by `new`; every module of it was dropped before (`compile` declares the context
            // first, so it is dropped last).
            unsafe { LLVMContextDispose(self.0) }
        }
    }

    pub struct Module(pub LLVMModuleRef);

    impl Drop for Module {
        fn drop(&mut self) {
            // SAFETY: the module came from mlirTranslateModuleToLLVMIR and is owned here.
            unsafe { LLVMDisposeModule(self.0) }
        }
    }

    impl Module {
        pub fn set_target(&self, machine: &TargetMachine) {
            let triple = CString::new(WASM_TRIPLE).unwrap_or_default();
            // SAFETY: live module and machine; the data layout is copied into the module.
            unsafe {
                LLVMSetTarget(self.0, triple.as_ptr());
                let layout = LLVMCreateTargetDataLayout(machine.0);
                LLVMSetModuleDataLayout(self.0, layout);
                LLVMDisposeTargetData(layout);
            }
        }

        /// Marks each function defined with external linkage for export under its own name (clang's
        /// `__attribute__((export_name))`): the object then tells `wasm-ld` what to export.
        pub fn mark_exports(&self, context: &Context) {
            let key = "wasm-export-name";
            // SAFETY: walks the live module's function list; names are borrowed from LLVM while in use.
            unsafe {
                let mut function = LLVMGetFirstFunction(self.0);
                while !function.is_null() {
                    if LLVMIsDeclaration(function) == 0 && LLVMGetLinkage(function) == EXTERNAL_LINKAGE {
                        let mut length = 0usize;
                        let name = LLVMGetValueName2(function, &mut length);
                        if !name.is_null() && length > 0 {
                            let attribute = LLVMCreateStringAttribute(
                                context.0,
                                key.as_ptr() as *const c_char,
                                key.len() as c_uint,
                                name,
                                length as c_uint,
                            );
                            LLVMAddAttributeAtIndex(function, FUNCTION_INDEX, attribute);
                        }
                    }
                    function = LLVMGetNextFunction(function);
                }
            }
        }

        pub fn verify(&self) -> Result<(), String> {
            let mut message = std::ptr::null_mut();
            // SAFETY: live module; the message is taken (and disposed of) below.
            let failed = unsafe { LLVMVerifyModule(self.0, RETURN_STATUS_ACTION, &mut message) } != 0;
            let text = take_message(message, "");
            if failed {
                Err(format!("the translated LLVM IR is invalid: {text}"))
            } else {
                Ok(())
            }
        }

        /// LLVM's default module pipeline at `opt_level` (what `opt -O<n>` and clang run).
        pub fn optimize(&self, machine: &TargetMachine, opt_level: u64) -> Result<(), String> {
            let passes = CString::new(format!("default<O{opt_level}>")).unwrap_or_default();
            // SAFETY: live module and machine; options and error are disposed of here.
            unsafe {
                let options = LLVMCreatePassBuilderOptions();
                let error = LLVMRunPasses(self.0, passes.as_ptr(), machine.0, options);
                LLVMDisposePassBuilderOptions(options);
                if error.is_null() {
                    return Ok(());
                }
                let message = LLVMGetErrorMessage(error);
                let text = CStr::from_ptr(message).to_string_lossy().into_owned();
                LLVMDisposeErrorMessage(message);
                Err(format!("LLVM's optimization pipeline failed: {text}"))
            }
        }
    }

    pub struct TargetMachine(TargetMachineRef);

    impl Drop for TargetMachine {
        fn drop(&mut self) {
            // SAFETY: created by `wasm32`, owned here.
            unsafe { LLVMDisposeTargetMachine(self.0) }
        }
    }

    impl TargetMachine {
        /// wasm32 with LLVM's `generic` CPU (the feature set clang uses by default), code generation at
        /// `opt_level` (LLVMCodeGenOptLevel: 0 none … 3 aggressive, the same numbers).
        pub fn wasm32(opt_level: u64) -> Result<Self, String> {
            let triple = CString::new(WASM_TRIPLE).unwrap_or_default();
            let mut target = std::ptr::null_mut();
            let mut message = std::ptr::null_mut();
            // SAFETY: valid C strings; outputs written by LLVM.
            let failed = unsafe { LLVMGetTargetFromTriple(triple.as_ptr(), &mut target, &mut message) } != 0;
            let text = take_message(message, "unknown target");
            if failed || target.is_null() {
                return Err(format!("LLVM has no WebAssembly target ({text}); this LLVM was built without it"));
            }
            let cpu = CString::new("generic").unwrap_or_default();
            let features = CString::new("").unwrap_or_default();
            let level = opt_level.min(3) as c_uint;
            // SAFETY: `target` is a registered target; the strings are copied by LLVM.
            let machine = unsafe {
                LLVMCreateTargetMachine(target, triple.as_ptr(), cpu.as_ptr(), features.as_ptr(), level, RELOC_DEFAULT, CODE_MODEL_DEFAULT)
            };
            if machine.is_null() {
                return Err("LLVM could not create a wasm32 target machine".into());
            }
            Ok(TargetMachine(machine))
        }

        pub fn emit(&self, module: &Module, file_type: c_uint) -> Result<Vec<u8>, String> {
            let mut message = std::ptr::null_mut();
            let mut buffer = std::ptr::null_mut();
            // SAFETY: live machine and module; the buffer is copied out and disposed of.
            unsafe {
                let failed = LLVMTargetMachineEmitToMemoryBuffer(self.0, module.0, file_type, &mut message, &mut buffer) != 0;
                let text = take_message(message, "no message");
                if failed || buffer.is_null() {
                    return Err(format!("LLVM's WebAssembly backend failed: {text}"));
                }
                let start = LLVMGetBufferStart(buffer) as *const u8;
                let bytes = std::slice::from_raw_parts(start, LLVMGetBufferSize(buffer)).to_vec();
                LLVMDisposeMemoryBuffer(buffer);
                Ok(bytes)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::base64;
    use crate::registry::{Entry, Options, Registry, RegistryError};

    fn expand(options: &str) -> Result<String, RegistryError> {
        let registry = Registry::default();
        let info = registry.lookup("lego-to-wasm").expect("registered");
        let options = Options::parse(info, Some(options))?;
        match info.entry {
            Entry::Pipeline(expand) => expand(&options),
            Entry::Pass(_) => panic!("lego-to-wasm is a pipeline"),
        }
    }

    #[test]
    fn wasm_pipeline_is_the_cpu_path_then_emission() {
        let text = expand("").unwrap();
        assert!(text.starts_with("lego-reject-gpu-code{pipeline=lego-to-wasm}, lego-lower,"), "{text}");
        assert!(text.ends_with("reconcile-unrealized-casts, lego-wasm-emit{opt-level=2 format=binary pipeline=lego-to-wasm}"), "{text}");
        let text = expand("format=isa opt-level=0").unwrap();
        assert!(text.ends_with("lego-wasm-emit{opt-level=0 format=assembly pipeline=lego-to-wasm}"), "{text}");
        let error = expand("format=bogus").unwrap_err().to_string();
        assert!(error.contains("invalid value 'bogus' for option 'format' of 'lego-to-wasm': expected one of binary/bin, assembly/isa"), "{error}");
        let error = expand("format=fatbin").unwrap_err().to_string();
        assert!(error.contains("option 'format'"), "{error}");
        assert!(expand("opt-level=4").is_err());
    }

    #[test]
    fn base64_matches_rfc4648_vectors() {
        // RFC 4648 §10 test vectors.
        let cases = [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")];
        for (input, expected) in cases {
            assert_eq!(base64(input.as_bytes()), expected, "{input}");
        }
        // The wasm magic number and version, as every lego.wasm_binary starts.
        assert_eq!(base64(b"\0asm\x01\0\0\0"), "AGFzbQEAAAA=");
    }
}
