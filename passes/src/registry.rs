//! The pass registry: every lego pass and pipeline by name, with its options. `lego-opt`, the pipelines, the
//! C API and embedders all build pass managers through [`build_pass_manager`], so a new pass is one
//! [`PassInfo`] entry.
//!
//! The registry imports no pass or pipeline: they depend on it (for [`PassInfo`], [`Options`]), and the crate
//! root fills a [`Registry`] with their entries and hooks. Were it the other way round, every pass module would
//! sit in one import cycle with it (issue 35; `tests/module_graph.rs` keeps it out).
//!
//! No MLIR C API registers a pass by name, so pipeline text is parsed here ([`crate::pipeline_text`]); lego
//! names become our external passes, everything else is handed to MLIR one element at a time
//! (`mlirOpPassManagerAddPipeline`), which reports unknown upstream passes and options itself.

use crate::pipeline_text::{self, PassElement, PipelineElement, PipelineError};
use melior::{
    pass::{OperationPassManager, Pass},
    StringRef,
};
use std::{collections::BTreeMap, ffi::c_void, fmt::Write as _};

/// One declared option of a lego pass or pipeline.
#[derive(Debug, Clone, Copy)]
pub struct OptionSpec {
    pub name: &'static str,
    pub default: &'static str,
    pub description: &'static str,
}

/// What a registry name stands for.
#[derive(Clone, Copy)]
pub enum Entry {
    /// A single pass.
    Pass(fn(&Options) -> Result<Pass, RegistryError>),
    /// A pipeline: expands to pipeline text (lego and upstream element names), given its options.
    Pipeline(fn(&Options) -> Result<String, RegistryError>),
}

/// A registered lego pass or pipeline.
#[derive(Clone, Copy)]
pub struct PassInfo {
    pub name: &'static str,
    pub description: &'static str,
    pub options: &'static [OptionSpec],
    pub entry: Entry,
}

/// Parsed, validated options of one pass instance.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pass: &'static str,
    values: BTreeMap<&'static str, String>,
    /// The lego pipeline whose expansion holds this pass, when built from one (not user-settable).
    pipeline: Option<&'static str>,
}

impl Options {
    /// Parses `key=value ...` for `info`, rejecting options it does not declare; fills in defaults.
    pub fn parse(info: &PassInfo, text: Option<&str>) -> Result<Options, RegistryError> {
        let mut values: BTreeMap<&'static str, String> =
            info.options.iter().map(|spec| (spec.name, spec.default.to_string())).collect();
        if let Some(text) = text {
            for (key, value) in pipeline_text::parse_pass_options(text).map_err(RegistryError::Pipeline)? {
                let Some(spec) = info.options.iter().find(|spec| spec.name == key) else {
                    // A pass or pipeline without options says so, rather than listing nothing.
                    let valid = if info.options.is_empty() {
                        "it takes no options".to_string()
                    } else {
                        let names: Vec<&str> = info.options.iter().map(|spec| spec.name).collect();
                        format!("valid options: {}", names.join(", "))
                    };
                    return Err(RegistryError::UnknownOption { pass: info.name.to_string(), option: key, valid });
                };
                values.insert(spec.name, value);
            }
        }
        Ok(Options { pass: info.name, values, pipeline: None })
    }

    /// The lego pipeline that this pass instance is an element of, when the pass manager is built from its
    /// expansion (`lego-lower`); None for a pass named by the user, and when a pipeline is run one element at
    /// a time (IR printing). Lets a pipeline's passes leave a clean-up to a later element.
    pub fn enclosing_pipeline(&self) -> Option<&'static str> {
        self.pipeline
    }

    /// The pass or pipeline these options belong to.
    pub fn pass_name(&self) -> &'static str {
        self.pass
    }

    pub fn string(&self, name: &str) -> &str {
        self.values.get(name).map_or("", String::as_str)
    }

    pub fn bool(&self, name: &str) -> Result<bool, RegistryError> {
        match self.string(name) {
            "true" | "1" | "" => Ok(true),
            "false" | "0" => Ok(false),
            other => Err(self.bad_value(name, other, "true or false")),
        }
    }

    pub fn u64(&self, name: &str) -> Result<u64, RegistryError> {
        let text = self.string(name);
        text.parse().map_err(|_| self.bad_value(name, text, "a non-negative integer"))
    }

    pub fn bad_value(&self, name: &str, value: &str, expected: &str) -> RegistryError {
        RegistryError::BadOptionValue {
            pass: self.pass.to_string(),
            option: name.to_string(),
            value: value.to_string(),
            expected: expected.to_string(),
        }
    }
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum RegistryError {
    #[error(transparent)]
    Pipeline(PipelineError),
    /// `valid`: `valid options: a, b`, or `it takes no options`.
    #[error("unknown option '{option}' for pass '{pass}' ({valid})")]
    UnknownOption { pass: String, option: String, valid: String },
    #[error("invalid value '{value}' for option '{option}' of '{pass}': expected {expected}")]
    BadOptionValue { pass: String, option: String, value: String, expected: String },
    #[error("{message}")]
    Upstream { name: String, message: String },
    #[error("pass pipeline '{0}' expands into itself")]
    RecursivePipeline(String),
    #[error("{0}")]
    Other(String),
}

