//! The compile side of the JIT frontends and kernel builders (`lego.jit`, `lego.compile`, docs/python.md):
//! a whole MLIR module (lego ops inside `gpu.launch` or a CPU function, written by `lego.jit.builders`) is
//! parsed with the dialect's parser, verified, run through one of the registry's pipelines (`lego-to-nvvm`,
//! `lego-to-rocdl`, `lego-to-spirv`, `lego-to-llvmspirv`, `lego-to-llvm`, `lego-to-wasm`, …) and printed back.
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

/// The registration line of lib.rs.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(compile_module, module)?)?;
    module.add_function(wrap_pyfunction!(algebra_eval, module)?)?;
    Ok(())
}
