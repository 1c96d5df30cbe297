//! Fortran 2008: a module of `pure` functions over `integer(int64)` (Fortran has no unsigned integers), so
//! the output is exact while every value stays below 2^63 — which the arithmetic model guarantees. Several
//! results make a `pure subroutine` with `intent(out)` arguments. Free form, lines continued with `&`.

use super::{banner, no_equivalent, ConstantUse, Language, Operand, Rendered, Signature, Target};
use crate::program::{BinOp, LogicOp, Pred, Ty, UnOp};

#[derive(Default)]
pub struct Fortran;

/// Fortran has no reserved words, but a dummy argument named like an intrinsic the output calls would shadow it.
const KEYWORDS: &[&str] = &[
    "mod", "modulo", "merge", "shiftl", "shiftr", "shifta", "iand", "ior", "ieor", "min", "max", "int", "int64",
    "iso_fortran_env", "function", "subroutine", "module", "end", "if", "then", "else", "result", "pure", "contains",
    "implicit", "none", "use", "intrinsic", "only", "private", "public", "integer", "logical", "intent", "in", "out",
    "program", "call", "do", "return", "leadz", "trailz", "popcnt",
];

/// Continuation beyond this many characters (free form allows 132).
const LINE_LIMIT: usize = 100;

fn module_name(source: &str) -> String {
    let stem = std::path::Path::new(source).file_stem().and_then(|s| s.to_str()).unwrap_or("index");
    let mut name: String = stem.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    if name.is_empty() || name == "_stdin_" || name.starts_with("<") {
        name = "index".to_string();
    }
    let name = format!("lego_{name}");
    name.chars().take(63).collect()
}

