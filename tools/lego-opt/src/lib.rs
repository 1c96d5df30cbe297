//! `lego-opt`: mlir-opt for the lego dialect. Parses custom lego syntax, runs lego and upstream passes in
//! command-line order, prints lego ops back in custom syntax. Every failure is a located diagnostic and exit
//! status 1; nothing here panics on user input.
//!
//! The driver is a library ([`main_with_args`]) so that the Python package's `lego-opt` console script runs the
//! same code inside the extension module (docs/python.md, "Installing"); src/main.rs is the binary around it.

mod chunks;
mod cli;
mod diagnostics;
mod expected_diagnostics;
mod split_input;

use cli::Cli;
use diagnostics::DiagnosticSink;
use lego_dialect::source::{self, PrintOptions};
use lego_passes::{pipeline_text::PipelineElement, registry, Registry};
use melior::{
    ir::{operation::OperationLike, Module},
    pass::PassManager,
    Context,
};
use std::{ffi::OsString, io::Write as _};

/// The whole of `lego-opt` with `arguments` as its command line (the program name first): the exit status
/// (0 or 1). Standard output is flushed before it returns (a caller that is not a Rust `main`, the extension
/// module, would otherwise lose buffered output).
pub fn main_with_args(arguments: Vec<OsString>) -> u8 {
    let status = run_command_line(arguments);
    let _ = std::io::stdout().flush();
    status
}

fn run_command_line(arguments: Vec<OsString>) -> u8 {
    init_tracing();
    let registry = Registry::default();
    let arguments = match utf8_arguments(arguments) {
        Ok(arguments) => arguments,
        Err(message) => {
            eprintln!("lego-opt: error: {message}");
            return 1;
        }
    };
    let cli = match cli::parse(arguments, &registry) {
        Ok(cli::Parsed::Run(cli)) => cli,
        Ok(cli::Parsed::Exit(code)) => return code,
        Err(message) => {
            eprintln!("lego-opt: error: {message}");
            return 1;
        }
    };
    match run(&cli, &registry) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(message) => {
            eprintln!("{message}");
            1
        }
    }
}

/// The arguments as text: MLIR file names, pass options and pipelines are UTF-8 (an argument that is not is an
/// error naming it, not a panic).
pub fn utf8_arguments(arguments: Vec<OsString>) -> Result<Vec<String>, String> {
    arguments
        .into_iter()
        .map(|argument| argument.into_string().map_err(|bad| format!("argument {bad:?} is not valid UTF-8")))
        .collect()
}

/// `RUST_LOG=lego=debug` shows pass spans and pipeline expansion.
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("off"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}

/// Runs the whole job. `Ok(false)`: failures were reported as diagnostics. `Err`: a driver-level error.
fn run(cli: &Cli, registry: &Registry) -> Result<bool, String> {
    let text = chunks::read_input(&cli.input)?;
    let file_name = if cli.input == "-" { "<stdin>".to_string() } else { cli.input.clone() };

    let context = lego_dialect::create_context().map_err(|error| format!("error: {error}"))?;
    context.set_allow_unregistered_dialects(cli.allow_unregistered_dialect);
    // Deterministic diagnostic order (and a single thread is what CI machines have anyway).
    context.enable_multi_threading(false);
    let sink = DiagnosticSink::attach(&context);
    sink.report_llvm_fatal_errors(&file_name, &text);

    // Resolve and build the pipeline once before any input is processed: a bad pipeline (unknown pass or
    // option, lego or upstream) is an error of its own, not one located in the input.
    let pipeline = cli.pipeline(registry).map_err(|message| format!("error: {message}"))?;
    if !pipeline.is_empty() {
        let manager = PassManager::new(&context);
        registry::build_pass_manager(registry, manager.as_operation_pass_manager(), &pipeline, cli.pass_pipeline.is_none())
            .map_err(|error| format!("error: {error}"))?;
    }

    let options = chunks::ChunkOptions {
        file_name: &file_name,
        split_input_file: cli.split_input_file,
        verify_diagnostics: cli.verify_diagnostics,
    };
    let (outputs, all_ok) = chunks::run(&text, &options, &sink, |padded| {
        process_chunk(&context, cli, registry, &pipeline, &file_name, padded)
    });

    // One chunk's output (no `--split-input-file`) is written as it is, not joined into a copy.
    let output = match <[String; 1]>::try_from(outputs) {
        Ok([output]) => output,
        Err(outputs) => outputs.join(split_input::OUTPUT_SEPARATOR),
    };
    if all_ok || cli.split_input_file || cli.verify_diagnostics {
        chunks::write_output(cli.output.as_deref(), &output)?;
    }
    // The process ends here: its memory goes back to the system at once, so the context (uniqued attributes,
    // types and locations of the whole input) is not torn down piece by piece first — what clang's
    // `-disable-free` does. Nothing is flushed or reported by tearing it down.
    drop(sink);
    std::mem::forget(context);
    Ok(all_ok)
}

