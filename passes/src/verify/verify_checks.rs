//! `lego-verify`: proves or refutes every `lego.check` with Z3, then erases the checks. See
//! docs/verification.md for exactly what each property means.
//!
//! The address operand is an `index` (or integer) expression of the enclosing function's arguments; one of
//! them carries the unit attribute `lego.thread_id`. The address may be computed by arith ops (after
//! `lego-to-arith`) or by `lego.apply` on a visible layout (encoded from docs/reference/semantics.md). Every other
//! variable (function arguments, loop induction variables) is universally quantified within the facts
//! (`lego.assume`, `lego.assume_bounds`, loop bounds) and is *uniform across a warp*: all lanes see the same
//! value. The thread id is the only per-lane value.
//!
//! Two models (option `model`):
//!
//! - `published` (default, the published pass's): a warp is `W = warp_size` consecutive threads starting at
//!   any thread `base ≥ 0`. `coalescing`: `addr(t+1) − addr(t) = 1` for consecutive threads of a warp, i.e.
//!   for every `t` (with `W ≥ 2`). `bank_conflict_free`: `bank(t) = ⌊addr(t)·E / 4⌋ mod B` (`E =
//!   element_size`, `B = num_banks`); a conflict is two threads of one warp (`0 < t' − t < W`) with the same
//!   bank and different addresses.
//! - `strict` (ours): warps are aligned (threads `wW … wW+W-1`). `coalescing`: consecutive lanes access
//!   consecutive elements *and* the warp's first element is a multiple of `W`, so the warp reads one aligned
//!   run of `W × E` bytes. `bank_conflict_free`: banks of 4-byte words (word `w` in bank `w mod B`); an access
//!   touches the words `⌊a·E/4⌋ … ⌊(a·E + E − 1)/4⌋`; a request is served in phases of `max(1, 4·B / E)`
//!   lanes (one phase when `E ≤ 4`); conflict-free: no two lanes of a phase touch different words in one bank.
//!
//! A refutation is a warning with the published sentence (`fail-on-violation=true`: an error, and the pass
//! fails); an undecided check is the published `... check returned unknown` warning; our counterexample or
//! reason follows on the next line. The legacy passes `lego-verify-coalescing` / `lego-verify-bank-conflicts`
//! run the same checks on every `lego.apply` (see [`check_applies`]).

use crate::{
    diagnostics,
    external::{LegoPass, PassFailure, PassId},
    registry::{Options, RegistryError},
    smt_encode::{argument_with_attribute, enclosing_function, int_width, EncodeError, Encoder},
    registry::OptionSpec,
    verify_common::{self, describe_unknown, show, warn_encode_error_as, with_clause, VerifyOptions},
};
use lego_dialect::ops::{walk_ops, OpKind};
use lego_smt::{Counterexample, Outcome, Query, Term, Violation};
use melior::{
    ir::{
        attribute::IntegerAttribute,
        block::BlockLike,
        operation::OperationLike,
        Location, OperationRef, RegionLike, Value, ValueLike,
    },
    IrRewriter,
};
use std::time::Instant;

static ID: PassId = PassId::new();

/// The published refutation sentences and undecided warnings.
pub const NOT_COALESCED: &str = "Layout may produce non-coalesced memory accesses (unit stride not guaranteed)";
pub const BANK_CONFLICTS: &str = "Layout may cause shared memory bank conflicts";
pub const COALESCING_UNKNOWN: &str = "Coalescing check returned unknown";
pub const BANK_CONFLICT_UNKNOWN: &str = "Bank conflict check returned unknown";

/// Options of `lego-verify`.
pub const OPTIONS: &[OptionSpec] = &[
    crate::verify_common::OPTIONS[0],
    crate::verify_common::OPTIONS[1],
    OptionSpec {
        name: "fail-on-violation",
        default: "false",
        description: "report a refuted check as an error and fail the pass (default: a warning, as published)",
    },
    OptionSpec {
        name: "model",
        default: "published",
        description: "verification model: 'published' (any warp start, unit stride; bank = addr·E/4 mod B) or 'strict' (aligned warps and runs, half-warp phases for 8/16-byte elements, every word touched)",
    },
];

/// Which verification model (module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    Published,
    Strict,
}

impl Model {
    pub fn parse(options: &Options) -> Result<Model, RegistryError> {
        match options.string("model") {
            "published" => Ok(Model::Published),
            "strict" => Ok(Model::Strict),
            other => Err(options.bad_value("model", other, "'published' or 'strict'")),
        }
    }
}

