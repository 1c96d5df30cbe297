//! The proof obligation of a `gen_p`'s `inv` region (docs/ops/gen_p.md): on its dims `D = [0, n⃗)` and
//! `N = Π n⃗`, `inv` inverts `apply` — (B1) `∀x ∈ D: apply(x) < N` and (B2) `∀x ∈ D: inv(apply(x)) = x`
//! (with every operation on the way defined), which on a finite domain also gives `apply(inv(y)) = y` for
//! every `y < N` ([`crate::verify_bijectivity`]'s module doc has the argument).
//!
//! Every rewrite that relies on an inverse asks this checker before it fires:
//! - `lego-to-arith` (and so `lego-lower`) computes `apply_inverse` through the `inv` regions of the gen_p's
//!   its layout is built from;
//! - `lego-canonicalize` (every `canonicalize` of `lego-opt`) folds `apply(L, apply_inverse(L, f))` to `f` and
//!   `apply_inverse(L, apply(L, i⃗))` to `i⃗`, which holds only when every gen_p of `L` is a bijection with that
//!   inverse; its `gen_p → reg_p` pattern replaces `inv` by the true inverse, so it needs the same proof.
//!
//! (`lego.apply` and everything else `lego-lower` computes use `apply` regions only; `lego-normalization` reads no
//! gen_p region. An apply-only gen_p has no inverse to trust: `apply_inverse` of it is rejected by the verifier.)
//!
//! How: exhaustively for a static domain of at most [`EXHAUSTIVE_POINTS`] points whose regions read nothing but
//! their arguments (B1 ∧ B2 at every point, in lexicographic order, so the counterexample is the lowest
//! witness), with Z3 otherwise (`lego-verify-bijectivity`'s proofs, A then B; for symbolic sizes, when the proof
//! for all sizes is undecided, small sizes are searched for a refutation), within one time budget per pass run.
//! Verdicts are memoized per gen_p op for the run, and — for a gen_p whose sizes are literals and whose regions
//! read only their own values — per structural form, so identical gen_p's are decided once.
//!
//! Refuted → the published `Layout is not bijective: …` error with its counterexample, at the gen_p, and the
//! pass fails; unknown → a warning at the gen_p, and no rewrite that relies on the inverse. The checker
//! emits nothing itself: callers report through [`GenPObligations::report`], once per gen_p.

use crate::{
    diagnostics::{self, Severity},
    verify_bijectivity::{b_observed, encode_gen_p, message_b, prove_gen_p, GenP, Verdict},
    verify_common::{describe_unknown, VerifyOptions},
};
use lego_dialect::ops::{self, walk_ops, LayoutOp};
use lego_smt::{Counterexample, Program, Term, Unknown, UnknownKind, Value, Violation};
use melior::ir::{
    attribute::AttributeLike,
    block::BlockLike,
    r#type::TypeLike,
    operation::OperationLike,
    Location, OperationRef, RegionLike,
    Value as MlirValue, ValueLike,
};
use std::{
    collections::{HashMap, HashSet},
    rc::Rc,
};

/// Static domains of at most this many points are checked point by point (the same bound as the
/// `gen_p → reg_p` pattern's check had); larger ones are proved with Z3.
pub const EXHAUSTIVE_POINTS: u64 = 1 << 14;
/// A refutation found by Z3 on a larger static domain is replaced by the lowest witness when one lies among
/// the first this many points (a failing run only: a proof never scans).
pub const WITNESS_SCAN_POINTS: u64 = 1 << 18;
/// Z3 budget of one pass run for all its gen_p obligations, in milliseconds (`lego-verify-bijectivity`'s default).
pub const BUDGET_MS: u64 = 10_000;
/// The note at the `lego.apply_inverse` that a refuted inverse was met through (the same whichever pass met it).
pub const USED_HERE: &str = "the inverse is used here";
/// Symbolic sizes: how many values per size variable the refutation search tries (as `lego-verify-bijectivity`).
fn sizes_per_variable(variables: usize) -> u64 {
    match variables {
        1 => 16,
        2 => 8,
        3 => 4,
        _ => 2,
    }
}

