//! Reading index arithmetic into polynomials, and the rewrite rules (docs/reference/semantics.md, Table II) applied while
//! reading, bottom-up, each with its side condition *proved* ([`Engine::fits`], [`Engine::lt`],
//! [`Engine::nonzero`]: interval arithmetic and structural facts first, Z3 when they cannot decide).
//!
//! | rule | where | condition proved |
//! |---|---|---|
//! | 1 `(d·q + r) mod d → r mod d` | [`Engine::make_rem`] | `d ≠ 0`, `d·q + r` and `r` in `[0, 2^64)` (no wrap); none for `d = 2^k` |
//! | 2 `(d·q + r) div d → q + r div d` (→ `q` when `r < d`) | [`Engine::make_div`] | `d ≠ 0`, no wrap of `d·q + r`, `r` |
//! | 3 `(x mod d) div d → 0` | [`Engine::lt`] (structural) | `d ≠ 0` |
//! | 4 `x div a → 0` | [`Engine::make_div`] | `0 ≤ x < a` |
//! | 5 `x mod a → x` | [`Engine::make_rem`] | `0 ≤ x < a` |
//! | 6 `(n + y) div 1 → n + y` | [`Engine::make_div`] | — |
//! | 7 `a·(x div a) + x mod a → x` | [`Engine::merge_div_rem`] | — (an identity of unsigned division, also for a = 0 where `x urem 0 = x`) |
//!
//! Besides: `x mod 1 → 0`, constant folding, `(x div a) div b → x div (a·b)` for constants, the unflatten-chain
//! rules `(x mod (a·b)) mod b → x mod b` and `(x mod (a·b)) div b → (x div b) mod a` (`b` a constant dividing
//! the modulus or a factor of a symbolic product; `a·b ≠ 0` and no wrap-around proved), and the power-of-two
//! remainder `x mod 2^k` that drops every monomial whose coefficient is a multiple of `2^k` (exact even with
//! wrap-around). Re-association and distribution are
//! implicit in the polynomial form; the emitter ([`super::cost`]) picks factored or expanded forms.

use super::{
    ir::{self, Key},
    poly::{remove_sub_multiset, signed, AtomId, Poly},
    ranges::{Interval, Ranges, Rel},
    smt::SmtProver,
};
use mlir_sys::{MlirOperation, MlirValue};
use super::ir::{HashMap, HashSet};

/// Largest polynomial (in monomials) a product may produce before it is kept as an opaque value.
const MONOMIAL_LIMIT: usize = 48;
/// Work budget of one root (one engine): a value read counts 1, a side condition that is not answered from the
/// cache [`PROOF_WORK`]. A count, so the same input is cut at the same place on any machine; far above what
/// lowered layouts need (hundreds), it only stops pathological inputs (fuzzed expression blow-ups).
const WORK_BUDGET: usize = 20_000;
const PROOF_WORK: usize = 16;
/// Recursion limit of reading arithmetic (deeper values become opaque atoms).
const MAX_READ_DEPTH: usize = 200;
/// Values this large in magnitude stand for "unbounded" in [`Bounds`].
const INFINITY: i128 = 1 << 120;
const TWO_64: i128 = 1 << 64;

/// The rewrites that turn an outermost-first unflatten chain (`x mod (a·b)`, then `div b` and `mod b`) into
/// the innermost-first one, whose quotients the other results share: each step alone costs the same, the
/// chain together less, so the simplifier takes them at equal cost when they remove a chain step.
pub const CHAIN_RULES: &[&str] = &["(x mod (a·b)) div b → (x div b) mod a", "(x mod m) mod a → x mod a (a | m)"];

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Atom {
    /// An SSA value not read as arithmetic.
    Leaf(Key),
    /// `x divui y` of the wrapped values of the two polynomials.
    Div(Poly, Poly),
    /// `x remui y`.
    Rem(Poly, Poly),
}

/// Bounds of the mathematical value of a polynomial (with signed coefficients); saturates at ±[`INFINITY`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub lo: i128,
    pub hi: i128,
}

impl Bounds {
    fn fits(self) -> bool {
        self.lo >= 0 && self.hi < TWO_64
    }
}

fn saturate(value: i128) -> i128 {
    value.clamp(-INFINITY, INFINITY)
}

fn mul_bounds(a: Bounds, b: Bounds) -> Bounds {
    // The four corner products (no allocation: this runs for every factor of every bounded monomial).
    let (mut lo, mut hi) = (i128::MAX, i128::MIN);
    for x in [a.lo, a.hi] {
        for y in [b.lo, b.hi] {
            let Some(product) = x.checked_mul(y) else { return Bounds { lo: -INFINITY, hi: INFINITY } };
            let product = saturate(product);
            lo = lo.min(product);
            hi = hi.max(product);
        }
    }
    Bounds { lo, hi }
}

/// A bound in a root-scoped fact: an SSA value or a constant.
#[derive(Clone, Copy, Debug)]
pub enum Bound {
    Value(MlirValue),
    Const(u64),
}

/// One rewrite that fired (for `-debug`-style logs and tests).
#[derive(Clone, Debug)]
pub struct Firing {
    pub rule: &'static str,
}

/// The reader/rewriter for one root value: atoms, memoized polynomials, the facts in scope, the prover.
pub struct Engine<'r> {
    pub ranges: &'r mut Ranges,
    atoms: Vec<Atom>,
    ids: HashMap<Atom, AtomId>,
    leaf_values: HashMap<AtomId, MlirValue>,
    bounds_memo: HashMap<AtomId, Bounds>,
    memo: HashMap<Key, Poly>,
    /// Values whose polynomial is known, by polynomial (to reuse existing values when emitting).
    pub by_poly: HashMap<Poly, Vec<MlirValue>>,
    /// Facts that hold for this root only (the `disjoint` promise of an `affine.linearize_index` in its cone:
    /// the root is poison when they fail, so any rewrite refines it).
    scoped: HashMap<Key, Vec<(Rel, Bound)>>,
    reading: HashSet<Key>,
    /// Values read as arithmetic (not opaque).
    read_values: HashSet<Key>,
    depth: usize,
    pub smt: SmtProver,
    /// Apply the partial forms of rules 1 and 2 (`q + r div d`, `r mod d`) even when the local estimate says
    /// they cost more (the caller plans both ways and keeps the cheaper root).
    pub eager: bool,
    /// Whether a guard of a partial rule form refused (only then can an eager plan differ from this one).
    pub guard_refused: bool,
    /// Inside a shared-factor rewrite's own remainder or tail: the rule is not applied there again (its
    /// numerator has the same shape, and two factors could hand it back and forth).
    in_shared_factor: bool,
    /// Canonical texts of atoms already named (an atom's text never changes; nested divisions would otherwise
    /// be formatted again at every mention).
    atom_texts: std::cell::RefCell<HashMap<AtomId, std::rc::Rc<str>>>,
    /// Upper bounds of atoms' canonical text lengths (see [`MAX_CANONICAL_TEXT`]).
    atom_text_sizes: std::cell::RefCell<HashMap<AtomId, usize>>,
    /// Canonical texts of polynomials already named (`None`: too long to name). A root's reading, planning
    /// and proof keys name the same polynomials several times each.
    poly_texts: std::cell::RefCell<HashMap<Poly, Option<std::rc::Rc<str>>>>,
    /// The facts-in-scope part of [`Engine::canonical`], built once per set of scoped facts.
    scoped_text: std::cell::RefCell<Option<std::rc::Rc<str>>>,
    scoped_values: HashMap<Key, MlirValue>,
    pub firings: Vec<Firing>,
    /// Conditions that could not be proved (each left the IR unchanged).
    pub unproved: Vec<String>,
    proof_cache: HashMap<(u8, Poly, Poly), bool>,
    /// Divisors of the program's divisions (and their factors): division by zero is undefined
    /// (docs/reference/semantics.md), so each is non-zero wherever the division is evaluated.
    divisors: HashSet<Poly>,
    /// Work done for this root (see [`WORK_BUDGET`]).
    work: usize,
}

