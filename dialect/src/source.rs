//! Text ⇄ IR for files that use the custom lego syntax: the one entry point `lego-opt`, the C API and
//! embedders share, so every path parses, locates and verifies the same way.

use crate::{syntax, verify};
use melior::{
    ir::{
        block::BlockLike,
        operation::{OperationLike, OperationPrintingFlags},
        Location, Module, Operation, RegionLike, ValueLike,
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
    parse_module(context, file_name, text).map(|parsed| parsed.module)
}

/// A module [`parse_module`] read.
pub struct Parsed<'c> {
    pub module: Module<'c>,
    /// Whether MLIR's verifier checked the module as a whole while parsing it (it parsed it as its top-level
    /// op). Until the module changes, printing it may then skip the verification MLIR's printer otherwise
    /// repeats ([`PrintOptions::assume_verified`]). False where a parsed op was put into a new module.
    pub verified_as_a_whole: bool,
}

/// [`parse`], telling whether MLIR verified the module as a whole.
pub fn parse_module<'c>(context: &'c Context, file_name: &str, text: &str) -> Result<Parsed<'c>, ParseError> {
    let generic = match syntax::to_generic_parsed_as(file_name, text) {
        Ok(generic) => generic,
        Err(errors) => {
            for error in errors {
                let location = Location::new(context, file_name, error.line, error.column);
                verify::emit_error(location, &error.message);
            }
            return Err(ParseError::Syntax);
        }
    };
    let (module, verified_as_a_whole) = match wrap_in_module_if_needed(&generic) {
        Wrapping::Exact(wrapped) => {
            tracing::trace!(target: "lego", "generic form handed to MLIR:\n{wrapped}");
            let operation = parse_reporting_silent_failures(context, &wrapped, file_name).ok_or(ParseError::Mlir)?;
            (Module::from_operation(operation).ok_or(ParseError::Mlir)?, true)
        }
        Wrapping::OnALineOfItsOwn { line_start, module_line, several } => {
            parse_wrapping_on_a_line_of_its_own(context, &generic, line_start, module_line, several, file_name)
                .ok_or(ParseError::Mlir)?
        }
    };
    if !verify::verify_and_emit(&module.as_operation()) {
        return Err(ParseError::Verify);
    }
    Ok(Parsed { module, verified_as_a_whole })
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

/// MLIR's message when the text holds several top-level ops (`mlirOperationCreateParse` wants one).
const NOT_A_SINGLE_TOP_LEVEL_OP: &str = "source must contain a single top-level operation";

/// The input whose first op has no blank or comment line before it for `module {` (it is on line 1, or right
/// after the alias definitions). Any text before it on its line would move its columns, a line of its own moves
/// the lines after it; either way the user's diagnostics would point to the wrong place. So:
/// 1. MLIR parses the text as it is, its diagnostics going to the caller with exact locations; a single op
///    is then put into a new module.
/// 2. Several ops (MLIR's only complaint is that there is not a single one: suppressed) are parsed again
///    inside `wrapped` — `module {` on a line of its own before line `module_line` — under a file name of our
///    own, and every location the parser made is moved back to the user's file, line and column. (Explicit
///    `loc(...)`, such as the syntax layer's, already name the user's file and stay.)
fn parse_wrapping_on_a_line_of_its_own<'c>(
    context: &'c Context,
    text: &str,
    line_start: usize,
    module_line: usize,
    several: bool,
    file_name: &str,
) -> Option<(Module<'c>, bool)> {
    let module_location = Location::new(context, file_name, module_line, 1);
    if !several {
        match parse_single_op(context, text, file_name, module_location) {
            // MLIR's parser verified the op inside a temporary module of its own, symbol table included (a
            // single `func.func` calling an undefined function fails to parse); the new module holds the same
            // op alone, so it verifies as that one did.
            SingleOp::Parsed(module) => return Some((module, true)),
            SingleOp::Failed => return None,
            SingleOp::Several => {}
        }
    } else if let Some(module) = parse_into_module(context, text, line_start, file_name, module_location) {
        return Some((module, true));
    }
    parse_wrapped(context, &wrapped_on_a_line_of_its_own(text, line_start), module_line, file_name, module_location)
        .map(|module| (module, true))
}

/// `text` with `module {` on a line of its own inserted at byte `line_start` (a line start), closed at the end.
fn wrapped_on_a_line_of_its_own(text: &str, line_start: usize) -> String {
    format!("{}module {{\n{}\n}}\n", &text[..line_start], &text[line_start..])
}

