//! `lego-arith-simplification`: index arithmetic rewritten to a provably equal, cheaper form.
//!
//! Each *root* (an index value some op uses as a value rather than as part of a larger index expression) is
//! read into a polynomial over atoms ([`rules`]); Table II's rules fire while reading, each side condition
//! proved from range facts ([`ranges`]: intervals first, structure next, Z3 last — [`smt`]). The result is
//! planned in its cheapest form ([`cost`]: factored or expanded, existing values reused) and replaces the
//! root only when it costs strictly less than the ops the replacement frees (or, at equal cost, when it
//! removes `affine.linearize_index` / `delinearize_index`, which our unsigned form always beats once
//! expanded). Rounds repeat to a fixed point. Then divisions by constants are shared across roots ([`share`]:
//! `x div 12` as `(x div 3) div 4` where `x div 3` exists, and the like), which no single root can plan. `affine.delinearize_index` results are read as unsigned
//! division/remainder only when the input and sizes are proved below 2^63 (where affine's signed floor
//! semantics agree).
//!
//! With `verify-rewrites=true` every rewrite is also proved equal to what it replaces by Z3, reading both
//! from the IR ([`validate`]); a rewrite that cannot be proved is not applied and reported (a warning when Z3
//! could not decide, an error with the counterexample when it refuted the rewrite — a simplifier bug).
//!
//! The arithmetic model is docs/reference/semantics.md's: division by zero is undefined (so `x remui d < d` and `d ≠ 0`
//! wherever the program divides by `d`), and with `assume-no-wrap=true` (the default) index arithmetic does
//! not wrap, so sums and products of index values are their mathematical values. With `assume-no-wrap=false`
//! nothing more is assumed: a sum that may wrap around is left as written (`-debug`-style logs under `RUST_LOG=lego=debug` say which condition failed).

pub mod cost;
pub mod ir;
pub mod memo;
pub mod poly;
pub mod ranges;
pub mod rules;
pub mod share;
pub mod smt;
pub mod validate;

use crate::{
    diagnostics::Severity,
    external::{LegoPass, PassFailure, PassId},
};
use cost::{Cost, Expr, Materializer, Planner};
use ir::Key;
use mlir_sys::{MlirOperation, MlirValue};
use ranges::Ranges;
use rules::{is_expression_op, Delinearize, Engine, Linearize};
use smt::SmtProver;
use ir::{HashMap, HashSet};

/// Users of one value looked at when deciding whether it dies with a root (see `dying`).
const MAX_USERS_WALKED: usize = 64;

/// Rounds before giving up on a fixed point (each round only rewrites what gets strictly cheaper).
const MAX_ROUNDS: usize = 8;

static ID: PassId = PassId::new();

#[derive(Clone, Default)]
pub struct ArithSimplification {
    pub verify_rewrites: bool,
    /// The arithmetic model of docs/reference/semantics.md: index arithmetic does not wrap (option `assume-no-wrap`).
    pub assume_no_wrap: bool,
}

pub fn create(verify_rewrites: bool, assume_no_wrap: bool) -> melior::pass::Pass {
    crate::external::into_mlir_pass(ArithSimplification { verify_rewrites, assume_no_wrap }, &ID)
}

/// What one run did (for tests and benchmarks).
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub rewrites: usize,
    pub rules: Vec<&'static str>,
    pub unproved: Vec<String>,
    pub rejected_by_validation: usize,
    pub solver_calls: usize,
    /// Nonlinear side conditions not asked: their function's ration was spent (smt::NONLINEAR_PER_FUNCTION).
    pub nonlinear_not_asked: usize,
}

impl LegoPass for ArithSimplification {
    fn name(&self) -> &'static str {
        "lego-arith-simplification"
    }

    fn description(&self) -> &'static str {
        "Table II div/mod rules with proved side conditions, factoring, folding"
    }

    fn run(&mut self, root: melior::ir::OperationRef<'_, '_>) -> Result<(), PassFailure> {
        // The simplifier sweeps the body round after round, and the passes after it each sweep it again: a long
        // body rewritten by the lowering and the clean-ups before it is put back in block order first, and once
        // more after the simplifier's own rewrites (crate::compact).
        crate::compact::compact_long_bodies(root.to_raw());
        let summary = simplify(root.to_raw(), self.verify_rewrites, self.assume_no_wrap);
        crate::cleanup::greedy_cleanup(root.to_raw());
        crate::compact::compact_long_bodies(root.to_raw());
        tracing::debug!(target: "lego", "arith-simplification: {summary:?}");
        Ok(())
    }
}

