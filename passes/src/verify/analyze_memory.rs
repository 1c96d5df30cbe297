//! `lego-analyze-memory`: the exact memory cost of every access of a real kernel (`gpu.launch`), with the one
//! cost definition of `lego_algebra::memcost` (docs/memory-analysis.md).
//!
//! **Threads.** A launch with constant block sizes `(X, Y, Z)` runs `n = X·Y·Z` threads per block; thread
//! `T = 32·warp + lane` (`lane < 32`, `T < n`) has `tid.x = T mod X`, `tid.y = (T div X) mod Y`,
//! `tid.z = T div (X·Y)` — CUDA's numbering. Block ids (`< grid size`), loop induction variables (`lb ≤ iv <
//! ub`, on the step) and the function's arguments are the same for all lanes of one request (*uniform*); the
//! lane is the only per-lane value.
//!
//! **Shared memory** (a memref in `#gpu.address_space<workgroup>` or address space 3, read through a lego view
//! (`lego.cast_view`), `memref.load/store` or `vector.load/store`): the bank-conflict degree of the warp request
//! — the most distinct 4-byte words one bank serves in one phase — over *all* uniform values, computed exactly:
//! evaluate one point with `memcost::bank_conflict_degree` (degree `d`, a lower bound), then ask Z3 whether
//! `d + 1` lanes of one phase can touch `d + 1` distinct words of one bank at any point; a model is a new point
//! (evaluated again, so `d` grows), `unsat` proves `d` the maximum. `d = lanes per phase` needs no query.
//!
//! **Global memory**: the sectors per warp request against the ideal (`memcost::sectors_per_request`), the
//! maximum over all uniform values: proved by translation (every request is its warp's lowest one moved by whole
//! sectors, one Z3 query) or, where that fails, searched like the degree (`s + 1` lanes touching `s + 1` sectors).
//!
//! **Guards**: an access inside `scf.if` is executed by the lanes whose conditions hold; the others access
//! nothing (they are absent from the request, in the evaluation and in every query).

use crate::{
    diagnostics,
    external::{LegoPass, PassFailure, PassId},
    registry::{OptionSpec, Options, RegistryError},
    smt_encode::{enclosing_function, op_name, Encoder},
    verify_common::{describe_unknown, VerifyOptions},
};
use lego_algebra::memcost;
use lego_dialect::ops::{self, walk_ops, OpKind};
use lego_smt::{Outcome, Program, Query, Term, Value as SmtValue, Violation};
use melior::ir::{
    block::BlockLike, operation::OperationLike, Location, OperationRef, RegionLike, Value, ValueLike,
};
use std::collections::HashMap;

static ID: PassId = PassId::new();

/// Lanes of a warp (NVIDIA).
pub const WARP: u64 = 32;

pub const OPTIONS: &[OptionSpec] = &[
    crate::verify_common::OPTIONS[0],
    OptionSpec { name: "num-banks", default: "32", description: "shared-memory banks of 4 bytes (a power of two, 4 to 64)" },
    OptionSpec { name: "report", default: "none", description: "'json': also print a per-kernel table as JSON on standard error (lego-opt --lego-report=json)" },
];

/// Where an access goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Shared,
    Global,
}

/// How the element offset of an access is computed from its index operands.
#[derive(Clone)]
pub enum Addressing<'c, 'a> {
    /// A lego view: the layout applied to the indices.
    Layout(Value<'c, 'a>),
    /// A memref with a static shape and the identity layout: row-major linearization.
    RowMajor(Vec<u64>),
}

/// One memory access inside a `gpu.launch`.
#[derive(Clone)]
pub struct Access<'c, 'a> {
    pub op: OperationRef<'c, 'a>,
    pub space: Space,
    pub store: bool,
    /// The memref accessed (for a view, the one it was cast from).
    pub buffer: Value<'c, 'a>,
    /// The view's `lego.cast_view`, when the access goes through a lego layout.
    pub cast_view: Option<OperationRef<'c, 'a>>,
    pub addressing: Addressing<'c, 'a>,
    pub indices: Vec<Value<'c, 'a>>,
    pub element_bytes: u64,
    /// Elements per lane (a `vector<N x T>` access: N).
    pub elements: u64,
}

impl Access<'_, '_> {
    /// Bytes one lane accesses.
    pub fn bytes(&self) -> u64 {
        self.element_bytes * self.elements
    }
}

/// Bytes of a scalar element type (`f32`, `f16`, `i8`, `index`, …).
fn scalar_bytes(text: &str) -> Option<u64> {
    let text = text.trim();
    match text {
        "index" => Some(8),
        "bf16" => Some(2),
        _ => {
            let digits = text.trim_start_matches(|c: char| c.is_ascii_alphabetic());
            let bits: u64 = digits.parse().ok()?;
            (bits % 8 == 0 && bits > 0).then_some(bits / 8)
        }
    }
}

/// `(elements, bytes per element)` of `f32` or `vector<8xf16>`.
fn value_type_bytes(text: &str) -> Option<(u64, u64)> {
    if let Some(inner) = text.strip_prefix("vector<").and_then(|rest| rest.strip_suffix('>')) {
        let parts: Vec<&str> = inner.split('x').collect();
        let (element, dims) = parts.split_last()?;
        let mut count = 1u64;
        for dim in dims {
            count = count.checked_mul(dim.parse().ok()?)?;
        }
        return Some((count, scalar_bytes(element)?));
    }
    Some((1, scalar_bytes(text)?))
}

/// A memref type's static shape (`None` entries for `?`), element type text, memory-space and layout text.
struct MemrefType {
    shape: Vec<Option<u64>>,
    element: String,
    rest: String,
}

