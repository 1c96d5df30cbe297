//! The cost model and the choice of form: a polynomial becomes an expression tree ([`Expr`]) in the cheapest
//! of its expanded form, forms factored by a common atom (`a·c + b·c → (a + b)·c`, recursively) and by the
//! gcd of its coefficients; cost is the paper's operation count (identical subtrees once: CSE merges them),
//! with divisions and remainders as the tie-breaker. Existing values with the same polynomial are reused.

use super::{
    ir::{self, Key},
    poly::{signed, AtomId, Poly},
    rules::{Atom, Engine},
};
use mlir_sys::{MlirOperation, MlirType, MlirValue};
use std::rc::Rc;
use super::ir::{HashMap, HashSet};

/// Operation count, then how many of those are divisions/remainders (the expensive ones).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cost {
    pub ops: usize,
    pub divrem: usize,
}

impl std::ops::Add for Cost {
    type Output = Cost;
    fn add(self, other: Cost) -> Cost {
        Cost { ops: self.ops + other.ops, divrem: self.divrem + other.divrem }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinKind {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl BinKind {
    pub fn op_name(self) -> &'static str {
        match self {
            BinKind::Add => "arith.addi",
            BinKind::Sub => "arith.subi",
            BinKind::Mul => "arith.muli",
            BinKind::Div => "arith.divui",
            BinKind::Rem => "arith.remui",
        }
    }
}

/// An expression tree; subtrees are shared (the planner memoizes the expression of each polynomial and hands
/// out copies: a copy is a reference count, not a deep clone of the tree — issue 25, allocation was a tenth of
/// planning). Equality and hashing are structural, as with owned subtrees.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    Const(u64),
    /// An existing SSA value.
    Value(Key),
    Bin(BinKind, Rc<Expr>, Rc<Expr>),
}

impl Expr {
    fn bin(kind: BinKind, a: Expr, b: Expr) -> Expr {
        Expr::Bin(kind, Rc::new(a), Rc::new(b))
    }
}

/// Cost of the distinct operations of `exprs`.
pub fn cost_of(exprs: &[&Expr]) -> Cost {
    fn visit<'e>(expr: &'e Expr, seen: &mut HashSet<&'e Expr>, cost: &mut Cost) {
        if let Expr::Bin(kind, a, b) = expr {
            if !seen.insert(expr) {
                return;
            }
            cost.ops += 1;
            // By a power of two they become a shift or a mask (lego-strength-reduction).
            let cheap = matches!(**b, Expr::Const(c) if c.is_power_of_two());
            if matches!(kind, BinKind::Div | BinKind::Rem) && !cheap {
                cost.divrem += 1;
            }
            visit(a, seen, cost);
            visit(b, seen, cost);
        }
    }
    let mut seen = HashSet::default();
    let mut cost = Cost::default();
    for expr in exprs {
        visit(expr, &mut seen, &mut cost);
    }
    cost
}

/// Turns polynomials into the cheapest expression trees.
pub struct Planner<'p, 'e, 'r> {
    pub engine: &'p mut Engine<'r>,
    /// Whether an existing value may be reused at the insertion point.
    pub reusable: &'p dyn Fn(MlirValue) -> bool,
    pub values: HashMap<Key, MlirValue>,
    memo: HashMap<Poly, Expr>,
    /// Values known to compute a polynomial (by its canonical text), from every root planned so far this
    /// round: what other roots' rewrites created, and what engines read.
    pub known: &'p HashMap<std::rc::Rc<str>, Vec<MlirValue>>,
    _marker: std::marker::PhantomData<&'e ()>,
}

impl<'p, 'e, 'r> Planner<'p, 'e, 'r> {
    pub fn new(
        engine: &'p mut Engine<'r>,
        reusable: &'p dyn Fn(MlirValue) -> bool,
        known: &'p HashMap<std::rc::Rc<str>, Vec<MlirValue>>,
    ) -> Self {
        Planner { engine, reusable, values: HashMap::default(), memo: HashMap::default(), known, _marker: std::marker::PhantomData }
    }

    fn existing(&mut self, poly: &Poly) -> Option<Expr> {
        let mut candidates = self.engine.by_poly.get(poly).cloned().unwrap_or_default();
        // A polynomial too large to name is never shared across roots.
        if let Some(known) = self.engine.canonical_poly_rc(poly).and_then(|text| self.known.get(&*text)) {
            candidates.extend(known.iter().copied());
        }
        let value = candidates.into_iter().find(|value| (self.reusable)(*value))?;
        self.values.insert(ir::key(value), value);
        Some(Expr::Value(ir::key(value)))
    }