impl<'r> Engine<'r> {
    pub fn new(ranges: &'r mut Ranges, smt: SmtProver) -> Engine<'r> {
        Engine {
            ranges,
            atoms: Vec::new(),
            ids: HashMap::default(),
            leaf_values: HashMap::default(),
            bounds_memo: HashMap::default(),
            memo: HashMap::default(),
            by_poly: HashMap::default(),
            scoped: HashMap::default(),
            reading: HashSet::default(),
            read_values: HashSet::default(),
            depth: 0,
            smt,
            eager: false,
            guard_refused: false,
            in_shared_factor: false,
            atom_texts: Default::default(),
            atom_text_sizes: Default::default(),
            poly_texts: Default::default(),
            scoped_text: Default::default(),
            scoped_values: HashMap::default(),
            firings: Vec::new(),
            unproved: Vec::new(),
            proof_cache: HashMap::default(),
            divisors: HashSet::default(),
            work: 0,
        }
    }

    /// Values read as arithmetic so far (the others are atoms).
    pub fn read_values(&self) -> &HashSet<Key> {
        &self.read_values
    }

    pub fn atom(&self, id: AtomId) -> &Atom {
        &self.atoms[id]
    }

    pub fn leaf_value(&self, id: AtomId) -> Option<MlirValue> {
        self.leaf_values.get(&id).copied()
    }

    fn intern(&mut self, atom: Atom) -> AtomId {
        if let Some(id) = self.ids.get(&atom) {
            return *id;
        }
        let id = self.atoms.len();
        self.atoms.push(atom.clone());
        self.ids.insert(atom, id);
        id
    }

    pub fn leaf(&mut self, value: MlirValue) -> Poly {
        let id = self.intern(Atom::Leaf(ir::key(value)));
        self.leaf_values.insert(id, value);
        Poly::atom(id)
    }

    fn fire(&mut self, rule: &'static str) {
        tracing::debug!(target: "lego", "arith-simplification: {rule}");
        self.firings.push(Firing { rule });
    }

    fn unprovable(&mut self, what: String) {
        tracing::debug!(target: "lego", "arith-simplification: not rewritten, could not prove {what}");
        self.unproved.push(what);
    }

    // -------------------------------------------------------------------------------------------------
    // Facts in scope

    fn add_scoped(&mut self, value: MlirValue, rel: Rel, bound: Bound) {
        self.scoped.entry(ir::key(value)).or_default().push((rel, bound));
        self.scoped_text.replace(None);
        self.scoped_values.insert(ir::key(value), value);
    }

    /// The root-scoped facts, as `(value, REL, bound)`.
    pub fn scoped_facts(&self) -> Vec<(MlirValue, Rel, Bound)> {
        let mut facts = Vec::new();
        for (key, list) in &self.scoped {
            if let Some(value) = self.scoped_values.get(key) {
                facts.extend(list.iter().map(|(rel, bound)| (*value, *rel, *bound)));
            }
        }
        facts
    }

    /// Adds the facts that hold for `root` only: the promises of every `affine.linearize_index … disjoint` in
    /// its cone, and the assumptions that dominate its definition without being in the block that defines
    /// their value (those are not global facts, see [`Ranges`]).
    pub fn collect_scoped_facts(&mut self, root: MlirValue) {
        if let Some(def) = ir::defining_op(root) {
            for (assumption, value, rel, other) in self.ranges.dominating_assumptions(def) {
                if ir::op_dominates(assumption, def) {
                    self.add_scoped(value, rel, Bound::Value(other));
                }
            }
        }
        let mut seen = HashSet::default();
        let mut stack = vec![root];
        while let Some(value) = stack.pop() {
            if !seen.insert(ir::key(value)) || seen.len() > 4096 {
                continue;
            }
            let Some(op) = ir::defining_op(value) else { continue };
            if !is_expression_op(op) {
                continue;
            }
            if ir::op_name(op) == "affine.linearize_index" {
                if let Some(linearize) = Linearize::read(op) {
                    if linearize.disjoint {
                        // 0 ≤ i_k < n_k for every index but the first (which MLIR allows to be negative).
                        for (index, bound) in linearize.indices[1..].iter().zip(linearize.inner_sizes()) {
                            self.add_scoped(*index, Rel::Lt, bound);
                        }
                    }
                }
            }
            stack.extend(ir::operands(op));
        }
    }

    /// Relational facts about a value: global ones and the root-scoped ones.
    fn relations(&mut self, value: MlirValue) -> Vec<(Rel, Bound)> {
        let mut relations: Vec<(Rel, Bound)> =
            self.ranges.relations(value).into_iter().map(|(rel, other)| (rel, Bound::Value(other))).collect();
        if let Some(scoped) = self.scoped.get(&ir::key(value)) {
            relations.extend(scoped.iter().copied());
        }
        relations
    }

    fn bound_interval(&mut self, bound: Bound) -> Interval {
        match bound {
            Bound::Const(value) => Interval::exact(value),
            Bound::Value(value) => self.ranges.interval(value).unwrap_or(Interval::full(64)),
        }
    }

    pub fn bound_poly(&mut self, bound: Bound) -> Poly {
        match bound {
            Bound::Const(value) => Poly::constant(value),
            Bound::Value(value) => self.poly_of(value),
        }
    }

    // -------------------------------------------------------------------------------------------------
    // Bounds

    pub fn atom_bounds(&mut self, id: AtomId) -> Bounds {
        if let Some(bounds) = self.bounds_memo.get(&id) {
            return *bounds;
        }
        // Provisional entry: cycles cannot occur (atoms are built bottom-up), but stay safe.
        self.bounds_memo.insert(id, Bounds { lo: 0, hi: TWO_64 - 1 });
        let bounds = match self.atoms[id].clone() {
            Atom::Leaf(_) => {
                // Every leaf atom is created by `leaf`, which records its value.
                let Some(value) = self.leaf_value(id) else { return Bounds { lo: 0, hi: TWO_64 - 1 } };
                let mut interval = self.ranges.interval(value).unwrap_or(Interval::full(64));
                for (rel, bound) in self.scoped.get(&ir::key(value)).cloned().unwrap_or_default() {
                    let other = self.bound_interval(bound);
                    let (lo, hi) = match rel {
                        Rel::Lt if other.hi >= 1 => (0, other.hi - 1),
                        Rel::Le => (0, other.hi),
                        Rel::Gt if other.lo < u64::MAX => (other.lo + 1, u64::MAX),
                        Rel::Ge => (other.lo, u64::MAX),
                        Rel::Eq => (other.lo, other.hi),
                        _ => continue,
                    };
                    let (lo, hi) = (interval.lo.max(lo), interval.hi.min(hi));
                    if lo <= hi {
                        interval = Interval::new(lo, hi);
                    }
                }
                Bounds { lo: interval.lo as i128, hi: interval.hi as i128 }
            }
            Atom::Div(x, y) => {
                let (bx, by) = (self.bounds(&x), self.bounds(&y));
                if bx.fits() && by.fits() && by.hi >= 1 {
                    // A zero divisor is undefined (docs/reference/semantics.md): the divisor is at least 1 where this runs.
                    Bounds { lo: bx.lo / by.hi, hi: bx.hi / by.lo.max(1) }
                } else {
                    Bounds { lo: 0, hi: TWO_64 - 1 }
                }
            }
            Atom::Rem(x, y) => {
                let (bx, by) = (self.bounds(&x), self.bounds(&y));
                let dividend_hi = if bx.fits() { bx.hi } else { TWO_64 - 1 };
                if by.fits() && by.hi >= 1 {
                    // x remui y < y: a zero divisor is undefined (docs/reference/semantics.md).
                    Bounds { lo: 0, hi: dividend_hi.min(by.hi - 1) }
                } else {
                    Bounds { lo: 0, hi: dividend_hi }
                }
            }
        };
        self.bounds_memo.insert(id, bounds);
        bounds
    }

    /// Bounds of the mathematical value of `poly` (signed coefficients).
    pub fn bounds(&mut self, poly: &Poly) -> Bounds {
        let mut total = Bounds { lo: 0, hi: 0 };
        for (monomial, coefficient) in poly.terms() {
            let c = signed(coefficient);
            let mut term = Bounds { lo: c, hi: c };
            for atom in monomial {
                term = mul_bounds(term, self.atom_bounds(*atom));
            }
            total = Bounds { lo: saturate(total.lo + term.lo), hi: saturate(total.hi + term.hi) };
        }
        total
    }

    // -------------------------------------------------------------------------------------------------
    // The prover: side conditions

    fn cached(&mut self, kind: u8, a: &Poly, b: &Poly, prove: impl FnOnce(&mut Self) -> bool) -> bool {
        let key = (kind, a.clone(), b.clone());
        if let Some(known) = self.proof_cache.get(&key) {
            return *known;
        }
        // Past the root's work budget nothing more is proved (the rewrite it would enable is not made).
        if self.work >= WORK_BUDGET {
            return false;
        }
        self.work += PROOF_WORK;
        let proved = prove(self);
        self.proof_cache.insert(key, proved);
        proved
    }

    /// The mathematical value of `p` lies in `[0, 2^64)`, so its wrapped value is that value.
    pub fn fits(&mut self, p: &Poly) -> bool {
        if self.bounds(p).fits() {
            return true;
        }
        // assume-no-wrap: sums and products of non-negative index values (every atom is one) do not wrap.
        if self.ranges.assume_no_wrap && p.terms().all(|(_, coefficient)| signed(coefficient) > 0) {
            return true;
        }
        self.cached(0, p, &Poly::zero(), |engine| {
            // x·y where one factor is below a bound B and the other is below C with B·C fitting, etc. is left
            // to the solver; a single leaf/atom always fits.
            if p.as_atom().is_some() {
                return true;
            }
            let proved = engine.smt_fits(p);
            if !proved {
                engine.unprovable(format!("that {} does not wrap around", engine.describe(p)));
            }
            proved
        })
    }

    /// `p ≥ 1` (and `p` does not wrap).
    pub fn nonzero(&mut self, p: &Poly) -> bool {
        if self.divisors.contains(p) {
            return true;
        }
        if !self.fits(p) {
            return false;
        }
        if self.bounds(p).lo >= 1 {
            return true;
        }
        self.cached(1, p, &Poly::zero(), |engine| {
            if let Some((monomial, coefficient)) = p.single() {
                let monomial = monomial.clone();
                if signed(coefficient) > 0 && monomial.iter().all(|atom| engine.atom_nonzero(*atom)) {
                    return true;
                }
            }
            let proved = engine.smt_nonzero(p);
            if !proved {
                engine.unprovable(format!("{} ≠ 0", engine.describe(p)));
            }
            proved
        })
    }

    fn atom_nonzero(&mut self, id: AtomId) -> bool {
        if self.atom_bounds(id).lo >= 1 {
            return true;
        }
        let Some(value) = self.leaf_value(id) else { return false };
        // x > y (any y ≥ 0) implies x ≥ 1; so does x ≥ b with b ≥ 1.
        for (rel, bound) in self.ranges.relations(value) {
            let other = self.ranges.interval(bound).unwrap_or(Interval::full(64));
            match rel {
                Rel::Gt => return true,
                Rel::Ge | Rel::Eq if other.lo >= 1 => return true,
                _ => {}
            }
        }
        false
    }

    /// `p < q` for the mathematical values, both in `[0, 2^64)`.
    pub fn lt(&mut self, p: &Poly, q: &Poly) -> bool {
        if !self.fits(p) || !self.fits(q) {
            return false;
        }
        let (bp, bq) = (self.bounds(p), self.bounds(q));
        if bp.hi < bq.lo {
            return true;
        }
        if bp.lo >= bq.hi {
            return false;
        }
        self.cached(2, p, q, |engine| {
            if engine.lt_structural(p, q, 0) {
                return true;
            }
            let proved = engine.smt_lt(p, q);
            if !proved {
                engine.unprovable(format!("{} < {}", engine.describe(p), engine.describe(q)));
            }
            proved
        })
    }

    /// `p` lies in `[0, 2^63)`, where signed and unsigned readings agree.
    pub fn below_signed_limit(&mut self, p: &Poly) -> bool {
        if !self.fits(p) {
            return false;
        }
        // The prover's `<` takes the limit minus one: `p < 2^63 − 1` (2^63 itself is no positive constant).
        self.bounds(p).hi <= i64::MAX as i128 || self.lt(p, &Poly::constant(i64::MAX as u64))
    }

    fn lt_structural(&mut self, p: &Poly, q: &Poly, depth: usize) -> bool {
        if depth > 6 || !self.fits(p) || !self.fits(q) {
            return false;
        }
        let (bp, bq) = (self.bounds(p), self.bounds(q));
        if bp.hi < bq.lo {
            return true;
        }
        if p.is_zero() {
            return self.nonzero(q);
        }
        if let Some(atom) = p.as_atom() {
            match self.atoms[atom].clone() {
                // Rule 3: (x mod d) < d for d ≠ 0.
                Atom::Rem(_, divisor) if &divisor == q => return self.nonzero(q),
                // y div d < q when y < q·d (d ≥ 1: the program divides by it): y div d ≤ (q·d − 1) div d = q − 1.
                Atom::Div(dividend, divisor) => {
                    if let Some(product) = q.mul(&divisor, MONOMIAL_LIMIT) {
                        if self.nonzero(&divisor) && self.below(&dividend, &product, depth + 1) {
                            return true;
                        }
                    }
                }
                Atom::Leaf(_) => {
                    let Some(value) = self.leaf_value(atom) else { return false };
                    for (rel, bound) in self.relations(value) {
                        let other = self.bound_poly(bound);
                        let bounds = self.bounds(&other);
                        let below = match rel {
                            Rel::Lt => &other == q || (bounds.fits() && bounds.hi <= bq.lo) || self.same_under_equations(&other, q),
                            Rel::Le => &other.add(&Poly::constant(1)) == q || (bounds.fits() && bounds.hi < bq.lo),
                            _ => false,
                        };
                        if below {
                            return true;
                        }
                    }
                }
                _ => {}
            }
        }
        // Mixed radix: q = b·d and p = a·d + r with r < d and a < b gives p ≤ (b−1)·d + d − 1 < q.
        let Some((monomial, coefficient)) = q.single() else { return false };
        let monomial = monomial.clone();
        let mut divisors: Vec<Poly> = monomial.iter().map(|atom| Poly::atom(*atom)).collect();
        divisors.dedup();
        if signed(coefficient) > 1 {
            divisors.push(Poly::constant(coefficient));
        }
        // Then the products q shares with p's terms (d = 4·s for p = a·4·s + r, q = 8·s), for the tails of the
        // shared-factor rules only: elsewhere they would change which side conditions the solver is asked.
        if self.in_shared_factor {
            for factor in shared_factors(p, q) {
                if !divisors.contains(&factor) {
                    divisors.push(factor);
                }
            }
        }
        for d in divisors {
            let Some((b, _)) = q.split(&d) else { continue };
            let Some((a, r)) = p.split(&d) else { continue };
            if a.is_zero() {
                continue;
            }
            if self.fits(&a) && self.fits(&r) && self.lt_structural(&r, &d, depth + 1) && self.lt_structural(&a, &b, depth + 1) {
                return true;
            }
        }
        false
    }

    /// `p < q` for the mathematical value of `q`, which need not fit in 64 bits (`q ≥ 0` is required): when
    /// `q` does not fit, a fact `p < v` with `v` the program's value of `q` (wrapped to 64 bits) still proves
    /// it — if `q ≥ 2^64`, `p < 2^64 ≤ q` for any `p` that fits; otherwise `v = q`.
    fn below(&mut self, p: &Poly, q: &Poly, depth: usize) -> bool {
        if self.fits(q) {
            return self.lt_structural(p, q, depth);
        }
        if self.bounds(q).lo < 0 || !self.fits(p) {
            return false;
        }
        let Some(Atom::Leaf(_)) = p.as_atom().map(|atom| self.atoms[atom].clone()) else { return false };
        let Some(value) = p.as_atom().and_then(|atom| self.leaf_value(atom)) else { return false };
        for (rel, bound) in self.relations(value) {
            if rel != Rel::Lt {
                continue;
            }
            let other = self.bound_poly(bound);
            if &other == q || self.same_under_equations(&other, q) {
                return true;
            }
        }
        false
    }

    /// Values stated equal to `value`: `value == v` (`lego.assume` of `cmpi eq`), or both `value ≥ v` and
    /// `v ≥ value` (the size-consistency equations `lego-to-arith{assume-bounds=true}` states for a tile_by's
    /// inverse as two `lego.assume_bounds … lb :`).
    fn equal_values(&mut self, value: MlirValue) -> Vec<MlirValue> {
        let relations = self.relations(value);
        let mut equal = Vec::new();
        for (rel, bound) in &relations {
            let Bound::Value(other) = bound else { continue };
            let stated = match rel {
                Rel::Eq => true,
                Rel::Ge => relations.iter().any(|(r, b)| *r == Rel::Le && matches!(b, Bound::Value(v) if ir::key(*v) == ir::key(*other))),
                _ => false,
            };
            if stated && ir::key(*other) != ir::key(value) && !equal.iter().any(|v: &MlirValue| ir::key(*v) == ir::key(*other)) {
                equal.push(*other);
            }
        }
        equal
    }

    /// Whether `a` and `b` are the same polynomial once each leaf with a stated equal value is replaced by that
    /// value's polynomial (identities modulo 2^64, as the facts are about the program's values).
    fn same_under_equations(&mut self, a: &Poly, b: &Poly) -> bool {
        let mut atoms = a.atoms();
        atoms.extend(b.atoms());
        atoms.sort_unstable();
        atoms.dedup();
        let (mut a, mut b) = (a.clone(), b.clone());
        let mut substituted = false;
        for atom in atoms {
            let Some(value) = self.leaf_value(atom) else { continue };
            for other in self.equal_values(value) {
                let by = self.poly_of(other);
                if by.atoms().contains(&atom) || by.as_atom().is_some_and(|id| self.leaf_value(id).is_some()) {
                    // Not a definition of the leaf by other atoms (one leaf equal to another is not used: it
                    // could substitute back and forth).
                    continue;
                }
                let (Some(new_a), Some(new_b)) = (substitute(&a, atom, &by), substitute(&b, atom, &by)) else { continue };
                a = new_a;
                b = new_b;
                substituted = true;
                break;
            }
        }
        substituted && a == b
    }

    // -------------------------------------------------------------------------------------------------
    // Reading IR

    /// The (simplified) polynomial of `value`.
    pub fn poly_of(&mut self, value: MlirValue) -> Poly {
        let key = ir::key(value);
        if let Some(poly) = self.memo.get(&key) {
            return poly.clone();
        }
        // Past the work budget the rest of the cone stays as written (an opaque value): the plan is then built
        // from what was read so far and still replaces the root only when it is cheaper (the best form found).
        if self.reading.contains(&key) || self.depth > MAX_READ_DEPTH || self.work >= WORK_BUDGET {
            return self.leaf(value);
        }
        self.work += 1;
        self.reading.insert(key);
        self.depth += 1;
        let poly = match self.read(value) {
            Some(poly) => {
                self.read_values.insert(key);
                poly
            }
            None => self.leaf(value),
        };
        self.depth -= 1;
        self.reading.remove(&key);
        self.memo.insert(key, poly.clone());
        self.by_poly.entry(poly.clone()).or_default().push(value);
        poly
    }

    fn read(&mut self, value: MlirValue) -> Option<Poly> {
        if ir::width(value)? != 64 {
            return None;
        }
        if let Some(constant) = ir::constant_value(value) {
            return Some(Poly::constant(constant));
        }
        let op = ir::defining_op(value)?;
        let name = ir::op_name(op);
        let operand = |engine: &mut Self, index: usize| -> Option<Poly> { Some(engine.poly_of(ir::operand(op, index)?)) };
        match name {
            "arith.addi" => {
                let sum = operand(self, 0)?.add(&operand(self, 1)?);
                Some(self.merge_div_rem(sum))
            }
            "arith.subi" => {
                let difference = operand(self, 0)?.sub(&operand(self, 1)?);
                Some(self.merge_div_rem(difference))
            }
            "arith.muli" => {
                let product = operand(self, 0)?.mul(&operand(self, 1)?, MONOMIAL_LIMIT)?;
                Some(self.merge_div_rem(product))
            }
            "arith.shli" => {
                let amount = ir::constant_value(ir::operand(op, 1)?)?;
                (amount < 64).then_some(())?;
                Some(operand(self, 0)?.scale(1u64 << amount))
            }
            "arith.shrui" => {
                let amount = ir::constant_value(ir::operand(op, 1)?)?;
                (amount < 64).then_some(())?;
                let x = operand(self, 0)?;
                Some(self.make_div(x, Poly::constant(1u64 << amount)))
            }
            "arith.andi" => {
                let (a, b) = (ir::operand(op, 0)?, ir::operand(op, 1)?);
                let (x, mask) = match (ir::constant_value(a), ir::constant_value(b)) {
                    (_, Some(mask)) => (a, mask),
                    (Some(mask), None) => (b, mask),
                    _ => return None,
                };
                // x & (2^k − 1) = x mod 2^k
                if mask == u64::MAX {
                    return Some(self.poly_of(x));
                }
                let modulus = mask.checked_add(1)?;
                modulus.is_power_of_two().then_some(())?;
                let x = self.poly_of(x);
                Some(self.make_rem(x, Poly::constant(modulus)))
            }
            "arith.divui" => {
                let (x, y) = (operand(self, 0)?, operand(self, 1)?);
                Some(self.make_div(x, y))
            }
            "arith.remui" => {
                let (x, y) = (operand(self, 0)?, operand(self, 1)?);
                Some(self.make_rem(x, y))
            }
            "affine.linearize_index" => {
                let linearize = Linearize::read(op)?;
                // B(n⃗, i⃗) = ((i1·n2 + i2)·n3 + …)·nq + iq  (the outer size, if given, does not enter)
                let mut total = self.poly_of(linearize.indices[0]);
                for (index, size) in linearize.indices[1..].iter().zip(linearize.inner_sizes()) {
                    let size = self.bound_poly(size);
                    let index = self.poly_of(*index);
                    total = total.mul(&size, MONOMIAL_LIMIT)?.add(&index);
                }
                Some(self.merge_div_rem(total))
            }
            "affine.delinearize_index" => self.read_delinearize(op, value),
            _ => None,
        }
    }

    /// Result k of `affine.delinearize_index %x into (b0, …, bq)`: `(x div (b_{k+1}·…·bq)) mod b_k` (no `mod`
    /// for the first result). `affine` uses floor division and modulo of *signed* values, which agree with
    /// `divui`/`remui` when `x` and every size lie in `[0, 2^63)`: proved, or the result stays opaque.
    fn read_delinearize(&mut self, op: MlirOperation, value: MlirValue) -> Option<Poly> {
        let delinearize = Delinearize::read(op)?;
        let results = ir::result_count(op);
        let index = (0..results).find(|k| ir::result(op, *k).map(ir::key) == Some(ir::key(value)))?;
        let x = self.poly_of(delinearize.input);
        // Sizes below the result, innermost last: with the outer size absent the basis has results − 1 entries.
        let basis: Vec<Poly> = delinearize.basis.iter().map(|bound| self.bound_poly(*bound)).collect();
        let offset = results - basis.len();
        if !self.below_signed_limit(&x) {
            return None;
        }
        let mut divisor = Poly::constant(1);
        // divisor = Π sizes strictly inside result `index`
        let inner_start = index + 1;
        for k in inner_start..results {
            let size = basis.get(k - offset)?;
            if !self.nonzero(size) || !self.below_signed_limit(size) {
                return None;
            }
            divisor = divisor.mul(size, MONOMIAL_LIMIT)?;
        }
        if !self.fits(&divisor) || !self.below_signed_limit(&divisor) {
            return None;
        }
        // Divide size by size, innermost first (as B⁻¹ does): the chain shares its steps between results, and
        // a power-of-two step after another division stays a shift (see `make_div`).
        let mut quotient = x;
        for k in (inner_start..results).rev() {
            let size = basis.get(k - offset)?.clone();
            quotient = self.make_div(quotient, size);
        }
        if index == 0 {
            return Some(quotient);
        }
        let size = basis.get(index - offset)?.clone();
        if !self.nonzero(&size) || !self.below_signed_limit(&size) {
            return None;
        }
        Some(self.make_rem(quotient, size))
    }

    // -------------------------------------------------------------------------------------------------
    // Rules

    /// Division `x divui y`, simplified.
    pub fn make_div(&mut self, x: Poly, y: Poly) -> Poly {
        self.divides_by(&y);
        if let Some(divisor) = y.as_constant() {
            if divisor == 1 {
                self.fire("(n + y) div 1 → n + y");
                return x;
            }
            if divisor != 0 {
                if let Some(dividend) = x.as_constant() {
                    self.fire("constant folding");
                    return Poly::constant(dividend / divisor);
                }
                // (x div a) div b → x div (a·b) — but a power-of-two b after a division by another a stays
                // (a shift of a quotient other values share).
                if let Some(Atom::Div(inner, a)) = x.as_atom().map(|atom| self.atoms[atom].clone()) {
                    if let Some(a) = a.as_constant().filter(|a| *a != 0 && (a.is_power_of_two() || !divisor.is_power_of_two())) {
                        if let Some(product) = a.checked_mul(divisor) {
                            self.fire("(x div a) div b → x div (a·b)");
                            return self.make_div(inner, Poly::constant(product));
                        }
                    }
                }
            }
        }
        // (x mod (a·b)) div b → (x div b) mod a: an unflatten chain that divides by full strides, outermost
        // first, becomes one that divides innermost first, so `x div b` is shared by every result (and by CSE
        // between results). With x = q·a·b + s·b + t (s < a, t < b) both sides are s; needs a·b ≠ 0 without
        // wrap-around (the program divides by it: division by zero is undefined; `fits` proves the product does
        // not wrap, or assume-no-wrap gives it).
        if let Some(Atom::Rem(inner, modulus)) = x.as_atom().map(|atom| self.atoms[atom].clone()) {
            if let Some(a) = self.cofactor(&modulus, &y) {
                if self.nonzero(&modulus) && self.fits(&modulus) && self.fits(&a) && self.fits(&y) {
                    self.fire("(x mod (a·b)) div b → (x div b) mod a");
                    let quotient = self.make_div(inner, y);
                    return self.make_rem(quotient, a);
                }
            }
        }
        if x.is_zero() {
            if self.nonzero(&y) {
                self.fire("0 div d → 0");
                return Poly::zero();
            }
            return self.div_atom(x, y);
        }
        // Rule 2: (d·q + r) div d → q (0 ≤ r < d), else q + r div d — the latter only when not costlier.
        if let Some((quotient, rest)) = x.split(&y) {
            if !quotient.is_zero() && self.nonzero(&y) && self.fits(&x) && self.fits(&rest) {
                let firings = self.firings.len();
                let tail = self.make_div(rest, y.clone());
                let split = self.merge_div_rem(quotient.add(&tail));
                let whole = self.div_atom(x.clone(), y.clone());
                if self.eager || tail.is_zero() || self.estimate(&split) <= self.estimate(&whole) {
                    self.fire(if tail.is_zero() { "(d·q + r) div d → q (0 ≤ r < d)" } else { "(d·q + r) div d → q + r div d" });
                    return split;
                }
                self.guard_refused = true;
                self.firings.truncate(firings);
            }
        }
        // Mixed radix (rule 2 through a factor): x = f·q + r with 0 ≤ r < f and y = f·e gives x div y = q div e.
        for f in self.radix_factors(&x, &y) {
            let (Some((q, r)), Some((e, rest))) = (x.split(&f), y.split(&f)) else { continue };
            if q.is_zero() || !rest.is_zero() {
                continue;
            }
            if self.nonzero(&f) && self.nonzero(&e) && self.fits(&x) && self.fits(&q) && self.fits(&r) && self.lt(&r, &f) {
                self.fire("(f·q + r) div (f·e) → q div e (0 ≤ r < f)");
                return self.make_div(q, e);
            }
        }
        // Shared factor: x = q·s + r, y = k·s gives x div y = q div k + ((q mod k)·s + r) div (k·s), since
        // q·s = (q div k)·(k·s) + (q mod k)·s. Exact for r ≥ 0 without wrap-around; worth it when the tail
        // vanishes (r < s makes (q mod k)·s + r < k·s) or the whole is cheaper. The factors the mixed-radix rule
        // above tries are single atoms and constants; this one also takes products such as 4·s.
        for (s, q, r, k) in self.shared_factor_splits(&x, &y) {
            let firings = self.firings.len();
            let head = self.make_div(q.clone(), k.clone());
            let outer = std::mem::replace(&mut self.in_shared_factor, true);
            let tail = self.reduced_numerator(q, &k, &s, &r).map(|numerator| self.make_div(numerator, y.clone()));
            self.in_shared_factor = outer;
            let Some(tail) = tail else {
                self.firings.truncate(firings);
                continue;
            };
            let split = self.merge_div_rem(head.add(&tail));
            let whole = self.div_atom(x.clone(), y.clone());
            if tail.is_zero() || self.estimate(&split) < self.estimate(&whole) {
                self.fire(if tail.is_zero() {
                    "(q·s + r) div (k·s) → q div k (0 ≤ r < s)"
                } else {
                    "(q·s + r) div (k·s) → q div k + ((q mod k)·s + r) div (k·s)"
                });
                return split;
            }
            self.firings.truncate(firings);
        }
        // Rules 3 and 4: x div a → 0 for 0 ≤ x < a.
        if self.lt(&x, &y) {
            self.fire("x div a → 0 (0 ≤ x < a)");
            return Poly::zero();
        }
        self.div_atom(x, y)
    }

    /// Proper factors `f` of a one-monomial divisor `y` worth trying for the mixed-radix rule, largest first:
    /// gcds of a constant divisor with the dividend's coefficients, and the divisor's single atoms.
    fn radix_factors(&self, x: &Poly, y: &Poly) -> Vec<Poly> {
        let Some((monomial, coefficient)) = y.single() else { return Vec::new() };
        let c = signed(coefficient);
        if c <= 0 {
            return Vec::new();
        }
        let mut constants: Vec<i128> = Vec::new();
        for (m, k) in x.terms() {
            if m.is_empty() {
                continue;
            }
            let g = gcd(c, signed(k).abs());
            if g > 1 && (g < c || !monomial.is_empty()) && !constants.contains(&g) {
                constants.push(g);
            }
        }
        constants.sort_unstable_by(|a, b| b.cmp(a));
        let mut factors: Vec<Poly> = Vec::new();
        if monomial.len() > 1 || (monomial.len() == 1 && c > 1) {
            let mut atoms = monomial.clone();
            atoms.dedup();
            factors.extend(atoms.into_iter().map(Poly::atom));
        }
        factors.extend(constants.into_iter().map(|g| Poly::constant(g as u64)));
        factors
    }

    /// The splits `x = q·s + r`, `y = k·s` of the shared-factor rules, for factors `s` of the one-monomial
    /// divisor `y` shared with a term of `x` (its gcd with that term: atoms in both, gcd of the coefficients),
    /// each with every side condition proved: `s, k ≥ 1`, `x, q, r, y` fit (so `r ≥ 0` and nothing wraps),
    /// and `q < k` not provable (then `q mod k = q` and the rewrite would give `x` back).
    fn shared_factor_splits(&mut self, x: &Poly, y: &Poly) -> Vec<(Poly, Poly, Poly, Poly)> {
        if self.in_shared_factor {
            return Vec::new();
        }
        let mut splits = Vec::new();
        for s in shared_factors(x, y) {
            let (Some((q, r)), Some((k, rest))) = (x.split(&s), y.split(&s)) else { continue };
            if q.is_zero() || !rest.is_zero() || k.is_zero() || k.as_constant() == Some(1) {
                continue;
            }
            if self.factor_nonzero(&s)
                && self.factor_nonzero(&k)
                && self.fits(x)
                && self.fits(&q)
                && self.fits(&r)
                && self.fits(y)
                && !self.lt(&q, &k)
            {
                splits.push((s, q, r, k));
            }
        }
        splits
    }

    /// `f ≠ 0` for a factor `f` of a divisor: a positive coefficient times atoms the program divides by (each
    /// non-zero, docs/reference/semantics.md) is non-zero when it fits; otherwise as [`Engine::nonzero`].
    fn factor_nonzero(&mut self, f: &Poly) -> bool {
        if let Some((monomial, coefficient)) = f.single() {
            let divided = monomial.iter().all(|atom| self.divisors.contains(&Poly::atom(*atom)));
            if signed(coefficient) > 0 && divided && self.fits(f) {
                return true;
            }
        }
        self.nonzero(f)
    }

    /// `(q mod k)·s + r`, the numerator left after the shared factor's whole multiples of `k·s` are taken out;
    /// None when the product is too large to keep as a polynomial.
    fn reduced_numerator(&mut self, q: Poly, k: &Poly, s: &Poly, r: &Poly) -> Option<Poly> {
        let reduced = self.make_rem(q, k.clone());
        Some(reduced.mul(s, MONOMIAL_LIMIT)?.add(r))
    }

    /// Records that the program divides by `y` where the value being built is evaluated: `y ≠ 0` there, and so
    /// is every factor of a one-monomial `y` (`f·e ≠ 0` gives `f ≠ 0`, `e ≠ 0`). Only a non-zero constant
    /// divisor is known without this; a literal 0 stays 0.
    fn divides_by(&mut self, y: &Poly) {
        if y.is_zero() || self.divisors.contains(y) {
            return;
        }
        self.divisors.insert(y.clone());
        if let Some((monomial, _)) = y.single() {
            for atom in monomial.clone() {
                self.divisors.insert(Poly::atom(atom));
            }
        }
    }

    /// `a` with `m = a·b` exactly (as polynomials: `b` one monomial dividing every monomial of `m`), `a ≠ 0`.
    fn cofactor(&self, m: &Poly, b: &Poly) -> Option<Poly> {
        if b.is_zero() || b.as_constant() == Some(1) {
            return None;
        }
        let (a, rest) = m.split(b)?;
        (rest.is_zero() && !a.is_zero()).then_some(a)
    }

    fn div_atom(&mut self, x: Poly, y: Poly) -> Poly {
        Poly::atom(self.intern(Atom::Div(x, y)))
    }

    /// Remainder `x remui y`, simplified.
    pub fn make_rem(&mut self, x: Poly, y: Poly) -> Poly {
        self.divides_by(&y);
        let mut x = x;
        if let Some(modulus) = y.as_constant() {
            if modulus == 1 {
                self.fire("x mod 1 → 0");
                return Poly::zero();
            }
            if modulus != 0 {
                if let Some(dividend) = x.as_constant() {
                    self.fire("constant folding");
                    return Poly::constant(dividend % modulus);
                }
                if modulus.is_power_of_two() {
                    // Rule 1 for d = 2^k, exact even with wrap-around: 2^k divides 2^64.
                    let mut reduced = Poly::zero();
                    for (monomial, coefficient) in x.terms() {
                        reduced.add_term(monomial.clone(), coefficient & (modulus - 1));
                    }
                    if reduced != x {
                        self.fire("(d·q + r) mod d → r mod d");
                        x = reduced;
                    }
                }
            }
        }
        // (x mod (a·b)) mod b → x mod b: x = q·a·b + r gives x mod b = r mod b; needs a·b ≠ 0 without
        // wrap-around (the program divides by it), for constants and symbolic products alike.
        if let Some(Atom::Rem(inner, m)) = x.as_atom().map(|atom| self.atoms[atom].clone()) {
            if self.cofactor(&m, &y).is_some() && self.nonzero(&m) && self.fits(&m) && self.fits(&y) {
                self.fire("(x mod m) mod a → x mod a (a | m)");
                return self.make_rem(inner, y);
            }
        }
        if x.is_zero() {
            // 0 urem y = 0 for every y (with x urem 0 = x).
            return Poly::zero();
        }
        // Rule 1: (d·q + r) mod d → r mod d (when not costlier).
        if let Some((quotient, rest)) = x.split(&y) {
            if !quotient.is_zero() && self.nonzero(&y) && self.fits(&x) && self.fits(&rest) {
                let firings = self.firings.len();
                let reduced = self.make_rem(rest, y.clone());
                let whole = Poly::atom(self.intern(Atom::Rem(x.clone(), y.clone())));
                if self.eager || self.estimate(&reduced) <= self.estimate(&whole) {
                    self.fire("(d·q + r) mod d → r mod d");
                    return reduced;
                }
                self.guard_refused = true;
                self.firings.truncate(firings);
            }
        }
        // Shared factor, the twin of make_div's: x = q·s + r, y = k·s gives x mod y = ((q mod k)·s + r) mod (k·s);
        // taken when the outer remainder vanishes (r < s) or the result is estimated cheaper.
        for (s, q, r, k) in self.shared_factor_splits(&x, &y) {
            let firings = self.firings.len();
            let outer = std::mem::replace(&mut self.in_shared_factor, true);
            let numerator = self.reduced_numerator(q, &k, &s, &r);
            let reduced = numerator.map(|numerator| {
                let vanishes = self.lt(&numerator, &y);
                (if vanishes { numerator } else { self.make_rem(numerator, y.clone()) }, vanishes)
            });
            self.in_shared_factor = outer;
            let Some((reduced, vanishes)) = reduced else {
                self.firings.truncate(firings);
                continue;
            };
            let whole = Poly::atom(self.intern(Atom::Rem(x.clone(), y.clone())));
            // A vanished remainder is taken like make_div's vanished tail; the plan of the whole root then
            // keeps whichever form is cheaper.
            if vanishes || self.estimate(&reduced) < self.estimate(&whole) {
                self.fire(if vanishes {
                    "(q·s + r) mod (k·s) → (q mod k)·s + r (0 ≤ r < s)"
                } else {
                    "(q·s + r) mod (k·s) → ((q mod k)·s + r) mod (k·s)"
                });
                return reduced;
            }
            self.firings.truncate(firings);
        }
        // Rule 5: x mod a → x for 0 ≤ x < a.
        if self.lt(&x, &y) {
            self.fire("x mod a → x (0 ≤ x < a)");
            return x;
        }
        Poly::atom(self.intern(Atom::Rem(x, y)))
    }

    /// Rule 7: `c·m·(a·(x div a)) + c·m·(x mod a) → c·m·x`, repeatedly.
    pub fn merge_div_rem(&mut self, poly: Poly) -> Poly {
        let mut poly = poly;
        'search: loop {
            let terms: Vec<(super::poly::Monomial, u64)> = poly.terms().map(|(m, c)| (m.clone(), c)).collect();
            for (monomial, coefficient) in &terms {
                for (position, atom) in monomial.iter().enumerate() {
                    let Atom::Rem(x, a) = self.atoms[*atom].clone() else { continue };
                    let Some(&div) = self.ids.get(&Atom::Div(x.clone(), a.clone())) else { continue };
                    let mut cofactor = monomial.clone();
                    cofactor.remove(position);
                    // Needed: c·cofactor·div·a (each monomial of a).
                    let mut with_div = cofactor.clone();
                    with_div.push(div);
                    let needed = a.times_monomial(&with_div, *coefficient);
                    if needed.terms().all(|(m, c)| poly.coefficient(m) == c) && !needed.is_zero() {
                        let remainder_term = Poly::monomial(monomial.clone(), *coefficient);
                        let replacement = x.times_monomial(&cofactor, *coefficient);
                        poly = poly.sub(&needed).sub(&remainder_term).add(&replacement);
                        self.fire("a·(x div a) + x mod a → x");
                        continue 'search;
                    }
                }
            }
            return poly;
        }
    }

