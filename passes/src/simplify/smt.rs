//! The solver fallback of the side-condition prover: polynomials become 64-bit bit-vector terms of
//! `lego-smt` (wrap-around and unsigned division exact), range and relational facts become assumptions,
//! and Z3 decides what interval arithmetic could not.
//!
//! "`p` does not wrap" is asked as: evaluate the positive and the negative part of `p` with `nuw`
//! additions and multiplications, and subtract them with a `nuw` subtraction; `lego-smt` proves every
//! operation defined, i.e. no intermediate overflows, so the mathematical value is the wrapped one.

use super::{
    poly::{signed, AtomId, Poly},
    ranges::Rel,
    rules::{Atom, Engine},
};
use lego_smt::{BinOp, Flags, Outcome, Query, Term};
use super::ir::{HashMap, HashSet, Key};

/// Leaves whose facts a query may carry (the query stays small).
const MAX_LEAVES: usize = 48;

/// Z3's deterministic work limit per side condition (its `rlimit` count; about 0.1–0.3 s of one core).
/// Decisions depend on this count only, so the same input gives the same output on any machine under any load.
pub const SIDE_CONDITION_RLIMIT: u64 = 300_000;

/// Nonlinear side conditions (symbolic products or divisors) the solver is asked per function. Z3's resource
/// limit does not bound them: the integer encoding's nonlinear arithmetic and the bit-vector encoding's
/// 64-bit multipliers and dividers can each take seconds under [`SIDE_CONDITION_RLIMIT`] (fuzz finding
/// 2bc9759014: a 48-line function asked 60 of them, 25 s; test/fuzz-findings). Past the ration a nonlinear
/// condition is not proved, without asking; a count per function keeps the answers deterministic and the
/// same whether a function is planned or replayed from an equal one. Of the .mlir inputs under test/,
/// examples/ and bench/ (the index corpus included), only that finding reaches it under `lego-lower`.
pub const NONLINEAR_PER_FUNCTION: usize = 8;

/// Wall-clock safety net per side condition: only a solver gone badly wrong reaches it; when it does, the pass
/// reports it (the result may then differ from an unloaded run).
pub const SAFETY_NET_MS: u64 = 20_000;

#[derive(Clone, Debug)]
pub struct SmtProver {
    pub enabled: bool,
    pub timeout_ms: u64,
    /// Solver calls left in this run (bounds compile time on large functions; a count, so deterministic).
    pub budget: usize,
    /// Side conditions the wall-clock safety net (not the resource limit) decided.
    pub wall_clock_hits: usize,
    pub calls: usize,
    /// The function whose roots are being planned (`None`: no ration, e.g. the sharing across roots).
    unit: Option<Key>,
    /// Nonlinear conditions asked so far, by function ([`NONLINEAR_PER_FUNCTION`]).
    nonlinear_asked: HashMap<Key, usize>,
    /// Nonlinear conditions left unproved because their function's ration was spent.
    pub nonlinear_not_asked: usize,
    /// Conditions refuted by evaluation at sample points (no solver call needed).
    pub sampled_out: usize,
    /// Answers by condition text (leaf identities and the facts in scope included), shared by every engine of a
    /// run (the simplifier erases nothing before the run ends, so the addresses in the keys stay unique).
    pub cache: HashMap<String, bool>,
    /// Answers by the text of the solver query (see [`SmtProver::run`]).
    query_cache: HashMap<String, bool>,
}

impl Default for SmtProver {
    fn default() -> Self {
        // LEGO_SIMPLIFY_SMT_BUDGET=0 turns the solver fallback off (interval and structural proofs only).
        let budget = std::env::var("LEGO_SIMPLIFY_SMT_BUDGET").ok().and_then(|text| text.parse().ok()).unwrap_or(100);
        SmtProver {
            enabled: true,
            timeout_ms: SAFETY_NET_MS,
            budget,
            unit: None,
            nonlinear_asked: HashMap::default(),
            nonlinear_not_asked: 0,
            wall_clock_hits: 0,
            calls: 0,
            sampled_out: 0,
            cache: HashMap::default(),
            query_cache: HashMap::default(),
        }
    }
}

/// Divisions / remainders nested below a goal's own atoms that a query spells out; deeper ones are opaque
/// variables bounded by their intervals. Z3 bit-blasts every division into a 64-bit divider circuit before its
/// resource limit is ever checked, so a query holding a whole chain of layouts' div/mod (a long order_by /
/// tile_by / group_by chain lowers to one such nest) cost time in proportion to the chain's length, per query
/// (fuzz finding 9f404a4386: 30 s of CPU; test/fuzz-findings/fuzz-timeout-9f404a4386-seed251125.mlir). Table
/// II's side conditions look at most two levels down (`(x mod (a·b)) div b`).
const MAX_ATOM_NESTING: usize = 2;

struct Encoder {
    atoms: HashMap<AtomId, Term>,
    leaves: Vec<AtomId>,
}

impl Encoder {
    fn new() -> Encoder {
        Encoder { atoms: HashMap::default(), leaves: Vec::new() }
    }

