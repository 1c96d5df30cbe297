//! Proofs with Z3.
//!
//! Two encodings of the same terms:
//! - **bit-vectors** (the reference): each term becomes a Z3 bit-vector of its width, so wrap-around,
//!   unsigned division and shifts are modelled exactly. Complete and fast when multiplications and
//!   divisions have a constant operand (static layout sizes), but bit-blasting a 64-bit division by a
//!   *symbolic* size rarely finishes.
//! - **integers** (for nonlinear goals, i.e. symbolic sizes): each term becomes an unbounded integer, and
//!   the proof additionally shows that no operation that matters for the goal wraps (every `add`/`mul` stays
//!   below 2^width, every `sub` is non-negative) and no division is by zero. Under those side conditions
//!   the integer value of every relevant node equals its bit-vector value, so an integer proof is a proof
//!   of the bit-vector goal. A counterexample found this way is re-checked with the exact evaluator; if it
//!   does not refute the bit-vector goal (only a side condition failed), the bit-vector encoding decides.
//!
//! One Z3 context per proof keeps the C state simple.

use crate::{
    eval::{topo_order, Program, Value},
    term::{mask, BinOp, CastOp, Node, Pred, Sort, Term},
    Counterexample, Outcome, Unknown, UnknownKind, Violation,
};
use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
};
use z3::{
    ast::{Ast, Bool, Int, BV},
    Config, Context, Model, SatResult, Solver,
};

/// A proof obligation: under `facts` (all `i1` terms, assumed true), `goal` (`i1`) holds for every value of
/// the free variables; additionally every operation executed on the way to the goal is defined (no
/// division by zero, no poison from `nsw`/`nuw` overflow or over-wide shifts).
pub struct Query<'a> {
    pub goal: &'a Term,
    pub facts: &'a [Term],
    /// Terms whose values a counterexample reports (computed by the exact evaluator from the model).
    pub observe: &'a [Term],
    /// Per solver call, in milliseconds (0: no limit). A nonlinear goal may take two calls per encoding.
    pub timeout_ms: u64,
}

fn unknown(kind: UnknownKind, detail: String) -> Outcome {
    Outcome::Unknown(Unknown { kind, detail })
}

/// Proves `query` or finds a counterexample. `timeout_ms` bounds the whole call (every check of both
/// encodings), not each check.
pub fn prove(query: &Query) -> Outcome {
    prove_limited(query, 0)
}

/// [`prove`] where Z3's deterministic resource limit `rlimit` (its own count of work, the same on any
/// machine under any load; 0: none) decides when a check gives up, each check getting `rlimit`. The wall-clock
/// `timeout_ms` stays as a safety net: when it, and not the resource limit, ends a check, the answer is an
/// unknown of kind [`UnknownKind::Timeout`] — callers that need reproducible results report it.
pub fn prove_limited(query: &Query, rlimit: u64) -> Outcome {
    let limits = Limits {
        deadline: (query.timeout_ms > 0)
            .then(|| std::time::Instant::now() + std::time::Duration::from_millis(query.timeout_ms)),
        rlimit,
    };
    if let Err(why) = query.goal.validate() {
        return unknown(UnknownKind::Unsupported, format!("ill-formed goal: {why}"));
    }
    if query.goal.width() != Some(1) {
        return unknown(UnknownKind::Unsupported, "the goal is not a boolean (i1)".into());
    }
    if query.goal.uses_floats() {
        return unknown(UnknownKind::Unsupported, "float math is not modelled by the SMT encoding".into());
    }
    // Facts that cannot be encoded are dropped: fewer assumptions keep a proof sound.
    let facts: Vec<Term> = query
        .facts
        .iter()
        .filter(|fact| fact.validate().is_ok() && fact.width() == Some(1) && !fact.uses_floats())
        .cloned()
        .collect();
    if !is_nonlinear(query.goal) {
        let start = std::time::Instant::now();
        let outcome = prove_bv(query, &facts, &AtomicBool::new(false), limits);
        trace(|| format!("bit-vector encoding: {} in {:?}", short(&outcome), start.elapsed()));
        return outcome;
    }
    // Nonlinear under a resource limit: one encoding after the other, integers first (usually the only one
    // that finishes with symbolic divisors). Deterministic — no race — and no interrupted loser left running:
    // Z3 notices neither an interrupt nor its resource limit while bit-blasting, so a cancelled bit-vector
    // check could go on for seconds and gigabytes after the answer.
    if limits.rlimit > 0 {
        let start = std::time::Instant::now();
        let never = AtomicBool::new(false);
        if let Some(outcome) = prove_int(query, &facts, &never, limits) {
            trace(|| format!("integer encoding (sequential): {} in {:?}", short(&outcome), start.elapsed()));
            return outcome;
        }
        trace(|| format!("integer encoding (sequential): inconclusive in {:?}", start.elapsed()));
        // Memory-conscious: each symbolic 64-bit product or division is a circuit of thousands of gates that
        // Z3 builds before its resource limit is ever checked (seconds and a gigabyte for a handful of them).
        let circuits = nonlinear_operations(query.goal)
            + facts.iter().map(nonlinear_operations).sum::<usize>();
        if circuits > max_bit_blasted_circuits(limits.rlimit) {
            return unknown(
                UnknownKind::Solver,
                format!("{circuits} symbolic multiplications/divisions: too large to bit-blast within the resource limit"),
            );
        }
        let outcome = prove_bv(query, &facts, &never, limits);
        trace(|| format!("bit-vector encoding (sequential): {} in {:?}", short(&outcome), start.elapsed()));
        return outcome;
    }
    // Nonlinear: run both encodings at once and take the first conclusive answer (the integer one is
    // usually the only one that finishes with symbolic divisors; bit-vectors win when the integer
    // encoding's no-wrap side conditions cannot be shown). The loser is interrupted and, not to wait for
    // Z3 to notice, left to finish on its own thread (terms are `Arc`s, so each thread owns its copy).
    let cancel = Arc::new(AtomicBool::new(false));
    let (send, receive) = std::sync::mpsc::channel::<(bool, Option<Outcome>)>();
    for bit_vectors in [false, true] {
        let (goal, all_facts, observe, encodable) =
            (query.goal.clone(), query.facts.to_vec(), query.observe.to_vec(), facts.clone());
        let (stop, send, timeout_ms) = (Arc::clone(&cancel), send.clone(), query.timeout_ms);
        let spawned = std::thread::Builder::new().name("lego-smt".into()).spawn(move || {
            let query = Query { goal: &goal, facts: &all_facts, observe: &observe, timeout_ms };
            let start = std::time::Instant::now();
            let outcome =
                if bit_vectors { Some(prove_bv(&query, &encodable, &stop, limits)) } else { prove_int(&query, &encodable, &stop, limits) };
            let which = if bit_vectors { "bit-vector" } else { "integer" };
            trace(|| format!("{which} encoding: {:?} in {:?}", outcome.as_ref().map(short), start.elapsed()));
            let _ = send.send((bit_vectors, outcome));
        });
        match spawned {
            Ok(handle) => remember(handle),
            // No thread: decide here, bit-vectors only.
            Err(_) => return prove_bv(query, &facts, &cancel, limits),
        }
    }
    drop(send);
    let mut bv_answer = None;
    while let Ok((from_bv, outcome)) = receive.recv() {
        match outcome {
            Some(outcome @ (Outcome::Proved | Outcome::Refuted(_))) => {
                cancel.store(true, Ordering::SeqCst);
                return outcome;
            }
            Some(unknown) if from_bv => bv_answer = Some(unknown),
            _ => {}
        }
    }
    bv_answer.unwrap_or_else(|| unknown(UnknownKind::Solver, "no encoding reached an answer".into()))
}