/// What was established about one gen_p's inverse.
#[derive(Clone, Debug)]
pub enum Obligation<'c> {
    /// `inv` inverts `apply` on the dims.
    Proved,
    /// An apply-only gen_p: there is no inverse to rely on.
    NoInverse,
    /// A counterexample, as the published message: first line `Layout is not bijective: …` (the direction
    /// `inv(apply(x)) ≠ x` when it was refuted, so a static and a symbolic gen_p read alike).
    Refuted(String),
    /// Neither (a budget spent, an op the encoding does not model, float math on a large domain): why, and the op
    /// responsible when it is not the gen_p itself.
    Unknown { reason: String, at: Option<Location<'c>> },
}

impl Obligation<'_> {
    /// Whether a rewrite may rely on the inverse.
    pub fn holds(&self) -> bool {
        matches!(self, Obligation::Proved | Obligation::NoInverse)
    }
}

/// What [`GenPObligations::layout`] found.
pub enum LayoutInverse<'c, 'a> {
    /// Every gen_p the layout is built from (maybe none) has a proved inverse.
    Holds,
    /// The layout's construction is not visible here (a block argument, or a value a non-layout op made): its
    /// gen_p's, if any, cannot be checked from here.
    Hidden,
    /// This gen_p's obligation does not hold (refuted or undecided).
    Fails(OperationRef<'c, 'a>, Rc<Obligation<'c>>),
}

/// The obligations of one pass run: verdicts memoized per gen_p op (and per printed form), the run's Z3 budget,
/// and which gen_p's were already reported.
pub struct GenPObligations<'c> {
    options: VerifyOptions,
    by_op: HashMap<usize, Rc<Obligation<'c>>>,
    by_text: HashMap<Vec<usize>, Rc<Obligation<'c>>>,
    reported: HashSet<usize>,
}

fn op_key(op: &OperationRef) -> usize {
    op.to_raw().ptr as usize
}

impl<'c> GenPObligations<'c> {
    /// A checker whose Z3 budget (`budget_ms` for the whole run, 0: none) starts now.
    pub fn new(budget_ms: u64) -> Self {
        let options = VerifyOptions { timeout_ms: budget_ms, verbose: false, deadline: None }.started();
        GenPObligations { options, by_op: HashMap::new(), by_text: HashMap::new(), reported: HashSet::new() }
    }

