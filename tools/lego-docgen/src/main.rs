//! `lego-docgen`: fills the generated parts of `docs/` and checks that they are up to date.
//!
//! ```sh
//! lego-docgen [--check] [--lego-opt PATH] [--lego-translate PATH] DOCS_DIR      # make docs: write; the lit suite: --check
//! ```
//!
//! Generated parts sit between markers in the Markdown pages, so the prose around them is written by hand:
//! - `<!-- lego-docgen: picture NAME -->` … `<!-- lego-docgen: end -->`: an ASCII picture of where each
//!   logical element of an example layout lands (`lego_algebra::picture`, shared with `lego-studio draw`), computed
//!   with the reference algebra;
//! - `<!-- lego-docgen: input -->` followed by a fenced `mlir` block (hand-written), then
//!   `<!-- lego-docgen: output ARGS -->` … `<!-- lego-docgen: end -->`: what `lego-opt ARGS` prints for that
//!   input (only with `--lego-opt`). A pass that fails, e.g. one not implemented yet, gets its real error
//!   message instead of an output: nothing here is invented.
//!
//! Coverage: every op of the dialect's IRDL definition (and `lego.yield`) has `DOCS/ops/NAME.md`; with
//! `--lego-opt`, every lego pass and pipeline of `lego-opt --list-passes` has `DOCS/passes/NAME.md`. Writing
//! creates a stub for a missing page; `--check` reports it.

use lego_algebra::{examples, Layout};
use lego_algebra::picture::Picture;
use std::{
    collections::BTreeMap,
    io::Write as _,
    path::{Path, PathBuf},
    process::{Command, ExitCode, Stdio},
};

const END: &str = "<!-- lego-docgen: end -->";
const PICTURE: &str = "<!-- lego-docgen: picture ";
const INPUT: &str = "<!-- lego-docgen: input -->";
const OUTPUT: &str = "<!-- lego-docgen: output ";
/// `<!-- lego-docgen: translate ARGS -->`: what `lego-translate ARGS` prints for the last input (docs/translate.md).
const TRANSLATE: &str = "<!-- lego-docgen: translate ";
/// Top-level pages with generated sections, beside ops/ and passes/.
const TOP_LEVEL_PAGES: &[&str] = &["translate.md"];
/// Outputs longer than this are cut, saying so (GPU pipelines embed whole binaries).
const MAX_OUTPUT_LINES: usize = 80;

/// The picture catalog: every name an op page may ask for.
pub fn picture(name: &str) -> Option<Result<Picture, String>> {
    type Build = fn() -> Result<Picture, lego_algebra::AlgebraError>;
    let build: Build = match name {
        "row" => || Ok(Picture::new(examples::row_4x8())),
        "col" => || Ok(Picture::new(examples::col_4x8())),
        "reg_p" => || Ok(Picture::new(Layout::reg_p([1, 0], [3, 4])?)),
        "reg_p_3d" => || Ok(Picture::new(Layout::reg_p([2, 0, 1], [2, 3, 4])?)),
        "gen_p_rev" => || Ok(Picture::new(examples::rev(3, 2)?)),
        "gen_p_antidiag" => || Ok(Picture::new(examples::antidiag(4)?)),
        "order_by" => || Ok(Picture::new(Layout::order_by([Layout::reg_p([1, 0], [2, 2])?, examples::rev(3, 2)?])?)),
        "group_by" => || Ok(Picture::new(examples::fig2()).highlight(&[4, 1])),
        "group_by_fig6" => || Ok(Picture::new(examples::fig6()).highlight(&[4, 2])),
        "tile_by" => || Ok(Picture::new(examples::tiled_8x12()).highlight(&[1, 2, 3, 1])),
        "tile_by_split" => || Ok(Picture::new(examples::tiled_split_2x4_3x2()).highlight(&[1, 1, 1, 3])),
        "tile_by_triton" => || Ok(Picture::new(examples::triton_grouped_pid()).highlight(&[3, 0])),
        "expand_by" => || Ok(Picture::new(examples::partial_tiles_5x6()).memory_width(6)),
        "swizzle" => || Ok(Picture::new(Layout::swizzle(3, 0, 3, [8, 8])?).highlight(&[1, 2]).memory_width(8)),
        "compose" => || Ok(Picture::new(Layout::compose(Layout::col([4, 8])?, Layout::row([8, 4])?)?).highlight(&[3, 2])),
        "inverse" => || Ok(Picture::new(Layout::inverse(Layout::col([4, 8])?)?).highlight(&[9]).memory_width(8)),
        "strided" => || Ok(Picture::new(Layout::strided(vec![vec![(4, 1), (2, 32)], vec![(8, 4)]])?).highlight(&[5, 3]).memory_width(8)),
        "apply" => || Ok(Picture::new(examples::col_4x8()).highlight(&[1, 2])),
        "apply_inverse" => || Ok(Picture::new(examples::row_4x8()).highlight(&[1, 2])),
        "view" => || Ok(Picture::new(examples::col_4x8()).highlight(&[1, 2]).memory_width(8)),
        _ => return None,
    };
    Some(build().map_err(|error| error.to_string()))
}