/// Runs the simplification on everything under `root`.
pub fn simplify(root: MlirOperation, verify_rewrites: bool, assume_no_wrap: bool) -> Summary {
    let mut summary = Summary::default();
    let mut smt = SmtProver::default();
    // Ops made dead stay (unused) until the end, so no address in a cache key is freed and reused while the
    // solver cache lives.
    let mut dead = Dead::default();
    // The layout-contract facts of `lego-to-arith{assume-bounds=true}` are scaffolding: their uses must not
    // keep a value alive or make it a root (that would stop an apply feeding another from being folded into
    // it). Counted as dead users, never erased here; a value only they still use stays until they go.
    // The same walk finds every op stating facts, for the rounds' and the sharing's range facts.
    let mut facts = FactOps::default();
    ir::walk(root, &mut |op| {
        if ir::is_layout_contract_fact(op) {
            dead.ops.insert(ir::op_key(op));
        }
        if Ranges::states_facts(op) {
            facts.all.push((unit_of(root, op), op));
        }
    });
    // Functions structurally equal to one already planned get its rewrites replayed (see `memo`); not while
    // rewrites are validated or the debug log names each rule as it fires.
    let mut memo = memo::Memo::new(!verify_rewrites && !tracing::enabled!(target: "lego", tracing::Level::DEBUG));
    if memo.enabled {
        for (unit, op) in &facts.all {
            facts.by_unit.entry(*unit).or_default().push(*op);
        }
    }
    // A function no rewrite touched in a round is not planned again: its roots read only its own values (the
    // function is isolated from above), so the next round would plan them as this one did, and rewrite
    // nothing (issue 25: that second reading was 40 % of the pass on a module of many functions).
    let mut changed_units: Option<HashSet<Key>> = None;
    for _ in 0..MAX_ROUNDS {
        let changed =
            round(root, verify_rewrites, assume_no_wrap, &mut smt, &mut summary, &mut dead, changed_units.as_ref(), &mut memo, &facts);
        if changed.is_empty() {
            break;
        }
        changed_units = Some(changed);
    }
    // Across roots: divisions by constants derived from one another (one division less each).
    let all_facts: Vec<MlirOperation> = facts.all.iter().map(|(_, op)| *op).collect();
    smt.enter_unit(None);
    share::share_divisions(root, verify_rewrites, assume_no_wrap, &mut smt, &mut summary, &mut dead, &all_facts);
    ir::erase_unused(&dead.list, |_| true);
    summary.solver_calls = smt.calls;
    summary.nonlinear_not_asked = smt.nonlinear_not_asked;
    if smt.wall_clock_hits > 0 {
        // Decisions are made by Z3's work count; only a pathological query reaches the wall clock, and then
        // the result may depend on the machine: say so.
        let location = unsafe { melior::ir::Location::from_raw(mlir_sys::mlirOperationGetLocation(root)) };
        crate::diagnostics::emit(
            location,
            Severity::Warning,
            &format!(
                "lego-arith-simplification: {} side-condition proof(s) stopped by the {} ms wall-clock safety net, \
                 not by Z3's resource limit; the result may differ on a less loaded machine",
                smt.wall_clock_hits,
                smt::SAFETY_NET_MS
            ),
        );
    }
    summary
}

/// The ops stating facts ([`Ranges::states_facts`]), found once: a round creates only arithmetic ops before
/// its roots and erases nothing, and nothing else moves them before the run ends, so they stay the same ops
/// in the same IR order (the facts are read from them anew each time: a replaced value is seen replaced).
#[derive(Default)]
struct FactOps {
    /// In IR order, with the unit holding each (see `unit_of`).
    all: Vec<(Key, MlirOperation)>,
    /// By unit (only filled for the memo, which plans function by function).
    by_unit: HashMap<Key, Vec<MlirOperation>>,
}

impl FactOps {
    /// The facts of a round over `scope` (`round_scope`'s: `root` itself or units directly under it).
    fn ranges(&self, root: MlirOperation, scope: &[MlirOperation], assume_no_wrap: bool) -> Ranges {
        let mut ranges = if scope.iter().any(|unit| ir::op_key(*unit) == ir::op_key(root)) {
            Ranges::from_ops(self.all.iter().map(|(_, op)| op))
        } else {
            let units: HashSet<Key> = scope.iter().map(|unit| ir::op_key(*unit)).collect();
            Ranges::from_ops(self.all.iter().filter(|(unit, _)| units.contains(unit)).map(|(_, op)| op))
        };
        ranges.assume_no_wrap = assume_no_wrap;
        ranges
    }

    /// The facts of one unit.
    fn unit_ranges(&self, unit: Key, assume_no_wrap: bool) -> Ranges {
        let mut ranges = Ranges::from_ops(self.by_unit.get(&unit).into_iter().flatten());
        ranges.assume_no_wrap = assume_no_wrap;
        ranges
    }
}

/// Ops whose results lost every use, erased when the run ends.
#[derive(Default)]
struct Dead {
    ops: HashSet<Key>,
    list: Vec<MlirOperation>,
    /// Roots whose rewrite translation validation rejected (reported once, not retried).
    rejected: HashSet<Key>,
}

