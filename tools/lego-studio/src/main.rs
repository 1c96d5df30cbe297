//! `lego-studio`: see a layout.
//!
//! ```sh
//! lego-studio draw FILE.mlir [--func NAME] [--layout %name] -o OUT.svg|OUT.txt
//! ```
//!
//! `draw` parses and verifies FILE as `lego-opt` does (errors are `file:line:col: error: …`, exit 1), picks a
//! layout — `%name` in function `NAME`, by default the last layout built in the first function that builds
//! one — reads it into the reference algebra (`convert`) and draws it with `lego_algebra::picture`, the code
//! that draws the docs' op pictures: the logical grid with each cell's physical offset, and physical memory
//! with the (row,column) stored at each offset. The output format follows the extension: `.txt` (the docs'
//! ASCII form) or `.svg`. See docs/studio.md.

#[allow(dead_code)]
#[path = "../../lego-opt/src/diagnostics.rs"]
mod diagnostics;
#[allow(dead_code)]
#[path = "../../lego-opt/src/expected_diagnostics.rs"]
mod expected_diagnostics;

mod convert;

use diagnostics::DiagnosticSink;
use lego_algebra::picture::Picture;
use lego_dialect::{ops::walk_ops, source, verify::emit_error};
use melior::ir::{block::BlockLike, operation::OperationLike, OperationRef, RegionLike};
use std::process::ExitCode;

const USAGE: &str = "usage: lego-studio draw FILE.mlir [--func NAME] [--layout %name] -o OUT.svg|OUT.txt";

struct DrawArgs {
    input: String,
    func: Option<String>,
    layout: Option<String>,
    output: String,
}

#[derive(Clone, Copy)]
enum Format {
    Text,
    Svg,
}

fn parse_args(args: &[String]) -> Result<DrawArgs, String> {
    let mut args = args.iter();
    match args.next().map(String::as_str) {
        Some("draw") => {}
        Some("serve") => return Err("'serve' is not implemented yet; 'draw' is".into()),
        Some(other) => return Err(format!("unknown command '{other}'")),
        None => return Err("no command given".into()),
    }
    let (mut input, mut func, mut layout, mut output) = (None, None, None, None);
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        match arg.as_str() {
            "--func" => func = Some(value("--func")?.trim_start_matches('@').to_string()),
            "--layout" => layout = Some(value("--layout")?.trim_start_matches('%').to_string()),
            "-o" | "--output" => output = Some(value("-o")?),
            flag if flag.starts_with('-') && flag != "-" => return Err(format!("unknown option '{flag}'")),
            file if input.is_none() => input = Some(file.to_string()),
            extra => return Err(format!("unexpected argument '{extra}'")),
        }
    }
    Ok(DrawArgs {
        input: input.ok_or("no input file")?,
        func,
        layout,
        output: output.ok_or("no output file (-o OUT.svg or -o OUT.txt)")?,
    })
}

fn output_format(path: &str) -> Result<Format, String> {
    match std::path::Path::new(path).extension().and_then(|e| e.to_str()) {
        Some("txt") => Ok(Format::Text),
        Some("svg") => Ok(Format::Svg),
        _ => Err(format!("cannot tell the format of '{path}': use a .svg or .txt file (png is not supported yet)")),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if matches!(args.first().map(String::as_str), Some("--help" | "-h" | "help")) {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let draw = match parse_args(&args).and_then(|draw| output_format(&draw.output).map(|format| (draw, format))) {
        Ok(draw) => draw,
        Err(message) => {
            eprintln!("lego-studio: error: {message}\n{USAGE}");
            return ExitCode::FAILURE;
        }
    };
    match run(&draw.0, draw.1) {
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
    let layout = match convert::layout(op) {
        Ok(layout) => layout,
        Err(error) => {
            emit_error(error.op.location(), &format!("cannot draw this layout: {}", error.message));
            return Err(report(&sink));
        }
    };
    let picture = Picture::new(layout);
    let rendered = match format {
        Format::Text => picture.render(),
        Format::Svg => picture.render_svg(),
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

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.iter().map(|name| format!("@{name}")).collect::<Vec<_>>().join(", ")
    }
}

/// The `func.func` ops of the module, with their names, in order.
fn functions<'c, 'a>(module: OperationRef<'c, 'a>) -> Vec<(String, OperationRef<'c, 'a>)> {
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
fn layout_ops<'c, 'a>(func: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
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
