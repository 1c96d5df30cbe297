//! `lego.backend.symbolic.arith_to_sympy` (the published API, §5.6 step 5, under its published name): the
//! values a `func.func` returns, read back as the arith DAG of [`readback`] from MLIR text (optionally after a
//! pipeline, e.g. `lego-lower`). The published function takes MLIR Python binding objects; this package has no
//! MLIR Python bindings, so it takes the module's text (docs/python.md, "Differences").
//!
//! Parse errors and pipeline failures are located diagnostics raised as `LegoError`; a panic is one too.

use melior::{
    ir::{block::BlockLike, operation::OperationLike, RegionLike, Value},
    pass::PassManager,
};
use pyo3::{prelude::*, IntoPyObjectExt};

use crate::{readback, LegoError, Session};

type Read = (Vec<readback::Node>, Vec<usize>, usize);

fn read(session: &Session, text: &str, file_name: &str, pipeline: &str) -> Result<Read, String> {
    let context = &session.context;
    let (outcome, reported) = crate::reported::collecting(context, || -> Result<Read, String> {
        let mut module = lego_dialect::source::parse(context, file_name, text).map_err(|_| "the module does not parse".to_string())?;
        if !module.as_operation().verify() {
            return Err("the module does not verify".to_string());
        }
        if !pipeline.is_empty() {
            let manager = PassManager::new(context);
            session.registry.add_pipeline(manager.as_operation_pass_manager(), pipeline).map_err(|error| error.to_string())?;
            manager.run(&mut module).map_err(|_| format!("'{pipeline}' failed"))?;
        }
        let function = module.body().first_operation().ok_or("the module has no function")?;
        if function.name().as_string_ref().as_str().ok() != Some("func.func") {
            return Err("arith_to_sympy reads the first op of the module, which must be a func.func".to_string());
        }
        let region = function.region(0).map_err(|e| e.to_string())?;
        let block = region.first_block().ok_or("the function has no body")?;
        let arguments = (0..block.argument_count())
            .map(|k| block.argument(k).map(Value::from))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        let mut reader = readback::Reader::new();
        let results = readback::returned(block)?
            .into_iter()
            .map(|value| reader.value(value, &arguments))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((reader.nodes, results, arguments.len()))
    });
    let messages = reported.all;
    match outcome {
        Ok(Ok(read)) => Ok(read),
        Ok(Err(reason)) => Err(messages.into_iter().chain(std::iter::once(reason)).collect::<Vec<_>>().join("\n")),
        Err(panic) => Err(format!("internal error in lego (a bug: please report it) while reading the module: {}", crate::guard::panic_message(panic))),
    }
}

/// `(nodes, results, argument_count)` of the first `func.func` of `text` after `pipeline` (empty: as it is).
#[pyfunction]
#[pyo3(signature = (session, text, file_name = "<arith_to_sympy>", pipeline = ""))]
pub fn arith_nodes<'py>(
    py: Python<'py>,
    session: PyRef<'_, Session>,
    text: &str,
    file_name: &str,
    pipeline: &str,
) -> PyResult<(Vec<Bound<'py, PyAny>>, Vec<usize>, usize)> {
    let (nodes, results, count) = read(&session, text, file_name, pipeline).map_err(LegoError::new_err)?;
    let nodes = nodes
        .into_iter()
        .map(|(kind, operands, extra)| {
            let extra: Bound<PyAny> = match extra {
                Some(readback::NodeExtra::Int(value)) => value.into_bound_py_any(py)?,
                Some(readback::NodeExtra::Text(text)) => text.into_bound_py_any(py)?,
                None => py.None().into_bound(py),
            };
            (kind, operands, extra).into_bound_py_any(py)
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok((nodes, results, count))
}