/// Under a resource limit, the most symbolic multiplications/divisions a bit-vector query may hold: 4 for the
/// simplifier's side conditions (rlimit 300 000), proportionally more for larger limits (translation
/// validation).
fn max_bit_blasted_circuits(rlimit: u64) -> usize {
    ((rlimit / 75_000) as usize).max(4)
}

/// Solver threads still running after [`prove`] returned (the interrupted loser of a portfolio).
static BACKGROUND: std::sync::Mutex<Vec<std::thread::JoinHandle<()>>> = std::sync::Mutex::new(Vec::new());

fn remember(handle: std::thread::JoinHandle<()>) {
    if let Ok(mut handles) = BACKGROUND.lock() {
        // Reap the ones that are done.
        let (done, running): (Vec<_>, Vec<_>) = handles.drain(..).partition(|handle| handle.is_finished());
        for handle in done {
            let _ = handle.join();
        }
        *handles = running;
        handles.push(handle);
    }
}

/// Waits until no solver thread of an earlier [`prove`] is running. They have all been interrupted, so
/// this is quick; call it before the process exits (or Z3 is torn down) and at the end of a pass.
pub fn join_background() {
    let handles = BACKGROUND.lock().map(|mut handles| std::mem::take(&mut *handles)).unwrap_or_default();
    for handle in handles {
        let _ = handle.join();
    }
}

/// `LEGO_SMT_TRACE=1`: one line per encoding tried, on stderr.
fn trace(message: impl FnOnce() -> String) {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ENABLED.get_or_init(|| std::env::var_os("LEGO_SMT_TRACE").is_some_and(|v| v != "0")) {
        eprintln!("lego-smt: {}", message());
    }
}

fn short(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Proved => "proved".into(),
        Outcome::Refuted(_) => "refuted".into(),
        Outcome::Unknown(unknown) => format!("unknown ({})", unknown.detail),
    }
}

/// Whether `goal` holds a multiplication of two non-constants, or a division/remainder/shift by a
/// non-constant: such a goal is tried in integers first and then bit-blasted, and either may take seconds
/// before Z3 looks at its resource limit.
pub fn is_nonlinear(goal: &Term) -> bool {
    nonlinear_operations(goal) > 0
}

/// Multiplications, divisions, remainders and shifts with no constant operand (on the right for all but
/// multiplication): what bit-blasting turns into 64-bit multiplier / divider circuits.
fn nonlinear_operations(goal: &Term) -> usize {
    topo_order(std::slice::from_ref(goal)).iter().filter(|term| match term.node() {
        Node::Bin { op: BinOp::Mul, lhs, rhs, .. } => lhs.as_const().is_none() && rhs.as_const().is_none(),
        Node::Bin {
            op: BinOp::DivU | BinOp::RemU | BinOp::DivS | BinOp::RemS | BinOp::Shl | BinOp::ShrU | BinOp::ShrS,
            rhs,
            ..
        } => rhs.as_const().is_none(),
        _ => false,
    }).count()
}

