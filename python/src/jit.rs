//! The compile side of the JIT frontends and kernel builders (`lego.jit`, `lego.compile`, docs/python.md):
//! a whole MLIR module (lego ops inside `gpu.launch` or a CPU function, written by `lego.jit.builders`) is
//! parsed with the dialect's parser, verified, run through one of the registry's pipelines (`lego-to-nvvm`,
//! `lego-to-rocdl`, `lego-to-spirv`, `lego-to-llvmspirv`, `lego-to-llvm`, `lego-to-wasm`, …) and printed back.
//!
//! `parse_module` returns the parsed and verified module held in its own context (`lego._lego.Module`):
//! `KernelBuilder.build_module()` and the CPU kernel DSL hand it out, and its `llvm_ir()` is how the CPU kernels
//! reach LLVM IR in-process.
//!
//! Also a test hook: `algebra_eval` evaluates a layout described as lego-algebra JSON (`describe::from_json`)
//! with the algebra's interpreter, the reference the JIT tests check generated index expressions against.
//!
//! Every MLIR diagnostic of a run is collected and raised as `LegoError` with its location; a panic becomes
//! `LegoError` too. Each call uses a fresh context (a kernel compile is rare; no state is kept).

use std::{
    panic::{catch_unwind, AssertUnwindSafe},
    sync::{Arc, Mutex},
};

use melior::{diagnostic::DiagnosticSeverity, pass::PassManager};
use pyo3::prelude::*;

use crate::LegoError;

fn panic_text(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".to_string())
}

fn compile_inner(text: &str, pipeline: &str, file_name: &str) -> Result<String, String> {
    lego_passes::register_upstream_passes();
    let context = lego_dialect::create_context().map_err(|error| error.to_string())?;
    let registry = lego_passes::Registry::default();
    let messages: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&messages);
    let handler = context.attach_diagnostic_handler(move |diagnostic| {
        let _ = catch_unwind(AssertUnwindSafe(|| {
            if matches!(diagnostic.severity(), DiagnosticSeverity::Error) {
                let text = format!("{}: error: {}", diagnostic.location(), diagnostic);
                if let Ok(mut sink) = sink.lock() {
                    sink.push(text);
                }
            }
        }));
        true
    });
    let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<String, String> {
        let mut module = lego_dialect::source::parse(&context, file_name, text).map_err(|error| error.to_string())?;
        if !pipeline.is_empty() {
            let manager = PassManager::new(&context);
            registry.add_pipeline(manager.as_operation_pass_manager(), pipeline).map_err(|error| error.to_string())?;
            manager.run(&mut module).map_err(|_| format!("'{pipeline}' failed"))?;
        }
        Ok(lego_dialect::source::print(&module.as_operation(), Default::default()))
    }));
    context.detach_diagnostic_handler(handler);
    let collected = messages.lock().map(|m| m.clone()).unwrap_or_default();
    let fail = |reason: String| {
        let mut lines = collected.clone();
        lines.push(reason);
        lines.join("\n")
    };
    match outcome {
        Err(panic) => Err(fail(format!("internal error in lego (a bug: please report it): {}", panic_text(panic)))),
        Ok(Err(reason)) => Err(fail(reason)),
        Ok(Ok(text)) => Ok(text),
    }
}

/// Parses `text` (custom or generic lego syntax with any upstream IR), runs `pipeline` (a registry pipeline
/// text such as `lego-to-nvvm{chip=sm_90 format=assembly}`; empty: parse and verify only), returns the
/// printed module. Errors: `LegoError` with every error diagnostic.
#[pyfunction]
#[pyo3(signature = (text, pipeline, file_name = "<lego.compile>"))]
pub fn compile_module(text: &str, pipeline: &str, file_name: &str) -> PyResult<String> {
    compile_inner(text, pipeline, file_name).map_err(LegoError::new_err)
}