    /// A quick estimate of what emitting `poly` costs (values that already exist are free): chooses between
    /// a rule's partial form and the unrewritten one; the exact choice is made for the whole root later.
    pub fn estimate(&self, poly: &Poly) -> (usize, usize) {
        let mut seen = HashSet::default();
        self.estimate_into(poly, &mut seen)
    }

    fn estimate_into(&self, poly: &Poly, seen: &mut HashSet<AtomId>) -> (usize, usize) {
        if poly.as_constant().is_some() || self.by_poly.contains_key(poly) {
            return (0, 0);
        }
        let mut ops = poly.len().saturating_sub(1);
        let mut divrem = 0;
        for (monomial, coefficient) in poly.terms() {
            let c = signed(coefficient);
            if !monomial.is_empty() {
                ops += monomial.len() - 1 + usize::from(c != 1 && c != -1);
            }
            for atom in monomial {
                if !seen.insert(*atom) || self.by_poly.contains_key(&Poly::atom(*atom)) {
                    continue;
                }
                if let Atom::Div(x, y) | Atom::Rem(x, y) = &self.atoms[*atom] {
                    let (a, b) = self.estimate_into(x, seen);
                    let (c, d) = self.estimate_into(y, seen);
                    ops += 1 + a + c;
                    divrem += 1 + b + d;
                }
            }
        }
        (ops, divrem)
    }

