//! `lego-studio`: see a layout.
//!
//! ```sh
//! lego-studio draw FILE.mlir [--func NAME] [--layout %name] -o OUT.svg|OUT.png|OUT.txt
//! lego-studio serve [--port 8080] [--host 127.0.0.1] [--workers N] [--queue N] [--max-body BYTES] [--timeout SECONDS]
//! ```
//!
//! `draw` parses and verifies FILE as `lego-opt` does (errors are `file:line:col: error: …`, exit 1), picks a
//! layout — `%name` in function `NAME`, by default the last layout built in the first function that builds
//! one — reads it into the reference algebra (`convert`) and draws it with `lego_algebra::picture`, the code
//! that draws the docs' op pictures: the logical grid with each cell's physical offset, and physical memory
//! with the (row,column) stored at each offset. The output format follows the extension: `.txt` (the docs'
//! ASCII form), `.svg`, or `.png` (the SVG rasterized, [`png`]).
//!
//! `serve` serves the browser app (embedded at build time, [`assets`]) and a JSON API that runs the real
//! pipeline in-process ([`api`], [`server`]). See docs/studio.md.

#[allow(dead_code)]
#[path = "../../lego-opt/src/diagnostics.rs"]
mod diagnostics;
#[allow(dead_code)]
#[path = "../../lego-opt/src/expected_diagnostics.rs"]
mod expected_diagnostics;

// lego-translate's printers, shared as lego-translate shares lego-opt's driver modules: the API's
// `translate:<language>` stages print exactly what `lego-translate --lego-to-<language>` prints.
#[allow(dead_code)]
#[path = "../../lego-translate/src/domain.rs"]
mod domain;
#[allow(dead_code)]
#[path = "../../lego-translate/src/extract.rs"]
mod extract;
#[allow(dead_code)]
#[path = "../../lego-translate/src/lang/mod.rs"]
mod lang;
#[allow(dead_code)]
#[path = "../../lego-translate/src/program.rs"]
mod program;

mod api;
mod assets;
mod convert;
mod gen_eval;
mod http;
mod png;
mod pool;
mod server;

use diagnostics::DiagnosticSink;
use lego_algebra::picture::Picture;
use lego_dialect::{source, verify::emit_error};
use melior::ir::{block::BlockLike, operation::OperationLike, OperationRef, RegionLike};
use std::{ffi::OsString, process::ExitCode};

const USAGE: &str = "usage: lego-studio draw FILE.mlir [--func NAME] [--layout %name] [--max-png-size PIXELS] -o OUT.svg|OUT.png|OUT.txt
       lego-studio serve [--port 8080] [--host 127.0.0.1] [--workers N] [--queue N] [--max-body BYTES] [--timeout SECONDS] [--compute-timeout SECONDS] [--list-assets]
       lego-studio --version";

/// The most elements (logical, or physical positions) `draw` draws: the page's limit
/// (`lego_algebra_wasm::MAX_DRAW_ELEMENTS`), checked before any cell is computed.
pub const MAX_DRAW_ELEMENTS: u64 = 1 << 18;

/// The most layout-node evaluations (elements × constructors of the tree) a picture may take.
pub const MAX_DRAW_WORK: u64 = 1 << 26;

/// The stack of the thread that draws: the algebra recurses once per nesting level (at most
/// `convert::MAX_DEPTH`), and a debug build's frames are large.
const DRAW_STACK: usize = 256 << 20;

struct DrawArgs {
    input: String,
    func: Option<String>,
    layout: Option<String>,
    output: String,
    max_png_size: u32,
}

#[derive(Clone, Copy)]
enum Format {
    Text,
    Svg,
    Png,
}

enum Command {
    Draw(DrawArgs),
    Serve(server::Config),
    /// `serve --list-assets`: the embedded files' URL paths, one a line.
    ListAssets,
}

fn parse_args(args: &[String]) -> Result<Command, String> {
    match args.first().map(String::as_str) {
        Some("draw") => parse_draw(&args[1..]).map(Command::Draw),
        Some("serve") if args[1..].iter().any(|arg| arg == "--list-assets") => Ok(Command::ListAssets),
        Some("serve") => parse_serve(&args[1..]).map(Command::Serve),
        Some(other) => Err(format!("unknown command '{other}'")),
        None => Err("no command given".into()),
    }
}

