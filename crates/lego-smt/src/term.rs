//! The term language: fixed-width bit-vectors (MLIR integers and `index`, which is 64 bits wide) with exact
//! two's-complement wrap-around, unsigned and signed division, shifts, comparisons and selects; plus a few
//! IEEE float operations that only the evaluator understands (Z3 proofs report them as unsupported).
//!
//! Terms are immutable DAGs (`Arc` nodes, so terms can be shared across threads): sharing a sub-term is free, and every consumer (evaluator, Z3
//! translation) visits each node once. Booleans are 1-bit vectors (`i1`), so MLIR's `arith.cmpi` /
//! `arith.andi` on `i1` map one to one. Constructors never panic: operand sorts are checked by
//! [`Term::validate`] before a term is used.

use std::{
    collections::HashMap,
    fmt,
    hash::{Hash, Hasher},
    sync::Arc,
};

/// Width of MLIR's `index` type on every target lego lowers to.
pub const INDEX_WIDTH: u32 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatKind {
    F32,
    F64,
}

/// The sort of a term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sort {
    /// A bit-vector of 1 to 64 bits (`i1` is the boolean sort).
    Bits(u32),
    Float(FloatKind),
}

impl fmt::Display for Sort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sort::Bits(width) => write!(f, "i{width}"),
            Sort::Float(FloatKind::F32) => write!(f, "f32"),
            Sort::Float(FloatKind::F64) => write!(f, "f64"),
        }
    }
}

/// Binary bit-vector operations (both operands and the result have the same width).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// Unsigned division; division by zero is undefined behaviour (as `arith.divui`).
    DivU,
    /// Unsigned remainder; by zero: undefined behaviour.
    RemU,
    /// Signed division rounding toward zero (`arith.divsi`); by zero or `MIN / -1`: undefined.
    DivS,
    /// Signed remainder, sign of the dividend (`arith.remsi`); by zero: undefined.
    RemS,
    /// Shifts: an amount ≥ the width gives poison (as in MLIR).
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
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::DivU => "divu",
            BinOp::RemU => "remu",
            BinOp::DivS => "divs",
            BinOp::RemS => "rems",
            BinOp::Shl => "<<",
            BinOp::ShrU => ">>u",
            BinOp::ShrS => ">>s",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::MinU => "minu",
            BinOp::MaxU => "maxu",
            BinOp::MinS => "mins",
            BinOp::MaxS => "maxs",
        }
    }
}

/// Comparison predicates (`arith.cmpi`); the result is `i1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pred {
    Eq,
    Ne,
    Ult,
    Ule,
    Ugt,
    Uge,
    Slt,
    Sle,
    Sgt,
    Sge,
}

impl Pred {
    pub fn symbol(self) -> &'static str {
        match self {
            Pred::Eq => "==",
            Pred::Ne => "!=",
            Pred::Ult => "<u",
            Pred::Ule => "<=u",
            Pred::Ugt => ">u",
            Pred::Uge => ">=u",
            Pred::Slt => "<s",
            Pred::Sle => "<=s",
            Pred::Sgt => ">s",
            Pred::Sge => ">=s",
        }
    }
}

