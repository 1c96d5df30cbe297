//! The C API of lego: `include/lego-c/Lego.h`, in the style of MLIR's own C API.
//!
//! Every function is `extern "C"`, checks its handles for null, and runs its body under `catch_unwind`: no
//! input makes it abort the host or unwind into C. Failures are `MlirLogicalResult` failures or null handles;
//! the reason goes to the context's diagnostic handlers when the call has a context (a context, module or
//! operation argument), to the `errorCallback` for pass-manager calls (MLIR's convention for
//! `mlirOpPassManagerAddPipeline`), and always to [`legoGetLastErrorMessage`].
//!
//! Passes and pipelines are created through [`lego_passes::Registry`], the registry `lego-opt` uses, so the C
//! API offers exactly the passes and options of the command line.
//!
//! Linking: see `build.rs` — this library uses the host's `libMLIR.so`, never a copy of its own.

#![allow(non_snake_case)]

use lego_dialect::source::{self, PrintOptions};
use lego_passes::{
    pipeline_text::{PassElement, PipelineElement},
    registry, Entry, Registry,
};
use melior::{
    ir::{operation::OperationLike, Location, OperationRef},
    pass::{OperationPassManager, PassManager},
    Context, ContextRef,
};
use mlir_sys::{
    MlirContext, MlirLogicalResult, MlirModule, MlirOpPassManager, MlirOperation, MlirPass, MlirStringCallback,
    MlirStringRef,
};
use std::{
    cell::RefCell,
    ffi::{c_char, c_void, CString},
    panic::{catch_unwind, AssertUnwindSafe},
};

/// `LEGO_C_API_VERSION` of the header this library implements. Bump on any incompatible change.
pub const API_VERSION: i32 = 1;
/// The MLIR major version this library is built against (the host must use the same `libMLIR.so`).
pub const MLIR_MAJOR_VERSION: i32 = 22;

const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");

// ---------------------------------------------------------------------------------------------------------
// Plumbing: results, strings, the last error, the panic guard.

fn success() -> MlirLogicalResult {
    MlirLogicalResult { value: 1 }
}

fn failure() -> MlirLogicalResult {
    MlirLogicalResult { value: 0 }
}

fn result(ok: bool) -> MlirLogicalResult {
    if ok {
        success()
    } else {
        failure()
    }
}

fn null_pass() -> MlirPass {
    MlirPass { ptr: std::ptr::null_mut() }
}

fn null_module() -> MlirModule {
    MlirModule { ptr: std::ptr::null_mut() }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    let message = CString::new(message.replace('\0', "")).unwrap_or_default();
    LAST_ERROR.with(|last| *last.borrow_mut() = message);
}

fn clear_last_error() {
    LAST_ERROR.with(|last| *last.borrow_mut() = CString::default());
}

/// An error with a context to report it on: an error diagnostic at `location` (unknown location when none),
/// and the last error.
fn report(context: &Context, location: Option<Location>, message: &str) {
    set_last_error(message);
    let location = location.unwrap_or_else(|| Location::unknown(context));
    lego_dialect::verify::emit_error(location, message);
}

/// An error on a pass-manager call: `callback` (when given) and the last error.
fn report_to_callback(callback: MlirStringCallback, user_data: *mut c_void, message: &str) {
    set_last_error(message);
    call_back(callback, user_data, message);
}

fn call_back(callback: MlirStringCallback, user_data: *mut c_void, message: &str) {
    if let Some(callback) = callback {
        let text = melior::StringRef::new(message);
        // SAFETY: the host passed a valid callback and its user data; the string outlives the call.
        unsafe { callback(text.to_raw(), user_data) };
    }
}

/// Runs `body`, turning a panic (a bug in lego) into `fallback` and a last-error message.
fn guard<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(value) => value,
        Err(panic) => {
            let detail = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("unknown cause");
            set_last_error(&format!("internal error in the lego C API: {detail} (please report this bug)"));
            fallback
        }
    }
}

/// The text of a C string reference: `None` when it is not UTF-8 or its data is null with a non-zero length.
fn text<'a>(string: MlirStringRef) -> Option<&'a str> {
    if string.data.is_null() {
        return (string.length == 0).then_some("");
    }
    // SAFETY: the host promises `length` readable bytes at `data` for the duration of the call.
    let bytes = unsafe { std::slice::from_raw_parts(string.data as *const u8, string.length) };
    std::str::from_utf8(bytes).ok()
}

