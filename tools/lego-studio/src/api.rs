//! The JSON API of `lego-studio serve`: the real pipeline, in-process (docs/studio.md, "API").
//!
//! - `POST /api/parse` `{"source"}` → every layout of every function, read into lego-algebra and described
//!   as `lego_algebra::describe` JSON (what the page draws);
//! - `POST /api/compile` `{"source", "stage"}` → the text of one stage ([`stages`]);
//! - `GET /api/stages` → the stages and languages.
//!
//! Bad input of every kind is `400 {"error", "diagnostics": [{"line", "col", "severity", "message"}]}`, the
//! diagnostics being the ones `lego-opt` prints as `file:line:col: error: …` for the same text.
//!
//! An [`Engine`] is one worker's MLIR context with its diagnostic sink and pass registry; it is never shared
//! between threads (MLIR contexts are not) and is retired after [`REQUESTS_PER_CONTEXT`] requests.

use crate::diagnostics::{self, DiagnosticSink, Reported};
use crate::expected_diagnostics::Severity;
use crate::http::Response;
use crate::lang::Language;
use lego_dialect::source;
use lego_passes::Registry;
use melior::{
    ir::{operation::OperationLike, Location, Module},
    pass::PassManager,
    Context,
};
use serde_json::{json, Value};
use std::time::Instant;

/// A context keeps every attribute, type and location it ever uniqued (each request's file contents among
/// them): it is replaced after this many requests, so memory stays bounded under any traffic.
pub const REQUESTS_PER_CONTEXT: usize = 200;

/// The file name diagnostics are located in (only line and column reach the client).
const FILE_NAME: &str = "input";

/// The stage that runs the memory-cost analysis, once the pass exists.
const MEMORY_COST_PASS: &str = "lego-analyze-memory";

/// A stage of `/api/compile`, as `/api/stages` lists it.
struct Stage {
    name: String,
    description: String,
    /// Pipeline text run after parsing (`None`: print the parsed module).
    pipeline: Option<String>,
    available: bool,
}

fn stage_list(registry: &Registry) -> Vec<Stage> {
    let stage = |name: &str, description: &str, pipeline: Option<&str>| Stage {
        name: name.into(),
        description: description.into(),
        pipeline: pipeline.map(str::to_string),
        available: true,
    };
    let mut stages = vec![
        stage("verify", "parse and verify; the module printed back (custom syntax)", None),
        stage("lego-lower", "lego-lower: exact index arithmetic (arith, scf)", Some("lego-lower")),
        stage("llvm", "lego-to-llvm: the LLVM dialect (CPU)", Some("lego-to-llvm")),
        stage(
            "ptx",
            "lego-to-nvvm{format=assembly}: the PTX of each kernel (the module needs a gpu.launch)",
            Some("lego-to-nvvm{format=assembly}"),
        ),
    ];
    for language in Language::ALL {
        stages.push(stage(
            &format!("translate:{}", language_name(language)),
            &format!("lego-translate --{}: {}", language.flag(), language.display_name()),
            Some("lego-lower"),
        ));
    }
    stages.push(Stage {
        name: "memory-cost".into(),
        description: format!("{MEMORY_COST_PASS}: shared-memory bank conflicts and global coalescing of each access"),
        pipeline: Some(MEMORY_COST_PASS.into()),
        available: registry.lookup(MEMORY_COST_PASS).is_some(),
    });
    stages
}

/// `cuda`, `c`, `js`, …: the language's lego-translate flag without `lego-to-`.
fn language_name(language: Language) -> &'static str {
    language.flag().trim_start_matches("lego-to-")
}

/// The body of `GET /api/stages`.
pub fn stages(registry: &Registry) -> Value {
    let stages: Vec<Value> = stage_list(registry)
        .into_iter()
        .map(|stage| json!({ "name": stage.name, "description": stage.description, "available": stage.available }))
        .collect();
    let languages: Vec<Value> = Language::ALL
        .into_iter()
        .map(|language| json!({ "name": language_name(language), "display_name": language.display_name(), "stage": format!("translate:{}", language_name(language)) }))
        .collect();
    json!({ "stages": stages, "languages": languages })
}

/// One worker's MLIR context, diagnostics and passes.
pub struct Engine {
    context: Context,
    sink: DiagnosticSink,
    registry: Registry,
    requests: usize,
}

impl Engine {
    pub fn new() -> Result<Engine, String> {
        let context = lego_dialect::create_context().map_err(|error| error.to_string())?;
        // The worker is the unit of parallelism; MLIR's own thread pool per context would multiply threads.
        context.enable_multi_threading(false);
        let sink = DiagnosticSink::attach(&context);
        Ok(Engine { context, sink, registry: Registry::default(), requests: 0 })
    }