    /// The planned polynomials with their expressions (see [`planned`]), taken out of the planner.
    pub fn take_memo(&mut self) -> HashMap<Poly, Expr> {
        std::mem::take(&mut self.memo)
    }

    pub fn atom(&mut self, id: AtomId) -> Expr {
        if let Some(existing) = self.existing(&Poly::atom(id)) {
            return existing;
        }
        match self.engine.atom(id).clone() {
            Atom::Leaf(key) => {
                if let Some(value) = self.engine.leaf_value(id) {
                    self.values.insert(key, value);
                }
                Expr::Value(key)
            }
            Atom::Div(x, y) => Expr::bin(BinKind::Div, self.poly(&x), self.poly(&y)),
            Atom::Rem(x, y) => Expr::bin(BinKind::Rem, self.poly(&x), self.poly(&y)),
        }
    }

    /// The cheapest expression for `poly`.
    pub fn poly(&mut self, poly: &Poly) -> Expr {
        if let Some(expr) = self.memo.get(poly) {
            return expr.clone();
        }
        let expr = self.plan(poly);
        self.memo.insert(poly.clone(), expr.clone());
        expr
    }

    fn plan(&mut self, poly: &Poly) -> Expr {
        if let Some(constant) = poly.as_constant() {
            return Expr::Const(constant);
        }
        if let Some(existing) = self.existing(poly) {
            return existing;
        }
        let mut candidates = vec![self.expanded(poly)];
        if let Some(factored) = self.factored_by_atom(poly) {
            candidates.push(factored);
        }
        if let Some(factored) = self.factored_by_gcd(poly) {
            candidates.push(factored);
        }
        // The first of the cheapest (expanded on ties: shorter dependency chains).
        let mut best = 0;
        let mut best_cost = cost_of(&[&candidates[0]]);
        for (index, candidate) in candidates.iter().enumerate().skip(1) {
            let cost = cost_of(&[candidate]);
            if cost < best_cost {
                best = index;
                best_cost = cost;
            }
        }
        candidates.swap_remove(best)
    }

    /// `c · a1 · a2 · …` without sign: (expression, negative?).
    fn term(&mut self, monomial: &[AtomId], coefficient: u64) -> (Expr, bool) {
        let c = signed(coefficient);
        let (magnitude, negative) = if c < 0 && c != i64::MIN as i128 { ((-c) as u64, true) } else { (coefficient, false) };
        let mut factors: Vec<Expr> = monomial.iter().map(|atom| self.atom(*atom)).collect();
        if factors.is_empty() {
            return (Expr::Const(magnitude), negative);
        }
        let mut expr = factors.remove(0);
        for factor in factors {
            expr = Expr::bin(BinKind::Mul, expr, factor);
        }
        if magnitude != 1 {
            expr = Expr::bin(BinKind::Mul, expr, Expr::Const(magnitude));
        }
        (expr, negative)
    }

    /// Sums signed parts: positives added left to right, then negatives subtracted.
    fn sum(parts: Vec<(Expr, bool)>) -> Expr {
        let (positive, negative): (Vec<_>, Vec<_>) = parts.into_iter().partition(|(_, negative)| !negative);
        let mut positive = positive.into_iter().map(|(expr, _)| expr);
        let mut total = positive.next().unwrap_or(Expr::Const(0));
        for expr in positive {
            total = Expr::bin(BinKind::Add, total, expr);
        }
        for (expr, _) in negative {
            total = Expr::bin(BinKind::Sub, total, expr);
        }
        total
    }

