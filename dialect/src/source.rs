//! Text ⇄ IR for files that use the custom lego syntax: the one entry point `lego-opt`, the C API and
//! embedders share, so every path parses, locates and verifies the same way.

use crate::{syntax, verify};
use melior::{
    ir::{
        operation::{OperationLike, OperationPrintingFlags},
        Location, Module, Operation,
    },
    Context,
};

/// Why [`parse`] produced no module. The details were already reported through the context's diagnostic
/// handlers, with locations in the user's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("the input has syntax errors")]
    Syntax,
    #[error("MLIR could not parse the input")]
    Mlir,
    #[error("the input does not verify")]
    Verify,
}

/// Parses `text` (custom or generic lego syntax mixed with any upstream IR), attributing locations to
/// `file_name`, and verifies it (MLIR's verifier and the lego rules). Diagnostics go to the context's handlers.
/// A file with several top-level ops, or one that is not a `builtin.module`, is wrapped in a module as mlir-opt does.
pub fn parse<'c>(context: &'c Context, file_name: &str, text: &str) -> Result<Module<'c>, ParseError> {
    let generic = match syntax::to_generic(file_name, text) {
        Ok(generic) => generic,
        Err(errors) => {
            for error in errors {
                let location = Location::new(context, file_name, error.line, error.column);
                verify::emit_error(location, &error.message);
            }
            return Err(ParseError::Syntax);
        }
    };
    let generic = wrap_in_module_if_needed(&generic);
    tracing::trace!(target: "lego", "generic form handed to MLIR:\n{generic}");
    let operation = parse_reporting_silent_failures(context, &generic, file_name).ok_or(ParseError::Mlir)?;
    let module = Module::from_operation(operation).ok_or(ParseError::Mlir)?;
    if !verify::verify_and_emit(&module.as_operation()) {
        return Err(ParseError::Verify);
    }
    Ok(module)
}

/// [`parse_operation`], and an error of our own where MLIR fails without saying why: its parser gives no
/// diagnostic for a custom-form op of an IRDL dialect (the extensible dialect has no parser hook), so a lego
/// op our syntax layer did not rewrite would otherwise be a silent exit 1.
fn parse_reporting_silent_failures<'c>(context: &'c Context, source: &str, file_name: &str) -> Option<Operation<'c>> {
    let errors_seen = std::rc::Rc::new(std::cell::Cell::new(0usize));
    let counter = std::rc::Rc::clone(&errors_seen);
    let handler = context.attach_diagnostic_handler(move |diagnostic| {
        if matches!(diagnostic.severity(), melior::diagnostic::DiagnosticSeverity::Error) {
            counter.set(counter.get() + 1);
        }
        false // not handled: the diagnostic goes on to the caller's handlers
    });
    let operation = parse_operation(context, source, file_name);
    context.detach_diagnostic_handler(handler);
    if operation.is_none() && errors_seen.get() == 0 {
        let (line, column, message) = match syntax::first_custom_lego_op(source) {
            Some((line, column, name)) => (line, column, format!("custom op '{name}' could not be parsed here")),
            None => (1, 1, "MLIR could not parse the input and gave no reason".to_string()),
        };
        verify::emit_error(Location::new(context, file_name, line, column), &message);
    }
    operation
}

fn parse_operation<'c>(context: &'c Context, source: &str, file_name: &str) -> Option<Operation<'c>> {
    let source_ref = melior::StringRef::new(source);
    let name_ref = melior::StringRef::new(file_name);
    let raw = unsafe { mlir_sys::mlirOperationCreateParse(context.to_raw(), source_ref.to_raw(), name_ref.to_raw()) };
    (!raw.ptr.is_null()).then(|| unsafe { Operation::from_raw(raw) })
}

/// Printing options of `lego-opt` (`--mlir-print-op-generic`, `--mlir-print-debuginfo`).
#[derive(Clone, Copy, Debug, Default)]
pub struct PrintOptions {
    pub generic: bool,
    pub debug_info: bool,
}

