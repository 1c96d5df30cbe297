//! The `lego-translate` driver (the binary, src/main.rs, and the Python package's `lego-translate` console
//! script run it through [`main_with_args`]): mlir-translate for lego layouts. Parses a module (custom lego syntax), runs `lego-lower`
//! (unless `--no-lower`), and prints every `func.func` over `index` as source code of one language
//! (`--lego-to-cuda`, `--lego-to-c`, …). Failures are located diagnostics (`file:line:col: error: …`) naming the
//! op and the language, and exit status 1.

// The printers live in the library (src/lib.rs), shared with the Python package's `lego.translate`.
use crate::{chunks, diagnostics, lang, split_input};

use clap::Parser;
use diagnostics::DiagnosticSink;
use lang::Language;
use lego_dialect::source;
use lego_passes::{pipeline_text::{self, PassElement, PipelineElement}, registry, Registry};
use melior::{pass::PassManager, Context};
use std::{ffi::OsString, io::Write as _};

#[derive(Parser, Debug)]
#[command(
    name = "lego-translate",
    version,
    about = "Translates lego layouts (func.func over index) to index functions in CUDA C, C, C++, Rust, Fortran, Julia, \
             JavaScript, GLSL, WGSL or Python (mlir-translate conventions)"
)]
struct Cli {
    /// Input file (`-` or nothing: standard input).
    #[arg(default_value = "-")]
    input: String,
    /// Output file (default: standard output).
    #[arg(short = 'o', value_name = "FILE")]
    output: Option<String>,
    /// Split the input on `// -----` lines and translate each chunk alone.
    #[arg(long = "split-input-file")]
    split_input_file: bool,
    /// Check `// expected-error {{...}}` comments against the diagnostics produced.
    #[arg(long = "verify-diagnostics")]
    verify_diagnostics: bool,
    /// Translate the input as it is (it must already be lowered: arith, scf.if, affine index ops).
    #[arg(long = "no-lower")]
    no_lower: bool,
    /// The pipeline run before translation instead of lego-lower, e.g.
    /// `builtin.module(lego-to-arith, canonicalize)`.
    #[arg(long = "pass-pipeline", value_name = "PIPELINE", conflicts_with = "no_lower")]
    pass_pipeline: Option<String>,
    /// Check each function's domain (the bounds its layouts put on its arguments, stated in a comment) on
    /// entry: assert (C, C++, CUDA C, Rust), error stop (Fortran), throw (Julia, JavaScript), raise (Python);
    /// the shading languages, which cannot abort, return the all-ones "no element" value.
    #[arg(long = "assert-bounds")]
    assert_bounds: bool,
    /// Width of the index type: 64 (default) or 32 for C, C++ and CUDA C (`uint32_t`, ...); GLSL and WGSL are
    /// always 32. With 32, a layout whose extent is 2^32 or more is a located error.
    #[arg(long = "index-bitwidth", value_name = "BITS")]
    index_bitwidth: Option<u32>,
    #[arg(long = "lego-to-mlir", help = "the lowered module itself: what the printers read", group = "language")]
    mlir: bool,
    #[arg(long = "lego-to-cuda", help = "CUDA C: __host__ __device__ inline functions", group = "language")]
    cuda: bool,
    #[arg(long = "lego-to-c", help = "C99 static inline functions", group = "language")]
    c: bool,
    #[arg(long = "lego-to-cpp", help = "C++17 inline functions", group = "language")]
    cpp: bool,
    #[arg(long = "lego-to-rust", help = "Rust functions", group = "language")]
    rust: bool,
    #[arg(long = "lego-to-fortran", help = "a Fortran module of pure functions", group = "language")]
    fortran: bool,
    #[arg(long = "lego-to-julia", help = "Julia functions", group = "language")]
    julia: bool,
    #[arg(long = "lego-to-js", help = "JavaScript functions (Number)", group = "language")]
    js: bool,
    #[arg(long = "lego-to-glsl", help = "GLSL functions (uint)", group = "language")]
    glsl: bool,
    #[arg(long = "lego-to-wgsl", help = "WGSL functions (u32)", group = "language")]
    wgsl: bool,
    #[arg(long = "lego-to-python", help = "Python functions (int)", group = "language")]
    python: bool,
}

impl Cli {
    fn language(&self) -> Option<Language> {
        let chosen = [
            (self.cuda, Language::Cuda),
            (self.c, Language::C),
            (self.cpp, Language::Cpp),
            (self.rust, Language::Rust),
            (self.fortran, Language::Fortran),
            (self.julia, Language::Julia),
            (self.js, Language::JavaScript),
            (self.glsl, Language::Glsl),
            (self.wgsl, Language::Wgsl),
            (self.python, Language::Python),
        ];
        chosen.into_iter().find(|(on, _)| *on).map(|(_, language)| language)
    }
}