/// Whether `user` reads `value` as part of its own index expression.
fn absorbs(user: MlirOperation, value: MlirValue) -> bool {
    let constant_operand = |index: usize| ir::operand(user, index).and_then(ir::constant_value);
    match ir::op_name(user) {
        "arith.addi" | "arith.subi" | "arith.muli" | "arith.divui" | "arith.remui" | "affine.linearize_index" => {
            ir::result(user, 0).and_then(ir::width) == Some(64)
        }
        "arith.shli" | "arith.shrui" => {
            ir::operand(user, 0).map(ir::key) == Some(ir::key(value)) && constant_operand(1).is_some_and(|k| k < 64)
        }
        "arith.andi" => {
            let mask = if ir::operand(user, 0).map(ir::key) == Some(ir::key(value)) { constant_operand(1) } else { constant_operand(0) };
            mask.is_some_and(|mask| mask == u64::MAX || mask.checked_add(1).is_some_and(u64::is_power_of_two))
        }
        _ => false,
    }
}

/// Index values worth rewriting, in IR order: results of arithmetic that something uses as a value.
fn collect_roots(root: MlirOperation, dead: &HashSet<Key>) -> Vec<MlirValue> {
    let mut roots = Vec::new();
    ir::walk(root, &mut |op| {
        if !is_expression_op(op) || ir::op_name(op) == "arith.constant" || dead.contains(&ir::op_key(op)) {
            return;
        }
        for index in 0..ir::result_count(op) {
            let Some(value) = ir::result(op, index) else { continue };
            if ir::width(value) != Some(64) {
                continue;
            }
            // Results of affine index ops are roots of their own: shared by several expressions, they are
            // only replaced (by unsigned arithmetic) when rewritten as values.
            let affine = ir::op_name(op).starts_with("affine.");
            // So is a step of an outermost-first unflatten chain (`divui`/`remui` of a `remui`): the other
            // results share its operand, so it is rewritten on its own, as a value (see `removes_chain_step`).
            let chain_step = matches!(ir::op_name(op), "arith.divui" | "arith.remui")
                && ir::operand(op, 0).and_then(ir::defining_op).is_some_and(|def| ir::op_name(def) == "arith.remui");
            if affine || chain_step || ir::users(value).into_iter().any(|user| !dead.contains(&ir::op_key(user)) && !absorbs(user, value)) {
                roots.push(value);
            }
        }
    });
    roots
}

/// Cost of computing `value` with the op that defines it (its share, for multi-result ops).
fn value_cost(value: MlirValue) -> Cost {
    let Some(op) = ir::defining_op(value) else { return Cost::default() };
    let one = Cost { ops: 1, divrem: 0 };
    let division = Cost { ops: 1, divrem: 1 };
    match ir::op_name(op) {
        "arith.constant" => Cost::default(),
        // By a power of two: a shift or a mask after lego-strength-reduction, as `cost::cost_of` counts it
        // (counted as a division here, re-emitting the same op would look like a saving, round after round).
        "arith.divui" | "arith.remui"
            if ir::operand(op, 1).and_then(ir::constant_value).is_some_and(u64::is_power_of_two) =>
        {
            one
        }
        "arith.divui" | "arith.remui" => division,
        "affine.linearize_index" => {
            let Some(linearize) = Linearize::read(op) else { return one };
            let n = linearize.indices.len();
            // (n − 1) multiplications and additions.
            Cost { ops: 2 * (n - 1), divrem: 0 }
        }
        "affine.delinearize_index" => {
            let Some(delinearize) = Delinearize::read(op) else { return division };
            let _ = delinearize;
            let results = ir::result_count(op);
            let index = (0..results).find(|k| ir::result(op, *k).map(ir::key) == Some(ir::key(value))).unwrap_or(0);
            // First: a division; last: a remainder; others: both.
            // What upstream expands it to (`affine-expand-index-ops`, on the way to any target): floor
            // semantics cost a signed division or remainder plus a sign correction (compare, add, select) per
            // result — our unsigned form of the same value is never dearer, even by a power of two.
            match results {
                1 => Cost::default(),
                _ if index == 0 || index + 1 == results => Cost { ops: 4, divrem: 1 },
                _ => Cost { ops: 5, divrem: 2 },
            }
        }
        _ => one,
    }
}

/// The values (and ops) that become dead when every use of `root` is replaced: walking the cone of values
/// the engine read as arithmetic, users before definitions. `keep` values stay alive whatever their users.
struct Dying {
    values: HashSet<Key>,
    ops: Vec<MlirOperation>,
    cost: Cost,
    removes_affine: bool,
}

