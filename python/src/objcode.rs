//! LLVM IR to a relocatable object file, in-process (`lego._lego.emit_object`): what the CPU kernel DSL ran
//! `llc` for. The wheel holds LLVM's X86 and AArch64 backends (python/build.rs), so a machine without LLVM
//! compiles CPU kernels too; only the system's C compiler driver is needed, to link the object into a shared
//! object (lego/backend/cpu_builder.py).
//!
//! Through LLVM's C API (in `libLLVM.so` for the development build, in the static archives for the wheel).
//! Codegen only, like `llc -O<n>`, unless `middle_end` asks for LLVM's optimization pipeline first (the vector
//! CPU targets do: MLIR's pipeline leaves unrolling, loop-invariant code motion and instruction combining to it).

use std::ffi::{c_char, c_int, c_void, CStr, CString};

use pyo3::{prelude::*, types::PyBytes};

use crate::{guard::guard, LegoError};

type Ref = *mut c_void;

// LLVMCodeGenOptLevel, LLVMRelocMode, LLVMCodeModel, LLVMCodeGenFileType of llvm-c/TargetMachine.h.
const RELOC_PIC: c_int = 2;
const CODE_MODEL_DEFAULT: c_int = 0;
const OBJECT_FILE: c_int = 1;

// mlir-sys declares a few of these (LLVMContextCreate, …) with its own opaque pointer types; the ABI is the
// same pointer.
#[allow(clashing_extern_declarations)]
extern "C" {
    fn LLVMContextCreate() -> Ref;
    fn LLVMContextDispose(context: Ref);
    fn LLVMCreateMemoryBufferWithMemoryRangeCopy(data: *const c_char, length: usize, name: *const c_char) -> Ref;
    fn LLVMParseIRInContext(context: Ref, buffer: Ref, module: *mut Ref, message: *mut *mut c_char) -> c_int;
    fn LLVMDisposeModule(module: Ref);
    fn LLVMSetTarget(module: Ref, triple: *const c_char);
    fn LLVMSetDataLayout(module: Ref, layout: *const c_char);
    fn LLVMGetDefaultTargetTriple() -> *mut c_char;
    fn LLVMGetHostCPUName() -> *mut c_char;
    fn LLVMGetHostCPUFeatures() -> *mut c_char;
    fn LLVMGetTargetFromTriple(triple: *const c_char, target: *mut Ref, message: *mut *mut c_char) -> c_int;
    fn LLVMCreateTargetMachine(
        target: Ref,
        triple: *const c_char,
        cpu: *const c_char,
        features: *const c_char,
        level: c_int,
        reloc: c_int,
        code_model: c_int,
    ) -> Ref;
    fn LLVMDisposeTargetMachine(machine: Ref);
    fn LLVMCreateTargetDataLayout(machine: Ref) -> Ref;
    fn LLVMCopyStringRepOfTargetData(layout: Ref) -> *mut c_char;
    fn LLVMDisposeTargetData(layout: Ref);
    fn LLVMTargetMachineEmitToMemoryBuffer(
        machine: Ref,
        module: Ref,
        file_type: c_int,
        message: *mut *mut c_char,
        buffer: *mut Ref,
    ) -> c_int;
    fn LLVMGetBufferStart(buffer: Ref) -> *const c_char;
    fn LLVMGetBufferSize(buffer: Ref) -> usize;
    fn LLVMDisposeMemoryBuffer(buffer: Ref);
    fn LLVMDisposeMessage(message: *mut c_char);
    fn LLVMCreatePassBuilderOptions() -> Ref;
    fn LLVMPassBuilderOptionsSetLoopVectorization(options: Ref, on: c_int);
    fn LLVMPassBuilderOptionsSetSLPVectorization(options: Ref, on: c_int);
    fn LLVMDisposePassBuilderOptions(options: Ref);
    fn LLVMRunPasses(module: Ref, passes: *const c_char, machine: Ref, options: Ref) -> Ref;
    fn LLVMGetErrorMessage(error: Ref) -> *mut c_char;
    fn LLVMDisposeErrorMessage(message: *mut c_char);

    fn LLVMInitializeX86TargetInfo();
    fn LLVMInitializeX86Target();
    fn LLVMInitializeX86TargetMC();
    fn LLVMInitializeX86AsmPrinter();
    fn LLVMInitializeAArch64TargetInfo();
    fn LLVMInitializeAArch64Target();
    fn LLVMInitializeAArch64TargetMC();
    fn LLVMInitializeAArch64AsmPrinter();
}

/// An LLVM-owned message as a Rust string (and disposed).
unsafe fn take_message(message: *mut c_char) -> String {
    if message.is_null() {
        return String::new();
    }
    let text = CStr::from_ptr(message).to_string_lossy().into_owned();
    LLVMDisposeMessage(message);
    text
}

fn c_string(what: &str, text: &str) -> PyResult<CString> {
    CString::new(text).map_err(|_| LegoError::new_err(format!("emit_object: {what} contains a NUL byte")))
}

