//! The modules of `passes/src` import each other in one direction only (issue 35, item 7): the registry
//! imports no pass or pipeline (the crate root fills it), and the graph of `crate::` paths among modules
//! has no cycle. The Python package has the same check in python/tests/test_import_structure.py.
//!
//! A node is a module file (`simplify/ir.rs` is simplify::ir); a path names the longest module prefix it
//! starts with, through lib.rs's re-exports (`crate::bounds_checks` is verify::bounds_checks). Only `crate::`
//! paths are edges: the `super::` ones in passes/src are unit tests reaching their own module.

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::{Path, PathBuf},
};

/// The modules the registry may import: helpers below every pass.
const REGISTRY_MAY_IMPORT: &[&str] = &["pipeline_text"];

type Graph = BTreeMap<String, BTreeSet<String>>;

/// Source text without `//` comments (doc links such as [`crate::pipelines`] are not imports) and without
/// the contents of string literals.
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => {
                    in_string = false;
                    out.push('"');
                }
                '\n' => out.push('\n'),
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push('"');
            }
            // A char literal holding a quote ('"') would otherwise open a string.
            '\'' if chars.peek() == Some(&'"') => {
                chars.next();
                out.push_str("'\"");
            }
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path that `crate::` starts in `code`, with `use crate::{a::b, c::{d, e}}` groups expanded.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        let after = &rest[at + "crate::".len()..];
        if before.is_none_or(|c| !is_ident(c)) {
            expand(after, Vec::new(), &mut paths);
        }
        rest = after;
    }
    paths
}

/// Parses one path (or `{...}` group) at the start of `text`, after the segments `prefix`.
fn expand(text: &str, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut text = text.trim_start();
    loop {
        if let Some(group) = text.strip_prefix('{') {
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        expand(&group[start..i], prefix.clone(), out);
                        return;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(&group[start..i], prefix.clone(), out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            return;
        }
        let end = text.find(|c: char| !is_ident(c)).unwrap_or(text.len());
        if end == 0 {
            if !prefix.is_empty() {
                out.push(prefix);
            }
            return;
        }
        prefix.push(text[..end].to_string());
        match text[end..].trim_start().strip_prefix("::") {
            Some(next) => text = next.trim_start(),
            None => {
                out.push(prefix);
                return;
            }
        }
    }
}

/// `pub use dir::{a, b}` in lib.rs: crate-level names for modules inside a directory module.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for statement in code_only(lib).split(';') {
        let Some(path) = statement.trim().strip_prefix("pub use ") else { continue };
        let mut paths = Vec::new();
        expand(path, Vec::new(), &mut paths);
        for path in paths {
            if let [directory, module] = path.as_slice() {
                names.insert(module.clone(), format!("{directory}::{module}"));
            }
        }
    }
    names
}

/// `simplify/mod.rs` → simplify, `verify/bounds_checks.rs` → verify::bounds_checks.
fn module_of(file: &str) -> String {
    file.trim_end_matches(".rs").trim_end_matches("/mod").replace('/', "::")
}

/// The graph of `files` (path relative to src/ → text). Edges go to modules of the crate only.
fn graph(files: &BTreeMap<String, String>) -> Graph {
    let aliases = files.get("lib.rs").map(|lib| reexports(lib)).unwrap_or_default();
    let nodes: BTreeSet<String> =
        files.keys().filter(|file| file.as_str() != "lib.rs").map(|file| module_of(file)).collect();
    // The longest prefix of a path that names a module (`crate::simplify::ir::walk` → simplify::ir).
    let node_of = |segments: &[String]| -> Option<String> {
        let mut segments = segments.to_vec();
        if let Some(alias) = segments.first().and_then(|first| aliases.get(first)) {
            let mut resolved: Vec<String> = alias.split("::").map(str::to_string).collect();
            resolved.extend(segments.drain(1..));
            segments = resolved;
        }
        (1..=segments.len()).rev().map(|n| segments[..n].join("::")).find(|name| nodes.contains(name))
    };
    let mut graph = Graph::new();
    for (file, text) in files {
        if file == "lib.rs" {
            continue;
        }
        let source = module_of(file);
        let targets = graph.entry(source.clone()).or_default();
        for path in crate_paths(&code_only(text)) {
            if let Some(target) = node_of(&path) {
                if target != source {
                    targets.insert(target);
                }
            }
        }
    }
    graph
}