/// A lego pass that rides along an upstream pass name (`canonicalize` also runs the lego patterns). The
/// registry looks the name up when it meets an element it does not hold, and hands MLIR whatever `add` returns.
#[derive(Clone, Copy)]
pub struct UpstreamHook {
    pub name: &'static str,
    /// Adds the lego part of `element` to the manager. `enclosing` is the lego pipeline being expanded, if
    /// any. Returns the element MLIR still gets (its lego-only options taken out), or None when nothing is left.
    pub add: fn(OperationPassManager, &PassElement, enclosing: Option<&'static str>) -> Result<Option<PassElement>, RegistryError>,
}

/// All lego passes and pipelines. `Registry::default()` (in the crate root) holds every one of this crate.
#[derive(Clone)]
pub struct Registry {
    entries: Vec<PassInfo>,
    hooks: Vec<UpstreamHook>,
}

impl Registry {
    /// A registry holding exactly `entries` and no upstream hooks (embedders may extend the default one
    /// with their own instead).
    pub fn with_entries(entries: Vec<PassInfo>) -> Self {
        Registry { entries, hooks: Vec::new() }
    }

    /// Adds (or replaces) the hook for an upstream name.
    pub fn add_upstream_hook(&mut self, hook: UpstreamHook) {
        self.hooks.retain(|existing| existing.name != hook.name);
        self.hooks.push(hook);
    }

    pub fn upstream_hook(&self, name: &str) -> Option<&UpstreamHook> {
        self.hooks.iter().find(|hook| hook.name == name)
    }

    pub fn add(&mut self, info: PassInfo) {
        self.entries.retain(|entry| entry.name != info.name);
        self.entries.push(info);
    }

    pub fn lookup(&self, name: &str) -> Option<&PassInfo> {
        self.entries.iter().find(|entry| entry.name == name)
    }

    pub fn entries(&self) -> &[PassInfo] {
        &self.entries
    }

    /// Creates one lego pass by name and option text (e.g. `"cleanup=true"`); `None` for pipelines and
    /// unknown names.
    pub fn create_pass(&self, name: &str, options: Option<&str>) -> Option<Result<Pass, RegistryError>> {
        let info = self.lookup(name)?;
        let Entry::Pass(constructor) = info.entry else { return None };
        Some(Options::parse(info, options).and_then(|options| constructor(&options)))
    }

    /// Adds pipeline text to `manager`, by name, as `lego-opt --pass-pipeline` does: lego passes and
    /// pipelines (`lego-lower`, `lego-strength-reduction`) and upstream passes mixed freely, nesting written
    /// explicitly (`lego-lower, func.func(cse)`). A whole `builtin.module(...)` or `any(...)` pipeline is
    /// taken as the elements of `manager` itself. The entry point for embedders (Rust and the C API).
    pub fn add_pipeline(&self, manager: OperationPassManager, text: &str) -> Result<(), RegistryError> {
        let elements = match pipeline_text::parse_pipeline(text) {
            Ok(pipeline) if pipeline.anchor == "builtin.module" || pipeline.anchor == "any" => pipeline.elements,
            _ => pipeline_text::parse_element_list(text).map_err(RegistryError::Pipeline)?,
        };
        // Syntax, lego names and options are checked before anything is added; an unknown upstream pass is only
        // found when MLIR is handed it (the elements before it stay added: use a fresh manager after an error).
        expand_pipelines(self, &elements)?;
        build_pass_manager(self, manager, &elements, false)
    }
}

/// Upstream passes and pipelines that `mlirRegisterAllPasses` provides, with descriptions (for `--list-passes`
/// only: MLIR itself decides what is valid). Generated by `scripts/update-upstream-passes.sh`.
pub fn upstream_passes() -> impl Iterator<Item = (&'static str, &'static str)> {
    include_str!("upstream_passes.txt").lines().filter_map(|line| line.split_once('\t'))
}

/// Whether `name` is a known upstream pass or pipeline.
pub fn is_upstream_pass(name: &str) -> bool {
    upstream_passes().any(|(upstream, _)| upstream == name)
}

/// Registers MLIR's upstream passes in the process-wide pass registry, so pipeline text can name them. Safe
/// to call any number of times.
pub fn register_upstream_passes() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(melior::utility::register_all_passes);
}