#[derive(Clone)]
pub struct Verify {
    options: VerifyOptions,
    model: Model,
    fail_on_violation: bool,
}

pub fn create(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    let verify = Verify {
        options: VerifyOptions::parse(options)?,
        model: Model::parse(options)?,
        fail_on_violation: options.bool("fail-on-violation")?,
    };
    Ok(crate::external::into_mlir_pass(verify, &ID))
}

/// For the legacy per-apply passes: checks `properties` for the result of every `lego.apply` under `root`
/// in a function with exactly one `{lego.thread_id}` argument, with the published model; refutations and
/// undecided checks are warnings on the apply. Returns nothing: these passes never fail.
pub fn check_applies(root: OperationRef, properties: Properties, options: VerifyOptions) {
    let verify = Verify { options: options.started(), model: Model::Published, fail_on_violation: false };
    let mut applies = Vec::new();
    walk_ops(root, &mut |op| {
        if OpKind::of(&op) == Some(OpKind::Apply) {
            applies.push(op);
        }
    });
    for op in applies {
        let Some(function) = enclosing_function(op) else { continue };
        let Some(tid_value) = thread_id(&function) else { continue };
        let Ok(address) = op.result(0) else { continue };
        let _ = verify.check_address(op.location(), function, tid_value, address.into(), properties);
    }
    lego_smt::join_background();
}

/// The `{lego.thread_id}` argument of `function`, when it has exactly one.
fn thread_id<'c, 'a>(function: &OperationRef<'c, 'a>) -> Option<Value<'c, 'a>> {
    match argument_with_attribute(function, "lego.thread_id").as_slice() {
        [index] => function
            .region(0)
            .ok()
            .and_then(|region| region.first_block())
            .and_then(|block| block.argument(*index).ok())
            .map(Into::into),
        _ => None,
    }
}

/// The properties a `lego.check` asks for.
#[derive(Clone, Copy, Debug)]
pub struct Properties {
    pub coalescing: bool,
    pub bank_conflict_free: bool,
    pub warp_size: u64,
    pub num_banks: u64,
    pub element_size: u64,
}

fn properties(op: &OperationRef) -> Result<Properties, String> {
    let number = |name: &str, default: u64| -> Result<u64, String> {
        match op.attribute(name) {
            Err(_) => Ok(default),
            Ok(attribute) => match IntegerAttribute::try_from(attribute).map(|a| a.value()) {
                Ok(value) if value > 0 => Ok(value as u64),
                _ => Err(format!("'{name}' must be a positive integer")),
            },
        }
    };
    let properties = Properties {
        coalescing: op.has_attribute("coalescing"),
        bank_conflict_free: op.has_attribute("bank_conflict_free"),
        warp_size: number("warp_size", 32)?,
        num_banks: number("num_banks", 32)?,
        element_size: number("element_size", 4)?,
    };
    if !properties.coalescing && !properties.bank_conflict_free {
        return Err("requests no property (expected 'coalescing' and/or 'bank_conflict_free')".into());
    }
    if properties.warp_size > 1 << 20 || properties.num_banks > 1 << 20 || properties.element_size > 1 << 20 {
        return Err("warp_size, num_banks and element_size must be at most 2^20".into());
    }
    Ok(properties)
}

/// Result of checking one property.
enum Verdict {
    Proved,
    Refuted,
    Unverified,
    /// The check itself is malformed (an error whatever `fail-on-violation` says).
    Malformed,
}

