//! C, C++ and CUDA C: 64-bit unsigned integers, so every `arith` op on `index` is exact (MLIR's `index` is
//! 64-bit two's complement; signed ops go through the signed type of the same width). With
//! `--index-bitwidth=32` the index type is 32-bit unsigned and the rules are the shading languages'
//! ([`super::narrow_constant`]): exact while every value stays below 2^32, signed ops rejected.

use super::{banner, compare_as, narrow_constant, no_equivalent, ConstantUse, Language, Operand, Rendered, Signature, Target};
use crate::program::{BinOp, Pred, Ty, UnOp};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CFamily {
    C,
    Cpp,
    Cuda,
}

/// A C-family printer: the language, whether the index is 32-bit, whether domain checks are printed.
#[derive(Debug, Clone, Copy)]
pub struct CTarget {
    pub family: CFamily,
    pub narrow: bool,
    pub asserts: bool,
}

const C_KEYWORDS: &[&str] = &[
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern", "float",
    "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed", "sizeof",
    "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool", "bool",
    "true", "false", "main", "uint64_t", "int64_t", "asm", "catch", "class", "constexpr", "delete", "explicit",
    "friend", "mutable", "namespace", "new", "operator", "private", "protected", "public", "template", "this",
    "throw", "try", "typename", "using", "virtual", "nullptr", "decltype", "noexcept", "static_assert", "and", "or",
    "not", "xor", "std", "min", "max", "lego_ctlz", "lego_cttz", "lego_ctpop", "uint32_t", "int32_t", "assert",
];

impl CTarget {
    fn unsigned(self) -> &'static str {
        match (self.family, self.narrow) {
            (CFamily::C, false) => "uint64_t",
            (CFamily::Cpp, false) => "std::uint64_t",
            (CFamily::Cuda, false) => "unsigned long long",
            (CFamily::C, true) => "uint32_t",
            (CFamily::Cpp, true) => "std::uint32_t",
            (CFamily::Cuda, true) => "unsigned int",
        }
    }

    fn signed(self) -> &'static str {
        match self.family {
            CFamily::C => "int64_t",
            CFamily::Cpp => "std::int64_t",
            CFamily::Cuda => "long long",
        }
    }

    fn bool_type(self) -> &'static str {
        match self.family {
            CFamily::C => "int",
            _ => "bool",
        }
    }

    fn ty(self, ty: Ty) -> &'static str {
        match ty {
            Ty::Index => self.unsigned(),
            Ty::Bool => self.bool_type(),
        }
    }

    fn as_signed(self, a: &Operand) -> String {
        format!("({}){}", self.signed(), a.text())
    }

    fn to_unsigned(self, text: String) -> Rendered {
        Rendered::compound(format!("({})({text})", self.unsigned()))
    }

    fn qualifiers(self) -> &'static str {
        match self.family {
            CFamily::C => "static inline",
            CFamily::Cpp => "inline",
            CFamily::Cuda => "__host__ __device__ inline",
        }
    }
}

impl Target for CTarget {
    fn language(&self) -> Language {
        match self.family {
            CFamily::C => Language::C,
            CFamily::Cpp => Language::Cpp,
            CFamily::Cuda => Language::Cuda,
        }
    }

    fn index_bits(&self) -> u32 {
        if self.narrow {
            32
        } else {
            64
        }
    }