    /// The verdict on `gen_p` (a `lego.gen_p` op), decided on first use.
    pub fn of_gen_p(&mut self, gen_p: OperationRef<'c, '_>) -> Rc<Obligation<'c>> {
        if let Some(known) = self.by_op.get(&op_key(&gen_p)) {
            return Rc::clone(known);
        }
        let text = structural_key(gen_p);
        let obligation = match text.as_ref().and_then(|text| self.by_text.get(text)) {
            Some(known) => Rc::clone(known),
            None => {
                let decided = Rc::new(self.decide(gen_p));
                // An unknown may name an op inside this very gen_p; identical copies decide for themselves.
                if let (Some(text), Obligation::Proved | Obligation::Refuted(_)) = (text, decided.as_ref()) {
                    self.by_text.insert(text, Rc::clone(&decided));
                }
                decided
            }
        };
        self.by_op.insert(op_key(&gen_p), Rc::clone(&obligation));
        obligation
    }

    /// Whether a rewrite may rely on the inverse of `layout`: every gen_p whose `inv` it runs through is
    /// checked (depth first, operands in order) up to the first whose obligation does not hold.
    pub fn layout<'a>(&mut self, layout: MlirValue<'c, 'a>) -> LayoutInverse<'c, 'a> {
        let Some(gen_ps) = gen_ps_under(layout) else { return LayoutInverse::Hidden };
        for gen_p in gen_ps {
            let obligation = self.of_gen_p(gen_p);
            if !obligation.holds() {
                return LayoutInverse::Fails(gen_p, obligation);
            }
        }
        LayoutInverse::Holds
    }

    /// The verdict on the visible gen_p's of `pieces` (the hidden ones are the caller's business): the first
    /// whose obligation does not hold, or `Holds`.
    pub fn visible<'a>(&mut self, pieces: &LayoutPieces<'c, 'a>) -> LayoutInverse<'c, 'a> {
        for &gen_p in &pieces.gen_ps {
            let obligation = self.of_gen_p(gen_p);
            if !obligation.holds() {
                return LayoutInverse::Fails(gen_p, obligation);
            }
        }
        LayoutInverse::Holds
    }

    /// Reports a failing obligation once per gen_p: refuted → the published error(s) at the gen_p, with a note
    /// at `used_at` (`uses`: what relies on it); unknown → a warning at the gen_p that ends with `consequence`
    /// (what is not done because of it). Returns whether the verdict is a refutation (the pass must fail).
    pub fn report(
        &mut self,
        gen_p: OperationRef<'c, '_>,
        obligation: &Obligation<'c>,
        used_at: Location<'c>,
        uses: &str,
        consequence: &str,
    ) -> bool {
        let first = self.reported.insert(op_key(&gen_p));
        let location = gen_p.location();
        match obligation {
            Obligation::Proved | Obligation::NoInverse => false,
            Obligation::Refuted(message) => {
                if first {
                    diagnostics::emit_with_note(location, Severity::Error, message, Some((used_at, uses)));
                }
                true
            }
            Obligation::Unknown { reason, at } => {
                if first {
                    let message = format!("the gen_p's inv region is not proved to invert its apply region ({reason}); {consequence}");
                    let note = at.filter(|at| *at != location).map(|at| (at, "in the slice of this value"));
                    diagnostics::emit_with_note(location, Severity::Warning, &message, note);
                }
                false
            }
        }
    }

    fn decide(&self, op: OperationRef<'c, '_>) -> Obligation<'c> {
        let location = op.location();
        let (dims, apply, inverse) = match ops::layout_op(op) {
            Ok(Some(LayoutOp::GenP { dims, apply, inverse })) => (dims, apply, inverse),
            _ => return Obligation::Unknown { reason: "cannot verify: malformed gen_p".into(), at: None },
        };
        let Some(inverse) = inverse else { return Obligation::NoInverse };
        // The function's lego.assume facts can only matter for regions that read values from outside.
        let closed = reads_only_its_own_values(op);
        let gen = match encode_gen_p(op, &dims, apply, inverse, !closed) {
            Ok(gen) => gen,
            Err(error) => return Obligation::Unknown { reason: error.message, at: Some(error.location) },
        };
        let sizes: Option<Vec<u64>> = gen.dims.iter().map(Term::as_const).collect();
        if let Some(sizes) = &sizes {
            let numel = sizes.iter().try_fold(1u64, |acc, n| acc.checked_mul(*n));
            match numel {
                None => {
                    return Obligation::Unknown {
                        reason: "cannot verify: the element count overflows 64 bits".into(),
                        at: Some(location),
                    }
                }
                Some(numel) if numel <= EXHAUSTIVE_POINTS => match scan_b(&gen, sizes, numel) {
                    Scan::Violated(obligation) => return obligation,
                    Scan::Clean => return Obligation::Proved,
                    Scan::Stopped | Scan::Unenumerable => {}
                },
                Some(_) => {}
            }
        }
        match prove_gen_p(&gen, self.options) {
            Verdict::Proved => Obligation::Proved,
            Verdict::Refuted(messages) => {
                // Z3's witness is arbitrary; the lexicographically first one comes no later than it, so a scan
                // up to there finds it (capped, for a witness far into a huge domain).
                if let Some(sizes) = &sizes {
                    if let Scan::Violated(lowest) = scan_b(&gen, sizes, WITNESS_SCAN_POINTS) {
                        return lowest;
                    }
                }
                refutation(messages)
            }
            Verdict::Unknown(unknown) => {
                let reason = reason_of(&unknown, self.options.timeout_ms);
                match sizes {
                    Some(_) => Obligation::Unknown { reason, at: None },
                    None => self.refute_small_sizes(&gen).unwrap_or(Obligation::Unknown { reason, at: None }),
                }
            }
        }
    }

    /// Symbolic sizes whose proof for all sizes was undecided: a refutation for some small sizes, if any.
    fn refute_small_sizes(&self, gen: &GenP) -> Option<Obligation<'c>> {
        let mut variables: Vec<(String, u32)> = Vec::new();
        for dim in &gen.dims {
            for (name, sort) in dim.variables() {
                if let lego_smt::Sort::Bits(width) = sort {
                    if !variables.iter().any(|(seen, _)| *seen == name) {
                        variables.push((name, width));
                    }
                }
            }
        }
        if variables.is_empty() {
            return None;
        }
        let per_variable = sizes_per_variable(variables.len());
        let mut combination = vec![1u64; variables.len()];
        loop {
            let map: HashMap<String, Term> = variables
                .iter()
                .zip(&combination)
                .map(|((name, width), value)| (name.clone(), Term::constant(*value, *width)))
                .collect();
            if let Verdict::Refuted(messages) = prove_gen_p(&gen.substitute(&map), self.options) {
                let sizes = variables
                    .iter()
                    .zip(&combination)
                    .map(|((name, _), value)| format!("{name} = {value}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let Obligation::Refuted(message) = refutation(messages) else { return None };
                return Some(Obligation::Refuted(format!("{message} (sizes {sizes})")));
            }
            // Next combination (last variable fastest); once the budget is spent every proof is unknown at once.
            let mut k = combination.len();
            loop {
                if k == 0 {
                    return None;
                }
                k -= 1;
                combination[k] += 1;
                if combination[k] <= per_variable {
                    break;
                }
                combination[k] = 1;
            }
        }
    }
}