/// The whole of `lego-translate` with `arguments` as its command line (the program name first): the exit
/// status (0 or 1). Standard output is flushed before it returns.
pub fn main_with_args(arguments: Vec<OsString>) -> u8 {
    let status = run_command_line(arguments);
    let _ = std::io::stdout().flush();
    status
}

fn run_command_line(arguments: Vec<OsString>) -> u8 {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("off"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
    // mlir-translate accepts `-flag` as well as `--flag`.
    let arguments: Vec<String> = match arguments.into_iter().map(OsString::into_string).collect() {
        Ok(arguments) => arguments,
        Err(bad) => {
            eprintln!("lego-translate: error: argument {bad:?} is not valid UTF-8");
            return 1;
        }
    };
    let arguments = arguments.into_iter().enumerate().map(|(index, argument)| {
        let single_dash_long = index > 0 && argument.starts_with('-') && !argument.starts_with("--") && argument.len() > 2;
        if single_dash_long && !argument.starts_with("-o") { format!("-{argument}") } else { argument }
    });
    let cli = match Cli::try_parse_from(arguments) {
        Ok(cli) => cli,
        Err(error) => {
            use clap::error::ErrorKind;
            if matches!(error.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = error.print();
                return 0;
            }
            let rendered = error.render().to_string();
            let line = rendered.lines().next().unwrap_or("invalid command line");
            eprintln!("lego-translate: {line}");
            return 1;
        }
    };
    let language = cli.language();
    if language.is_none() && !cli.mlir {
        eprintln!("lego-translate: error: no translation chosen: pass one of {}, --lego-to-mlir", flags());
        return 1;
    }
    let options = match lang::Options::new(language, cli.index_bitwidth, cli.assert_bounds) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("lego-translate: error: {message}");
            return 1;
        }
    };
    match run(&cli, language, options) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(message) => {
            eprintln!("lego-translate: {message}");
            1
        }
    }
}

fn flags() -> String {
    Language::ALL.iter().map(|language| format!("--{}", language.flag())).collect::<Vec<_>>().join(", ")
}

fn run(cli: &Cli, language: Option<Language>, translation: lang::Options) -> Result<bool, String> {
    let text = chunks::read_input(&cli.input)?;
    let file_name = if cli.input == "-" { "<stdin>".to_string() } else { cli.input.clone() };
    let context = lego_dialect::create_context().map_err(|error| format!("error: {error}"))?;
    context.enable_multi_threading(false);
    let sink = DiagnosticSink::attach(&context);
    sink.report_llvm_fatal_errors(&file_name, &text);
    let registry = Registry::default();
    let pipeline = if cli.no_lower {
        Vec::new()
    } else if let Some(text) = &cli.pass_pipeline {
        let pipeline = pipeline_text::parse_pipeline(text)
            .map_err(|error| format!("error: invalid --pass-pipeline: {error}\n{}", error.caret_snippet(text)))?;
        if pipeline.anchor != "builtin.module" && pipeline.anchor != "any" {
            return Err(format!("error: can't run '{}' pass manager on 'builtin.module' op", pipeline.anchor));
        }
        pipeline.elements
    } else {
        vec![PipelineElement::Pass(PassElement { name: "lego-lower".to_string(), options: None, offset: 0 })]
    };
    // A bad pipeline is an error of its own, before any input is translated.
    registry::expand_pipelines(&registry, &pipeline).map_err(|error| format!("error: {error}"))?;
    if !pipeline.is_empty() {
        let manager = PassManager::new(&context);
        registry::build_pass_manager(&registry, manager.as_operation_pass_manager(), &pipeline, false)
            .map_err(|error| format!("error: {error}"))?;
    }

    let options = chunks::ChunkOptions {
        file_name: &file_name,
        split_input_file: cli.split_input_file,
        verify_diagnostics: cli.verify_diagnostics,
    };
    let (outputs, all_ok) = chunks::run(&text, &options, &sink, |padded| {
        translate_chunk(&context, &registry, &pipeline, language, translation, &file_name, padded)
    });
    if all_ok || cli.split_input_file || cli.verify_diagnostics {
        chunks::write_output(cli.output.as_deref(), &outputs.join(split_input::OUTPUT_SEPARATOR))?;
    }
    Ok(all_ok)
}

/// Parses, lowers and prints one chunk. `None` when it failed (the diagnostics say why).
fn translate_chunk(
    context: &Context,
    registry: &Registry,
    pipeline: &[PipelineElement],
    language: Option<Language>,
    options: lang::Options,
    file_name: &str,
    text: &str,
) -> Option<String> {
    let mut module = source::parse(context, file_name, text).ok()?;
    crate::translate_module(context, registry, pipeline, language, options, file_name, text, &mut module, None)
}