fn parse_serve(args: &[String]) -> Result<server::Config, String> {
    let mut config = server::Config::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut number = |flag: &str, min: u64, max: u64| -> Result<u64, String> {
            let text = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
            text.parse::<u64>()
                .ok()
                .filter(|value| (min..=max).contains(value))
                .ok_or_else(|| format!("{flag} '{text}': expected a whole number from {min} to {max}"))
        };
        match arg.as_str() {
            "--port" => config.port = number("--port", 0, 65535)? as u16,
            "--workers" => config.workers = number("--workers", 1, 256)? as usize,
            "--queue" => config.queue = number("--queue", 1, 1 << 16)? as usize,
            "--max-body" => config.max_body = number("--max-body", 1, 1 << 30)? as usize,
            "--timeout" => config.timeout = std::time::Duration::from_secs(number("--timeout", 1, 3600)?),
            "--compute-timeout" => {
                config.compute_timeout = std::time::Duration::from_secs(number("--compute-timeout", 1, 3600)?)
            }
            "--host" => config.host = args.next().cloned().ok_or("--host needs a value")?,
            other => return Err(format!("unknown option '{other}' of serve")),
        }
    }
    Ok(config)
}

fn parse_draw(args: &[String]) -> Result<DrawArgs, String> {
    let mut args = args.iter();
    let (mut input, mut func, mut layout, mut output) = (None, None, None, None);
    let mut max_png_size = png::DEFAULT_MAX_SIZE;
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        match arg.as_str() {
            "--func" => func = Some(value("--func")?.trim_start_matches('@').to_string()),
            "--layout" => layout = Some(value("--layout")?.trim_start_matches('%').to_string()),
            "-o" | "--output" => output = Some(value("-o")?),
            "--max-png-size" => {
                let text = value("--max-png-size")?;
                max_png_size = text
                    .parse::<u32>()
                    .ok()
                    .filter(|size| (16..=png::LARGEST_SIZE).contains(size))
                    .ok_or_else(|| format!("--max-png-size '{text}': expected a whole number of pixels from 16 to {}", png::LARGEST_SIZE))?;
            }
            flag if flag.starts_with('-') && flag != "-" => return Err(format!("unknown option '{flag}'")),
            file if input.is_none() => input = Some(file.to_string()),
            extra => return Err(format!("unexpected argument '{extra}'")),
        }
    }
    Ok(DrawArgs {
        input: input.ok_or("no input file")?,
        func,
        layout,
        output: output.ok_or("no output file (-o OUT.svg, -o OUT.png or -o OUT.txt)")?,
        max_png_size,
    })
}

fn output_format(path: &str) -> Result<Format, String> {
    match std::path::Path::new(path).extension().and_then(|e| e.to_str()) {
        Some("txt") => Ok(Format::Text),
        Some("svg") => Ok(Format::Svg),
        Some("png") => Ok(Format::Png),
        _ => Err(format!("cannot tell the format of '{path}': use a .svg, .png or .txt file")),
    }
}

/// The whole of `lego-studio` with `arguments` as its command line (the program name first): the exit status
/// (0 or 1). `self_command` starts this same tool again (the binary: its own path; the Python package's console
/// script: the interpreter with `-m lego._tools lego-studio`).
pub fn main_with_args(arguments: Vec<OsString>, self_command: Vec<OsString>) -> u8 {
    let args: Result<Vec<String>, OsString> = arguments.into_iter().skip(1).map(OsString::into_string).collect();
    let status = match args {
        Ok(args) => run_command_line(args, self_command),
        Err(bad) => {
            eprintln!("lego-studio: error: argument {bad:?} is not valid UTF-8");
            ExitCode::FAILURE
        }
    };
    let _ = std::io::Write::flush(&mut std::io::stdout());
    u8::from(status != ExitCode::SUCCESS)
}