/// Adds `elements` to `manager`, expanding lego pipelines and nesting as written.
///
/// `implicit_nesting`: nest op-anchored upstream passes under their op, as mlir-opt does for pass flags
/// (pipeline text given with `--pass-pipeline` is explicit, and is rejected instead).
pub fn build_pass_manager(
    registry: &Registry,
    manager: OperationPassManager,
    elements: &[PipelineElement],
    implicit_nesting: bool,
) -> Result<(), RegistryError> {
    register_upstream_passes();
    let mut builder = Builder { registry, implicit_nesting, expanding: Vec::new() };
    builder.add_elements(manager, elements)
}

struct Builder<'r> {
    registry: &'r Registry,
    implicit_nesting: bool,
    expanding: Vec<&'static str>,
}

impl Builder<'_> {
    fn add_elements(&mut self, manager: OperationPassManager, elements: &[PipelineElement]) -> Result<(), RegistryError> {
        for element in elements {
            match element {
                PipelineElement::Nested { op_name, elements, .. } => {
                    self.add_elements(manager.nested_under(op_name), elements)?;
                }
                PipelineElement::Pass(pass) => self.add_pass(manager, pass)?,
            }
        }
        Ok(())
    }

    fn add_pass(&mut self, manager: OperationPassManager, element: &PassElement) -> Result<(), RegistryError> {
        let Some(info) = self.registry.lookup(&element.name) else {
            if let Some(hook) = self.registry.upstream_hook(&element.name) {
                return match (hook.add)(manager, element, self.expanding.last().copied())? {
                    Some(upstream) => add_upstream(manager, &upstream.to_string(), &upstream.name, self.implicit_nesting),
                    None => Ok(()),
                };
            }
            return add_upstream(manager, &element.to_string(), &element.name, self.implicit_nesting);
        };
        let mut options = Options::parse(info, element.options.as_deref())?;
        options.pipeline = self.expanding.last().copied();
        match info.entry {
            Entry::Pass(constructor) => {
                manager.add_pass(constructor(&options)?);
                Ok(())
            }
            Entry::Pipeline(expand) => {
                if self.expanding.contains(&info.name) {
                    return Err(RegistryError::RecursivePipeline(info.name.to_string()));
                }
                let text = expand(&options)?;
                tracing::debug!(target: "lego", "pipeline {} expands to: {text}", info.name);
                let elements = pipeline_text::parse_element_list(&text).map_err(RegistryError::Pipeline)?;
                self.expanding.push(info.name);
                // Pipelines are written with explicit nesting, whatever the caller asked for.
                let implicit = std::mem::replace(&mut self.implicit_nesting, false);
                let result = self.add_elements(manager, &elements);
                self.implicit_nesting = implicit;
                self.expanding.pop();
                result
            }
        }
    }
}