/// One cycle of `graph`, if it has any, as the list of its modules.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(node: &str, graph: &Graph, marks: &mut BTreeMap<String, Mark>, stack: &mut Vec<String>) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let start = stack.iter().position(|open| open == node).unwrap_or(0);
                let mut cycle = stack[start..].to_vec();
                cycle.push(node.to_string());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(node.to_string(), Mark::Open);
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, marks, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        marks.insert(node.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    graph.keys().find_map(|node| visit(node, graph, &mut marks, &mut Vec::new()))
}

fn source_files() -> BTreeMap<String, String> {
    fn walk(directory: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
        let entries = fs::read_dir(directory).unwrap_or_else(|e| panic!("{}: {e}", directory.display()));
        for entry in entries {
            let path = entry.unwrap_or_else(|e| panic!("{}: {e}", directory.display())).path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                let relative = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
                let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                out.insert(relative, text);
            }
        }
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    walk(&root, &root, &mut files);
    files
}

#[test]
fn the_registry_imports_no_pass_or_pipeline() {
    let graph = graph(&source_files());
    let imports = graph.get("registry").expect("passes/src/registry.rs is scanned");
    let extra: Vec<&String> = imports.iter().filter(|module| !REGISTRY_MAY_IMPORT.contains(&module.as_str())).collect();
    assert!(extra.is_empty(), "registry.rs imports {extra:?}; passes register into the registry, not the other way");
}

#[test]
fn the_modules_import_each_other_one_way() {
    let graph = graph(&source_files());
    // Guard against a scan that sees nothing: these edges exist and are the allowed direction.
    assert!(graph["pipelines"].contains("registry"), "{graph:?}");
    assert!(graph["verify::verify_checks"].contains("constant_inputs"), "{graph:?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle among passes/src modules: {}", cycle.join(" -> "));
    }
}

#[test]
fn the_scan_sees_groups_inline_paths_and_reexports_but_not_comments() {
    // The shape of the old cycle: the registry reaching a pass through a nested group and an inline path,
    // the pass importing the registry back through a crate-level re-export.
    let files: BTreeMap<String, String> = [
        ("lib.rs", "pub mod registry;\npub mod verify;\npub use verify::{bounds_checks, smt_encode};\n"),
        (
            "registry.rs",
            "use crate::{pipeline_text::{self, X}, verify::{smt_encode::Y}};\n\
             // crate::pipelines in a comment is not an import\n\
             fn f() { let s = \"crate::canonicalize\"; crate::bounds_checks::create(); }\n",
        ),
        ("pipeline_text.rs", ""),
        ("verify/mod.rs", "pub mod bounds_checks;\npub mod smt_encode;\n"),
        ("verify/bounds_checks.rs", "use crate::registry::Options;\n"),
        ("verify/smt_encode.rs", ""),
        ("pipelines.rs", ""),
        ("canonicalize.rs", ""),
    ]
    .into_iter()
    .map(|(file, text)| (file.to_string(), text.to_string()))
    .collect();
    let graph = graph(&files);
    let expected: BTreeSet<String> =
        ["pipeline_text", "verify::smt_encode", "verify::bounds_checks"].into_iter().map(str::to_string).collect();
    assert_eq!(graph["registry"], expected);
    let cycle = find_cycle(&graph).expect("registry -> bounds_checks -> registry is a cycle");
    assert!(cycle.contains(&"registry".to_string()) && cycle.contains(&"verify::bounds_checks".to_string()), "{cycle:?}");
}