    // -------------------------------------------------------------------------------------------------
    // Solver fallback

    fn smt_fits(&mut self, p: &Poly) -> bool {
        let mut smt = std::mem::take(&mut self.smt);
        let proved = smt.fits(self, p);
        self.smt = smt;
        proved
    }

    fn smt_nonzero(&mut self, p: &Poly) -> bool {
        let mut smt = std::mem::take(&mut self.smt);
        let proved = smt.nonzero(self, p);
        self.smt = smt;
        proved
    }

    fn smt_lt(&mut self, p: &Poly, q: &Poly) -> bool {
        let mut smt = std::mem::take(&mut self.smt);
        let proved = smt.lt(self, p, q);
        self.smt = smt;
        proved
    }

    /// The leaf facts the solver may assume about an atom: its interval and relations.
    pub fn leaf_facts(&mut self, id: AtomId) -> (Bounds, Vec<(Rel, Poly)>) {
        let bounds = self.atom_bounds(id);
        let Some(value) = self.leaf_value(id) else { return (bounds, Vec::new()) };
        let relations = self.relations(value);
        let relations = relations.into_iter().map(|(rel, bound)| (rel, self.bound_poly(bound))).collect();
        (bounds, relations)
    }

    /// A text naming `poly` by the identities of its leaf values and the facts in scope for this root, equal
    /// across engines of one round exactly when the condition is the same question. `None` when the text
    /// would be longer than [`MAX_CANONICAL_TEXT`]: such a condition is never found equal to another one.
    pub fn canonical(&self, poly: &Poly) -> Option<String> {
        let mut key = String::new();
        self.canonical_into(poly, &mut key).then_some(key)
    }

