//! Emitting layouts as lego-dialect MLIR text (the custom syntax of docs/reference/syntax.md), for differential tests
//! of the lowering against [`Layout::apply`] / [`Layout::apply_inverse`].
//!
//! `gen_p` bodies are built as [`ArithBody`] programs first and printed from there, so the exact
//! arithmetic that ends up in the MLIR text can also be evaluated in Rust ([`ArithBody::eval`]) and tested
//! against the reference maps.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::error::{AlgebraError, Result};
use crate::genfn::{bit_length, GenFn};
use crate::layout::{Dim, Layout, LayoutNode};

/// A value of an [`ArithBody`]: block arguments are `0..num_args`, then one value per op, in order.
pub type ValueId = usize;

/// One `arith` op on `index` values (comparisons produce an `i1`, consumed only by `Select`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    Const(u64),
    Add(ValueId, ValueId),
    Sub(ValueId, ValueId),
    Mul(ValueId, ValueId),
    DivU(ValueId, ValueId),
    RemU(ValueId, ValueId),
    /// `arith.cmpi ult`
    CmpUlt(ValueId, ValueId),
    /// `arith.cmpi ule`
    CmpUle(ValueId, ValueId),
    /// `arith.select cond, then, else`
    Select(ValueId, ValueId, ValueId),
}

/// A straight-line `arith` program: the body of one `gen_p` region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArithBody {
    pub num_args: usize,
    pub ops: Vec<ArithOp>,
    pub results: Vec<ValueId>,
}

impl ArithBody {
    /// Evaluates the program with MLIR's semantics for 64-bit `index`: wrapping `addi`/`subi`/`muli`,
    /// unsigned division (an error on a zero divisor, which is undefined behaviour in MLIR).
    pub fn eval(&self, args: &[u64]) -> Result<Vec<u64>> {
        if args.len() != self.num_args {
            return Err(AlgebraError::IndexCount { found: args.len(), rank: self.num_args });
        }
        let mut values = args.to_vec();
        for op in &self.ops {
            let v = |id: ValueId| values[id];
            let result = match *op {
                ArithOp::Const(c) => c,
                ArithOp::Add(a, b) => v(a).wrapping_add(v(b)),
                ArithOp::Sub(a, b) => v(a).wrapping_sub(v(b)),
                ArithOp::Mul(a, b) => v(a).wrapping_mul(v(b)),
                ArithOp::DivU(a, b) => v(a).checked_div(v(b)).ok_or(AlgebraError::DivisionByZero)?,
                ArithOp::RemU(a, b) => v(a).checked_rem(v(b)).ok_or(AlgebraError::DivisionByZero)?,
                ArithOp::CmpUlt(a, b) => u64::from(v(a) < v(b)),
                ArithOp::CmpUle(a, b) => u64::from(v(a) <= v(b)),
                ArithOp::Select(c, a, b) => {
                    if v(c) != 0 {
                        v(a)
                    } else {
                        v(b)
                    }
                }
            };
            values.push(result);
        }
        Ok(self.results.iter().map(|&r| values[r]).collect())
    }

    /// Prints the body's ops and its `lego.yield`, one line each, naming argument `k` `arg_names[k]` and
    /// op results `%{prefix}{index}`.
    fn print(&self, arg_names: &[String], prefix: &str, indent: &str) -> Vec<String> {
        let mut names: Vec<String> = arg_names.to_vec();
        let mut lines = Vec::with_capacity(self.ops.len() + 1);
        for (k, op) in self.ops.iter().enumerate() {
            let name = format!("%{prefix}{k}");
            let n = |id: ValueId| names[id].as_str();
            let text = match *op {
                ArithOp::Const(c) => format!("arith.constant {c} : index"),
                ArithOp::Add(a, b) => format!("arith.addi {}, {} : index", n(a), n(b)),
                ArithOp::Sub(a, b) => format!("arith.subi {}, {} : index", n(a), n(b)),
                ArithOp::Mul(a, b) => format!("arith.muli {}, {} : index", n(a), n(b)),
                ArithOp::DivU(a, b) => format!("arith.divui {}, {} : index", n(a), n(b)),
                ArithOp::RemU(a, b) => format!("arith.remui {}, {} : index", n(a), n(b)),
                ArithOp::CmpUlt(a, b) => format!("arith.cmpi ult, {}, {} : index", n(a), n(b)),
                ArithOp::CmpUle(a, b) => format!("arith.cmpi ule, {}, {} : index", n(a), n(b)),
                ArithOp::Select(c, a, b) => format!("arith.select {}, {}, {} : index", n(c), n(a), n(b)),
            };
            lines.push(format!("{indent}{name} = {text}"));
            names.push(name);
        }
        let yielded: Vec<&str> = self.results.iter().map(|&r| names[r].as_str()).collect();
        let types = vec!["index"; yielded.len()].join(", ");
        lines.push(format!("{indent}lego.yield {} : {types}", yielded.join(", ")));
        lines
    }
}