// ---------------------------------------------------------------------------------------------------------
// Path conditions and definedness, at the term level.

/// For each node reachable from `root`, the condition (an `i1` term over the root's variables) under which
/// the node's value is needed. `through_eager`: an `arith.select` only needs its chosen operand's *value*
/// (for wrap-around side conditions); without it only `scf.if` (lazy) selects prune, which is what
/// undefined behaviour needs (arith.select executes both operands).
fn guards(root: &Term, through_eager: bool) -> HashMap<usize, Term> {
    let order = topo_order(std::slice::from_ref(root));
    let mut incoming: HashMap<usize, Vec<Term>> = HashMap::new();
    incoming.insert(root.id(), vec![Term::bool(true)]);
    let mut result = HashMap::new();
    for term in order.iter().rev() {
        let Some(paths) = incoming.remove(&term.id()) else { continue };
        let guard = if paths.iter().any(|path| path.as_const() == Some(1)) { Term::bool(true) } else { Term::any(paths) };
        let mut push = |child: &Term, condition: Term| incoming.entry(child.id()).or_default().push(condition);
        match term.node() {
            Node::Select { cond, then, otherwise, lazy } if *lazy || through_eager => {
                // A label-only wrapper (constant true condition) passes the guard through.
                push(cond, guard.clone());
                push(then, guard.and(cond));
                push(otherwise, guard.and(&cond.not()));
            }
            _ => {
                for child in term.children() {
                    push(child, guard.clone());
                }
            }
        }
        result.insert(term.id(), guard);
    }
    result
}

fn describe(term: &Term) -> String {
    term.label().map_or_else(|| format!("{term}"), str::to_string)
}

/// Conditions (bit-vector semantics) under which every operation executed on the way to `root` is defined.
fn definedness(root: &Term) -> Vec<(String, Term)> {
    let guards = guards(root, false);
    let mut conditions = Vec::new();
    for term in topo_order(std::slice::from_ref(root)) {
        let Node::Bin { op, flags, lhs: a, rhs: b } = term.node() else { continue };
        let (Some(guard), Some(width)) = (guards.get(&term.id()), a.width()) else { continue };
        let c = |v: u64| Term::constant(v, width);
        let mut require = |what: &str, condition: Term| {
            conditions.push((format!("{what} in {}", describe(&term)), guard.implies(&condition)));
        };
        match op {
            BinOp::DivU | BinOp::RemU | BinOp::RemS => require("division by zero", b.ne(&c(0))),
            BinOp::DivS => {
                require("division by zero", b.ne(&c(0)));
                let min = c(1u64 << (width - 1));
                require("signed division overflow (MIN / -1)", a.eq(&min).and(&b.eq(&c(mask(width)))).not());
            }
            BinOp::Shl | BinOp::ShrU | BinOp::ShrS => {
                require("shift amount not below the bit width", b.ult(&c(width as u64)));
            }
            _ => {}
        }
        let sign = |x: &Term| Term::cmp(Pred::Slt, x, &c(0));
        if flags.nuw {
            match op {
                BinOp::Add => require("unsigned overflow (nuw)", a.add(b).uge(a)),
                BinOp::Sub => require("unsigned overflow (nuw)", a.uge(b)),
                BinOp::Mul => require("unsigned overflow (nuw)", b.eq(&c(0)).or(&a.mul(b).udiv(b).eq(a))),
                BinOp::Shl => require("unsigned overflow (nuw)", b.uge(&c(width as u64)).or(&a.shl(b).lshr(b).eq(a))),
                _ => {}
            }
        }
        if flags.nsw {
            match op {
                // Overflow iff the operands' signs agree (for sub: differ) and the result's sign differs.
                BinOp::Add => {
                    let r = a.add(b);
                    require("signed overflow (nsw)", sign(a).eq(&sign(b)).and(&sign(&r).ne(&sign(a))).not());
                }
                BinOp::Sub => {
                    let r = a.sub(b);
                    require("signed overflow (nsw)", sign(a).ne(&sign(b)).and(&sign(&r).ne(&sign(a))).not());
                }
                BinOp::Mul => {
                    let r = a.mul(b);
                    let minus_one = c(mask(width));
                    let min = c(1u64 << (width - 1));
                    let exact = a.eq(&c(0)).or(&Term::bin(BinOp::DivS, &r, a).eq(b).and(&a.eq(&minus_one).and(&b.eq(&min)).not()));
                    require("signed overflow (nsw)", exact);
                }
                BinOp::Shl => require(
                    "signed overflow (nsw)",
                    b.uge(&c(width as u64)).or(&Term::bin(BinOp::ShrS, &a.shl(b), b).eq(a)),
                ),
                _ => {}
            }
        }
    }
    conditions
}

// ---------------------------------------------------------------------------------------------------------
// Shared solver plumbing.

