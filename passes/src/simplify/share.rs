//! Cross-root division sharing: after the roots are rewritten one by one, divisions by constants that
//! different roots compute from related dividends are derived from one another, so that a function divides by
//! a non-power-of-two only once where the values allow it.
//!
//! A root is planned alone, so it cannot see that a division of another root (one planned later, or placed
//! after it) would make its own cheaper. This step looks at the whole function instead. For `D = x divui d`
//! (a constant `d`, not a power of two) it looks for an existing `S = y divui e` with
//! - `y = x`, `e | d`, `d / e = 2^k`: then `x div d = (x div e) div 2^k` (unsigned division composes:
//!   `⌊⌊x/e⌋/k⌋ = ⌊x/(e·k)⌋` for `e, k ≥ 1`; `e·k = d` is a constant, it does not wrap); or
//! - `y = c·x + r` with a constant `c ≥ 2` and `0 ≤ r < c` proved (the mixed-radix rule read backwards:
//!   then `x = y div c`), `e | c·d`, `c·d / e = 2^k` (k ≥ 0): then `x div d = y div (c·d) = (y div e) div 2^k`.
//!   The side conditions are the engine's ([`Engine::fits`], [`Engine::lt`]): `y`, `x`, `r` have their
//!   mathematical values (no wrap-around, proved or given by `assume-no-wrap`) and `r < c`.
//!
//! `D` is replaced by `S divui 2^k` (a shift after `lego-strength-reduction`; `S` itself when `k = 0`): one
//! division less, never an op more. `S` (and the pure arithmetic computing it, in the same block) is moved
//! before `D` when it comes later. A division used as a source is not rewritten itself (and a rewritten one
//! is no source), so no chain of replacements can loop. With `verify-rewrites=true` each replacement is proved
//! equal to `D` by Z3 first, like every other rewrite.

use super::{
    cost::{BinKind, Expr, Materializer},
    ir::{self, HashMap, HashSet, Key},
    poly::{signed, Poly},
    ranges::Ranges,
    rules::Engine,
    smt::{self, SmtProver},
    validate, Dead, Summary,
};
use mlir_sys::{MlirOperation, MlirValue};

/// The rule names recorded in [`Summary::rules`].
pub const SAME_DIVIDEND: &str = "x div (e·2^k) → (x div e) div 2^k (shared)";
pub const MIXED_RADIX_DIVIDEND: &str = "x div d → ((c·x + r) div e) div 2^k, c·d = e·2^k, r < c (shared)";

/// How far up the users of `x` a dividend `c·x + r` is looked for (ops of the sum and its scaling).
const MAX_USER_DEPTH: usize = 4;
/// Users of one value followed in that search.
const MAX_USERS: usize = 16;
/// Ops moved to make a source available before the division it replaces.
const MAX_HOISTED: usize = 64;

/// One `divui` by a constant that is not a power of two.
#[derive(Clone, Copy)]
struct Division {
    op: MlirOperation,
    result: MlirValue,
    dividend: MlirValue,
    divisor: u64,
}

/// A way to compute a division from another one: `(source) divui 2^shift`.
struct Derivation {
    source: Division,
    shift: u32,
    rule: &'static str,
}