struct Options {
    check: bool,
    lego_opt: Option<PathBuf>,
    lego_translate: Option<PathBuf>,
    docs: PathBuf,
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options { check: false, lego_opt: None, lego_translate: None, docs: PathBuf::new() };
    let mut docs = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--check" => options.check = true,
            "--lego-opt" => options.lego_opt = Some(args.next().ok_or("--lego-opt needs a path")?.into()),
            "--lego-translate" => options.lego_translate = Some(args.next().ok_or("--lego-translate needs a path")?.into()),
            "-h" | "--help" => {
                return Err("usage: lego-docgen [--check] [--lego-opt PATH] [--lego-translate PATH] DOCS_DIR".into());
            }
            _ if arg.starts_with('-') => return Err(format!("unknown option '{arg}'")),
            _ => docs = Some(PathBuf::from(arg)),
        }
    }
    options.docs = docs.ok_or("usage: lego-docgen [--check] [--lego-opt PATH] [--lego-translate PATH] DOCS_DIR")?;
    Ok(options)
}

fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("lego-docgen: {message}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(problems) if problems.is_empty() => ExitCode::SUCCESS,
        Ok(problems) => {
            for problem in problems {
                eprintln!("lego-docgen: {problem}");
            }
            if options.check {
                eprintln!("lego-docgen: docs/ is out of date: run `make docs`");
            }
            ExitCode::FAILURE
        }
        Err(message) => {
            eprintln!("lego-docgen: error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Processes every page; returns the problems found (stale or missing pages under `--check`, generation
/// errors always).
fn run(options: &Options) -> Result<Vec<String>, String> {
    let mut problems = Vec::new();
    let mut expected: BTreeMap<PathBuf, String> = BTreeMap::new();
    let irdl = options.docs.join("../dialect/src/lego.irdl.mlir");
    let irdl = std::fs::read_to_string(&irdl).map_err(|error| format!("{}: {error}", irdl.display()))?;
    for op in dialect_ops(&irdl) {
        expected.insert(options.docs.join("ops").join(format!("{op}.md")), op_stub(&op));
    }
    if let Some(lego_opt) = &options.lego_opt {
        for (name, description) in lego_passes(lego_opt)? {
            expected.insert(options.docs.join("passes").join(format!("{name}.md")), pass_stub(&name, &description));
        }
    }
    for (path, stub) in &expected {
        if path.exists() {
            continue;
        }
        if options.check {
            problems.push(format!("{} is missing", path.display()));
        } else {
            std::fs::create_dir_all(path.parent().expect("pages live in a directory")).map_err(|e| e.to_string())?;
            std::fs::write(path, stub).map_err(|error| format!("{}: {error}", path.display()))?;
            eprintln!("lego-docgen: created {} (a stub: write its prose)", path.display());
        }
    }
    let top_level: Vec<PathBuf> = TOP_LEVEL_PAGES.iter().map(|page| options.docs.join(page)).filter(|page| page.exists()).collect();
    for directory in ["ops", "passes", ""] {
        let mut pages: Vec<PathBuf> = if directory.is_empty() {
            top_level.clone()
        } else {
            let Ok(entries) = std::fs::read_dir(options.docs.join(directory)) else { continue };
            entries.filter_map(|entry| entry.ok().map(|entry| entry.path())).collect()
        };
        pages.sort();
        for page in pages.into_iter().filter(|page| page.extension().is_some_and(|ext| ext == "md")) {
            let text = std::fs::read_to_string(&page).map_err(|error| format!("{}: {error}", page.display()))?;
            let generated = match generate(&text, options.lego_opt.as_deref(), options.lego_translate.as_deref()) {
                Ok(generated) => generated,
                Err(message) => {
                    problems.push(format!("{}: {message}", page.display()));
                    continue;
                }
            };
            if generated == text {
                continue;
            }
            if options.check {
                problems.push(format!("{} is out of date", page.display()));
            } else {
                std::fs::write(&page, generated).map_err(|error| format!("{}: {error}", page.display()))?;
                eprintln!("lego-docgen: updated {}", page.display());
            }
        }
    }
    Ok(problems)
}

/// Op names of the IRDL definition (`irdl.operation @row`), plus `yield` (a terminator IRDL cannot define:
/// see docs/generic-form.md).
fn dialect_ops(irdl: &str) -> Vec<String> {
    let mut ops: Vec<String> = irdl
        .lines()
        .filter_map(|line| line.trim().strip_prefix("irdl.operation @"))
        .map(|rest| rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect())
        .collect();
    ops.push("yield".to_string());
    ops
}

/// `(name, description)` of each lego pass and pipeline, from `lego-opt --list-passes`.
fn lego_passes(lego_opt: &Path) -> Result<Vec<(String, String)>, String> {
    let output = Command::new(lego_opt)
        .arg("--list-passes")
        .output()
        .map_err(|error| format!("cannot run {}: {error}", lego_opt.display()))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut passes = Vec::new();
    for line in text.lines().skip_while(|line| !line.starts_with("lego passes")).skip(1) {
        if line.trim().is_empty() {
            break;
        }
        if let Some(rest) = line.strip_prefix("  --") {
            let (name, description) = rest.split_once(" - ").unwrap_or((rest, ""));
            passes.push((name.trim().to_string(), description.trim().to_string()));
        }
    }
    if passes.is_empty() {
        return Err(format!("{} --list-passes listed no lego pass", lego_opt.display()));
    }
    Ok(passes)
}

fn op_stub(op: &str) -> String {
    format!(
        "# `lego.{op}`\n\n_Page created by `make docs`: describe the op's syntax and semantics here (see \
         [the reference](../reference/syntax.md))._\n"
    )
}

fn pass_stub(name: &str, description: &str) -> String {
    format!(
        "# `{name}`\n\n{description}\n\n_Page created by `make docs`: add an example input below._\n\n\
         `lego-opt input.mlir --{name}`\n"
    )
}

/// The page with every generated section recomputed.
fn generate(text: &str, lego_opt: Option<&Path>, lego_translate: Option<&Path>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut last_input: Option<String> = None;
    loop {
        let next_picture = rest.find(PICTURE);
        let next_output = rest.find(OUTPUT);
        let next_input = rest.find(INPUT);
        let next_translate = rest.find(TRANSLATE);
        let Some(start) = [next_picture, next_output, next_input, next_translate].into_iter().flatten().min() else {
            out.push_str(rest);
            return Ok(out);
        };
        if Some(start) == next_input {
            let after = &rest[start + INPUT.len()..];
            last_input = Some(first_mlir_block(after).ok_or("an input marker is not followed by a ```mlir block")?);
            let consumed = start + INPUT.len();
            out.push_str(&rest[..consumed]);
            rest = &rest[consumed..];
            continue;
        }
        // A generated section: the marker line, then generated text up to the end marker.
        let line_end = rest[start..].find("-->").ok_or("unterminated lego-docgen marker")? + start + 3;
        let marker = &rest[start..line_end];
        let end = rest[line_end..].find(END).ok_or_else(|| format!("'{marker}' has no end marker"))? + line_end;
        let old_body = &rest[line_end..end];
        let body = if Some(start) == next_picture {
            let name = marker[PICTURE.len()..marker.len() - 3].trim();
            let picture = picture(name).ok_or_else(|| format!("unknown picture '{name}'"))??;
            let text = picture.render()?;
            format!("\n```text\n{text}```\n")
        } else if Some(start) == next_translate {
            let args = marker[TRANSLATE.len()..marker.len() - 3].trim();
            match lego_translate {
                None => old_body.to_string(),
                Some(lego_translate) => {
                    let input = last_input.as_deref().ok_or("a translate marker comes before any input marker")?;
                    run_lego_translate(lego_translate, args, input)?
                }
            }
        } else {
            let args = marker[OUTPUT.len()..marker.len() - 3].trim();
            match lego_opt {
                // Without lego-opt, outputs are left as they are (the op-picture check needs no build).
                None => old_body.to_string(),
                Some(lego_opt) => {
                    let input = last_input.as_deref().ok_or("an output marker comes before any input marker")?;
                    run_lego_opt(lego_opt, args, input)?
                }
            }
        };
        out.push_str(&rest[..line_end]);
        out.push_str(&body);
        out.push_str(END);
        rest = &rest[end + END.len()..];
    }
}

/// The contents of the first ```mlir fenced block of `text`.
fn first_mlir_block(text: &str) -> Option<String> {
    let start = text.find("```mlir\n")? + "```mlir\n".len();
    let end = text[start..].find("```")? + start;
    Some(text[start..end].to_string())
}

/// `TOOL ARGS -` with `input` on its standard input (no tracing, no backtraces in what the docs show).
fn run_on_stdin(tool: &Path, args: &str, input: &str) -> Result<std::process::Output, String> {
    let mut child = Command::new(tool)
        .args(split_args(args))
        .arg("-")
        .env("RUST_LOG", "off")
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("cannot run {}: {error}", tool.display()))?;
    child.stdin.take().expect("piped").write_all(input.as_bytes()).map_err(|error| error.to_string())?;
    child.wait_with_output().map_err(|error| error.to_string())
}

/// `lego-opt ARGS -` on `input`, as a Markdown section: the output, or the error it reports.
fn run_lego_opt(lego_opt: &Path, args: &str, input: &str) -> Result<String, String> {
    let output = run_on_stdin(lego_opt, args, input)?;
    let stdout = deterministic(&String::from_utf8_lossy(&output.stdout));
    let stderr = deterministic(&String::from_utf8_lossy(&output.stderr));
    let command = if args.is_empty() { "lego-opt".to_string() } else { format!("lego-opt {args}") };
    if output.status.success() {
        let lines: Vec<&str> = stdout.lines().collect();
        let mut shown = lines.iter().take(MAX_OUTPUT_LINES).map(|line| format!("{line}\n")).collect::<String>();
        if lines.len() > MAX_OUTPUT_LINES {
            shown.push_str(&format!("// … {} more lines: run `{command}` to see them\n", lines.len() - MAX_OUTPUT_LINES));
        }
        let what = if args.is_empty() { " (parsed, verified and printed back)" } else { "" };
        let mut section = format!("\nOutput of `{command}`{what}:\n\n```mlir\n{shown}```\n");
        if !stderr.trim().is_empty() {
            section.push_str(&format!("\nwith these diagnostics:\n\n```text\n{}\n```\n", stderr.trim_end()));
        }
        Ok(section)
    } else {
        Ok(format!(
            "\n`{command}` reports an error on this input (exit status 1):\n\n```text\n{}\n```\n",
            stderr.trim_end()
        ))
    }
}

/// `lego-translate ARGS -` on `input`, as a Markdown section fenced with the language's name.
fn run_lego_translate(lego_translate: &Path, args: &str, input: &str) -> Result<String, String> {
    let output = run_on_stdin(lego_translate, args, input)?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Ok(format!("\n`lego-translate {args}` reports an error (exit status 1):\n\n```text\n{}\n```\n", stderr.trim_end()));
    }
    let fence = ["cuda", "cpp", "c", "rust", "fortran", "julia", "js", "glsl", "wgsl", "python", "mlir"]
        .into_iter()
        .find(|language| args.split_whitespace().any(|arg| arg.trim_start_matches('-') == format!("lego-to-{language}")))
        .unwrap_or("text");
    Ok(format!("\nOutput of `lego-translate {args}`:\n\n```{fence}\n{stdout}```\n"))
}

/// Drops what changes from run to run: the thread id in a Rust panic message (`thread 'main' (1234) panicked`,
/// which only a bug in a pass prints) and compile times that `gpu-module-to-binary` records
/// (`LLVMIRToISATimeInMs = 3 : i64` is shown as `LLVMIRToISATimeInMs = … : i64`).
fn deterministic(text: &str) -> String {
    let lines = text.lines().map(|line| {
        let line = match (line.strip_prefix("thread '"), line.find(") panicked at ")) {
            (Some(_), Some(close)) => match line[..close].rfind(" (") {
                Some(open) => format!("{}{}", &line[..open], &line[close + 1..]),
                None => line.to_string(),
            },
            _ => line.to_string(),
        };
        let mut out = String::with_capacity(line.len());
        let mut rest = line.as_str();
        while let Some(position) = rest.find("TimeInMs = ") {
            let value_start = position + "TimeInMs = ".len();
            let digits = rest[value_start..].chars().take_while(char::is_ascii_digit).count();
            out.push_str(&rest[..value_start]);
            out.push_str(if digits > 0 { "…" } else { "" });
            rest = &rest[value_start + digits..];
        }
        out.push_str(rest);
        out
    });
    let mut joined = lines.collect::<Vec<_>>().join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

/// Splits marker arguments on whitespace, keeping `'...'` together (quotes removed), as a shell would.
fn split_args(text: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    let mut started = false;
    for character in text.chars() {
        match character {
            '\'' => {
                quoted = !quoted;
                started = true;
            }
            c if c.is_whitespace() && !quoted => {
                if started {
                    args.push(std::mem::take(&mut current));
                    started = false;
                }
            }
            c => {
                current.push(c);
                started = true;
            }
        }
    }
    if started {
        args.push(current);
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs")
    }

    /// The committed op pictures are what the algebra computes today (the pass outputs need a built
    /// lego-opt: test/docs/up-to-date.test checks those).
    #[test]
    fn op_pages_exist_and_pictures_are_up_to_date() {
        let options = Options { check: true, lego_opt: None, lego_translate: None, docs: docs() };
        let problems = run(&options).unwrap();
        assert!(problems.is_empty(), "{problems:#?}\nrun `make docs`");
    }

    #[test]
    fn every_catalog_picture_renders() {
        for name in [
            "row", "col", "reg_p", "reg_p_3d", "gen_p_rev", "gen_p_antidiag", "order_by", "group_by", "group_by_fig6",
            "tile_by", "expand_by", "swizzle", "compose", "inverse", "strided", "apply", "apply_inverse", "view",
        ] {
            let picture = picture(name).unwrap_or_else(|| panic!("{name} missing")).unwrap();
            picture.render().unwrap_or_else(|error| panic!("{name}: {error}"));
        }
        assert!(picture("nope").is_none());
    }

    #[test]
    fn generated_sections_are_replaced() {
        let page = "a\n<!-- lego-docgen: picture row -->\nold\n<!-- lego-docgen: end -->\nb\n";
        let generated = generate(page, None, None).unwrap();
        assert!(generated.starts_with("a\n<!-- lego-docgen: picture row -->\n```text\nrow [4, 8]"), "{generated}");
        assert!(generated.ends_with("```\n<!-- lego-docgen: end -->\nb\n"), "{generated}");
        assert_eq!(generate(&generated, None, None).unwrap(), generated, "idempotent");
    }

    #[test]
    fn panic_thread_ids_are_dropped() {
        let text = "\nthread 'main' (11847) panicked at src/x.rs:1:2:\nboom\n<stdin>:1:1: error: boom";
        assert_eq!(deterministic(text), "\nthread 'main' panicked at src/x.rs:1:2:\nboom\n<stdin>:1:1: error: boom");
        let binary = "properties = {LLVMIRToISATimeInMs = 12 : i64, O = 2 : i32}\n";
        assert_eq!(deterministic(binary), "properties = {LLVMIRToISATimeInMs = … : i64, O = 2 : i32}\n");
    }

    #[test]
    fn arguments_split_like_a_shell() {
        assert_eq!(split_args("--pass-pipeline='builtin.module(a, b)' -x"), ["--pass-pipeline=builtin.module(a, b)", "-x"]);
    }
}
