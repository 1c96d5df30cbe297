//! GLSL and WGSL: 32-bit unsigned integers (`uint` / `u32`), the shading languages' native index type. Their
//! arithmetic wraps at 2^32, so the output equals MLIR's 64-bit result whenever every value stays below 2^32;
//! constants that do not fit, shifts by 32 or more and signed ops are rejected. A negative constant c
//! (`addi x, -1`) becomes 2^32 + c, exact for `+ - *`.

use super::{banner, narrow_constant, no_equivalent, ConstantUse, Language, Operand, Rendered, Signature, Target};
use crate::program::{BinOp, LogicOp, Pred, Ty, UnOp};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shader {
    Glsl,
    Wgsl,
}

const GLSL_KEYWORDS: &[&str] = &[
    "attribute", "const", "uniform", "varying", "buffer", "shared", "coherent", "volatile", "restrict", "readonly",
    "writeonly", "layout", "centroid", "flat", "smooth", "noperspective", "patch", "sample", "break", "continue", "do",
    "for", "while", "switch", "case", "default", "if", "else", "subroutine", "in", "out", "inout", "float", "double",
    "int", "void", "bool", "true", "false", "invariant", "precise", "discard", "return", "uint", "struct", "main",
    "lowp", "mediump", "highp", "precision", "min", "max", "input", "output", "filter", "common", "partition",
    "active", "asm", "class", "union", "enum", "typedef", "template", "this", "goto", "inline", "noinline", "public",
    "static", "extern", "external", "interface", "long", "short", "half", "fixed", "unsigned", "superp", "namespace",
    "using", "sizeof", "cast",
];

const WGSL_KEYWORDS: &[&str] = &[
    "alias", "break", "case", "const", "const_assert", "continue", "continuing", "default", "diagnostic", "discard",
    "else", "enable", "false", "fn", "for", "if", "let", "loop", "override", "requires", "return", "struct", "switch",
    "true", "var", "while", "u32", "i32", "f32", "f16", "bool", "select", "min", "max", "array", "ptr", "vec2", "vec3",
    "vec4", "NULL", "Self", "abstract", "active", "alignas", "alignof", "as", "asm", "async", "attribute", "auto",
    "await", "become", "cast", "catch", "class", "const_cast", "consteval", "constexpr", "constinit", "crate",
    "debugger", "decltype", "delete", "demote", "do", "dynamic_cast", "enum", "explicit", "export", "extends",
    "extern", "external", "fallthrough", "filter", "final", "finally", "friend", "from", "get", "goto", "handle",
    "highp", "impl", "implements", "import", "inline", "instanceof", "interface", "layout", "lowp", "macro", "match",
    "mediump", "meta", "mod", "module", "move", "mut", "noexcept", "noinline", "null", "nullptr", "of", "operator",
    "package", "partition", "pass", "precise", "precision", "priv", "protected", "pub", "public", "readonly", "ref",
    "register", "resource", "restrict", "self", "set", "shared", "sizeof", "smooth", "static", "std", "subroutine",
    "super", "target", "template", "this", "throw", "trait", "try", "type", "typedef", "typeid", "typename", "typeof",
    "union", "unless", "unsafe", "unsized", "use", "using", "varying", "virtual", "volatile", "wgsl", "where", "with",
    "writeonly", "yield", "main",
];

impl Shader {
    fn ty(self, ty: Ty) -> &'static str {
        match ty {
            Ty::Index => self.index_type(),
            Ty::Bool => "bool",
        }
    }

    fn result_struct(signature: &Signature) -> String {
        format!("{}_result", signature.name)
    }
}

impl Target for Shader {
    fn language(&self) -> Language {
        match self {
            Shader::Glsl => Language::Glsl,
            Shader::Wgsl => Language::Wgsl,
        }
    }

    fn index_bits(&self) -> u32 {
        32
    }