fn dying(root: MlirValue, read: &HashSet<Key>, dead_ops: &HashSet<Key>, keep: &HashSet<Key>) -> Dying {
    // Post-order over operand edges from the root, restricted to values read as arithmetic.
    let mut order = Vec::new();
    let mut visited = HashSet::default();
    let mut stack: Vec<(MlirOperation, bool)> = ir::defining_op(root).into_iter().map(|op| (op, false)).collect();
    while let Some((op, expanded)) = stack.pop() {
        if expanded {
            order.push(op);
            continue;
        }
        if !visited.insert(ir::op_key(op)) {
            continue;
        }
        stack.push((op, true));
        for operand in ir::operands(op) {
            if !read.contains(&ir::key(operand)) {
                continue;
            }
            if let Some(def) = ir::defining_op(operand) {
                if is_expression_op(def) && !visited.contains(&ir::op_key(def)) {
                    stack.push((def, false));
                }
            }
        }
    }
    let mut result = Dying { values: HashSet::default(), ops: Vec::new(), cost: Cost::default(), removes_affine: false };
    let mut dying_ops: HashSet<Key> = HashSet::default();
    // Users come before definitions in the reversed post-order.
    for op in order.into_iter().rev() {
        // A value shared by many ops (typically a constant used all over a function) does not die with one root:
        // its use list is not walked for every root (that was quadratic).
        let mut all_die = true;
        for index in 0..ir::result_count(op) {
            let Some(value) = ir::result(op, index) else { continue };
            let key = ir::key(value);
            let Some(users) = ir::users_up_to(value, MAX_USERS_WALKED) else {
                all_die = false;
                continue;
            };
            let users: Vec<MlirOperation> =
                users.into_iter().filter(|user| !dead_ops.contains(&ir::op_key(*user))).collect();
            // Unused results (e.g. of a delinearization whose other results were replaced) die too.
            let dies = key == ir::key(root)
                || (!keep.contains(&key)
                    && (read.contains(&key) || users.is_empty())
                    && users.iter().all(|user| dying_ops.contains(&ir::op_key(*user))));
            if dies {
                if key == ir::key(root) || !users.is_empty() {
                    result.cost = result.cost + value_cost(value);
                    // Replacing a result of an affine index op by our unsigned arithmetic is worth it even
                    // at equal cost: upstream expands those ops with signed corrections.
                    if ir::op_name(op).starts_with("affine.") {
                        result.removes_affine = true;
                    }
                }
                result.values.insert(key);
            } else {
                all_die = false;
            }
        }
        if all_die {
            dying_ops.insert(ir::op_key(op));
            result.ops.push(op);
            if ir::op_name(op).starts_with("affine.") {
                result.removes_affine = true;
            }
        }
    }
    result
}

fn referenced_values(expr: &Expr, out: &mut HashSet<Key>) {
    match expr {
        Expr::Value(key) => {
            out.insert(*key);
        }
        Expr::Const(_) => {}
        Expr::Bin(_, a, b) => {
            referenced_values(a, out);
            referenced_values(b, out);
        }
    }
}

/// A planned replacement of one root.
struct Plan {
    expr: Expr,
    values: HashMap<Key, MlirValue>,
    freed: Dying,
    after: Cost,
    firings: Vec<&'static str>,
    unproved: Vec<String>,
    scoped: Vec<(MlirValue, ranges::Rel, rules::Bound)>,
    /// Canonical texts of the planned polynomials with their expressions (only for a plan worth applying:
    /// registered when it is emitted), and of the values read.
    planned: Vec<(std::rc::Rc<str>, Expr)>,
    read_known: Vec<(std::rc::Rc<str>, MlirValue)>,
}

impl Plan {
    /// (ops, divisions) saved; negative when the replacement costs more.
    fn saving(&self) -> (i64, i64) {
        (
            self.freed.cost.ops as i64 - self.after.ops as i64,
            self.freed.cost.divrem as i64 - self.after.divrem as i64,
        )
    }

    fn worth_it(&self) -> bool {
        // At equal cost: replacing affine index ops, or taking a constant quotient out of a division
        // (docs/reference/lowering.md §4: `(r + 20) div 10 → r div 10 + 2`, the published rewrite).
        self.saving() > (0, 0)
            || (self.saving() == (0, 0)
                && (self.freed.removes_affine
                    || self.firings.contains(&"(d·q + r) div d → q + r div d")
                    || (self.firings.iter().any(|rule| rules::CHAIN_RULES.contains(rule)) && self.removes_chain_step())))
    }

    /// Whether a `divui`/`remui` of a `remui` (a step of an outermost-first unflatten chain) dies: only then
    /// does a tie rewrite move toward the shared innermost-first chain (and cannot repeat round after round).
    fn removes_chain_step(&self) -> bool {
        self.freed.ops.iter().any(|op| {
            matches!(ir::op_name(*op), "arith.divui" | "arith.remui")
                && ir::operand(*op, 0).and_then(ir::defining_op).is_some_and(|def| ir::op_name(def) == "arith.remui")
        })
    }
}

