//! The printers: one module per language family, each a [`Target`] (how one expression or statement is
//! spelled), driven by the common walker here (names, statement order, parenthesization, errors).

mod c;
mod fortran;
mod julia;
mod python_js;
mod rust;
mod shader;

use crate::program::{body_unary_ops, locals, BinOp, Bound, Domain, Expr, Function, LogicOp, Origin, Pred, Stmt, Ty, UnOp};
use std::collections::BTreeSet;
use std::collections::HashSet;

/// Every output language, with its `--lego-to-…` flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    C,
    Cpp,
    Cuda,
    Rust,
    Fortran,
    Julia,
    JavaScript,
    Glsl,
    Wgsl,
    Python,
}

impl Language {
    pub const ALL: [Language; 10] = [
        Language::Cuda,
        Language::C,
        Language::Cpp,
        Language::Rust,
        Language::Fortran,
        Language::Julia,
        Language::JavaScript,
        Language::Glsl,
        Language::Wgsl,
        Language::Python,
    ];

    /// The translation flag without dashes (`lego-to-cuda`).
    pub fn flag(self) -> &'static str {
        match self {
            Language::C => "lego-to-c",
            Language::Cpp => "lego-to-cpp",
            Language::Cuda => "lego-to-cuda",
            Language::Rust => "lego-to-rust",
            Language::Fortran => "lego-to-fortran",
            Language::Julia => "lego-to-julia",
            Language::JavaScript => "lego-to-js",
            Language::Glsl => "lego-to-glsl",
            Language::Wgsl => "lego-to-wgsl",
            Language::Python => "lego-to-python",
        }
    }

    /// The language's name in diagnostics and docs.
    pub fn display_name(self) -> &'static str {
        match self {
            Language::C => "C",
            Language::Cpp => "C++",
            Language::Cuda => "CUDA C",
            Language::Rust => "Rust",
            Language::Fortran => "Fortran",
            Language::Julia => "Julia",
            Language::JavaScript => "JavaScript",
            Language::Glsl => "GLSL",
            Language::Wgsl => "WGSL",
            Language::Python => "Python",
        }
    }

    /// Whether `--index-bitwidth=32` is available (the C family; the shading languages are always 32-bit).
    pub fn has_narrow_index(self) -> bool {
        matches!(self, Language::C | Language::Cpp | Language::Cuda | Language::Glsl | Language::Wgsl)
    }

    fn target(self, options: Options) -> Box<dyn Target> {
        let narrow = options.index_bitwidth == 32;
        let c = |family| Box::new(c::CTarget { family, narrow, asserts: options.assert_bounds });
        match self {
            Language::C => c(c::CFamily::C),
            Language::Cpp => c(c::CFamily::Cpp),
            Language::Cuda => c(c::CFamily::Cuda),
            Language::Rust => Box::new(rust::Rust),
            Language::Fortran => Box::new(fortran::Fortran::default()),
            Language::Julia => Box::new(julia::Julia),
            Language::JavaScript => Box::new(python_js::JavaScript),
            Language::Glsl => Box::new(shader::Shader::Glsl),
            Language::Wgsl => Box::new(shader::Shader::Wgsl),
            Language::Python => Box::new(python_js::Python),
        }
    }
}

/// What the command line asks of every printer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// 64, or 32 (`--index-bitwidth=32`; always for GLSL and WGSL).
    pub index_bitwidth: u32,
    /// `--assert-bounds`: check the domain on entry.
    pub assert_bounds: bool,
}

impl Options {
    /// The options for `language` (None: `--lego-to-mlir`) from the flags, or why they do not apply.
    pub fn new(language: Option<Language>, index_bitwidth: Option<u32>, assert_bounds: bool) -> Result<Options, String> {
        let Some(language) = language else {
            if index_bitwidth.is_some() || assert_bounds {
                return Err("--index-bitwidth and --assert-bounds apply to a --lego-to-LANG translation, not --lego-to-mlir".into());
            }
            return Ok(Options { index_bitwidth: 64, assert_bounds });
        };
        let shader = matches!(language, Language::Glsl | Language::Wgsl);
        let bits = index_bitwidth.unwrap_or(if shader { 32 } else { 64 });
        match bits {
            32 if !language.has_narrow_index() => Err(format!(
                "--index-bitwidth=32 is available for C, C++, CUDA C, GLSL and WGSL, not {}",
                language.display_name()
            )),
            64 if shader => Err(format!("{}'s index type is 32-bit: --index-bitwidth=64 is not available", language.display_name())),
            32 | 64 => Ok(Options { index_bitwidth: bits, assert_bounds }),
            other => Err(format!("--index-bitwidth={other}: the index type is 32 or 64 bits wide")),
        }
    }
}