/// Several top-level ops parsed straight into a new module (`csrc/parse.cpp`): every location is MLIR's own,
/// exact, with no walk to move them. `None` where this cannot be sure of giving [`parse_wrapped`]'s module, or
/// where the parse failed: its diagnostics are dropped, and the caller's [`parse_wrapped`] parses again and
/// reports exactly what it always did. Where both parse, they build the same module: the ops parse alike at
/// the top level of a file and at the top level of `module { … }`, except for definitions that may only stand
/// at file level (`#alias = …`, `!alias = …`, `{-# … #-}`), which fail inside the wrapping module — so a text
/// with a line starting with `#`, `!` or `{` from its first op on is left to the wrapped parse. Like the wrapped
/// parse, a successful one reports nothing (warnings included).
fn parse_into_module<'c>(
    context: &'c Context,
    text: &str,
    line_start: usize,
    file_name: &str,
    module_location: Location<'c>,
) -> Option<Module<'c>> {
    if cfg!(lego_no_parse_shim) || has_a_line_starting_with_a_definition(&text[line_start..]) {
        return None;
    }
    let handler = context.attach_diagnostic_handler(|_| true);
    tracing::trace!(target: "lego", "generic form handed to MLIR:\n{text}");
    let raw = parse_into_module_raw(context, text, file_name, module_location);
    context.detach_diagnostic_handler(handler);
    if raw.ptr.is_null() {
        return None;
    }
    Module::from_operation(unsafe { Operation::from_raw(raw) })
}

#[cfg(not(lego_no_parse_shim))]
fn parse_into_module_raw(context: &Context, text: &str, file_name: &str, module_location: Location) -> mlir_sys::MlirOperation {
    extern "C" {
        fn legoParseIntoModule(
            context: mlir_sys::MlirContext,
            source: mlir_sys::MlirStringRef,
            source_name: mlir_sys::MlirStringRef,
            module_location: mlir_sys::MlirLocation,
        ) -> mlir_sys::MlirOperation;
    }
    let (source, name) = (melior::StringRef::new(text), melior::StringRef::new(file_name));
    unsafe { legoParseIntoModule(context.to_raw(), source.to_raw(), name.to_raw(), module_location.to_raw()) }
}

#[cfg(lego_no_parse_shim)]
fn parse_into_module_raw(_: &Context, _: &str, _: &str, _: Location) -> mlir_sys::MlirOperation {
    mlir_sys::MlirOperation { ptr: std::ptr::null_mut() }
}

/// Whether a line of `text` starts (after blanks) with `#`, `!` or `{`: no op does, while file-level
/// definitions do. Conservative: a `#` at the start of a continuation line of an op also counts.
fn has_a_line_starting_with_a_definition(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at_line_start = true;
    for &byte in bytes {
        match byte {
            b'\n' => at_line_start = true,
            b' ' | b'\t' | b'\r' => {}
            b'#' | b'!' | b'{' if at_line_start => return true,
            _ => at_line_start = false,
        }
    }
    false
}

enum SingleOp<'c> {
    Parsed(Module<'c>),
    /// Errors reported (or none, and a located error of ours said so).
    Failed,
    /// MLIR found several top-level ops: the text must be wrapped.
    Several,
}

/// Parses `text` as one op, put into a new module: every location is MLIR's own, exact.
fn parse_single_op<'c>(context: &'c Context, text: &str, file_name: &str, module_location: Location<'c>) -> SingleOp<'c> {
    let errors_seen = std::rc::Rc::new(std::cell::Cell::new(0usize));
    let several_ops = std::rc::Rc::new(std::cell::Cell::new(false));
    let (counter, several) = (std::rc::Rc::clone(&errors_seen), std::rc::Rc::clone(&several_ops));
    let handler = context.attach_diagnostic_handler(move |diagnostic| {
        if !matches!(diagnostic.severity(), melior::diagnostic::DiagnosticSeverity::Error) {
            return false;
        }
        if diagnostic.to_string().starts_with(NOT_A_SINGLE_TOP_LEVEL_OP) {
            several.set(true);
            return true; // handled: not the user's mistake, we wrap
        }
        counter.set(counter.get() + 1);
        false
    });
    tracing::trace!(target: "lego", "generic form handed to MLIR:\n{text}");
    let operation = parse_operation(context, text, file_name);
    context.detach_diagnostic_handler(handler);
    if let Some(operation) = operation {
        let module = Module::new(module_location);
        module.body().append_operation(operation);
        return SingleOp::Parsed(module);
    }
    if errors_seen.get() > 0 || !several_ops.get() {
        if errors_seen.get() == 0 {
            verify::emit_error(module_location, "MLIR could not parse the input and gave no reason");
        }
        return SingleOp::Failed;
    }
    SingleOp::Several
}