/// Breaks a long statement at spaces, continuing with `&`.
fn wrap(statement: String) -> String {
    if statement.len() <= LINE_LIMIT {
        return statement;
    }
    let mut lines = Vec::new();
    let mut current = String::new();
    // Never inside a character literal (continuing one needs `&` on both lines): its words stay together.
    let mut words: Vec<String> = Vec::new();
    let mut open = false;
    for word in statement.split(' ') {
        match words.last_mut() {
            Some(last) if open => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
        open ^= word.matches('"').count() % 2 == 1;
    }
    for word in &words {
        let word = word.as_str();
        if !current.is_empty() && current.len() + word.len() + 1 > LINE_LIMIT {
            lines.push(format!("{current} &"));
            current = format!("    {word}");
        } else {
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(word);
        }
    }
    lines.push(current);
    lines.join("\n")
}

impl Target for Fortran {
    fn language(&self) -> Language {
        Language::Fortran
    }

    fn index_type(&self) -> &'static str {
        "integer(int64)"
    }

    fn comment(&self, text: &str) -> String {
        format!("  ! {text}")
    }

    fn bounds_check(&self, _signature: &Signature, cond: &str, index: &str, message: &str) -> Vec<String> {
        // error stop in a pure procedure is Fortran 2018; integer(int64) can be negative, which no index is.
        let message = message.replace('"', "\"\"");
        vec![wrap(format!("if (.not. ({index} >= 0_int64 .and. {cond})) error stop \"{message}\""))]
    }

    fn keywords(&self) -> &'static [&'static str] {
        KEYWORDS
    }

    fn case_insensitive(&self) -> bool {
        true
    }

    fn valid_identifier(&self, name: &str) -> bool {
        // (A result variable named like the function steps aside: `r_`.)
        name.len() <= 63 && name.starts_with(|c: char| c.is_ascii_alphabetic())
    }

    fn constant(&self, value: u64, context: ConstantUse) -> Result<Rendered, String> {
        let signed = value as i64;
        if context == ConstantUse::ShiftAmount && (0..64).contains(&signed) {
            return Ok(Rendered::atom(signed.to_string()));
        }
        if signed < 0 {
            if signed == i64::MIN {
                return Err("does not fit Fortran's integer(int64) (values below 2^63)".to_string());
            }
            return Ok(Rendered::compound(format!("{signed}_int64")));
        }
        Ok(Rendered::atom(format!("{signed}_int64")))
    }

    fn boolean(&self, value: bool) -> Rendered {
        Rendered::atom(if value { ".true." } else { ".false." })
    }

    fn binary(&self, op: BinOp, a: &Operand, b: &Operand) -> Result<Rendered, String> {
        let (x, y) = (a.text(), b.text());
        let (rx, ry) = (&a.rendered.text, &b.rendered.text);
        let infix = |symbol: &str| Ok(Rendered::compound(format!("{x} {symbol} {y}")));
        let call = |name: &str| Ok(Rendered::atom(format!("{name}({rx}, {ry})")));
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul => Ok(super::arithmetic(op, a, b).expect("+, -, *")),
            BinOp::DivU | BinOp::DivS => infix("/"),
            BinOp::RemU | BinOp::RemS => call("mod"),
            BinOp::Shl => call("shiftl"),
            BinOp::ShrU => call("shiftr"),
            BinOp::ShrS => call("shifta"),
            BinOp::And => call("iand"),
            BinOp::Or => call("ior"),
            BinOp::Xor => call("ieor"),
            BinOp::MinU | BinOp::MinS => call("min"),
            BinOp::MaxU | BinOp::MaxS => call("max"),
            BinOp::FloorDivS => Ok(Rendered::compound(format!("({x} - modulo({rx}, {ry})) / {y}"))),
            BinOp::CeilDivU => Ok(Rendered::compound(format!("{x} / {y} + merge(1_int64, 0_int64, mod({rx}, {ry}) /= 0)"))),
            BinOp::CeilDivS => Err(no_equivalent(Language::Fortran, "signed ceil division has no intrinsic")),
        }
    }

    fn compare(&self, pred: Pred, a: &Operand, b: &Operand) -> Result<Rendered, String> {
        let symbol = match pred {
            Pred::Ne => "/=",
            other => other.symbol(),
        };
        Ok(Rendered::compound(format!("{} {symbol} {}", a.text(), b.text())))
    }

    fn logic_symbol(&self, op: LogicOp) -> &'static str {
        match op {
            LogicOp::And => ".and.",
            LogicOp::Or => ".or.",
            LogicOp::Xor => ".neqv.",
        }
    }

    fn unary(&self, op: UnOp, a: &Operand) -> Result<Rendered, String> {
        let function = match op {
            UnOp::Ctlz => "leadz",
            UnOp::Cttz => "trailz",
            UnOp::Ctpop => "popcnt",
        };
        Ok(Rendered::atom(format!("int({function}({}), int64)", a.rendered.text)))
    }

    fn select(&self, cond: &Operand, a: &Operand, b: &Operand) -> Rendered {
        Rendered::atom(format!("merge({}, {}, {})", a.rendered.text, b.rendered.text, cond.rendered.text))
    }

    fn file_open(&self, source: &str, functions: &[Signature]) -> String {
        let names: Vec<&str> = functions.iter().map(|f| f.name.as_str()).collect();
        let public = if names.is_empty() { String::new() } else { wrap(format!("  public :: {}", names.join(", "))) + "\n" };
        format!(
            "! {}\nmodule {}\n  use, intrinsic :: iso_fortran_env, only: int64\n  implicit none\n  private\n{public}contains\n\n",
            banner(source, Language::Fortran),
            module_name(source)
        )
    }

    fn file_close(&self, source: &str, _functions: &[Signature]) -> String {
        format!("end module {}\n", module_name(source))
    }

    fn function_open(&self, signature: &Signature, locals: &[(String, Ty)]) -> Vec<String> {
        let single = signature.results.len() == 1;
        let mut arguments = signature.params.clone();
        if !single {
            arguments.extend(signature.results.iter().cloned());
        }
        let header = if single {
            format!("pure function {}({}) result({})", signature.name, arguments.join(", "), signature.results[0])
        } else {
            format!("pure subroutine {}({})", signature.name, arguments.join(", "))
        };
        let mut lines: Vec<String> = wrap(header).lines().map(|line| format!("  {line}")).collect();
        let mut declare = |text: String| lines.extend(wrap(text).lines().map(|line| format!("    {line}")));
        if !signature.params.is_empty() {
            declare(format!("integer(int64), intent(in) :: {}", signature.params.join(", ")));
        }
        if single {
            declare(format!("integer(int64) :: {}", signature.results[0]));
        } else if !signature.results.is_empty() {
            declare(format!("integer(int64), intent(out) :: {}", signature.results.join(", ")));
        }
        let of = |ty: Ty| locals.iter().filter(move |(_, t)| *t == ty).map(|(name, _)| name.clone()).collect::<Vec<_>>();
        let (indices, booleans) = (of(Ty::Index), of(Ty::Bool));
        if !indices.is_empty() {
            declare(format!("integer(int64) :: {}", indices.join(", ")));
        }
        if !booleans.is_empty() {
            declare(format!("logical :: {}", booleans.join(", ")));
        }
        lines
    }

    fn function_close(&self, signature: &Signature) -> Vec<String> {
        let kind = if signature.results.len() == 1 { "function" } else { "subroutine" };
        vec![format!("  end {kind} {}", signature.name)]
    }

    fn let_statement(&self, name: &str, _ty: Ty, value: &str) -> String {
        wrap(format!("{name} = {value}"))
    }

    fn assign(&self, name: &str, value: &str) -> String {
        wrap(format!("{name} = {value}"))
    }

    fn if_open(&self, cond: &str) -> String {
        wrap(format!("if ({cond}) then"))
    }

    fn else_line(&self) -> String {
        "else".to_string()
    }

    fn if_close(&self) -> Option<String> {
        Some("end if".to_string())
    }

    fn return_lines(&self, signature: &Signature, values: &[String]) -> Vec<String> {
        signature.results.iter().zip(values).map(|(r, v)| wrap(format!("{r} = {v}"))).collect()
    }

    fn indent(&self) -> &'static str {
        "    "
    }
}