/// Runs the sharing over everything under `root`; returns whether anything changed.
pub(super) fn share_divisions(
    root: MlirOperation,
    verify: bool,
    assume_no_wrap: bool,
    smt: &mut SmtProver,
    summary: &mut Summary,
    dead: &mut Dead,
    facts: &[MlirOperation],
) -> bool {
    // Dead: what the rounds freed, and the ops of plans they created but did not use (those are in the list
    // only); neither is a source nor a target, nor a user that keeps a division alive.
    let mut gone: HashSet<Key> = dead.ops.clone();
    gone.extend(dead.list.iter().map(|op| ir::op_key(*op)));
    let divisions = collect(root, &gone);
    if divisions.len() < 2 {
        return false;
    }
    let mut by_dividend: HashMap<Key, Vec<Division>> = HashMap::default();
    for division in &divisions {
        by_dividend.entry(ir::key(division.dividend)).or_default().push(*division);
    }
    // The facts of every op under `root` that states some (`facts`, the same as walking `root` again).
    let mut ranges = Ranges::from_ops(facts);
    ranges.assume_no_wrap = assume_no_wrap;
    let mut sources: HashSet<Key> = HashSet::default();
    let mut targets: HashSet<Key> = HashSet::default();
    let mut changed = false;
    for target in &divisions {
        let key = ir::op_key(target.op);
        if sources.contains(&key) {
            continue;
        }
        let mut scoped = Vec::new();
        let Some(derivation) = derive(&mut ranges, smt, target, &by_dividend, &targets, &mut scoped) else { continue };
        if !hoist_before(derivation.source.result, target.op) {
            continue;
        }
        let r#type = ir::value_type(target.result);
        let mut values = HashMap::default();
        values.insert(ir::key(derivation.source.result), derivation.source.result);
        let mut materializer = Materializer::new(target.op, r#type, &values);
        let source = Expr::Value(ir::key(derivation.source.result));
        let expr = match derivation.shift {
            0 => source,
            shift => Expr::Bin(BinKind::Div, std::rc::Rc::new(source), std::rc::Rc::new(Expr::Const(1u64 << shift))),
        };
        let Some(new_value) = materializer.emit(&expr) else {
            discard(dead, &materializer.created);
            continue;
        };
        if verify {
            // The source is the program's own value, computed wherever the target is (it dominates it now):
            // its premises hold there (under assume-no-wrap, its sums do not wrap — what the mixed-radix
            // reading of its dividend relies on).
            let evaluated = [derivation.source.result];
            let verdict =
                validate::validate_with(&mut ranges, target.result, new_value, &evaluated, &scoped, smt::SAFETY_NET_MS);
            if !verdict.accept_or_report(target.op, "shared division", "the shared form of this division") {
                summary.rejected_by_validation += 1;
                discard(dead, &materializer.created);
                continue;
            }
        }
        unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(target.result, new_value) };
        if dead.ops.insert(key) {
            dead.list.push(target.op);
        }
        sources.insert(ir::op_key(derivation.source.op));
        targets.insert(key);
        summary.rewrites += 1;
        summary.rules.push(derivation.rule);
        changed = true;
    }
    changed
}

/// Created ops that were not used: erased with the dead ones at the end of the run.
fn discard(dead: &mut Dead, created: &[MlirOperation]) {
    for op in created {
        if dead.ops.insert(ir::op_key(*op)) {
            dead.list.push(*op);
        }
    }
}

/// Whether some op that is not dead uses `value`.
fn live(value: MlirValue, gone: &HashSet<Key>) -> bool {
    ir::users(value).iter().any(|user| !gone.contains(&ir::op_key(*user)))
}

/// The live `divui` ops by a constant that is not a power of two (at least 3), in IR order.
fn collect(root: MlirOperation, gone: &HashSet<Key>) -> Vec<Division> {
    let mut divisions = Vec::new();
    ir::walk(root, &mut |op| {
        if ir::op_name(op) != "arith.divui" || gone.contains(&ir::op_key(op)) {
            return;
        }
        let (Some(result), Some(dividend), Some(divisor)) =
            (ir::result(op, 0), ir::operand(op, 0), ir::operand(op, 1).and_then(ir::constant_value))
        else {
            return;
        };
        if ir::width(result) != Some(64) || divisor < 3 || divisor.is_power_of_two() || !live(result, gone) {
            return;
        }
        divisions.push(Division { op, result, dividend, divisor });
    });
    divisions
}

/// A source for `target`, the first of the candidates with the smallest divisor (the most basic quotient,
/// which other divisions can share too).
fn derive(
    ranges: &mut Ranges,
    smt: &mut SmtProver,
    target: &Division,
    by_dividend: &HashMap<Key, Vec<Division>>,
    targets: &HashSet<Key>,
    scoped: &mut Vec<(MlirValue, super::ranges::Rel, super::rules::Bound)>,
) -> Option<Derivation> {
    let usable = |source: &Division| {
        ir::op_key(source.op) != ir::op_key(target.op)
            && !targets.contains(&ir::op_key(source.op))
            && ir::value_type(source.result).ptr == ir::value_type(target.result).ptr
    };
    // x div d from x div e.
    let mut best: Option<Derivation> = None;
    for source in by_dividend.get(&ir::key(target.dividend)).into_iter().flatten() {
        if !usable(source) || source.divisor >= target.divisor || target.divisor % source.divisor != 0 {
            continue;
        }
        let factor = target.divisor / source.divisor;
        if factor.is_power_of_two() && best.as_ref().map_or(true, |b| source.divisor < b.source.divisor) {
            best = Some(Derivation { source: *source, shift: factor.trailing_zeros(), rule: SAME_DIVIDEND });
        }
    }
    if best.is_some() {
        return best;
    }
    // x div d from y div e with y = c·x + r, 0 ≤ r < c.
    let candidates = dividends_above(target.dividend, by_dividend);
    if candidates.is_empty() {
        return None;
    }
    let mut engine = Engine::new(ranges, std::mem::take(smt));
    engine.collect_scoped_facts(target.result);
    let x = engine.poly_of(target.dividend);
    let mut found: Option<Derivation> = None;
    if x.single().is_some_and(|(_, coefficient)| signed(coefficient) > 0) {
        for y in candidates {
            let Some(sources) = by_dividend.get(&ir::key(y)) else { continue };
            let poly = engine.poly_of(y);
            let Some((quotient, rest)) = poly.split(&x) else { continue };
            let Some(c) = quotient.as_constant().filter(|c| *c >= 2 && signed(*c) > 0) else { continue };
            let Some(total) = c.checked_mul(target.divisor) else { continue };
            let mut options: Vec<&Division> = sources
                .iter()
                .filter(|source| usable(source) && total % source.divisor == 0 && (total / source.divisor).is_power_of_two())
                .collect();
            if options.is_empty() {
                continue;
            }
            options.sort_by_key(|source| source.divisor);
            // y = c·x + r exactly (split's identity over ℤ), each with its mathematical value, r < c.
            if !(engine.fits(&poly) && engine.fits(&x) && engine.fits(&rest) && engine.lt(&rest, &Poly::constant(c))) {
                continue;
            }
            let source = *options[0];
            found = Some(Derivation { source, shift: (total / source.divisor).trailing_zeros(), rule: MIXED_RADIX_DIVIDEND });
            break;
        }
    }
    scoped.extend(engine.scoped_facts());
    *smt = std::mem::take(&mut engine.smt);
    found
}