/// Builds an [`ArithBody`], sharing equal constants.
struct BodyBuilder {
    num_args: usize,
    ops: Vec<ArithOp>,
    constants: HashMap<u64, ValueId>,
}

impl BodyBuilder {
    fn new(num_args: usize) -> Self {
        BodyBuilder { num_args, ops: Vec::new(), constants: HashMap::new() }
    }

    fn push(&mut self, op: ArithOp) -> ValueId {
        self.ops.push(op);
        self.num_args + self.ops.len() - 1
    }

    fn c(&mut self, value: u64) -> ValueId {
        if let Some(&id) = self.constants.get(&value) {
            return id;
        }
        let id = self.push(ArithOp::Const(value));
        self.constants.insert(value, id);
        id
    }

    fn add(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.push(ArithOp::Add(a, b))
    }
    fn sub(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.push(ArithOp::Sub(a, b))
    }
    fn mul(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.push(ArithOp::Mul(a, b))
    }
    fn div(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.push(ArithOp::DivU(a, b))
    }
    fn rem(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.push(ArithOp::RemU(a, b))
    }
    fn ult(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.push(ArithOp::CmpUlt(a, b))
    }
    fn ule(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.push(ArithOp::CmpUle(a, b))
    }
    fn select(&mut self, c: ValueId, a: ValueId, b: ValueId) -> ValueId {
        self.push(ArithOp::Select(c, a, b))
    }

    /// `floor(sqrt(v))` for `v < 4^bits`, digit by digit from the top bit: keep each bit whose inclusion
    /// leaves the square ≤ v. Exact, loop-free, `4·bits` ops.
    fn isqrt(&mut self, v: ValueId, bits: u32) -> ValueId {
        let mut root = self.c(0);
        for b in (0..bits).rev() {
            let bit = self.c(1 << b);
            let candidate = self.add(root, bit);
            let square = self.mul(candidate, candidate);
            let fits = self.ule(square, v);
            root = self.select(fits, candidate, root);
        }
        root
    }

    fn finish(self, results: Vec<ValueId>) -> ArithBody {
        ArithBody { num_args: self.num_args, ops: self.ops, results }
    }
}

/// The `apply` region of a named `gen_p` map; `Unsupported` for `Custom`.
pub fn apply_body(gen: &GenFn) -> Result<ArithBody> {
    match *gen {
        GenFn::Rev { n1, n2 } => {
            // (n1-1-i)·n2 + (n2-1-j)
            let mut b = BodyBuilder::new(2);
            let (i, j) = (0, 1);
            let n1m1 = b.c(n1 - 1);
            let row = b.sub(n1m1, i);
            let n2c = b.c(n2);
            let scaled = b.mul(row, n2c);
            let n2m1 = b.c(n2 - 1);
            let col = b.sub(n2m1, j);
            let f = b.add(scaled, col);
            Ok(b.finish(vec![f]))
        }
        GenFn::Antidiag { n } => {
            // a = i+j+1; a ≤ n ? i + a(a-1)/2 : n·n - n + i - a'(a'-1)/2 with a' = 2n - a.
            // Both branches are computed and selected; the unused one may wrap, which is harmless.
            let mut b = BodyBuilder::new(2);
            let (i, j) = (0, 1);
            let one = b.c(1);
            let two = b.c(2);
            let ij = b.add(i, j);
            let a = b.add(ij, one);
            let am1 = b.sub(a, one);
            let t = b.mul(a, am1);
            let tri = b.div(t, two);
            let upper = b.add(i, tri);
            let two_n = b.c(2 * n);
            let a2 = b.sub(two_n, a);
            let a2m1 = b.sub(a2, one);
            let t2 = b.mul(a2, a2m1);
            let tri2 = b.div(t2, two);
            let base = b.c(n * n - n);
            let base_i = b.add(base, i);
            let lower = b.sub(base_i, tri2);
            let nc = b.c(n);
            let is_upper = b.ule(a, nc);
            let f = b.select(is_upper, upper, lower);
            Ok(b.finish(vec![f]))
        }
        GenFn::Custom { .. } => Err(AlgebraError::Unsupported(format!("gen_p {gen}"))),
    }
}