/// The limits of one [`prove_limited`] call: a wall-clock deadline shared by all its checks, and Z3's resource
/// limit per check.
#[derive(Clone, Copy, Debug)]
struct Limits {
    deadline: Option<std::time::Instant>,
    rlimit: u64,
}

/// A Z3 context for one proof; `rlimit` makes every check of it stop after that much work ("max. resource
/// limit exceeded", answered unknown) — deterministic, unlike a time limit.
fn new_context(limits: Limits) -> Context {
    let mut config = Config::new();
    config.set_model_generation(true);
    if limits.rlimit > 0 {
        config.set_param_value("rlimit", &limits.rlimit.to_string());
    }
    Context::new(&config)
}

fn new_solver<'c>(ctx: &'c Context, _timeout_ms: u64) -> Solver<'c> {
    // The time limit is enforced by `check`'s watchdog (Z3_interrupt), not by Z3's `timeout` parameter:
    // Z3 4.8.12's timer (`scoped_timer`) can deadlock with short limits, which would hang the pass.
    Solver::new(ctx)
}

/// `solver.check()` under a watchdog thread that interrupts the context (`Z3_interrupt`) when the time
/// limit is reached or when `cancel` is set (another encoding already answered). An interrupted check
/// answers unknown ("canceled"), reported as a time-out. This is the only time limit: Z3's own `timeout`
/// parameter is not used (its timer can deadlock in Z3 4.8.12).
///
/// Also answers whether an interrupt was sent. The answer of a check that was interrupted is not trusted,
/// whatever it says: Z3 4.8.12 can answer `sat` with a bogus (all-zero) model when cancelled inside its
/// preprocessing, and a cancellation that races with the end of a check leaves the context cancelled for
/// the next one. Callers report such a check as a time-out.
fn check(ctx: &Context, solver: &Solver, limits: Limits, cancel: &AtomicBool) -> (SatResult, bool) {
    let interrupted = AtomicBool::new(false);
    let interrupted_ref = &interrupted;
    let handle = ctx.handle();
    let (done, wait) = std::sync::mpsc::channel::<()>();
    let deadline = limits.deadline;
    if deadline.is_some_and(|deadline| std::time::Instant::now() >= deadline) || cancel.load(Ordering::SeqCst) {
        return (SatResult::Unknown, true);
    }
    let result = std::thread::scope(|scope| {
        scope.spawn(move || loop {
            let step = match deadline {
                Some(deadline) => deadline
                    .saturating_duration_since(std::time::Instant::now())
                    .min(std::time::Duration::from_millis(5)),
                None => std::time::Duration::from_millis(5),
            };
            match wait.recv_timeout(step) {
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    // Repeated until the check returns: an interrupt that arrives before Z3 enters the
                    // interruptible part of the check is lost.
                    if cancel.load(Ordering::SeqCst) || deadline.is_some_and(|deadline| std::time::Instant::now() >= deadline) {
                        interrupted_ref.store(true, Ordering::SeqCst);
                        handle.interrupt();
                    }
                }
                _ => return,
            }
        });
        let result = solver.check();
        drop(done);
        result
    });
    (result, interrupted.load(Ordering::SeqCst))
}

fn timed_out(query: &Query, what: &str) -> Outcome {
    unknown(UnknownKind::Timeout, format!("Z3 timed out after {} ms while proving {what}", query.timeout_ms))
}

/// Z3's reasons for an interrupted or timed-out check.
fn is_time_out(reason: &str) -> bool {
    ["timeout", "canceled", "cancelled", "interrupted"].iter().any(|word| reason.contains(word))
}

/// Z3 answered unknown without our watchdog interrupting it: with a resource limit set, Z3 4.8.12 calls an
/// exhausted limit "canceled" too — that is the deterministic limit, not a time-out.
fn unknown_answer(solver: &Solver, limits: Limits, what: &str, timeout_ms: u64) -> Outcome {
    let why = solver.get_reason_unknown().unwrap_or_default();
    if limits.rlimit > 0 && (is_time_out(&why) || why.contains("resource")) {
        return unknown(
            UnknownKind::Solver,
            format!("Z3 reached its resource limit (rlimit {}) while proving {what}", limits.rlimit),
        );
    }
    unknown(unknown_kind(solver), unknown_reason(solver, what, timeout_ms))
}

fn unknown_kind(solver: &Solver) -> UnknownKind {
    match solver.get_reason_unknown() {
        Some(reason) if is_time_out(&reason) => UnknownKind::Timeout,
        _ => UnknownKind::Solver,
    }
}

fn unknown_reason(solver: &Solver, what: &str, timeout_ms: u64) -> String {
    let why = solver.get_reason_unknown().unwrap_or_else(|| "unknown".into());
    if is_time_out(&why) {
        format!("Z3 timed out after {timeout_ms} ms while proving {what}")
    } else {
        format!("Z3 returned unknown ({why}) while proving {what}")
    }
}

fn all_variables(query: &Query, facts: &[Term]) -> Vec<(String, Sort)> {
    let mut roots = vec![query.goal.clone()];
    roots.extend(facts.iter().cloned());
    crate::eval::variables(&roots)
}

