//! Rust: `u64` with wrapping `+ - *` (MLIR's `index` arithmetic wraps; a plain `+` would panic in debug
//! builds where MLIR wraps), so every op is exact. Several results are a tuple.

use super::{banner, compare_as, no_equivalent, ConstantUse, Language, Operand, Rendered, Signature, Target};
use crate::program::{BinOp, Pred, Ty, UnOp};

pub struct Rust;

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in",
    "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super",
    "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box",
    "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen", "_", "u64",
    "i64",
];

fn ty(ty: Ty) -> &'static str {
    match ty {
        Ty::Index => "u64",
        Ty::Bool => "bool",
    }
}

fn signed(a: &Operand) -> String {
    format!("({} as i64)", a.text())
}

impl Target for Rust {
    fn language(&self) -> Language {
        Language::Rust
    }

    fn index_type(&self) -> &'static str {
        "u64"
    }

    fn bounds_check(&self, _signature: &Signature, cond: &str, _index: &str, message: &str) -> Vec<String> {
        // assert!, not debug_assert!: the check was asked for, in release builds too.
        vec![format!("assert!({cond}, \"{}\");", message.replace('\\', "\\\\").replace('"', "\\\"").replace('{', "{{").replace('}', "}}"))]
    }

    fn keywords(&self) -> &'static [&'static str] {
        KEYWORDS
    }

    fn constant(&self, value: u64, context: ConstantUse) -> Result<Rendered, String> {
        Ok(match context {
            // A literal receiving a method call needs its type.
            ConstantUse::Typed => Rendered::atom(format!("{value}u64")),
            ConstantUse::Plain | ConstantUse::ShiftAmount => Rendered::atom(value.to_string()),
        })
    }

    fn boolean(&self, value: bool) -> Rendered {
        Rendered::atom(value.to_string())
    }

    fn binary(&self, op: BinOp, a: &Operand, b: &Operand) -> Result<Rendered, String> {
        let (x, y) = (a.text(), b.text());
        // Method receivers need a typed literal; the walker types left constants only for shifts.
        let receiver = match a.constant() {
            Some(value) => format!("{value}u64"),
            None => x.clone(),
        };
        let argument = &b.rendered.text;
        let method = |name: &str| Ok(Rendered::atom(format!("{receiver}.{name}({argument})")));
        let infix = |symbol: &str| Ok(Rendered::compound(format!("{x} {symbol} {y}")));
        match op {
            BinOp::Add => method("wrapping_add"),
            BinOp::Sub => method("wrapping_sub"),
            BinOp::Mul => method("wrapping_mul"),
            BinOp::DivU => infix("/"),
            BinOp::RemU => infix("%"),
            BinOp::CeilDivU => method("div_ceil"),
            BinOp::Shl => infix("<<"),
            BinOp::ShrU => infix(">>"),
            BinOp::And => infix("&"),
            BinOp::Or => infix("|"),
            BinOp::Xor => infix("^"),
            BinOp::MinU => method("min"),
            BinOp::MaxU => method("max"),
            BinOp::DivS => Ok(Rendered::compound(format!("{}.wrapping_div({}) as u64", signed(a), signed(b)))),
            BinOp::RemS => Ok(Rendered::compound(format!("{}.wrapping_rem({}) as u64", signed(a), signed(b)))),
            BinOp::ShrS => Ok(Rendered::compound(format!("({} >> {y}) as u64", signed(a)))),
            BinOp::MinS => Ok(Rendered::compound(format!("{}.min({}) as u64", signed(a), signed(b)))),
            BinOp::MaxS => Ok(Rendered::compound(format!("{}.max({}) as u64", signed(a), signed(b)))),
            BinOp::FloorDivS => Err(no_equivalent(Language::Rust, "signed floor division is unstable in Rust")),
            BinOp::CeilDivS => Err(no_equivalent(Language::Rust, "signed ceil division is unstable in Rust")),
        }
    }

    fn compare(&self, pred: Pred, a: &Operand, b: &Operand) -> Result<Rendered, String> {
        Ok(compare_as(pred, a, b, signed))
    }

    fn unary(&self, op: UnOp, a: &Operand) -> Result<Rendered, String> {
        let method = match op {
            UnOp::Ctlz => "leading_zeros",
            UnOp::Cttz => "trailing_zeros",
            UnOp::Ctpop => "count_ones",
        };
        let receiver = match a.constant() {
            Some(value) => format!("{value}u64"),
            None => a.text(),
        };
        Ok(Rendered::compound(format!("{receiver}.{method}() as u64")))
    }

    fn select(&self, cond: &Operand, a: &Operand, b: &Operand) -> Rendered {
        Rendered::compound(format!("if {} {{ {} }} else {{ {} }}", cond.rendered.text, a.rendered.text, b.rendered.text))
    }

    fn file_open(&self, source: &str, _functions: &[Signature]) -> String {
        format!("// {}\n\n", banner(source, Language::Rust))
    }

    fn function_open(&self, signature: &Signature, _locals: &[(String, Ty)]) -> Vec<String> {
        let params: Vec<String> = signature.params.iter().map(|p| format!("{p}: u64")).collect();
        let returns = match signature.results.len() {
            1 => " -> u64".to_string(),
            n => format!(" -> ({})", vec!["u64"; n].join(", ")),
        };
        vec![
            "#[inline]".to_string(),
            // dead_code: a file of index functions is included whole, and a program calls only some of them.
            "#[allow(clippy::all, unused_parens, unused_variables, dead_code)]".to_string(),
            format!("pub fn {}({}){returns} {{", signature.name, params.join(", ")),
        ]
    }

    fn function_close(&self, _signature: &Signature) -> Vec<String> {
        vec!["}".to_string()]
    }

    fn let_statement(&self, name: &str, ty_: Ty, value: &str) -> String {
        format!("let {name}: {} = {value};", ty(ty_))
    }

    fn declare(&self, name: &str, ty_: Ty) -> Option<String> {
        Some(format!("let {name}: {};", ty(ty_)))
    }

    fn if_open(&self, cond: &str) -> String {
        format!("if {cond} {{")
    }

    fn return_lines(&self, _signature: &Signature, values: &[String]) -> Vec<String> {
        match values {
            [value] => vec![value.clone()],
            values => vec![format!("({})", values.join(", "))],
        }
    }
}