    /// Whether this context has served enough requests to be replaced.
    pub fn worn_out(&self) -> bool {
        self.requests >= REQUESTS_PER_CONTEXT
    }

    /// `POST /api/parse`.
    pub fn parse(&mut self, body: &[u8]) -> Response {
        self.requests += 1;
        let request = match request_fields(body, &["source"]) {
            Ok(fields) => fields,
            Err(response) => return response,
        };
        let text = &request[0];
        let _ = self.sink.take();
        let Ok(module) = source::parse(&self.context, FILE_NAME, text) else {
            return self.failure("the source does not parse or verify");
        };
        let layouts = match describe_layouts(&module, text) {
            Ok(layouts) => layouts,
            Err(too_deep) => {
                // The whole request is refused (as lego-opt refuses nesting past its limit), at the op.
                lego_dialect::verify::emit_error(too_deep.op.location(), &too_deep.message);
                drop(module);
                return self.failure("the source nests layouts too deeply to be drawn");
            }
        };
        drop(module);
        let _ = self.sink.take();
        Response::json(200, &json!({ "layouts": layouts }))
    }

    /// `POST /api/compile`.
    pub fn compile(&mut self, body: &[u8]) -> Response {
        self.requests += 1;
        let request = match request_fields(body, &["source", "stage"]) {
            Ok(fields) => fields,
            Err(response) => return response,
        };
        let (text, stage_name) = (&request[0], &request[1]);
        let stages = stage_list(&self.registry);
        let Some(stage) = stages.iter().find(|stage| &stage.name == stage_name) else {
            let names: Vec<&str> = stages.iter().map(|stage| stage.name.as_str()).collect();
            return Response::error(400, format!("unknown stage '{}' (stages: {})", clip(stage_name), names.join(", ")));
        };
        if !stage.available {
            return Response::error(
                400,
                format!("stage '{}' is not available: this build has no '{MEMORY_COST_PASS}' pass yet", stage.name),
            );
        }
        let started = Instant::now();
        let _ = self.sink.take();
        let Ok(mut module) = source::parse(&self.context, FILE_NAME, text) else {
            return self.failure("the source does not parse or verify");
        };
        let language = stage.name.strip_prefix("translate:").and_then(|name| {
            Language::ALL.into_iter().find(|language| language_name(*language) == name)
        });
        // lego-translate reads each function's domain before lowering erases the layouts.
        let mut origins = Vec::new();
        let domains = language.map(|_| crate::domain::analyze(module.as_operation().to_raw(), &mut origins));
        if let Some(pipeline) = &stage.pipeline {
            let manager = PassManager::new(&self.context);
            if let Err(error) = self.registry.add_pipeline(manager.as_operation_pass_manager(), pipeline) {
                return Response::error(500, format!("cannot build the pipeline '{pipeline}': {error}"));
            }
            if manager.run(&mut module).is_err() {
                return self.failure(&format!("stage '{}' failed", stage.name));
            }
        }
        // The memory-cost analysis reports each access as a remark at the access: its output is those lines, as
        // lego-opt prints them (`input:L:C: remark: …`); the module itself is unchanged.
        let mut remarks = None;
        if stage.name == "memory-cost" {
            remarks = Some(self.sink.take());
        }
        let output = match language {
            Some(language) => match translate(&module, text, language, origins, domains.unwrap_or_default()) {
                Ok(output) => output,
                Err(()) => return self.failure(&format!("stage '{}' failed", stage.name)),
            },
            None if stage.name == "ptx" => ptx(&source::print(&module.as_operation(), source::PrintOptions::default())),
            None if remarks.is_some() => remarks.iter().flatten().map(diagnostic_line).collect::<Vec<_>>().join("\n"),
            None => source::print(&module.as_operation(), source::PrintOptions::default()),
        };
        drop(module);
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        // Warnings and remarks of a run that succeeded (the memory-cost analysis reports as remarks).
        let mut reported = remarks.unwrap_or_default();
        reported.extend(self.sink.take());
        // An error fails the stage whoever reported it, as it fails lego-opt's run: lower-affine reports one
        // ("modulo by non-positive value") and still succeeds, leaving a half-converted module.
        if reported.iter().any(|diagnostic| {
            diagnostic.severity == Severity::Error && lego_passes::diagnostics::error_fails_the_run(&diagnostic.message)
        }) {
            let diagnostics = located(&reported);
            let message = format!("stage '{}' failed", stage.name);
            return Response::json(400, &json!({ "error": message, "diagnostics": diagnostics }));
        }
        let diagnostics = located(&reported);
        Response::json(
            200,
            &json!({ "stage": stage.name, "output": output, "ms": (ms * 1000.0).round() / 1000.0, "diagnostics": diagnostics }),
        )
    }