/// Dividends of other divisions that are computed from `x` by sums and scalings (users of users, bounded).
fn dividends_above(x: MlirValue, by_dividend: &HashMap<Key, Vec<Division>>) -> Vec<MlirValue> {
    let mut found = Vec::new();
    let mut seen: HashSet<Key> = HashSet::from_iter([ir::key(x)]);
    let mut frontier = vec![x];
    for _ in 0..MAX_USER_DEPTH {
        let mut next = Vec::new();
        for value in frontier {
            let Some(users) = ir::users_up_to(value, MAX_USERS) else { continue };
            for user in users {
                if !matches!(ir::op_name(user), "arith.addi" | "arith.muli" | "arith.shli") {
                    continue;
                }
                let Some(result) = ir::result(user, 0) else { continue };
                if !seen.insert(ir::key(result)) {
                    continue;
                }
                if by_dividend.contains_key(&ir::key(result)) {
                    found.push(result);
                }
                next.push(result);
            }
        }
        frontier = next;
    }
    found
}

/// Pure ops that may be moved earlier in their block (no side effect, defined wherever their operands are:
/// a division only by a non-zero constant).
fn movable(op: MlirOperation) -> bool {
    match ir::op_name(op) {
        "arith.constant" | "arith.addi" | "arith.subi" | "arith.muli" | "arith.shli" | "arith.shrui" | "arith.andi" => true,
        "arith.divui" | "arith.remui" => ir::operand(op, 1).and_then(ir::constant_value).is_some_and(|c| c != 0),
        _ => false,
    }
}

/// Makes `value` available before `anchor`: already, or by moving the ops of the same block that compute it
/// (after `anchor`, pure) to just before it, operands first. Nothing moves unless all of them can.
fn hoist_before(value: MlirValue, anchor: MlirOperation) -> bool {
    let mut order: Vec<MlirOperation> = Vec::new();
    let mut planned: HashSet<Key> = HashSet::default();
    if !plan_hoist(value, anchor, &mut order, &mut planned) {
        return false;
    }
    for op in order {
        unsafe { mlir_sys::mlirOperationMoveBefore(op, anchor) };
    }
    true
}

fn plan_hoist(value: MlirValue, anchor: MlirOperation, order: &mut Vec<MlirOperation>, planned: &mut HashSet<Key>) -> bool {
    if ir::dominates(value, anchor) {
        return true;
    }
    let Some(op) = ir::defining_op(value) else { return false };
    if planned.contains(&ir::op_key(op)) {
        return true;
    }
    let same_block = match (ir::op_block(op), ir::op_block(anchor)) {
        (Some(a), Some(b)) => ir::block_key(a) == ir::block_key(b),
        _ => false,
    };
    if !same_block || !movable(op) || ir::op_key(op) == ir::op_key(anchor) || order.len() >= MAX_HOISTED {
        return false;
    }
    for operand in ir::operands(op) {
        if !plan_hoist(operand, anchor, order, planned) {
            return false;
        }
    }
    planned.insert(ir::op_key(op));
    order.push(op);
    true
}