/// The object file (ELF bytes) of `llvm_ir` for `triple` (default: the host's) and `cpu` (`"native"`: the
/// host CPU and its features; empty: the triple's generic CPU), at codegen level `opt_level` (0–3), position
/// independent. With `middle_end`, LLVM's optimization pipeline `default<O<n>>` runs first (what `opt -O<n>`
/// does: unrolling, LICM, instruction combining), its loop and SLP vectorizers off, so every vector the object
/// holds is lego-vectorize's. An error of LLVM's (IR that does not parse, an unknown triple or CPU) is a
/// `LegoError`.
#[pyfunction]
#[pyo3(signature = (llvm_ir, opt_level = 2, cpu = "", triple = None, features = "", middle_end = false))]
pub fn emit_object<'py>(
    py: Python<'py>,
    llvm_ir: &str,
    opt_level: u32,
    cpu: &str,
    triple: Option<&str>,
    features: &str,
    middle_end: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    if opt_level > 3 {
        return Err(LegoError::new_err(format!("emit_object: opt_level {opt_level} is not 0, 1, 2 or 3")));
    }
    let object = guard("compiling LLVM IR to an object file", || unsafe {
        emit(llvm_ir, opt_level, cpu, triple, features, middle_end)
    })?;
    Ok(PyBytes::new(py, &object))
}

unsafe fn emit(
    llvm_ir: &str,
    opt_level: u32,
    cpu: &str,
    triple: Option<&str>,
    features: &str,
    middle_end: bool,
) -> PyResult<Vec<u8>> {
    // Idempotent in LLVM; registers only the two CPU backends this needs.
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();

    let triple = match triple {
        Some(triple) => c_string("the triple", triple)?,
        None => c_string("the triple", &take_message(LLVMGetDefaultTargetTriple()))?,
    };
    let (cpu, features) = if cpu == "native" {
        (take_message(LLVMGetHostCPUName()), take_message(LLVMGetHostCPUFeatures()))
    } else {
        (cpu.to_string(), features.to_string())
    };
    let (cpu, features) = (c_string("the CPU", &cpu)?, c_string("the features", &features)?);

    let mut target: Ref = std::ptr::null_mut();
    let mut message: *mut c_char = std::ptr::null_mut();
    if LLVMGetTargetFromTriple(triple.as_ptr(), &mut target, &mut message) != 0 {
        return Err(LegoError::new_err(format!("emit_object: {}", take_message(message))));
    }
    let machine =
        LLVMCreateTargetMachine(target, triple.as_ptr(), cpu.as_ptr(), features.as_ptr(), opt_level as c_int, RELOC_PIC, CODE_MODEL_DEFAULT);
    if machine.is_null() {
        return Err(LegoError::new_err("emit_object: LLVM could not create a target machine for this triple and CPU"));
    }

    let context = LLVMContextCreate();
    let name = c"kernel.ll";
    // Parsing takes the buffer over.
    let buffer = LLVMCreateMemoryBufferWithMemoryRangeCopy(llvm_ir.as_ptr().cast(), llvm_ir.len(), name.as_ptr());
    let mut module: Ref = std::ptr::null_mut();
    let result = if LLVMParseIRInContext(context, buffer, &mut module, &mut message) != 0 {
        Err(LegoError::new_err(format!("emit_object: the LLVM IR does not parse: {}", take_message(message))))
    } else {
        LLVMSetTarget(module, triple.as_ptr());
        let layout = LLVMCreateTargetDataLayout(machine);
        let layout_text = LLVMCopyStringRepOfTargetData(layout);
        LLVMSetDataLayout(module, layout_text);
        LLVMDisposeMessage(layout_text);
        LLVMDisposeTargetData(layout);
        let optimized = if middle_end && opt_level > 0 { optimize(module, machine, opt_level) } else { Ok(()) };
        let mut object: Ref = std::ptr::null_mut();
        let failed = if optimized.is_err() {
            1
        } else {
            LLVMTargetMachineEmitToMemoryBuffer(machine, module, OBJECT_FILE, &mut message, &mut object)
        };
        let result = if let Err(error) = optimized {
            Err(error)
        } else if failed != 0 {
            Err(LegoError::new_err(format!("emit_object: LLVM could not compile the module: {}", take_message(message))))
        } else {
            let start = LLVMGetBufferStart(object).cast::<u8>();
            let bytes = std::slice::from_raw_parts(start, LLVMGetBufferSize(object)).to_vec();
            LLVMDisposeMemoryBuffer(object);
            Ok(bytes)
        };
        LLVMDisposeModule(module);
        result
    };
    LLVMContextDispose(context);
    LLVMDisposeTargetMachine(machine);
    result
}

/// `default<O<level>>` on `module` for `machine`, without LLVM's vectorizers.
unsafe fn optimize(module: Ref, machine: Ref, level: u32) -> PyResult<()> {
    let options = LLVMCreatePassBuilderOptions();
    LLVMPassBuilderOptionsSetLoopVectorization(options, 0);
    LLVMPassBuilderOptionsSetSLPVectorization(options, 0);
    let passes = CString::new(format!("default<O{level}>")).expect("no NUL in a pass pipeline");
    let error = LLVMRunPasses(module, passes.as_ptr(), machine, options);
    LLVMDisposePassBuilderOptions(options);
    if error.is_null() {
        return Ok(());
    }
    let message = LLVMGetErrorMessage(error);
    let text = CStr::from_ptr(message).to_string_lossy().into_owned();
    LLVMDisposeErrorMessage(message);
    Err(LegoError::new_err(format!("emit_object: LLVM's optimization pipeline failed: {text}")))
}