fn run_command_line(args: Vec<String>, self_command: Vec<OsString>) -> ExitCode {
    if matches!(args.first().map(String::as_str), Some("--help" | "-h" | "help")) {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    if matches!(args.first().map(String::as_str), Some("--version" | "-V")) {
        // As lego-opt and lego-translate print it.
        println!("lego-studio {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    if args.first().map(String::as_str) == Some(server::WORKER_COMMAND) {
        return server::worker_process(&args[1..]);
    }
    let draw = match parse_args(&args) {
        Ok(Command::Draw(draw)) => output_format(&draw.output).map(|format| (draw, format)),
        Ok(Command::Serve(mut config)) => {
            if !self_command.is_empty() {
                config.self_command = self_command;
            }
            return match server::serve(config) {
                Ok(()) => ExitCode::SUCCESS,
                Err(message) => {
                    eprintln!("lego-studio: error: {message}");
                    ExitCode::FAILURE
                }
            };
        }
        Ok(Command::ListAssets) => {
            assets::paths().for_each(|path| println!("{path}"));
            return ExitCode::SUCCESS;
        }
        Err(message) => Err(message),
    };
    let draw = match draw {
        Ok(draw) => draw,
        Err(message) => {
            eprintln!("lego-studio: error: {message}\n{USAGE}");
            return ExitCode::FAILURE;
        }
    };
    let (draw, format) = draw;
    let drawn = std::thread::Builder::new()
        .name("lego-studio-draw".into())
        .stack_size(DRAW_STACK)
        .spawn(move || run(&draw, format))
        .map_err(|error| format!("cannot start the drawing thread: {error}"))
        .and_then(|thread| thread.join().map_err(|_| "internal error while drawing (a bug: please report the input)".to_string()))
        .and_then(|result| result);
    match drawn {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("lego-studio: error: {message}");
            }
            ExitCode::FAILURE
        }
    }
}

/// Draws; `Err("")` when the error was reported as located diagnostics already.
fn run(args: &DrawArgs, format: Format) -> Result<(), String> {
    let text = std::fs::read_to_string(&args.input).map_err(|error| format!("cannot read '{}': {error}", args.input))?;
    let context = lego_dialect::create_context().map_err(|error| error.to_string())?;
    context.enable_multi_threading(false);
    let sink = DiagnosticSink::attach(&context);
    let report = |sink: &DiagnosticSink| {
        diagnostics::print(&sink.take(), &text);
        String::new()
    };
    let Ok(module) = source::parse(&context, &args.input, &text) else { return Err(report(&sink)) };
    let module_op = module.as_operation();

    let functions = functions(module_op);
    let names: Vec<String> = functions.iter().map(|(name, _)| name.clone()).collect();
    let (func_name, func) = match &args.func {
        Some(wanted) => functions.into_iter().find(|(name, _)| name == wanted).ok_or_else(|| {
            format!("no function @{wanted} in '{}' (functions: {})", args.input, list(&names))
        })?,
        None => functions.into_iter().find(|(_, func)| !layout_ops(*func).is_empty()).ok_or_else(|| {
            format!("no function of '{}' builds a layout (functions: {})", args.input, list(&names))
        })?,
    };
    let candidates = layout_ops(func);
    let op = match &args.layout {
        None => *candidates.last().ok_or_else(|| format!("@{func_name} builds no layout"))?,
        Some(name) => {
            let lines = defining_lines(&text, name);
            candidates
                .iter()
                .copied()
                .find(|op| diagnostics::file_line_column(op.location()).is_some_and(|(_, line, _)| lines.contains(&line)))
                .ok_or_else(|| format!("@{func_name} builds no layout named %{name}"))?
        }
    };
    let shaped = match convert::Converter::default().shaped(op).and_then(|shaped| drawable(op, shaped)) {
        Ok(shaped) => shaped,
        Err(error) => {
            emit_error(error.op.location(), &format!("cannot draw this layout: {}", error.message));
            return Err(report(&sink));
        }
    };
    let picture = Picture::new(shaped.layout);
    let rendered = match format {
        Format::Text => picture.render().map(String::into_bytes),
        Format::Svg => picture.render_svg().map(String::into_bytes),
        Format::Png => picture.render_svg().and_then(|svg| png::render(&svg, args.max_png_size)),
    };
    let rendered = match rendered {
        Ok(rendered) => rendered,
        Err(message) => {
            emit_error(op.location(), &format!("cannot draw this layout: {message}"));
            return Err(report(&sink));
        }
    };
    std::fs::write(&args.output, rendered).map_err(|error| format!("cannot write '{}': {error}", args.output))
}

