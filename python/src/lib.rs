//! `lego._lego`: the extension module under the `lego` Python package (docs/python.md).
//!
//! The Python layer (`python/lego/`) describes a layout and an evaluation request as nested tuples
//! ([`desc`]); [`Session::evaluate`] builds the lego IR through the dialect's builders ([`emit`]), verifies
//! it, runs `lego-lower` from the pass registry lego-opt uses, and hands the returned index arithmetic back as
//! a DAG of arith nodes ([`readback`]) that the Python layer turns into SymPy.
//!
//! Nothing here may take the interpreter down: every entry point runs under `catch_unwind` (a panic becomes
//! `LegoError`), MLIR diagnostics are collected by a handler on the session's context and raised as
//! `LegoError` with their `file:line:col` (the Python file and line where the layout piece was built).

mod arith;
mod desc;
mod differential;
mod emit;
mod guard;
mod jit;
mod objcode;
mod readback;
mod reported;
mod tools;
mod transform;
mod translate;

use std::panic::{catch_unwind, AssertUnwindSafe};

use melior::{
    diagnostic::DiagnosticSeverity,
    ir::{block::BlockLike, operation::OperationLike, Location, Module, RegionLike},
    pass::PassManager,
    Context,
};
use pyo3::{create_exception, exceptions::PyException, prelude::*, types::PyList};

use readback::{Node, NodeExtra};

create_exception!(_lego, LegoError, PyException, "A layout that lego rejects, or a failure inside lego (message with its location).");

/// A diagnostic, detached from MLIR, formatted `file:line:col: error: message`.
fn format_diagnostic(location: Location, severity: DiagnosticSeverity, message: &str) -> String {
    let severity = match severity {
        DiagnosticSeverity::Error => "error",
        DiagnosticSeverity::Warning => "warning",
        DiagnosticSeverity::Note => "note",
        DiagnosticSeverity::Remark => "remark",
    };
    if location.is_file_line_col_range() {
        if let Ok(file) = location.file_line_col_range_filename().as_string_ref().as_str() {
            return format!(
                "{file}:{}:{}: {severity}: {message}",
                location.file_line_col_range_start_line(),
                location.file_line_col_range_start_column()
            );
        }
    }
    format!("{severity}: {message}")
}

/// The outcome of one evaluation inside MLIR, before it becomes Python objects.
struct Evaluated {
    nodes: Vec<Node>,
    results: Vec<usize>,
    input_text: Option<String>,
    lowered_text: Option<String>,
}

/// One MLIR context with the dialect registered and the pass registry: what every evaluation of a thread
/// uses (`lego._bridge` keeps one per thread; a context cannot move between threads, hence `unsendable`).
#[pyclass(unsendable, module = "lego._lego")]
struct Session {
    context: Context,
    registry: lego_passes::Registry,
}

impl Session {
    fn run(&self, request: &emit::Request, pipeline: &str, keep_text: bool) -> Result<Evaluated, String> {
        let (outcome, collected) = reported::collecting(&self.context, || self.run_collecting(request, pipeline, keep_text));
        let failure = |reason: String| {
            let mut lines = collected.failing.clone();
            if lines.is_empty() {
                lines.push(reason);
            }
            lines.extend(collected.others.iter().cloned());
            lines.join("\n")
        };
        match outcome {
            Err(panic) => Err(failure(format!(
                "internal error in lego (a bug: please report it): {}",
                guard::panic_message(panic)
            ))),
            Ok(Err(reason)) => Err(failure(reason)),
            Ok(Ok(_)) if !collected.failing.is_empty() => Err(failure(String::new())),
            Ok(Ok(evaluated)) => Ok(evaluated),
        }
    }