fn observe(terms: &[Term], assignment: &[(String, u64)]) -> Vec<Value> {
    if terms.is_empty() {
        return Vec::new();
    }
    let inputs: HashMap<String, Value> = assignment.iter().map(|(name, value)| (name.clone(), Value::Bits(*value))).collect();
    match Program::new(terms) {
        Ok(program) => program.run_named(&inputs).roots,
        Err(_) => vec![Value::Poison; terms.len()],
    }
}

/// Evaluates the query exactly at `assignment`: `Some(violation)` when the facts hold and the goal fails
/// (or is undefined), `None` when the point does not refute the goal.
///
/// The facts checked are *all* the query's facts, including those the encodings dropped (float math): a
/// solver model only refutes the goal where every fact really holds, so a model that needed a dropped fact
/// to be ignored is not reported as a counterexample.
fn confirm(query: &Query, assignment: &[(String, u64)]) -> Option<Violation> {
    if !facts_hold(query, assignment) {
        return None;
    }
    let inputs: HashMap<String, Value> = assignment.iter().map(|(name, value)| (name.clone(), Value::Bits(*value))).collect();
    let program = Program::new(std::slice::from_ref(query.goal)).ok()?;
    let evaluation = program.run_named(&inputs);
    match (evaluation.undefined, evaluation.roots.first()) {
        (Some(what), _) => Some(Violation::Undefined(what)),
        (None, Some(Value::Bits(1))) => None,
        (None, Some(Value::Bits(_))) => Some(Violation::Goal),
        (None, _) => Some(Violation::Undefined("the goal evaluates to poison".into())),
    }
}

/// Whether every fact of the query (dropped ones included) evaluates to true at `assignment`.
fn facts_hold(query: &Query, assignment: &[(String, u64)]) -> bool {
    if query.facts.is_empty() {
        return true;
    }
    let inputs: HashMap<String, Value> = assignment.iter().map(|(name, value)| (name.clone(), Value::Bits(*value))).collect();
    match Program::new(query.facts) {
        Ok(program) => program.run_named(&inputs).roots.iter().all(|value| *value == Value::Bits(1)),
        Err(_) => false,
    }
}

// ---------------------------------------------------------------------------------------------------------
// Bit-vector encoding.

fn prove_bv(query: &Query, facts: &[Term], cancel: &AtomicBool, limits: Limits) -> Outcome {
    let ctx = new_context(limits);
    let mut bv = BvTranslator { ctx: &ctx, memo: HashMap::new() };
    let goal = match bv.boolean(query.goal) {
        Ok(goal) => goal,
        Err(why) => return unknown(UnknownKind::Unsupported, why),
    };
    let solver = new_solver(&ctx, query.timeout_ms);
    for fact in facts {
        if let Ok(fact) = bv.boolean(fact) {
            solver.assert(&fact);
        }
    }
    let mut conditions = Vec::new();
    for (what, condition) in definedness(query.goal) {
        match bv.boolean(&condition) {
            Ok(condition) => conditions.push((what, condition)),
            Err(why) => return unknown(UnknownKind::Unsupported, why),
        }
    }
    let variables = all_variables(query, facts);
    let assignment = |model: &Model| -> Vec<(String, u64)> {
        variables
            .iter()
            .filter_map(|(name, sort)| {
                let Sort::Bits(width) = sort else { return None };
                let var = BV::new_const(&ctx, name.as_str(), *width);
                Some((name.clone(), model.eval(&var, true).and_then(|v| v.as_u64()).unwrap_or(0) & mask(*width)))
            })
            .collect()
    };

    // 1. Every operation on the way to the goal is defined.
    if !conditions.is_empty() {
        let all: Vec<&Bool> = conditions.iter().map(|(_, condition)| condition).collect();
        solver.push();
        solver.assert(&Bool::and(&ctx, &all).not());
        let (result, interrupted) = check(&ctx, &solver, limits, cancel);
        if interrupted {
            return timed_out(query, "definedness of the goal");
        }
        match result {
            SatResult::Unsat => {}
            SatResult::Unknown => {
                return unknown_answer(&solver, limits, "definedness of the goal", query.timeout_ms)
            }
            SatResult::Sat => {
                let Some(model) = solver.get_model() else {
                    return unknown(UnknownKind::Solver, "Z3 gave no model".into());
                };
                let failing = conditions
                    .iter()
                    .find(|(_, condition)| model.eval(condition, true).and_then(|b| b.as_bool()) == Some(false))
                    .map(|(what, _)| what.clone())
                    .unwrap_or_else(|| "an undefined operation".into());
                let assignment = assignment(&model);
                // Re-run exactly: the facts hold and the goal's evaluation hits undefined behaviour (or
                // fails outright). Otherwise say why nothing is reported.
                let violation = match confirm(query, &assignment) {
                    Some(Violation::Goal) => Violation::Goal,
                    Some(Violation::Undefined(_)) => Violation::Undefined(failing),
                    None => {
                        let (kind, why) = if !facts_hold(query, &assignment) {
                            (UnknownKind::Unsupported, "a possible undefined operation depends on facts the encoding cannot express".into())
                        } else {
                            (UnknownKind::Solver, format!("possible {failing}, not reproduced by the exact evaluator"))
                        };
                        return unknown(kind, why);
                    }
                };
                let observed = observe(query.observe, &assignment);
                return Outcome::Refuted(Counterexample { assignment, observed, violation });
            }
        }
        solver.pop(1);
    }

    // 2. The goal.
    solver.assert(&goal.not());
    let (result, interrupted) = check(&ctx, &solver, limits, cancel);
    if interrupted {
        return timed_out(query, "the goal");
    }
    match result {
        SatResult::Unsat => Outcome::Proved,
        SatResult::Unknown => unknown_answer(&solver, limits, "the goal", query.timeout_ms),
        SatResult::Sat => {
            let Some(model) = solver.get_model() else {
                return unknown(UnknownKind::Solver, "Z3 gave no model".into());
            };
            let assignment = assignment(&model);
            // Cross-check with the exact evaluator: the facts hold and the goal fails at this point.
            let Some(violation) = confirm(query, &assignment) else {
                trace(|| format!("not reproduced: {assignment:?} for goal {} under {:?}", query.goal, query.facts));
                let why = if facts.len() < query.facts.len() {
                    "the only counterexamples found violate facts the encoding cannot express (float math)"
                } else {
                    "Z3's counterexample does not reproduce with the exact evaluator (encoding disagreement)"
                };
                return unknown(UnknownKind::Solver, why.into());
            };
            let observed = observe(query.observe, &assignment);
            Outcome::Refuted(Counterexample { assignment, observed, violation })
        }
    }
}