/// Parses `wrapped` (`module {` on a line of its own before line `module_line`) and moves every location the
/// parser made back to the user's line and column.
fn parse_wrapped<'c>(
    context: &'c Context,
    wrapped: &str,
    module_line: usize,
    file_name: &str,
    module_location: Location<'c>,
) -> Option<Module<'c>> {

    // The same ops parse again, so this parse reports nothing new: its diagnostics are kept from the caller
    // (they would repeat the first parse's warnings) unless it fails after all.
    let wrapped_file_name = format!("{file_name} (wrapped in a module)");
    let failures = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let sink = std::rc::Rc::clone(&failures);
    let handler = context.attach_diagnostic_handler(move |diagnostic| {
        if matches!(diagnostic.severity(), melior::diagnostic::DiagnosticSeverity::Error) {
            let position = file_line_column(diagnostic.location());
            sink.borrow_mut().push((position, diagnostic.to_string()));
        }
        true
    });
    tracing::trace!(target: "lego", "generic form handed to MLIR:\n{wrapped}");
    let operation = parse_operation(context, wrapped, &wrapped_file_name);
    context.detach_diagnostic_handler(handler);
    let unwrap_position = |line: usize, column: usize| match line.cmp(&module_line) {
        std::cmp::Ordering::Less => (line, column),
        std::cmp::Ordering::Equal => (module_line, 1),
        std::cmp::Ordering::Greater => (line - 1, column),
    };
    let Some(operation) = operation else {
        for (position, message) in failures.borrow().iter() {
            let location = match position {
                Some((name, line, column)) if *name == wrapped_file_name => {
                    let (line, column) = unwrap_position(*line, *column);
                    Location::new(context, file_name, line, column)
                }
                _ => module_location,
            };
            verify::emit_error(location, message);
        }
        if failures.borrow().is_empty() {
            verify::emit_error(module_location, "MLIR could not parse the input and gave no reason");
        }
        return None;
    };
    // Once per op and block argument: compares the file name in place rather than copying it out.
    let unwrap = |location: Location<'c>| -> Option<Location<'c>> {
        if !location.is_file_line_col_range()
            || location.file_line_col_range_filename().as_string_ref().as_str() != Ok(wrapped_file_name.as_str())
        {
            return None;
        }
        let (line, column) = unwrap_position(
            location.file_line_col_range_start_line(),
            location.file_line_col_range_start_column(),
        );
        Some(Location::new(context, file_name, line, column))
    };
    let module = Module::from_operation(operation)?;
    crate::ops::walk_ops(module.as_operation(), &mut |op| {
        if let Some(location) = unwrap(op.location()) {
            unsafe { mlir_sys::mlirOperationSetLocation(op.to_raw(), location.to_raw()) };
        }
        for region in op.regions() {
            let mut block = region.first_block();
            while let Some(current) = block {
                for index in 0..current.argument_count() {
                    let Ok(argument) = current.argument(index) else { continue };
                    if let Some(location) = unwrap(argument.location()) {
                        unsafe { mlir_sys::mlirBlockArgumentSetLocation(argument.to_raw(), location.to_raw()) };
                    }
                }
                block = current.next_in_region();
            }
        }
    });
    Some(module)
}

/// File, line and column of a plain file location.
fn file_line_column(location: Location) -> Option<(String, usize, usize)> {
    if !location.is_file_line_col_range() {
        return None;
    }
    let name = location.file_line_col_range_filename().as_string_ref().as_str().ok()?.to_string();
    Some((name, location.file_line_col_range_start_line(), location.file_line_col_range_start_column()))
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
    /// The op is known to verify (MLIR's verifier checked it as a whole and nothing changed it since), so
    /// MLIR's printer need not verify it again to choose between the custom and the generic form (a whole
    /// verifier pass over the module). Only where that is certain: the form printed depends on it.
    pub assume_verified: bool,
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
    if options.assume_verified {
        unsafe { mlir_sys::mlirOpPrintingFlagsAssumeVerified(flags.to_raw()) };
    }
    let printed = print_with_flags(op, &flags).unwrap_or_else(|| op.to_string());
    if options.generic {
        printed
    } else {
        syntax::to_custom_owned(printed)
    }
}