    /// `kind p q …` with each polynomial's [`Engine::canonical`] text, built in one string (a proof's cache key);
    /// `None` when one of them is too long to name.
    pub fn canonical_key(&self, kind: &str, polys: &[&Poly]) -> Option<String> {
        let mut key = String::from(kind);
        for poly in polys {
            key.push(' ');
            if !self.canonical_into(poly, &mut key) {
                return None;
            }
        }
        Some(key)
    }

    fn canonical_into(&self, poly: &Poly, out: &mut String) -> bool {
        let Some(text) = self.canonical_poly_rc(poly) else { return false };
        out.push_str(&text);
        out.push_str(" | ");
        out.push_str(&self.scoped_text());
        true
    }

    fn scoped_text(&self) -> std::rc::Rc<str> {
        if let Some(text) = self.scoped_text.borrow().as_ref() {
            return text.clone();
        }
        let mut scoped: Vec<String> = self
            .scoped
            .iter()
            .map(|(key, facts)| {
                let facts: Vec<String> = facts
                    .iter()
                    .map(|(rel, bound)| match bound {
                        Bound::Const(c) => format!("{rel:?}{c}"),
                        Bound::Value(v) => format!("{rel:?}%{:x}", ir::key(*v)),
                    })
                    .collect();
                format!("{key:x}:{}", facts.join(","))
            })
            .collect();
        scoped.sort();
        let text: std::rc::Rc<str> = scoped.join(";").into();
        self.scoped_text.replace(Some(text.clone()));
        text
    }