/// Prints an op (usually the module) with lego ops in custom syntax unless `generic` is asked for.
pub fn print<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, options: PrintOptions) -> String {
    let mut flags = OperationPrintingFlags::new();
    if options.generic {
        flags = flags.print_generic_operation_form();
    }
    if options.debug_info {
        flags = flags.enable_debug_info(true, false);
    }
    let printed = op.to_string_with_flags(flags).unwrap_or_else(|_| op.to_string());
    if options.generic {
        printed
    } else {
        syntax::to_custom(&printed)
    }
}

/// MLIR's `mlirOperationCreateParse` wants exactly one top-level op. Like mlir-opt, wrap anything else in a
/// `module { ... }`. The opening brace goes on a blank or comment-only line before the first op (comments mean
/// nothing to MLIR) so that every line keeps its number and column; only when the first op sits on the
/// first usable line is it prefixed on that line.
fn wrap_in_module_if_needed(text: &str) -> String {
    let Some(first_op) = first_operation_offset(text) else {
        return format!("module {{\n{text}\n}}");
    };
    let rest = &text[first_op..];
    let is_module = ["module", "builtin.module", "\"builtin.module\""].iter().any(|name| {
        rest.strip_prefix(name).is_some_and(|after| after.starts_with(|c: char| c.is_whitespace() || c == '{' || c == '@' || c == '('))
    });
    if is_module && !has_second_top_level_op(text, first_op) {
        return text.to_string();
    }
    let line_start = text[..first_op].rfind('\n').map_or(0, |newline| newline + 1);
    // Look for a blank or comment-only line between the last alias definition and the first op.
    let mut search_end = line_start;
    while search_end > 0 {
        let previous_start = text[..search_end - 1].rfind('\n').map_or(0, |newline| newline + 1);
        let line = &text[previous_start..search_end - 1];
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with("//") {
            let mut wrapped = String::with_capacity(text.len() + 16);
            wrapped.push_str(&text[..previous_start]);
            wrapped.push_str("module {");
            wrapped.push_str(&text[search_end - 1..]);
            wrapped.push_str("\n}\n");
            return wrapped;
        }
        if trimmed.starts_with('#') || trimmed.starts_with('!') {
            break; // an alias definition: the module must start after it
        }
        search_end = previous_start;
    }
    format!("{}module {{ {}\n}}\n", &text[..first_op], &text[first_op..])
}

/// Byte offset of the first top-level token that starts an op (skipping comments and `#alias = ...` /
/// `!alias = ...` definitions).
fn first_operation_offset(text: &str) -> Option<usize> {
    let mut offset = skip_trivia(text, 0);
    while offset < text.len() {
        let rest = &text[offset..];
        if rest.starts_with('#') || rest.starts_with('!') {
            offset = skip_balanced_line(text, offset);
            offset = skip_trivia(text, offset);
            continue;
        }
        return Some(offset);
    }
    None
}

fn skip_trivia(text: &str, mut offset: usize) -> usize {
    let bytes = text.as_bytes();
    while offset < bytes.len() {
        if bytes[offset].is_ascii_whitespace() {
            offset += 1;
        } else if text[offset..].starts_with("//") {
            offset = text[offset..].find('\n').map_or(text.len(), |newline| offset + newline + 1);
        } else {
            break;
        }
    }
    offset
}