fn plan_root(
    ranges: &mut Ranges,
    smt: &mut SmtProver,
    value: MlirValue,
    dead_ops: &HashSet<Key>,
    known: &HashMap<std::rc::Rc<str>, Vec<MlirValue>>,
    eager: bool,
    guard_refused: &mut bool,
) -> Option<Plan> {
    let def = ir::defining_op(value)?;
    let r#type = ir::value_type(value);
    let mut engine = Engine::new(ranges, std::mem::take(smt));
    engine.eager = eager;
    engine.collect_scoped_facts(value);
    let simplified = engine.poly_of(value);
    let read = engine.read_values().clone();
    let preliminary = dying(value, &read, dead_ops, &HashSet::default());
    let reusable = |candidate: MlirValue| {
        let key = ir::key(candidate);
        key != ir::key(value)
            && !preliminary.values.contains(&key)
            && ir::defining_op(candidate).map_or(true, |op| !dead_ops.contains(&ir::op_key(op)))
            && ir::dominates(candidate, def)
            && ir::value_type(candidate).ptr == r#type.ptr
    };
    let mut planner = Planner::new(&mut engine, &reusable, known);
    let expr = planner.poly(&simplified);
    let values = std::mem::take(&mut planner.values);
    let planned_memo = planner.take_memo();
    drop(planner);
    let mut read_known: Vec<(std::rc::Rc<str>, MlirValue)> = engine
        .by_poly
        .iter()
        .flat_map(|(poly, values)| {
            // A polynomial too large to name is not offered to other roots.
            let text = engine.canonical_poly_rc(poly);
            values.iter().filter_map(move |value| Some((text.clone()?, *value)))
        })
        .collect();
    // Stable sort by text (values of one polynomial keep their reading order): not the hash order, which
    // differs between runs and would decide which equal value is reused.
    read_known.sort_by(|a, b| a.0.cmp(&b.0));
    let plan = costed_plan(value, expr, values, &read, dead_ops, Some(preliminary)).map(|plan| {
        let mut plan = Plan {
            firings: engine.firings.iter().map(|firing| firing.rule).collect(),
            unproved: std::mem::take(&mut engine.unproved),
            scoped: engine.scoped_facts(),
            read_known,
            ..plan
        };
        // Only an applied plan registers what it planned (`round`): naming every planned polynomial of a
        // plan that is not applied was wasted work.
        if plan.worth_it() {
            plan.planned = cost::planned(&engine, planned_memo);
        }
        plan
    });
    *guard_refused = engine.guard_refused;
    *smt = std::mem::take(&mut engine.smt);
    plan
}

/// The plan replacing `value` by `expr`, with what it frees and costs (no rule, fact or reuse recorded);
/// `None` when `expr` refers to `value` itself.
fn costed_plan(
    value: MlirValue,
    expr: Expr,
    values: HashMap<Key, MlirValue>,
    read: &HashSet<Key>,
    dead_ops: &HashSet<Key>,
    unkept: Option<Dying>,
) -> Option<Plan> {
    let mut keep = HashSet::default();
    referenced_values(&expr, &mut keep);
    if keep.contains(&ir::key(value)) {
        return None;
    }
    // What dies keeping nothing is what dies keeping `keep` when no kept value was among the dying: the walk
    // decides value by value in the same order, and a kept value only changes a decision where it would die.
    let freed = match unkept {
        Some(unkept) if keep.iter().all(|key| !unkept.values.contains(key)) => unkept,
        _ => dying(value, read, dead_ops, &keep),
    };
    let after = cost::cost_of(&[&expr]);
    Some(Plan {
        expr,
        values,
        freed,
        after,
        firings: Vec::new(),
        unproved: Vec::new(),
        scoped: Vec::new(),
        planned: Vec::new(),
        read_known: Vec::new(),
    })
}

/// `affine.linearize_index [i0, …, in] by (…, s1, …, sn)` as `((i0·s1 + i1)·s2 + …)·sn + in`, its operands
/// kept: equal modulo 2^64 whatever the indices (the `disjoint` promise is not needed), at the op's own cost.
fn shallow_linearize_plan(value: MlirValue, def: MlirOperation, dead_ops: &HashSet<Key>) -> Option<Plan> {
    if ir::op_name(def) != "affine.linearize_index" {
        return None;
    }
    let linearize = Linearize::read(def)?;
    let mut values = HashMap::default();
    let mut leaf = |value: MlirValue| {
        values.insert(ir::key(value), value);
        Expr::Value(ir::key(value))
    };
    let sizes = linearize.inner_sizes();
    let (first, rest) = linearize.indices.split_first()?;
    let mut expr = leaf(*first);
    for (index, size) in rest.iter().zip(&sizes) {
        let size = match size {
            rules::Bound::Const(constant) => Expr::Const(*constant),
            rules::Bound::Value(size) => leaf(*size),
        };
        expr = Expr::Bin(cost::BinKind::Add, std::rc::Rc::new(Expr::Bin(cost::BinKind::Mul, std::rc::Rc::new(expr), std::rc::Rc::new(size))), std::rc::Rc::new(leaf(*index)));
    }
    costed_plan(value, expr, values, &HashSet::default(), dead_ops, None)
}