/// What a scan of B1 ∧ B2 over the static domain found.
enum Scan<'c> {
    /// The first violation in lexicographic order (the lowest witness), as the published message.
    Violated(Obligation<'c>),
    /// Every point satisfies B1 ∧ B2.
    Clean,
    /// `max_points` points were checked without a violation, before the end of the domain.
    Stopped,
    /// The terms read something besides the point (a value from outside the gen_p): nothing to enumerate.
    Unenumerable,
}

/// B1 ∧ B2 at the points of the static domain `sizes` in lexicographic order (x0 slowest), at most `max_points`
/// of them; stops at the first violation, which is therefore the lowest witness.
fn scan_b<'c>(gen: &GenP, sizes: &[u64], max_points: u64) -> Scan<'c> {
    let goal = gen
        .apply_x
        .ult(&gen.numel)
        .and(&Term::all(gen.inv_apply_x.iter().zip(&gen.xs).map(|(got, x)| got.eq(x))));
    let mut roots = vec![goal, Term::all(gen.facts.iter().cloned())];
    roots.extend(b_observed(gen));
    let Ok(program) = Program::new(&roots) else { return Scan::Unenumerable };
    // Each program input is one of the point's coordinates.
    let Some(slots) = program
        .variables()
        .iter()
        .map(|(name, _)| gen.x_names.iter().position(|x| x == name))
        .collect::<Option<Vec<usize>>>()
    else {
        return Scan::Unenumerable;
    };
    let mut point = vec![0u64; sizes.len()];
    let mut inputs = vec![Value::Bits(0); slots.len()];
    for _ in 0..max_points {
        for (input, &slot) in inputs.iter_mut().zip(&slots) {
            *input = Value::Bits(point[slot]);
        }
        let evaluation = program.run(&inputs);
        if evaluation.roots.get(1) == Some(&Value::Bits(1)) {
            let violation = match (&evaluation.undefined, evaluation.roots.first()) {
                (Some(what), _) => Some(Violation::Undefined(what.clone())),
                (None, Some(Value::Bits(1))) => None,
                (None, _) => Some(Violation::Goal),
            };
            if let Some(violation) = violation {
                let counterexample = Counterexample {
                    assignment: gen.x_names.iter().cloned().zip(point.iter().copied()).collect(),
                    observed: evaluation.roots.get(2..).unwrap_or_default().to_vec(),
                    violation,
                };
                return Scan::Violated(Obligation::Refuted(message_b(gen, &counterexample)));
            }
        }
        let mut k = point.len();
        loop {
            if k == 0 {
                return Scan::Clean;
            }
            k -= 1;
            point[k] += 1;
            if point[k] < sizes[k] {
                break;
            }
            point[k] = 0;
        }
    }
    Scan::Stopped
}