/// A failure while printing: where (an origin of the extracted program) and why. The message names the op and
/// the language.
#[derive(Debug)]
pub struct PrintError {
    pub origin: Origin,
    pub message: String,
}

/// The operator at the top of a printed expression, where it is one whose precedence every language shares:
/// `*` binds tighter than `+`/`-`, and both associate to the left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Other,
    /// `a + b` or `a - b`.
    Sum,
    /// `a * b` (not `/` or `%`: `a * b / c` ≠ `a * (b / c)`).
    Product,
}

/// An expression already printed, with whether it can stand as an operand without parentheses.
pub struct Rendered {
    pub text: String,
    pub atomic: bool,
    pub class: Class,
}

impl Rendered {
    pub fn atom(text: impl Into<String>) -> Self {
        Rendered { text: text.into(), atomic: true, class: Class::Other }
    }
    pub fn compound(text: impl Into<String>) -> Self {
        Rendered { text: text.into(), atomic: false, class: Class::Other }
    }
    pub fn sum(text: impl Into<String>) -> Self {
        Rendered { text: text.into(), atomic: false, class: Class::Sum }
    }
    pub fn product(text: impl Into<String>) -> Self {
        Rendered { text: text.into(), atomic: false, class: Class::Product }
    }
    /// As an operand: parenthesized unless atomic.
    pub fn operand(&self) -> String {
        if self.atomic {
            self.text.clone()
        } else {
            format!("({})", self.text)
        }
    }
}

/// An operand handed to a [`Target`]: its printed form and the expression (targets look at constants).
pub struct Operand<'a> {
    pub rendered: Rendered,
    pub expr: &'a Expr,
}

impl Operand<'_> {
    pub fn text(&self) -> String {
        self.rendered.operand()
    }
    /// Left operand of `+`/`-`: a sum or product needs no parentheses.
    pub fn sum_left(&self) -> String {
        if matches!(self.rendered.class, Class::Sum | Class::Product) { self.rendered.text.clone() } else { self.text() }
    }
    /// Right operand of `+`/`-`: a product needs no parentheses.
    pub fn sum_right(&self) -> String {
        if self.rendered.class == Class::Product { self.rendered.text.clone() } else { self.text() }
    }
    /// Left operand of `*`: a product needs no parentheses.
    pub fn product_left(&self) -> String {
        if self.rendered.class == Class::Product { self.rendered.text.clone() } else { self.text() }
    }
    pub fn constant(&self) -> Option<u64> {
        match self.expr {
            Expr::Const(value, _) => Some(*value),
            _ => None,
        }
    }
}