struct BvTranslator<'c> {
    ctx: &'c Context,
    memo: HashMap<usize, BV<'c>>,
}

impl<'c> BvTranslator<'c> {
    fn boolean(&mut self, term: &Term) -> Result<Bool<'c>, String> {
        let bv = self.translate(term)?;
        Ok(bv._eq(&BV::from_u64(self.ctx, 1, 1)))
    }

    fn translate(&mut self, root: &Term) -> Result<BV<'c>, String> {
        for term in topo_order(std::slice::from_ref(root)) {
            if !self.memo.contains_key(&term.id()) {
                let bv = self.node(&term)?;
                self.memo.insert(term.id(), bv);
            }
        }
        self.get(root)
    }

    fn get(&self, term: &Term) -> Result<BV<'c>, String> {
        self.memo.get(&term.id()).cloned().ok_or_else(|| "internal: operand not translated".to_string())
    }

    fn bit(&self, b: &Bool<'c>) -> BV<'c> {
        b.ite(&BV::from_u64(self.ctx, 1, 1), &BV::from_u64(self.ctx, 0, 1))
    }

    fn node(&self, term: &Term) -> Result<BV<'c>, String> {
        let ctx = self.ctx;
        Ok(match term.node() {
            Node::Var { name, sort: Sort::Bits(width) } => BV::new_const(ctx, name.as_str(), *width),
            Node::Const { value, width } => BV::from_u64(ctx, *value, *width),
            Node::Not(arg) => self.get(arg)?.bvnot(),
            Node::Bin { op, lhs, rhs, .. } => {
                let (a, b) = (self.get(lhs)?, self.get(rhs)?);
                match op {
                    BinOp::Add => a.bvadd(&b),
                    BinOp::Sub => a.bvsub(&b),
                    BinOp::Mul => a.bvmul(&b),
                    BinOp::DivU => a.bvudiv(&b),
                    BinOp::RemU => a.bvurem(&b),
                    BinOp::DivS => a.bvsdiv(&b),
                    BinOp::RemS => a.bvsrem(&b),
                    BinOp::Shl => a.bvshl(&b),
                    BinOp::ShrU => a.bvlshr(&b),
                    BinOp::ShrS => a.bvashr(&b),
                    BinOp::And => a.bvand(&b),
                    BinOp::Or => a.bvor(&b),
                    BinOp::Xor => a.bvxor(&b),
                    BinOp::MinU => a.bvule(&b).ite(&a, &b),
                    BinOp::MaxU => a.bvuge(&b).ite(&a, &b),
                    BinOp::MinS => a.bvsle(&b).ite(&a, &b),
                    BinOp::MaxS => a.bvsge(&b).ite(&a, &b),
                }
            }
            Node::Cmp { pred, lhs, rhs } => {
                let (a, b) = (self.get(lhs)?, self.get(rhs)?);
                let result = match pred {
                    Pred::Eq => a._eq(&b),
                    Pred::Ne => a._eq(&b).not(),
                    Pred::Ult => a.bvult(&b),
                    Pred::Ule => a.bvule(&b),
                    Pred::Ugt => a.bvugt(&b),
                    Pred::Uge => a.bvuge(&b),
                    Pred::Slt => a.bvslt(&b),
                    Pred::Sle => a.bvsle(&b),
                    Pred::Sgt => a.bvsgt(&b),
                    Pred::Sge => a.bvsge(&b),
                };
                self.bit(&result)
            }
            Node::Select { cond, then, otherwise, .. } => {
                let c = self.get(cond)?._eq(&BV::from_u64(ctx, 1, 1));
                c.ite(&self.get(then)?, &self.get(otherwise)?)
            }
            Node::Cast { op, width, arg } => {
                let a = self.get(arg)?;
                let from = arg.width().unwrap_or(*width);
                match op {
                    _ if from == *width => a,
                    CastOp::ZeroExtend => a.zero_ext(width - from),
                    CastOp::SignExtend => a.sign_ext(width - from),
                    CastOp::Truncate => a.extract(width - 1, 0),
                }
            }
            _ => return Err(format!("float math is not modelled by the SMT encoding ({term})")),
        })
    }
}