    /// Terms in a stable order: higher degree first, the constant last.
    fn ordered_terms(poly: &Poly) -> Vec<(super::poly::Monomial, u64)> {
        let mut terms: Vec<(super::poly::Monomial, u64)> = poly.terms().map(|(m, c)| (m.clone(), c)).collect();
        terms.sort_by(|(a, _), (b, _)| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        terms
    }

    fn expanded(&mut self, poly: &Poly) -> Expr {
        let parts = Self::ordered_terms(poly).into_iter().map(|(m, c)| self.term(&m, c)).collect();
        Self::sum(parts)
    }

    /// `a·(Σ terms with a, a removed) + rest` for the atom in most monomials (at least two).
    fn factored_by_atom(&mut self, poly: &Poly) -> Option<Expr> {
        let mut counts: HashMap<AtomId, usize> = HashMap::default();
        for (monomial, _) in poly.terms() {
            let mut atoms = monomial.clone();
            atoms.dedup();
            for atom in atoms {
                *counts.entry(atom).or_default() += 1;
            }
        }
        let (&atom, &count) = counts.iter().max_by(|(a, x), (b, y)| x.cmp(y).then_with(|| b.cmp(a)))?;
        if count < 2 {
            return None;
        }
        let mut inner = Poly::zero();
        let mut rest = Poly::zero();
        for (monomial, coefficient) in poly.terms() {
            if let Some(position) = monomial.iter().position(|candidate| *candidate == atom) {
                let mut cofactor = monomial.clone();
                cofactor.remove(position);
                inner.add_term(cofactor, coefficient);
            } else {
                rest.add_term(monomial.clone(), coefficient);
            }
        }
        // Keep the factored part positive when all of it is negative: a − (…)·x instead of (0 − …)·x.
        let all_negative = inner.terms().all(|(_, c)| signed(c) < 0);
        let (inner, negative) = if all_negative { (inner.neg(), true) } else { (inner, false) };
        let product = Expr::bin(BinKind::Mul, self.poly(&inner), self.atom(atom));
        let mut parts = vec![(product, negative)];
        for (monomial, coefficient) in Self::ordered_terms(&rest) {
            parts.push(self.term(&monomial, coefficient));
        }
        Some(Self::sum(parts))
    }

    /// `g · (poly / g)` for the gcd `g > 1` of the coefficients.
    fn factored_by_gcd(&mut self, poly: &Poly) -> Option<Expr> {
        if poly.len() < 2 {
            return None;
        }
        let mut g: u128 = 0;
        for (_, coefficient) in poly.terms() {
            g = gcd(g, signed(coefficient).unsigned_abs());
        }
        if g <= 1 || g > i64::MAX as u128 {
            return None;
        }
        let mut inner = Poly::zero();
        for (monomial, coefficient) in poly.terms() {
            inner.add_term(monomial.clone(), (signed(coefficient) / g as i128) as i64 as u64);
        }
        Some(Expr::bin(BinKind::Mul, self.poly(&inner), Expr::Const(g as u64)))
    }
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Creates the ops of expression trees before `anchor`.
/// Users of a value looked at for an op of the program that computes a planned node (see `reusing`).
const MAX_REUSE_USERS: usize = 16;

pub struct Materializer<'m> {
    pub anchor: MlirOperation,
    pub r#type: MlirType,
    pub values: &'m HashMap<Key, MlirValue>,
    cache: HashMap<Expr, MlirValue>,
    /// Every op created, in creation order.
    pub created: Vec<MlirOperation>,
    /// Ops of the program that may stand for a planned node computing exactly what they compute (the same
    /// op on the same operands): the ops the replaced root would free. Taking them keeps the parts of an
    /// improved root that did not change as the program wrote them — in place, operands in their order.
    reuse: HashSet<Key>,
    /// The ops of `reuse` taken (they stay alive: no longer freed by the rewrite).
    pub reused: Vec<MlirOperation>,
}

impl<'m> Materializer<'m> {
    pub fn new(anchor: MlirOperation, r#type: MlirType, values: &'m HashMap<Key, MlirValue>) -> Self {
        Materializer {
            anchor,
            r#type,
            values,
            cache: HashMap::default(),
            created: Vec::new(),
            reuse: HashSet::default(),
            reused: Vec::new(),
        }
    }

    /// Lets `emit` take the program's own ops among `ops` where they compute a planned node exactly.
    pub fn reusing(mut self, ops: impl IntoIterator<Item = MlirOperation>) -> Self {
        self.reuse = ops.into_iter().map(ir::op_key).collect();
        self
    }

    /// The value emitted for `expr`, if it was.
    pub fn value_of(&self, expr: &Expr) -> Option<MlirValue> {
        match expr {
            Expr::Value(key) => self.values.get(key).copied(),
            _ => self.cache.get(expr).copied(),
        }
    }

    pub fn emit(&mut self, expr: &Expr) -> Option<MlirValue> {
        if let Some(value) = self.cache.get(expr) {
            return Some(*value);
        }
        let value = match expr {
            Expr::Value(key) => *self.values.get(key)?,
            Expr::Const(constant) => self.create_constant(*constant)?,
            Expr::Bin(kind, a, b) => {
                // Constants are matched by value (the program's may be other SSA constants): emitted only
                // when no op of the program is taken.
                let a_value = if matches!(**a, Expr::Const(_)) { None } else { Some(self.emit(a)?) };
                let b_value = if matches!(**b, Expr::Const(_)) { None } else { Some(self.emit(b)?) };
                if let Some(existing) = self.existing(*kind, (a, a_value), (b, b_value)) {
                    existing
                } else {
                    let a = match a_value {
                        Some(value) => value,
                        None => self.emit(a)?,
                    };
                    let b = match b_value {
                        Some(value) => value,
                        None => self.emit(b)?,
                    };
                    self.create(kind.op_name(), &[a, b])?
                }
            }
        };
        self.cache.insert(expr.clone(), value);
        Some(value)
    }