/// Expands lego pipelines into their elements (recursively) and checks lego pass names and options, without
/// creating any pass. Used to run a pipeline one element at a time (IR printing) and to reject a bad pipeline
/// before any input is read.
pub fn expand_pipelines(registry: &Registry, elements: &[PipelineElement]) -> Result<Vec<PipelineElement>, RegistryError> {
    fn expand(
        registry: &Registry,
        elements: &[PipelineElement],
        expanding: &mut Vec<&'static str>,
        out: &mut Vec<PipelineElement>,
    ) -> Result<(), RegistryError> {
        for element in elements {
            match element {
                PipelineElement::Nested { op_name, elements, offset } => {
                    let mut inner = Vec::new();
                    expand(registry, elements, expanding, &mut inner)?;
                    out.push(PipelineElement::Nested { op_name: op_name.clone(), elements: inner, offset: *offset });
                }
                PipelineElement::Pass(pass) => {
                    let Some(info) = registry.lookup(&pass.name) else {
                        out.push(element.clone());
                        continue;
                    };
                    let options = Options::parse(info, pass.options.as_deref())?;
                    match info.entry {
                        Entry::Pass(_) => out.push(element.clone()),
                        Entry::Pipeline(expand_text) => {
                            if expanding.contains(&info.name) {
                                return Err(RegistryError::RecursivePipeline(info.name.to_string()));
                            }
                            let text = expand_text(&options)?;
                            let inner = pipeline_text::parse_element_list(&text).map_err(RegistryError::Pipeline)?;
                            expanding.push(info.name);
                            expand(registry, &inner, expanding, out)?;
                            expanding.pop();
                        }
                    }
                }
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    expand(registry, elements, &mut Vec::new(), &mut out)?;
    Ok(out)
}

/// Hands one upstream pipeline element (`canonicalize{max-iterations=3}`) to MLIR.
///
/// With `implicit_nesting` (pass flags, as in mlir-opt), a pass anchored on another op than the pass manager's
/// (`func.func` passes given to the module's manager) is nested under its anchor instead of rejected. MLIR
/// names the anchor in its refusal and adds nothing, so we retry nested.
fn add_upstream(manager: OperationPassManager, text: &str, name: &str, implicit_nesting: bool) -> Result<(), RegistryError> {
    match try_add_upstream(manager, text) {
        Ok(()) => Ok(()),
        Err(message) => {
            if implicit_nesting {
                if let Some(anchor) = restricted_anchor(&message) {
                    return try_add_upstream(manager.nested_under(&anchor), text)
                        .map_err(|message| RegistryError::Upstream { name: name.into(), message: clean_upstream_message(&message, name) });
                }
            }
            Err(RegistryError::Upstream { name: name.to_string(), message: clean_upstream_message(&message, name) })
        }
    }
}

fn try_add_upstream(manager: OperationPassManager, text: &str) -> Result<(), String> {
    unsafe extern "C" fn collect(message: mlir_sys::MlirStringRef, data: *mut c_void) {
        // SAFETY: `data` is the `String` passed below, alive for the duration of the call.
        let buffer = unsafe { &mut *(data as *mut String) };
        if let Ok(text) = unsafe { StringRef::from_raw(message) }.as_str() {
            buffer.push_str(text);
        }
    }
    let mut message = String::new();
    let element = StringRef::new(text);
    let result = unsafe {
        mlir_sys::mlirOpPassManagerAddPipeline(
            manager.to_raw(),
            element.to_raw(),
            Some(collect),
            &mut message as *mut String as *mut c_void,
        )
    };
    if result.value != 0 { Ok(()) } else { Err(message) }
}

/// `X` in MLIR's "Can't add pass 'P' restricted to 'X' on a PassManager intended to run on 'Y'".
fn restricted_anchor(message: &str) -> Option<String> {
    let rest = message.split_once("restricted to '")?.1;
    Some(rest.split_once('\'')?.0.to_string())
}

/// MLIR's pipeline parser frames its messages (`<Pass-Options-Parser>: ...`, `failed to add ...`,
/// `MLIR Textual PassPipeline Parser:1:1: error: ...` with an excerpt); keep the sentences a user needs.
fn clean_upstream_message(message: &str, name: &str) -> String {
    let sentences: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('^') && !line.starts_with("failed to add"))
        .map(|line| line.split_once("error: ").map_or(line, |(_, rest)| rest))
        .map(|line| line.strip_prefix("<Pass-Options-Parser>: ").unwrap_or(line))
        .collect();
    match sentences.first() {
        None => format!("'{name}' does not refer to a registered pass or pass pipeline"),
        Some(first) if first.starts_with("no such option") => format!("{first} (for pass '{name}')"),
        Some(first) => first.to_string(),
    }
}

/// Text for `--list-passes`: lego passes with their options, then upstream ones.
pub fn describe(registry: &Registry) -> String {
    let mut out = String::from("lego passes and pipelines:\n");
    for info in registry.entries() {
        let _ = writeln!(out, "  --{:<40} - {}", info.name, info.description);
        for option in info.options {
            let _ = writeln!(
                out,
                "      {:<38} - {} (default: {})",
                format!("{}=<value>", option.name),
                option.description,
                if option.default.is_empty() { "\"\"" } else { option.default }
            );
        }
    }
    out.push_str("\nupstream MLIR passes and pipelines (handed to MLIR):\n");
    for (name, description) in upstream_passes() {
        let _ = writeln!(out, "  --{name:<40} - {description}");
    }
    out
}