/// melior's `to_string_with_flags`, with the same result (`None` where a piece MLIR prints is not UTF-8 on its
/// own), but the pieces — MLIR's callback stream is unbuffered: a few bytes each, millions for a large module —
/// appended as bytes, an ASCII piece without a UTF-8 validation call.
fn print_with_flags<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, flags: &OperationPrintingFlags) -> Option<String> {
    struct Collected {
        bytes: Vec<u8>,
        valid: bool,
    }
    unsafe extern "C" fn append(piece: mlir_sys::MlirStringRef, data: *mut std::ffi::c_void) {
        let collected = unsafe { &mut *(data as *mut Collected) };
        if !collected.valid || piece.length == 0 {
            return;
        }
        let bytes = unsafe { std::slice::from_raw_parts(piece.data as *const u8, piece.length) };
        if bytes.is_ascii() || std::str::from_utf8(bytes).is_ok() {
            collected.bytes.extend_from_slice(bytes);
        } else {
            collected.valid = false;
        }
    }
    let mut collected = Collected { bytes: Vec::new(), valid: true };
    unsafe {
        mlir_sys::mlirOperationPrintWithFlags(
            op.to_raw(),
            flags.to_raw(),
            Some(append),
            &mut collected as *mut Collected as *mut std::ffi::c_void,
        );
    }
    // SAFETY: every piece appended is valid UTF-8, and so is their concatenation.
    collected.valid.then(|| unsafe { String::from_utf8_unchecked(collected.bytes) })
}

/// How the text is put into one top-level op for MLIR's `mlirOperationCreateParse`.
#[derive(Debug, PartialEq, Eq)]
enum Wrapping<'a> {
    /// The text to parse: as it was (one module), or wrapped in a `module { ... }` that moves no line or column
    /// (the opening brace on a blank or comment-only line before the first op: comments mean nothing to MLIR).
    Exact(std::borrow::Cow<'a, str>),
    /// No such line: wrapped, the text has `module {` on a line of its own, inserted at byte `line_start`, the
    /// start of line `module_line` (1-based), which holds the first op; see
    /// [`parse_wrapping_on_a_line_of_its_own`] (which writes that text only where it needs it). `several`: our
    /// scan saw a second top-level op, so parsing the text as one op is bound to fail and is not tried.
    OnALineOfItsOwn { line_start: usize, module_line: usize, several: bool },
}