/// lego-algebra's interpreter on a layout described as JSON (`lego_algebra::describe`): `mode` `"apply"`
/// (`values` the index) → `[flat]`, or `"inv"` (`values` `[flat]`) → the index.
#[pyfunction]
pub fn algebra_eval(json: &str, mode: &str, values: Vec<u64>) -> PyResult<Vec<u64>> {
    let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<Vec<u64>, String> {
        let layout = lego_algebra::describe::from_json(json).map_err(|error| error.to_string())?;
        match mode {
            "apply" => layout.apply(&values).map(|flat| vec![flat]).map_err(|error| error.to_string()),
            "inv" => match values.as_slice() {
                [flat] => layout.apply_inverse(*flat).map_err(|error| error.to_string()),
                _ => Err("inv wants one flat value".to_string()),
            },
            other => Err(format!("unknown mode '{other}' (apply or inv)")),
        }
    }));
    match outcome {
        Ok(result) => result.map_err(LegoError::new_err),
        Err(panic) => Err(LegoError::new_err(format!("internal error: {}", panic_text(panic)))),
    }
}

/// A parsed and verified module held in its own MLIR context (`lego._lego.parse_module`): what
/// `KernelBuilder.build_module()` and the CPU kernel DSL return as their module, and the CPU DSL's way to LLVM IR
/// (`llvm_ir`). The context cannot move between threads, hence `unsendable`.
#[pyclass(unsendable, module = "lego._lego", name = "Module")]
pub struct ParsedModule {
    // Declared before `context`, destroyed first (Drop below), then the context drops.
    raw: mlir_sys::MlirModule,
    // Owns the module's context: never read, only kept alive as long as `raw`.
    _context: melior::Context,
}

impl Drop for ParsedModule {
    fn drop(&mut self) {
        // SAFETY: `raw` came from `Module::to_raw` of a module whose owner was forgotten; destroyed once, here,
        // while its context is still alive (fields drop after this).
        unsafe { mlir_sys::mlirModuleDestroy(self.raw) }
    }
}

mod llvm_c {
    use mlir_sys::{LLVMContextRef, LLVMModuleRef};
    use std::ffi::c_char;
    extern "C" {
        pub fn LLVMContextCreate() -> LLVMContextRef;
        pub fn LLVMContextDispose(context: LLVMContextRef);
        pub fn LLVMDisposeModule(module: LLVMModuleRef);
        pub fn LLVMPrintModuleToString(module: LLVMModuleRef) -> *mut c_char;
        pub fn LLVMDisposeMessage(message: *mut c_char);
    }
}

fn collect_names<'c: 'a, 'a>(
    op: &impl melior::ir::operation::OperationLike<'c, 'a>,
    out: &mut Vec<String>,
    funcs: &mut Vec<String>,
) {
    use melior::ir::{operation::OperationLike, BlockLike, RegionLike};
    let name = op.name().as_string_ref().as_str().unwrap_or("?").to_string();
    if name == "func.func" || name == "llvm.func" || name == "gpu.func" {
        if let Ok(symbol) = op.attribute("sym_name") {
            if let Ok(text) = melior::ir::attribute::StringAttribute::try_from(symbol) {
                funcs.push(text.value().to_string());
            }
        }
    }
    out.push(name);
    for region in op.regions() {
        let mut block = region.first_block();
        while let Some(b) = block {
            let mut inner = b.first_operation();
            while let Some(o) = inner {
                collect_names(&o, out, funcs);
                inner = o.next_in_block();
            }
            block = b.next_in_region();
        }
    }
}

impl ParsedModule {
    fn module(&self) -> std::mem::ManuallyDrop<melior::ir::Module<'_>> {
        // SAFETY: `raw` is a live module of `self.context`; ManuallyDrop keeps this view from destroying it.
        std::mem::ManuallyDrop::new(unsafe { melior::ir::Module::from_raw(self.raw) })
    }
}

#[pymethods]
impl ParsedModule {
    /// The module printed (custom lego syntax).
    fn __str__(&self) -> String {
        lego_dialect::source::print(&self.module().as_operation(), Default::default())
    }

    #[getter]
    fn text(&self) -> String {
        self.__str__()
    }