impl LegoPass for Verify {
    fn name(&self) -> &'static str {
        "lego-verify"
    }

    fn description(&self) -> &'static str {
        "Prove or refute every lego.check (coalescing, bank conflicts) with Z3"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        self.options = self.options.started();
        let mut checks = Vec::new();
        walk_ops(root, &mut |op| {
            if OpKind::of(&op) == Some(OpKind::Check) {
                checks.push(op);
            }
        });
        let mut failed = false;
        // A check judged on an unspecified value (a constant input outside its layout in the address's slice)
        // is an error at that input's use (crate::constant_inputs).
        let feeding = crate::constant_inputs::uses_feeding_checks(root);
        if !feeding.is_empty() {
            let mut uses = Vec::new();
            walk_ops(root, &mut |op| {
                if feeding.contains(&crate::constant_inputs::key(op)) {
                    uses.push(op);
                }
            });
            for op in uses {
                let mut facts = lego_dialect::ops::LayoutFactsCache::default();
                if let (Some(reason), Some(kind)) =
                    (crate::constant_inputs::constant_input_outside(op, &mut facts), OpKind::of(&op))
                {
                    let why = crate::constant_inputs::FEEDS_CHECK;
                    diagnostics::error(op.location(), &format!("'{}' op {reason}{why}", kind.name()));
                    failed = true;
                }
            }
        }
        for op in &checks {
            for verdict in self.check(*op) {
                failed |= matches!(verdict, Verdict::Refuted | Verdict::Malformed);
            }
        }
        let rewriter = IrRewriter::from_op(root);
        let rewriter = rewriter.as_rewriter_base();
        for op in checks {
            rewriter.erase_op(op);
        }
        lego_smt::join_background();
        if failed {
            Err(PassFailure("a lego.check was refuted or is malformed".into()))
        } else {
            Ok(())
        }
    }
}

/// One lane's view of the address: its thread id term and the encoded address and facts.
struct Lane {
    tid: Term,
    address: Term,
    facts: Vec<Term>,
}

impl Verify {
    fn check(&self, op: OperationRef) -> Vec<Verdict> {
        let location = op.location();
        let properties = match properties(&op) {
            Ok(properties) => properties,
            Err(why) => {
                diagnostics::error(location, &format!("'lego.check' op {why}"));
                return vec![Verdict::Malformed];
            }
        };
        let Some(function) = enclosing_function(op) else {
            diagnostics::error(location, "'lego.check' op must be inside a function");
            return vec![Verdict::Malformed];
        };
        // Inside a kernel, the thread id is the launch's (CUDA numbering of tid.x, tid.y, tid.z).
        let launch = match thread_id(&function) {
            Some(_) => None,
            None => crate::analyze_memory::enclosing_launch(op),
        };
        if let Some(launch) = launch {
            let threads = match crate::analyze_memory::LaunchThreads::of(launch) {
                Ok(threads) => threads,
                Err(why) => {
                    diagnostics::error(location, &format!("'lego.check' op inside a gpu.launch: {why}"));
                    return vec![Verdict::Malformed];
                }
            };
            let Ok(address) = op.operand(0) else {
                diagnostics::error(location, "'lego.check' op needs an address operand");
                return vec![Verdict::Malformed];
            };
            return self.check_address_in(location, function, threads.ids[0], Some(threads), address, properties);
        }
        let Some(tid_value) = thread_id(&function) else {
            let thread_args = argument_with_attribute(&function, "lego.thread_id");
            diagnostics::error(
                location,
                &format!(
                    "'lego.check' op needs exactly one argument of the enclosing function with the unit attribute \
                     'lego.thread_id' (found {})",
                    thread_args.len()
                ),
            );
            return vec![Verdict::Malformed];
        };
        let Ok(address) = op.operand(0) else {
            diagnostics::error(location, "'lego.check' op needs an address operand");
            return vec![Verdict::Malformed];
        };
        self.check_address(location, function, tid_value, address, properties)
    }