/// The gen_p's a layout's inverse runs through: every gen_p reachable from `layout` through the visible
/// constructors (order_by / group_by objects, tile_by / expand_by inputs), each once, depth first; `None` when a
/// piece is not built by a visible lego layout op.
pub fn gen_ps_under<'c, 'a>(layout: MlirValue<'c, 'a>) -> Option<Vec<OperationRef<'c, 'a>>> {
    let pieces = layout_pieces(layout);
    pieces.hidden.is_empty().then_some(pieces.gen_ps)
}

/// What a layout value is built from, as far as it is visible: see [`layout_pieces`].
pub struct LayoutPieces<'c, 'a> {
    /// The visible gen_p's, each once, depth first, operands in order.
    pub gen_ps: Vec<OperationRef<'c, 'a>>,
    /// The pieces not built by a visible lego layout op (block arguments, results of other ops), in the order met.
    pub hidden: Vec<MlirValue<'c, 'a>>,
}

/// The visible gen_p's under `layout` (as [`gen_ps_under`]) and the pieces whose construction is not visible.
pub fn layout_pieces<'c, 'a>(layout: MlirValue<'c, 'a>) -> LayoutPieces<'c, 'a> {
    let mut found = Vec::new();
    let mut hidden = Vec::new();
    let mut seen = HashSet::new();
    let mut pending = vec![layout];
    while let Some(value) = pending.pop() {
        let Some((owner, node)) = ops::defining_layout(value) else {
            hidden.push(value);
            continue;
        };
        if !seen.insert(op_key(&owner)) {
            continue;
        }
        let mut inputs = match node {
            LayoutOp::GenP { .. } => {
                found.push(owner);
                continue;
            }
            LayoutOp::Row { .. }
            | LayoutOp::Col { .. }
            | LayoutOp::RegP { .. }
            | LayoutOp::Swizzle { .. }
            | LayoutOp::Strided { .. } => continue,
            LayoutOp::OrderBy { objects } | LayoutOp::GroupBy { objects, .. } => objects,
            LayoutOp::TileBy { inner, .. } | LayoutOp::ExpandBy { inner, .. } | LayoutOp::Inverse { inner } => vec![inner],
            LayoutOp::Compose { outer, inner } => vec![outer, inner],
        };
        inputs.reverse();
        pending.extend(inputs);
    }
    LayoutPieces { gen_ps: found, hidden }
}

/// Whether every operand inside the gen_p's regions is defined inside them, and the gen_p takes no operand
/// (its sizes are literals): then its verdict depends on its printed form alone.
fn reads_only_its_own_values(gen_p: OperationRef) -> bool {
    let mut ops_inside = HashSet::new();
    let mut blocks_inside = HashSet::new();
    let mut nested = Vec::new();
    walk_ops(gen_p, &mut |op| {
        ops_inside.insert(op_key(&op));
        for region in op.regions() {
            let mut block = region.first_block();
            while let Some(current) = block {
                blocks_inside.insert(current.to_raw().ptr as usize);
                block = current.next_in_region();
            }
        }
        nested.push(op);
    });
    nested.iter().all(|op| {
        if op_key(op) == op_key(&gen_p) {
            return op.operand_count() == 0;
        }
        op.operands().all(|value| {
            // The kind first: a failing melior `try_from` prints the value (the whole function) for its error.
            if unsafe { mlir_sys::mlirValueIsAOpResult(value.to_raw()) } {
                lego_dialect::ops::op_result(value).is_some_and(|result| ops_inside.contains(&op_key(&result.owner())))
            } else if let Some(argument) = lego_dialect::ops::block_argument(value) {
                blocks_inside.contains(&(argument.owner().to_raw().ptr as usize))
            } else {
                false
            }
        })
    })
}