fn parse_memref(text: &str) -> Option<MemrefType> {
    let inner = text.strip_prefix("memref<")?.strip_suffix('>')?;
    let (head, rest) = match inner.find(',') {
        Some(at) => (&inner[..at], inner[at + 1..].trim().to_string()),
        None => (inner, String::new()),
    };
    let parts: Vec<&str> = head.split('x').collect();
    let (element, dims) = parts.split_last()?;
    let shape = dims.iter().map(|dim| dim.parse().ok()).collect();
    Some(MemrefType { shape, element: element.to_string(), rest })
}

fn is_shared(rest: &str) -> bool {
    rest.contains("#gpu.address_space<workgroup>") || rest.split(',').any(|part| part.trim() == "3" || part.trim() == "3 : i64")
}

/// The memory accesses inside `launch`, or why one cannot be analyzed (at its op).
pub fn accesses<'c, 'a>(launch: OperationRef<'c, 'a>) -> Vec<Result<Access<'c, 'a>, (Location<'c>, String)>> {
    let mut found = Vec::new();
    walk_ops(launch, &mut |op| {
        let name = op_name(&op);
        let kind = OpKind::of(&op);
        let is_view = matches!(kind, Some(OpKind::Load | OpKind::Store));
        let is_memref = matches!(name.as_str(), "memref.load" | "memref.store" | "vector.load" | "vector.store");
        if is_view || is_memref {
            found.push(access(op, is_view));
        }
    });
    found
}