/// Overflow flags of `arith.addi`/`subi`/`muli`/`shli`: when set, overflow gives poison.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags {
    pub nsw: bool,
    pub nuw: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastOp {
    ZeroExtend,
    SignExtend,
    Truncate,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FBinOp {
    Add,
    Sub,
    Mul,
    Div,
    /// `arith.minimumf` / `maximumf`: NaN-propagating, -0 < +0.
    Minimum,
    Maximum,
    /// `arith.minnumf` / `maxnumf`: a NaN operand is ignored.
    MinNum,
    MaxNum,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FUnOp {
    Sqrt,
    Floor,
    Ceil,
    Abs,
    Neg,
    /// Round to nearest, ties away from zero (`math.round`).
    Round,
    /// Round to nearest, ties to even (`math.roundeven`).
    RoundEven,
    /// Toward zero (`math.trunc`).
    Trunc,
}

/// `arith.cmpf` predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FPred {
    False,
    Oeq,
    Ogt,
    Oge,
    Olt,
    Ole,
    One,
    Ord,
    Ueq,
    Ugt,
    Uge,
    Ult,
    Ule,
    Une,
    Uno,
    True,
}

/// One node of a term DAG.
#[derive(Debug)]
pub enum Node {
    Var { name: String, sort: Sort },
    /// `value` is already truncated to `width` bits.
    Const { value: u64, width: u32 },
    FConst { value: f64, kind: FloatKind },
    /// Bitwise complement.
    Not(Term),
    Bin { op: BinOp, flags: Flags, lhs: Term, rhs: Term },
    Cmp { pred: Pred, lhs: Term, rhs: Term },
    /// `cond` is `i1`. `lazy`: only the chosen branch is evaluated (`scf.if`), so undefined behaviour in the
    /// other one does not count; eager (`arith.select`) evaluates both.
    Select { cond: Term, then: Term, otherwise: Term, lazy: bool },
    Cast { op: CastOp, width: u32, arg: Term },
    FBin { op: FBinOp, lhs: Term, rhs: Term },
    FUn { op: FUnOp, arg: Term },
    FCmp { pred: FPred, lhs: Term, rhs: Term },
    IntToFloat { signed: bool, kind: FloatKind, arg: Term },
    /// `fptoui` / `fptosi`: NaN or out of range gives poison.
    FloatToInt { signed: bool, width: u32, arg: Term },
    /// `extf` / `truncf` (round to nearest even).
    FloatResize { kind: FloatKind, arg: Term },
}

#[derive(Debug)]
pub struct Inner {
    pub node: Node,
    /// Where the node came from (e.g. `arith.divui at file.mlir:4:7`), for diagnostics.
    pub label: Option<String>,
}

/// A term: a shared, immutable DAG node.
#[derive(Clone)]
pub struct Term(pub(crate) Arc<Inner>);

impl PartialEq for Term {
    /// Identity (same node), not structural equality.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
impl Eq for Term {}
impl Hash for Term {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (Arc::as_ptr(&self.0) as usize).hash(state);
    }
}

pub(crate) fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// `value` (low `width` bits) read as a signed number.
pub fn to_signed(value: u64, width: u32) -> i64 {
    if width == 0 || width >= 64 {
        return value as i64;
    }
    let shift = 64 - width;
    ((value << shift) as i64) >> shift
}

impl Term {
    fn make(node: Node) -> Term {
        Term(Arc::new(Inner { node, label: None }))
    }

    pub fn node(&self) -> &Node {
        &self.0.node
    }

    pub fn label(&self) -> Option<&str> {
        self.0.label.as_deref()
    }

    /// The same node with a label. Labels are attached right after construction; a node that is already
    /// shared keeps its label (the DAG is immutable).
    pub fn with_label(self, label: impl Into<String>) -> Term {
        match Arc::try_unwrap(self.0) {
            Ok(mut inner) => {
                inner.label = Some(label.into());
                Term(Arc::new(inner))
            }
            Err(shared) => Term(shared),
        }
    }

    /// A stable identity for memo tables.
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    // ---- leaves ----------------------------------------------------------------------------------------

    pub fn var(name: impl Into<String>, width: u32) -> Term {
        Term::make(Node::Var { name: name.into(), sort: Sort::Bits(width) })
    }

    /// A 64-bit (`index`) variable.
    pub fn index_var(name: impl Into<String>) -> Term {
        Term::var(name, INDEX_WIDTH)
    }

    pub fn float_var(name: impl Into<String>, kind: FloatKind) -> Term {
        Term::make(Node::Var { name: name.into(), sort: Sort::Float(kind) })
    }

    pub fn constant(value: u64, width: u32) -> Term {
        Term::make(Node::Const { value: value & mask(width), width })
    }

    /// A 64-bit (`index`) constant.
    pub fn index(value: u64) -> Term {
        Term::constant(value, INDEX_WIDTH)
    }

    pub fn bool(value: bool) -> Term {
        Term::constant(value as u64, 1)
    }

    pub fn float(value: f64, kind: FloatKind) -> Term {
        let value = match kind {
            FloatKind::F32 => value as f32 as f64,
            FloatKind::F64 => value,
        };
        Term::make(Node::FConst { value, kind })
    }

    // ---- structure -------------------------------------------------------------------------------------

    /// The sort, computed structurally (no validation: see [`Term::validate`]).
    pub fn sort(&self) -> Sort {
        match self.node() {
            Node::Var { sort, .. } => *sort,
            Node::Const { width, .. } => Sort::Bits(*width),
            Node::FConst { kind, .. } => Sort::Float(*kind),
            Node::Not(arg) => arg.sort(),
            Node::Bin { lhs, .. } => lhs.sort(),
            Node::Cmp { .. } | Node::FCmp { .. } => Sort::Bits(1),
            Node::Select { then, .. } => then.sort(),
            Node::Cast { width, .. } | Node::FloatToInt { width, .. } => Sort::Bits(*width),
            Node::FBin { lhs, .. } => lhs.sort(),
            Node::FUn { arg, .. } => arg.sort(),
            Node::IntToFloat { kind, .. } | Node::FloatResize { kind, .. } => Sort::Float(*kind),
        }
    }

    /// Bit width, when the term is a bit-vector.
    pub fn width(&self) -> Option<u32> {
        match self.sort() {
            Sort::Bits(width) => Some(width),
            Sort::Float(_) => None,
        }
    }

    /// The constant value, if the node is a bit-vector constant.
    pub fn as_const(&self) -> Option<u64> {
        match self.node() {
            Node::Const { value, .. } => Some(*value),
            _ => None,
        }
    }

    /// Direct operands of the node.
    pub fn children(&self) -> Vec<&Term> {
        match self.node() {
            Node::Var { .. } | Node::Const { .. } | Node::FConst { .. } => vec![],
            Node::Not(arg)
            | Node::Cast { arg, .. }
            | Node::FUn { arg, .. }
            | Node::IntToFloat { arg, .. }
            | Node::FloatToInt { arg, .. }
            | Node::FloatResize { arg, .. } => vec![arg],
            Node::Bin { lhs, rhs, .. } | Node::Cmp { lhs, rhs, .. } | Node::FBin { lhs, rhs, .. } | Node::FCmp { lhs, rhs, .. } => {
                vec![lhs, rhs]
            }
            Node::Select { cond, then, otherwise, .. } => vec![cond, then, otherwise],
        }
    }

    /// Whether any node of the DAG is a float operation (Z3 proofs do not model them).
    pub fn uses_floats(&self) -> bool {
        crate::eval::topo_order(std::slice::from_ref(self)).iter().any(|term| term.is_float_node())
    }

    pub(crate) fn is_float_node(&self) -> bool {
        matches!(self.sort(), Sort::Float(_)) || matches!(self.node(), Node::FCmp { .. } | Node::FloatToInt { .. })
    }

    /// Names and sorts of the variables, in first-occurrence order.
    pub fn variables(&self) -> Vec<(String, Sort)> {
        crate::eval::variables(std::slice::from_ref(self))
    }

    /// Checks that operand sorts agree and widths are 1..=64. Every consumer calls it first.
    pub fn validate(&self) -> Result<(), String> {
        for term in crate::eval::topo_order(std::slice::from_ref(self)) {
            term.validate_node()?;
        }
        Ok(())
    }

    fn validate_node(&self) -> Result<(), String> {
        let bits = |term: &Term| -> Result<u32, String> {
            match term.sort() {
                Sort::Bits(width) if (1..=64).contains(&width) => Ok(width),
                other => Err(format!("expected an integer of 1 to 64 bits, found {other}")),
            }
        };
        let float = |term: &Term| -> Result<FloatKind, String> {
            match term.sort() {
                Sort::Float(kind) => Ok(kind),
                other => Err(format!("expected a float, found {other}")),
            }
        };
        match self.node() {
            Node::Var { sort: Sort::Bits(width), .. } | Node::Const { width, .. } if !(1..=64).contains(width) => {
                Err(format!("unsupported integer width {width}"))
            }
            Node::Var { .. } | Node::Const { .. } | Node::FConst { .. } => Ok(()),
            Node::Not(arg) => bits(arg).map(|_| ()),
            Node::Bin { lhs, rhs, .. } | Node::Cmp { lhs, rhs, .. } => {
                let (a, b) = (bits(lhs)?, bits(rhs)?);
                if a == b {
                    Ok(())
                } else {
                    Err(format!("operand widths differ: i{a} and i{b}"))
                }
            }
            Node::Select { cond, then, otherwise, .. } => {
                if bits(cond)? != 1 {
                    return Err("select condition is not i1".into());
                }
                if then.sort() != otherwise.sort() {
                    return Err(format!("select branches differ: {} and {}", then.sort(), otherwise.sort()));
                }
                Ok(())
            }
            Node::Cast { op, width, arg } => {
                let from = bits(arg)?;
                let ok = (1..=64).contains(width)
                    && match op {
                        CastOp::ZeroExtend | CastOp::SignExtend => *width >= from,
                        CastOp::Truncate => *width <= from,
                    };
                if ok {
                    Ok(())
                } else {
                    Err(format!("bad cast from i{from} to i{width}"))
                }
            }
            Node::FBin { lhs, rhs, .. } | Node::FCmp { lhs, rhs, .. } => {
                if float(lhs)? == float(rhs)? {
                    Ok(())
                } else {
                    Err("float operand kinds differ".into())
                }
            }
            Node::FUn { arg, .. } | Node::FloatResize { arg, .. } => float(arg).map(|_| ()),
            Node::IntToFloat { arg, .. } => bits(arg).map(|_| ()),
            Node::FloatToInt { arg, width, .. } => {
                float(arg)?;
                if (1..=64).contains(width) {
                    Ok(())
                } else {
                    Err(format!("unsupported integer width {width}"))
                }
            }
        }
    }

    /// Replaces variables by terms (by name), sharing unchanged sub-terms.
    pub fn substitute(&self, map: &HashMap<String, Term>) -> Term {
        let mut memo: HashMap<usize, Term> = HashMap::new();
        for term in crate::eval::topo_order(std::slice::from_ref(self)) {
            let get = |t: &Term| memo.get(&t.id()).cloned().unwrap_or_else(|| t.clone());
            let rebuilt = match term.node() {
                Node::Var { name, .. } => map.get(name).cloned().unwrap_or_else(|| term.clone()),
                Node::Const { .. } | Node::FConst { .. } => term.clone(),
                _ => {
                    let children: Vec<Term> = term.children().into_iter().map(&get).collect();
                    if children.iter().zip(term.children()).all(|(new, old)| new == old) {
                        term.clone()
                    } else {
                        let mut new = term.rebuild(&children);
                        if let Some(label) = term.label() {
                            if let Some(inner) = Arc::get_mut(&mut new.0) {
                                inner.label = Some(label.to_string());
                            }
                        }
                        new
                    }
                }
            };
            memo.insert(term.id(), rebuilt);
        }
        memo.get(&self.id()).cloned().unwrap_or_else(|| self.clone())
    }

    /// Folds every operation whose operands are all (integer) constants into a constant, sharing the rest.
    /// Operations that would be poison or undefined on their constants are kept as they are.
    pub fn fold_constants(&self) -> Term {
        let mut memo: HashMap<usize, Term> = HashMap::new();
        for term in crate::eval::topo_order(std::slice::from_ref(self)) {
            let children: Vec<Term> =
                term.children().into_iter().map(|t| memo.get(&t.id()).cloned().unwrap_or_else(|| t.clone())).collect();
            let rebuilt = if children.is_empty() || children.iter().zip(term.children()).all(|(new, old)| new == old) {
                term.clone()
            } else {
                term.rebuild(&children)
            };
            let folded = match (rebuilt.width(), children.iter().all(|c| c.as_const().is_some()) && !children.is_empty()) {
                (Some(width), true) if rebuilt.validate().is_ok() => match crate::eval::Program::new(std::slice::from_ref(&rebuilt)) {
                    Ok(program) => {
                        let evaluation = program.run(&[]);
                        match (evaluation.undefined, evaluation.roots.first()) {
                            (None, Some(crate::eval::Value::Bits(value))) => Term::constant(*value, width),
                            _ => rebuilt,
                        }
                    }
                    Err(_) => rebuilt,
                },
                _ => rebuilt,
            };
            memo.insert(term.id(), folded);
        }
        memo.get(&self.id()).cloned().unwrap_or_else(|| self.clone())
    }

    /// The same node over new children (same count and order as [`Term::children`]).
    fn rebuild(&self, c: &[Term]) -> Term {
        let at = |i: usize| c.get(i).cloned().unwrap_or_else(|| Term::bool(false));
        let node = match self.node() {
            Node::Var { .. } | Node::Const { .. } | Node::FConst { .. } => return self.clone(),
            Node::Not(_) => Node::Not(at(0)),
            Node::Bin { op, flags, .. } => Node::Bin { op: *op, flags: *flags, lhs: at(0), rhs: at(1) },
            Node::Cmp { pred, .. } => Node::Cmp { pred: *pred, lhs: at(0), rhs: at(1) },
            Node::Select { lazy, .. } => Node::Select { cond: at(0), then: at(1), otherwise: at(2), lazy: *lazy },
            Node::Cast { op, width, .. } => Node::Cast { op: *op, width: *width, arg: at(0) },
            Node::FBin { op, .. } => Node::FBin { op: *op, lhs: at(0), rhs: at(1) },
            Node::FUn { op, .. } => Node::FUn { op: *op, arg: at(0) },
            Node::FCmp { pred, .. } => Node::FCmp { pred: *pred, lhs: at(0), rhs: at(1) },
            Node::IntToFloat { signed, kind, .. } => Node::IntToFloat { signed: *signed, kind: *kind, arg: at(0) },
            Node::FloatToInt { signed, width, .. } => Node::FloatToInt { signed: *signed, width: *width, arg: at(0) },
            Node::FloatResize { kind, .. } => Node::FloatResize { kind: *kind, arg: at(0) },
        };
        Term::make(node)
    }

    // ---- bit-vector operations -------------------------------------------------------------------------

    pub fn bin(op: BinOp, lhs: &Term, rhs: &Term) -> Term {
        Term::bin_flags(op, Flags::default(), lhs, rhs)
    }

    pub fn bin_flags(op: BinOp, flags: Flags, lhs: &Term, rhs: &Term) -> Term {
        Term::make(Node::Bin { op, flags, lhs: lhs.clone(), rhs: rhs.clone() })
    }

    pub fn add(&self, rhs: &Term) -> Term {
        Term::bin(BinOp::Add, self, rhs)
    }
    pub fn sub(&self, rhs: &Term) -> Term {
        Term::bin(BinOp::Sub, self, rhs)
    }
    pub fn mul(&self, rhs: &Term) -> Term {
        Term::bin(BinOp::Mul, self, rhs)
    }
    pub fn udiv(&self, rhs: &Term) -> Term {
        Term::bin(BinOp::DivU, self, rhs)
    }
    pub fn urem(&self, rhs: &Term) -> Term {
        Term::bin(BinOp::RemU, self, rhs)
    }
    pub fn shl(&self, rhs: &Term) -> Term {
        Term::bin(BinOp::Shl, self, rhs)
    }
    pub fn lshr(&self, rhs: &Term) -> Term {
        Term::bin(BinOp::ShrU, self, rhs)
    }
    pub fn bitand(&self, rhs: &Term) -> Term {
        Term::bin(BinOp::And, self, rhs)
    }
    pub fn bitor(&self, rhs: &Term) -> Term {
        Term::bin(BinOp::Or, self, rhs)
    }
    pub fn bitxor(&self, rhs: &Term) -> Term {
        Term::bin(BinOp::Xor, self, rhs)
    }
    pub fn bitnot(&self) -> Term {
        Term::make(Node::Not(self.clone()))
    }

    pub fn cmp(pred: Pred, lhs: &Term, rhs: &Term) -> Term {
        Term::make(Node::Cmp { pred, lhs: lhs.clone(), rhs: rhs.clone() })
    }
    pub fn eq(&self, rhs: &Term) -> Term {
        Term::cmp(Pred::Eq, self, rhs)
    }
    pub fn ne(&self, rhs: &Term) -> Term {
        Term::cmp(Pred::Ne, self, rhs)
    }
    pub fn ult(&self, rhs: &Term) -> Term {
        Term::cmp(Pred::Ult, self, rhs)
    }
    pub fn ule(&self, rhs: &Term) -> Term {
        Term::cmp(Pred::Ule, self, rhs)
    }
    pub fn ugt(&self, rhs: &Term) -> Term {
        Term::cmp(Pred::Ugt, self, rhs)
    }
    pub fn uge(&self, rhs: &Term) -> Term {
        Term::cmp(Pred::Uge, self, rhs)
    }

    /// `arith.select`: both branches are evaluated.
    pub fn select(cond: &Term, then: &Term, otherwise: &Term) -> Term {
        Term::make(Node::Select { cond: cond.clone(), then: then.clone(), otherwise: otherwise.clone(), lazy: false })
    }

    /// `scf.if`: only the chosen branch is evaluated.
    pub fn select_lazy(cond: &Term, then: &Term, otherwise: &Term) -> Term {
        Term::make(Node::Select { cond: cond.clone(), then: then.clone(), otherwise: otherwise.clone(), lazy: true })
    }

    pub fn cast(op: CastOp, width: u32, arg: &Term) -> Term {
        Term::make(Node::Cast { op, width, arg: arg.clone() })
    }

    /// Zero-extends or truncates to `width` (a no-op at the same width).
    pub fn zext_or_trunc(&self, width: u32) -> Term {
        match self.width() {
            Some(from) if from == width => self.clone(),
            Some(from) if from < width => Term::cast(CastOp::ZeroExtend, width, self),
            _ => Term::cast(CastOp::Truncate, width, self),
        }
    }

    /// Sign-extends or truncates to `width`.
    pub fn sext_or_trunc(&self, width: u32) -> Term {
        match self.width() {
            Some(from) if from == width => self.clone(),
            Some(from) if from < width => Term::cast(CastOp::SignExtend, width, self),
            _ => Term::cast(CastOp::Truncate, width, self),
        }
    }

    // ---- booleans (i1) ---------------------------------------------------------------------------------

    pub fn and(&self, rhs: &Term) -> Term {
        match (self.as_const(), rhs.as_const()) {
            (Some(1), _) => rhs.clone(),
            (_, Some(1)) => self.clone(),
            _ => self.bitand(rhs),
        }
    }
    pub fn or(&self, rhs: &Term) -> Term {
        match (self.as_const(), rhs.as_const()) {
            (Some(0), _) => rhs.clone(),
            (_, Some(0)) => self.clone(),
            _ => self.bitor(rhs),
        }
    }
    pub fn not(&self) -> Term {
        self.bitnot()
    }
    pub fn implies(&self, rhs: &Term) -> Term {
        self.not().or(rhs)
    }
    /// Conjunction of all (true when empty).
    pub fn all(terms: impl IntoIterator<Item = Term>) -> Term {
        terms.into_iter().fold(Term::bool(true), |acc, term| acc.and(&term))
    }
    /// Disjunction of all (false when empty).
    pub fn any(terms: impl IntoIterator<Item = Term>) -> Term {
        terms.into_iter().fold(Term::bool(false), |acc, term| acc.or(&term))
    }
    /// `lo ≤ self < hi` (unsigned).
    pub fn in_range(&self, lo: &Term, hi: &Term) -> Term {
        lo.ule(self).and(&self.ult(hi))
    }

    // ---- floats (evaluation only) ----------------------------------------------------------------------

    pub fn fbin(op: FBinOp, lhs: &Term, rhs: &Term) -> Term {
        Term::make(Node::FBin { op, lhs: lhs.clone(), rhs: rhs.clone() })
    }
    pub fn fun(op: FUnOp, arg: &Term) -> Term {
        Term::make(Node::FUn { op, arg: arg.clone() })
    }
    pub fn fcmp(pred: FPred, lhs: &Term, rhs: &Term) -> Term {
        Term::make(Node::FCmp { pred, lhs: lhs.clone(), rhs: rhs.clone() })
    }
    pub fn int_to_float(signed: bool, kind: FloatKind, arg: &Term) -> Term {
        Term::make(Node::IntToFloat { signed, kind, arg: arg.clone() })
    }
    pub fn float_to_int(signed: bool, width: u32, arg: &Term) -> Term {
        Term::make(Node::FloatToInt { signed, width, arg: arg.clone() })
    }
    pub fn float_resize(kind: FloatKind, arg: &Term) -> Term {
        Term::make(Node::FloatResize { kind, arg: arg.clone() })
    }
}

impl fmt::Debug for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Infix rendering, for logs and messages. Deep or heavily shared DAGs are elided past a size budget.
impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut budget = 200usize;
        write_term(self, f, &mut budget)
    }
}