/// Like mlir-opt, anything but a single module is wrapped in a `module { ... }`.
fn wrap_in_module_if_needed(text: &str) -> Wrapping<'_> {
    let Some(first_op) = first_operation_offset(text) else {
        // No op: nothing to locate (the module's own location is line 1 either way).
        return Wrapping::Exact(format!("module {{\n{text}\n}}").into());
    };
    let rest = &text[first_op..];
    let is_module = ["module", "builtin.module", "\"builtin.module\""].iter().any(|name| {
        rest.strip_prefix(name).is_some_and(|after| after.starts_with(|c: char| c.is_whitespace() || c == '{' || c == '@' || c == '('))
    });
    if is_module && !has_second_top_level_op(text, first_op) {
        return Wrapping::Exact(text.into());
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
            return Wrapping::Exact(wrapped.into());
        }
        if trimmed.starts_with('#') || trimmed.starts_with('!') {
            break; // an alias definition: the module must start after it
        }
        search_end = previous_start;
    }
    let module_line = text[..line_start].matches('\n').count() + 1;
    Wrapping::OnALineOfItsOwn { line_start, module_line, several: has_second_top_level_op(text, first_op) }
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
    // Bytes, not chars: every byte looked at is ASCII, and no byte of a multi-byte character is (this scans the
    // whole module, once per input). Outside strings and comments only `/ " { }` matter: runs of other bytes
    // are skipped through a table, without the state machine below.
    let bytes = text.as_bytes();
    let mut position = 0;
    let scanned = &bytes[open..];
    while position < scanned.len() {
        if !in_comment && !in_string {
            match scanned[position..].iter().position(|&byte| IS_STRUCTURAL[usize::from(byte)]) {
                Some(skipped) => position += skipped,
                None => break,
            }
        }
        let (absolute, byte) = (open + position, scanned[position]);
        position += 1;
        if in_comment {
            in_comment = byte != b'\n';
            continue;
        }
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'/' if text.as_bytes().get(absolute + 1) == Some(&b'/') => in_comment = true,
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
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

/// The bytes [`has_second_top_level_op`] looks at outside strings and comments.
const IS_STRUCTURAL: [bool; 256] = {
    let mut table = [false; 256];
    table[b'/' as usize] = true;
    table[b'"' as usize] = true;
    table[b'{' as usize] = true;
    table[b'}' as usize] = true;
    table
};

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
    use super::{has_a_line_starting_with_a_definition, wrap_in_module_if_needed, wrapped_on_a_line_of_its_own, Wrapping};

    fn exact(text: &str) -> String {
        match wrap_in_module_if_needed(text) {
            Wrapping::Exact(wrapped) => wrapped.into_owned(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn single_module_is_kept() {
        let text = "// RUN: x\nmodule {\n}\n";
        assert_eq!(exact(text), text);
    }

    #[test]
    fn functions_are_wrapped_on_a_comment_line() {
        let text = "// RUN: x\nfunc.func @f() {\n  return\n}\n";
        let wrapped = exact(text);
        assert_eq!(wrapped, "module {\nfunc.func @f() {\n  return\n}\n\n}\n");
        // Line 2 still holds the function.
        assert_eq!(wrapped.lines().nth(1), Some("func.func @f() {"));
    }

    #[test]
    fn aliases_stay_outside_the_module() {
        let text = "#map = affine_map<(d0) -> (d0)>\n\nfunc.func @f() {\n  return\n}\n";
        let wrapped = exact(text);
        assert!(wrapped.starts_with("#map = affine_map<(d0) -> (d0)>\nmodule {\nfunc.func"), "{wrapped}");
    }

    #[test]
    fn first_line_op_gets_a_line_of_its_own() {
        let text = "func.func @f() {\n  return\n}";
        assert_eq!(
            wrap_in_module_if_needed(text),
            Wrapping::OnALineOfItsOwn { line_start: 0, module_line: 1, several: false }
        );
        assert_eq!(wrapped_on_a_line_of_its_own(text, 0), "module {\nfunc.func @f() {\n  return\n}\n}\n");
        // Right after an alias definition: the module line goes between them.
        let text = "#map = affine_map<(d0) -> (d0)>\nfunc.func @f() {\n  return\n}\n";
        assert_eq!(
            wrap_in_module_if_needed(text),
            Wrapping::OnALineOfItsOwn { line_start: 32, module_line: 2, several: false }
        );
        assert_eq!(
            wrapped_on_a_line_of_its_own(text, 32),
            "#map = affine_map<(d0) -> (d0)>\nmodule {\nfunc.func @f() {\n  return\n}\n\n}\n"
        );
    }

    #[test]
    fn single_generic_module_is_kept() {
        let text = "\"builtin.module\"() ({\n}) {sym_name = \"m\"} : () -> () loc(unknown)\n";
        assert_eq!(exact(text), text);
        let two = "\"builtin.module\"() ({\n}) : () -> ()\n\"builtin.module\"() ({\n}) : () -> ()\n";
        assert!(matches!(wrap_in_module_if_needed(two), Wrapping::OnALineOfItsOwn { module_line: 1, several: true, .. }));
    }

    #[test]
    fn braces_in_strings_and_comments_after_multi_byte_characters_do_not_count() {
        // `é` after a backslash in a string, `ü` in a comment: the scan for a second top-level op goes by bytes.
        let one = "module {\n  // ü }\n  %0 = \"x.y\"() {s = \"\\é}\"} : () -> ()\n}\n";
        assert_eq!(exact(one), one);
        let two = format!("{one}func.func @g() {{\n}}\n");
        assert!(matches!(wrap_in_module_if_needed(&two), Wrapping::OnALineOfItsOwn { module_line: 1, several: true, .. }));
    }

    #[test]
    fn two_modules_are_wrapped() {
        let text = "\nmodule {\n}\nmodule {\n}\n";
        assert!(exact(text).starts_with("module {\nmodule {"));
    }

    #[test]
    fn file_level_definitions_after_the_first_op_are_seen() {
        assert!(!has_a_line_starting_with_a_definition("func.func @f() {\n  %0 = arith.constant 1 : index\n}\n"));
        assert!(has_a_line_starting_with_a_definition("func.func @f() {\n}\n  #map = affine_map<(d0) -> (d0)>\n"));
        assert!(has_a_line_starting_with_a_definition("func.func @f() {\n}\n!t = i32\n"));
        assert!(has_a_line_starting_with_a_definition("func.func @f() {\n}\n{-#\n#-}\n"));
    }

    #[test]
    fn empty_input_becomes_an_empty_module() {
        assert_eq!(exact("// nothing\n"), "module {\n// nothing\n\n}");
    }
}