/// The `inv` region of a named `gen_p` map; `Unsupported` for `Custom` (with or without an inverse).
pub fn inverse_body(gen: &GenFn) -> Result<ArithBody> {
    match *gen {
        GenFn::Rev { n1, n2 } => {
            // (n1-1 - x div n2, n2-1 - x mod n2)
            let mut b = BodyBuilder::new(1);
            let x = 0;
            let n2c = b.c(n2);
            let q = b.div(x, n2c);
            let r = b.rem(x, n2c);
            let n1m1 = b.c(n1 - 1);
            let i = b.sub(n1m1, q);
            let n2m1 = b.c(n2 - 1);
            let j = b.sub(n2m1, r);
            Ok(b.finish(vec![i, j]))
        }
        GenFn::Antidiag { n } => {
            // See genfn::antidiag_inverse: z = x in the upper triangle, n·n-1-x in the lower one;
            // a = (isqrt(8z+1)+1) div 2; d = z - a(a-1)/2; upper: (d, a-1-d); lower: (n-1-d, n-a+d).
            let mut b = BodyBuilder::new(1);
            let x = 0;
            let one = b.c(1);
            let two = b.c(2);
            let eight = b.c(8);
            let half = b.c(n * (n + 1) / 2);
            let is_upper = b.ult(x, half);
            let last = b.c(n * n - 1);
            let mirrored = b.sub(last, x);
            let z = b.select(is_upper, x, mirrored);
            let z8 = b.mul(z, eight);
            let v = b.add(z8, one);
            // z < n(n+1)/2 gives 8z+1 < (2n+1)², so the root is at most 2n.
            let root = b.isqrt(v, bit_length(2 * n));
            let root1 = b.add(root, one);
            let a = b.div(root1, two);
            let am1 = b.sub(a, one);
            let t = b.mul(a, am1);
            let tri = b.div(t, two);
            let d = b.sub(z, tri);
            let j_upper = b.sub(am1, d);
            let nm1 = b.c(n - 1);
            let i_lower = b.sub(nm1, d);
            let nc = b.c(n);
            let n_minus_a = b.sub(nc, a);
            let j_lower = b.add(n_minus_a, d);
            let i = b.select(is_upper, d, i_lower);
            let j = b.select(is_upper, j_upper, j_lower);
            Ok(b.finish(vec![i, j]))
        }
        GenFn::Custom { .. } => Err(AlgebraError::Unsupported(format!("gen_p {gen}"))),
    }
}

/// One emitted `func.func`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmittedFunc {
    /// The symbol name (without `@`).
    pub name: String,
    /// The function's text, ending in a newline.
    pub text: String,
    /// The values to pass for the trailing `%s0, %s1, …` arguments, in order (equal to
    /// [`Layout::symbolic_sizes`]).
    pub symbolic_sizes: Vec<u64>,
}

/// `func.func @NAME(%i0: index, …, %s0: index, …) -> index` that builds `layout` with lego ops and
/// returns `lego.apply %l(%i0, …)`. The `%iK` are the logical indices, the `%sK` the symbolic sizes.
pub fn emit_apply_func(layout: &Layout, name: &str) -> Result<EmittedFunc> {
    check_symbol(name)?;
    let mut e = Emitter::default();
    let l = e.layout(layout)?;
    let indices: Vec<String> = (0..layout.rank()).map(|k| format!("%i{k}")).collect();
    e.line(format!("%r = lego.apply {l}({}) : !lego.layout", indices.join(", ")));
    e.line("return %r : index".to_string());
    let params: Vec<String> = indices.iter().map(|i| format!("{i}: index")).collect();
    Ok(e.finish(name, params, "index".to_string()))
}

