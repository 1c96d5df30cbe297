//! Range facts: a sound unsigned interval for every integer/index value, plus the relational facts
//! (`x < y` between SSA values) the interval domain cannot hold.
//!
//! Sources of facts:
//! - `arith.constant`; arithmetic (`addi`, `subi`, `muli`, `divui`, `remui`, shifts, `andi`/`ori`,
//!   `minui`/`maxui`, `select`, casts) by interval arithmetic that gives up (full range) on possible wrap;
//! - `lego.assume_bounds %x lb : %lo ub : %hi` (`lo ≤ x < hi`, bounds constant or not) and `lego.assume` of an
//!   `arith.cmpi` (or an `andi` of them);
//! - `scf.for` / `scf.parallel` induction variables (`lb ≤ iv < ub` for a positive step);
//! - `gpu.thread_id` / `block_id` / `block_dim` / `grid_dim` / `lane_id`: their `upper_bound` attribute, the
//!   enclosing `gpu.func`'s `known_block_size` / `known_grid_size`, the constant sizes of the enclosing
//!   `gpu.launch` (also for its region arguments); otherwise the hardware limits upstream MLIR uses
//!   (sizes < 2^32).
//!
//! **Scope of assumptions.** A `lego.assume*` is taken as a fact about a value when it sits in the block that
//! defines the value (for a function argument: the function's entry block). Whenever the value exists there,
//! the assumption is executed too, so the fact holds flow-insensitively for every use. An assumption placed
//! elsewhere (e.g. inside a loop about a value defined outside) is ignored, never over-applied.

use super::ir::{self, HashMap, HashSet, Key};
use mlir_sys::{MlirOperation, MlirValue};

/// An interval of unsigned values `lo ..= hi` of a value's bit width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub lo: u64,
    pub hi: u64,
}

impl Interval {
    pub fn full(width: u32) -> Interval {
        Interval { lo: 0, hi: max_of(width) }
    }
    pub fn exact(value: u64) -> Interval {
        Interval { lo: value, hi: value }
    }
    pub fn new(lo: u64, hi: u64) -> Interval {
        Interval { lo, hi }
    }
    fn intersect(self, other: Interval) -> Option<Interval> {
        let lo = self.lo.max(other.lo);
        let hi = self.hi.min(other.hi);
        (lo <= hi).then_some(Interval { lo, hi })
    }
    fn union(self, other: Interval) -> Interval {
        Interval { lo: self.lo.min(other.lo), hi: self.hi.max(other.hi) }
    }
}

pub fn max_of(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// `value REL other`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rel {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
}

impl Rel {
    fn flipped(self) -> Rel {
        match self {
            Rel::Lt => Rel::Gt,
            Rel::Le => Rel::Ge,
            Rel::Gt => Rel::Lt,
            Rel::Ge => Rel::Le,
            Rel::Eq => Rel::Eq,
        }
    }
}

/// `value REL other`; `signed` facts (from `slt`/`sle`/...) only hold as unsigned facts when both sides are
/// known to be below 2^63, which users of the fact check.
#[derive(Clone, Copy, Debug)]
pub struct Fact {
    pub rel: Rel,
    pub other: MlirValue,
    pub signed: bool,
}

struct LoopFact {
    lb: MlirValue,
    ub: MlirValue,
    step: MlirValue,
    unsigned: bool,
}

/// Facts and (lazily computed, memoized) intervals for the values under one root op.
pub struct Ranges {
    facts: HashMap<Key, Vec<Fact>>,
    fact_set: HashSet<(Key, Rel, Key, bool)>,
    loops: HashMap<Key, LoopFact>,
    memo: HashMap<Key, Interval>,
    /// Results that met a cut cycle of facts, reused for the rest of the current top-level query only (a later
    /// query, where other values are in progress, recomputes them). Without it every value of a DAG-shaped cone
    /// below a cycle is recomputed once per path: exponential in the depth of the cone.
    provisional: HashMap<Key, Interval>,
    in_progress: HashSet<Key>,
    depth: usize,
    cuts: usize,
    /// Assumptions not in the block defining their value: `(assumption, value, REL, other)`; they hold where
    /// the assumption dominates (see `Engine::collect_scoped_facts`). By the block holding the assumption.
    dominating: HashMap<Key, Vec<(MlirOperation, MlirValue, Rel, MlirValue)>>,
    /// The arithmetic model (docs/reference/semantics.md, `assume-no-wrap`): index arithmetic of the program does not wrap,
    /// so a sum or product of non-negative values is its mathematical value.
    pub assume_no_wrap: bool,
}