/// Skips one alias definition: to the end of the line on which all brackets are closed, honouring strings.
fn skip_balanced_line(text: &str, start: usize) -> usize {
    let mut depth = 0i32;
    let mut in_string = false;
    let mut escaped = false;
    for (position, character) in text[start..].char_indices() {
        if in_string {
            match character {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match character {
            '"' => in_string = true,
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            '\n' if depth <= 0 => return start + position + 1,
            _ => {}
        }
    }
    text.len()
}

/// After the op starting at `first_op` (a module), is there anything but trivia left at top level?
fn has_second_top_level_op(text: &str, first_op: usize) -> bool {
    let Some(open) = text[first_op..].find('{').map(|offset| first_op + offset) else { return false };
    let mut depth = 0i32;
    let mut in_string = false;
    let mut escaped = false;
    let mut in_comment = false;
    for (position, character) in text[open..].char_indices() {
        let absolute = open + position;
        if in_comment {
            in_comment = character != '\n';
            continue;
        }
        if in_string {
            match character {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match character {
            '/' if text[absolute..].starts_with("//") => in_comment = true,
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    let mut after = skip_trivia(text, absolute + 1);
                    // The generic form goes on with `) [attributes] : () -> ()`.
                    if text[after..].starts_with(')') {
                        after = skip_generic_module_tail(text, after + 1);
                    }
                    // A trailing `loc(...)` or attribute belongs to the module itself.
                    let rest = &text[after..];
                    return !(rest.is_empty() || rest.starts_with("loc(") || rest.starts_with('{'));
                }
            }
            _ => {}
        }
    }
    false
}

/// Skips `[{attributes}] : () -> ()` after the region list of a generic `"builtin.module"`; stops early (so
/// that the caller sees a second op) at anything else.
fn skip_generic_module_tail(text: &str, mut offset: usize) -> usize {
    offset = skip_trivia(text, offset);
    if text[offset..].starts_with('{') {
        let mut depth = 0i32;
        for (position, character) in text[offset..].char_indices() {
            match character {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        offset += position + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        offset = skip_trivia(text, offset);
    }
    for piece in [":", "(", ")", "->", "(", ")"] {
        if !text[offset..].starts_with(piece) {
            return offset;
        }
        offset = skip_trivia(text, offset + piece.len());
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::wrap_in_module_if_needed;

    #[test]
    fn single_module_is_kept() {
        let text = "// RUN: x\nmodule {\n}\n";
        assert_eq!(wrap_in_module_if_needed(text), text);
    }

    #[test]
    fn functions_are_wrapped_on_a_comment_line() {
        let text = "// RUN: x\nfunc.func @f() {\n  return\n}\n";
        let wrapped = wrap_in_module_if_needed(text);
        assert_eq!(wrapped, "module {\nfunc.func @f() {\n  return\n}\n\n}\n");
        // Line 2 still holds the function.
        assert_eq!(wrapped.lines().nth(1), Some("func.func @f() {"));
    }

    #[test]
    fn aliases_stay_outside_the_module() {
        let text = "#map = affine_map<(d0) -> (d0)>\n\nfunc.func @f() {\n  return\n}\n";
        let wrapped = wrap_in_module_if_needed(text);
        assert!(wrapped.starts_with("#map = affine_map<(d0) -> (d0)>\nmodule {\nfunc.func"), "{wrapped}");
    }

    #[test]
    fn first_line_op_is_prefixed() {
        let text = "func.func @f() {\n  return\n}";
        assert_eq!(wrap_in_module_if_needed(text), "module { func.func @f() {\n  return\n}\n}\n");
    }

    #[test]
    fn single_generic_module_is_kept() {
        let text = "\"builtin.module\"() ({\n}) {sym_name = \"m\"} : () -> () loc(unknown)\n";
        assert_eq!(wrap_in_module_if_needed(text), text);
        let two = "\"builtin.module\"() ({\n}) : () -> ()\n\"builtin.module\"() ({\n}) : () -> ()\n";
        assert!(wrap_in_module_if_needed(two).starts_with("module {"));
    }

    #[test]
    fn two_modules_are_wrapped() {
        let text = "\nmodule {\n}\nmodule {\n}\n";
        assert!(wrap_in_module_if_needed(text).starts_with("module {\nmodule {"));
    }

    #[test]
    fn empty_input_becomes_an_empty_module() {
        assert_eq!(wrap_in_module_if_needed("// nothing\n"), "module {\n// nothing\n\n}");
    }
}
