//! Python (plain `int`s, unbounded) and JavaScript (`Number`, exact integers below 2^53). Neither wraps at
//! 2^64, so both read an `index` as the exact integer the arithmetic model says it is (no value wraps); a
//! negative constant (`addi x, -1`) stays negative.

use super::{banner, low_mask, no_equivalent, ConstantUse, Language, Operand, Rendered, Signature, Target};
use crate::program::{BinOp, LogicOp, Pred, Ty, UnOp};

pub struct Python;
pub struct JavaScript;

const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "match", "case", "type", "int", "min",
    "max", "tl", "triton",
];

const JS_KEYWORDS: &[&str] = &[
    "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else", "export",
    "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof", "new", "null", "return",
    "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while", "with", "yield", "let",
    "static", "enum", "await", "implements", "package", "protected", "interface", "private", "public", "arguments",
    "eval", "undefined", "NaN", "Infinity", "Math", "module", "exports", "require",
];

/// JavaScript's exact-integer limit.
const MAX_SAFE: i64 = (1 << 53) - 1;

/// A message as a string literal of Python or JavaScript (the domain's text has no quotes or backslashes;
/// escaped anyway).
fn quoted(message: &str) -> String {
    format!("\"{}\"", message.replace('\\', "\\\\").replace('"', "\\\""))
}

impl Target for Python {
    fn language(&self) -> Language {
        Language::Python
    }

    fn index_type(&self) -> &'static str {
        "int"
    }

    fn comment(&self, text: &str) -> String {
        format!("# {text}")
    }

    fn bounds_check(&self, _signature: &Signature, cond: &str, index: &str, message: &str) -> Vec<String> {
        // Not `assert` (python -O drops it); Python's ints can be negative, which no index is.
        vec![format!("if not ({index} >= 0 and {cond}):"), format!("    raise IndexError({})", quoted(message))]
    }

    fn keywords(&self) -> &'static [&'static str] {
        PYTHON_KEYWORDS
    }

    fn constant(&self, value: u64, _context: ConstantUse) -> Result<Rendered, String> {
        let signed = value as i64;
        Ok(if signed < 0 { Rendered::compound(signed.to_string()) } else { Rendered::atom(signed.to_string()) })
    }

    fn boolean(&self, value: bool) -> Rendered {
        Rendered::atom(if value { "True" } else { "False" })
    }

    fn binary(&self, op: BinOp, a: &Operand, b: &Operand) -> Result<Rendered, String> {
        let (x, y) = (a.text(), b.text());
        let infix = |symbol: &str| Ok(Rendered::compound(format!("{x} {symbol} {y}")));
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul => Ok(super::arithmetic(op, a, b).expect("+, -, *")),
            BinOp::DivU | BinOp::FloorDivS => infix("//"),
            BinOp::RemU => infix("%"),
            BinOp::Shl => infix("<<"),
            BinOp::ShrU | BinOp::ShrS => infix(">>"),
            BinOp::And => infix("&"),
            BinOp::Or => infix("|"),
            BinOp::Xor => infix("^"),
            // Conditional expressions rather than min()/max(), which @triton.jit code does not have.
            BinOp::MinU | BinOp::MinS => Ok(Rendered::compound(format!("{x} if {x} < {y} else {y}"))),
            BinOp::MaxU | BinOp::MaxS => Ok(Rendered::compound(format!("{x} if {x} > {y} else {y}"))),
            BinOp::CeilDivU => Ok(Rendered::compound(format!("({x} + {y} - 1) // {y}"))),
            BinOp::DivS | BinOp::RemS | BinOp::CeilDivS => Err(no_equivalent(
                Language::Python,
                "Python's // and % round toward minus infinity, not toward zero",
            )),
        }
    }

    fn compare(&self, pred: Pred, a: &Operand, b: &Operand) -> Result<Rendered, String> {
        Ok(Rendered::compound(format!("{} {} {}", a.text(), pred.symbol(), b.text())))
    }

    fn logic_symbol(&self, op: LogicOp) -> &'static str {
        match op {
            LogicOp::And => "and",
            LogicOp::Or => "or",
            LogicOp::Xor => "!=",
        }
    }

    fn unary(&self, op: UnOp, a: &Operand) -> Result<Rendered, String> {
        // `5.bit_length()` does not parse: a literal receiver gets parentheses.
        let x = if a.constant().is_some() { format!("({})", a.rendered.text) } else { a.text() };
        Ok(match op {
            UnOp::Ctlz => Rendered::sum(format!("64 - {x}.bit_length()")),
            UnOp::Cttz => Rendered::compound(format!("(({x} & -{x}).bit_length() - 1) if {x} else 64")),
            UnOp::Ctpop => Rendered::atom(format!("bin({x}).count(\"1\")")),
        })
    }

    fn select(&self, cond: &Operand, a: &Operand, b: &Operand) -> Rendered {
        Rendered::compound(format!("{} if {} else {}", a.text(), cond.text(), b.text()))
    }

    fn file_open(&self, source: &str, _functions: &[Signature]) -> String {
        format!("# {}\n\n", banner(source, Language::Python))
    }

    fn function_open(&self, signature: &Signature, _locals: &[(String, Ty)]) -> Vec<String> {
        vec![format!("def {}({}):", signature.name, signature.params.join(", "))]
    }

    fn function_close(&self, _signature: &Signature) -> Vec<String> {
        vec![String::new()]
    }

    fn assign(&self, name: &str, value: &str) -> String {
        format!("{name} = {value}")
    }

    fn if_open(&self, cond: &str) -> String {
        format!("if {cond}:")
    }

    fn else_line(&self) -> String {
        "else:".to_string()
    }

    fn if_close(&self) -> Option<String> {
        None
    }

    fn return_lines(&self, _signature: &Signature, values: &[String]) -> Vec<String> {
        if values.is_empty() {
            return vec!["return".to_string()];
        }
        vec![format!("return {}", values.join(", "))]
    }

    fn indent(&self) -> &'static str {
        "    "
    }
}

