//! Command line, mlir-opt style: driver options through clap, and every registered pass (lego or upstream) as
//! its own flag, kept in command-line order. `-flag` and `--flag` are the same, as in mlir-opt.

use clap::Parser;
use lego_passes::{
    pipeline_text::{self, PassElement, PipelineElement},
    registry, Registry,
};

#[derive(Parser, Debug, Default)]
#[command(
    name = "lego-opt",
    version,
    about = "Optimizer driver for the lego layout dialect (mlir-opt conventions)",
    after_help = "Every pass and pipeline is also a flag, run in command-line order: \
                  `--lego-lower`, `--canonicalize`, `--lego-to-nvvm='chip=sm_90 features=+ptx80'`.\n\
                  `--list-passes` lists them all."
)]
pub struct Cli {
    /// Input file (`-` or nothing: standard input).
    #[arg(default_value = "-")]
    pub input: String,
    /// Output file (default: standard output).
    #[arg(short = 'o', value_name = "FILE")]
    pub output: Option<String>,
    /// Split the input on `// -----` lines and process each chunk alone.
    #[arg(long = "split-input-file")]
    pub split_input_file: bool,
    /// Check `// expected-error {{...}}` (and warning/note/remark) comments against the diagnostics produced.
    #[arg(long = "verify-diagnostics")]
    pub verify_diagnostics: bool,
    /// A textual pass pipeline, e.g. `builtin.module(lego-lower, canonicalize, func.func(cse))`.
    #[arg(long = "pass-pipeline", value_name = "PIPELINE")]
    pub pass_pipeline: Option<String>,
    /// Print every op in the generic form.
    #[arg(long = "mlir-print-op-generic")]
    pub print_op_generic: bool,
    /// Print locations.
    #[arg(long = "mlir-print-debuginfo")]
    pub print_debuginfo: bool,
    /// Accept ops of dialects that are not registered.
    #[arg(long = "allow-unregistered-dialect")]
    pub allow_unregistered_dialect: bool,
    /// Print the IR after each pass.
    #[arg(long = "mlir-print-ir-after-all")]
    pub print_ir_after_all: bool,
    /// Print the IR before each pass.
    #[arg(long = "mlir-print-ir-before-all")]
    pub print_ir_before_all: bool,
    /// Report the time spent in each pass.
    #[arg(long = "mlir-timing")]
    pub timing: bool,
    /// Verify the IR after each pass (mlir-opt's default; `--verify-each=false` skips it, which trusts every
    /// pass to produce valid IR: for compile-time measurements and trusted pipelines).
    #[arg(long = "verify-each", value_name = "BOOL", num_args = 0..=1, require_equals = true,
          default_value = "true", default_missing_value = "true", action = clap::ArgAction::Set)]
    pub verify_each: bool,
    /// Accepted for mlir-opt compatibility: lego-opt is single-threaded.
    #[arg(long = "mlir-disable-threading")]
    pub disable_threading: bool,
    /// `json`: lego-analyze-memory and lego-choose-smem-layout print their per-kernel tables as JSON on standard
    /// error (the same as their option `report=json`).
    #[arg(long = "lego-report", value_name = "FORMAT", value_parser = ["none", "json"])]
    pub lego_report: Option<String>,
    /// List lego and upstream passes and pipelines with their options.
    #[arg(long = "list-passes")]
    pub list_passes: bool,

    /// Pass flags, in command-line order (not a clap argument: filled in by [`parse`]).
    #[arg(skip)]
    pub pass_flags: Vec<PassElement>,
}

pub enum Parsed {
    Run(Cli),
    /// Done (`--help`, `--version`, `--list-passes`): the exit status.
    Exit(u8),
}

/// Passes with a `report` option that `--lego-report=json` sets.
const REPORTING_PASSES: &[&str] = &["lego-analyze-memory", "lego-choose-smem-layout"];

/// Short options that keep a single dash.
const SHORT_OPTIONS: &[&str] = &["-o", "-h", "-V"];

/// Parses the command line. Errors are messages for `lego-opt: error: ...`.
pub fn parse(arguments: Vec<String>, registry: &Registry) -> Result<Parsed, String> {
    let mut driver_arguments = Vec::with_capacity(arguments.len());
    let mut pass_flags = Vec::new();
    let mut arguments = arguments.into_iter();
    driver_arguments.extend(arguments.next());
    let mut only_positional = false;
    for argument in arguments {
        if only_positional || argument == "-" || !argument.starts_with('-') {
            driver_arguments.push(argument);
            continue;
        }
        if argument == "--" {
            only_positional = true;
            driver_arguments.push(argument);
            continue;
        }
        let normalized = if argument.starts_with("--") || SHORT_OPTIONS.iter().any(|short| argument.starts_with(short) && argument.len() == 2) {
            argument
        } else {
            format!("-{argument}")
        };
        let body = &normalized[2..];
        let (name, value) = match body.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (body, None),
        };
        if registry.lookup(name).is_some() || registry::is_upstream_pass(name) {
            pass_flags.push(PassElement {
                name: name.to_string(),
                options: value.map(str::to_string),
                offset: 0,
            });
        } else {
            driver_arguments.push(normalized);
        }
    }
    let mut cli = match Cli::try_parse_from(driver_arguments) {
        Ok(cli) => cli,
        Err(error) => {
            use clap::error::ErrorKind;
            return match error.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = error.print();
                    Ok(Parsed::Exit(0))
                }
                _ => Err(first_line(&error.render().to_string())),
            };
        }
    };
    if cli.list_passes {
        print!("{}", registry::describe(registry));
        return Ok(Parsed::Exit(0));
    }
    if cli.lego_report.as_deref() == Some("json") {
        for flag in &mut pass_flags {
            if REPORTING_PASSES.contains(&flag.name.as_str()) {
                flag.options = Some(match flag.options.take() {
                    Some(options) if !options.trim().is_empty() => format!("{options} report=json"),
                    _ => "report=json".to_string(),
                });
            }
        }
    }
    cli.pass_flags = pass_flags;
    Ok(Parsed::Run(cli))
}

fn first_line(rendered: &str) -> String {
    let line = rendered.lines().next().unwrap_or("invalid command line");
    let line = line.strip_prefix("error: ").unwrap_or(line);
    if rendered.contains("unexpected argument") {
        format!("{line} (not a lego-opt option nor a registered pass; see --list-passes)")
    } else {
        line.to_string()
    }
}

impl Cli {
    /// The pipeline to run: `--pass-pipeline`, or the pass flags in order.
    pub fn pipeline(&self, registry: &Registry) -> Result<Vec<PipelineElement>, String> {
        let Some(text) = &self.pass_pipeline else {
            return Ok(self.pass_flags.iter().cloned().map(PipelineElement::Pass).collect());
        };
        if !self.pass_flags.is_empty() {
            return Err("'--pass-pipeline' option can't be used with individual pass options".into());
        }
        let pipeline = pipeline_text::parse_pipeline(text).map_err(|error| {
            format!("invalid --pass-pipeline: {error}\n{}", error.caret_snippet(text))
        })?;
        if pipeline.anchor != "builtin.module" && pipeline.anchor != "any" {
            return Err(format!(
                "can't run '{}' pass manager on 'builtin.module' op (the input's top-level op)",
                pipeline.anchor
            ));
        }
        // Reject unknown lego pass names and options now, with the pipeline text at hand.
        registry::expand_pipelines(registry, &pipeline.elements).map_err(|error| error.to_string())?;
        Ok(pipeline.elements)
    }
}