/// How one language spells things. Errors are messages; the walker adds the location.
pub trait Target {
    fn language(&self) -> Language;
    /// Width of the index type (32 or 64).
    fn index_bits(&self) -> u32 {
        64
    }
    /// The index type's spelling, for diagnostics.
    fn index_type(&self) -> &'static str;
    /// A comment line at the level of a function definition.
    fn comment(&self, text: &str) -> String {
        format!("// {text}")
    }
    /// The lines that check `cond` (`index < limit`, printed) on entry and stop the program (or, in the
    /// shading languages, return the "no element" value) with `message` when it fails. `index` is the index
    /// printed as an operand, for the languages whose index type can hold a negative value.
    fn bounds_check(&self, signature: &Signature, cond: &str, index: &str, message: &str) -> Vec<String>;
    /// Words that cannot be identifiers (compared case-insensitively where the language is).
    fn keywords(&self) -> &'static [&'static str];
    fn case_insensitive(&self) -> bool {
        false
    }
    /// Extra identifier rules beyond `[A-Za-z_][A-Za-z0-9_]*` and keywords.
    fn valid_identifier(&self, _name: &str) -> bool {
        true
    }
    fn constant(&self, value: u64, context: ConstantUse) -> Result<Rendered, String>;
    fn boolean(&self, value: bool) -> Rendered;
    fn binary(&self, op: BinOp, a: &Operand, b: &Operand) -> Result<Rendered, String>;
    fn compare(&self, pred: Pred, a: &Operand, b: &Operand) -> Result<Rendered, String>;
    /// The operator of a boolean `and`/`or`/`xor` (default: C's `&&`, `||`, and `!=` for xor).
    fn logic_symbol(&self, op: LogicOp) -> &'static str {
        match op {
            LogicOp::And => "&&",
            LogicOp::Or => "||",
            LogicOp::Xor => "!=",
        }
    }
    /// A 64-bit bit count (`math.ctlz`/`cttz`/`ctpop`; 64 for a zero operand where it counts zeros).
    fn unary(&self, op: UnOp, a: &Operand) -> Result<Rendered, String>;
    /// Helper definitions printed after [`Target::file_open`] for the bit counts the file uses.
    fn prelude(&self, _used: &BTreeSet<UnOp>) -> String {
        String::new()
    }
    fn select(&self, cond: &Operand, a: &Operand, b: &Operand) -> Rendered;

    /// The text before the first function (comment, includes, module header).
    fn file_open(&self, source: &str, functions: &[Signature]) -> String;
    /// The text after the last function (default: none).
    fn file_close(&self, _source: &str, _functions: &[Signature]) -> String {
        String::new()
    }
    /// Lines opening a function, declarations included (`locals`: name, type).
    fn function_open(&self, signature: &Signature, locals: &[(String, Ty)]) -> Vec<String>;
    fn function_close(&self, signature: &Signature) -> Vec<String>;
    // The statement defaults: an untyped `name = value` binding (the script languages) and C-family braces
    // and semicolons for assignments and `if`s; a language overrides what it spells otherwise.
    fn let_statement(&self, name: &str, _ty: Ty, value: &str) -> String {
        format!("{name} = {value}")
    }
    /// Declaration of a variable assigned in both branches of an `if` (None: none needed).
    fn declare(&self, _name: &str, _ty: Ty) -> Option<String> {
        None
    }
    fn assign(&self, name: &str, value: &str) -> String {
        format!("{name} = {value};")
    }
    fn if_open(&self, cond: &str) -> String;
    fn else_line(&self) -> String {
        "} else {".to_string()
    }
    fn if_close(&self) -> Option<String> {
        Some("}".to_string())
    }
    fn return_lines(&self, signature: &Signature, values: &[String]) -> Vec<String>;
    /// One indentation step.
    fn indent(&self) -> &'static str {
        "  "
    }
}

/// Where a constant appears, for the targets whose literal depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConstantUse {
    /// An operand beside a non-constant one (its type comes from the other side).
    Plain,
    /// Needs its own type: both operands constant, the left side of a shift, the receiver of a method, a result.
    Typed,
    /// A shift amount.
    ShiftAmount,
}

/// A function's printed names.
pub struct Signature {
    pub name: String,
    pub params: Vec<String>,
    pub results: Vec<String>,
    /// The local variables' names, by variable number.
    pub locals: Vec<String>,
}