/// Runs `body` with `context` as a melior `&Context` (which never destroys the host's context); `None` for a
/// null context.
///
/// `ContextRef::to_ref` returns a reference *to the `ContextRef` itself* (the two have the same layout), so
/// the `ContextRef` must outlive every use: hence a closure rather than a returned reference.
fn with_context<T>(context: MlirContext, body: impl FnOnce(&Context) -> T) -> Option<T> {
    if context.ptr.is_null() {
        return None;
    }
    // SAFETY: the host passes a live context (null was excluded above).
    let reference = unsafe { ContextRef::from_raw(context) };
    let context: &Context = unsafe { reference.to_ref() };
    Some(body(context))
}

fn registry() -> &'static Registry {
    static REGISTRY: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
    REGISTRY.get_or_init(Registry::default)
}

// ---------------------------------------------------------------------------------------------------------
// Version.

/// `LEGO_C_API_VERSION` of this library; compare with the header's macro to detect a mismatched library.
#[no_mangle]
pub extern "C" fn legoGetApiVersion() -> i32 {
    API_VERSION
}

/// The lego release, e.g. "0.1.0" (NUL-terminated, static).
#[no_mangle]
pub extern "C" fn legoGetVersion() -> MlirStringRef {
    MlirStringRef { data: VERSION.as_ptr() as *const c_char, length: VERSION.len() - 1 }
}

/// The LLVM/MLIR major version the library was built for.
#[no_mangle]
pub extern "C" fn legoGetMlirMajorVersion() -> i32 {
    MLIR_MAJOR_VERSION
}

/// The message of the last failed call on this thread ("" if none): valid until the next lego call on the
/// thread.
#[no_mangle]
pub extern "C" fn legoGetLastErrorMessage() -> MlirStringRef {
    LAST_ERROR.with(|last| {
        let last = last.borrow();
        MlirStringRef { data: last.as_ptr(), length: last.as_bytes().len() }
    })
}

// ---------------------------------------------------------------------------------------------------------
// Dialect.

/// Makes `context` ready for lego IR: registers and loads the upstream dialects lego IR uses and lowers to,
/// and registers the lego dialect. Idempotent.
#[no_mangle]
pub extern "C" fn legoRegisterDialect(context: MlirContext) -> MlirLogicalResult {
    guard(failure(), || {
        clear_last_error();
        let registered = with_context(context, |context| match lego_dialect::prepare_context(context) {
            Ok(()) => success(),
            Err(error) => {
                report(context, None, &error.to_string());
                failure()
            }
        });
        registered.unwrap_or_else(|| {
            set_last_error("legoRegisterDialect: null MlirContext");
            failure()
        })
    })
}

/// Whether the lego dialect is registered on `context` (false for a null context).
#[no_mangle]
pub extern "C" fn legoIsDialectRegistered(context: MlirContext) -> bool {
    guard(false, || with_context(context, lego_dialect::is_registered).unwrap_or(false))
}

// ---------------------------------------------------------------------------------------------------------
// Text.

/// Parses lego IR in the custom (or generic) syntax mixed with any upstream IR and verifies it. `fileName`
/// names the source in diagnostics. Null on failure, after reporting the errors as diagnostics on `context`.
#[no_mangle]
pub extern "C" fn legoParseModule(context: MlirContext, source: MlirStringRef, fileName: MlirStringRef) -> MlirModule {
    guard(null_module(), || {
        clear_last_error();
        let parsed = with_context(context, |context| {
            let (Some(source), Some(file_name)) = (text(source), text(fileName)) else {
                report(context, None, "legoParseModule: the source or file name is not valid UTF-8");
                return null_module();
            };
            if !lego_dialect::is_registered(context) {
                report(context, None, "legoParseModule: the lego dialect is not registered (call legoRegisterDialect)");
                return null_module();
            }
            let file_name = if file_name.is_empty() { "<lego>" } else { file_name };
            match source::parse(context, file_name, source) {
                Ok(module) => {
                    let raw = module.to_raw();
                    std::mem::forget(module); // ownership goes to the caller (mlirModuleDestroy)
                    raw
                }
                Err(error) => {
                    set_last_error(&format!("legoParseModule: {error}"));
                    null_module()
                }
            }
        });
        parsed.unwrap_or_else(|| {
            set_last_error("legoParseModule: null MlirContext");
            null_module()
        })
    })
}

