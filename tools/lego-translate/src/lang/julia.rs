//! Julia: `UInt64`, whose arithmetic wraps like MLIR's `index`, so every op is exact. Each function gets a
//! convenience method taking any `Integer` (converted with `UInt64`, which rejects negative indices).
//! Several results are a tuple. (No Debian 12 package: the output is golden-tested, not run.)

use super::{banner, compare_as, ConstantUse, Language, Operand, Rendered, Signature, Target};
use crate::program::{BinOp, Pred, Ty, UnOp};

pub struct Julia;

const KEYWORDS: &[&str] = &[
    "function", "end", "if", "else", "elseif", "for", "while", "return", "begin", "let", "local", "global", "const",
    "do", "try", "catch", "finally", "module", "baremodule", "using", "import", "export", "struct", "mutable",
    "abstract", "primitive", "type", "quote", "macro", "break", "continue", "true", "false", "where", "in", "isa",
    "div", "rem", "min", "max", "xor", "cld", "fld", "ifelse", "UInt64", "Int64", "Integer", "Tuple", "nothing",
    "missing", "outer", "public",
];

fn signed(a: &Operand) -> String {
    format!("({} % Int64)", a.text())
}

fn unsigned(text: String) -> Rendered {
    Rendered::compound(format!("{text} % UInt64"))
}

impl Target for Julia {
    fn language(&self) -> Language {
        Language::Julia
    }

    fn index_type(&self) -> &'static str {
        "UInt64"
    }

    fn comment(&self, text: &str) -> String {
        format!("# {text}")
    }

    fn bounds_check(&self, _signature: &Signature, cond: &str, index: &str, message: &str) -> Vec<String> {
        // Not @assert (it may be disabled); `$` would interpolate in a Julia string.
        let message = message.replace('\\', "\\\\").replace('"', "\\\"").replace('$', "\\$");
        vec![format!("{cond} || throw(DomainError({index}, \"{message}\"))")]
    }

    fn keywords(&self) -> &'static [&'static str] {
        KEYWORDS
    }

    fn constant(&self, value: u64, context: ConstantUse) -> Result<Rendered, String> {
        Ok(if value > i64::MAX as u64 {
            // A 16-digit hexadecimal literal is a UInt64 in Julia (a decimal one this large would be Int128).
            Rendered::atom(format!("0x{value:016x}"))
        } else if context == ConstantUse::Typed {
            Rendered::atom(format!("UInt64({value})"))
        } else {
            Rendered::atom(value.to_string())
        })
    }

    fn boolean(&self, value: bool) -> Rendered {
        Rendered::atom(value.to_string())
    }

    fn binary(&self, op: BinOp, a: &Operand, b: &Operand) -> Result<Rendered, String> {
        let (x, y) = (a.text(), b.text());
        let (rx, ry) = (&a.rendered.text, &b.rendered.text);
        let infix = |symbol: &str| Ok(Rendered::compound(format!("{x} {symbol} {y}")));
        let call = |name: &str| Ok(Rendered::atom(format!("{name}({rx}, {ry})")));
        let signed_call = |name: &str| Ok(unsigned(format!("{name}({}, {})", signed(a), signed(b))));
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul => Ok(super::arithmetic(op, a, b).expect("+, -, *")),
            BinOp::DivU => call("div"),
            BinOp::RemU => call("rem"),
            BinOp::CeilDivU => call("cld"),
            BinOp::Shl => infix("<<"),
            BinOp::ShrU => infix(">>>"),
            BinOp::ShrS => Ok(unsigned(format!("({} >> {y})", signed(a)))),
            BinOp::And => infix("&"),
            BinOp::Or => infix("|"),
            BinOp::Xor => call("xor"),
            BinOp::MinU => call("min"),
            BinOp::MaxU => call("max"),
            BinOp::DivS => signed_call("div"),
            BinOp::RemS => signed_call("rem"),
            BinOp::FloorDivS => signed_call("fld"),
            BinOp::CeilDivS => signed_call("cld"),
            BinOp::MinS => signed_call("min"),
            BinOp::MaxS => signed_call("max"),
        }
    }

    fn compare(&self, pred: Pred, a: &Operand, b: &Operand) -> Result<Rendered, String> {
        Ok(compare_as(pred, a, b, signed))
    }

    fn unary(&self, op: UnOp, a: &Operand) -> Result<Rendered, String> {
        let function = match op {
            UnOp::Ctlz => "leading_zeros",
            UnOp::Cttz => "trailing_zeros",
            UnOp::Ctpop => "count_ones",
        };
        Ok(Rendered::compound(format!("{function}({}) % UInt64", a.rendered.text)))
    }

    fn select(&self, cond: &Operand, a: &Operand, b: &Operand) -> Rendered {
        Rendered::compound(format!("{} ? {} : {}", cond.text(), a.text(), b.text()))
    }

    fn file_open(&self, source: &str, _functions: &[Signature]) -> String {
        format!("# {}\n\n", banner(source, Language::Julia))
    }

    fn function_open(&self, signature: &Signature, _locals: &[(String, Ty)]) -> Vec<String> {
        let returns = match signature.results.len() {
            1 => "UInt64".to_string(),
            n => format!("Tuple{{{}}}", vec!["UInt64"; n].join(", ")),
        };
        let typed: Vec<String> = signature.params.iter().map(|p| format!("{p}::UInt64")).collect();
        vec![format!("function {}({})::{returns}", signature.name, typed.join(", "))]
    }

    fn function_close(&self, signature: &Signature) -> Vec<String> {
        let mut lines = vec!["end".to_string()];
        if !signature.params.is_empty() {
            let any: Vec<String> = signature.params.iter().map(|p| format!("{p}::Integer")).collect();
            let converted: Vec<String> = signature.params.iter().map(|p| format!("UInt64({p})")).collect();
            lines.push(format!("{}({}) = {}({})", signature.name, any.join(", "), signature.name, converted.join(", ")));
        }
        lines
    }

    fn assign(&self, name: &str, value: &str) -> String {
        format!("{name} = {value}")
    }

    fn if_open(&self, cond: &str) -> String {
        format!("if {cond}")
    }

    fn else_line(&self) -> String {
        "else".to_string()
    }

    fn if_close(&self) -> Option<String> {
        Some("end".to_string())
    }

    fn return_lines(&self, _signature: &Signature, values: &[String]) -> Vec<String> {
        match values {
            [value] => vec![format!("return {value}")],
            values => vec![format!("return ({})", values.join(", "))],
        }
    }

    fn indent(&self) -> &'static str {
        "    "
    }
}