/// Prints `functions` (from `source`, the input's name) in `language`.
pub fn print(language: Language, options: Options, source: &str, functions: &[Function]) -> Result<String, PrintError> {
    let target = language.target(options);
    let target = target.as_ref();
    if target.index_bits() == 32 {
        check_extents(target, functions)?;
    }
    let mut signatures = Vec::with_capacity(functions.len());
    let mut function_names = HashSet::new();
    for function in functions {
        let key = key(target, &function.name);
        if !is_identifier(target, &function.name) || !function_names.insert(key) {
            return Err(PrintError {
                origin: function.origin,
                message: format!(
                    "function name @{} is not a valid {} identifier{}",
                    function.name,
                    language.display_name(),
                    if is_identifier(target, &function.name) { " (it is used twice)" } else { "" }
                ),
            });
        }
    }
    for function in functions {
        signatures.push(signature(target, function, &function_names));
    }
    let mut out = target.file_open(source, &signatures);
    let mut used = BTreeSet::new();
    for function in functions {
        body_unary_ops(&function.body, &mut used);
    }
    out.push_str(&target.prelude(&used));
    for (function, signature) in functions.iter().zip(&signatures) {
        let mut printer = Printer { target, signature, lines: Vec::new(), depth: 1 };
        let mut vars = Vec::new();
        locals(&function.body, &mut vars);
        let local_names: Vec<(String, Ty)> = vars.iter().map(|(var, ty)| (signature.locals[*var].clone(), *ty)).collect();
        let mut lines: Vec<String> =
            wrap_words(&domain_comment(function, signature, options), COMMENT_WIDTH).iter().map(|line| target.comment(line)).collect();
        lines.extend(target.function_open(signature, &local_names));
        if options.assert_bounds {
            if let Domain::Known { bounds, .. } = &function.domain {
                for bound in bounds {
                    printer.check(bound)?;
                }
            }
        }
        printer.statements(&function.body)?;
        lines.append(&mut printer.lines);
        lines.extend(target.function_close(signature));
        for line in lines {
            out.push_str(&line);
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(&target.file_close(source, &signatures));
    while out.ends_with("\n\n") {
        out.pop();
    }
    Ok(out)
}

/// Comment lines are wrapped at this many characters (Fortran's free form allows 132 per line).
const COMMENT_WIDTH: usize = 100;

/// The domain comment of a function (docs/translate.md, "Domains").
fn domain_comment(function: &Function, signature: &Signature, options: Options) -> String {
    match &function.domain {
        Domain::Unknown => {
            format!("Domain of {}: not stated (--no-lower: the input's layouts, if any, were lowered before).", signature.name)
        }
        Domain::Known { bounds, unstated, .. } => {
            let more = |count: usize| {
                format!(
                    "{count} bound{} on values computed inside the function, or under a condition",
                    if count == 1 { "" } else { "s" }
                )
            };
            let checked = if options.assert_bounds { "checked on entry" } else { "other arguments give unspecified results" };
            match (bounds.is_empty(), *unstated) {
                (true, 0) => format!("Domain of {}: every argument (it uses no layout).", signature.name),
                (true, count) => format!("Domain of {}: not stated ({}).", signature.name, more(count)),
                (false, count) => {
                    let conditions: Vec<String> = bounds.iter().map(|bound| neutral_bound(bound, signature)).collect();
                    let mut text = format!("Domain of {}: {} ({checked}).", signature.name, conditions.join(", "));
                    if count > 0 {
                        text.push_str(&format!(" Not stated{}: {}.", if options.assert_bounds { " nor checked" } else { "" }, more(count)));
                    }
                    text
                }
            }
        }
    }
}

/// `index < limit` in a notation every language's reader knows (C's operators, decimal constants).
fn neutral_bound(bound: &Bound, signature: &Signature) -> String {
    format!("{} < {}", neutral(&bound.index, signature, false), neutral(&bound.limit, signature, false))
}

fn neutral(expr: &Expr, signature: &Signature, operand: bool) -> String {
    let text = match expr {
        Expr::Param(index) => return signature.params[*index].clone(),
        Expr::Const(value, _) => return value.to_string(),
        Expr::Bin(op, a, b, _) => {
            let symbol = match op {
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::DivU => "/",
                BinOp::RemU => "%",
                BinOp::Shl => "<<",
                BinOp::ShrU => ">>",
                BinOp::And => "&",
                BinOp::Or => "|",
                BinOp::Xor => "^",
                BinOp::CeilDivU => return format!("ceildiv({}, {})", neutral(a, signature, false), neutral(b, signature, false)),
                BinOp::MinU => return format!("min({}, {})", neutral(a, signature, false), neutral(b, signature, false)),
                BinOp::MaxU => return format!("max({}, {})", neutral(a, signature, false), neutral(b, signature, false)),
                _ => "?",
            };
            // A product's left factor that is a product needs no parentheses.
            let left_operand = !(*op == BinOp::Mul && matches!(**a, Expr::Bin(BinOp::Mul, ..)));
            format!("{} {symbol} {}", neutral(a, signature, left_operand), neutral(b, signature, true))
        }
        _ => "?".to_string(),
    };
    if operand {
        format!("({text})")
    } else {
        text
    }
}

/// Words of `text` in lines of at most `width` characters (a longer word stays whole).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in text.split(' ') {
        if !current.is_empty() && current.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// With a 32-bit index type: every layout a function uses must have fewer than 2^32 elements (and inverse
/// positions), or its indices, positions and the bounds themselves would not fit. Static sizes only: symbolic
/// ones are the caller's contract (docs/translate.md).
fn check_extents(target: &dyn Target, functions: &[Function]) -> Result<(), PrintError> {
    for function in functions {
        let Domain::Known { extents, .. } = &function.domain else { continue };
        if let Some(extent) = extents.iter().find(|extent| extent.size >= 1u128 << 32) {
            let language = target.language();
            return Err(PrintError {
                origin: extent.origin,
                message: format!(
                    "'{}' op uses a layout with {} positions, which does not fit {}'s 32-bit index type '{}' (extents below 2^32{})",
                    extent.op,
                    extent.size,
                    language.display_name(),
                    target.index_type(),
                    if matches!(language, Language::Glsl | Language::Wgsl) { "" } else { ", --index-bitwidth=32" }
                ),
            });
        }
    }
    Ok(())
}

fn key(target: &dyn Target, name: &str) -> String {
    if target.case_insensitive() {
        name.to_ascii_lowercase()
    } else {
        name.to_string()
    }
}

fn is_identifier(target: &dyn Target, name: &str) -> bool {
    let mut chars = name.chars();
    let well_formed = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    let lowered = key(target, name);
    well_formed && !target.keywords().iter().any(|keyword| key(target, keyword) == lowered) && target.valid_identifier(name)
}

/// Parameter, result and local names. The user's parameter names are kept where they are identifiers of the
/// language (not keywords), distinct, and not function names; the others become `argN` (N: the position).
/// The generated names — `r` / `rK` results, `vN` locals — come after and step aside (`r_`, `v0_`, …) for a
/// parameter or function of the same name, so a parameter named `%r` or `%v0` keeps its name.
fn signature(target: &dyn Target, function: &Function, functions: &HashSet<String>) -> Signature {
    // Names of this function; function names are checked in `functions` (not copied: per function that would
    // make the whole file quadratic).
    let mut taken: HashSet<String> = HashSet::new();
    let kept: Vec<Option<String>> = function
        .params
        .iter()
        .map(|name| {
            let name_key = key(target, name);
            let usable = is_identifier(target, name) && !taken.contains(&name_key) && !functions.contains(&name_key);
            usable.then(|| {
                taken.insert(name_key);
                name.clone()
            })
        })
        .collect();
    let mut fresh = |base: String| {
        let mut name = base.clone();
        let mut attempt = 1;
        while taken.contains(&key(target, &name)) || functions.contains(&key(target, &name)) || !is_identifier(target, &name) {
            attempt += 1;
            name = if attempt == 2 { format!("{base}_") } else { format!("{base}_{attempt}") };
        }
        taken.insert(key(target, &name));
        name
    };
    let params: Vec<String> =
        kept.into_iter().enumerate().map(|(index, name)| name.unwrap_or_else(|| fresh(format!("arg{index}")))).collect();
    let results = if function.results == 1 {
        vec![fresh("r".to_string())]
    } else {
        (0..function.results).map(|k| fresh(format!("r{k}"))).collect()
    };
    let mut vars = Vec::new();
    locals(&function.body, &mut vars);
    let count = vars.iter().map(|(var, _)| var + 1).max().unwrap_or(0);
    let locals = (0..count).map(|var| fresh(format!("v{var}"))).collect();
    Signature { name: function.name.clone(), params, results, locals }
}

struct Printer<'t> {
    target: &'t dyn Target,
    signature: &'t Signature,
    lines: Vec<String>,
    depth: usize,
}

impl Printer<'_> {
    fn line(&mut self, text: String) {
        for line in text.lines() {
            self.lines.push(format!("{}{line}", self.target.indent().repeat(self.depth)));
        }
    }

    fn statements(&mut self, body: &[Stmt]) -> Result<(), PrintError> {
        for stmt in body {
            match stmt {
                Stmt::Let { var, ty, value } => {
                    let value = self.expr(value, ConstantUse::Typed)?.text;
                    let line = self.target.let_statement(&self.signature.locals[*var], *ty, &value);
                    self.line(line);
                }
                Stmt::If { vars, cond, then_body, then_values, else_body, else_values } => {
                    for (var, ty) in vars {
                        if let Some(line) = self.target.declare(&self.signature.locals[*var], *ty) {
                            self.line(line);
                        }
                    }
                    let cond = self.expr(cond, ConstantUse::Typed)?.text;
                    let open = self.target.if_open(&cond);
                    self.line(open);
                    self.branch(vars, then_body, then_values)?;
                    let else_line = self.target.else_line();
                    self.line(else_line);
                    self.branch(vars, else_body, else_values)?;
                    if let Some(close) = self.target.if_close() {
                        self.line(close);
                    }
                }
                Stmt::Return(values) => {
                    let values = values
                        .iter()
                        .map(|value| self.expr(value, ConstantUse::Typed).map(|r| r.text))
                        .collect::<Result<Vec<_>, _>>()?;
                    let lines = self.target.return_lines(self.signature, &values);
                    for line in lines {
                        self.line(line);
                    }
                }
            }
        }
        Ok(())
    }

    /// The entry check of one domain bound (`--assert-bounds`).
    fn check(&mut self, bound: &Bound) -> Result<(), PrintError> {
        let index = self.operand(&bound.index, ConstantUse::Plain)?;
        let limit = self.operand(&bound.limit, ConstantUse::Plain)?;
        let origin = bound.origin;
        let cond = self
            .target
            .compare(Pred::Ult, &index, &limit)
            .map_err(|message| PrintError { origin, message: format!("the bound check: {message}") })?
            .text;
        let message = format!("{}: argument outside the domain: {} does not hold", self.signature.name, neutral_bound(bound, self.signature));
        for line in self.target.bounds_check(self.signature, &cond, &index.text(), &message) {
            self.line(line);
        }
        Ok(())
    }

    fn branch(&mut self, vars: &[(usize, Ty)], body: &[Stmt], values: &[Expr]) -> Result<(), PrintError> {
        self.depth += 1;
        self.statements(body)?;
        for ((var, _), value) in vars.iter().zip(values) {
            let value = self.expr(value, ConstantUse::Typed)?.text;
            let line = self.target.assign(&self.signature.locals[*var], &value);
            self.line(line);
        }
        self.depth -= 1;
        Ok(())
    }

    fn operand<'e>(&self, expr: &'e Expr, context: ConstantUse) -> Result<Operand<'e>, PrintError> {
        Ok(Operand { rendered: self.expr(expr, context)?, expr })
    }

    fn expr(&self, expr: &Expr, context: ConstantUse) -> Result<Rendered, PrintError> {
        let target = self.target;
        let at = |origin: Origin| move |message: String| PrintError { origin, message };
        match expr {
            Expr::Param(index) => Ok(Rendered::atom(self.signature.params[*index].clone())),
            Expr::Var(var) => Ok(Rendered::atom(self.signature.locals[*var].clone())),
            Expr::Bool(value) => Ok(target.boolean(*value)),
            Expr::Const(value, origin) => target.constant(*value, context).map_err(|message| PrintError {
                origin: *origin,
                message: format!("'arith.constant' {}: {message}", *value as i64),
            }),
            Expr::Bin(op, a, b, origin) => {
                let both_constant = matches!(**a, Expr::Const(..)) && matches!(**b, Expr::Const(..));
                let shift = matches!(op, BinOp::Shl | BinOp::ShrU | BinOp::ShrS);
                let left_context = if both_constant || shift { ConstantUse::Typed } else { ConstantUse::Plain };
                let right_context = if shift {
                    ConstantUse::ShiftAmount
                } else if both_constant {
                    ConstantUse::Typed
                } else {
                    ConstantUse::Plain
                };
                // A shift amount the language cannot take is the shift's fault, not the constant's.
                if let (true, Expr::Const(amount, _)) = (shift, &**b) {
                    target.constant(*amount, ConstantUse::ShiftAmount).map_err(|message| at(*origin)(format!("'{}' {message}", op.mlir_name())))?;
                }
                let a = self.operand(a, left_context)?;
                let b = self.operand(b, right_context)?;
                target.binary(*op, &a, &b).map_err(|message| at(*origin)(format!("'{}' {message}", op.mlir_name())))
            }
            Expr::Unary(op, a, origin) => {
                let a = self.operand(a, ConstantUse::Typed)?;
                target.unary(*op, &a).map_err(|message| at(*origin)(format!("'{}' {message}", op.mlir_name())))
            }
            Expr::Cmp(pred, a, b, origin) => {
                let both_constant = matches!(**a, Expr::Const(..)) && matches!(**b, Expr::Const(..));
                let context = if both_constant { ConstantUse::Typed } else { ConstantUse::Plain };
                let a = self.operand(a, context)?;
                let b = self.operand(b, context)?;
                target.compare(*pred, &a, &b).map_err(|message| at(*origin)(format!("'arith.cmpi' {message}")))
            }
            Expr::Logic(op, a, b) => {
                let a = self.operand(a, ConstantUse::Plain)?;
                let b = self.operand(b, ConstantUse::Plain)?;
                Ok(Rendered::compound(format!("{} {} {}", a.text(), target.logic_symbol(*op), b.text())))
            }
            Expr::Select(c, a, b) => {
                let c = self.operand(c, ConstantUse::Plain)?;
                let a = self.operand(a, ConstantUse::Typed)?;
                let b = self.operand(b, ConstantUse::Typed)?;
                Ok(target.select(&c, &a, &b))
            }
        }
    }
}