fn write_term(term: &Term, f: &mut fmt::Formatter<'_>, budget: &mut usize) -> fmt::Result {
    if *budget == 0 {
        return write!(f, "…");
    }
    *budget -= 1;
    match term.node() {
        Node::Var { name, .. } => write!(f, "{name}"),
        Node::Const { value, width } => {
            if *width == 1 {
                write!(f, "{}", *value == 1)
            } else {
                write!(f, "{value}")
            }
        }
        Node::FConst { value, .. } => write!(f, "{value:?}"),
        Node::Not(arg) => {
            write!(f, "~")?;
            write_term(arg, f, budget)
        }
        Node::Bin { op, lhs, rhs, .. } => {
            write!(f, "(")?;
            write_term(lhs, f, budget)?;
            write!(f, " {} ", op.symbol())?;
            write_term(rhs, f, budget)?;
            write!(f, ")")
        }
        Node::Cmp { pred, lhs, rhs } => {
            write!(f, "(")?;
            write_term(lhs, f, budget)?;
            write!(f, " {} ", pred.symbol())?;
            write_term(rhs, f, budget)?;
            write!(f, ")")
        }
        Node::Select { cond, then, otherwise, .. } => {
            if cond.as_const() == Some(1) {
                return write_term(then, f, budget);
            }
            write!(f, "(")?;
            write_term(cond, f, budget)?;
            write!(f, " ? ")?;
            write_term(then, f, budget)?;
            write!(f, " : ")?;
            write_term(otherwise, f, budget)?;
            write!(f, ")")
        }
        Node::Cast { op, width, arg } => {
            let name = match op {
                CastOp::ZeroExtend => "zext",
                CastOp::SignExtend => "sext",
                CastOp::Truncate => "trunc",
            };
            write!(f, "{name}{width}(")?;
            write_term(arg, f, budget)?;
            write!(f, ")")
        }
        Node::FBin { op, lhs, rhs } => {
            write!(f, "{op:?}(")?;
            write_term(lhs, f, budget)?;
            write!(f, ", ")?;
            write_term(rhs, f, budget)?;
            write!(f, ")")
        }
        Node::FUn { op, arg } => {
            write!(f, "{op:?}(")?;
            write_term(arg, f, budget)?;
            write!(f, ")")
        }
        Node::FCmp { pred, lhs, rhs } => {
            write!(f, "cmpf_{pred:?}(")?;
            write_term(lhs, f, budget)?;
            write!(f, ", ")?;
            write_term(rhs, f, budget)?;
            write!(f, ")")
        }
        Node::IntToFloat { arg, kind, signed } => {
            write!(f, "{}tofp_{kind:?}(", if *signed { "si" } else { "ui" })?;
            write_term(arg, f, budget)?;
            write!(f, ")")
        }
        Node::FloatToInt { arg, width, signed } => {
            write!(f, "fpto{}{width}(", if *signed { "si" } else { "ui" })?;
            write_term(arg, f, budget)?;
            write!(f, ")")
        }
        Node::FloatResize { arg, kind } => {
            write!(f, "to_{kind:?}(")?;
            write_term(arg, f, budget)?;
            write!(f, ")")
        }
    }
}