fn js_power_of_two(k: u64) -> Result<String, String> {
    if k > 52 {
        return Err(no_equivalent(Language::JavaScript, &format!("2^{k} is beyond Number's exact integers (2^53)")));
    }
    Ok((1u64 << k).to_string())
}

impl Target for JavaScript {
    fn language(&self) -> Language {
        Language::JavaScript
    }

    fn index_type(&self) -> &'static str {
        "Number"
    }

    fn bounds_check(&self, _signature: &Signature, cond: &str, index: &str, message: &str) -> Vec<String> {
        // A Number can be negative or fractional, which no index is.
        vec![format!("if (!(Number.isInteger({index}) && {index} >= 0 && {cond})) throw new RangeError({});", quoted(message))]
    }

    fn keywords(&self) -> &'static [&'static str] {
        JS_KEYWORDS
    }

    fn constant(&self, value: u64, _context: ConstantUse) -> Result<Rendered, String> {
        let signed = value as i64;
        if !(-MAX_SAFE..=MAX_SAFE).contains(&signed) {
            return Err("does not fit JavaScript's Number exactly (integers below 2^53)".to_string());
        }
        Ok(if signed < 0 { Rendered::compound(signed.to_string()) } else { Rendered::atom(signed.to_string()) })
    }

    fn boolean(&self, value: bool) -> Rendered {
        Rendered::atom(value.to_string())
    }

    fn binary(&self, op: BinOp, a: &Operand, b: &Operand) -> Result<Rendered, String> {
        let (x, y) = (a.text(), b.text());
        let (rx, ry) = (&a.rendered.text, &b.rendered.text);
        let infix = |symbol: &str| Ok(Rendered::compound(format!("{x} {symbol} {y}")));
        // `<<`, `>>>`, `&`, `|`, `^` work on 32 bits in JavaScript: shifts by a constant become exact
        // multiplications and divisions, masks 2^k - 1 become remainders.
        let scale = || match b.constant() {
            Some(k) => js_power_of_two(k),
            None => Ok(format!("2 ** {y}")),
        };
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul => Ok(super::arithmetic(op, a, b).expect("+, -, *")),
            BinOp::DivU | BinOp::FloorDivS => Ok(Rendered::atom(format!("Math.floor({x} / {y})"))),
            BinOp::DivS => Ok(Rendered::atom(format!("Math.trunc({x} / {y})"))),
            BinOp::CeilDivU | BinOp::CeilDivS => Ok(Rendered::atom(format!("Math.ceil({x} / {y})"))),
            BinOp::RemU | BinOp::RemS => infix("%"),
            BinOp::Shl => Ok(Rendered::product(format!("{} * {}", a.product_left(), scale()?))),
            BinOp::ShrU | BinOp::ShrS => Ok(Rendered::atom(format!("Math.floor({x} / {})", scale()?))),
            BinOp::And => match (a.constant().and_then(low_mask), b.constant().and_then(low_mask)) {
                (_, Some(bits)) => Ok(Rendered::compound(format!("{x} % {}", js_power_of_two(bits.into())?))),
                (Some(bits), _) => Ok(Rendered::compound(format!("{y} % {}", js_power_of_two(bits.into())?))),
                _ => Ok(Rendered::compound(format!("({x} & {y}) >>> 0"))),
            },
            BinOp::Or => Ok(Rendered::compound(format!("({x} | {y}) >>> 0"))),
            BinOp::Xor => Ok(Rendered::compound(format!("({x} ^ {y}) >>> 0"))),
            BinOp::MinU | BinOp::MinS => Ok(Rendered::atom(format!("Math.min({rx}, {ry})"))),
            BinOp::MaxU | BinOp::MaxS => Ok(Rendered::atom(format!("Math.max({rx}, {ry})"))),
        }
    }

    fn compare(&self, pred: Pred, a: &Operand, b: &Operand) -> Result<Rendered, String> {
        let symbol = match pred {
            Pred::Eq => "===",
            Pred::Ne => "!==",
            other => other.symbol(),
        };
        Ok(Rendered::compound(format!("{} {symbol} {}", a.text(), b.text())))
    }

    fn logic_symbol(&self, op: LogicOp) -> &'static str {
        match op {
            LogicOp::And => "&&",
            LogicOp::Or => "||",
            LogicOp::Xor => "!==",
        }
    }

    fn unary(&self, op: UnOp, a: &Operand) -> Result<Rendered, String> {
        // Exact for the integers a Number holds exactly: the binary digits, counted.
        let x = if a.constant().is_some() { format!("({})", a.rendered.text) } else { a.text() };
        Ok(match op {
            UnOp::Ctlz => Rendered::compound(format!("{x} === 0 ? 64 : 64 - {x}.toString(2).length")),
            UnOp::Cttz => Rendered::compound(format!("{x} === 0 ? 64 : {x}.toString(2).length - 1 - {x}.toString(2).lastIndexOf(\"1\")")),
            UnOp::Ctpop => Rendered::sum(format!("{x}.toString(2).split(\"1\").length - 1")),
        })
    }

    fn select(&self, cond: &Operand, a: &Operand, b: &Operand) -> Rendered {
        Rendered::compound(format!("{} ? {} : {}", cond.text(), a.text(), b.text()))
    }

    fn file_open(&self, source: &str, _functions: &[Signature]) -> String {
        format!("// {}\n\"use strict\";\n\n", banner(source, Language::JavaScript))
    }

    fn file_close(&self, _source: &str, functions: &[Signature]) -> String {
        let names: Vec<&str> = functions.iter().map(|f| f.name.as_str()).collect();
        format!("if (typeof module !== \"undefined\") module.exports = {{ {} }};\n", names.join(", "))
    }

    fn function_open(&self, signature: &Signature, _locals: &[(String, Ty)]) -> Vec<String> {
        vec![format!("function {}({}) {{", signature.name, signature.params.join(", "))]
    }

    fn function_close(&self, _signature: &Signature) -> Vec<String> {
        vec!["}".to_string()]
    }

    fn let_statement(&self, name: &str, _ty: Ty, value: &str) -> String {
        format!("const {name} = {value};")
    }

    fn declare(&self, name: &str, _ty: Ty) -> Option<String> {
        Some(format!("let {name};"))
    }

    fn if_open(&self, cond: &str) -> String {
        format!("if ({cond}) {{")
    }

    fn return_lines(&self, _signature: &Signature, values: &[String]) -> Vec<String> {
        match values {
            [value] => vec![format!("return {value};")],
            values => vec![format!("return [{}];", values.join(", "))],
        }
    }
}