/// Runs MLIR's verifier and the lego rules on `op`; errors are diagnostics on its context.
#[no_mangle]
pub extern "C" fn legoVerifyOperation(op: MlirOperation) -> MlirLogicalResult {
    guard(failure(), || {
        clear_last_error();
        if op.ptr.is_null() {
            set_last_error("legoVerifyOperation: null MlirOperation");
            return failure();
        }
        let operation = unsafe { OperationRef::from_raw(op) };
        let ok = operation.verify() && lego_dialect::verify::verify_and_emit(&operation);
        if !ok {
            set_last_error("legoVerifyOperation: the operation does not verify");
        }
        result(ok)
    })
}

/// Prints `op` with lego ops in their custom syntax (`generic`: MLIR's generic form), in chunks, to
/// `callback`. Fails on a null op or callback.
#[no_mangle]
pub extern "C" fn legoPrintOperation(
    op: MlirOperation,
    generic: bool,
    callback: MlirStringCallback,
    userData: *mut c_void,
) -> MlirLogicalResult {
    guard(failure(), || {
        clear_last_error();
        if op.ptr.is_null() || callback.is_none() {
            set_last_error("legoPrintOperation: null MlirOperation or callback");
            return failure();
        }
        let operation = unsafe { OperationRef::from_raw(op) };
        let printed = source::print(&operation, PrintOptions { generic, debug_info: false, assume_verified: false });
        call_back(callback, userData, &printed);
        success()
    })
}

// ---------------------------------------------------------------------------------------------------------
// Passes.

/// Creates a registered lego pass by name (`"lego-strength-reduction"`), with option text
/// (`"cleanup=true"`, may be empty). Null for an unknown name, a pipeline name or bad options; the reason is
/// in `legoGetLastErrorMessage`.
#[no_mangle]
pub extern "C" fn legoCreatePass(name: MlirStringRef, options: MlirStringRef) -> MlirPass {
    guard(null_pass(), || {
        clear_last_error();
        let (Some(name), Some(options)) = (text(name), text(options)) else {
            set_last_error("legoCreatePass: the name or options are not valid UTF-8");
            return null_pass();
        };
        create_pass(name, options)
    })
}

fn create_pass(name: &str, options: &str) -> MlirPass {
    let options = (!options.trim().is_empty()).then_some(options);
    match registry().create_pass(name, options) {
        Some(Ok(pass)) => pass.to_raw(),
        Some(Err(error)) => {
            set_last_error(&error.to_string());
            null_pass()
        }
        None if registry().lookup(name).is_some() => {
            set_last_error(&format!("'{name}' is a lego pipeline, not a pass: use legoOpPassManagerAddPipeline"));
            null_pass()
        }
        None => {
            set_last_error(&format!("'{name}' is not a registered lego pass"));
            null_pass()
        }
    }
}

/// One `legoCreate<Name>Pass` per pass of docs/reference/passes.md; `PASS_FUNCTIONS` lists them for the tests.
macro_rules! pass_creators {
    ($($function:ident => $name:literal),* $(,)?) => {
        $(
            #[doc = concat!("Creates `", $name, "` with default options (null if it cannot be created; see ",
                            "`legoGetLastErrorMessage`).")]
            #[no_mangle]
            pub extern "C" fn $function() -> MlirPass {
                guard(null_pass(), || {
                    clear_last_error();
                    create_pass($name, "")
                })
            }
        )*
        /// (C function, registered pass name) for every pass creator.
        pub const PASS_FUNCTIONS: &[(&str, &str)] = &[$((stringify!($function), $name)),*];
    };
}

pass_creators! {
    legoCreateNormalizationPass => "lego-normalization",
    legoCreateToArithPass => "lego-to-arith",
    legoCreateArithSimplificationPass => "lego-arith-simplification",
    legoCreateStrengthReductionPass => "lego-strength-reduction",
    legoCreateMaterializeAssumeBoundsPass => "lego-materialize-assume-bounds",
    legoCreateGenerateBoundsChecksPass => "lego-generate-bounds-checks",
    legoCreateVerifyPass => "lego-verify",
    legoCreateVerifyBijectivityPass => "lego-verify-bijectivity",
    legoCreateExternalSmtVerifierPass => "lego-external-smt-verifier",
    legoCreateCanonicalizePass => "lego-canonicalize",
}

// ---------------------------------------------------------------------------------------------------------
// Pipelines.

fn add_text_to(manager: MlirOpPassManager, pipeline: &str) -> Result<(), String> {
    let manager = unsafe { OperationPassManager::from_raw(manager) };
    registry().add_pipeline(manager, pipeline).map_err(|error| error.to_string())
}