    fn atom(&mut self, engine: &Engine, id: AtomId, nesting: usize) -> Term {
        if let Some(term) = self.atoms.get(&id) {
            return term.clone();
        }
        let term = match engine.atom(id).clone() {
            // A leaf, or a division nested too deep to spell out: a variable (its facts: its interval, and for a
            // leaf its relations). Sound: the goal is then proved for every value in that interval.
            Atom::Leaf(_) => self.opaque(id),
            Atom::Div(..) | Atom::Rem(..) if nesting == 0 => self.opaque(id),
            Atom::Div(x, y) => self.poly_at(engine, &x, nesting - 1).udiv(&self.poly_at(engine, &y, nesting - 1)),
            Atom::Rem(x, y) => self.poly_at(engine, &x, nesting - 1).urem(&self.poly_at(engine, &y, nesting - 1)),
        };
        self.atoms.insert(id, term.clone());
        term
    }

    fn opaque(&mut self, id: AtomId) -> Term {
        self.leaves.push(id);
        Term::index_var(format!("v{id}"))
    }

    /// The wrapped value of `poly`.
    fn poly(&mut self, engine: &Engine, poly: &Poly) -> Term {
        self.poly_at(engine, poly, MAX_ATOM_NESTING)
    }

    fn poly_at(&mut self, engine: &Engine, poly: &Poly, nesting: usize) -> Term {
        let mut sum: Option<Term> = None;
        for (monomial, coefficient) in poly.terms() {
            let mut term = Term::index(coefficient);
            for atom in monomial {
                term = term.mul(&self.atom(engine, *atom, nesting));
            }
            sum = Some(match sum {
                None => term,
                Some(sum) => sum.add(&term),
            });
        }
        sum.unwrap_or_else(|| Term::index(0))
    }

    /// `poly` evaluated with `nuw` operations (defined iff nothing wraps).
    fn checked(&mut self, engine: &Engine, poly: &Poly) -> Term {
        let nuw = Flags { nuw: true, nsw: false };
        let mut positive: Option<Term> = None;
        let mut negative: Option<Term> = None;
        for (monomial, coefficient) in poly.terms() {
            let c = signed(coefficient);
            let magnitude = c.unsigned_abs() as u64;
            let mut term = Term::index(magnitude);
            for atom in monomial {
                term = Term::bin_flags(BinOp::Mul, nuw, &term, &self.atom(engine, *atom, MAX_ATOM_NESTING));
            }
            let slot = if c >= 0 { &mut positive } else { &mut negative };
            *slot = Some(match slot.take() {
                None => term,
                Some(sum) => Term::bin_flags(BinOp::Add, nuw, &sum, &term),
            });
        }
        let positive = positive.unwrap_or_else(|| Term::index(0));
        match negative {
            None => positive,
            Some(negative) => Term::bin_flags(BinOp::Sub, nuw, &positive, &negative),
        }
    }

    /// Facts about every leaf reached so far (and the leaves their facts bring in, up to a limit).
    fn facts(&mut self, engine: &mut Engine) -> Vec<Term> {
        let mut facts = Vec::new();
        let mut done = HashSet::default();
        let mut next = 0;
        // The goal's own leaves get interval and relational facts; leaves that only relations bring in get
        // their intervals (keeps queries small: Z3 bit-blasts every product).
        let direct = self.leaves.len();
        while next < self.leaves.len() && done.len() < MAX_LEAVES {
            let id = self.leaves[next];
            let is_direct = next < direct;
            next += 1;
            if !done.insert(id) {
                continue;
            }
            let (bounds, relations) = engine.leaf_facts(id);
            let relations = if is_direct { relations } else { Vec::new() };
            let var = self.atom(engine, id, 0);
            if bounds.lo > 0 {
                facts.push(var.uge(&Term::index(bounds.lo as u64)));
            }
            if bounds.hi < (1i128 << 64) - 1 {
                facts.push(var.ule(&Term::index(bounds.hi.max(0) as u64)));
            }
            for (rel, other) in relations {
                let other = self.poly(engine, &other);
                facts.push(match rel {
                    Rel::Lt => var.ult(&other),
                    Rel::Le => var.ule(&other),
                    Rel::Gt => var.ugt(&other),
                    Rel::Ge => var.uge(&other),
                    Rel::Eq => var.eq(&other),
                });
            }
        }
        facts
    }
}

impl SmtProver {
    fn run(&mut self, goal: &Term, facts: &[Term]) -> bool {
        if !self.enabled {
            return false;
        }
        // The query itself as the key: leaves are named by their order of encoding, so the same condition met
        // in another function (the same layout applied again) is the same text and costs no second solver call.
        let mut query = goal.to_string();
        for fact in facts {
            query.push_str(" ; ");
            query.push_str(&fact.to_string());
        }
        if let Some(known) = self.query_cache.get(&query) {
            return *known;
        }
        let proved = self.solve(goal, facts);
        // An answer the wall-clock safety net decided is not reused (it may differ from the deterministic one).
        if self.wall_clock_hits == 0 || proved {
            self.query_cache.insert(query, proved);
        }
        proved
    }

    /// The side conditions asked from now on are `unit`'s (`None`: unrationed).
    pub fn enter_unit(&mut self, unit: Option<Key>) {
        self.unit = unit;
    }