fn access<'c, 'a>(op: OperationRef<'c, 'a>, is_view: bool) -> Result<Access<'c, 'a>, (Location<'c>, String)> {
    let location = op.location();
    let name = op_name(&op);
    let store = name.ends_with("store");
    let bad = |why: &str| (location, format!("cannot analyze '{name}': {why}"));
    // The value loaded or stored: its type gives the bytes per lane.
    let value_type = if store { op.operand(0).ok().map(|v| v.r#type()) } else { op.result(0).ok().map(|r| r.r#type()) };
    let value_text = value_type.map(|t| t.to_string()).ok_or_else(|| bad("no value"))?;
    let (elements, element_bytes) = value_type_bytes(&value_text).ok_or_else(|| bad(&format!("element type {value_text}")))?;
    let base_index = usize::from(store);
    let base = op.operand(base_index).map_err(|_| bad("no memref operand"))?;
    let indices: Vec<Value> = op.operands().skip(base_index + 1).collect();
    let (buffer, cast_view, addressing) = if is_view {
        let defining = melior::ir::operation::OperationResult::try_from(base).ok().map(|result| result.owner());
        let Some(cast) = defining.filter(|owner| OpKind::of(owner) == Some(OpKind::CastView)) else {
            return Err(bad("the view is not defined by a lego.cast_view in this kernel"));
        };
        let (Ok(memref), Ok(layout)) = (cast.operand(0), cast.operand(1)) else { return Err(bad("malformed lego.cast_view")) };
        (memref, Some(cast), Addressing::Layout(layout))
    } else {
        let memref = parse_memref(&base.r#type().to_string()).ok_or_else(|| bad("not a memref"))?;
        if memref.rest.contains("strided<") || memref.rest.contains("affine_map<") {
            return Err(bad("memref with a non-identity layout"));
        }
        let shape: Option<Vec<u64>> = memref.shape.iter().copied().collect();
        let shape = shape.ok_or_else(|| bad("memref with a dynamic shape"))?;
        (base, None, Addressing::RowMajor(shape))
    };
    let memref = parse_memref(&buffer.r#type().to_string()).ok_or_else(|| bad("the buffer is not a memref"))?;
    let space = if is_shared(&memref.rest) { Space::Shared } else { Space::Global };
    if scalar_bytes(&memref.element) != Some(element_bytes) {
        return Err(bad("the value's element type differs from the buffer's"));
    }
    if !matches!(elements * element_bytes, 1 | 2 | 4 | 8 | 16) {
        return Err(bad(&format!("{} bytes per lane: expected 1, 2, 4, 8 or 16", elements * element_bytes)));
    }
    Ok(Access { op, space, store, buffer, cast_view, addressing, indices, element_bytes, elements })
}

/// The element type of a memref value (`f32`).
pub fn memref_element(value: &Value) -> Option<String> {
    parse_memref(&value.r#type().to_string()).map(|m| m.element)
}

/// The enclosing `gpu.launch` of `op`, if any.
pub fn enclosing_launch<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let mut current = op.parent_operation();
    while let Some(parent) = current {
        if op_name(&parent) == "gpu.launch" {
            return Some(parent);
        }
        current = parent.parent_operation();
    }
    None
}

/// The thread ids (`tid.x`, `tid.y`, `tid.z` block arguments) and constant block sizes of a launch.
#[derive(Clone, Copy)]
pub struct LaunchThreads<'c, 'a> {
    pub ids: [Value<'c, 'a>; 3],
    pub sizes: [u64; 3],
}

impl<'c, 'a> LaunchThreads<'c, 'a> {
    pub fn of(launch: OperationRef<'c, 'a>) -> Result<Self, String> {
        let block = launch.region(0).ok().and_then(|region| region.first_block()).ok_or("gpu.launch without a body")?;
        let arg = |k: usize| block.argument(k).map(Value::from).map_err(|_| "gpu.launch body lacks its thread ids".to_string());
        let ids = [arg(3)?, arg(4)?, arg(5)?];
        let operands = crate::smt_encode::launch_size_operands(&launch);
        let mut sizes = [0u64; 3];
        for (axis, size) in sizes.iter_mut().enumerate() {
            let value = operands.get(3 + axis).copied().and_then(ops::constant_index_value);
            *size = match value {
                Some(v) if v > 0 => v as u64,
                _ => return Err("the launch's block size is not a positive constant".into()),
            };
        }
        Ok(LaunchThreads { ids, sizes })
    }

    pub fn threads(&self) -> u64 {
        self.sizes.iter().product()
    }

    /// Binds the thread ids to CUDA's numbering of the linear thread id `t`.
    pub fn bind(&self, encoder: &mut Encoder, t: &Term) {
        let [x, y, _] = self.sizes;
        let c = Term::index;
        encoder.bind(self.ids[0], t.urem(&c(x)));
        encoder.bind(self.ids[1], t.udiv(&c(x)).urem(&c(y)));
        encoder.bind(self.ids[2], t.udiv(&c(x * y)));
    }
}

/// One launch's lanes: the encoder with the thread ids bound to `32·warp + lane`.
pub struct LaneModel<'c, 'a> {
    pub encoder: Encoder,
    pub threads: LaunchThreads<'c, 'a>,
    pub lane: Term,
    pub warp: Term,
    pub lane_name: String,
    pub warp_name: String,
    pub function: Option<OperationRef<'c, 'a>>,
}

impl<'c, 'a> LaneModel<'c, 'a> {
    pub fn new(launch: OperationRef<'c, 'a>) -> Result<Self, String> {
        let threads = LaunchThreads::of(launch)?;
        let mut encoder = Encoder::new();
        let lane_name = encoder.fresh_name("lane");
        let warp_name = encoder.fresh_name("warp");
        let (lane, warp) = (Term::index_var(&lane_name), Term::index_var(&warp_name));
        threads.bind(&mut encoder, &warp.mul(&Term::index(WARP)).add(&lane));
        Ok(LaneModel { encoder, threads, lane, warp, lane_name, warp_name, function: enclosing_function(launch) })
    }

    /// The index terms of an access.
    pub fn indices(&mut self, access: &Access<'c, 'a>) -> Result<Vec<Term>, String> {
        access.indices.iter().map(|value| self.encoder.encode(*value).map_err(|e| e.message)).collect()
    }

    /// The element offset of `access` (its own addressing).
    pub fn offset(&mut self, access: &Access<'c, 'a>) -> Result<Term, String> {
        let indices = self.indices(access)?;
        match &access.addressing {
            Addressing::Layout(layout) => {
                self.encoder.layout_apply(*layout, &indices, access.op.location()).map_err(|e| e.message)
            }
            Addressing::RowMajor(shape) => Ok(row_major(shape, &indices)),
        }
    }

    /// When a lane executes `access`: the conjunction of the conditions of the `scf.if` ops around it inside the
    /// launch (the `then` region needs the condition, the `else` region its negation), `true` without guards.
    /// Lazy (`select_lazy`), so an inner condition is only evaluated where the outer ones hold.
    pub fn active(&mut self, access: &Access<'c, 'a>) -> Result<Term, String> {
        let mut conditions = Vec::new();
        let mut child = access.op;
        while let Some(parent) = child.parent_operation() {
            let name = op_name(&parent);
            if name == "gpu.launch" {
                break;
            }
            if name == "scf.if" {
                let region = child.block().and_then(|block| block.parent_region()).map(|r| r.to_raw().ptr);
                let then_region = parent.region(0).ok().map(|r| r.to_raw().ptr);
                let condition = parent.operand(0).map_err(|_| "scf.if without a condition".to_string())?;
                let term = self.encoder.encode_bool(condition).map_err(|e| e.message)?;
                conditions.push(if region.is_some() && region == then_region { term } else { term.not() });
            }
            child = parent;
        }
        // `conditions` is innermost first: each one wraps the ones inside it, so a condition is only evaluated
        // where the ones around it hold.
        let mut active = Term::bool(true);
        for condition in conditions {
            active = if active.as_const() == Some(1) { condition } else { Term::select_lazy(&condition, &active, &Term::bool(false)) };
        }
        Ok(active)
    }

    /// The facts every point must satisfy: the lane and warp ranges, loop ranges, block-id ranges, lego.assume.
    /// Fails when a fact other than the lane's own depends on the lane (a loop bound of the thread id: then the
    /// loop's iterations are not uniform over a warp).
    pub fn facts(&mut self) -> Result<Vec<Term>, String> {
        let mut facts = self.encoder.discovered_facts();
        if let Some(function) = self.function {
            facts.extend(self.encoder.assumptions(function).0);
        }
        if facts.iter().any(|fact| fact.variables().iter().any(|(name, _)| *name == self.lane_name)) {
            return Err("a loop bound or assumption depends on the thread id".into());
        }
        facts.extend(self.lane_facts(&self.lane.clone()));
        Ok(facts)
    }

    /// `lane < 32` and `32·warp + lane < threads`.
    pub fn lane_facts(&self, lane: &Term) -> Vec<Term> {
        let c = Term::index;
        vec![lane.ult(&c(WARP)), self.warp.mul(&c(WARP)).add(lane).ult(&c(self.threads.threads()))]
    }

    pub fn warps(&self) -> u64 {
        self.threads.threads().div_ceil(WARP)
    }
}

/// Row-major linearization of `indices` over `shape`.
pub fn row_major(shape: &[u64], indices: &[Term]) -> Term {
    let mut offset = Term::index(0);
    for (k, index) in indices.iter().enumerate() {
        let stride: u64 = shape.iter().skip(k + 1).product();
        offset = offset.add(&index.mul(&Term::index(stride)));
    }
    offset.fold_constants()
}

/// A point: values of the uniform variables and the warp.
pub type Point = HashMap<String, u64>;

/// The program evaluating one request: root 0 the byte address (0 where the lane is inactive, so an address
/// that is undefined outside its guard is not evaluated there), root 1 whether the lane is active.
pub fn request_program(address: &Term, active: &Term) -> Result<Program, String> {
    let guarded = if active.as_const() == Some(1) { address.clone() } else { Term::select_lazy(active, address, &Term::index(0)) };
    Program::new(&[guarded, active.clone()])
}

/// Byte addresses of every lane of the warp at `point`, `None` for an inactive lane (its guard is false); lanes
/// past the block's last thread are left out. `program` is a [`request_program`].
pub fn warp_addresses(program: &Program, point: &Point, model: &LaneModel, warp: u64) -> Result<Vec<Option<u64>>, String> {
    let mut inputs: HashMap<String, SmtValue> = program
        .variables()
        .iter()
        .map(|(name, _)| (name.clone(), SmtValue::Bits(point.get(name).copied().unwrap_or(0))))
        .collect();
    inputs.insert(model.warp_name.clone(), SmtValue::Bits(warp));
    let mut addresses = Vec::new();
    for lane in 0..WARP {
        if warp * WARP + lane >= model.threads.threads() {
            break;
        }
        inputs.insert(model.lane_name.clone(), SmtValue::Bits(lane));
        let evaluation = program.run_named(&inputs);
        if let Some(why) = evaluation.undefined {
            return Err(format!("the address of lane {lane} is undefined ({why})"));
        }
        match (evaluation.roots.first().and_then(|value| value.bits()), evaluation.roots.get(1).and_then(|value| value.bits())) {
            (_, Some(0)) => addresses.push(None),
            (Some(bits), Some(_)) => addresses.push(Some(bits)),
            _ => return Err(format!("the address of lane {lane} is undefined")),
        }
    }
    Ok(addresses)
}

/// Whether `facts` hold at `point` (every variable not in it is 0).
fn holds(facts: &[Term], point: &Point) -> bool {
    let Ok(program) = Program::new(facts) else { return false };
    let inputs = program
        .variables()
        .iter()
        .map(|(name, _)| (name.clone(), SmtValue::Bits(point.get(name).copied().unwrap_or(0))))
        .collect();
    let evaluation = program.run_named(&inputs);
    evaluation.undefined.is_none() && evaluation.roots.iter().all(|value| *value == SmtValue::Bits(1))
}

/// What Z3 says about "is there a point satisfying these facts".
enum Exists {
    Found(Point),
    None,
    Unknown(String),
}

fn exists(options: &VerifyOptions, facts: &[Term]) -> Exists {
    let goal = Term::bool(false);
    match options.prove(&Query { goal: &goal, facts, observe: &[], timeout_ms: 0 }) {
        Outcome::Proved => Exists::None,
        Outcome::Refuted(cex) if cex.violation == Violation::Goal => Exists::Found(cex.assignment.into_iter().collect()),
        Outcome::Refuted(cex) => Exists::Unknown(format!("{:?}", cex.violation)),
        Outcome::Unknown(unknown) => Exists::Unknown(describe_unknown(&unknown)),
    }
}

/// Raises `best` (found at `point`) while Z3 finds a point whose request counts more than it (`query(k)`: the
/// facts of a request counting at least `k`), up to `max`. `None`: proved the maximum; `Some(why)`: `best` is a
/// lower bound only. The bank-conflict degree and the sectors per request are both found this way.
#[allow(clippy::too_many_arguments)]
fn raise_to_maximum<C>(
    options: &VerifyOptions,
    (best, point): (&mut C, &mut Point),
    count: impl Fn(&C) -> u64,
    max: u64,
    query: impl Fn(u64) -> Vec<Term>,
    mut evaluate: impl FnMut(&Point) -> Result<C, String>,
    not_reproduced: &str,
) -> Result<Option<String>, String> {
    while count(best) < max {
        match exists(options, &query(count(best) + 1)) {
            Exists::None => return Ok(None),
            Exists::Unknown(why) => return Ok(Some(why)),
            Exists::Found(found) => {
                let cost = evaluate(&found)?;
                if count(&cost) <= count(best) {
                    return Ok(Some(not_reproduced.into()));
                }
                *best = cost;
                *point = found;
            }
        }
    }
    Ok(None)
}

/// The lowest point (warp 0, every uniform variable 0) when it satisfies `facts`, else one Z3 finds.
fn first_point(options: &VerifyOptions, facts: &[Term]) -> Result<Option<Point>, String> {
    let zero = Point::new();
    if holds(facts, &zero) {
        return Ok(Some(zero));
    }
    match exists(options, facts) {
        Exists::Found(point) => Ok(Some(point)),
        Exists::None => Ok(None),
        Exists::Unknown(why) => Err(why),
    }
}

/// The exact bank-conflict degree of one shared-memory access.
#[derive(Clone, Debug)]
pub struct SharedCost {
    pub degree: u64,
    /// The lowest pair of lanes of one phase hitting different words of one bank, at `at`.
    pub witness: Option<(usize, usize)>,
    pub lanes_per_phase: usize,
    /// The point of the worst request (uniform variables of the address, and the warp).
    pub at: Vec<(String, u64)>,
    /// `None`: proved the maximum over all points; `Some(why)`: a lower bound only.
    pub unproved: Option<String>,
    /// The bank and the two words of the witness lanes.
    pub witness_words: Option<(u64, u64, u64)>,
    /// The whole point of the worst request (every variable).
    pub point: Point,
}

/// Degree of the request whose byte address is `address` (a term of the lane, warp and uniform variables),
/// executed by the lanes where `active` holds (its guards).
pub fn shared_degree(
    options: &VerifyOptions,
    model: &LaneModel,
    address: &Term,
    active: &Term,
    facts: &[Term],
    bytes: u64,
    banks: u64,
) -> Result<SharedCost, String> {
    let per_phase = memcost::lanes_per_phase(bytes).map_err(|e| e.to_string())?;
    let program = request_program(address, active)?;
    let Some(mut point) = first_point(options, facts)? else {
        return Ok(SharedCost { degree: 0, witness: None, lanes_per_phase: per_phase, at: Vec::new(), unproved: None, witness_words: None, point: Point::new() });
    };
    let evaluate = |point: &Point| -> Result<memcost::BankConflicts, String> {
        let warp = point.get(&model.warp_name).copied().unwrap_or(0);
        let addresses = warp_addresses(&program, point, model, warp)?;
        memcost::bank_conflict_degree_of_lanes(&addresses, bytes, banks).map_err(|e| e.to_string())
    };
    let mut best = evaluate(&point)?;
    // Every other warp of the lowest point too: cheap, and usually where the worst request is.
    if point.is_empty() {
        for warp in 1..model.warps() {
            let mut other = point.clone();
            other.insert(model.warp_name.clone(), warp);
            let cost = evaluate(&other)?;
            if cost.degree > best.degree {
                best = cost;
                point = other;
            }
        }
    }
    let max = if banks >= 4 { per_phase as u64 } else { u64::MAX };
    let unproved = raise_to_maximum(
        options,
        (&mut best, &mut point),
        |cost| cost.degree,
        max,
        |k| slot_query(model, address, active, facts, k, bytes, banks, per_phase),
        evaluate,
        "Z3's model did not reproduce a worse request",
    )?;
    let names = uniform_names(model, address, active);
    let mut at: Vec<(String, u64)> = names.iter().map(|name| (name.clone(), point.get(name).copied().unwrap_or(0))).collect();
    if model.warps() <= 1 {
        // One warp per block: nothing to say about which.
        at.retain(|(name, _)| *name != model.warp_name);
    }
    let witness_words = best.witness.and_then(|(a, b)| {
        let warp = point.get(&model.warp_name).copied().unwrap_or(0);
        let addresses = warp_addresses(&program, &point, model, warp).ok()?;
        let words = |lane: usize| -> Option<std::ops::RangeInclusive<u64>> {
            let address = (*addresses.get(lane)?)?;
            Some(address / memcost::BANK_WORD_BYTES..=(address + bytes - 1) / memcost::BANK_WORD_BYTES)
        };
        let (words_a, words_b) = (words(a)?, words(b)?);
        words_a.flat_map(|wa| words_b.clone().map(move |wb| (wa, wb))).find(|(wa, wb)| wa != wb && wa % banks == wb % banks).map(|(wa, wb)| (wa % banks, wa, wb))
    });
    Ok(SharedCost { degree: best.degree, witness: best.witness, lanes_per_phase: per_phase, at, unproved, witness_words, point })
}

/// The variables of a request other than the lane (the uniform ones and the warp): the address's, then the
/// guards'.
fn uniform_names(model: &LaneModel, address: &Term, active: &Term) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (name, _) in address.variables().into_iter().chain(active.variables()) {
        if name != model.lane_name && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// Facts saying: `k` active lanes of one phase of one warp touch `k` distinct 4-byte words of one bank.
#[allow(clippy::too_many_arguments)]
fn slot_query(model: &LaneModel, address: &Term, active: &Term, facts: &[Term], k: u64, bytes: u64, banks: u64, per_phase: usize) -> Vec<Term> {
    let c = Term::index;
    let phase = c(per_phase as u64);
    distinct_units_query(model, address, active, facts, k, bytes, memcost::BANK_WORD_BYTES, "word", |(lane, word), (lane0, word0)| {
        [lane.udiv(&phase).eq(&lane0.udiv(&phase)), word.urem(&c(banks)).eq(&word0.urem(&c(banks)))]
    })
}

/// Facts saying: `k` active lanes touch `k` distinct `unit_bytes`-byte units (named `unit_name@slot`, in
/// increasing order; a lane whose bytes cross a unit boundary may fill two slots), each slot after the first
/// also meeting `related(slot, first slot)` on their `(lane, unit)` terms. The bank query and the sector query
/// differ only in that relation.
#[allow(clippy::too_many_arguments)]
fn distinct_units_query<const N: usize>(
    model: &LaneModel,
    address: &Term,
    active: &Term,
    facts: &[Term],
    k: u64,
    bytes: u64,
    unit_bytes: u64,
    unit_name: &str,
    related: impl Fn((&Term, &Term), (&Term, &Term)) -> [Term; N],
) -> Vec<Term> {
    let c = Term::index;
    let mut query: Vec<Term> = facts.to_vec();
    let mut first: Option<(Term, Term)> = None;
    let mut previous_unit: Option<Term> = None;
    for slot in 0..k {
        let lane = Term::index_var(format!("{}@{slot}", model.lane_name));
        let unit = Term::index_var(format!("{unit_name}@{slot}"));
        query.extend(model.lane_facts(&lane));
        let map: HashMap<String, Term> = [(model.lane_name.clone(), lane.clone())].into_iter().collect();
        let byte = address.substitute(&map);
        query.push(active.substitute(&map));
        query.push(byte.udiv(&c(unit_bytes)).ule(&unit));
        query.push(unit.ule(&byte.add(&c(bytes - 1)).udiv(&c(unit_bytes))));
        match &first {
            None => first = Some((lane.clone(), unit.clone())),
            Some((lane0, unit0)) => query.extend(related((&lane, &unit), (lane0, unit0))),
        }
        if let Some(previous) = &previous_unit {
            query.push(previous.ult(&unit));
        }
        previous_unit = Some(unit);
    }
    query
}

/// The sectors of the worst request of one global access, over every block, warp and loop iteration.
#[derive(Clone, Debug)]
pub struct GlobalCost {
    /// The most 32-byte sectors one warp request touches.
    pub sectors: u64,
    /// The fewest sectors that could hold that request's distinct bytes.
    pub ideal: u64,
    /// When `sectors > ideal`: the lowest lanes touching the lowest and the highest sector of the request, with
    /// their byte addresses.
    pub witness: Option<((usize, u64), (usize, u64))>,
    /// The point of the worst request (uniform variables of the address and guards, and the warp).
    pub at: Vec<(String, u64)>,
    /// `None`: proved the maximum over all points; `Some(why)`: a lower bound only.
    pub unproved: Option<String>,
    /// Proved by translation: every request is the lowest point's request of its warp moved by whole sectors.
    pub translated: bool,
}

/// `(sectors, ideal)` of one request (inactive lanes access nothing).
fn request_sectors(addresses: &[Option<u64>], bytes: u64) -> Result<(u64, u64), String> {
    let active: Vec<u64> = addresses.iter().flatten().copied().collect();
    memcost::sectors_per_request(&active, bytes).map_err(|e| e.to_string())
}

/// Sectors per warp request of a global access whose byte address is `address`, executed where `active` holds:
/// the maximum over every block, warp and loop iteration, proved with Z3.
///
/// Every warp is evaluated at the lowest point (block 0, first iteration). Then one query asks whether some
/// point is *not* its warp's lowest request moved by a whole number of sectors — the same lanes active, and the
/// same shift `δ ≡ 0 (mod 32)` of every active lane's address. `unsat` proves that every request has the sector
/// count of its warp's lowest one (a translation by whole sectors maps sectors one to one). Otherwise (an
/// alignment that depends on the block id, a guard that depends on the iteration) the count is searched like the
/// bank-conflict degree: Z3 is asked for `s + 1` active lanes touching `s + 1` distinct sectors until `unsat`.
pub fn global_sectors(
    options: &VerifyOptions,
    model: &LaneModel,
    address: &Term,
    active: &Term,
    facts: &[Term],
    bytes: u64,
) -> Result<Option<GlobalCost>, String> {
    let program = request_program(address, active)?;
    let Some(base) = first_point(options, facts)? else { return Ok(None) };
    let evaluate = |point: &Point| -> Result<(u64, u64), String> {
        let warp = point.get(&model.warp_name).copied().unwrap_or(0);
        request_sectors(&warp_addresses(&program, point, model, warp)?, bytes)
    };
    // Worse: more sectors, then further from the ideal.
    let worse = |a: (u64, u64), b: (u64, u64)| (a.0, a.0.saturating_sub(a.1)) > (b.0, b.0.saturating_sub(b.1));
    let mut best = (0, 0);
    let mut point = base.clone();
    for warp in 0..model.warps() {
        let mut other = base.clone();
        other.insert(model.warp_name.clone(), warp);
        let cost = evaluate(&other)?;
        if warp == 0 || worse(cost, best) {
            best = cost;
            point = other;
        }
    }
    let names = uniform_names(model, address, active);
    let mut translated = false;
    let mut unproved = None;
    let translation = translation_query(model, address, active, facts, &names, &base);
    match translation.map(|query| exists(options, &query)) {
        None => {}
        Some(Exists::None) => translated = true,
        Some(Exists::Unknown(why)) => unproved = Some(why),
        Some(Exists::Found(found)) => {
            let cost = evaluate(&found)?;
            if worse(cost, best) {
                best = cost;
                point = found;
            }
        }
    }
    if !translated {
        // A lane's bytes lie in one sector unless its access can cross a sector boundary.
        let crossing = bytes > 1 && {
            let lane = &model.lane;
            let mut query = facts.to_vec();
            query.push(active.clone());
            query.push(address.udiv(&Term::index(memcost::SECTOR_BYTES)).ne(&address.add(&Term::index(bytes - 1)).udiv(&Term::index(memcost::SECTOR_BYTES))));
            query.extend(model.lane_facts(lane));
            !matches!(exists(options, &query), Exists::None)
        };
        let lanes = WARP.min(model.threads.threads());
        let max = if crossing { 2 * lanes } else { lanes };
        unproved = raise_to_maximum(
            options,
            (&mut best, &mut point),
            |cost| cost.0,
            max,
            |k| sector_slot_query(model, address, active, facts, k, bytes),
            evaluate,
            "Z3's model did not reproduce a request with more sectors",
        )?;
    }
    if best.0 == 0 {
        return Ok(None);
    }
    let mut at: Vec<(String, u64)> = names.iter().map(|name| (name.clone(), point.get(name).copied().unwrap_or(0))).collect();
    if model.warps() <= 1 {
        at.retain(|(name, _)| *name != model.warp_name);
    }
    let witness = if best.0 > best.1 {
        let warp = point.get(&model.warp_name).copied().unwrap_or(0);
        let addresses = warp_addresses(&program, &point, model, warp)?;
        let sector = |address: u64| address / memcost::SECTOR_BYTES;
        let last_sector = |address: u64| (address + bytes - 1) / memcost::SECTOR_BYTES;
        let lowest = addresses.iter().enumerate().filter_map(|(lane, a)| a.map(|a| (sector(a), lane, a))).min();
        let highest = addresses.iter().enumerate().filter_map(|(lane, a)| a.map(|a| (std::cmp::Reverse(last_sector(a)), lane, a))).min();
        lowest.zip(highest).map(|((_, la, aa), (_, lb, ab))| ((la, aa), (lb, ab)))
    } else {
        None
    };
    Ok(Some(GlobalCost { sectors: best.0, ideal: best.1, witness, at, unproved, translated }))
}

/// Facts saying: at some point, two lanes `a` and `b` of a warp show that the request is not the request at
/// `base` (the same warp, every other variable in `names` at its `base` value) moved by whole sectors — a lane
/// active at one point and not the other, or active lanes shifted by different amounts or by a shift that is
/// not a multiple of 32 bytes.
/// `None` when a variable is a float (no translation argument: the caller searches).
fn translation_query(model: &LaneModel, address: &Term, active: &Term, facts: &[Term], names: &[String], base: &Point) -> Option<Vec<Term>> {
    let c = Term::index;
    let widths: HashMap<String, lego_smt::Sort> = address.variables().into_iter().chain(active.variables()).collect();
    let mut at_base: HashMap<String, Term> = HashMap::new();
    for name in names.iter().filter(|name| **name != model.warp_name) {
        let width = match widths.get(name) {
            Some(lego_smt::Sort::Bits(width)) => *width,
            _ => return None,
        };
        at_base.insert(name.clone(), Term::constant(base.get(name).copied().unwrap_or(0), width));
    }
    let mut query = facts.to_vec();
    let mut shifted = Vec::new();
    for slot in ["a", "b"] {
        let lane = Term::index_var(format!("{}@{slot}", model.lane_name));
        query.extend(model.lane_facts(&lane));
        let here: HashMap<String, Term> = [(model.lane_name.clone(), lane.clone())].into_iter().collect();
        let mut there = at_base.clone();
        there.insert(model.lane_name.clone(), lane);
        let (on, on_base) = (active.substitute(&here), active.substitute(&there));
        let shift = address.substitute(&here).sub(&address.substitute(&there));
        shifted.push((on, on_base, shift));
    }
    let [(on_a, on_base_a, shift_a), (on_b, _, shift_b)] = [shifted[0].clone(), shifted[1].clone()];
    let same = on_a.eq(&on_base_a).and(
        &on_a.and(&on_b).implies(&shift_a.eq(&shift_b).and(&shift_a.urem(&c(memcost::SECTOR_BYTES)).eq(&c(0)))),
    );
    query.push(same.not());
    Some(query)
}

/// Facts saying: `k` active lanes of one warp touch `k` distinct 32-byte sectors (a lane whose bytes cross a
/// sector boundary may fill two slots).
fn sector_slot_query(model: &LaneModel, address: &Term, active: &Term, facts: &[Term], k: u64, bytes: u64) -> Vec<Term> {
    distinct_units_query(model, address, active, facts, k, bytes, memcost::SECTOR_BYTES, "sector", |_, _| [])
}

/// The analysis of one access, for remarks and the report.
#[derive(Clone, Debug)]
pub enum Cost {
    Shared(SharedCost),
    Global(GlobalCost),
    /// Never executed (its facts are unsatisfiable).
    Dead,
}

/// Analyzes one access with its own addressing.
pub fn analyze<'c, 'a>(options: &VerifyOptions, model: &mut LaneModel<'c, 'a>, access: &Access<'c, 'a>, banks: u64) -> Result<Cost, String> {
    let offset = model.offset(access)?;
    let active = model.active(access)?;
    // After encoding the address and the guards: their loops' ranges are among the facts.
    let facts = model.facts()?;
    cost_of(options, model, access, &offset, &active, &facts, banks)
}

/// The cost of `access` when its element offset is `offset` and the lanes where `active` holds execute it.
pub fn cost_of(options: &VerifyOptions, model: &LaneModel, access: &Access, offset: &Term, active: &Term, facts: &[Term], banks: u64) -> Result<Cost, String> {
    if offset.uses_floats() {
        return Err("the address is computed with float math".into());
    }
    let address = offset.mul(&Term::index(access.element_bytes));
    match access.space {
        Space::Shared => {
            let cost = shared_degree(options, model, &address, active, facts, access.bytes(), banks)?;
            Ok(if cost.degree == 0 { Cost::Dead } else { Cost::Shared(cost) })
        }
        Space::Global => Ok(match global_sectors(options, model, &address, active, facts, access.bytes())? {
            Some(cost) => Cost::Global(cost),
            None => Cost::Dead,
        }),
    }
}

/// `load` / `store` of N bytes.
pub fn what(access: &Access) -> String {
    let verb = if access.store { "store" } else { "load" };
    let space = if access.space == Space::Shared { "shared" } else { "global" };
    format!("{space} {verb} of {} bytes per lane", access.bytes())
}

/// The remark text of one analyzed access.
pub fn describe(access: &Access, cost: &Cost) -> String {
    match cost {
        Cost::Dead => format!("{}: never executed (its loop or launch is empty, or its guard never holds)", what(access)),
        Cost::Global(cost) => {
            let mut text = format!("{}: {} sectors per warp request (ideal {}", what(access), cost.sectors, cost.ideal);
            if let Some(((lane_a, byte_a), (lane_b, byte_b))) = cost.witness {
                let (first, last) = (byte_a / memcost::SECTOR_BYTES, (byte_b + access.bytes() - 1) / memcost::SECTOR_BYTES);
                text += &format!("; lanes {lane_a} and {lane_b} at bytes {byte_a} and {byte_b} span sectors {first} to {last}");
                if !cost.at.is_empty() {
                    let at: Vec<String> = cost.at.iter().map(|(name, value)| format!("{name} = {value}")).collect();
                    text += &format!(", at {}", at.join(", "));
                }
            }
            text += ")";
            match (&cost.unproved, cost.translated) {
                (None, true) => text += "; exact over all blocks, warps and loop iterations (Z3: every request is its warp's first one moved by whole sectors)",
                (None, false) => text += "; exact over all blocks, warps and loop iterations (Z3)",
                (Some(why), _) => text += &format!("; at least this: the upper bound is unproved ({why})"),
            }
            text
        }
        Cost::Shared(cost) => {
            let verdict = memcost::BankConflicts { degree: cost.degree, witness: None, lanes_per_phase: cost.lanes_per_phase }.describe();
            let mut text = format!("{}: {verdict}", what(access));
            let phases = match cost.lanes_per_phase {
                32 => String::new(),
                n => format!(", phases of {n} lanes"),
            };
            if let (Some((a, b)), Some((bank, word_a, word_b))) = (cost.witness, cost.witness_words) {
                text += &format!(" (lanes {a} and {b} access words {word_a} and {word_b}, both in bank {bank}{phases}");
            } else {
                text += &format!(" (degree {}{phases}", cost.degree);
            }
            if !cost.at.is_empty() && cost.degree > 1 {
                let at: Vec<String> = cost.at.iter().map(|(name, value)| format!("{name} = {value}")).collect();
                text += &format!(", at {}", at.join(", "));
            }
            text += ")";
            match &cost.unproved {
                None => text += "; exact over all blocks, warps and loop iterations (Z3)",
                Some(why) => text += &format!("; at least this: the upper bound is unproved ({why})"),
            }
            text
        }
    }
}

/// `"file":3:7` → `file:3:7`.
pub fn location_text(location: Location) -> String {
    let text = location.to_string();
    let text = text.strip_prefix("loc(").and_then(|t| t.strip_suffix(')')).unwrap_or(&text).to_string();
    text.replacen('"', "", 2)
}

fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out += "\\\"",
            '\\' => out += "\\\\",
            c if (c as u32) < 0x20 => out += &format!("\\u{:04x}", c as u32),
            c => out.push(c),
        }
    }
    out + "\""
}

/// One access's row of the JSON report.
pub fn json_row(access: &Access, cost: &Result<Cost, String>) -> String {
    let mut fields = vec![
        format!("\"location\":{}", json_string(&location_text(access.op.location()))),
        format!("\"op\":{}", json_string(&op_name(&access.op))),
        format!("\"space\":\"{}\"", if access.space == Space::Shared { "shared" } else { "global" }),
        format!("\"bytes\":{}", access.bytes()),
    ];
    match cost {
        Err(why) => fields.push(format!("\"error\":{}", json_string(why))),
        Ok(Cost::Dead) => fields.push("\"dead\":true".into()),
        Ok(Cost::Global(c)) => {
            fields.push(format!("\"sectors\":{},\"ideal_sectors\":{},\"proved\":{}", c.sectors, c.ideal, c.unproved.is_none()));
            if let Some(((a, _), (b, _))) = c.witness {
                fields.push(format!("\"witness_lanes\":[{a},{b}]"));
            }
        }
        Ok(Cost::Shared(c)) => {
            fields.push(format!("\"degree\":{},\"proved\":{},\"lanes_per_phase\":{}", c.degree, c.unproved.is_none(), c.lanes_per_phase));
            if let Some((a, b)) = c.witness {
                fields.push(format!("\"witness_lanes\":[{a},{b}]"));
            }
        }
    }
    format!("{{{}}}", fields.join(","))
}

#[derive(Clone)]
struct AnalyzeMemory {
    options: VerifyOptions,
    banks: u64,
    json: bool,
}

pub fn parse_banks(options: &Options) -> Result<u64, RegistryError> {
    match options.u64("num-banks") {
        Ok(banks @ (4 | 8 | 16 | 32 | 64)) => Ok(banks),
        _ => Err(options.bad_value("num-banks", options.string("num-banks"), "4, 8, 16, 32 or 64")),
    }
}

pub fn parse_report(options: &Options) -> Result<bool, RegistryError> {
    match options.string("report") {
        "none" => Ok(false),
        "json" => Ok(true),
        other => Err(options.bad_value("report", other, "'none' or 'json'")),
    }
}

pub fn create(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    let pass = AnalyzeMemory { options: VerifyOptions::parse(options)?, banks: parse_banks(options)?, json: parse_report(options)? };
    Ok(crate::external::into_mlir_pass(pass, &ID))
}

/// The `gpu.launch` ops under `root`.
pub fn launches<'c, 'a>(root: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut launches = Vec::new();
    walk_ops(root, &mut |op| {
        if op_name(&op) == "gpu.launch" {
            launches.push(op);
        }
    });
    launches
}

/// `func_name#k` of the k-th launch in a function.
pub fn kernel_name(launch: OperationRef, index: usize) -> String {
    let function = enclosing_function(launch)
        .and_then(|f| f.attribute("sym_name").ok())
        .map(|a| a.to_string().trim_matches('"').to_string())
        .unwrap_or_else(|| "?".into());
    format!("{function}#{index}")
}

impl LegoPass for AnalyzeMemory {
    fn name(&self) -> &'static str {
        "lego-analyze-memory"
    }

    fn description(&self) -> &'static str {
        "Exact bank-conflict degree of every shared access and sectors per request of every global access in gpu.launch kernels (Z3)"
    }

    fn may_leave_lego_ops(&self) -> bool {
        true
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let options = self.options.started();
        let mut kernels = Vec::new();
        let mut per_function: HashMap<String, usize> = HashMap::new();
        for launch in launches(root) {
            let base = kernel_name(launch, 0);
            let counter = per_function.entry(base.clone()).or_insert(0);
            let name = kernel_name(launch, *counter);
            *counter += 1;
            let mut rows = Vec::new();
            let mut model = match LaneModel::new(launch) {
                Ok(model) => model,
                Err(why) => {
                    diagnostics::warning(launch.location(), &format!("cannot analyze this kernel's memory accesses: {why}"));
                    continue;
                }
            };
            for found in accesses(launch) {
                match found {
                    Err((location, why)) => diagnostics::warning(location, &why),
                    Ok(access) => {
                        let cost = analyze(&options, &mut model, &access, self.banks);
                        match &cost {
                            Ok(cost) => diagnostics::remark(access.op.location(), &describe(&access, cost)),
                            Err(why) => diagnostics::warning(access.op.location(), &format!("cannot analyze {}: {why}", what(&access))),
                        }
                        rows.push(json_row(&access, &cost));
                    }
                }
            }
            let [x, y, z] = model.threads.sizes;
            kernels.push(format!(
                "{{\"kernel\":{},\"location\":{},\"block\":[{x},{y},{z}],\"accesses\":[{}]}}",
                json_string(&name),
                json_string(&location_text(launch.location())),
                rows.join(",")
            ));
        }
        lego_smt::join_background();
        if self.json {
            eprintln!("{{\"lego-analyze-memory\":[{}]}}", kernels.join(","));
        }
        Ok(())
    }
}