/// Adds pipeline text (`"lego-lower, func.func(cse)"`, lego and upstream passes mixed; a whole
/// `builtin.module(...)` is accepted too) to `passManager`, like `mlirOpPassManagerAddPipeline`. On failure
/// the message goes to `errorCallback` (may be null) and `legoGetLastErrorMessage`.
#[no_mangle]
pub extern "C" fn legoOpPassManagerAddPipeline(
    passManager: MlirOpPassManager,
    pipeline: MlirStringRef,
    errorCallback: MlirStringCallback,
    userData: *mut c_void,
) -> MlirLogicalResult {
    guard(failure(), || {
        clear_last_error();
        if passManager.ptr.is_null() {
            report_to_callback(errorCallback, userData, "legoOpPassManagerAddPipeline: null MlirOpPassManager");
            return failure();
        }
        let Some(pipeline) = text(pipeline) else {
            report_to_callback(errorCallback, userData, "legoOpPassManagerAddPipeline: pipeline is not valid UTF-8");
            return failure();
        };
        match add_text_to(passManager, pipeline) {
            Ok(()) => success(),
            Err(message) => {
                report_to_callback(errorCallback, userData, &format!("invalid pass pipeline '{pipeline}': {message}"));
                failure()
            }
        }
    })
}

fn build_pipeline(
    name: &str,
    manager: MlirOpPassManager,
    options: MlirStringRef,
    callback: MlirStringCallback,
    user_data: *mut c_void,
) -> MlirLogicalResult {
    clear_last_error();
    if manager.ptr.is_null() {
        report_to_callback(callback, user_data, &format!("building '{name}': null MlirOpPassManager"));
        return failure();
    }
    let Some(options) = text(options) else {
        report_to_callback(callback, user_data, &format!("building '{name}': options are not valid UTF-8"));
        return failure();
    };
    if !matches!(registry().lookup(name).map(|info| info.entry), Some(Entry::Pipeline(_))) {
        report_to_callback(callback, user_data, &format!("'{name}' is not a registered lego pipeline in this build"));
        return failure();
    }
    let element = PipelineElement::Pass(PassElement {
        name: name.to_string(),
        options: (!options.trim().is_empty()).then(|| options.to_string()),
        offset: 0,
    });
    let elements = [element];
    let built = registry::expand_pipelines(registry(), &elements).and_then(|_| {
        let manager = unsafe { OperationPassManager::from_raw(manager) };
        registry::build_pass_manager(registry(), manager, &elements, false)
    });
    match built {
        Ok(()) => success(),
        Err(error) => {
            report_to_callback(callback, user_data, &format!("building '{name}': {error}"));
            failure()
        }
    }
}

/// One `legoBuild<Name>Pipeline(passManager, options, errorCallback, userData)` per pipeline of docs/reference/passes.md;
/// `PIPELINE_FUNCTIONS` lists them for the tests.
macro_rules! pipeline_builders {
    ($($function:ident => $name:literal),* $(,)?) => {
        $(
            #[doc = concat!("Adds the `", $name, "` pipeline, with option text (may be empty), to a pass manager.")]
            #[no_mangle]
            pub extern "C" fn $function(
                passManager: MlirOpPassManager,
                options: MlirStringRef,
                errorCallback: MlirStringCallback,
                userData: *mut c_void,
            ) -> MlirLogicalResult {
                guard(failure(), || build_pipeline($name, passManager, options, errorCallback, userData))
            }
        )*
        /// (C function, registered pipeline name) for every pipeline builder.
        pub const PIPELINE_FUNCTIONS: &[(&str, &str)] = &[$((stringify!($function), $name)),*];
    };
}

pipeline_builders! {
    legoBuildLowerPipeline => "lego-lower",
    legoBuildToLLVMPipeline => "lego-to-llvm",
    legoBuildToNVVMPipeline => "lego-to-nvvm",
    legoBuildToROCDLPipeline => "lego-to-rocdl",
    legoBuildToSPIRVPipeline => "lego-to-spirv",
    legoBuildToXeVMPipeline => "lego-to-xevm",
    legoBuildToLLVMSPIRVPipeline => "lego-to-llvmspirv",
}