    /// 400 with what the context reported.
    fn failure(&self, message: &str) -> Response {
        let diagnostics = located(&self.sink.take());
        Response::json(400, &json!({ "error": message, "diagnostics": diagnostics }))
    }
}

/// The string fields `names` of a JSON object body, or the 400 that says what is wrong with it.
fn request_fields(body: &[u8], names: &[&str]) -> Result<Vec<String>, Response> {
    let value: Value = serde_json::from_slice(body).map_err(|error| {
        // serde_json locates its errors: report them as diagnostics of the request body.
        Response::json(
            400,
            &json!({
                "error": format!("the request body is not JSON: {error}"),
                "diagnostics": [{ "line": error.line(), "col": error.column(), "severity": "error", "message": error.to_string(), "in": "request" }],
            }),
        )
    })?;
    let Value::Object(object) = value else {
        return Err(Response::error(400, format!("the request body must be a JSON object with {}", fields(names))));
    };
    names
        .iter()
        .map(|name| match object.get(*name) {
            Some(Value::String(text)) => Ok(text.clone()),
            Some(_) => Err(Response::error(400, format!("'{name}' must be a string"))),
            None => Err(Response::error(400, format!("the request has no '{name}' (it needs {})", fields(names)))),
        })
        .collect()
}

fn fields(names: &[&str]) -> String {
    names.iter().map(|name| format!("\"{name}\"")).collect::<Vec<_>>().join(" and ")
}

fn clip(text: &str) -> String {
    text.chars().take(100).collect()
}

/// `input:L:C: severity: message`, as lego-opt prints a diagnostic (without the source line).
fn diagnostic_line(diagnostic: &Reported) -> String {
    let severity = severity_name(diagnostic.severity);
    match (diagnostic.line, diagnostic.column) {
        (Some(line), Some(column)) => format!("{FILE_NAME}:{line}:{column}: {severity}: {}", diagnostic.message),
        _ => format!("{severity}: {}", diagnostic.message),
    }
}

fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
        Severity::Remark => "remark",
    }
}

/// Diagnostics as the API reports them (line and col are 1-based, as in `file:line:col`; null when MLIR
/// gave no location in the source).
fn located(reported: &[Reported]) -> Vec<Value> {
    reported
        .iter()
        .map(|diagnostic| {
            let severity = severity_name(diagnostic.severity);
            json!({ "line": diagnostic.line, "col": diagnostic.column, "severity": severity, "message": diagnostic.message })
        })
        .collect()
}

/// The deepest layout `/api/parse` describes: the page reads a description with serde_json, whose limit is
/// 128 nested JSON values, and each level of `order_by`/`group_by` takes two (an object and its array).
pub const MAX_DESCRIBED_DEPTH: usize = 60;

/// The most a `/api/parse` answer spells out over all its layouts: constructors plus gen_p table elements,
/// every use counted (a layout built on another repeats its description).
pub const MAX_DESCRIBED: u64 = 1 << 21;

/// Every layout constructor of every function: name, line, dims and lego-algebra description; a layout that
/// cannot be read into the algebra (a run-time size, say), or not described within the bounds, has `"error"`
/// and `"error_line"`/`"error_col"` (where to report it) instead of dims/layout. A layout nested deeper than
/// [`crate::convert::MAX_DEPTH`] fails the whole answer: the error, at the first op past the limit.
fn describe_layouts<'c, 'a>(
    module: &'a Module<'c>,
    text: &str,
) -> Result<Vec<Value>, crate::convert::ConvertError<'c, 'a>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut converter = crate::convert::Converter::default();
    let mut described = 0u64;
    for (func, op) in crate::functions(module.as_operation()) {
        for layout_op in crate::layout_ops(op) {
            let (line, col) = diagnostics::file_line_column(layout_op.location())
                .map(|(_, line, col)| (line, col))
                .unwrap_or((0, 0));
            let name = lines.get(line.wrapping_sub(1)).map(|text| result_name(text, col)).unwrap_or_default();
            let mut entry = json!({ "func": func, "name": name, "line": line });
            let bounded = converter.shaped(layout_op).and_then(|shaped| {
                let error = |message: String| crate::convert::ConvertError { op: layout_op, message };
                if shaped.depth > MAX_DESCRIBED_DEPTH {
                    return Err(error(format!(
                        "layout constructors nested {} deep: the page draws at most {MAX_DESCRIBED_DEPTH} levels",
                        shaped.depth
                    )));
                }
                let size = shaped.nodes.saturating_add(shaped.table_elements);
                if described.saturating_add(size) > MAX_DESCRIBED {
                    return Err(error(format!(
                        "not described: the answer would spell out more than {MAX_DESCRIBED} constructors and table elements (this layout: {size})"
                    )));
                }
                described += size;
                Ok(shaped.layout)
            });
            match bounded {
                Ok(layout) => {
                    entry["dims"] = json!(layout.dims());
                    match lego_algebra::describe::to_json(&layout).map(|text| serde_json::from_str::<Value>(&text)) {
                        Ok(Ok(description)) => entry["layout"] = description,
                        Ok(Err(error)) => entry["error"] = json!(error.to_string()),
                        Err(error) => entry["error"] = json!(error.to_string()),
                    }
                }
                Err(error) => {
                    let (line, col) = diagnostics::file_line_column(error.op.location())
                        .map(|(_, line, col)| (line, col))
                        .unwrap_or((line, col));
                    entry["error"] = json!(format!("cannot draw this layout: {}", error.message));
                    entry["error_line"] = json!(line);
                    entry["error_col"] = json!(col);
                }
            }
            if let Some(too_deep) = converter.too_deep() {
                return Err(too_deep.clone());
            }
            out.push(entry);
        }
    }
    Ok(out)
}