/// The unit a round skips when the previous round rewrote nothing in it: the `func.func` directly under `root`
/// that holds `op` (isolated from above: nothing outside it reads or is read by its values), else `root`.
fn unit_of(root: MlirOperation, op: MlirOperation) -> Key {
    let mut current = op;
    while let Some(parent) = ir::parent_op(current) {
        if ir::op_key(parent) == ir::op_key(root) {
            return if ir::op_name(current) == "func.func" { ir::op_key(current) } else { ir::op_key(root) };
        }
        current = parent;
    }
    ir::op_key(root)
}

/// The ops a round walks (their nested ops, not themselves): `root`, or with `only`, the `func.func`s directly
/// under `root` that `only` names, in IR order (all of `root` when `only` names `root` itself, the unit of
/// whatever is not in such a function).
fn round_scope(root: MlirOperation, only: Option<&HashSet<Key>>) -> Vec<MlirOperation> {
    let Some(only) = only else { return vec![root] };
    if only.contains(&ir::op_key(root)) {
        return vec![root];
    }
    ir::child_ops(root).into_iter().filter(|op| only.contains(&ir::op_key(*op))).collect()
}

/// What one round works with, besides the root being planned.
struct RoundState<'a> {
    verify: bool,
    assume_no_wrap: bool,
    /// The facts of the units being planned.
    ranges: Ranges,
    smt: &'a mut SmtProver,
    summary: &'a mut Summary,
    dead: &'a mut Dead,
    /// Values known to compute a polynomial (by canonical text), from every root planned so far this round.
    known: HashMap<std::rc::Rc<str>, Vec<MlirValue>>,
    /// The units this round rewrote something in.
    changed: HashSet<Key>,
}

/// One round over the roots of the units in `only` (every root when `None`); returns the units it changed.
#[allow(clippy::too_many_arguments)]
fn round(
    root: MlirOperation,
    verify: bool,
    assume_no_wrap: bool,
    smt: &mut SmtProver,
    summary: &mut Summary,
    dead: &mut Dead,
    only: Option<&HashSet<Key>>,
    memo: &mut memo::Memo,
    facts: &FactOps,
) -> HashSet<Key> {
    // Only the units this round plans are walked for facts and roots: a unit is a `func.func` isolated from
    // above, so no fact stated in another one is about its values, and its roots come out in the same order
    // as from a walk of the whole module filtered by unit (issue 25: on a module of many functions the two
    // whole-module walks were a sixth of a round that planned a few of them).
    let scope = round_scope(root, only);
    let units = memo_units(root, &scope, memo, smt);
    // Function by function (below), each function gets its own facts: no fact of another one is about its
    // values.
    let ranges = if units.is_some() { Ranges::from_ops([]) } else { facts.ranges(root, &scope, assume_no_wrap) };
    let mut state = RoundState {
        verify,
        assume_no_wrap,
        ranges,
        smt,
        summary,
        dead,
        known: HashMap::default(),
        changed: HashSet::default(),
    };
    if let Some(units) = units {
        // Function by function, last first: the order in which the whole round's roots, reversed, come (each
        // function's roots are contiguous in IR order). A function structurally equal to one this run already
        // planned gets that function's recorded rewrites (see `memo`).
        for unit in units.into_iter().rev() {
            function_round(&mut state, unit, memo, facts);
        }
        return state.changed;
    }
    // Last roots first: they contain earlier ones, whose `disjoint` promises are in scope only while the
    // `affine.linearize_index` carrying them is still in the cone.
    let mut roots = Vec::new();
    for unit in &scope {
        roots.extend(collect_roots(*unit, &state.dead.ops));
    }
    roots.reverse();
    for value in roots {
        let Some(def) = ir::defining_op(value) else { continue };
        let unit = unit_of(root, def);
        if only.is_some_and(|only| !only.contains(&unit)) {
            continue;
        }
        plan_and_apply(&mut state, value, def, unit, None);
    }
    state.changed
}