    /// `poly`'s structural text (atoms spelled out), or `None` when it would be longer than
    /// [`MAX_CANONICAL_TEXT`]. The text of a nested division repeats its operands', so it grows exponentially
    /// with the nesting of a DAG-shaped expression (`x div 42` and `x mod 42` both spell out `x`, at every level
    /// of a long layout chain: a fuzz finding built and hashed gigabytes of such keys); the length is bounded
    /// first, in time linear in the atoms.
    pub fn canonical_poly(&self, poly: &Poly) -> Option<String> {
        self.canonical_poly_rc(poly).map(|text| text.to_string())
    }

    /// [`Engine::canonical_poly`], shared (memoized per engine).
    pub fn canonical_poly_rc(&self, poly: &Poly) -> Option<std::rc::Rc<str>> {
        if let Some(text) = self.poly_texts.borrow().get(poly) {
            return text.clone();
        }
        let text = (self.canonical_size(poly) <= MAX_CANONICAL_TEXT).then(|| std::rc::Rc::from(self.canonical_poly_text(poly)));
        self.poly_texts.borrow_mut().insert(poly.clone(), text.clone());
        text
    }

    fn canonical_poly_text(&self, poly: &Poly) -> String {
        use std::fmt::Write;
        // `c*f1*f2…` per term (factors sorted), terms sorted, joined by `+`; one string per term.
        let mut factors: Vec<std::rc::Rc<str>> = Vec::new();
        let mut terms: Vec<String> = poly
            .terms()
            .map(|(monomial, coefficient)| {
                factors.clear();
                factors.extend(monomial.iter().map(|atom| self.canonical_atom(*atom)));
                factors.sort();
                let mut term = String::with_capacity(21 + factors.iter().map(|f| f.len() + 1).sum::<usize>());
                let _ = write!(term, "{coefficient}*");
                for (index, factor) in factors.iter().enumerate() {
                    if index > 0 {
                        term.push('*');
                    }
                    term.push_str(factor);
                }
                term
            })
            .collect();
        if terms.len() == 1 {
            return terms.pop().unwrap_or_default();
        }
        terms.sort();
        terms.join("+")
    }