/// The SSA name (`%tiled`) the op at 1-based column `col` of `line` defines (`%tiled = lego.tile_by …`: the
/// op's location is its name, after the `=`), or empty.
fn result_name(line: &str, col: usize) -> String {
    let before: String = line.chars().take(col.saturating_sub(1)).collect();
    let Some(before) = before.trim_end().strip_suffix('=') else { return String::new() };
    let token = before.trim_end().rsplit(|c: char| c.is_whitespace()).next().unwrap_or_default();
    if token.starts_with('%') {
        token.to_string()
    } else {
        String::new()
    }
}

/// The lowered module as source code in `language` (what `lego-translate --lego-to-…` prints); `Err` when a
/// located diagnostic was emitted.
fn translate(
    module: &Module,
    text: &str,
    language: Language,
    origins: Vec<mlir_sys::MlirLocation>,
    mut domains: std::collections::HashMap<String, crate::program::Domain>,
) -> Result<String, ()> {
    let location = module.as_operation().location();
    let options = crate::lang::Options::new(Some(language), None, false).map_err(|message| {
        lego_dialect::verify::emit_error(location, &message);
    })?;
    let mut extracted = crate::extract::extract_module(module.as_operation().to_raw(), FILE_NAME, text, origins).map_err(|error| {
        let location = unsafe { Location::from_raw(error.location) };
        lego_dialect::verify::emit_error(location, &format!("{} (translating to {})", error.message, language.display_name()));
    })?;
    for function in &mut extracted.functions {
        function.domain = domains.remove(&function.name).unwrap_or_else(|| crate::program::Domain::Known {
            bounds: Vec::new(),
            unstated: 0,
            extents: Vec::new(),
        });
    }
    crate::lang::print(language, options, FILE_NAME, &extracted.functions).map_err(|error| {
        let location = unsafe { Location::from_raw(extracted.origins[error.origin]) };
        lego_dialect::verify::emit_error(location, &error.message);
    })
}

/// The PTX in the `assembly = "…"` of each `gpu.binary` object, unescaped; the module itself when there is
/// none.
fn ptx(module_text: &str) -> String {
    let Ok(pattern) = regex::Regex::new(r#"assembly = "((?:[^"\\]|\\.)*)""#) else { return module_text.to_string() };
    let kernels: Vec<String> = pattern.captures_iter(module_text).map(|capture| unescape(&capture[1])).collect();
    if kernels.is_empty() {
        module_text.to_string()
    } else {
        kernels.join("\n")
    }
}

/// MLIR's string-attribute escapes: `\XX` (two hex digits), `\\`, `\"`, `\n`, `\t`.
fn unescape(text: &str) -> String {
    let mut bytes = Vec::with_capacity(text.len());
    let raw = text.as_bytes();
    let mut index = 0;
    while index < raw.len() {
        if raw[index] == b'\\' && index + 1 < raw.len() {
            let hex = raw.get(index + 1..index + 3).and_then(|h| std::str::from_utf8(h).ok()).and_then(|h| u8::from_str_radix(h, 16).ok());
            match (hex, raw[index + 1]) {
                (Some(byte), _) => {
                    bytes.push(byte);
                    index += 3;
                    continue;
                }
                (None, b'n') => bytes.push(b'\n'),
                (None, b't') => bytes.push(b'\t'),
                (None, other) => bytes.push(other),
            }
            index += 2;
        } else {
            bytes.push(raw[index]);
            index += 1;
        }
    }
    String::from_utf8_lossy(&bytes).to_string()
}