    fn check_address<'c>(
        &self,
        location: Location<'c>,
        function: OperationRef<'c, '_>,
        tid_value: Value<'c, '_>,
        address: Value<'c, '_>,
        properties: Properties,
    ) -> Vec<Verdict> {
        self.check_address_in(location, function, tid_value, None, address, properties)
    }

    /// Checks `properties` of `address` (a value in `function`, whose thread id is `tid_value`, or — with
    /// `launch` — the linear thread id of a `gpu.launch`, whose `tid.x` is `tid_value`) and reports at
    /// `location`.
    fn check_address_in<'c, 'a>(
        &self,
        location: Location<'c>,
        function: OperationRef<'c, 'a>,
        tid_value: Value<'c, 'a>,
        launch: Option<crate::analyze_memory::LaunchThreads<'c, 'a>>,
        address: Value<'c, 'a>,
        properties: Properties,
    ) -> Vec<Verdict> {
        let (Some(tid_width), Some(address_width)) = (int_width(tid_value.r#type()), int_width(address.r#type())) else {
            diagnostics::error(location, "'lego.check' op: the address and the thread id must be integers or index");
            return vec![Verdict::Malformed];
        };
        let site = Site { function, tid_value, tid_width, address, address_width, properties, launch };
        let mut verdicts = Vec::new();
        if properties.coalescing {
            let start = Instant::now();
            let verdict = match self.model {
                Model::Published => self.coalescing_published(site),
                Model::Strict => self.coalescing(site),
            };
            let verdict = verdict.unwrap_or_else(|error| {
                warn_encode_error_as(location, COALESCING_UNKNOWN, &error);
                Err(Failure::Unsupported)
            });
            self.report(location, Property::Coalescing, verdict, start, properties, &mut verdicts);
        }
        if properties.bank_conflict_free {
            let start = Instant::now();
            let verdict = match self.model {
                Model::Published => self.bank_conflicts_published(site),
                Model::Strict => self.bank_conflicts(site),
            };
            let verdict = verdict.unwrap_or_else(|error| {
                warn_encode_error_as(location, BANK_CONFLICT_UNKNOWN, &error);
                Err(Failure::Unsupported)
            });
            self.report(location, Property::BankConflictFree, verdict, start, properties, &mut verdicts);
        }
        verdicts
    }

    fn report(
        &self,
        location: Location,
        what: Property,
        verdict: Result<(), Failure>,
        start: Instant,
        properties: Properties,
        verdicts: &mut Vec<Verdict>,
    ) {
        match verdict {
            Ok(()) => {
                if self.options.verbose {
                    let statement = if what == Property::Coalescing && self.model == Model::Published {
                        format!(
                            "coalescing proved: consecutive threads access consecutive elements (any warp of {} lanes)",
                            properties.warp_size
                        )
                    } else if what == Property::Coalescing {
                        format!(
                            "coalescing proved: every warp's {} lanes access one aligned run of {} × {} bytes, in lane order",
                            properties.warp_size, properties.warp_size, properties.element_size
                        )
                    } else if self.model == Model::Published {
                        format!(
                            "bank_conflict_free proved: no two threads of a warp of {} access different elements in the \
                             same bank ({} banks, {}-byte elements)",
                            properties.warp_size, properties.num_banks, properties.element_size
                        )
                    } else {
                        format!(
                            "bank_conflict_free proved: no two lanes of a warp phase access different 4-byte words in the \
                             same bank ({} banks, {}-byte elements)",
                            properties.num_banks, properties.element_size
                        )
                    };
                    diagnostics::remark(location, &format!("{statement} (Z3, {})", verify_common::elapsed(start)));
                }
                verdicts.push(Verdict::Proved);
            }
            Err(Failure::Refuted(details)) => {
                let message = format!("{}\n{details}", what.refuted());
                if self.fail_on_violation {
                    diagnostics::error(location, &message);
                    verdicts.push(Verdict::Refuted);
                } else {
                    diagnostics::warning(location, &message);
                    verdicts.push(Verdict::Unverified);
                }
            }
            Err(Failure::Unknown(reason)) => {
                diagnostics::warning(location, &format!("{}\n{reason}", what.unknown()));
                verdicts.push(Verdict::Unverified);
            }
            Err(Failure::Unsupported) => verdicts.push(Verdict::Unverified),
        }
    }

    fn lane<'c, 'a>(
        &self,
        encoder: &mut Encoder,
        site: &Site<'c, 'a>,
        tid: Term,
    ) -> Result<Lane, EncodeError<'c>> {
        let (function, tid_value, address) = (site.function, site.tid_value, site.address);
        encoder.bind(tid_value, tid.clone());
        if let Some(threads) = &site.launch {
            threads.bind(encoder, &tid);
        }
        let location = address.location();
        let address = encoder.encode(address)?;
        if address.uses_floats() {
            return Err(EncodeError {
                location,
                message: "cannot verify: the address is computed with float math, which the SMT encoding does not model"
                    .into(),
            });
        }
        let (mut facts, _skipped) = encoder.assumptions(function);
        facts.extend(encoder.discovered_facts());
        if let Some(threads) = &site.launch {
            facts.push(tid.ult(&Term::constant(threads.threads(), tid.width().unwrap_or(64))));
        }
        Ok(Lane { tid, address, facts })
    }

    /// Encodes the address for two lanes side by side. `Successive`: the lanes `t` and `t + 1` (named after
    /// the thread-id argument; `t + 1` does not wrap); `Any`: two independent thread ids `thread_id` and
    /// `thread_id'`. `extra` names more fresh variables the caller needs (drawn before the second lane's
    /// encoder is split off, so no name collides).
    fn two_lanes<'c>(&self, site: Site<'c, '_>, pair: LanePair, extra: &[&str]) -> Result<TwoLanes, EncodeError<'c>> {
        let mut first = Encoder::new();
        let (names, tids) = match pair {
            LanePair::Successive => {
                let name = first.name_of(site.tid_value, "thread_id");
                let t = Term::var(&name, site.tid_width);
                let next = t.add(&Term::constant(1, site.tid_width));
                ([name.clone(), name], [t, next])
            }
            LanePair::Any => {
                let names = [first.fresh_name("thread_id"), first.fresh_name("thread_id'")];
                let tids = [Term::var(&names[0], site.tid_width), Term::var(&names[1], site.tid_width)];
                (names, tids)
            }
        };
        let extra = extra.iter().map(|name| first.fresh_name(name)).collect();
        let mut second = first.sibling();
        let [t_a, t_b] = tids;
        let a = self.lane(&mut first, &site, t_a)?;
        let b = self.lane(&mut second, &site, t_b)?;
        let mut facts: Vec<Term> = a.facts.iter().chain(&b.facts).cloned().collect();
        if matches!(pair, LanePair::Successive) {
            facts.push(b.tid.ugt(&a.tid));
        }
        Ok(TwoLanes { names, extra, a, b, facts })
    }

    /// Asks Z3 whether `goal` follows from `facts`; a counterexample — the lowest one, the variables named in
    /// `lowest_first` (the thread ids) narrowed first — becomes the message `refuted` writes.
    fn decide(
        &self,
        goal: &Term,
        facts: &[Term],
        observe: &[Term],
        lowest_first: &[&str],
        refuted: impl FnOnce(&Counterexample) -> String,
    ) -> Result<(), Failure> {
        let query = Query { goal, facts, observe, timeout_ms: self.options.timeout_ms };
        match self.options.prove_minimal(&query, lowest_first) {
            Outcome::Proved => Ok(()),
            Outcome::Refuted(cex) => Err(Failure::Refuted(refuted(&cex))),
            Outcome::Unknown(unknown) => Err(Failure::Unknown(describe_unknown(&unknown))),
        }
    }

    /// Published model: `addr(t+1) = addr(t) + 1` for every thread `t` whose successor is in the same warp;
    /// warps start anywhere, so that is every `t` (nothing to check for one-lane warps).
    fn coalescing_published<'c>(&self, site: Site<'c, '_>) -> Result<Result<(), Failure>, EncodeError<'c>> {
        if site.properties.warp_size < 2 {
            return Ok(Ok(()));
        }
        let lanes = self.two_lanes(site, LanePair::Successive, &[])?;
        let tid_name = &lanes.names[0];
        let goal = lanes.b.address.eq(&lanes.a.address.add(&Term::constant(1, site.address_width)));
        let observe = [lanes.a.address.clone(), lanes.b.address.clone()];
        Ok(self.decide(&goal, &lanes.facts, &observe, &[tid_name], |cex| {
            let tid = cex.value_of(tid_name).unwrap_or(0);
            let with = with_clause(cex, &[tid_name]);
            match &cex.violation {
                Violation::Undefined(what) => {
                    format!("the address of thread_id {tid} or {} hits {what}{with}", tid.wrapping_add(1))
                }
                Violation::Goal => format!(
                    "thread_id {tid} and {} access elements {} and {}: the stride is not 1{with}",
                    tid.wrapping_add(1),
                    show(cex.observed.first()),
                    show(cex.observed.get(1)),
                ),
            }
        }))
    }

    /// Published model: two threads `t < t'` of one warp (`t' − t < W`; warps start anywhere) with
    /// `⌊addr·E/4⌋ mod B` equal access the same element.
    fn bank_conflicts_published<'c>(&self, site: Site<'c, '_>) -> Result<Result<(), Failure>, EncodeError<'c>> {
        let TwoLanes { names: [name_a, name_b], a, b, mut facts, .. } = self.two_lanes(site, LanePair::Any, &[])?;
        let c = |v: u64| Term::constant(v, site.address_width);
        let Properties { warp_size: warp, element_size: e, num_banks: banks, .. } = site.properties;
        facts.push(a.tid.ult(&b.tid));
        facts.push(b.tid.sub(&a.tid).ult(&Term::constant(warp, site.tid_width)));
        let bank = |address: &Term| address.mul(&c(e)).udiv(&c(4)).urem(&c(banks));
        let (bank_a, bank_b) = (bank(&a.address), bank(&b.address));
        let goal = bank_a.eq(&bank_b).implies(&a.address.eq(&b.address));
        let observe = [a.address.clone(), b.address.clone(), bank_a];
        Ok(self.decide(&goal, &facts, &observe, &[&name_a, &name_b], |cex| {
            let (ta, tb) = (cex.value_of(&name_a).unwrap_or(0), cex.value_of(&name_b).unwrap_or(0));
            let with = with_clause(cex, &[&name_a, &name_b]);
            match &cex.violation {
                Violation::Undefined(what) => format!("the address of thread_id {ta} or {tb} hits {what}{with}"),
                Violation::Goal => format!(
                    "thread_id {ta} and {tb} (one warp of {warp}) access elements {} and {}, both in bank {} \
                     ({banks} banks, {e}-byte elements){with}",
                    show(cex.observed.first()),
                    show(cex.observed.get(1)),
                    show(cex.observed.get(2)),
                ),
            }
        }))
    }

    /// Strict model: consecutive lanes of an aligned warp access consecutive elements, and the warp's first
    /// lane starts an aligned run.
    fn coalescing<'c>(&self, site: Site<'c, '_>) -> Result<Result<(), Failure>, EncodeError<'c>> {
        let TwoLanes { names: [tid_name, _], a, b, mut facts, .. } =
            self.two_lanes(site, LanePair::Successive, &[])?;
        let warp = site.properties.warp_size;
        let (w, one) = (Term::constant(warp, site.tid_width), Term::constant(1, site.tid_width));
        let c = |v: u64| Term::constant(v, site.address_width);

        // Consecutive lanes of a warp access consecutive elements.
        facts.push(a.tid.urem(&w).ne(&w.sub(&one))); // t and t + 1 are in the same warp
        let goal = b.address.eq(&a.address.add(&c(1)));
        let observe = [a.address.clone(), b.address.clone()];
        let successive = self.decide(&goal, &facts, &observe, &[&tid_name], |cex| {
            let tid = cex.value_of(&tid_name).unwrap_or(0);
            let lane = tid % warp;
            let with = with_clause(cex, &[&tid_name]);
            match &cex.violation {
                Violation::Undefined(what) => {
                    format!("the address of thread_id {tid} or {} hits {what}{with}", tid.wrapping_add(1))
                }
                Violation::Goal => format!(
                    "lanes {lane} and {} of a warp (thread_id {tid} and {}) access elements {} and {}, \
                     not consecutive elements{with}",
                    lane + 1,
                    tid.wrapping_add(1),
                    show(cex.observed.first()),
                    show(cex.observed.get(1)),
                ),
            }
        });
        if successive.is_err() {
            return Ok(successive);
        }

        // The warp's first lane starts an aligned run.
        let mut facts = a.facts.clone();
        facts.push(a.tid.urem(&w).eq(&Term::constant(0, site.tid_width)));
        let goal = a.address.urem(&c(warp)).eq(&c(0));
        let observe = [a.address.clone()];
        Ok(self.decide(&goal, &facts, &observe, &[&tid_name], |cex| {
            let tid = cex.value_of(&tid_name).unwrap_or(0);
            let with = with_clause(cex, &[&tid_name]);
            match &cex.violation {
                Violation::Undefined(what) => format!("the address of thread_id {tid} hits {what}{with}"),
                Violation::Goal => format!(
                    "the warp of thread_id {tid}..{} starts at element {}, which is not a multiple of \
                     the warp size {warp} (its {warp} × {} bytes are not one aligned run){with}",
                    tid.saturating_add(warp - 1),
                    show(cex.observed.first()),
                    site.properties.element_size,
                ),
            }
        }))
    }

    /// Strict model: no two lanes of one phase of an aligned warp touch different 4-byte words of one bank.
    fn bank_conflicts<'c>(&self, site: Site<'c, '_>) -> Result<Result<(), Failure>, EncodeError<'c>> {
        let TwoLanes { names: [name_a, name_b], extra, a, b, mut facts } =
            self.two_lanes(site, LanePair::Any, &["word", "word'"])?;
        let [word_a_name, word_b_name] = [&extra[0], &extra[1]];
        let tc = |v: u64| Term::constant(v, site.tid_width);
        let c = |v: u64| Term::constant(v, site.address_width);
        let Properties { warp_size: warp, element_size: e, num_banks: banks, .. } = site.properties;
        let phase = if e <= 4 { warp } else { ((4 * banks) / e).max(1) };
        let (t1, t2) = (&a.tid, &b.tid);

        facts.push(t1.ne(t2));
        facts.push(t1.udiv(&tc(warp)).eq(&t2.udiv(&tc(warp))));
        facts.push(t1.urem(&tc(warp)).udiv(&tc(phase)).eq(&t2.urem(&tc(warp)).udiv(&tc(phase))));
        // Each lane touches the 4-byte words ⌊a·e/4⌋ … ⌊(a·e + e − 1)/4⌋; pick any one of each.
        let (word_a, word_b) = (Term::var(word_a_name, site.address_width), Term::var(word_b_name, site.address_width));
        for (word, lane) in [(&word_a, &a), (&word_b, &b)] {
            let bytes = lane.address.mul(&c(e));
            facts.push(bytes.udiv(&c(4)).ule(word));
            facts.push(word.ule(&bytes.add(&c(e - 1)).udiv(&c(4))));
        }
        let same_bank = word_a.urem(&c(banks)).eq(&word_b.urem(&c(banks)));
        let goal = same_bank.implies(&word_a.eq(&word_b));
        let observe = [a.address.clone(), b.address.clone(), word_a.urem(&c(banks))];
        Ok(self.decide(&goal, &facts, &observe, &[&name_a, &name_b, word_a_name, word_b_name], |cex| {
            let (ta, tb) = (cex.value_of(&name_a).unwrap_or(0), cex.value_of(&name_b).unwrap_or(0));
            let (ta, tb, wa, wb, aa, ab) = if ta <= tb {
                (ta, tb, cex.value_of(word_a_name), cex.value_of(word_b_name), cex.observed.first(), cex.observed.get(1))
            } else {
                (tb, ta, cex.value_of(word_b_name), cex.value_of(word_a_name), cex.observed.get(1), cex.observed.first())
            };
            let with = with_clause(cex, &[&name_a, &name_b, word_a_name, word_b_name]);
            match &cex.violation {
                Violation::Undefined(what) => format!("the address of thread_id {ta} or {tb} hits {what}{with}"),
                Violation::Goal => format!(
                    "lanes {} and {} (thread_id {ta} and {tb}) access elements {} and {} (4-byte words \
                     {} and {}), both in bank {}{with}",
                    ta % warp,
                    tb % warp,
                    show(aa),
                    show(ab),
                    wa.map_or("?".into(), |w| w.to_string()),
                    wb.map_or("?".into(), |w| w.to_string()),
                    show(cex.observed.get(2)),
                ),
            }
        }))
    }
}