    /// An op of `reuse` computing `kind` of exactly these operands (either order for a commutative op: the
    /// program's order is kept), each a value or a constant (matched by its value).
    fn existing(
        &mut self,
        kind: BinKind,
        a: (&Expr, Option<MlirValue>),
        b: (&Expr, Option<MlirValue>),
    ) -> Option<MlirValue> {
        if self.reuse.is_empty() {
            return None;
        }
        let matches = |operand: Option<MlirValue>, (expr, value): (&Expr, Option<MlirValue>)| match (operand, value, expr) {
            (Some(operand), Some(value), _) => ir::key(operand) == ir::key(value),
            (Some(operand), None, Expr::Const(constant)) => ir::constant_value(operand) == Some(*constant),
            _ => false,
        };
        let probe = a.1.or(b.1)?;
        let users = ir::users_up_to(probe, MAX_REUSE_USERS)?;
        let commutative = matches!(kind, BinKind::Add | BinKind::Mul);
        let found = users.into_iter().find(|user| {
            self.reuse.contains(&ir::op_key(*user))
                && ir::op_name(*user) == kind.op_name()
                && ir::operand_count(*user) == 2
                && ir::result(*user, 0).is_some_and(|result| ir::value_type(result).ptr == self.r#type.ptr)
                && ((matches(ir::operand(*user, 0), a) && matches(ir::operand(*user, 1), b))
                    || (commutative && matches(ir::operand(*user, 0), b) && matches(ir::operand(*user, 1), a)))
        })?;
        self.reused.push(found);
        ir::result(found, 0)
    }

    fn insert(&mut self, operation: melior::ir::Operation) -> Option<MlirValue> {
        let block = ir::op_block(self.anchor)?;
        let raw = operation.into_raw();
        unsafe { mlir_sys::mlirBlockInsertOwnedOperationBefore(block, self.anchor, raw) };
        self.created.push(raw);
        ir::result(raw, 0)
    }

    fn location(&self) -> melior::ir::Location<'static> {
        unsafe { melior::ir::Location::from_raw(mlir_sys::mlirOperationGetLocation(self.anchor)) }
    }

    fn create_constant(&mut self, value: u64) -> Option<MlirValue> {
        use melior::ir::attribute::IntegerAttribute;
        let r#type = unsafe { melior::ir::Type::from_raw(self.r#type) };
        let location = self.location();
        let context = crate::mlir_context::ContextHandle::of_location(location);
        let attribute = IntegerAttribute::new(r#type, value as i64);
        let operation = melior::ir::operation::OperationBuilder::new("arith.constant", location)
            .add_attributes(&[(melior::ir::Identifier::new(context.get(), "value"), attribute.into())])
            .add_results(&[r#type])
            .build()
            .ok()?;
        self.insert(operation)
    }

    fn create(&mut self, name: &str, operands: &[MlirValue]) -> Option<MlirValue> {
        let r#type = unsafe { melior::ir::Type::from_raw(self.r#type) };
        let operands: Vec<melior::ir::Value> =
            operands.iter().map(|value| unsafe { melior::ir::Value::from_raw(*value) }).collect();
        let operation = melior::ir::operation::OperationBuilder::new(name, self.location())
            .add_operands(&operands)
            .add_results(&[r#type])
            .build()
            .ok()?;
        self.insert(operation)
    }
}

/// The planned polynomials of a planner's memo ([`Planner::take_memo`]) with their expressions, by canonical
/// text (to register what gets emitted).
pub fn planned(engine: &Engine, memo: HashMap<Poly, Expr>) -> Vec<(std::rc::Rc<str>, Expr)> {
    // Sorted: the memo's hash order differs between runs, and the order decides which of several equal
    // values later roots reuse.
    let mut planned: Vec<(std::rc::Rc<str>, Expr)> =
        memo.into_iter().filter_map(|(poly, expr)| Some((engine.canonical_poly_rc(&poly)?, expr))).collect();
    planned.sort_by(|a, b| a.0.cmp(&b.0));
    planned
}
