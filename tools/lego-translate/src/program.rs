//! The language-neutral form every printer reads: one [`Function`] per `func.func`, straight-line `let`s,
//! structured `if`s and one `return`, over [`Expr`] trees of 64-bit `index` (and `i1`) values. Built from the
//! lowered MLIR by [`crate::extract`]; values used once in their own block are inlined into their user.

/// Binary operations on `index` values, with MLIR's `arith` semantics on 64-bit two's complement values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    DivU,
    RemU,
    CeilDivU,
    DivS,
    RemS,
    FloorDivS,
    CeilDivS,
    Shl,
    ShrU,
    ShrS,
    And,
    Or,
    Xor,
    MinU,
    MaxU,
    MinS,
    MaxS,
}

impl BinOp {
    /// The `arith` op it came from, for diagnostics.
    pub fn mlir_name(self) -> &'static str {
        match self {
            BinOp::Add => "arith.addi",
            BinOp::Sub => "arith.subi",
            BinOp::Mul => "arith.muli",
            BinOp::DivU => "arith.divui",
            BinOp::RemU => "arith.remui",
            BinOp::CeilDivU => "arith.ceildivui",
            BinOp::DivS => "arith.divsi",
            BinOp::RemS => "arith.remsi",
            BinOp::FloorDivS => "arith.floordivsi",
            BinOp::CeilDivS => "arith.ceildivsi",
            BinOp::Shl => "arith.shli",
            BinOp::ShrU => "arith.shrui",
            BinOp::ShrS => "arith.shrsi",
            BinOp::And => "arith.andi",
            BinOp::Or => "arith.ori",
            BinOp::Xor => "arith.xori",
            BinOp::MinU => "arith.minui",
            BinOp::MaxU => "arith.maxui",
            BinOp::MinS => "arith.minsi",
            BinOp::MaxS => "arith.maxsi",
        }
    }
}

/// `math` bit counts on `index` (64 bits; each gives 64 on zero, as MLIR's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum UnOp {
    Ctlz,
    Cttz,
    Ctpop,
}

impl UnOp {
    pub fn mlir_name(self) -> &'static str {
        match self {
            UnOp::Ctlz => "math.ctlz",
            UnOp::Cttz => "math.cttz",
            UnOp::Ctpop => "math.ctpop",
        }
    }
}

/// `arith.cmpi` predicates (MLIR's numbering: eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pred {
    Eq,
    Ne,
    Slt,
    Sle,
    Sgt,
    Sge,
    Ult,
    Ule,
    Ugt,
    Uge,
}

impl Pred {
    pub fn from_mlir(value: i64) -> Option<Pred> {
        Some(match value {
            0 => Pred::Eq,
            1 => Pred::Ne,
            2 => Pred::Slt,
            3 => Pred::Sle,
            4 => Pred::Sgt,
            5 => Pred::Sge,
            6 => Pred::Ult,
            7 => Pred::Ule,
            8 => Pred::Ugt,
            9 => Pred::Uge,
            _ => return None,
        })
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Pred::Slt | Pred::Sle | Pred::Sgt | Pred::Sge)
    }

    /// The comparison operator most languages spell it with (signedness is the printer's business).
    pub fn symbol(self) -> &'static str {
        match self {
            Pred::Eq => "==",
            Pred::Ne => "!=",
            Pred::Slt | Pred::Ult => "<",
            Pred::Sle | Pred::Ule => "<=",
            Pred::Sgt | Pred::Ugt => ">",
            Pred::Sge | Pred::Uge => ">=",
        }
    }
}

/// Logical operations on `i1` values (`arith.andi`/`ori`/`xori` of comparisons).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogicOp {
    And,
    Or,
    Xor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    Index,
    Bool,
}