    fn index_type(&self) -> &'static str {
        match self {
            Shader::Glsl => "uint",
            Shader::Wgsl => "u32",
        }
    }

    fn bounds_check(&self, signature: &Signature, cond: &str, _index: &str, _message: &str) -> Vec<String> {
        // A shader cannot abort: outside the domain every result is the all-ones "no element" value, which no
        // in-domain call returns except expand_by's padding.
        const NONE: &str = "0xFFFFFFFFu";
        let exit = match (self, signature.results.len()) {
            (_, 1) => format!("return {NONE};"),
            (Shader::Glsl, _) => {
                let outs: Vec<String> = signature.results.iter().map(|r| format!("{r} = {NONE}; ")).collect();
                format!("{}return;", outs.concat())
            }
            (Shader::Wgsl, 0) => "return;".to_string(),
            (Shader::Wgsl, n) => format!("return {}({});", Self::result_struct(signature), vec![NONE; n].join(", ")),
        };
        match self {
            Shader::Glsl => vec![format!("if (!({cond})) {{ {exit} }}")],
            Shader::Wgsl => vec![format!("if !({cond}) {{ {exit} }}")],
        }
    }

    fn keywords(&self) -> &'static [&'static str] {
        match self {
            Shader::Glsl => GLSL_KEYWORDS,
            Shader::Wgsl => WGSL_KEYWORDS,
        }
    }

    fn valid_identifier(&self, name: &str) -> bool {
        match self {
            Shader::Glsl => !name.contains("__") && !name.starts_with("gl_"),
            Shader::Wgsl => !name.starts_with("__") && name != "_",
        }
    }

    fn constant(&self, value: u64, context: ConstantUse) -> Result<Rendered, String> {
        let bits = narrow_constant(value, context, self.language(), self.index_type())?;
        Ok(Rendered::atom(format!("{bits}u")))
    }

    fn boolean(&self, value: bool) -> Rendered {
        Rendered::atom(value.to_string())
    }

    fn binary(&self, op: BinOp, a: &Operand, b: &Operand) -> Result<Rendered, String> {
        let (x, y) = (a.text(), b.text());
        let (rx, ry) = (&a.rendered.text, &b.rendered.text);
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
            BinOp::MinU => Ok(Rendered::atom(format!("min({rx}, {ry})"))),
            BinOp::MaxU => Ok(Rendered::atom(format!("max({rx}, {ry})"))),
            BinOp::CeilDivU => Ok(Rendered::compound(match self {
                Shader::Glsl => format!("{x} / {y} + uint({x} % {y} != 0u)"),
                Shader::Wgsl => format!("{x} / {y} + select(0u, 1u, {x} % {y} != 0u)"),
            })),
            BinOp::DivS | BinOp::RemS | BinOp::FloorDivS | BinOp::CeilDivS | BinOp::ShrS | BinOp::MinS | BinOp::MaxS => {
                Err(no_equivalent(self.language(), "signed operations on the 32-bit unsigned index type are not exact"))
            }
        }
    }

    fn compare(&self, pred: Pred, a: &Operand, b: &Operand) -> Result<Rendered, String> {
        if pred.is_signed() {
            return Err(no_equivalent(self.language(), "signed comparisons of the 32-bit unsigned index type are not exact"));
        }
        Ok(Rendered::compound(format!("{} {} {}", a.text(), pred.symbol(), b.text())))
    }

    fn logic_symbol(&self, op: LogicOp) -> &'static str {
        match (op, self) {
            (LogicOp::And, _) => "&&",
            (LogicOp::Or, _) => "||",
            (LogicOp::Xor, Shader::Glsl) => "^^",
            (LogicOp::Xor, Shader::Wgsl) => "!=",
        }
    }

    fn unary(&self, op: UnOp, a: &Operand) -> Result<Rendered, String> {
        // The 64-bit count of a value below 2^32: 32 more leading zeros; 64 trailing zeros for zero.
        let (x, raw) = (a.text(), &a.rendered.text);
        Ok(match (self, op) {
            (Shader::Glsl, UnOp::Ctlz) => Rendered::sum(format!("uint(31 - findMSB({raw})) + 32u")),
            (Shader::Glsl, UnOp::Cttz) => Rendered::compound(format!("{x} == 0u ? 64u : uint(findLSB({raw}))")),
            (Shader::Glsl, UnOp::Ctpop) => Rendered::atom(format!("uint(bitCount({raw}))")),
            (Shader::Wgsl, UnOp::Ctlz) => Rendered::sum(format!("countLeadingZeros({raw}) + 32u")),
            (Shader::Wgsl, UnOp::Cttz) => Rendered::atom(format!("select(countTrailingZeros({raw}), 64u, {x} == 0u)")),
            (Shader::Wgsl, UnOp::Ctpop) => Rendered::atom(format!("countOneBits({raw})")),
        })
    }

    fn select(&self, cond: &Operand, a: &Operand, b: &Operand) -> Rendered {
        match self {
            Shader::Glsl => Rendered::compound(format!("{} ? {} : {}", cond.text(), a.text(), b.text())),
            Shader::Wgsl => Rendered::atom(format!("select({}, {}, {})", b.rendered.text, a.rendered.text, cond.rendered.text)),
        }
    }

    fn file_open(&self, source: &str, _functions: &[Signature]) -> String {
        format!("// {}\n\n", banner(source, self.language()))
    }

    fn function_open(&self, signature: &Signature, _locals: &[(String, Ty)]) -> Vec<String> {
        let single = signature.results.len() == 1;
        match self {
            Shader::Glsl => {
                let mut params: Vec<String> = signature.params.iter().map(|p| format!("uint {p}")).collect();
                if !single {
                    params.extend(signature.results.iter().map(|r| format!("out uint {r}")));
                }
                let returns = if single { "uint" } else { "void" };
                vec![format!("{returns} {}({}) {{", signature.name, params.join(", "))]
            }
            Shader::Wgsl => {
                let params: Vec<String> = signature.params.iter().map(|p| format!("{p}: u32")).collect();
                let mut lines = Vec::new();
                let returns = if single {
                    " -> u32".to_string()
                } else if signature.results.is_empty() {
                    String::new()
                } else {
                    let fields: Vec<String> = signature.results.iter().map(|r| format!("{r}: u32")).collect();
                    lines.push(format!("struct {} {{ {} }}", Self::result_struct(signature), fields.join(", ")));
                    lines.push(String::new());
                    format!(" -> {}", Self::result_struct(signature))
                };
                lines.push(format!("fn {}({}){returns} {{", signature.name, params.join(", ")));
                lines
            }
        }
    }

    fn function_close(&self, _signature: &Signature) -> Vec<String> {
        vec!["}".to_string()]
    }

    fn let_statement(&self, name: &str, ty: Ty, value: &str) -> String {
        match self {
            Shader::Glsl => format!("{} {name} = {value};", self.ty(ty)),
            Shader::Wgsl => format!("let {name}: {} = {value};", self.ty(ty)),
        }
    }

    fn declare(&self, name: &str, ty: Ty) -> Option<String> {
        Some(match self {
            Shader::Glsl => format!("{} {name};", self.ty(ty)),
            Shader::Wgsl => format!("var {name}: {};", self.ty(ty)),
        })
    }

    fn if_open(&self, cond: &str) -> String {
        match self {
            Shader::Glsl => format!("if ({cond}) {{"),
            Shader::Wgsl => format!("if {cond} {{"),
        }
    }

    fn return_lines(&self, signature: &Signature, values: &[String]) -> Vec<String> {
        match (self, values) {
            (_, [value]) => vec![format!("return {value};")],
            (Shader::Glsl, values) => signature.results.iter().zip(values).map(|(r, v)| format!("{r} = {v};")).collect(),
            (Shader::Wgsl, []) => vec!["return;".to_string()],
            (Shader::Wgsl, values) => vec![format!("return {}({});", Self::result_struct(signature), values.join(", "))],
        }
    }
}