/// Past this recursion depth a value gets its full range (keeps the native stack small).
const MAX_DEPTH: usize = 400;

/// GPU limits as upstream MLIR's range inference uses them: grid and block sizes below 2^32.
const GPU_MAX_DIM: u64 = u32::MAX as u64;
const GPU_MAX_SUBGROUP: u64 = 128;
const SIGNED_LIMIT: u64 = i64::MAX as u64;

impl Ranges {
    /// Collects the facts of every assumption, loop and GPU launch under `root`.
    pub fn new(root: MlirOperation) -> Ranges {
        Ranges::over(&[root])
    }

    /// The facts of everything under each of `roots` (ops whose values no fact under another op concerns,
    /// such as functions isolated from above).
    pub fn over(roots: &[MlirOperation]) -> Ranges {
        let mut ranges = Ranges::empty();
        for root in roots {
            ir::walk(*root, &mut |op| ranges.collect(op));
        }
        ranges
    }

    /// Whether `op` states facts (see [`Ranges::collect`]): what [`Ranges::from_ops`] needs of a module.
    pub fn states_facts(op: MlirOperation) -> bool {
        matches!(ir::op_name(op), "lego.assume_bounds" | "lego.assume" | "scf.for" | "scf.parallel" | "gpu.launch")
    }