/// `func.func @NAME(%x: index, %s0: index, …) -> (index, …)` that builds `layout` and returns
/// `lego.apply_inverse %l(%x)`. Errors when the layout is not invertible.
pub fn emit_apply_inverse_func(layout: &Layout, name: &str) -> Result<EmittedFunc> {
    check_symbol(name)?;
    if !layout.is_invertible() {
        return Err(AlgebraError::NotInvertible(layout.to_string()));
    }
    let mut e = Emitter::default();
    let l = e.layout(layout)?;
    let results: Vec<String> = (0..layout.rank()).map(|k| format!("%r{k}")).collect();
    let types = vec!["index"; layout.rank()].join(", ");
    e.line(format!("{} = lego.apply_inverse {l}(%x) : !lego.layout -> {types}", results.join(", ")));
    e.line(format!("return {} : {types}", results.join(", ")));
    let result_type = if layout.rank() == 1 { types } else { format!("({types})") };
    Ok(e.finish(name, vec!["%x: index".to_string()], result_type))
}

/// A `module` holding `@apply_BASE` and, when the layout is invertible, `@apply_inverse_BASE`.
pub fn emit_module(layout: &Layout, base: &str) -> Result<String> {
    let mut funcs = vec![emit_apply_func(layout, &format!("apply_{base}"))?];
    if layout.is_invertible() {
        funcs.push(emit_apply_inverse_func(layout, &format!("apply_inverse_{base}"))?);
    }
    let mut text = String::from("module {\n");
    for line in funcs.iter().flat_map(|f| f.text.lines()) {
        let _ = writeln!(text, "{INDENT}{line}");
    }
    text.push_str("}\n");
    Ok(text)
}

/// Symbol names are emitted unquoted, so keep them to MLIR's bare-identifier characters.
fn check_symbol(name: &str) -> Result<()> {
    let mut chars = name.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'));
    if valid {
        Ok(())
    } else {
        Err(AlgebraError::Unsupported(format!("the function name {name:?}")))
    }
}

const INDENT: &str = "  ";

#[derive(Default)]
struct Emitter {
    lines: Vec<String>,
    next_layout: usize,
    symbolic: Vec<u64>,
}

impl Emitter {
    fn line(&mut self, text: String) {
        self.lines.push(format!("{INDENT}{text}"));
    }

    /// A size list; symbolic entries become fresh `%sK` function arguments, in the order printed.
    fn dims(&mut self, dims: &[Dim]) -> String {
        let entries: Vec<String> = dims
            .iter()
            .map(|d| {
                if d.symbolic {
                    self.symbolic.push(d.value);
                    format!("%s{}", self.symbolic.len() - 1)
                } else {
                    d.value.to_string()
                }
            })
            .collect();
        format!("[{}]", entries.join(", "))
    }

    /// Emits the ops building `layout` (sub-layouts first) and returns the SSA name of the result.
    fn layout(&mut self, layout: &Layout) -> Result<String> {
        let children = layout.children().into_iter().map(|c| self.layout(c)).collect::<Result<Vec<_>>>()?;
        let name = format!("%l{}", self.next_layout);
        self.next_layout += 1;
        let op = match layout.node() {
            LayoutNode::Row { dims } => format!("lego.row {}", self.dims(dims)),
            LayoutNode::Col { dims } => format!("lego.col {}", self.dims(dims)),
            LayoutNode::RegP { perm, dims } => {
                let perm: Vec<String> = perm.iter().map(usize::to_string).collect();
                format!("lego.reg_p perm [{}] dims {}", perm.join(", "), self.dims(dims))
            }
            LayoutNode::GenP { dims, gen } => {
                let dims = self.dims(dims);
                return self.gen_p(&name, &dims, gen, layout.rank());
            }
            LayoutNode::OrderBy { .. } => format!("lego.order_by({})", children.join(", ")),
            LayoutNode::GroupBy { dims, .. } => format!("lego.group_by {}({})", self.dims(dims), children.join(", ")),
            LayoutNode::TileBy { tile_dims, .. } => {
                let levels: Vec<String> = tile_dims.iter().map(|level| self.dims(level)).collect();
                format!("lego.tile_by {} tile_dims [{}]", children[0], levels.join(", "))
            }
            LayoutNode::ExpandBy { dims, to, .. } => {
                let dims = self.dims(dims);
                let to = self.dims(to);
                format!("lego.expand_by {} dims {dims} to {to}", children[0])
            }
            LayoutNode::Swizzle { bits, base, shift, dims } => {
                format!("lego.swizzle bits {bits} base {base} shift {shift} dims {}", self.dims(dims))
            }
            LayoutNode::Compose { .. } => format!("lego.compose {}, {}", children[0], children[1]),
            LayoutNode::Inverse { .. } => format!("lego.inverse {}", children[0]),
            LayoutNode::Strided { modes } => {
                let (shape, stride) = crate::layout::strided_text(modes);
                format!("lego.strided shape {shape} stride {stride}")
            }
        };
        self.line(format!("{name} = {op} : !lego.layout"));
        Ok(name)
    }