/// A constant of a 32-bit unsigned index type: values below 2^32 as they are, a negative c ≥ −2^31 as 2^32 + c
/// (exact for `+ - *` modulo 2^32, e.g. `addi x, -1`), others rejected; shift amounts below 32.
pub fn narrow_constant(value: u64, context: ConstantUse, language: Language, index_type: &str) -> Result<u64, String> {
    let signed = value as i64;
    let bits = if value <= u32::MAX as u64 {
        value
    } else if (-(1i64 << 31)..0).contains(&signed) {
        (1u64 << 32).wrapping_add_signed(signed)
    } else {
        return Err(format!("does not fit {}'s 32-bit '{index_type}' (values below 2^32)", language.display_name()));
    };
    if context == ConstantUse::ShiftAmount && bits >= 32 {
        return Err(format!("shifts by {bits}, out of {}'s 32-bit range", language.display_name()));
    }
    Ok(bits)
}

/// The error for an op a language has no exact spelling for.
pub fn no_equivalent(language: Language, why: &str) -> String {
    format!("cannot be expressed in {}: {why}", language.display_name())
}

/// `a + b`, `a - b`, `a * b` with no more parentheses than precedence needs (all languages agree on these).
pub fn arithmetic(op: BinOp, a: &Operand, b: &Operand) -> Option<Rendered> {
    match op {
        BinOp::Add => Some(Rendered::sum(format!("{} + {}", a.sum_left(), b.sum_right()))),
        BinOp::Sub => Some(Rendered::sum(format!("{} - {}", a.sum_left(), b.sum_right()))),
        BinOp::Mul => Some(Rendered::product(format!("{} * {}", a.product_left(), b.text()))),
        _ => None,
    }
}

/// `a ≶ b` with the predicate's C-like symbol; a signed predicate compares `signed(a)` and `signed(b)` (the
/// languages whose index type is unsigned and that spell a signed view of it).
pub fn compare_as(pred: Pred, a: &Operand, b: &Operand, signed: impl Fn(&Operand) -> String) -> Rendered {
    let symbol = pred.symbol();
    if pred.is_signed() {
        Rendered::compound(format!("{} {symbol} {}", signed(a), signed(b)))
    } else {
        Rendered::compound(format!("{} {symbol} {}", a.text(), b.text()))
    }
}

/// `x` is `2^k - 1` for some k ≥ 1.
pub fn low_mask(x: u64) -> Option<u32> {
    (x != 0 && x.wrapping_add(1) & x == 0).then(|| x.count_ones())
}

/// Header comment line shared by every language.
pub fn banner(source: &str, language: Language) -> String {
    format!("{} index functions generated by lego-translate from {source}; do not edit.", language.display_name())
}