    fn canonical_atom(&self, id: AtomId) -> std::rc::Rc<str> {
        if let Some(text) = self.atom_texts.borrow().get(&id) {
            return text.clone();
        }
        let text: std::rc::Rc<str> = match &self.atoms[id] {
            Atom::Leaf(key) => format!("%{key:x}"),
            Atom::Div(x, y) => format!("({} / {})", self.canonical_poly_text(x), self.canonical_poly_text(y)),
            Atom::Rem(x, y) => format!("({} % {})", self.canonical_poly_text(x), self.canonical_poly_text(y)),
        }
        .into();
        self.atom_texts.borrow_mut().insert(id, text.clone());
        text
    }

    /// An upper bound of the length of `poly`'s canonical text (saturating).
    fn canonical_size(&self, poly: &Poly) -> usize {
        poly.terms().fold(0usize, |total, (monomial, _)| {
            // The coefficient (at most 20 digits), `*`, `+` and the factors with their separators.
            let factors = monomial.iter().fold(0usize, |sum, atom| sum.saturating_add(self.canonical_atom_size(*atom)).saturating_add(1));
            total.saturating_add(22).saturating_add(factors)
        })
    }

    fn canonical_atom_size(&self, id: AtomId) -> usize {
        if let Some(size) = self.atom_text_sizes.borrow().get(&id) {
            return *size;
        }
        let size = match &self.atoms[id] {
            // `%` and the key in hexadecimal.
            Atom::Leaf(_) => 17,
            Atom::Div(x, y) | Atom::Rem(x, y) => {
                5usize.saturating_add(self.canonical_size(x)).saturating_add(self.canonical_size(y))
            }
        };
        self.atom_text_sizes.borrow_mut().insert(id, size);
        size
    }

    /// The mathematical value of `poly` (signed coefficients) at `sample` (leaf values); `None` when a leaf is
    /// missing, a divisor is zero or the value leaves `i128`.
    pub fn evaluate(&self, poly: &Poly, sample: &HashMap<AtomId, u64>) -> Option<i128> {
        // Each atom once per evaluation: atoms form a DAG (`x div 42` and `x mod 42` share `x`), which a plain
        // recursion walks once per path — exponentially many with the nesting of a long layout chain.
        self.evaluate_memo(poly, sample, &mut HashMap::default())
    }

    fn evaluate_memo(
        &self,
        poly: &Poly,
        sample: &HashMap<AtomId, u64>,
        memo: &mut HashMap<AtomId, Option<u64>>,
    ) -> Option<i128> {
        let mut total: i128 = 0;
        for (monomial, coefficient) in poly.terms() {
            let mut term = signed(coefficient);
            for atom in monomial {
                term = term.checked_mul(self.evaluate_atom(*atom, sample, memo)? as i128)?;
            }
            total = total.checked_add(term)?;
        }
        Some(total)
    }

    fn evaluate_atom(
        &self,
        id: AtomId,
        sample: &HashMap<AtomId, u64>,
        memo: &mut HashMap<AtomId, Option<u64>>,
    ) -> Option<u64> {
        if let Some(value) = memo.get(&id) {
            return *value;
        }
        let wrapped = |value: i128| value.rem_euclid(TWO_64) as u64;
        let value = match &self.atoms[id] {
            Atom::Leaf(_) => sample.get(&id).copied(),
            Atom::Div(x, y) | Atom::Rem(x, y) => (|| {
                let x = wrapped(self.evaluate_memo(x, sample, memo)?);
                let y = wrapped(self.evaluate_memo(y, sample, memo)?);
                if matches!(self.atoms[id], Atom::Div(..)) { x.checked_div(y) } else { x.checked_rem(y) }
            })(),
        };
        memo.insert(id, value);
        value
    }

    /// Whether some assignment of the leaves within their facts makes `refutes` true (a cheap way to reject a
    /// false side condition before asking the solver). Samples: interval corners, midpoints and pseudo-random
    /// points; a sample that breaks a relational fact is skipped.
    ///
    /// `refutes(engine, sample, exact)`: with `exact`, the sample must be a counterexample under the solver's
    /// semantics (values wrapped to 64 bits, compared unsigned), so the condition is refuted exactly when Z3
    /// would refute it. Each sample is tried twice. First as the sampler always did: a relational bound is
    /// read as a signed number, so a bound of 2^63 or more (the `x < 2^63` every index fact carries) reads
    /// negative, breaks every sample, and the solver was asked instead (one refuted query of the Python
    /// package's symbolic TileBy took ~30 ms of its ~35 ms). Then with the exact reading (bounds wrapped to
    /// 64 bits as in the solver's query), where only an exact refutation counts. The first try is kept
    /// unchanged so that nothing it decided changes; the second only decides what the solver would refute.
    pub fn refuted_by_samples(
        &mut self,
        directions: &[(Poly, bool)],
        refutes: &dyn Fn(&Engine, &HashMap<AtomId, u64>, bool) -> bool,
    ) -> bool {
        // Facts may name further leaves: collect until closed (bounded).
        let mut leaves: Vec<AtomId> = Vec::new();
        let mut facts = Vec::new();
        loop {
            let more: Vec<AtomId> = (0..self.atoms.len())
                .filter(|id| matches!(self.atoms[*id], Atom::Leaf(_)) && !leaves.contains(id))
                .collect();
            if more.is_empty() {
                break;
            }
            if leaves.len() + more.len() > 64 {
                return false;
            }
            for id in more {
                facts.push(self.leaf_facts(id));
                leaves.push(id);
            }
        }
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // Directed corners: each leaf at the end of its interval that pushes `poly` up (or down), for leaves
        // occurring with one sign only.
        let signs: Vec<HashMap<AtomId, i8>> = directions
            .iter()
            .map(|(poly, maximize)| {
                let mut signs: HashMap<AtomId, i8> = HashMap::default();
                for (monomial, coefficient) in poly.terms() {
                    let sign: i8 = if (signed(coefficient) > 0) == *maximize { 1 } else { -1 };
                    for atom in monomial {
                        let entry = signs.entry(*atom).or_insert(sign);
                        if *entry != sign {
                            *entry = 0;
                        }
                    }
                }
                signs
            })
            .collect();
        for round in 0..32 + signs.len() {
            let mut sample = HashMap::default();
            for (id, (bounds, _)) in leaves.iter().zip(&facts) {
                let (lo, hi) = (bounds.lo.max(0) as u64, bounds.hi.clamp(0, TWO_64 - 1) as u64);
                let value = match round {
                    _ if round >= 32 => match signs[round - 32].get(id) {
                        Some(1) => hi,
                        Some(-1) => lo,
                        _ => lo + (hi - lo) / 2,
                    },
                    0 => lo,
                    1 => hi,
                    2 => lo + (hi - lo) / 2,
                    _ if round % 2 == 0 => lo + next() % (hi - lo).saturating_add(1).max(1),
                    _ => {
                        // Small values matter most for index arithmetic.
                        let small = hi.min(lo.saturating_add(64));
                        lo + next() % (small - lo + 1)
                    }
                };
                sample.insert(*id, value);
            }
            // First as it always was (relational bounds read as signed numbers; see the doc comment), then,
            // where that finds nothing, with the solver's exact reading.
            let mut exact_sample = sample.clone();
            if self.sample_consistent(&leaves, &facts, &mut sample, false) && refutes(self, &sample, false) {
                return true;
            }
            if self.sample_consistent(&leaves, &facts, &mut exact_sample, true) && refutes(self, &exact_sample, true) {
                return true;
            }
        }
        false
    }

    /// Repairs `sample` (pulls values below their relational upper bounds, a few passes), then tells whether it
    /// satisfies every relational fact. `exact`: a bound is its value wrapped to 64 bits (what the solver's
    /// query says); otherwise its signed value (the sampler's first reading, see [`Engine::refuted_by_samples`]).
    fn sample_consistent(
        &self,
        leaves: &[AtomId],
        facts: &[(Bounds, Vec<(Rel, Poly)>)],
        sample: &mut HashMap<AtomId, u64>,
        exact: bool,
    ) -> bool {
        let limit_of = |engine: &Engine, other: &Poly, sample: &HashMap<AtomId, u64>| {
            let limit = engine.evaluate(other, sample)?;
            Some(if exact { limit.rem_euclid(TWO_64) } else { limit })
        };
        for _ in 0..3 {
            for (id, (bounds, relations)) in leaves.iter().zip(facts) {
                for (rel, other) in relations {
                    let Some(limit) = limit_of(self, other, sample) else { continue };
                    let Some(value) = sample.get(id).map(|v| *v as i128) else { continue };
                    let wanted = match rel {
                        Rel::Lt if value >= limit => limit - 1,
                        Rel::Le if value > limit => limit,
                        Rel::Eq if value != limit => limit,
                        _ => continue,
                    };
                    if wanted >= bounds.lo.max(0) && wanted < TWO_64 {
                        sample.insert(*id, wanted as u64);
                    }
                }
            }
        }
        leaves.iter().zip(facts).all(|(id, (bounds, relations))| {
            let Some(&value) = sample.get(id) else { return true };
            // Exact: the sample must be a model of the solver's facts (a repair to `Eq` may leave the interval;
            // a bound that cannot be evaluated, a division by zero, is not known to hold).
            if exact && !(bounds.lo..=bounds.hi).contains(&(value as i128)) {
                return false;
            }
            relations.iter().all(|(rel, other)| {
                let Some(other) = limit_of(self, other, sample) else { return !exact };
                let value = value as i128;
                match rel {
                    Rel::Lt => value < other,
                    Rel::Le => value <= other,
                    Rel::Gt => value > other,
                    Rel::Ge => value >= other,
                    Rel::Eq => value == other,
                }
            })
        })
    }