    /// A `gen_p` with both regions; body values are prefixed with the layout's name so that they are
    /// unique in the function (MLIR rejects redefining a name visible from an enclosing region).
    fn gen_p(&mut self, name: &str, dims: &str, gen: &GenFn, rank: usize) -> Result<String> {
        let stem = &name[1..];
        let apply = apply_body(gen)?;
        let args: Vec<String> = (0..rank).map(|k| format!("%{stem}_a{k}")).collect();
        let params: Vec<String> = args.iter().map(|a| format!("{a}: index")).collect();
        let body_indent = format!("{INDENT}{INDENT}");
        self.line(format!("{name} = lego.gen_p {dims} apply ({}) {{", params.join(", ")));
        self.lines.extend(apply.print(&args, &format!("{stem}_v"), &body_indent));
        if gen.is_invertible() {
            let inverse = inverse_body(gen)?;
            let x = format!("%{stem}_x");
            self.line(format!("}} inv ({x}: index) {{"));
            self.lines.extend(inverse.print(&[x], &format!("{stem}_w"), &body_indent));
        }
        self.line("} : !lego.layout".to_string());
        Ok(name.to_string())
    }

    fn finish(self, name: &str, mut params: Vec<String>, result_type: String) -> EmittedFunc {
        params.extend((0..self.symbolic.len()).map(|k| format!("%s{k}: index")));
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = writeln!(text, "func.func @{name}({}) -> {result_type} {{", params.join(", "));
        for line in &self.lines {
            let _ = writeln!(text, "{line}");
        }
        let _ = writeln!(text, "}}");
        EmittedFunc { name: name.to_string(), text, symbolic_sizes: self.symbolic }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::{antidiag, rev};
    use crate::genfn::{antidiag_apply, antidiag_inverse, isqrt, ANTIDIAG_MAX_N};
    use crate::random::{random_layout, RandomConfig, SplitMix64};

    #[test]
    fn apply_func_text_for_a_small_layout() -> Result<()> {
        let parts = Layout::order_by([Layout::reg_p([1, 0], [2, 2])?, Layout::row([Dim::lit(3), Dim::sym(2)])?])?;
        let layout = Layout::group_by([Dim::lit(6), Dim::sym(4)], [parts])?;
        let f = emit_apply_func(&layout, "apply_small")?;
        let expected = "\
func.func @apply_small(%i0: index, %i1: index, %s0: index, %s1: index) -> index {
  %l0 = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout
  %l1 = lego.row [3, %s0] : !lego.layout
  %l2 = lego.order_by(%l0, %l1) : !lego.layout
  %l3 = lego.group_by [6, %s1](%l2) : !lego.layout
  %r = lego.apply %l3(%i0, %i1) : !lego.layout
  return %r : index
}
";
        assert_eq!(f.text, expected);
        assert_eq!(f.symbolic_sizes, vec![2, 4]);
        assert_eq!(layout.symbolic_sizes(), vec![2, 4]);
        Ok(())
    }