    /// Every operation's name, pre-order (the module first).
    fn operation_names(&self) -> Vec<String> {
        let (mut names, mut funcs) = (Vec::new(), Vec::new());
        collect_names(&self.module().as_operation(), &mut names, &mut funcs);
        names
    }

    /// The symbol names of the `func.func` / `llvm.func` / `gpu.func` operations, in order.
    fn functions(&self) -> Vec<String> {
        let (mut names, mut funcs) = (Vec::new(), Vec::new());
        collect_names(&self.module().as_operation(), &mut names, &mut funcs);
        funcs
    }

    /// MLIR's verifier on the held module.
    fn verify(&self) -> bool {
        use melior::ir::operation::OperationLike;
        self.module().as_operation().verify()
    }

    /// A new module: this one through `pipeline` (a registry pipeline text). Errors: `LegoError`.
    fn run(&self, pipeline: &str) -> PyResult<ParsedModule> {
        let lowered = compile_inner(&self.__str__(), pipeline, "<lego.Module.run>").map_err(LegoError::new_err)?;
        parse_held(&lowered, "<lego.Module.run>").map_err(LegoError::new_err)
    }

    /// The LLVM IR text of a module that is all LLVM dialect (after `lego-to-llvm`), through MLIR's
    /// translation in-process. Errors: `LegoError`.
    fn llvm_ir(&self) -> PyResult<String> {
        let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<String, String> {
            // SAFETY: a fresh LLVM context, disposed of after the module translated into it.
            unsafe {
                let context = llvm_c::LLVMContextCreate();
                let module = mlir_sys::mlirTranslateModuleToLLVMIR(self.module().as_operation().to_raw(), context);
                if module.is_null() {
                    llvm_c::LLVMContextDispose(context);
                    return Err(
                        "could not translate the module to LLVM IR: it must be all LLVM dialect \
                                (run lego-to-llvm first)"
                            .to_string(),
                    );
                }
                let message = llvm_c::LLVMPrintModuleToString(module);
                let text = std::ffi::CStr::from_ptr(message).to_string_lossy().into_owned();
                llvm_c::LLVMDisposeMessage(message);
                llvm_c::LLVMDisposeModule(module);
                llvm_c::LLVMContextDispose(context);
                Ok(text)
            }
        }));
        match outcome {
            Ok(result) => result.map_err(LegoError::new_err),
            Err(panic) => Err(LegoError::new_err(format!("internal error: {}", panic_text(panic)))),
        }
    }
}

fn parse_held(text: &str, file_name: &str) -> Result<ParsedModule, String> {
    lego_passes::register_upstream_passes();
    let context = lego_dialect::create_context().map_err(|error| error.to_string())?;
    let raw = {
        let module = lego_dialect::source::parse(&context, file_name, text).map_err(|error| error.to_string())?;
        let raw = module.to_raw();
        std::mem::forget(module);
        raw
    };
    Ok(ParsedModule { raw, _context: context })
}

/// Parses and verifies `text` (the errors with their locations as `LegoError`), and returns the module held
/// in its own context.
#[pyfunction]
#[pyo3(signature = (text, file_name = "<lego.parse_module>"))]
pub fn parse_module(text: &str, file_name: &str) -> PyResult<ParsedModule> {
    // The checked run collects every diagnostic; the held parse then cannot fail on the same text.
    compile_inner(text, "", file_name).map_err(LegoError::new_err)?;
    let outcome = catch_unwind(AssertUnwindSafe(|| parse_held(text, file_name)));
    match outcome {
        Ok(result) => result.map_err(LegoError::new_err),
        Err(panic) => Err(LegoError::new_err(format!("internal error: {}", panic_text(panic)))),
    }
}

/// The registration line of lib.rs.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<ParsedModule>()?;
    module.add_function(wrap_pyfunction!(parse_module, module)?)?;
    module.add_function(wrap_pyfunction!(compile_module, module)?)?;
    module.add_function(wrap_pyfunction!(algebra_eval, module)?)?;
    Ok(())
}
