//! `lego.translate(layout, language)`: a layout as index functions in one of lego-translate's ten languages,
//! printed by lego-translate's own printers (`lego_translate::translate_module`, one implementation for the
//! driver and the package). The Python layer (`python/lego/_translate.py`) describes each function as an
//! evaluation request ([`emit::Request`]: the layout, its arguments, bounds and facts, apply or inverse); the
//! functions are built through the dialect's builders into one module, named, lowered by `lego-lower` and
//! printed. Parameter names come from the Python layer (the printers still rename keywords to `argN`).
//!
//! Errors (a layout that does not verify, a value that does not fit the language) are the printers' located
//! diagnostics, raised as `LegoError`; a panic becomes `LegoError` too.

use std::collections::HashMap;

use lego_passes::pipeline_text::{PassElement, PipelineElement};
use lego_translate::lang::{Language, Options};
use melior::{
    ir::{attribute::{AttributeLike, StringAttribute}, block::BlockLike, operation::OperationLike, Attribute, Module},
};
use pyo3::{prelude::*, types::PyList};

use crate::{desc, emit, LegoError, Session};

/// The language named `name`: its lego-translate flag without `lego-to-` (`cuda`, `cpp`, `js`, …), or its
/// display name (`C++`, `JavaScript`, …), case-insensitive.
fn language(name: &str) -> Option<Language> {
    let wanted = name.trim().to_ascii_lowercase();
    let alias = match wanted.as_str() {
        "c++" | "cxx" => "cpp",
        "javascript" => "js",
        "cuda_c" | "cuda-c" | "cuda c" => "cuda",
        "py" => "python",
        other => other,
    };
    Language::ALL.iter().copied().find(|language| {
        language.flag().strip_prefix("lego-to-") == Some(alias) || language.display_name().to_ascii_lowercase() == wanted
    })
}

/// The accepted language names, for the error message.
pub fn language_names() -> Vec<&'static str> {
    Language::ALL.iter().filter_map(|language| language.flag().strip_prefix("lego-to-")).collect()
}

/// One function to print: its name, parameter names, and the request that builds its body.
struct Wanted {
    name: String,
    params: Vec<String>,
    request: emit::Request,
}

fn wanted(item: &Bound<'_, PyAny>) -> PyResult<Wanted> {
    let (name, params, layout, argument_count, mode, operand, bounds, facts) = item
        .extract::<(String, Vec<String>, Bound<PyAny>, usize, String, Bound<PyAny>, Bound<PyList>, Bound<PyList>)>()
        .map_err(|_| LegoError::new_err("malformed translation request: (name, params, layout, argument count, mode, operand, bounds, facts)"))?;
    if params.len() != argument_count {
        return Err(LegoError::new_err(format!("malformed translation request: {} parameter names for {argument_count} arguments", params.len())));
    }
    let request = desc::request(&layout, argument_count, &mode, &operand, &bounds, &facts, None)?;
    Ok(Wanted { name, params, request })
}

/// Builds every function into one module (each built alone by [`emit::build`], then moved over and renamed).
fn build<'c>(session: &'c Session, functions: &[Wanted]) -> Result<Module<'c>, String> {
    let context = &session.context;
    let mut module: Option<Module<'c>> = None;
    for function in functions {
        let built = emit::build(context, &function.request)?;
        let op = built.body().first_operation().ok_or("internal error: the built module has no function")?;
        let name: Attribute = StringAttribute::new(context, &function.name).into();
        unsafe {
            let key = mlir_sys::mlirStringRefCreateFromCString(c"sym_name".as_ptr());
            mlir_sys::mlirOperationSetAttributeByName(op.to_raw(), key, name.to_raw());
        }
        match &module {
            None => module = Some(built),
            Some(target) => unsafe {
                // `built` keeps its (now empty) module; the function moves to the shared one.
                let raw = op.to_raw();
                mlir_sys::mlirOperationRemoveFromParent(raw);
                mlir_sys::mlirBlockAppendOwnedOperation(target.body().to_raw(), raw);
            },
        }
    }
    module.ok_or_else(|| "nothing to translate".to_string())
}

fn run(session: &Session, functions: &[Wanted], language: Language, options: Options, source: &str) -> Result<String, String> {
    let context = &session.context;
    // Warnings are kept for the error text only; whether the translation failed is its own result.
    let (outcome, reported) = crate::reported::collecting(context, || -> Result<Option<String>, String> {
        let mut module = build(session, functions)?;
        if !lego_dialect::verify::verify_and_emit(&module.as_operation()) || !module.as_operation().verify() {
            return Ok(None);
        }
        let params: HashMap<&str, &[String]> = functions.iter().map(|f| (f.name.as_str(), f.params.as_slice())).collect();
        let rename = |function: &mut lego_translate::program::Function| {
            if let Some(names) = params.get(function.name.as_str()) {
                if names.len() == function.params.len() {
                    function.params = names.to_vec();
                }
            }
        };
        let pipeline = [PipelineElement::Pass(PassElement { name: "lego-lower".to_string(), options: None, offset: 0 })];
        Ok(lego_translate::translate_module(
            context,
            &session.registry,
            &pipeline,
            Some(language),
            options,
            source,
            "",
            &mut module,
            Some(&rename),
        ))
    });
    let messages = reported.all;
    match outcome {
        Ok(Ok(Some(text))) => Ok(text),
        Ok(Ok(None)) if messages.is_empty() => Err(format!("the layout cannot be translated to {}", language.display_name())),
        Ok(Ok(None)) => Err(messages.join("\n")),
        Ok(Err(reason)) => Err(std::iter::once(reason).chain(messages).collect::<Vec<_>>().join("\n")),
        Err(panic) => Err(format!("internal error in lego (a bug: please report it) while translating: {}", crate::guard::panic_message(panic))),
    }
}

/// Prints `functions` (a list of `(name, params, layout, argument_count, mode, operand, bounds, facts)`, the
/// arguments of `Session.evaluate` plus a name and parameter names) as `language` source, lowered by
/// `lego-lower` and printed by lego-translate's printers with its `--assert-bounds` / `--index-bitwidth`;
/// `source` names the input in the banner (and the Fortran module).
#[pyfunction]
#[pyo3(signature = (session, functions, language, assert_bounds = false, index_bitwidth = None, source = "<lego>"))]
pub fn translate(
    session: PyRef<'_, Session>,
    functions: &Bound<'_, PyList>,
    language: &str,
    assert_bounds: bool,
    index_bitwidth: Option<u32>,
    source: &str,
) -> PyResult<String> {
    let Some(chosen) = self::language(language) else {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "unknown language '{language}'; lego.translate knows: {}",
            language_names().join(", ")
        )));
    };
    let options = Options::new(Some(chosen), index_bitwidth, assert_bounds).map_err(pyo3::exceptions::PyValueError::new_err)?;
    let wanted = crate::guard::guard("reading the translation request", || functions.iter().map(|item| wanted(&item)).collect::<PyResult<Vec<_>>>())?;
    run(&session, &wanted, chosen, options, source).map_err(LegoError::new_err)
}

/// The names `lego.translate` accepts (one per language).
#[pyfunction]
pub fn translate_languages() -> Vec<&'static str> {
    language_names()
}