    /// The facts of `ops` (ops that [`Ranges::states_facts`] accepts, in IR order): the same as
    /// [`Ranges::over`] the ops holding them, without walking every other op again (their operands are
    /// read now, so a value replaced since they were found is seen as replaced).
    pub fn from_ops<'o>(ops: impl IntoIterator<Item = &'o MlirOperation>) -> Ranges {
        let mut ranges = Ranges::empty();
        for op in ops {
            ranges.collect(*op);
        }
        ranges
    }

    fn empty() -> Ranges {
        Ranges {
            facts: HashMap::default(),
            fact_set: HashSet::default(),
            loops: HashMap::default(),
            memo: HashMap::default(),
            provisional: HashMap::default(),
            in_progress: HashSet::default(),
            assume_no_wrap: false,
            depth: 0,
            cuts: 0,
            dominating: HashMap::default(),
        }
    }

    /// Assumptions that hold only where they dominate: `(assumption, value, REL, other)`.
    /// Only those in a block that encloses `at` are candidates (one lookup per enclosing block, not a scan of
    /// every assumption of the module per root).
    pub fn dominating_assumptions(&self, at: MlirOperation) -> Vec<(MlirOperation, MlirValue, Rel, MlirValue)> {
        let mut found = Vec::new();
        let mut current = at;
        while let Some(block) = ir::op_block(current) {
            if let Some(list) = self.dominating.get(&ir::block_key(block)) {
                found.extend(list.iter().copied());
            }
            match ir::block_parent_op(block) {
                Some(parent) => current = parent,
                None => break,
            }
        }
        found
    }

    /// The relational facts `value REL other` that hold as unsigned facts (signed comparisons and loop bounds
    /// only where the ranges make them unsigned-valid).
    pub fn relations(&mut self, value: MlirValue) -> Vec<(Rel, MlirValue)> {
        let mut relations = Vec::new();
        let key = ir::key(value);
        let facts = self.facts.get(&key).cloned().unwrap_or_default();
        for fact in facts {
            if fact.signed {
                let (own, other) = (self.full_interval(value), self.full_interval(fact.other));
                if own.hi > SIGNED_LIMIT || other.hi > SIGNED_LIMIT {
                    continue;
                }
            }
            relations.push((fact.rel, fact.other));
        }
        if let Some((lb, ub, step, unsigned)) = self.loops.get(&key).map(|f| (f.lb, f.ub, f.step, f.unsigned)) {
            let (lbi, ubi, stepi) = (self.full_interval(lb), self.full_interval(ub), self.full_interval(step));
            if stepi.lo >= 1 && (unsigned || (lbi.hi <= SIGNED_LIMIT && ubi.hi <= SIGNED_LIMIT)) {
                relations.push((Rel::Ge, lb));
                relations.push((Rel::Lt, ub));
            }
        }
        relations
    }

    fn add_fact(&mut self, value: MlirValue, rel: Rel, other: MlirValue, signed: bool) {
        // The same fact stated many times (the layout contract of every apply of one layout on the same
        // indices) is kept once: each copy would be consulted at every query of the value.
        if !self.fact_set.insert((ir::key(value), rel, ir::key(other), signed)) {
            return;
        }
        self.facts.entry(ir::key(value)).or_default().push(Fact { rel, other, signed });
    }

    /// Adds `value REL other` if `at` (the assumption) is in the block defining `value`.
    fn add_scoped_fact(&mut self, at: MlirOperation, value: MlirValue, rel: Rel, other: MlirValue, signed: bool) {
        let (Some(def_block), Some(at_block)) = (ir::defining_block(value), ir::op_block(at)) else { return };
        if ir::block_key(def_block) == ir::block_key(at_block) {
            self.add_fact(value, rel, other, signed);
        } else if !signed {
            self.dominating.entry(ir::block_key(at_block)).or_default().push((at, value, rel, other));
        }
    }

    fn collect(&mut self, op: MlirOperation) {
        match ir::op_name(op) {
            "lego.assume_bounds" => {
                let operands = ir::operands(op);
                let segments = ir::dense_array(op, "operandSegmentSizes").unwrap_or_else(|| vec![1, 0, 0]);
                let (Some(&x), [_, lo, hi]) = (operands.first(), segments.as_slice()) else { return };
                let mut next = 1;
                if *lo == 1 {
                    if let Some(&bound) = operands.get(next) {
                        self.add_scoped_fact(op, x, Rel::Ge, bound, false);
                        self.add_scoped_fact(op, bound, Rel::Le, x, false);
                    }
                    next += 1;
                }
                if *hi == 1 {
                    if let Some(&bound) = operands.get(next) {
                        self.add_scoped_fact(op, x, Rel::Lt, bound, false);
                        self.add_scoped_fact(op, bound, Rel::Gt, x, false);
                    }
                }
            }
            "lego.assume" => {
                if let Some(condition) = ir::operand(op, 0) {
                    self.collect_condition(op, condition, 0);
                }
            }
            "scf.for" => {
                let (Some(lb), Some(ub), Some(step)) = (ir::operand(op, 0), ir::operand(op, 1), ir::operand(op, 2)) else {
                    return;
                };
                if let Some(iv) = body_argument(op, 0, 0) {
                    let unsigned = ir::has_unit_attribute(op, "unsignedCmp");
                    self.loops.insert(ir::key(iv), LoopFact { lb, ub, step, unsigned });
                }
            }
            "scf.parallel" => {
                let Some(segments) = ir::dense_array(op, "operandSegmentSizes") else { return };
                let [lbs, ubs, steps, ..] = segments.as_slice() else { return };
                let (lbs, ubs, steps) = (*lbs as usize, *ubs as usize, *steps as usize);
                if lbs != ubs || lbs != steps {
                    return;
                }
                for k in 0..lbs {
                    let (Some(lb), Some(ub), Some(step)) =
                        (ir::operand(op, k), ir::operand(op, lbs + k), ir::operand(op, 2 * lbs + k))
                    else {
                        return;
                    };
                    if let Some(iv) = body_argument(op, 0, k) {
                        self.loops.insert(ir::key(iv), LoopFact { lb, ub, step, unsigned: false });
                    }
                }
            }
            "gpu.launch" => {
                let Some(segments) = ir::dense_array(op, "operandSegmentSizes") else { return };
                let Some(&async_count) = segments.first() else { return };
                let base = async_count as usize;
                for k in 0..3 {
                    let (Some(grid), Some(block)) = (ir::operand(op, base + k), ir::operand(op, base + 3 + k)) else {
                        return;
                    };
                    if let Some(block_id) = body_argument(op, 0, k) {
                        self.add_fact(block_id, Rel::Lt, grid, false);
                    }
                    if let Some(thread_id) = body_argument(op, 0, 3 + k) {
                        self.add_fact(thread_id, Rel::Lt, block, false);
                    }
                    if let Some(grid_size) = body_argument(op, 0, 6 + k) {
                        self.add_fact(grid_size, Rel::Eq, grid, false);
                    }
                    if let Some(block_size) = body_argument(op, 0, 9 + k) {
                        self.add_fact(block_size, Rel::Eq, block, false);
                    }
                }
            }
            _ => {}
        }
    }

    fn collect_condition(&mut self, at: MlirOperation, condition: MlirValue, depth: usize) {
        if depth > 8 {
            return;
        }
        let Some(def) = ir::defining_op(condition) else { return };
        match ir::op_name(def) {
            "arith.andi" => {
                for operand in ir::operands(def) {
                    self.collect_condition(at, operand, depth + 1);
                }
            }
            "arith.cmpi" => {
                let (Some(lhs), Some(rhs), Some(predicate)) =
                    (ir::operand(def, 0), ir::operand(def, 1), ir::integer_attribute(def, "predicate"))
                else {
                    return;
                };
                // eq=0 ne=1 slt=2 sle=3 sgt=4 sge=5 ult=6 ule=7 ugt=8 uge=9
                let (rel, signed) = match predicate {
                    0 => (Rel::Eq, false),
                    2 => (Rel::Lt, true),
                    3 => (Rel::Le, true),
                    4 => (Rel::Gt, true),
                    5 => (Rel::Ge, true),
                    6 => (Rel::Lt, false),
                    7 => (Rel::Le, false),
                    8 => (Rel::Gt, false),
                    9 => (Rel::Ge, false),
                    _ => return,
                };
                self.add_scoped_fact(at, lhs, rel, rhs, signed);
                self.add_scoped_fact(at, rhs, rel.flipped(), lhs, signed);
            }
            _ => {}
        }
    }

    /// A sound interval for `value` (full range of its width when nothing is known; `None` for values that are
    /// not integers or indices).
    pub fn interval(&mut self, value: MlirValue) -> Option<Interval> {
        let width = ir::width(value)?;
        let key = ir::key(value);
        if let Some(known) = self.memo.get(&key) {
            return Some(*known);
        }
        if self.depth == 0 {
            self.warm(value);
            if let Some(known) = self.memo.get(&key) {
                self.provisional.clear();
                return Some(*known);
            }
        } else if let Some(known) = self.provisional.get(&key) {
            return Some(*known);
        }
        if self.in_progress.contains(&key) || self.depth > MAX_DEPTH {
            self.cuts += 1;
            return Some(Interval::full(width));
        }
        self.in_progress.insert(key);
        self.depth += 1;
        let cuts = self.cuts;
        let derived = self.derive(value, width).unwrap_or(Interval::full(width));
        // An exact value needs no facts (and asking them would only run into cycles).
        let refined = if derived.lo == derived.hi { derived } else { self.apply_facts(value, derived, width) };
        self.depth -= 1;
        self.in_progress.remove(&key);
        // A result that met a cut cycle may be less precise than the value deserves: keep it only at the top.
        if self.cuts == cuts || self.depth == 0 {
            self.memo.insert(key, refined);
        } else {
            self.provisional.insert(key, refined);
        }
        if self.depth == 0 {
            self.provisional.clear();
        }
        Some(refined)
    }

    /// Computes the intervals of the arithmetic cone of `value` operands first, with an explicit stack: each
    /// then finds its operands memoized, so a long chain (a reduction over thousands of values) costs linear
    /// time and no recursion instead of a depth cut that is recomputed at every query.
    fn warm(&mut self, value: MlirValue) {
        let mut order = Vec::new();
        let mut seen = HashSet::default();
        let mut stack = vec![(value, false)];
        while let Some((value, expanded)) = stack.pop() {
            if expanded {
                order.push(value);
                continue;
            }
            let key = ir::key(value);
            if self.memo.contains_key(&key) || !seen.insert(key) || ir::width(value).is_none() {
                continue;
            }
            stack.push((value, true));
            if ir::constant_value(value).is_some() {
                continue;
            }
            if let Some(op) = ir::defining_op(value) {
                if ir::op_name(op).starts_with("arith.") {
                    for operand in ir::operands(op) {
                        stack.push((operand, false));
                    }
                }
            }
        }
        // The last one is `value` itself, computed by the caller.
        order.pop();
        // Depth 1: not the top, so a value whose computation met a cycle of facts stays unmemoized as before.
        for value in order {
            self.depth += 1;
            let _ = self.interval(value);
            self.depth -= 1;
        }
    }

    fn full_interval(&mut self, value: MlirValue) -> Interval {
        self.interval(value).unwrap_or(Interval::full(64))
    }

    fn apply_facts(&mut self, value: MlirValue, derived: Interval, width: u32) -> Interval {
        let mut current = derived;
        if let Some(loop_fact) = self.loops.get(&ir::key(value)).map(|fact| (fact.lb, fact.ub, fact.step, fact.unsigned)) {
            let (lb, ub, step, unsigned) = loop_fact;
            let (lb, ub, step) = (self.full_interval(lb), self.full_interval(ub), self.full_interval(step));
            // A positive step; scf compares signed unless `unsignedCmp`: then both bounds must be below 2^63.
            let comparable = unsigned || (lb.hi <= SIGNED_LIMIT && ub.hi <= SIGNED_LIMIT);
            if step.lo >= 1 && comparable && ub.hi >= 1 {
                if let Some(narrowed) = current.intersect(Interval::new(lb.lo, ub.hi - 1)) {
                    current = narrowed;
                }
            }
        }
        let facts = self.facts.get(&ir::key(value)).cloned().unwrap_or_default();
        for fact in facts {
            let other = self.full_interval(fact.other);
            if fact.signed && (other.hi > SIGNED_LIMIT || derived.hi > SIGNED_LIMIT) {
                continue;
            }
            let bound = match fact.rel {
                Rel::Lt if other.hi >= 1 => Interval::new(0, other.hi - 1),
                Rel::Lt => continue,
                Rel::Le => Interval::new(0, other.hi),
                Rel::Gt if other.lo < max_of(width) => Interval::new(other.lo + 1, max_of(width)),
                Rel::Gt => continue,
                Rel::Ge => Interval::new(other.lo, max_of(width)),
                Rel::Eq => other,
            };
            // Contradictory facts mean the code is unreachable; keep what is known rather than fail.
            if let Some(narrowed) = current.intersect(bound) {
                current = narrowed;
            }
        }
        current
    }

    /// Interval arithmetic on the defining op (unsigned; full range wherever wrap-around is possible).
    fn derive(&mut self, value: MlirValue, width: u32) -> Option<Interval> {
        if let Some(constant) = ir::constant_value(value) {
            return Some(Interval::exact(constant));
        }
        let Some(op) = ir::defining_op(value) else { return None };
        let max = max_of(width);
        let name = ir::op_name(op);
        if let Some(gpu) = self.gpu_interval(op, name) {
            return Some(gpu);
        }
        let operands = ir::operands(op);
        let arg = |this: &mut Ranges, index: usize| -> Option<Interval> { this.interval(*operands.get(index)?) };
        let wide = |lo: u128, hi: u128| -> Interval {
            if hi <= max as u128 {
                Interval::new(lo as u64, hi as u64)
            } else {
                Interval::full(width)
            }
        };
        Some(match name {
            "arith.addi" => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                wide(a.lo as u128 + b.lo as u128, a.hi as u128 + b.hi as u128)
            }
            "arith.subi" => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                if a.lo >= b.hi {
                    Interval::new(a.lo - b.hi, a.hi - b.lo)
                } else {
                    Interval::full(width)
                }
            }
            "arith.muli" => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                wide(a.lo as u128 * b.lo as u128, a.hi as u128 * b.hi as u128)
            }
            "arith.divui" => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                if b.lo >= 1 {
                    Interval::new(a.lo / b.hi, a.hi / b.lo)
                } else {
                    Interval::full(width)
                }
            }
            "arith.remui" => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                // x urem 0 = x (the SMT semantics; MLIR leaves it undefined): never above x.
                if b.lo >= 1 && a.hi < b.lo {
                    a
                } else if b.lo >= 1 {
                    Interval::new(0, a.hi.min(b.hi - 1))
                } else {
                    Interval::new(0, a.hi)
                }
            }
            "arith.shli" => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                if b.hi < width as u64 {
                    wide((a.lo as u128) << b.lo, (a.hi as u128) << b.hi)
                } else {
                    Interval::full(width)
                }
            }
            "arith.shrui" => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                if b.hi < width as u64 {
                    Interval::new(a.lo >> b.hi, a.hi >> b.lo)
                } else {
                    Interval::new(0, a.hi)
                }
            }
            "arith.andi" => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                Interval::new(0, a.hi.min(b.hi))
            }
            "arith.ori" | "arith.xori" => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                let top = a.hi.max(b.hi);
                let bits = 64 - top.leading_zeros();
                let hi = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
                let lo = if name == "arith.ori" { a.lo.max(b.lo) } else { 0 };
                Interval::new(lo, hi.min(max))
            }
            "arith.minui" => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                Interval::new(a.lo.min(b.lo), a.hi.min(b.hi))
            }
            "arith.maxui" => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                Interval::new(a.lo.max(b.lo), a.hi.max(b.hi))
            }
            "arith.select" => {
                let (a, b) = (arg(self, 1)?, arg(self, 2)?);
                a.union(b)
            }
            "arith.index_castui" | "arith.extui" => {
                let a = arg(self, 0)?;
                if a.hi <= max {
                    a
                } else {
                    Interval::full(width)
                }
            }
            "arith.index_cast" | "arith.extsi" => {
                // Sign-extension keeps values whose top bit (of the source width) is clear.
                let source = ir::width(*operands.first()?)?;
                let a = arg(self, 0)?;
                if source >= 1 && a.hi <= max_of(source - 1) && a.hi <= max {
                    a
                } else {
                    Interval::full(width)
                }
            }
            "arith.trunci" => {
                let a = arg(self, 0)?;
                if a.hi <= max {
                    a
                } else {
                    Interval::full(width)
                }
            }
            _ => return None,
        })
    }

    fn gpu_interval(&mut self, op: MlirOperation, name: &str) -> Option<Interval> {
        let (is_size, size_attribute) = match name {
            "gpu.thread_id" => (false, "known_block_size"),
            "gpu.block_id" => (false, "known_grid_size"),
            "gpu.block_dim" => (true, "known_block_size"),
            "gpu.grid_dim" => (true, "known_grid_size"),
            "gpu.lane_id" => {
                let bound = ir::integer_attribute(op, "upper_bound").map_or(GPU_MAX_SUBGROUP, |b| b as u64);
                return Some(Interval::new(0, bound.saturating_sub(1)));
            }
            _ => return None,
        };
        let dimension = ir::attribute(op, "dimension").map(ir::attribute_text).unwrap_or_default();
        let axis = ["x", "y", "z"].iter().position(|axis| dimension.contains(&format!("dim {axis}")));
        // The size that bounds this op: its own attribute, the enclosing gpu.func's known sizes, or the constant
        // operand of the enclosing gpu.launch.
        let mut bound = ir::integer_attribute(op, "upper_bound").map(|b| b as u64).filter(|b| *b >= 1);
        let mut exact = None;
        if let Some(axis) = axis {
            if let Some(function) = ir::enclosing(op, "gpu.func") {
                if let Some(sizes) = ir::dense_array(function, size_attribute) {
                    if let Some(size) = sizes.get(axis).filter(|size| **size >= 1) {
                        exact = Some(*size as u64);
                    }
                }
            }
            if exact.is_none() {
                if let Some(launch) = ir::enclosing(op, "gpu.launch") {
                    let base = ir::dense_array(launch, "operandSegmentSizes")
                        .and_then(|segments| segments.first().copied())
                        .unwrap_or(0) as usize;
                    let offset = if size_attribute == "known_block_size" { 3 } else { 0 };
                    if let Some(size) = ir::operand(launch, base + offset + axis) {
                        let size = self.full_interval(size);
                        if size.lo >= 1 {
                            if size.lo == size.hi {
                                exact = Some(size.lo);
                            } else {
                                bound = Some(bound.map_or(size.hi, |b| b.min(size.hi)));
                            }
                        }
                    }
                }
            }
        }
        let limit = exact.or(bound).unwrap_or(GPU_MAX_DIM).min(GPU_MAX_DIM);
        Some(if is_size {
            match exact {
                Some(size) => Interval::exact(size),
                None => Interval::new(1, limit),
            }
        } else {
            Interval::new(0, limit - 1)
        })
    }
}

/// Argument `index` of the first block of region `region` of `op`.
fn body_argument(op: MlirOperation, region: usize, index: usize) -> Option<MlirValue> {
    use melior::ir::{block::BlockLike, operation::OperationLike, RegionLike, ValueLike};
    let op = unsafe { melior::ir::OperationRef::from_raw(op) };
    let block = op.region(region).ok()?.first_block()?;
    let argument = block.argument(index).ok()?;
    Some(argument.to_raw())
}