/// The units of a round taken function by function with the memo: the `func.func`s of the round's scope,
/// when the memo is on, every op directly under `root` in scope is a `func.func` (a fact or value outside
/// any function could concern several of them), and there are at least two (one function has no copy).
fn memo_units(root: MlirOperation, scope: &[MlirOperation], memo: &memo::Memo, smt: &SmtProver) -> Option<Vec<MlirOperation>> {
    if !memo.enabled || smt.wall_clock_hits > 0 {
        return None;
    }
    let units = if scope.len() == 1 && ir::op_key(scope[0]) == ir::op_key(root) {
        ir::child_ops(root)
    } else {
        scope.to_vec()
    };
    (units.len() >= 2 && units.iter().all(|unit| ir::op_name(*unit) == "func.func")).then_some(units)
}

/// One round over the roots of one function, replayed from the memo when an equal function was planned.
fn function_round(state: &mut RoundState, unit: MlirOperation, memo: &mut memo::Memo, facts: &FactOps) {
    let unit_key = ir::op_key(unit);
    let structure = memo::structure(unit, &state.dead.ops);
    if let Some(entry) = structure.as_ref().and_then(|(key, _)| memo.get(key)) {
        let Some((_, numbering)) = structure else { return };
        replay(state, &entry, numbering, unit_key);
        return;
    }
    state.ranges = facts.unit_ranges(unit_key, state.assume_no_wrap);
    let Some((key, numbering)) = structure else {
        let mut roots = collect_roots(unit, &state.dead.ops);
        roots.reverse();
        for value in roots {
            let Some(def) = ir::defining_op(value) else { continue };
            plan_and_apply(state, value, def, unit_key, None);
        }
        return;
    };
    let wall_clock_hits = state.smt.wall_clock_hits;
    let mut recorder = memo::Recorder::new(numbering);
    let mut roots = collect_roots(unit, &state.dead.ops);
    roots.reverse();
    for value in roots {
        let Some(def) = ir::defining_op(value) else { continue };
        plan_and_apply(state, value, def, unit_key, Some(&mut recorder));
    }
    if recorder.valid && state.smt.wall_clock_hits == wall_clock_hits {
        memo.insert(key, memo::Entry { actions: recorder.actions });
    }
}

/// Applies a recorded round to a function of the same structure (numbered the same way).
fn replay(state: &mut RoundState, entry: &memo::Entry, mut numbering: memo::Numbering, unit: Key) {
    for action in &entry.actions {
        match action {
            memo::Action::Unproved(unproved) => state.summary.unproved.extend(unproved.iter().cloned()),
            memo::Action::Emit { root, expr, freed, rules } => {
                let mut values = HashMap::default();
                let resolved = numbering.value(*root).and_then(|value| Some((value, ir::defining_op(value)?))).zip(
                    numbering
                        .from_local(expr, &mut values)
                        .zip(freed.iter().map(|id| numbering.op(*id)).collect::<Option<Vec<MlirOperation>>>()),
                );
                // Equal structures number the same values and ops, and create the same ones in the same order.
                let Some(((value, def), (expr, freed))) = resolved else {
                    debug_assert!(false, "a recorded rewrite names a value or op the function does not have");
                    continue;
                };
                apply_plan(state, value, def, unit, &expr, &values, freed, rules, &[], &[], Some(&mut numbering));
            }
        }
    }
}

/// Plans `value` (a root defined by `def` in `unit`) and rewrites it when that is worth it; `recorder`
/// records what was done.
fn plan_and_apply(state: &mut RoundState, value: MlirValue, def: MlirOperation, unit: Key, mut recorder: Option<&mut memo::Recorder>) {
    let dead = &*state.dead;
    if dead.ops.contains(&ir::op_key(def))
        || dead.rejected.contains(&ir::key(value))
        || !ir::users(value).iter().any(|user| !dead.ops.contains(&ir::op_key(*user)))
    {
        return;
    }
    state.smt.enter_unit(Some(unit));
    // Plan with the partial rule forms guarded by the local estimate, and eagerly; keep the better one.
    // The eager reading only differs where a guard refused a partial form: otherwise it repeats the
    // guarded one step for step (same reads, proofs and budget), so it is not run.
    let mut guard_refused = false;
    let guarded = plan_root(&mut state.ranges, state.smt, value, &state.dead.ops, &state.known, false, &mut guard_refused);
    let eager = if guard_refused {
        plan_root(&mut state.ranges, state.smt, value, &state.dead.ops, &state.known, true, &mut guard_refused)
    } else {
        None
    };
    let plan = match (guarded, eager) {
        (Some(a), Some(b)) => {
            let b_wins = b.saving() > a.saving() || (b.saving() == a.saving() && b.worth_it() && !a.worth_it());
            Some(if b_wins { b } else { a })
        }
        (a, b) => a.or(b),
    };
    // Nothing better found for a linearization: still expand it in place (same cost, and our plain
    // arithmetic is what the rest of the pipeline wants).
    let plan = match plan {
        Some(plan) if plan.worth_it() => Some(plan),
        other => shallow_linearize_plan(value, def, &state.dead.ops).or(other),
    };
    let Some(plan) = plan else { return };
    for (text, value) in &plan.read_known {
        state.known.entry(text.clone()).or_default().push(*value);
    }
    state.summary.unproved.extend(plan.unproved.iter().cloned());
    if let Some(recorder) = recorder.as_deref_mut() {
        recorder.unproved(&plan.unproved);
    }
    if !plan.worth_it() {
        return;
    }
    if let Some(recorder) = recorder.as_deref_mut() {
        recorder.emit(value, &plan.expr, &plan.values, &plan.freed.ops, &plan.firings);
    }
    let Plan { expr, values, freed, firings, scoped, planned, .. } = plan;
    apply_plan(state, value, def, unit, &expr, &values, freed.ops, &firings, &scoped, &planned, recorder.map(|recorder| &mut recorder.numbering));
}