    /// Human-readable form of a polynomial (for remarks and the debug log), cut after [`MAX_DESCRIPTION`]
    /// characters with `…`. Atoms are printed as trees, so an uncut text would grow exponentially with the
    /// nesting of a DAG-shaped expression (`x div 42` and `x mod 42` both spell out `x`, at every level of a
    /// long layout chain): a fuzz finding spent most of its time and gigabytes building such texts.
    pub fn describe(&self, poly: &Poly) -> String {
        let mut out = String::new();
        self.describe_into(poly, &mut out);
        out
    }

    pub fn describe_atom(&self, id: AtomId) -> String {
        let mut out = String::new();
        self.describe_atom_into(id, &mut out);
        out
    }

    /// Appends `poly`'s text to `out`, stopping (with `…`) once `out` is longer than [`MAX_DESCRIPTION`].
    fn describe_into(&self, poly: &Poly, out: &mut String) {
        if poly.is_zero() {
            out.push('0');
            return;
        }
        for (position, (monomial, coefficient)) in poly.terms().enumerate() {
            if out.len() > MAX_DESCRIPTION {
                if !out.ends_with('…') {
                    out.push('…');
                }
                return;
            }
            if position > 0 {
                out.push_str(" + ");
            }
            let c = signed(coefficient);
            let mut first = true;
            if c != 1 || monomial.is_empty() {
                out.push_str(&c.to_string());
                first = false;
            }
            for atom in monomial {
                if !first {
                    out.push('·');
                }
                first = false;
                self.describe_atom_into(*atom, out);
            }
        }
    }

    fn describe_atom_into(&self, id: AtomId, out: &mut String) {
        if out.len() > MAX_DESCRIPTION {
            if !out.ends_with('…') {
                out.push('…');
            }
            return;
        }
        match &self.atoms[id] {
            Atom::Leaf(_) => {
                // Printing a value numbers every value of its function (an AsmState per call): only for the
                // debug log that shows these texts, never on the normal path (quadratic on large functions).
                if !tracing::enabled!(target: "lego", tracing::Level::DEBUG) {
                    out.push_str(&format!("v{id}"));
                    return;
                }
                let Some(value) = self.leaf_value(id) else {
                    out.push_str(&format!("v{id}"));
                    return;
                };
                let text = unsafe { melior::ir::Value::from_raw(value) }.to_string();
                // "%x = …" or "<block argument> of type 'index' at index: 0": keep the SSA name if present.
                match text.split_whitespace().next() {
                    Some(name) if name.starts_with('%') => out.push_str(name),
                    _ => out.push_str(&format!("v{id}")),
                }
            }
            Atom::Div(x, y) | Atom::Rem(x, y) => {
                let operator = if matches!(self.atoms[id], Atom::Div(..)) { " div " } else { " mod " };
                out.push('(');
                self.describe_into(x, out);
                out.push_str(operator);
                self.describe_into(y, out);
                out.push(')');
            }
        }
    }
}

/// Longest canonical text of a condition or polynomial that is built: far above what one layout's index
/// arithmetic needs; a longer one is never looked up or shared.
const MAX_CANONICAL_TEXT: usize = 8192;

/// Longest text [`Engine::describe`] builds (then `…`): enough for every condition a person reads in a log.
const MAX_DESCRIPTION: usize = 400;

/// Ops the simplifier reads as arithmetic (everything else is an opaque value).
pub fn is_expression_op(op: MlirOperation) -> bool {
    matches!(
        ir::op_name(op),
        "arith.addi"
            | "arith.subi"
            | "arith.muli"
            | "arith.divui"
            | "arith.remui"
            | "arith.shli"
            | "arith.shrui"
            | "arith.andi"
            | "arith.constant"
            | "affine.linearize_index"
            | "affine.delinearize_index"
    )
}

/// `affine.linearize_index [indices] by (basis) [disjoint]`.
pub struct Linearize {
    pub indices: Vec<MlirValue>,
    /// The sizes; as many as indices (with the outer size) or one fewer.
    pub basis: Vec<Bound>,
    pub disjoint: bool,
}

/// MLIR's `ShapedType::kDynamic`.
const DYNAMIC: i64 = i64::MIN;

fn mixed_basis(op: MlirOperation, dynamic: &[MlirValue]) -> Option<Vec<Bound>> {
    let statics = ir::dense_array(op, "static_basis")?;
    let mut dynamic = dynamic.iter();
    statics
        .iter()
        .map(|size| if *size == DYNAMIC { dynamic.next().map(|v| Bound::Value(*v)) } else { Some(Bound::Const(*size as u64)) })
        .collect()
}

impl Linearize {
    pub fn read(op: MlirOperation) -> Option<Linearize> {
        let segments = ir::dense_array(op, "operandSegmentSizes")?;
        let [index_count, dynamic_count] = segments.as_slice() else { return None };
        let operands = ir::operands(op);
        let (index_count, dynamic_count) = (*index_count as usize, *dynamic_count as usize);
        if operands.len() != index_count + dynamic_count || index_count == 0 {
            return None;
        }
        let basis = mixed_basis(op, &operands[index_count..])?;
        if basis.len() != index_count && basis.len() + 1 != index_count {
            return None;
        }
        let disjoint = ir::has_flag(op, "disjoint");
        Some(Linearize { indices: operands[..index_count].to_vec(), basis, disjoint })
    }

    /// The sizes of indices 1.. (the basis without the outer size).
    pub fn inner_sizes(&self) -> Vec<Bound> {
        let skip = self.basis.len() + 1 - self.indices.len();
        self.basis[skip..].to_vec()
    }
}

/// `affine.delinearize_index %x into (basis)`.
pub struct Delinearize {
    pub input: MlirValue,
    pub basis: Vec<Bound>,
}

impl Delinearize {
    pub fn read(op: MlirOperation) -> Option<Delinearize> {
        let operands = ir::operands(op);
        let input = *operands.first()?;
        let basis = mixed_basis(op, &operands[1..])?;
        let results = ir::result_count(op);
        if results == 0 || (basis.len() != results && basis.len() + 1 != results) {
            return None;
        }
        Some(Delinearize { input, basis })
    }
}

/// Sanity: `remove_sub_multiset` is used by the emitter too.
pub fn contains_monomial(monomial: &[AtomId], part: &[AtomId]) -> bool {
    remove_sub_multiset(monomial, part).is_some()
}

/// The products the one-monomial `y` shares with the terms of `x`, one per term: the atoms in both (as
/// multisets) times the gcd of the coefficients; not `y` itself (rule 2's split).
fn shared_factors(x: &Poly, y: &Poly) -> Vec<Poly> {
    let Some((divisor_monomial, coefficient)) = y.single() else { return Vec::new() };
    let c = signed(coefficient);
    if c <= 0 {
        return Vec::new();
    }
    let mut factors: Vec<Poly> = Vec::new();
    for (monomial, k) in x.terms() {
        if monomial.is_empty() {
            continue;
        }
        let mut common = super::poly::Monomial::new();
        let mut rest = monomial.clone();
        for atom in divisor_monomial {
            if let Some(position) = rest.iter().position(|candidate| candidate == atom) {
                rest.remove(position);
                common.push(*atom);
            }
        }
        let g = gcd(c, signed(k).abs());
        // Only products (atoms times a constant > 1, or several atoms): single atoms and constants are the
        // mixed-radix rule's factors, tried before, and trying them again would only spend proofs.
        let product = !common.is_empty() && (common.len() > 1 || g > 1);
        let factor = Poly::monomial(common, g as u64);
        if product && &factor != y && !factors.contains(&factor) {
            factors.push(factor);
        }
    }
    factors
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// `poly` with every occurrence of `atom` replaced by `by` (exact modulo 2^64); `None` past the monomial limit.
fn substitute(poly: &Poly, atom: AtomId, by: &Poly) -> Option<Poly> {
    let mut result = Poly::zero();
    for (monomial, coefficient) in poly.terms() {
        let rest: super::poly::Monomial = monomial.iter().copied().filter(|id| *id != atom).collect();
        let mut term = Poly::monomial(rest, coefficient);
        for _ in 0..monomial.len() - monomial.iter().filter(|id| **id != atom).count() {
            term = term.mul(by, MONOMIAL_LIMIT)?;
        }
        result = result.add(&term);
    }
    Some(result)
}