/// `shaped` when a picture of it can be computed within the bounds (elements, work), checked before any
/// cell is: the error otherwise.
fn drawable<'c, 'a>(op: OperationRef<'c, 'a>, shaped: convert::Shaped) -> Result<convert::Shaped, convert::ConvertError<'c, 'a>> {
    let layout = &shaped.layout;
    let largest = layout.numel().max(layout.codomain_size());
    if largest > MAX_DRAW_ELEMENTS {
        // No option raises it: the page has the same limit, and a picture of more cells is not one a person reads.
        let message = format!(
            "{largest} elements: too many to draw (at most {MAX_DRAW_ELEMENTS}, the page's limit too; no option raises it: draw a smaller layout or a tile of it)"
        );
        return Err(convert::ConvertError { op, message });
    }
    let work = largest.saturating_mul(shaped.nodes);
    if work > MAX_DRAW_WORK {
        let message = format!(
            "{largest} elements × {} layout constructors: too much to evaluate for a picture (at most {MAX_DRAW_WORK})",
            shaped.nodes
        );
        return Err(convert::ConvertError { op, message });
    }
    Ok(shaped)
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.iter().map(|name| format!("@{name}")).collect::<Vec<_>>().join(", ")
    }
}

/// The `func.func` ops of the module, with their names, in order.
/// Visits `root` and every op nested in it, in pre-order (as `lego_dialect::ops::walk_ops`), with an explicit
/// stack: nothing here recurses as deep as the input nests regions.
fn walk_ops<'c, 'a>(root: OperationRef<'c, 'a>, visit: &mut dyn FnMut(OperationRef<'c, 'a>)) {
    let mut stack = vec![root];
    while let Some(op) = stack.pop() {
        visit(op);
        let mut nested = Vec::new();
        for region in op.regions() {
            let mut block = region.first_block();
            while let Some(current) = block {
                let mut inner = current.first_operation();
                while let Some(found) = inner {
                    nested.push(found);
                    inner = found.next_in_block();
                }
                block = current.next_in_region();
            }
        }
        stack.extend(nested.into_iter().rev());
    }
}

pub(crate) fn functions<'c, 'a>(module: OperationRef<'c, 'a>) -> Vec<(String, OperationRef<'c, 'a>)> {
    let mut out = Vec::new();
    walk_ops(module, &mut |op| {
        if op.name().as_string_ref().as_str().ok() == Some("func.func") {
            let name = op
                .attribute("sym_name")
                .ok()
                .and_then(|a| melior::ir::attribute::StringAttribute::try_from(a).ok())
                .map(|a| a.value().to_string())
                .unwrap_or_default();
            out.push((name, op));
        }
    });
    out
}

/// The layout constructors of `func`, in order.
pub(crate) fn layout_ops<'c, 'a>(func: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut out = Vec::new();
    let Ok(region) = func.region(0) else { return out };
    let mut block = region.first_block();
    while let Some(current) = block {
        let mut next = current.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            walk_ops(op, &mut |inner| {
                let is_layout = lego_dialect::ops::OpKind::of(&inner).is_some_and(|kind| kind.is_layout_constructor());
                if is_layout {
                    out.push(inner);
                }
            });
        }
        block = current.next_in_region();
    }
    out
}

/// The 1-based lines where `%name` is defined as a result (`%name = lego.…`).
fn defining_lines(text: &str, name: &str) -> Vec<usize> {
    let pattern = format!(r"%{}\s*=\s*lego\.", regex::escape(name));
    let Ok(regex) = regex::Regex::new(&pattern) else { return Vec::new() };
    text.lines().enumerate().filter(|(_, line)| regex.is_match(line)).map(|(number, _)| number + 1).collect()
}