/// Parses, runs the pipeline and prints one chunk. `None` when it failed (diagnostics say why).
fn process_chunk(
    context: &Context,
    cli: &Cli,
    registry: &Registry,
    pipeline: &[PipelineElement],
    file_name: &str,
    text: &str,
) -> Option<String> {
    let source::Parsed { mut module, verified_as_a_whole } = source::parse_module(context, file_name, text).ok()?;
    let print_options =
        PrintOptions { generic: cli.print_op_generic, debug_info: cli.print_debuginfo, assume_verified: false };
    if !pipeline.is_empty() && !run_pipeline(context, cli, registry, pipeline, &mut module, print_options) {
        return None;
    }
    // The module is as MLIR verified it: when parsing (our own verifier only reads it), and after every pass that
    // changed it when the pass manager verifies (MLIR skips only passes that preserved everything). The printer
    // would otherwise verify the whole module once more, only to choose the generic form for invalid IR.
    let assume_verified = verified_as_a_whole && (pipeline.is_empty() || cli.verify_each);
    let printed = source::print(&module.as_operation(), PrintOptions { assume_verified, ..print_options });
    if !cli.split_input_file {
        // The only chunk: the process ends once it is written, and its memory goes back to the system at once,
        // so the module's ops are not freed one by one first (see `run`).
        std::mem::forget(module);
    }
    Some(printed)
}

fn run_pipeline(
    context: &Context,
    cli: &Cli,
    registry: &Registry,
    pipeline: &[PipelineElement],
    module: &mut Module,
    print_options: PrintOptions,
) -> bool {
    let location = module.as_operation().location();
    let fail = |message: String| {
        lego_dialect::verify::emit_error(location, &message);
        false
    };
    if !(cli.print_ir_after_all || cli.print_ir_before_all) {
        let manager = PassManager::new(context);
        manager.enable_verifier(cli.verify_each);
        if cli.timing {
            unsafe { mlir_sys::mlirPassManagerEnableTiming(manager.to_raw()) };
        }
        if let Err(error) =
            registry::build_pass_manager(registry, manager.as_operation_pass_manager(), pipeline, cli.pass_pipeline.is_none())
        {
            return fail(error.to_string());
        }
        return manager.run(module).is_ok();
    }
    // IR printing: run the expanded pipeline one top-level element at a time, printing (in custom syntax) in
    // between. MLIR's own IR printing would print lego ops generically.
    let elements = match registry::expand_pipelines(registry, pipeline) {
        Ok(elements) => elements,
        Err(error) => return fail(error.to_string()),
    };
    for element in &elements {
        let dump = |when: &str, module: &Module| {
            eprintln!("// -----// IR Dump {when} {element} //----- //");
            eprintln!("{}", source::print(&module.as_operation(), print_options));
        };
        if cli.print_ir_before_all {
            dump("Before", module);
        }
        let manager = PassManager::new(context);
        manager.enable_verifier(cli.verify_each);
        if let Err(error) =
            registry::build_pass_manager(
                registry,
                manager.as_operation_pass_manager(),
                std::slice::from_ref(element),
                cli.pass_pipeline.is_none(),
            )
        {
            return fail(error.to_string());
        }
        if manager.run(module).is_err() {
            eprintln!("// -----// IR Dump After {element} Failed //----- //");
            return false;
        }
        if cli.print_ir_after_all {
            dump("After", module);
        }
    }
    true
}