// ---------------------------------------------------------------------------------------------------------
// Integer encoding with no-wrap side conditions.

/// `None`: inconclusive (unsupported operation, unknown, or a counterexample that only breaks a side
/// condition): the caller falls back to bit-vectors.
fn prove_int(query: &Query, facts: &[Term], cancel: &AtomicBool, limits: Limits) -> Option<Outcome> {
    let ctx = new_context(limits);
    let mut int = IntTranslator { ctx: &ctx, memo: HashMap::new() };
    let goal = int.boolean(query.goal).ok()?;
    let solver = new_solver(&ctx, query.timeout_ms);
    let variables = all_variables(query, facts);
    // Every variable is a bit pattern: 0 ≤ v < 2^width.
    for (name, sort) in &variables {
        let Sort::Bits(width) = sort else { return None };
        let var = Int::new_const(&ctx, name.as_str());
        solver.assert(&var.ge(&Int::from_u64(&ctx, 0)));
        solver.assert(&var.lt(&pow2(&ctx, *width)));
    }
    // Facts are only meaningful in integers where their own computation does not wrap. Chain them so
    // that each fact's side conditions must follow from the facts before it:
    //   S_1 ∧ (F_1 ⇒ S_2 ∧ (F_2 ⇒ … ⇒ (S_goal ∧ goal)))
    // For any point where every fact holds (bit-vector semantics), induction along the chain shows each S_k
    // holds, so each F_k reads the same in integers, and finally the goal holds. Facts without side
    // conditions (plain range facts) go first; a fact the encoding cannot express is dropped.
    let mut encoded_facts = Vec::new();
    for fact in facts {
        let (Ok(encoded), Ok(side)) = (int.boolean(fact), int.side_conditions(fact)) else { continue };
        encoded_facts.push((encoded, side));
    }
    encoded_facts.sort_by_key(|(_, side)| !side.is_empty());
    let mut obligation = {
        let mut parts = int.side_conditions(query.goal).ok()?;
        parts.push(goal);
        let refs: Vec<&Bool> = parts.iter().collect();
        Bool::and(&ctx, &refs)
    };
    for (fact, side) in encoded_facts.iter().rev() {
        let mut parts: Vec<&Bool> = side.iter().collect();
        let rest = fact.implies(&obligation);
        parts.push(&rest);
        obligation = Bool::and(&ctx, &parts);
    }
    solver.assert(&obligation.not());
    let (result, interrupted) = check(&ctx, &solver, limits, cancel);
    if interrupted {
        return None;
    }
    match result {
        SatResult::Unsat => Some(Outcome::Proved),
        SatResult::Unknown => None,
        SatResult::Sat => {
            let model = solver.get_model()?;
            let assignment: Vec<(String, u64)> = variables
                .iter()
                .map(|(name, _)| {
                    let var = Int::new_const(&ctx, name.as_str());
                    (name.clone(), model.eval(&var, true).and_then(|v| v.as_u64()).unwrap_or(0))
                })
                .collect();
            let violation = confirm(query, &assignment)?;
            let observed = observe(query.observe, &assignment);
            Some(Outcome::Refuted(Counterexample { assignment, observed, violation }))
        }
    }
}

fn pow2(ctx: &Context, width: u32) -> Int<'_> {
    if width < 64 {
        Int::from_u64(ctx, 1u64 << width)
    } else {
        Int::from_str(ctx, "18446744073709551616").unwrap_or_else(|| Int::from_u64(ctx, u64::MAX))
    }
}

struct IntTranslator<'c> {
    ctx: &'c Context,
    memo: HashMap<usize, Int<'c>>,
}