    fn solve(&mut self, goal: &Term, facts: &[Term]) -> bool {
        if self.budget == 0 {
            return false;
        }
        if let Some(unit) = self.unit.filter(|_| lego_smt::is_nonlinear(goal)) {
            let asked = self.nonlinear_asked.entry(unit).or_default();
            if *asked >= NONLINEAR_PER_FUNCTION {
                self.nonlinear_not_asked += 1;
                tracing::debug!(
                    target: "lego",
                    "side condition not asked: this function's {NONLINEAR_PER_FUNCTION} nonlinear side conditions are spent"
                );
                return false;
            }
            *asked += 1;
        }
        self.budget -= 1;
        self.calls += 1;
        let started = std::time::Instant::now();
        let outcome = lego_smt::prove_limited(&Query { goal, facts, observe: &[], timeout_ms: self.timeout_ms }, SIDE_CONDITION_RLIMIT);
        if let Outcome::Unknown(lego_smt::Unknown { kind: lego_smt::UnknownKind::Timeout, .. }) = &outcome {
            self.wall_clock_hits += 1;
        }
        tracing::debug!(target: "lego", "solver call took {:?} ({} facts)", started.elapsed(), facts.len());
        match outcome {
            Outcome::Proved => true,
            Outcome::Refuted(counterexample) => {
                tracing::debug!(target: "lego", "side condition refuted: {:?}", counterexample.assignment);
                false
            }
            Outcome::Unknown(why) => {
                tracing::debug!(target: "lego", "side condition unknown: {why}");
                false
            }
        }
    }

    /// Looks `key` up, else decides by sampling (cheap refutation) and then the solver. `None`: a condition too
    /// large to name, decided without the cache.
    fn decide(
        &mut self,
        engine: &mut Engine,
        key: Option<String>,
        directions: &[(Poly, bool)],
        refuted: impl Fn(&Engine, &HashMap<AtomId, u64>, bool) -> bool,
        solve: impl FnOnce(&mut Self, &mut Engine) -> bool,
    ) -> bool {
        if !self.enabled {
            return false;
        }
        if let Some(known) = key.as_ref().and_then(|key| self.cache.get(key)) {
            return *known;
        }
        let proved = if engine.refuted_by_samples(directions, &refuted) {
            self.sampled_out += 1;
            false
        } else {
            solve(self, engine)
        };
        if let Some(key) = key {
            self.cache.insert(key, proved);
        }
        proved
    }

    pub fn fits(&mut self, engine: &mut Engine, p: &Poly) -> bool {
        let key = engine.canonical_key("fits", &[p]);
        self.decide(
            engine,
            key,
            &[(p.clone(), true), (p.clone(), false)],
            // Exact as it is: the checked encoding is defined iff the mathematical value lies in [0, 2^64).
            |engine, sample, _| engine.evaluate(p, sample).is_some_and(|v| !(0..1i128 << 64).contains(&v)),
            |this, engine| this.solve_fits(engine, p),
        )
    }

    pub fn nonzero(&mut self, engine: &mut Engine, p: &Poly) -> bool {
        let key = engine.canonical_key("nonzero", &[p]);
        self.decide(
            engine,
            key,
            &[(p.clone(), false)],
            |engine, sample, exact| match engine.evaluate(p, sample) {
                Some(v) if exact => v.rem_euclid(1 << 64) == 0,
                v => v == Some(0),
            },
            |this, engine| this.solve_nonzero(engine, p),
        )
    }

    pub fn lt(&mut self, engine: &mut Engine, p: &Poly, q: &Poly) -> bool {
        let key = engine.canonical_key("lt", &[p, q]);
        self.decide(
            engine,
            key,
            &[(p.sub(q), true)],
            |engine, sample, exact| match (engine.evaluate(p, sample), engine.evaluate(q, sample)) {
                // The solver compares the wrapped values, unsigned.
                (Some(a), Some(b)) if exact => a.rem_euclid(1 << 64) >= b.rem_euclid(1 << 64),
                (Some(a), Some(b)) => a >= b,
                _ => false,
            },
            |this, engine| this.solve_lt(engine, p, q),
        )
    }

    fn solve_fits(&mut self, engine: &mut Engine, p: &Poly) -> bool {
        let mut encoder = Encoder::new();
        let value = encoder.checked(engine, p);
        let goal = value.ule(&Term::index(u64::MAX));
        let facts = encoder.facts(engine);
        self.run(&goal, &facts)
    }

    fn solve_nonzero(&mut self, engine: &mut Engine, p: &Poly) -> bool {
        let mut encoder = Encoder::new();
        let goal = encoder.poly(engine, p).ne(&Term::index(0));
        let facts = encoder.facts(engine);
        self.run(&goal, &facts)
    }

    fn solve_lt(&mut self, engine: &mut Engine, p: &Poly, q: &Poly) -> bool {
        let mut encoder = Encoder::new();
        let goal = encoder.poly(engine, p).ult(&encoder.poly(engine, q));
        let facts = encoder.facts(engine);
        self.run(&goal, &facts)
    }
}