    fn index_type(&self) -> &'static str {
        self.unsigned()
    }

    fn comment(&self, text: &str) -> String {
        match self.family {
            CFamily::C => format!("/* {text} */"),
            _ => format!("// {text}"),
        }
    }

    fn bounds_check(&self, _signature: &Signature, cond: &str, _index: &str, message: &str) -> Vec<String> {
        // assert() prints the condition with the file, line and function (and the message, as a string
        // literal that is always true); CUDA's device assert traps the kernel. NDEBUG removes it.
        vec![format!("assert({cond} && \"{message}\");")]
    }

    fn keywords(&self) -> &'static [&'static str] {
        C_KEYWORDS
    }

    fn valid_identifier(&self, name: &str) -> bool {
        // Reserved for the implementation in C and C++.
        !name.contains("__") && !(name.starts_with('_') && name.chars().nth(1).is_some_and(|c| c.is_ascii_uppercase()))
    }

    fn constant(&self, value: u64, context: ConstantUse) -> Result<Rendered, String> {
        if self.narrow {
            let bits = narrow_constant(value, context, self.language(), self.unsigned())?;
            return Ok(Rendered::atom(format!("{bits}u")));
        }
        Ok(if context == ConstantUse::Typed || value > i32::MAX as u64 {
            Rendered::atom(format!("{value}ull"))
        } else {
            Rendered::atom(value.to_string())
        })
    }

    fn boolean(&self, value: bool) -> Rendered {
        match self.family {
            CFamily::C => Rendered::atom(if value { "1" } else { "0" }),
            _ => Rendered::atom(if value { "true" } else { "false" }),
        }
    }

    fn binary(&self, op: BinOp, a: &Operand, b: &Operand) -> Result<Rendered, String> {
        let (x, y) = (a.text(), b.text());
        let infix = |symbol: &str| Ok(Rendered::compound(format!("{x} {symbol} {y}")));
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul => Ok(super::arithmetic(op, a, b).expect("+, -, *")),
            BinOp::DivU => infix("/"),
            BinOp::RemU => infix("%"),
            BinOp::Shl => infix("<<"),
            BinOp::ShrU => infix(">>"),
            BinOp::And => infix("&"),
            BinOp::Or => infix("|"),
            BinOp::Xor => infix("^"),
            BinOp::CeilDivU => Ok(Rendered::compound(format!("{x} / {y} + ({x} % {y} != 0)"))),
            BinOp::DivS | BinOp::RemS | BinOp::ShrS | BinOp::MinS | BinOp::MaxS if self.narrow => {
                Err(no_equivalent(self.language(), "signed operations on the 32-bit unsigned index type are not exact"))
            }
            BinOp::MinU => Ok(Rendered::compound(format!("{x} < {y} ? {x} : {y}"))),
            BinOp::MaxU => Ok(Rendered::compound(format!("{x} > {y} ? {x} : {y}"))),
            BinOp::DivS => Ok(self.to_unsigned(format!("{} / {}", self.as_signed(a), self.as_signed(b)))),
            BinOp::RemS => Ok(self.to_unsigned(format!("{} % {}", self.as_signed(a), self.as_signed(b)))),
            BinOp::ShrS => Ok(self.to_unsigned(format!("{} >> {y}", self.as_signed(a)))),
            BinOp::MinS => Ok(Rendered::compound(format!("{} < {} ? {x} : {y}", self.as_signed(a), self.as_signed(b)))),
            BinOp::MaxS => Ok(Rendered::compound(format!("{} > {} ? {x} : {y}", self.as_signed(a), self.as_signed(b)))),
            BinOp::FloorDivS | BinOp::CeilDivS => {
                Err(no_equivalent(self.language(), "signed floor/ceil division has no operator; use divsi or the unsigned ops"))
            }
        }
    }

    fn compare(&self, pred: Pred, a: &Operand, b: &Operand) -> Result<Rendered, String> {
        if self.narrow && pred.is_signed() {
            return Err(no_equivalent(self.language(), "signed comparisons of the 32-bit unsigned index type are not exact"));
        }
        Ok(compare_as(pred, a, b, |x| self.as_signed(x)))
    }

    fn unary(&self, op: UnOp, a: &Operand) -> Result<Rendered, String> {
        let x = &a.rendered.text;
        if self.narrow {
            // The 64-bit count of a value below 2^32 (as in the shading languages): 32 more leading zeros, 64
            // for zero.
            return Ok(match (self.family, op) {
                (CFamily::Cuda, _) => Rendered::atom(format!("lego_{}({x})", cuda_helper(op))),
                (_, UnOp::Ctlz) => Rendered::compound(format!("{} == 0 ? 64u : __builtin_clz({x}) + 32u", a.text())),
                (_, UnOp::Cttz) => Rendered::compound(format!("{} == 0 ? 64u : __builtin_ctz({x})", a.text())),
                (_, UnOp::Ctpop) => Rendered::atom(format!("__builtin_popcount({x})")),
            });
        }
        Ok(match self.family {
            // CUDA's device intrinsics differ from the host builtins: small helpers (prelude) pick per side.
            CFamily::Cuda => Rendered::atom(format!("lego_{}({x})", cuda_helper(op))),
            _ => Rendered::compound(match op {
                UnOp::Ctlz => format!("{} == 0 ? 64 : __builtin_clzll({x})", a.text()),
                UnOp::Cttz => format!("{} == 0 ? 64 : __builtin_ctzll({x})", a.text()),
                UnOp::Ctpop => return Ok(Rendered::atom(format!("__builtin_popcountll({x})"))),
            }),
        })
    }

    fn prelude(&self, used: &std::collections::BTreeSet<UnOp>) -> String {
        if self.family != CFamily::Cuda {
            return String::new();
        }
        let mut text = String::new();
        for op in used {
            let (device, host) = match (op, self.narrow) {
                (UnOp::Ctlz, false) => ("__clzll((long long)x)", "x == 0 ? 64 : __builtin_clzll(x)"),
                (UnOp::Cttz, false) => ("x == 0 ? 64 : __ffsll((long long)x) - 1", "x == 0 ? 64 : __builtin_ctzll(x)"),
                (UnOp::Ctpop, false) => ("__popcll(x)", "__builtin_popcountll(x)"),
                (UnOp::Ctlz, true) => ("__clz((int)x) + 32", "x == 0 ? 64 : __builtin_clz(x) + 32"),
                (UnOp::Cttz, true) => ("x == 0 ? 64 : __ffs((int)x) - 1", "x == 0 ? 64 : __builtin_ctz(x)"),
                (UnOp::Ctpop, true) => ("__popc(x)", "__builtin_popcount(x)"),
            };
            let unsigned = self.unsigned();
            text.push_str(&format!(
                "__host__ __device__ inline {unsigned} lego_{}({unsigned} x) {{\n#ifdef __CUDA_ARCH__\n  return {device};\n#else\n  return {host};\n#endif\n}}\n\n",
                cuda_helper(*op)
            ));
        }
        text
    }

    fn select(&self, cond: &Operand, a: &Operand, b: &Operand) -> Rendered {
        Rendered::compound(format!("{} ? {} : {}", cond.text(), a.text(), b.text()))
    }

    fn file_open(&self, source: &str, _functions: &[Signature]) -> String {
        let banner = banner(source, self.language());
        let asserts = |header: &str| if self.asserts { format!("#include <{header}>\n") } else { String::new() };
        match self.family {
            CFamily::C => format!("/* {banner} */\n{}#include <stdint.h>\n\n", asserts("assert.h")),
            CFamily::Cpp => format!("// {banner}\n{}#include <cstdint>\n#include <tuple>\n\n", asserts("cassert")),
            CFamily::Cuda => format!("// {banner}\n{}\n", asserts("assert.h")),
        }
    }

    fn function_open(&self, signature: &Signature, _locals: &[(String, Ty)]) -> Vec<String> {
        let unsigned = self.unsigned();
        let mut params: Vec<String> = signature.params.iter().map(|p| format!("{unsigned} {p}")).collect();
        let returns = match (self.family, signature.results.len()) {
            (_, 1) => unsigned.to_string(),
            (CFamily::Cpp, n) => format!("std::tuple<{}>", vec![unsigned; n].join(", ")),
            (CFamily::C, _) => {
                params.extend(signature.results.iter().map(|r| format!("{unsigned} *restrict {r}")));
                "void".to_string()
            }
            (CFamily::Cuda, _) => {
                params.extend(signature.results.iter().map(|r| format!("{unsigned} &{r}")));
                "void".to_string()
            }
        };
        let params = if params.is_empty() && self.family == CFamily::C { "void".to_string() } else { params.join(", ") };
        vec![format!("{} {returns} {}({params}) {{", self.qualifiers(), signature.name)]
    }

    fn function_close(&self, _signature: &Signature) -> Vec<String> {
        vec!["}".to_string()]
    }

    fn let_statement(&self, name: &str, ty: Ty, value: &str) -> String {
        format!("const {} {name} = {value};", self.ty(ty))
    }

    fn declare(&self, name: &str, ty: Ty) -> Option<String> {
        Some(format!("{} {name};", self.ty(ty)))
    }

    fn if_open(&self, cond: &str) -> String {
        format!("if ({cond}) {{")
    }

    fn return_lines(&self, signature: &Signature, values: &[String]) -> Vec<String> {
        match (self.family, values) {
            (_, [value]) => vec![format!("return {value};")],
            (CFamily::Cpp, values) => vec![format!("return {{{}}};", values.join(", "))],
            (CFamily::C, values) => signature.results.iter().zip(values).map(|(r, v)| format!("*{r} = {v};")).collect(),
            (CFamily::Cuda, values) => signature.results.iter().zip(values).map(|(r, v)| format!("{r} = {v};")).collect(),
        }
    }
}

fn cuda_helper(op: UnOp) -> &'static str {
    match op {
        UnOp::Ctlz => "ctlz",
        UnOp::Cttz => "cttz",
        UnOp::Ctpop => "ctpop",
    }
}