impl<'c> IntTranslator<'c> {
    fn boolean(&mut self, term: &Term) -> Result<Bool<'c>, String> {
        let value = self.translate(term)?;
        Ok(value._eq(&Int::from_u64(self.ctx, 1)))
    }

    fn translate(&mut self, root: &Term) -> Result<Int<'c>, String> {
        for term in topo_order(std::slice::from_ref(root)) {
            if !self.memo.contains_key(&term.id()) {
                let value = self.node(&term)?;
                self.memo.insert(term.id(), value);
            }
        }
        self.get(root)
    }

    fn get(&self, term: &Term) -> Result<Int<'c>, String> {
        self.memo.get(&term.id()).cloned().ok_or_else(|| "internal: operand not translated".to_string())
    }

    fn bit(&self, b: &Bool<'c>) -> Int<'c> {
        b.ite(&Int::from_u64(self.ctx, 1), &Int::from_u64(self.ctx, 0))
    }

    fn node(&self, term: &Term) -> Result<Int<'c>, String> {
        let ctx = self.ctx;
        let unsupported = || Err(format!("not in the integer encoding: {term}"));
        Ok(match term.node() {
            Node::Var { name, sort: Sort::Bits(_) } => Int::new_const(ctx, name.as_str()),
            Node::Const { value, .. } => Int::from_u64(ctx, *value),
            Node::Not(arg) => {
                let Some(width) = arg.width() else { return unsupported() };
                Int::sub(ctx, &[&Int::sub(ctx, &[&pow2(ctx, width), &Int::from_u64(ctx, 1)]), &self.get(arg)?])
            }
            Node::Bin { op, flags, lhs, rhs } => {
                if flags.nsw {
                    return unsupported();
                }
                let (a, b) = (self.get(lhs)?, self.get(rhs)?);
                let width = lhs.width().unwrap_or(64);
                match op {
                    BinOp::Add => Int::add(ctx, &[&a, &b]),
                    BinOp::Sub => Int::sub(ctx, &[&a, &b]),
                    BinOp::Mul => Int::mul(ctx, &[&a, &b]),
                    BinOp::DivU => a.div(&b),
                    BinOp::RemU => a.modulo(&b),
                    BinOp::Shl => match rhs.as_const() {
                        Some(k) if k < width as u64 => Int::mul(ctx, &[&a, &pow2(ctx, k as u32)]),
                        _ => return unsupported(),
                    },
                    BinOp::ShrU => match rhs.as_const() {
                        Some(k) if k < width as u64 => a.div(&pow2(ctx, k as u32)),
                        _ => return unsupported(),
                    },
                    BinOp::And => {
                        if width == 1 {
                            Int::mul(ctx, &[&a, &b])
                        } else if let Some(k) = low_mask(rhs).or_else(|| low_mask(lhs)) {
                            let other = if low_mask(rhs).is_some() { a } else { b };
                            other.modulo(&pow2(ctx, k))
                        } else {
                            return unsupported();
                        }
                    }
                    BinOp::Or if width == 1 => {
                        Int::sub(ctx, &[&Int::add(ctx, &[&a, &b]), &Int::mul(ctx, &[&a, &b])])
                    }
                    BinOp::Xor if width == 1 => Int::add(ctx, &[&a, &b]).modulo(&Int::from_u64(ctx, 2)),
                    BinOp::MinU => a.le(&b).ite(&a, &b),
                    BinOp::MaxU => a.ge(&b).ite(&a, &b),
                    _ => return unsupported(),
                }
            }
            Node::Cmp { pred, lhs, rhs } => {
                let (a, b) = (self.get(lhs)?, self.get(rhs)?);
                let result = match pred {
                    Pred::Eq => a._eq(&b),
                    Pred::Ne => a._eq(&b).not(),
                    Pred::Ult => a.lt(&b),
                    Pred::Ule => a.le(&b),
                    Pred::Ugt => a.gt(&b),
                    Pred::Uge => a.ge(&b),
                    _ => return unsupported(),
                };
                self.bit(&result)
            }
            Node::Select { cond, then, otherwise, .. } => {
                let c = self.get(cond)?._eq(&Int::from_u64(ctx, 1));
                c.ite(&self.get(then)?, &self.get(otherwise)?)
            }
            Node::Cast { op: CastOp::ZeroExtend, .. } => {
                let Some(arg) = term.children().first().copied() else { return unsupported() };
                self.get(arg)?
            }
            Node::Cast { op: CastOp::Truncate, width, arg } => self.get(arg)?.modulo(&pow2(ctx, *width)),
            _ => return unsupported(),
        })
    }

    /// Side conditions making the integer reading of `root` equal to its bit-vector reading: on every path
    /// that matters, sums and products stay below 2^width, differences are non-negative, divisors non-zero.
    fn side_conditions(&mut self, root: &Term) -> Result<Vec<Bool<'c>>, String> {
        let ctx = self.ctx;
        let value_guards = guards(root, true);
        let ub_guards = guards(root, false);
        let mut conditions = Vec::new();
        for term in topo_order(std::slice::from_ref(root)) {
            let Node::Bin { op, lhs, rhs, .. } = term.node() else { continue };
            let width = lhs.width().unwrap_or(64);
            let (a, b) = (self.get(lhs)?, self.get(rhs)?);
            let result = self.get(&term)?;
            let no_wrap = match op {
                BinOp::Add | BinOp::Mul | BinOp::Shl => Some(result.lt(&pow2(ctx, width))),
                BinOp::Sub => Some(a.ge(&b)),
                _ => None,
            };
            if let (Some(condition), Some(guard)) = (no_wrap, value_guards.get(&term.id())) {
                let guard = self.boolean(guard)?;
                conditions.push(guard.implies(&condition));
            }
            if matches!(op, BinOp::DivU | BinOp::RemU) {
                if let Some(guard) = ub_guards.get(&term.id()) {
                    let guard = self.boolean(guard)?;
                    conditions.push(guard.implies(&b._eq(&Int::from_u64(ctx, 0)).not()));
                }
            }
        }
        Ok(conditions)
    }
}

/// `k` when `term` is the constant `2^k - 1` (k ≥ 1).
fn low_mask(term: &Term) -> Option<u32> {
    let value = term.as_const()?;
    (value != 0 && value != u64::MAX && (value + 1).is_power_of_two()).then(|| (value + 1).trailing_zeros())
}
