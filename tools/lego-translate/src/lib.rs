//! lego-translate's printers as a library: the `lego-translate` driver (src/main.rs) and the Python package's
//! `lego.translate` (python/src/translate.rs) print through the same code, so a layout translated from Python
//! and from the command line gives the same text.

#[path = "../../lego-opt/src/diagnostics.rs"]
pub mod diagnostics;
#[path = "../../lego-opt/src/expected_diagnostics.rs"]
pub mod expected_diagnostics;

// The driver modules lego-translate shares with lego-opt.
#[path = "../../lego-opt/src/chunks.rs"]
mod chunks;
#[path = "../../lego-opt/src/split_input.rs"]
mod split_input;

mod driver;
pub use driver::main_with_args;

pub mod domain;
pub mod extract;
pub mod lang;
pub mod program;

use lang::Language;
use lego_dialect::source;
use lego_passes::{pipeline_text::PipelineElement, registry, Registry};
use melior::{
    ir::{operation::OperationLike, Location, Module},
    pass::PassManager,
    Context,
};

/// Lowers `module` with `pipeline` (empty: translate it as it is) and prints it in `language` (`None`: the
/// lowered MLIR). `file_name` and `text` are the module's source (parameter names are read from it; empty
/// for a module built in memory). `rename` may adjust each extracted function (its parameter names) before
/// printing. `None` when it failed: the located diagnostics are emitted on `context`.
#[allow(clippy::too_many_arguments)]
pub fn translate_module(
    context: &Context,
    registry: &Registry,
    pipeline: &[PipelineElement],
    language: Option<Language>,
    options: lang::Options,
    file_name: &str,
    text: &str,
    module: &mut Module,
    rename: Option<&dyn Fn(&mut program::Function)>,
) -> Option<String> {
    // The domains are read before lowering erases the layouts; input translated as it is has none known.
    let mut origins = Vec::new();
    let mut domains = (language.is_some() && !pipeline.is_empty())
        .then(|| domain::analyze(module.as_operation().to_raw(), &mut origins));
    if !pipeline.is_empty() {
        let manager = PassManager::new(context);
        if let Err(error) = registry::build_pass_manager(registry, manager.as_operation_pass_manager(), pipeline, false) {
            lego_dialect::verify::emit_error(module.as_operation().location(), &error.to_string());
            return None;
        }
        manager.run(module).ok()?;
    }
    let Some(language) = language else {
        return Some(source::print(&module.as_operation(), source::PrintOptions::default()));
    };
    let mut extracted = match extract::extract_module(module.as_operation().to_raw(), file_name, text, origins) {
        Ok(extracted) => extracted,
        Err(error) => {
            let location = unsafe { Location::from_raw(error.location) };
            lego_dialect::verify::emit_error(location, &format!("{} (translating to {})", error.message, language.display_name()));
            return None;
        }
    };
    if let Some(domains) = domains.as_mut() {
        for function in &mut extracted.functions {
            function.domain = domains.remove(&function.name).unwrap_or_else(|| program::Domain::Known {
                bounds: Vec::new(),
                unstated: 0,
                extents: Vec::new(),
            });
        }
    }
    if let Some(rename) = rename {
        extracted.functions.iter_mut().for_each(rename);
    }
    match lang::print(language, options, file_name, &extracted.functions) {
        Ok(output) => Some(output),
        Err(error) => {
            let location = unsafe { Location::from_raw(extracted.origins[error.origin]) };
            lego_dialect::verify::emit_error(location, &error.message);
            None
        }
    }
}