/// Convenience: runs pipeline text on `module` with a fresh pass manager on the module's context (verifier
/// on). A bad pipeline or a failing pass is an error diagnostic on the context and a failure; so is any error
/// diagnostic a pass emits without failing.
#[no_mangle]
pub extern "C" fn legoRunPipeline(module: MlirModule, pipeline: MlirStringRef) -> MlirLogicalResult {
    guard(failure(), || {
        clear_last_error();
        if module.ptr.is_null() {
            set_last_error("legoRunPipeline: null MlirModule");
            return failure();
        }
        let operation = unsafe { OperationRef::from_raw(mlir_sys::mlirModuleGetOperation(module)) };
        let context = unsafe { mlir_sys::mlirOperationGetContext(operation.to_raw()) };
        with_context(context, |context| {
            let Some(pipeline) = text(pipeline) else {
                report(context, Some(operation.location()), "legoRunPipeline: pipeline is not valid UTF-8");
                return failure();
            };
            let manager = PassManager::new(context);
            if let Err(error) = registry().add_pipeline(manager.as_operation_pass_manager(), pipeline) {
                report(context, Some(operation.location()), &format!("invalid pass pipeline '{pipeline}': {error}"));
                return failure();
            }
            let errors = ErrorCounter::attach(context);
            let ran = unsafe { mlir_sys::mlirPassManagerRunOnOp(manager.to_raw(), operation.to_raw()) };
            let reported = errors.detach();
            if ran.value == 0 {
                // The passes reported their own diagnostics.
                set_last_error(&format!("legoRunPipeline: pipeline '{pipeline}' failed"));
                return failure();
            }
            if reported > 0 {
                // Some upstream passes (lower-affine) emit an error and still succeed: an error is a failure
                // whoever reported it, as in lego-opt.
                set_last_error(&format!("legoRunPipeline: pipeline '{pipeline}' reported {reported} error(s)"));
                return failure();
            }
            success()
        })
        .unwrap_or_else(failure)
    })
}

/// Counts the error diagnostics emitted on a context while it is attached, and hands every diagnostic on to
/// the host's handlers (it never marks one handled).
struct ErrorCounter {
    context: MlirContext,
    id: mlir_sys::MlirDiagnosticHandlerID,
    // Boxed: the handler holds its address until detached. Atomic: passes on other threads emit too.
    count: Box<std::sync::atomic::AtomicUsize>,
}

impl ErrorCounter {
    fn attach(context: &Context) -> Self {
        let count = Box::new(std::sync::atomic::AtomicUsize::new(0));
        let user_data = &*count as *const std::sync::atomic::AtomicUsize as *mut c_void;
        let id = unsafe {
            mlir_sys::mlirContextAttachDiagnosticHandler(context.to_raw(), Some(count_errors), user_data, None)
        };
        ErrorCounter { context: context.to_raw(), id, count }
    }

    /// Detaches the handler; the number of errors it saw.
    fn detach(self) -> usize {
        self.count.load(std::sync::atomic::Ordering::SeqCst)
        // Dropped here: detached.
    }
}

impl Drop for ErrorCounter {
    fn drop(&mut self) {
        unsafe { mlir_sys::mlirContextDetachDiagnosticHandler(self.context, self.id) };
    }
}

unsafe extern "C" fn count_errors(diagnostic: mlir_sys::MlirDiagnostic, user_data: *mut c_void) -> MlirLogicalResult {
    // Called from C++: never let a panic escape.
    let _ = catch_unwind(AssertUnwindSafe(|| {
        if unsafe { mlir_sys::mlirDiagnosticGetSeverity(diagnostic) } != mlir_sys::MlirDiagnosticSeverity_MlirDiagnosticError {
            return;
        }
        let mut message = String::new();
        unsafe {
            mlir_sys::mlirDiagnosticPrint(diagnostic, Some(append_to_string), &mut message as *mut String as *mut c_void)
        };
        if !lego_passes::diagnostics::error_fails_the_run(&message) {
            return;
        }
        // SAFETY: `user_data` is the counter of the attached ErrorCounter, alive until it is detached.
        let count = unsafe { &*(user_data as *const std::sync::atomic::AtomicUsize) };
        count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }));
    // Not handled: the host's handlers (or MLIR's default printing) see every diagnostic as before.
    failure()
}

unsafe extern "C" fn append_to_string(text: MlirStringRef, data: *mut c_void) {
    // SAFETY: `data` is the String passed to mlirDiagnosticPrint just above.
    let buffer = unsafe { &mut *(data as *mut String) };
    buffer.push_str(self::text(text).unwrap_or(""));
}

mod published;
pub use published::*;

#[cfg(test)]
mod tests;