    fn run_collecting(&self, request: &emit::Request, pipeline: &str, keep_text: bool) -> Result<Evaluated, String> {
        let mut module: Module = emit::build(&self.context, request)?;
        let input_text = keep_text.then(|| lego_dialect::source::print(&module.as_operation(), Default::default()));
        if !lego_dialect::verify::verify_and_emit(&module.as_operation()) || !module.as_operation().verify() {
            return Err("the layout does not verify".to_string());
        }
        if pipeline.is_empty() {
            // Only the IR is wanted (Session.evaluate(..., pipeline="", keep_ir=True)).
            return Ok(Evaluated { nodes: Vec::new(), results: Vec::new(), input_text, lowered_text: None });
        }
        let manager = PassManager::new(&self.context);
        self.registry.add_pipeline(manager.as_operation_pass_manager(), pipeline).map_err(|error| error.to_string())?;
        manager.run(&mut module).map_err(|_| format!("'{pipeline}' failed"))?;
        let lowered_text = keep_text.then(|| lego_dialect::source::print(&module.as_operation(), Default::default()));
        let function = module.body().first_operation().ok_or("internal error: the module lost its function")?;
        let region = function.region(0).map_err(|e| e.to_string())?;
        let block = region.first_block().ok_or("internal error: the function has no body")?;
        let arguments = (0..block.argument_count())
            .map(|k| block.argument(k).map(melior::ir::Value::from))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        let mut reader = readback::Reader::new();
        let results = readback::returned(block)?
            .into_iter()
            .map(|value| reader.value(value, &arguments))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Evaluated { nodes: reader.nodes, results, input_text, lowered_text })
    }
}

fn guarded<T>(body: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(result) => result,
        Err(_) => Err(LegoError::new_err("internal error in lego (a bug: please report it): a panic while reading the request")),
    }
}

#[pymethods]
impl Session {
    #[new]
    fn new() -> PyResult<Self> {
        guarded(|| {
            lego_passes::register_upstream_passes();
            let context = lego_dialect::create_context().map_err(|error| LegoError::new_err(error.to_string()))?;
            Ok(Session { context, registry: lego_passes::Registry::default() })
        })
    }

    /// Evaluates `layout` (a descriptor) over a function of `argument_count` index arguments.
    /// `mode` is `"apply"` (`operand` a list of index expressions) or `"inv"` (`operand` the flat expression);
    /// `bounds` a list of `(argument, lb or None, ub or None)`, `facts` a list of conditions. Returns
    /// `(nodes, results, input_ir, lowered_ir)`; the IR texts are `None` unless `keep_ir`. An empty `pipeline`
    /// only builds and verifies the IR (no nodes). `call_location` `(file, line)` locates the apply /
    /// apply_inverse op (where the user asked for the evaluation).
    #[pyo3(signature = (layout, argument_count, mode, operand, bounds, facts, pipeline = "lego-lower", keep_ir = false, call_location = None))]
    #[allow(clippy::too_many_arguments)]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        layout: &Bound<'py, PyAny>,
        argument_count: usize,
        mode: &str,
        operand: &Bound<'py, PyAny>,
        bounds: &Bound<'py, PyList>,
        facts: &Bound<'py, PyList>,
        pipeline: &str,
        keep_ir: bool,
        call_location: Option<(String, usize)>,
    ) -> PyResult<(Vec<Bound<'py, PyAny>>, Vec<usize>, Option<String>, Option<String>)> {
        guarded(|| {
            let call_location = call_location.map(|(file, line)| desc::Loc { file, line });
            let request = desc::request(layout, argument_count, mode, operand, bounds, facts, call_location)?;
            let evaluated = self.run(&request, pipeline, keep_ir).map_err(LegoError::new_err)?;
            let nodes = evaluated
                .nodes
                .into_iter()
                .map(|(kind, operands, extra)| {
                    let extra: Bound<PyAny> = match extra {
                        Some(NodeExtra::Int(value)) => value.into_pyobject(py)?.into_any(),
                        Some(NodeExtra::Text(text)) => text.into_pyobject(py)?.into_any(),
                        None => py.None().into_bound(py),
                    };
                    Ok((kind, operands, extra).into_pyobject(py)?.into_any())
                })
                .collect::<PyResult<Vec<_>>>()?;
            Ok((nodes, evaluated.results, evaluated.input_text, evaluated.lowered_text))
        })
    }
}

#[pymodule]
fn _lego(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("LegoError", module.py().get_type::<LegoError>())?;
    module.add_class::<Session>()?;
    module.add_function(wrap_pyfunction!(differential::random_layouts, module)?)?;
    module.add_function(wrap_pyfunction!(translate::translate, module)?)?;
    module.add_function(wrap_pyfunction!(translate::translate_languages, module)?)?;
    jit::register(module)?;
    module.add_function(wrap_pyfunction!(arith::arith_nodes, module)?)?;
    module.add_function(wrap_pyfunction!(guard::raise_panic, module)?)?;
    module.add_class::<transform::IndexProgram>()?;
    module.add_function(wrap_pyfunction!(transform::random_layout_tables, module)?)?;
    module.add_function(wrap_pyfunction!(tools::run_tool, module)?)?;
    module.add_function(wrap_pyfunction!(objcode::emit_object, module)?)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