/// Where an expression came from in the user's file, for diagnostics raised while printing it.
pub type Origin = usize;

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Param(usize),
    Var(usize),
    /// An `index` constant: the 64 bits, as MLIR holds them.
    Const(u64, Origin),
    Bool(bool),
    Bin(BinOp, Box<Expr>, Box<Expr>, Origin),
    Unary(UnOp, Box<Expr>, Origin),
    Cmp(Pred, Box<Expr>, Box<Expr>, Origin),
    Logic(LogicOp, Box<Expr>, Box<Expr>),
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    Let { var: usize, ty: Ty, value: Expr },
    /// `scf.if` with results: `vars` are declared before it and assigned in both branches.
    If { vars: Vec<(usize, Ty)>, cond: Expr, then_body: Vec<Stmt>, then_values: Vec<Expr>, else_body: Vec<Stmt>, else_values: Vec<Expr> },
    Return(Vec<Expr>),
}

/// One `func.func`: its MLIR name, parameter names (from the user's text when they are recoverable), result
/// count, body, and domain.
#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    /// The `func.func`'s location (an index into the origins table).
    pub origin: Origin,
    pub params: Vec<String>,
    pub results: usize,
    pub body: Vec<Stmt>,
    pub domain: Domain,
}

/// The arguments a function is defined for: the contract of the layouts it uses, which `lego-lower` assumes
/// (semantics.md: out-of-range inputs give unspecified results; the simplifier relies on that). Read from the
/// module before lowering ([`crate::domain`]).
#[derive(Debug, Clone, Default)]
pub enum Domain {
    /// The input was translated as it is (`--no-lower`): its layouts, if it had any, are gone.
    #[default]
    Unknown,
    Known {
        /// `index < limit` for each index of each `lego.apply` and the flat input of each `lego.apply_inverse`
        /// in the function's own block (uses nested in `scf.if` regions hold only when reached).
        bounds: Vec<Bound>,
        /// Bounds that could not be written over the parameters (an index or size computed by an op other
        /// than `arith`), and uses nested in regions.
        unstated: usize,
        /// The element count of each layout used whose sizes are all static, for the 32-bit range check.
        extents: Vec<Extent>,
    },
}

/// `index < limit`, both over the function's parameters and constants.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    pub index: Expr,
    pub limit: Expr,
    /// The use that states it.
    pub origin: Origin,
}

/// The static element count (or inverse domain size) of a layout used at `origin` by the op `op`.
#[derive(Debug, Clone)]
pub struct Extent {
    pub origin: Origin,
    pub op: &'static str,
    pub size: u128,
}

/// The bit-count ops `expr` uses (some languages print helper functions for them).
pub fn unary_ops(expr: &Expr, out: &mut std::collections::BTreeSet<UnOp>) {
    match expr {
        Expr::Param(_) | Expr::Var(_) | Expr::Const(..) | Expr::Bool(_) => {}
        Expr::Unary(op, a, _) => {
            out.insert(*op);
            unary_ops(a, out);
        }
        Expr::Bin(_, a, b, _) | Expr::Cmp(_, a, b, _) | Expr::Logic(_, a, b) => {
            unary_ops(a, out);
            unary_ops(b, out);
        }
        Expr::Select(c, a, b) => {
            unary_ops(c, out);
            unary_ops(a, out);
            unary_ops(b, out);
        }
    }
}

/// [`unary_ops`] of every expression of `body`.
pub fn body_unary_ops(body: &[Stmt], out: &mut std::collections::BTreeSet<UnOp>) {
    for stmt in body {
        match stmt {
            Stmt::Let { value, .. } => unary_ops(value, out),
            Stmt::If { cond, then_body, then_values, else_body, else_values, .. } => {
                unary_ops(cond, out);
                body_unary_ops(then_body, out);
                body_unary_ops(else_body, out);
                then_values.iter().chain(else_values).for_each(|value| unary_ops(value, out));
            }
            Stmt::Return(values) => values.iter().for_each(|value| unary_ops(value, out)),
        }
    }
}

/// Every local variable of `body` (including nested `if`s), in order of appearance.
pub fn locals(body: &[Stmt], out: &mut Vec<(usize, Ty)>) {
    for stmt in body {
        match stmt {
            Stmt::Let { var, ty, .. } => out.push((*var, *ty)),
            Stmt::If { vars, then_body, else_body, .. } => {
                out.extend(vars.iter().copied());
                locals(then_body, out);
                locals(else_body, out);
            }
            Stmt::Return(_) => {}
        }
    }
}