/// A structural form of a gen_p whose verdict depends on it alone (see [`reads_only_its_own_values`]): its ops in
/// order, each as its name, its attributes, its operands (by local number) and its result and block argument
/// types. Names, attributes and types are uniqued in the MLIR context, so their addresses stand for them and
/// nothing is printed (printing an op or an attribute builds an `AsmState`, a large share of the cost here).
fn structural_key(gen_p: OperationRef) -> Option<Vec<usize>> {
    if !reads_only_its_own_values(gen_p) {
        return None;
    }
    const OP: usize = usize::MAX;
    const OPERANDS: usize = usize::MAX - 1;
    const BLOCK: usize = usize::MAX - 2;
    const RESULTS: usize = usize::MAX - 3;
    const OUTSIDE: usize = usize::MAX - 4;
    let mut local: HashMap<usize, usize> = HashMap::new();
    let mut key = Vec::new();
    walk_ops(gen_p, &mut |op| {
        key.push(OP);
        key.push(op.name().to_raw().ptr as usize);
        for (name, attribute) in op.attributes() {
            key.push(name.to_raw().ptr as usize);
            key.push(attribute.to_raw().ptr as usize);
        }
        key.push(OPERANDS);
        for operand in op.operands() {
            key.push(local.get(&(operand.to_raw().ptr as usize)).copied().unwrap_or(OUTSIDE));
        }
        for region in op.regions() {
            let mut block = region.first_block();
            while let Some(current) = block {
                key.push(BLOCK);
                for index in 0..current.argument_count() {
                    if let Ok(argument) = current.argument(index) {
                        let value: MlirValue = argument.into();
                        local.insert(value.to_raw().ptr as usize, local.len());
                        key.push(value.r#type().to_raw().ptr as usize);
                    }
                }
                block = current.next_in_region();
            }
        }
        key.push(RESULTS);
        for result in op.results() {
            let value: MlirValue = result.into();
            local.insert(value.to_raw().ptr as usize, local.len());
            key.push(value.r#type().to_raw().ptr as usize);
        }
    });
    Some(key)
}

/// The first of a refutation's messages (`inv(apply(x)) ≠ x` first, when refuted).
fn refutation<'c>(messages: Vec<String>) -> Obligation<'c> {
    match messages.into_iter().next() {
        Some(message) => Obligation::Refuted(message),
        None => Obligation::Unknown { reason: "unknown: a refutation without a counterexample".into(), at: None },
    }
}

/// Why a proof was undecided. A spent budget is the pass's own (it has no `timeout-ms` option to raise).
fn reason_of(unknown: &Unknown, budget_ms: u64) -> String {
    match unknown.kind {
        UnknownKind::Timeout => format!("unknown: Z3 did not decide it within the {budget_ms} ms this pass gives its gen_p proofs"),
        _ => describe_unknown(unknown),
    }
}

#[cfg(test)]
mod tests {
    use super::{GenPObligations, Obligation};
    use lego_dialect::ops::{walk_ops, OpKind};

    /// `f(a, b) = a·n + (b xor (a and (n - 1)))` over `[rows, n]` (n a power of two), with its inverse, or with
    /// the inverse that forgets the XOR.
    fn swizzle(name: &str, rows: u64, n: u64, correct: bool) -> String {
        let fix = if correct {
            format!("%m = arith.andi %a, %c{m} : index\n    %b = arith.xori %r, %m : index", m = n - 1)
        } else {
            "%b = arith.addi %r, %c0 : index".into()
        };
        format!(
            "func.func @{name}() -> !lego.layout {{
  %l = lego.gen_p [{rows}, {n}] apply (%a: index, %b: index) {{
    %c{m} = arith.constant {m} : index
    %c{n} = arith.constant {n} : index
    %m = arith.andi %a, %c{m} : index
    %x = arith.xori %b, %m : index
    %r = arith.muli %a, %c{n} : index
    %f = arith.addi %r, %x : index
    lego.yield %f : index
  }} inv (%y: index) {{
    %c0 = arith.constant 0 : index
    %c{m} = arith.constant {m} : index
    %c{n} = arith.constant {n} : index
    %a = arith.divui %y, %c{n} : index
    %r = arith.remui %y, %c{n} : index
    {fix}
    lego.yield %a, %b : index, index
  }} : !lego.layout
  return %l : !lego.layout
}}
",
            m = n - 1
        )
    }

    fn decide_all(text: &str, budget_ms: u64, wait_ms: u64) -> (Vec<String>, usize) {
        let context = lego_dialect::create_context().expect("the lego dialect registers");
        let module = lego_dialect::source::parse(&context, "obligation.mlir", text).expect("parses");
        let mut gen_ps = Vec::new();
        walk_ops(module.as_operation(), &mut |op| {
            if OpKind::of(&op) == Some(OpKind::GenP) {
                gen_ps.push(op);
            }
        });
        let mut checker = GenPObligations::new(budget_ms);
        std::thread::sleep(std::time::Duration::from_millis(wait_ms));
        let out = gen_ps
            .into_iter()
            .map(|op| match checker.of_gen_p(op).as_ref() {
                Obligation::Proved => "proved".to_string(),
                Obligation::NoInverse => "no inverse".to_string(),
                Obligation::Refuted(message) => format!("refuted: {message}"),
                Obligation::Unknown { reason, .. } => format!("unknown: {reason}"),
            })
            .collect();
        lego_smt::join_background();
        (out, checker.by_text.len())
    }

    #[test]
    fn small_domains_are_enumerated_with_the_lowest_witness() {
        // Spent budget: the enumeration does not need Z3. Row 0 is fine (b xor 0 = b); (1, 0) is the lowest
        // witness: f(1, 0) = 8 + 1 = 9, inv(9) = (1, 1).
        let text = swizzle("ok", 4, 8, true) + &swizzle("wrong", 4, 8, false);
        let (verdicts, _) = decide_all(&text, 1, 5);
        assert_eq!(verdicts[0], "proved");
        assert_eq!(verdicts[1], "refuted: Layout is not bijective: inv(apply(x)) ≠ x\napply(1, 0) = 9 but inv(9) = (1, 1)");
    }

    #[test]
    fn a_spent_budget_is_unknown_never_proved_or_refuted() {
        // 256 · 128 points: beyond the enumeration, so Z3 decides, and its budget (1 ms) is already spent.
        let text = swizzle("ok", 256, 128, true) + &swizzle("wrong", 256, 128, false);
        let (verdicts, _) = decide_all(&text, 1, 5);
        for verdict in &verdicts {
            assert!(verdict.starts_with("unknown: unknown: Z3 did not decide it within the 1 ms"), "{verdict}");
        }
        // With the default budget: proved, and the lowest witness (1, 0): f(1, 0) = 128 + 1 = 129.
        let (verdicts, _) = decide_all(&text, super::BUDGET_MS, 0);
        assert_eq!(verdicts[0], "proved");
        assert_eq!(verdicts[1], "refuted: Layout is not bijective: inv(apply(x)) ≠ x\napply(1, 0) = 129 but inv(129) = (1, 1)");
    }

    #[test]
    fn identical_gen_ps_are_decided_once() {
        let text = swizzle("a", 4, 8, true) + &swizzle("b", 4, 8, true) + &swizzle("c", 4, 8, false);
        let (verdicts, distinct) = decide_all(&text, super::BUDGET_MS, 0);
        assert_eq!(verdicts[..2], ["proved", "proved"]);
        assert!(verdicts[2].starts_with("refuted"));
        assert_eq!(distinct, 2, "one entry per printed form");
    }
}