/// Emits `expr` (a plan for `value`, defined by `def`) and replaces `value` with it, unless emitting failed
/// or gave `value` itself (or validation rejected it); `freed` are the ops the replaced root frees, `planned`
/// what the plan names for later roots to reuse. `numbering` numbers the ops emitted (see `memo`).
#[allow(clippy::too_many_arguments)]
fn apply_plan(
    state: &mut RoundState,
    value: MlirValue,
    def: MlirOperation,
    unit: Key,
    expr: &Expr,
    values: &HashMap<Key, MlirValue>,
    freed: Vec<MlirOperation>,
    firings: &[&'static str],
    scoped: &[(MlirValue, ranges::Rel, rules::Bound)],
    planned: &[(std::rc::Rc<str>, Expr)],
    numbering: Option<&mut memo::Numbering>,
) {
    let r#type = ir::value_type(value);
    // The parts of the root that did not change stay the program's own ops (in place, operands in their
    // order): only what the rewrite improved is emitted anew.
    let reusable_ops = freed.iter().copied().filter(|op| ir::op_key(*op) != ir::op_key(def));
    let mut materializer = Materializer::new(def, r#type, values).reusing(reusable_ops);
    let emitted = materializer.emit(expr);
    if let Some(numbering) = numbering {
        numbering.add_created(&materializer.created);
    }
    let Some(new_value) = emitted else {
        state.dead.list.extend(materializer.created.iter().copied());
        return;
    };
    if ir::key(new_value) == ir::key(value) {
        return;
    }
    keep_operand_order(def, new_value, &materializer.created);
    if state.verify {
        let verdict = validate::validate(&mut state.ranges, value, new_value, scoped, smt::SAFETY_NET_MS);
        if !verdict.accept_or_report(def, "rewrite", "the rewrite of this value") {
            state.summary.rejected_by_validation += 1;
            state.dead.rejected.insert(ir::key(value));
            state.dead.list.extend(materializer.created.iter().copied());
            return;
        }
    }
    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(value, new_value) };
    for (text, expr) in planned {
        if let Some(emitted) = materializer.value_of(expr) {
            state.known.entry(text.clone()).or_default().push(emitted);
        }
    }
    state.summary.rewrites += 1;
    state.summary.rules.extend(firings.iter().copied());
    let reused: HashSet<Key> = materializer.reused.iter().map(|op| ir::op_key(*op)).collect();
    for op in freed.into_iter().filter(|op| !reused.contains(&ir::op_key(*op))) {
        if state.dead.ops.insert(ir::op_key(op)) {
            state.dead.list.push(op);
        }
    }
    state.changed.insert(unit);
}

/// A new commutative op replacing `old` (the same op kind) takes its operands in `old`'s order where one of
/// them is one of `old`'s operands at the other position: the rewrite changed one side, not the order.
fn keep_operand_order(old: MlirOperation, new_value: MlirValue, created: &[MlirOperation]) {
    let Some(new) = ir::defining_op(new_value) else { return };
    let name = ir::op_name(new);
    if !matches!(name, "arith.addi" | "arith.muli")
        || ir::op_name(old) != name
        || !created.iter().any(|op| ir::op_key(*op) == ir::op_key(new))
    {
        return;
    }
    let (Some(a), Some(b), Some(old_a), Some(old_b)) =
        (ir::operand(new, 0), ir::operand(new, 1), ir::operand(old, 0), ir::operand(old, 1))
    else {
        return;
    };
    let same = |x: MlirValue, y: MlirValue| ir::key(x) == ir::key(y);
    let in_order = same(a, old_a) || same(b, old_b);
    if !in_order && (same(a, old_b) || same(b, old_a)) {
        // SAFETY: `new` is an op this rewrite created, with two operands.
        unsafe {
            mlir_sys::mlirOperationSetOperand(new, 0, b);
            mlir_sys::mlirOperationSetOperand(new, 1, a);
        }
    }
}

#[cfg(test)]
mod tests;