    #[test]
    fn apply_inverse_func_text_for_rev() -> Result<()> {
        let f = emit_apply_inverse_func(&rev(3, 2)?, "inv_rev")?;
        // rev(3, 2): n1-1 = 2 and n2 = 2 share one constant; n2-1 = 1.
        let expected = "\
func.func @inv_rev(%x: index) -> (index, index) {
  %l0 = lego.gen_p [3, 2] apply (%l0_a0: index, %l0_a1: index) {
    %l0_v0 = arith.constant 2 : index
    %l0_v1 = arith.subi %l0_v0, %l0_a0 : index
    %l0_v2 = arith.muli %l0_v1, %l0_v0 : index
    %l0_v3 = arith.constant 1 : index
    %l0_v4 = arith.subi %l0_v3, %l0_a1 : index
    %l0_v5 = arith.addi %l0_v2, %l0_v4 : index
    lego.yield %l0_v5 : index
  } inv (%l0_x: index) {
    %l0_w0 = arith.constant 2 : index
    %l0_w1 = arith.divui %l0_x, %l0_w0 : index
    %l0_w2 = arith.remui %l0_x, %l0_w0 : index
    %l0_w3 = arith.subi %l0_w0, %l0_w1 : index
    %l0_w4 = arith.constant 1 : index
    %l0_w5 = arith.subi %l0_w4, %l0_w2 : index
    lego.yield %l0_w3, %l0_w5 : index, index
  } : !lego.layout
  %r0, %r1 = lego.apply_inverse %l0(%x) : !lego.layout -> index, index
  return %r0, %r1 : index, index
}
";
        assert_eq!(f.text, expected);
        Ok(())
    }

    #[test]
    fn tile_and_expand_syntax() -> Result<()> {
        let inner = Layout::order_by([Layout::row([8, 8])?])?;
        let tiled = Layout::tile_by(inner, [[Dim::lit(2), Dim::sym(2)], [Dim::lit(4), Dim::lit(4)]])?;
        let layout = Layout::expand_by(tiled, [Dim::sym(5), Dim::lit(6)], [8, 8])?;
        let f = emit_apply_func(&layout, "f")?;
        let ops: Vec<&str> = f.text.lines().skip(1).map(str::trim).collect();
        assert_eq!(
            ops,
            [
                "%l0 = lego.row [8, 8] : !lego.layout",
                "%l1 = lego.order_by(%l0) : !lego.layout",
                "%l2 = lego.tile_by %l1 tile_dims [[2, %s0], [4, 4]] : !lego.layout",
                "%l3 = lego.expand_by %l2 dims [%s1, 6] to [8, 8] : !lego.layout",
                "%r = lego.apply %l3(%i0, %i1, %i2, %i3) : !lego.layout",
                "return %r : index",
                "}",
            ]
        );
        assert!(f.text.starts_with("func.func @f(%i0: index, %i1: index, %i2: index, %i3: index, %s0: index, %s1: index) -> index {"));
        assert_eq!(f.symbolic_sizes, vec![2, 5]);
        let g = emit_apply_inverse_func(&Layout::col([Dim::sym(7)])?, "g")?;
        assert!(g.text.starts_with("func.func @g(%x: index, %s0: index) -> index {"), "{}", g.text);
        assert!(g.text.contains("%r0 = lego.apply_inverse %l0(%x) : !lego.layout -> index\n"), "{}", g.text);
        Ok(())
    }

    #[test]
    fn module_holds_both_functions() -> Result<()> {
        let text = emit_module(&antidiag(3)?, "ad3")?;
        assert!(text.starts_with("module {\n  func.func @apply_ad3("));
        assert!(text.contains("\n  func.func @apply_inverse_ad3(%x: index) -> (index, index) {\n"));
        assert!(text.ends_with("  }\n}\n"));
        Ok(())
    }

    #[test]
    fn custom_maps_and_bad_names_are_rejected() -> Result<()> {
        let custom = Layout::gen_p([4], GenFn::custom("id", |i: &[u64]| i[0], None))?;
        assert!(matches!(emit_apply_func(&custom, "f"), Err(AlgebraError::Unsupported(_))));
        assert!(matches!(emit_apply_inverse_func(&custom, "f"), Err(AlgebraError::NotInvertible(_))));
        assert!(matches!(emit_apply_func(&Layout::row([4])?, "9f"), Err(AlgebraError::Unsupported(_))));
        assert!(matches!(emit_apply_func(&Layout::row([4])?, "f g"), Err(AlgebraError::Unsupported(_))));
        Ok(())
    }

    /// Emitted symbolic arguments line up with `Layout::symbolic_sizes`, and every name is defined once.
    #[test]
    fn random_layouts_emit_consistently() {
        let config = RandomConfig { symbolic_percent: 30, ..RandomConfig::default() };
        let mut rng = SplitMix64::new(11);
        for _ in 0..200 {
            let layout = random_layout(&mut rng, &config);
            let f = emit_apply_func(&layout, "f").expect("named maps emit");
            assert_eq!(f.symbolic_sizes, layout.symbolic_sizes(), "{layout}");
            let mut defined = std::collections::HashSet::new();
            for line in f.text.lines() {
                if let Some((lhs, _)) = line.trim().split_once(" = ") {
                    for name in lhs.split(", ") {
                        assert!(defined.insert(name.to_string()), "{name} defined twice in\n{}", f.text);
                    }
                }
            }
            let g = emit_apply_inverse_func(&layout, "g").expect("named maps emit");
            assert_eq!(g.symbolic_sizes, layout.symbolic_sizes());
        }
    }

    #[test]
    fn rev_bodies_evaluate_like_rev() -> Result<()> {
        for (n1, n2) in [(1, 1), (1, 5), (3, 2), (4, 7), (8, 1)] {
            let gen = GenFn::Rev { n1, n2 };
            let (apply, inverse) = (apply_body(&gen)?, inverse_body(&gen)?);
            for i in 0..n1 {
                for j in 0..n2 {
                    // Hand formula from docs/reference/semantics.md.
                    let f = (n1 - 1 - i) * n2 + (n2 - 1 - j);
                    assert_eq!(apply.eval(&[i, j])?, vec![f]);
                    assert_eq!(inverse.eval(&[f])?, vec![i, j]);
                }
            }
        }
        Ok(())
    }

    /// The emitted antidiag bodies compute exactly the reference maps, exhaustively for n ≤ 64.
    #[test]
    fn antidiag_bodies_evaluate_like_antidiag() -> Result<()> {
        for n in 1..=64u64 {
            let gen = GenFn::Antidiag { n };
            let (apply, inverse) = (apply_body(&gen)?, inverse_body(&gen)?);
            for i in 0..n {
                for j in 0..n {
                    let f = antidiag_apply(n, i, j);
                    assert_eq!(apply.eval(&[i, j])?, vec![f], "antidiag({n})({i}, {j})");
                    assert_eq!(inverse.eval(&[f])?, vec![i, j], "antidiag({n})⁻¹({f})");
                }
            }
        }
        Ok(())
    }

    /// At the largest supported size the emitted square root must neither overflow nor lose precision.
    #[test]
    fn antidiag_bodies_are_exact_at_the_size_limit() -> Result<()> {
        for n in [ANTIDIAG_MAX_N - 1, 3_037_000_499, 1 << 20, 1_000_003] {
            let n = n.min(ANTIDIAG_MAX_N - 1);
            let gen = GenFn::Antidiag { n };
            let (apply, inverse) = (apply_body(&gen)?, inverse_body(&gen)?);
            let half = n * (n + 1) / 2;
            let mut flats = vec![0, 1, 2, half - 1, half, half + 1, n * n - 2, n * n - 1];
            // Triangle boundaries near the top of the range, where isqrt is most delicate.
            let a = isqrt(2 * half);
            flats.extend([a * (a - 1) / 2, a * (a - 1) / 2 - 1, a * (a + 1) / 2 - 1]);
            for f in flats.into_iter().filter(|&f| f < n * n) {
                let [i, j] = antidiag_inverse(n, f);
                assert!(i < n && j < n);
                assert_eq!(antidiag_apply(n, i, j), f, "n = {n}, f = {f}");
                assert_eq!(inverse.eval(&[f])?, vec![i, j], "n = {n}, f = {f}");
                assert_eq!(apply.eval(&[i, j])?, vec![f], "n = {n}, f = {f}");
            }
        }
        Ok(())
    }

    #[test]
    fn digit_by_digit_isqrt_is_exact() -> Result<()> {
        let mut b = BodyBuilder::new(1);
        let root = b.isqrt(0, 32);
        let body = b.finish(vec![root]);
        let mut rng = SplitMix64::new(5);
        let samples = (0..5000u64).chain((0..5000).map(|_| rng.next_u64())).chain([u64::MAX, (1 << 32) - 1]);
        for v in samples {
            assert_eq!(body.eval(&[v])?, vec![isqrt(v)], "isqrt({v})");
        }
        Ok(())
    }
}