/// One address to check: a value in `function` (of `address_width` bits), and the thread-id argument.
#[derive(Clone, Copy)]
struct Site<'c, 'a> {
    function: OperationRef<'c, 'a>,
    /// Inside a `gpu.launch`: its thread ids, bound to the linear thread id.
    launch: Option<crate::analyze_memory::LaunchThreads<'c, 'a>>,
    tid_value: Value<'c, 'a>,
    tid_width: u32,
    address: Value<'c, 'a>,
    address_width: u32,
    properties: Properties,
}

/// Which two lanes a check compares.
#[derive(Clone, Copy)]
enum LanePair {
    /// `t` and `t + 1`.
    Successive,
    /// Any two thread ids.
    Any,
}

/// Two lanes encoded side by side: their thread-id variable names (the same name twice for `Successive`),
/// the extra fresh names asked for, each lane, and the facts of both.
struct TwoLanes {
    names: [String; 2],
    extra: Vec<String>,
    a: Lane,
    b: Lane,
    facts: Vec<Term>,
}

/// The two properties of a `lego.check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Property {
    Coalescing,
    BankConflictFree,
}

impl Property {
    fn refuted(self) -> &'static str {
        match self {
            Property::Coalescing => NOT_COALESCED,
            Property::BankConflictFree => BANK_CONFLICTS,
        }
    }

    fn unknown(self) -> &'static str {
        match self {
            Property::Coalescing => COALESCING_UNKNOWN,
            Property::BankConflictFree => BANK_CONFLICT_UNKNOWN,
        }
    }
}

enum Failure {
    Refuted(String),
    Unknown(String),
    /// Already reported (an encoding warning).
    Unsupported,
}
