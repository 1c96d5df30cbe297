//! `lego-choose-smem-layout`: for every shared-memory (workgroup) buffer of a `gpu.launch` whose accesses all go
//! through one row-major 2-D lego layout `lego.row [R, C]`, pick the layout with the least bank-conflict degree
//! (docs/passes/lego-choose-smem-layout.md, docs/memory-analysis.md).
//!
//! Candidates, in this order: the original; paddings of `p = 1..max-padding` 4-byte words per row
//! (`lego.row [R, C + p·4/E]`, E the element bytes, when that is a whole number of elements); every XOR swizzle
//! `(B, M, S)` of CuTe's `Swizzle<B, M, S>` on the flat element index `f = i·C + j` (bits `[M, M+B)` XORed with
//! bits `[M+S, M+S+B)`, `S ≥ B`, `2^(M+S+B)` dividing `R·C`), written as `lego.swizzle bits B base M shift S dims
//! [R, C]` (its own inverse); and, only when none of those is conflict-free without extra memory, pairs of XOR
//! swizzles ([`pair_candidates`]) written as `lego.compose` of two `lego.swizzle`s. The key is (max degree over
//! the buffer's accesses, extra bytes, index ops, candidate order): deterministic. Accesses under `scf.if` count
//! their active lanes only.
//!
//! The search evaluates every candidate on sample requests (every warp at the lowest point, and every worst point
//! Z3 finds) with `memcost` — a lower bound on its degree; the best candidate's degree is then proved exactly with
//! [`crate::analyze_memory::shared_degree`] (Z3). If the proof finds a worse request, that point joins the samples
//! and the search repeats, so the answer is exact and optimal among the candidates. The chosen layout is proved
//! bijective onto its buffer with Z3 before the rewrite.

use crate::{
    analyze_memory::{self as am, Access, Addressing, LaneModel, Point, Space},
    diagnostics,
    external::{LegoPass, PassFailure, PassId},
    registry::{OptionSpec, Options, RegistryError},
    smt_encode::{op_name, value_key},
    verify_common::{describe_unknown, VerifyOptions},
};
use lego_algebra::memcost;
use lego_dialect::ops::{layout_op, Dim, LayoutOp, OpKind};
use lego_smt::{Outcome, Program, Query, Term, Value as SmtValue};
use melior::ir::{
    block::BlockLike, operation::OperationLike, r#type::TypeLike, Location, Module, Operation, OperationRef, Value, ValueLike,
};
use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

static ID: PassId = PassId::new();

pub const OPTIONS: &[OptionSpec] = &[
    crate::verify_common::OPTIONS[0],
    OptionSpec { name: "num-banks", default: "32", description: "shared-memory banks of 4 bytes (a power of two, 4 to 64)" },
    OptionSpec { name: "max-padding", default: "8", description: "largest padding tried, in 4-byte words per row" },
    OptionSpec { name: "report", default: "none", description: "'json': print each buffer's choice as JSON on standard error (lego-opt --lego-report=json)" },
];

/// One candidate layout of an `R × C` tile of `E`-byte elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Candidate {
    /// `lego.row [R, C + pad]` (pad in elements; 0 is the original).
    Pad(u64),
    /// CuTe `Swizzle<B, M, S>` on the flat index.
    Swizzle { b: u32, m: u32, s: u32 },
    /// Two XOR swizzles on the flat index, `low` (the lower target bits) then `high`: disjoint target ranges, and
    /// neither reads the bits the other changes, so the order does not matter and the map XORs both ranges at
    /// once. Written as `lego.compose` of the two `lego.swizzle`s.
    TwoSwizzles { low: (u32, u32, u32), high: (u32, u32, u32) },
}

impl Candidate {
    fn pitch(self, cols: u64) -> u64 {
        match self {
            Candidate::Pad(pad) => cols + pad,
            Candidate::Swizzle { .. } | Candidate::TwoSwizzles { .. } => cols,
        }
    }

    /// Element offset of (i, j), natively.
    pub fn offset(self, cols: u64, i: u64, j: u64) -> u64 {
        let f = i.wrapping_mul(self.pitch(cols)).wrapping_add(j);
        match self {
            Candidate::Pad(_) => f,
            Candidate::Swizzle { b, m, s } => swizzle(f, b, m, s),
            Candidate::TwoSwizzles { low: (b0, m0, s0), high: (b1, m1, s1) } => swizzle(swizzle(f, b0, m0, s0), b1, m1, s1),
        }
    }

    /// The same as a term.
    pub fn term(self, cols: u64, i: &Term, j: &Term) -> Term {
        let c = Term::index;
        let f = i.mul(&c(self.pitch(cols))).add(j);
        match self {
            Candidate::Pad(_) => f,
            Candidate::Swizzle { b, m, s } => swizzle_term(&f, b, m, s),
            Candidate::TwoSwizzles { low: (b0, m0, s0), high: (b1, m1, s1) } => {
                swizzle_term(&swizzle_term(&f, b0, m0, s0), b1, m1, s1)
            }
        }
    }

    /// The flat row-major index `i·pitch + j` of an offset: the inverse of the swizzles (each its own inverse,
    /// undone in the opposite order).
    fn unswizzle_term(self, offset: &Term) -> Term {
        match self {
            Candidate::Pad(_) => offset.clone(),
            Candidate::Swizzle { b, m, s } => swizzle_term(offset, b, m, s),
            Candidate::TwoSwizzles { low: (b0, m0, s0), high: (b1, m1, s1) } => {
                swizzle_term(&swizzle_term(offset, b1, m1, s1), b0, m0, s0)
            }
        }
    }

    /// Extra elements over the original `R × C`.
    fn extra_elements(self, rows: u64) -> u64 {
        match self {
            Candidate::Pad(pad) => rows * pad,
            Candidate::Swizzle { .. } | Candidate::TwoSwizzles { .. } => 0,
        }
    }

    /// Index ops beyond the row-major `i·C + j`: `lego.swizzle` lowers to a mask, a shift and an XOR; two of them
    /// to twice that.
    fn extra_ops(self) -> u64 {
        match self {
            Candidate::Pad(_) => 0,
            Candidate::Swizzle { .. } => 3,
            Candidate::TwoSwizzles { .. } => 6,
        }
    }

    pub fn describe(self, cols: u64, element_bytes: u64) -> String {
        match self {
            Candidate::Pad(0) => "the original row-major layout".into(),
            Candidate::Pad(pad) => format!(
                "padding of {} word{} per row (lego.row [R, {}])",
                pad * element_bytes / 4,
                if pad * element_bytes / 4 == 1 { "" } else { "s" },
                cols + pad
            ),
            Candidate::Swizzle { b, m, s } => format!("XOR swizzle (B, M, S) = ({b}, {m}, {s}) on the flat index"),
            Candidate::TwoSwizzles { low: (b0, m0, s0), high: (b1, m1, s1) } => {
                format!("two XOR swizzles (B, M, S) = ({b0}, {m0}, {s0}) and ({b1}, {m1}, {s1}) on the flat index")
            }
        }
    }
}

/// CuTe's `Swizzle<B, M, S>` of a flat index: bits `[M, M+B)` XOR bits `[M+S, M+S+B)`.
fn swizzle(f: u64, b: u32, m: u32, s: u32) -> u64 {
    f ^ (((f >> (m + s)) & ((1 << b) - 1)) << m)
}

fn swizzle_term(f: &Term, b: u32, m: u32, s: u32) -> Term {
    let c = Term::index;
    let bits = f.lshr(&c(u64::from(m + s))).bitand(&c((1 << b) - 1));
    let shifted = if m > 0 { bits.shl(&c(u64::from(m))) } else { bits };
    f.bitxor(&shifted)
}

/// Every candidate, in the order that breaks the last tie.
pub fn candidates(rows: u64, cols: u64, element_bytes: u64, max_padding: u64) -> Vec<Candidate> {
    let mut all = vec![Candidate::Pad(0)];
    for words in 1..=max_padding {
        if (words * 4) % element_bytes == 0 {
            all.push(Candidate::Pad(words * 4 / element_bytes));
        }
    }
    let size = rows * cols;
    if size > 0 {
        let bits = size.trailing_zeros(); // 2^bits divides R·C
        for b in 1..=bits {
            for m in 0..=bits {
                for s in b..=bits {
                    if m + s + b <= bits {
                        all.push(Candidate::Swizzle { b, m, s });
                    }
                }
            }
        }
    }
    all
}

/// The bits of the flat element index that select the bank of its word: `[lo, hi)` (for 4-byte elements the
/// index's low `log2(banks)` bits; for 2-byte ones bits 1 … log2(banks), bit 0 choosing the half of a word).
fn bank_bits(element_bytes: u64, banks: u64) -> (u32, u32) {
    let word_shift = element_bytes.trailing_zeros() as i64 - 2; // word = f · E / 4 = f << word_shift
    let lo = (-word_shift).max(0);
    let hi = (i64::from(banks.trailing_zeros()) - word_shift).max(0);
    (lo as u32, hi as u32)
}

/// Pairs of XOR swizzles, searched only when no single candidate is conflict-free without extra memory (a pair
/// costs twice the index ops of one swizzle, so it can only win on degree or memory). Bounded: each swizzle
/// must change a bank bit of the flat index (one that changes none permutes words within their banks and cannot
/// change a degree, so the pair would lose to its other half on index ops); the two target ranges are disjoint
/// and neither swizzle reads the other's target bits (then they commute and the pair XORs both ranges at once).
/// The lower target range comes first: each pair once, in a fixed order.
pub fn pair_candidates(rows: u64, cols: u64, element_bytes: u64, banks: u64) -> Vec<Candidate> {
    let (lo, hi) = bank_bits(element_bytes, banks);
    let singles: Vec<(u32, u32, u32)> = candidates(rows, cols, element_bytes, 0)
        .into_iter()
        .filter_map(|c| match c {
            Candidate::Swizzle { b, m, s } if m < hi && m + b > lo => Some((b, m, s)),
            _ => None,
        })
        .collect();
    let overlap = |a: (u32, u32), b: (u32, u32)| a.0 < b.1 && b.0 < a.1;
    let mut pairs = Vec::new();
    for &(b0, m0, s0) in &singles {
        for &(b1, m1, s1) in &singles {
            let (target0, target1) = ((m0, m0 + b0), (m1, m1 + b1));
            let (source0, source1) = ((m0 + s0, m0 + s0 + b0), (m1 + s1, m1 + s1 + b1));
            if target0.1 <= target1.0 && !overlap(source0, target1) && !overlap(source1, target0) {
                pairs.push(Candidate::TwoSwizzles { low: (b0, m0, s0), high: (b1, m1, s1) });
            }
        }
    }
    pairs
}

/// A shared buffer and what the search needs of its accesses.
struct Buffer<'c, 'a> {
    value: Value<'c, 'a>,
    layout_op: OperationRef<'c, 'a>,
    rows: u64,
    cols: u64,
    element_bytes: u64,
    element_type: String,
    accesses: Vec<Access<'c, 'a>>,
    /// Per access: how it reaches the tile layout (the op whose layout operand the rewrite replaces).
    vias: Vec<Via<'c, 'a>>,
    /// Per access: the (i, j) index terms.
    indices: Vec<(Term, Term)>,
    /// The element counts of the vector accesses (none when every access is scalar): candidates must keep such
    /// chunks whole and aligned ([`keeps_vectors`]).
    vectors: Vec<u64>,
    /// Per access: when a lane executes it (its `scf.if` guards).
    active: Vec<Term>,
}

#[derive(Clone)]
struct ChooseSmemLayout {
    options: VerifyOptions,
    banks: u64,
    max_padding: u64,
    json: bool,
}

pub fn create(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    let max_padding = options.u64("max-padding")?;
    if max_padding > 64 {
        return Err(options.bad_value("max-padding", options.string("max-padding"), "at most 64"));
    }
    let pass = ChooseSmemLayout {
        options: VerifyOptions::parse(options)?,
        banks: am::parse_banks(options)?,
        max_padding,
        json: am::parse_report(options)?,
    };
    Ok(crate::external::into_mlir_pass(pass, &ID))
}

/// How an access reaches its tile layout.
#[derive(Clone, Copy)]
enum Via<'c, 'a> {
    /// A lego view: `lego.load/store %view[i, j]` of a `lego.cast_view %buffer, %layout`.
    View(OperationRef<'c, 'a>),
    /// A flat workgroup memref indexed by `lego.apply %layout(i, j)`: how `vector.load/store` (and
    /// `memref.load/store`) reach a lego layout, since lego views have no vector accesses.
    Apply(OperationRef<'c, 'a>),
}

/// What the search needs of one access: the tile layout op, its `[R, C]`, the route, the (i, j) index values.
struct TileAccess<'c, 'a> {
    layout_op: OperationRef<'c, 'a>,
    rows: u64,
    cols: u64,
    via: Via<'c, 'a>,
    indices: Vec<Value<'c, 'a>>,
}

fn defining_op<'c, 'a>(value: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    melior::ir::operation::OperationResult::try_from(value).ok().map(|r| r.owner())
}

/// The access's tile layout, or why the buffer keeps its layout without a search.
fn tile_access<'c, 'a>(access: &Access<'c, 'a>) -> Result<TileAccess<'c, 'a>, String> {
    let not_lego = || format!("its {} at {} does not go through a lego layout", op_name(&access.op), am::location_text(access.op.location()));
    let (layout, via, indices, flat) = match &access.addressing {
        Addressing::Layout(layout) => {
            let view = access.cast_view.ok_or_else(not_lego)?;
            (*layout, Via::View(view), access.indices.clone(), None)
        }
        Addressing::RowMajor(shape) => {
            // One index, computed by a lego.apply: the layout is the apply's.
            let apply = match (shape.as_slice(), access.indices.as_slice()) {
                ([size], [index]) => defining_op(*index).filter(|op| OpKind::of(op) == Some(OpKind::Apply)).map(|op| (op, *size)),
                _ => None,
            };
            let Some((apply, size)) = apply else { return Err(not_lego()) };
            let layout = apply.operand(0).map_err(|_| "malformed lego.apply".to_string())?;
            (layout, Via::Apply(apply), apply.operands().skip(1).collect(), Some(size))
        }
    };
    let owner = defining_op(layout).ok_or("its layout is not defined by an op")?;
    let (rows, cols) = match layout_op(owner) {
        Ok(Some(LayoutOp::Row { dims })) => match dims.as_slice() {
            [Dim::Static(r), Dim::Static(c)] if *r > 0 && *c > 0 => (*r as u64, *c as u64),
            _ => return Err("its layout is not a static 2-D lego.row".into()),
        },
        _ => return Err("its layout is not a lego.row [R, C] (only plain row-major tiles are searched)".into()),
    };
    if let Some(size) = flat {
        if size != rows * cols {
            return Err(format!("its flat memref has {size} elements, not the tile's {rows}·{cols}"));
        }
    }
    if indices.len() != 2 {
        return Err("an access does not have two indices".into());
    }
    Ok(TileAccess { layout_op: owner, rows, cols, via, indices })
}

/// Whether the lego.apply's result is used only as the index of the buffer's accesses (else rewriting its layout
/// would change something else too).
fn apply_only_indexes(apply: OperationRef, group: &[Access]) -> bool {
    let Ok(result) = apply.result(0) else { return false };
    let mut using = unsafe { mlir_sys::mlirValueGetFirstUse(result.to_raw()) };
    while !unsafe { mlir_sys::mlirOpOperandIsNull(using) } {
        let owner = unsafe { mlir_sys::mlirOpOperandGetOwner(using) };
        let number = unsafe { mlir_sys::mlirOpOperandGetOperandNumber(using) } as usize;
        let indexes = group.iter().any(|access| access.op.to_raw().ptr == owner.ptr && number == usize::from(access.store) + 1);
        if !indexes {
            return false;
        }
        using = unsafe { mlir_sys::mlirOpOperandGetNextUse(using) };
    }
    true
}

/// Whether `candidate` keeps every aligned chunk of `n` elements (n a power of two, `C` a multiple of n) of a
/// row whole, in order and at an offset ≡ the original's modulo n — what a vector access of n elements at a
/// column j ≡ 0 (mod n) with j + n ≤ C needs to stay one contiguous, equally aligned access. An XOR swizzle
/// `(B, M, S)` with `2^M ≥ n` moves only bits ≥ M of the flat index and reads only bits ≥ M + S: the chunk's low
/// bits are untouched and its high bits are constant over the chunk. A padding of `p` elements shifts row i by
/// `i·p`: a multiple of n iff `p` is.
pub fn keeps_vectors(candidate: Candidate, cols: u64, n: u64) -> bool {
    if n <= 1 {
        return true;
    }
    if !n.is_power_of_two() || cols % n != 0 {
        return candidate == Candidate::Pad(0);
    }
    match candidate {
        Candidate::Pad(pad) => pad % n == 0,
        Candidate::Swizzle { m, .. } => (1u64 << m) >= n,
        // Each swizzle keeps the chunks whole, so does the two applied one after the other.
        Candidate::TwoSwizzles { low: (_, m0, _), high: (_, m1, _) } => (1u64 << m0) >= n && (1u64 << m1) >= n,
    }
}

/// Proves for a vector access of `n` elements at tile column `j`: `j ≡ 0 (mod n)` and `j + n ≤ C`, at every
/// point (so [`keeps_vectors`] applies).
fn prove_vector_in_row(options: &VerifyOptions, j: &Term, n: u64, cols: u64, facts: &[Term]) -> Result<(), String> {
    let c = Term::index;
    let goal = j.urem(&c(n)).eq(&c(0)).and(&j.add(&c(n)).ule(&c(cols)));
    match options.prove(&Query { goal: &goal, facts, observe: &[], timeout_ms: 0 }) {
        Outcome::Proved => Ok(()),
        Outcome::Refuted(cex) => Err(format!(
            "its column index is not always a multiple of {n} with {n} elements left in the row of {cols} (at {})",
            cex.assignment.iter().map(|(name, value)| format!("{name} = {value}")).collect::<Vec<_>>().join(", ")
        )),
        Outcome::Unknown(unknown) => Err(describe_unknown(&unknown)),
    }
}

/// Indices of each access's lanes at each sample: `[access][sample][lane]`, `None` for a lane its guards switch
/// off.
type Lanes = Vec<Vec<Vec<Option<(u64, u64)>>>>;

fn sample_lanes(model: &LaneModel, buffer: &Buffer, samples: &[Point]) -> Result<Lanes, String> {
    let mut out = Vec::new();
    for ((i, j), active) in buffer.indices.iter().zip(&buffer.active) {
        // Indices only where the lane is active: outside its guard an index may be undefined.
        let zero = Term::index(0);
        let program = Program::new(&[Term::select_lazy(active, i, &zero), Term::select_lazy(active, j, &zero), active.clone()])?;
        let mut per_sample = Vec::new();
        for point in samples {
            let warp = point.get(&model.warp_name).copied().unwrap_or(0);
            let mut inputs: HashMap<String, SmtValue> = program
                .variables()
                .iter()
                .map(|(name, _)| (name.clone(), SmtValue::Bits(point.get(name).copied().unwrap_or(0))))
                .collect();
            inputs.insert(model.warp_name.clone(), SmtValue::Bits(warp));
            let mut lanes = Vec::new();
            for lane in 0..am::WARP {
                if warp * am::WARP + lane >= model.threads.threads() {
                    break;
                }
                inputs.insert(model.lane_name.clone(), SmtValue::Bits(lane));
                let evaluation = program.run_named(&inputs);
                let root = |k: usize| evaluation.roots.get(k).and_then(|v| v.bits());
                match (root(0), root(1), root(2)) {
                    (_, _, Some(0)) if evaluation.undefined.is_none() => lanes.push(None),
                    (Some(i), Some(j), Some(_)) if evaluation.undefined.is_none() => lanes.push(Some((i, j))),
                    _ => return Err(format!("the index of lane {lane} is undefined")),
                }
            }
            per_sample.push(lanes);
        }
        out.push(per_sample);
    }
    Ok(out)
}

/// The bank-conflict degree of one request, as `memcost::bank_conflict_degree_of_lanes` counts it (the unit
/// test `fast_degree_is_memcost` checks they agree), without its maps: the search evaluates thousands of
/// candidates on every sampled request. `pairs` is scratch space.
fn fast_degree(addresses: &[Option<u64>], bytes: u64, banks: u64, per_phase: usize, pairs: &mut Vec<(u64, u64)>) -> u64 {
    let mut worst = 0;
    for phase in addresses.chunks(per_phase.max(1)) {
        pairs.clear();
        for &address in phase.iter().flatten() {
            let last = address.saturating_add(bytes - 1);
            for word in address / memcost::BANK_WORD_BYTES..=last / memcost::BANK_WORD_BYTES {
                pairs.push((word % banks, word));
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut run = 0;
        let mut bank = None;
        for &(b, _) in pairs.iter() {
            run = if bank == Some(b) { run + 1 } else { 1 };
            bank = Some(b);
            worst = worst.max(run);
        }
    }
    worst
}

/// Max sampled degree of `candidate` over the buffer's accesses; stops early once it exceeds `cutoff` (the
/// candidate then cannot be the least).
fn sampled_degree(buffer: &Buffer, lanes: &Lanes, candidate: Candidate, banks: u64, cutoff: Option<u64>) -> u64 {
    let mut worst = 0;
    let mut addresses = Vec::with_capacity(am::WARP as usize);
    let mut pairs = Vec::with_capacity(4 * am::WARP as usize);
    for (access, samples) in buffer.accesses.iter().zip(lanes) {
        let Ok(per_phase) = memcost::lanes_per_phase(access.bytes()) else { continue };
        for warp in samples {
            addresses.clear();
            addresses.extend(
                warp.iter().map(|lane| lane.map(|(i, j)| candidate.offset(buffer.cols, i, j).wrapping_mul(buffer.element_bytes))),
            );
            worst = worst.max(fast_degree(&addresses, access.bytes(), banks, per_phase, &mut pairs));
            if cutoff.is_some_and(|cutoff| worst > cutoff) {
                return worst;
            }
        }
    }
    worst
}

/// What the search found for one buffer.
struct Choice {
    candidate: Candidate,
    degree: u64,
    original_degree: u64,
    considered: usize,
    /// Candidates dropped because they would split or misalign a vector access.
    rejected: usize,
    /// Whether pairs of swizzles were among the candidates.
    with_pairs: bool,
    unproved: Option<String>,
}

impl ChooseSmemLayout {
    fn choose(&self, options: &VerifyOptions, model: &LaneModel, buffer: &Buffer, facts: &[Term]) -> Result<Choice, String> {
        // Vector accesses: only the candidates that keep each one contiguous and equally aligned (keeps_vectors).
        let keeps = |candidate: &Candidate| buffer.vectors.iter().all(|n| keeps_vectors(*candidate, buffer.cols, *n));
        let singles = candidates(buffer.rows, buffer.cols, buffer.element_bytes, self.max_padding);
        let pair_list = pair_candidates(buffer.rows, buffer.cols, buffer.element_bytes, self.banks);
        let mut all: Vec<Candidate> = singles.iter().copied().filter(|c| keeps(c)).collect();
        let pairs: Vec<Candidate> = pair_list.iter().copied().filter(|c| keeps(c)).collect();
        let (rejected_singles, rejected_pairs) = (singles.len() - all.len(), pair_list.len() - pairs.len());
        let mut with_pairs = false;
        let mut samples: Vec<Point> = (0..model.warps()).map(|w| [(model.warp_name.clone(), w)].into_iter().collect()).collect();
        // Exact degrees found so far (candidate index → degree).
        let mut exact: BTreeMap<usize, (u64, Option<String>)> = BTreeMap::new();
        let mut original_degree = None;
        for _round in 0..64 {
            let lanes = sample_lanes(model, buffer, &samples)?;
            // The least key (degree, extra elements, extra ops, index); a candidate whose degree already exceeds
            // the best one's is not evaluated further.
            let rank = |all: &[Candidate]| -> Option<(u64, u64, u64, usize)> {
                let mut best: Option<(u64, u64, u64, usize)> = None;
                for (index, candidate) in all.iter().enumerate() {
                    let degree = match exact.get(&index) {
                        Some((degree, _)) => *degree,
                        None => sampled_degree(buffer, &lanes, *candidate, self.banks, best.map(|b| b.0)),
                    };
                    let key = (degree, candidate.extra_elements(buffer.rows), candidate.extra_ops(), index);
                    if best.map_or(true, |b| key < b) {
                        best = Some(key);
                    }
                }
                best
            };
            let mut ranked = rank(&all).ok_or("no candidate")?;
            // A pair can only win on degree or memory: search them once the best single candidate is neither
            // conflict-free nor free of extra memory.
            if !with_pairs && !pairs.is_empty() && (ranked.0 > 1 || ranked.1 > 0) {
                with_pairs = true;
                all.extend(pairs.iter().copied());
                ranked = rank(&all).ok_or("no candidate")?;
            }
            let (degree, _, _, best) = ranked;
            if let Some((proved, unproved)) = exact.get(&best) {
                let original = match exact.get(&0) {
                    Some((d, _)) => *d,
                    None => original_degree.unwrap_or_else(|| sampled_degree(buffer, &lanes, all[0], self.banks, None)),
                };
                let rejected = rejected_singles + if with_pairs { rejected_pairs } else { 0 };
                return Ok(Choice {
                    candidate: all[best],
                    degree: *proved,
                    original_degree: original,
                    considered: all.len(),
                    rejected,
                    with_pairs,
                    unproved: unproved.clone(),
                });
            }
            // Prove the best candidate's degree over every access; a worse request joins the samples.
            let candidate = all[best];
            let mut worst = 0;
            let mut unproved = None;
            for ((access, (i, j)), active) in buffer.accesses.iter().zip(&buffer.indices).zip(&buffer.active) {
                let offset = candidate.term(buffer.cols, i, j);
                let address = offset.mul(&Term::index(buffer.element_bytes));
                let cost = am::shared_degree(options, model, &address, active, facts, access.bytes(), self.banks)?;
                if cost.degree > degree {
                    samples.push(cost.point.clone());
                }
                worst = worst.max(cost.degree);
                if let Some(why) = cost.unproved {
                    unproved = Some(why);
                }
            }
            if best == 0 {
                original_degree = Some(worst);
            }
            exact.insert(best, (worst, unproved));
        }
        Err("the search did not settle in 64 rounds".into())
    }
}

/// Proves that `candidate` maps the `R × C` tile one-to-one into its buffer: for all `i < R`, `j < C`, the offset is
/// below the buffer size and the inverse (row-major division, after undoing the swizzle) gives back `(i, j)`.
fn prove_bijective(options: &VerifyOptions, candidate: Candidate, rows: u64, cols: u64) -> Result<(), String> {
    let (i, j) = (Term::index_var("i"), Term::index_var("j"));
    let c = Term::index;
    let f = candidate.term(cols, &i, &j);
    let pitch = candidate.pitch(cols);
    let unswizzled = candidate.unswizzle_term(&f);
    let goal = f
        .ult(&c(rows * pitch))
        .and(&unswizzled.udiv(&c(pitch)).eq(&i))
        .and(&unswizzled.urem(&c(pitch)).eq(&j));
    let facts = [i.ult(&c(rows)), j.ult(&c(cols))];
    match options.prove(&Query { goal: &goal, facts: &facts, observe: &[], timeout_ms: 0 }) {
        Outcome::Proved => Ok(()),
        Outcome::Refuted(cex) => Err(format!("not bijective at {:?}", cex.assignment)),
        Outcome::Unknown(unknown) => Err(describe_unknown(&unknown)),
    }
}

/// The new layout ops' text (lines inside a function; the last defines the layout), every op at `loc`.
fn layout_text(candidate: Candidate, rows: u64, cols: u64, loc: &str) -> String {
    match candidate {
        Candidate::Pad(pad) => format!("%l = lego.row [{rows}, {}] : !lego.layout {loc}", cols + pad),
        Candidate::Swizzle { b, m, s } => {
            format!("%l = lego.swizzle bits {b} base {m} shift {s} dims [{rows}, {cols}] : !lego.layout {loc}")
        }
        // compose(outer, inner) applies `inner` first: the low swizzle over the tile's [R, C], then the high one
        // over the flat [R·C] (the flat index read as a 1-D position: no re-linearization).
        Candidate::TwoSwizzles { low: (b0, m0, s0), high: (b1, m1, s1) } => format!(
            "%low = lego.swizzle bits {b0} base {m0} shift {s0} dims [{rows}, {cols}] : !lego.layout {loc}\n\
             %high = lego.swizzle bits {b1} base {m1} shift {s1} dims [{}] : !lego.layout {loc}\n\
             %l = lego.compose %high, %low : !lego.layout {loc}",
            rows * cols
        ),
    }
}

/// Builds the candidate's layout ops after `anchor` (in order, each op's operands mapped to the inserted
/// copies) and returns the last one's result.
fn insert_layout<'c, 'a>(anchor: OperationRef<'c, 'a>, text: &str) -> Result<Value<'c, 'a>, String> {
    let handle = crate::mlir_context::ContextHandle::of(&anchor);
    let custom = format!("func.func @__lego_choose_smem_layout() {{\n{text}\nreturn\n}}");
    // lego ops are IRDL ops: MLIR parses their generic form, which the lego syntax layer produces.
    let source = lego_dialect::syntax::to_generic("lego-choose-smem-layout", &custom)
        .map_err(|errors| format!("the generated layout has a syntax error: {errors:?}"))?;
    let module = Module::parse(handle.get(), &source).ok_or_else(|| format!("the generated layout does not parse:\n{source}"))?;
    let function = module.body().first_operation().ok_or("empty module")?;
    let region = function.region(0).map_err(|e| e.to_string())?;
    let block = melior::ir::RegionLike::first_block(&region).ok_or("empty function")?;
    let parent = anchor.block().ok_or("the layout op is not in a block")?;
    // Parsed result (by key) → its inserted copy.
    let mut copies: HashMap<usize, Value<'c, 'a>> = HashMap::new();
    let mut last: Option<Value<'c, 'a>> = None;
    let mut after = anchor;
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if op_name(&op) == "func.return" {
            break;
        }
        // SAFETY: `mlirOperationClone` returns a new, detached operation owned by the caller.
        let owned = unsafe { Operation::from_raw(mlir_sys::mlirOperationClone(op.to_raw())) };
        let inserted = parent.insert_operation_after(after, owned);
        for (k, operand) in op.operands().enumerate() {
            let copy = copies.get(&value_key(operand)).ok_or("a generated layout op uses a value from outside")?;
            unsafe { mlir_sys::mlirOperationSetOperand(inserted.to_raw(), k as isize, copy.to_raw()) };
        }
        let result: Value<'c, 'a> = inserted.result(0).map(Into::into).map_err(|e| e.to_string())?;
        if let Ok(parsed) = op.result(0) {
            copies.insert(value_key(parsed.into()), result);
        }
        last = Some(result);
        after = inserted;
    }
    drop(module);
    last.ok_or_else(|| "no layout op was generated".to_string())
}

fn set_type(value: Value, text: &str) -> Result<(), String> {
    let handle = crate::mlir_context::ContextHandle::of_location(value.location());
    let r#type = melior::ir::Type::parse(handle.get(), text).ok_or_else(|| format!("type {text} does not parse"))?;
    unsafe { mlir_sys::mlirValueSetType(value.to_raw(), r#type.to_raw()) };
    Ok(())
}

/// Rewrites the buffer to `candidate`; returns the new layout value.
fn rewrite<'c, 'a>(buffer: &Buffer<'c, 'a>, candidate: Candidate, location: Location) -> Result<Value<'c, 'a>, String> {
    let loc = location.to_string();
    let new_layout = insert_layout(buffer.layout_op, &layout_text(candidate, buffer.rows, buffer.cols, &loc))?;
    // The layout operand: a cast_view's second, a lego.apply's first.
    let mut users: Vec<(OperationRef, isize)> = buffer
        .vias
        .iter()
        .map(|via| match via {
            Via::View(view) => (*view, 1),
            Via::Apply(apply) => (*apply, 0),
        })
        .collect();
    users.sort_by_key(|(op, _)| op.to_raw().ptr as usize);
    users.dedup_by_key(|(op, _)| op.to_raw().ptr as usize);
    for (user, operand) in users {
        unsafe { mlir_sys::mlirOperationSetOperand(user.to_raw(), operand, new_layout.to_raw()) };
    }
    let size = buffer.rows * candidate.pitch(buffer.cols);
    set_type(buffer.value, &format!("memref<{size}x{}, #gpu.address_space<workgroup>>", buffer.element_type))?;
    // The old layout op, when nothing else uses it.
    if let Ok(result) = buffer.layout_op.result(0) {
        if unsafe { mlir_sys::mlirOpOperandIsNull(mlir_sys::mlirValueGetFirstUse(result.to_raw())) } {
            unsafe { mlir_sys::mlirOperationDestroy(buffer.layout_op.to_raw()) };
        }
    }
    Ok(new_layout)
}

/// Proves that the layout ops the rewrite emitted compute the chosen candidate's map — the one whose degree
/// and bijectivity were proved — for every `i < R`, `j < C` (Z3, through the same encoding as lego-verify).
fn prove_emitted(options: &VerifyOptions, model: &mut LaneModel, layout: Value, candidate: Candidate, rows: u64, cols: u64, at: Location) -> Result<(), String> {
    let (i, j) = (Term::index_var(model.encoder.fresh_name("i")), Term::index_var(model.encoder.fresh_name("j")));
    let emitted = model.encoder.layout_apply(layout, &[i.clone(), j.clone()], at).map_err(|e| e.message)?;
    let goal = emitted.eq(&candidate.term(cols, &i, &j));
    let c = Term::index;
    let facts = [i.ult(&c(rows)), j.ult(&c(cols))];
    match options.prove(&Query { goal: &goal, facts: &facts, observe: &[], timeout_ms: 0 }) {
        Outcome::Proved => Ok(()),
        Outcome::Refuted(cex) => Err(format!("the emitted layout differs from the chosen map at {:?}", cex.assignment)),
        Outcome::Unknown(unknown) => Err(describe_unknown(&unknown)),
    }
}

fn degree_words(degree: u64) -> String {
    memcost::BankConflicts { degree, witness: None, lanes_per_phase: 32 }.describe()
}

impl LegoPass for ChooseSmemLayout {
    fn name(&self) -> &'static str {
        "lego-choose-smem-layout"
    }

    fn description(&self) -> &'static str {
        "Choose each shared tile's layout (original, padding, XOR swizzle) with the least bank-conflict degree, proved with Z3"
    }

    fn may_leave_lego_ops(&self) -> bool {
        true
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let options = self.options.started();
        let mut rows_json = Vec::new();
        for launch in am::launches(root) {
            let start = Instant::now();
            let mut model = match LaneModel::new(launch) {
                Ok(model) => model,
                Err(why) => {
                    diagnostics::warning(launch.location(), &format!("cannot choose shared-memory layouts in this kernel: {why}"));
                    continue;
                }
            };
            // Shared accesses grouped by buffer, in program order.
            let mut groups: Vec<(usize, Vec<Access>)> = Vec::new();
            for found in am::accesses(launch) {
                let Ok(access) = found else { continue };
                if access.space != Space::Shared {
                    continue;
                }
                let key = value_key(access.buffer);
                match groups.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, list)) => list.push(access),
                    None => groups.push((key, vec![access])),
                }
            }
            for (_, group) in groups {
                let first = &group[0];
                let at = first.cast_view.map_or(first.op.location(), |view| view.location());
                let is_attribution = unsafe { mlir_sys::mlirValueIsABlockArgument(first.buffer.to_raw()) };
                let mut tiles = Vec::new();
                let mut keep = None;
                for access in &group {
                    match tile_access(access) {
                        Ok(found) => tiles.push(found),
                        Err(why) => {
                            keep = Some(why);
                            break;
                        }
                    }
                }
                // Without a view, the remarks go to the tile's layout op.
                let at = match tiles.first() {
                    Some(tile) if keep.is_none() && first.cast_view.is_none() => tile.layout_op.location(),
                    _ => at,
                };
                if keep.is_none() && !tiles.windows(2).all(|w| w[0].layout_op == w[1].layout_op) {
                    keep = Some("its accesses use different layouts".into());
                }
                if keep.is_none() && !is_attribution {
                    keep = Some("it is not a workgroup attribution of the gpu.launch".into());
                }
                if keep.is_none() {
                    if let Some(Via::Apply(apply)) = tiles.iter().map(|t| t.via).find(|via| matches!(via, Via::Apply(op) if !apply_only_indexes(*op, &group))) {
                        keep = Some(format!(
                            "the lego.apply at {} is used by more than this buffer's accesses",
                            am::location_text(apply.location())
                        ));
                    }
                }
                if let Some(why) = keep {
                    diagnostics::remark(at, &format!("lego-choose-smem-layout: this shared buffer keeps its layout: {why}"));
                    continue;
                }
                let (layout_op, rows, cols) = (tiles[0].layout_op, tiles[0].rows, tiles[0].cols);
                let element_type = am::memref_element(&first.buffer).unwrap_or_else(|| "f32".into());
                let mut indices = Vec::new();
                let mut active = Vec::new();
                let mut failure = None;
                for (tile, access) in tiles.iter().zip(&group) {
                    let terms: Result<Vec<Term>, String> =
                        tile.indices.iter().map(|value| model.encoder.encode(*value).map_err(|e| e.message)).collect();
                    match terms {
                        Ok(terms) => indices.push((terms[0].clone(), terms[1].clone())),
                        Err(why) => failure = Some(why),
                    }
                    match model.active(access) {
                        Ok(guard) => active.push(guard),
                        Err(why) => failure = Some(why),
                    }
                }
                let facts = match (failure, model.facts()) {
                    (None, Ok(facts)) => facts,
                    (Some(why), _) | (None, Err(why)) => {
                        diagnostics::warning(at, &format!("lego-choose-smem-layout: cannot analyze this buffer's accesses: {why}"));
                        continue;
                    }
                };
                // Vector accesses: each must sit inside one row at a column that is a multiple of its width, so that
                // the candidates kept by keeps_vectors leave it one contiguous access.
                let mut vectors: Vec<u64> = group.iter().map(|access| access.elements).filter(|n| *n > 1).collect();
                vectors.sort_unstable();
                vectors.dedup();
                let mut split = None;
                for ((access, (_, j)), guard) in group.iter().zip(&indices).zip(&active) {
                    if access.elements > 1 {
                        // Only where the access runs (its scf.if guards).
                        let mut when = facts.clone();
                        when.push(guard.clone());
                        if let Err(why) = prove_vector_in_row(&options, j, access.elements, cols, &when) {
                            split = Some(format!("its vector access at {} may leave its row: {why}", am::location_text(access.op.location())));
                            break;
                        }
                    }
                }
                if let Some(why) = split {
                    diagnostics::remark(at, &format!("lego-choose-smem-layout: this shared buffer keeps its layout: {why}"));
                    continue;
                }
                let buffer = Buffer {
                    value: first.buffer,
                    layout_op,
                    rows,
                    cols,
                    element_bytes: first.element_bytes,
                    element_type,
                    accesses: group.clone(),
                    vias: tiles.iter().map(|t| t.via).collect(),
                    indices,
                    vectors: vectors.clone(),
                    active,
                };
                let choice = match self.choose(&options, &model, &buffer, &facts) {
                    Ok(choice) => choice,
                    Err(why) => {
                        diagnostics::warning(at, &format!("lego-choose-smem-layout: cannot analyze this buffer's accesses: {why}"));
                        continue;
                    }
                };
                let proof = prove_bijective(&options, choice.candidate, rows, cols);
                if let Err(why) = &proof {
                    diagnostics::warning(at, &format!("lego-choose-smem-layout: the chosen layout could not be proved bijective ({why}); kept the original"));
                    continue;
                }
                let what = choice.candidate.describe(cols, buffer.element_bytes);
                let extra = choice.candidate.extra_elements(rows) * buffer.element_bytes;
                let proved = match &choice.unproved {
                    None => "degree proved over all blocks, warps and loop iterations (Z3)".to_string(),
                    Some(why) => format!("degree at least this, upper bound unproved: {why}"),
                };
                let rejected = if choice.rejected == 0 {
                    String::new()
                } else {
                    let widest = vectors.last().copied().unwrap_or(1);
                    format!(
                        " ({} more rejected: they would split or misalign a vector access of {widest} elements: XOR swizzles with 2^M < {widest}, \
                         paddings not a multiple of {widest} elements)",
                        choice.rejected
                    )
                };
                let message = format!(
                    "lego-choose-smem-layout: {rows}×{cols} {} tile, {} accesses: chose {what}: {} (was {}), {extra} extra bytes, {} extra index ops; \
                     {} candidates (original, paddings, XOR swizzles{}) ranked by degree, then extra memory, then index ops{rejected}; \
                     bijective (Z3); {proved}",
                    buffer.element_type,
                    group.len(),
                    degree_words(choice.degree),
                    degree_words(choice.original_degree),
                    choice.candidate.extra_ops(),
                    choice.considered,
                    if choice.with_pairs { ", pairs of XOR swizzles" } else { "" },
                );
                diagnostics::remark(at, &message);
                rows_json.push(format!(
                    "{{\"location\":\"{}\",\"rows\":{rows},\"cols\":{cols},\"element_bytes\":{},\"accesses\":{},\"chosen\":\"{}\",\"degree\":{},\"original_degree\":{},\"extra_bytes\":{extra},{}\"candidates\":{},\"milliseconds\":{}}}",
                    am::location_text(at),
                    buffer.element_bytes,
                    group.len(),
                    what.replace('"', "'"),
                    choice.degree,
                    choice.original_degree,
                    // Only where vector accesses rejected candidates: the published form of the others stays.
                    if choice.rejected == 0 { String::new() } else { format!("\"rejected\":{},", choice.rejected) },
                    choice.considered,
                    start.elapsed().as_millis()
                ));
                if choice.candidate != Candidate::Pad(0) {
                    // The emitted ops are proved to compute the candidate whose degree and bijectivity were proved.
                    let emitted = rewrite(&buffer, choice.candidate, at)
                        .and_then(|layout| prove_emitted(&options, &mut model, layout, choice.candidate, rows, cols, at));
                    if let Err(why) = emitted {
                        diagnostics::error(at, &format!("lego-choose-smem-layout: rewrite failed: {why}"));
                        return Err(PassFailure(why));
                    }
                }
            }
        }
        lego_smt::join_background();
        if self.json {
            eprintln!("{{\"lego-choose-smem-layout\":[{}]}}", rows_json.join(","));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_bijective_natively() {
        // Every candidate maps the 32×32 tile one-to-one into its buffer.
        for candidate in candidates(32, 32, 4, 4) {
            let pitch = candidate.pitch(32);
            let mut seen = std::collections::HashSet::new();
            for i in 0..32 {
                for j in 0..32 {
                    let f = candidate.offset(32, i, j);
                    assert!(f < 32 * pitch);
                    assert!(seen.insert(f), "{candidate:?}");
                }
            }
        }
    }

    #[test]
    fn keeps_vectors_is_exactly_the_candidates_that_keep_chunks_whole() {
        // Brute force over a 32×64 tile (2-byte elements: paddings of 2, 4, …, 16; pairs of swizzles): a candidate keeps vector
        // accesses of n elements iff every chunk (i, j … j + n − 1), j a multiple of n, lands on n consecutive
        // offsets starting at one ≡ the original's modulo n.
        for n in [2u64, 4, 8] {
            for candidate in candidates(32, 64, 2, 8).into_iter().chain(pair_candidates(32, 64, 2, 32)) {
                let whole = (0..32).all(|i| {
                    (0..64).step_by(n as usize).all(|j| {
                        let start = candidate.offset(64, i, j);
                        start % n == (i * 64 + j) % n && (1..n).all(|k| candidate.offset(64, i, j + k) == start + k)
                    })
                });
                assert_eq!(keeps_vectors(candidate, 64, n), whole, "{candidate:?}, n = {n}");
            }
        }
    }

    #[test]
    fn pairs_are_bijective_natively_and_commute() {
        // Every pair of the fp16 64×64 tile maps it one-to-one, and applying the two swizzles in either order gives
        // the same map (disjoint targets, neither reading the other's target).
        let pairs = pair_candidates(64, 64, 2, 32);
        assert!(!pairs.is_empty());
        for candidate in pairs.iter().step_by(7) {
            let Candidate::TwoSwizzles { low: (b0, m0, s0), high: (b1, m1, s1) } = *candidate else { panic!("{candidate:?}") };
            let mut seen = std::collections::HashSet::new();
            for f in 0..4096u64 {
                let (i, j) = (f / 64, f % 64);
                let g = candidate.offset(64, i, j);
                assert_eq!(g, swizzle(swizzle(f, b1, m1, s1), b0, m0, s0), "{candidate:?}");
                assert!(g < 4096 && seen.insert(g), "{candidate:?}");
            }
        }
    }

    #[test]
    fn bank_bits_of_the_flat_index() {
        assert_eq!(bank_bits(4, 32), (0, 5));
        assert_eq!(bank_bits(2, 32), (1, 6));
        assert_eq!(bank_bits(1, 32), (2, 7));
        assert_eq!(bank_bits(8, 32), (0, 4));
    }

    #[test]
    fn fast_degree_is_memcost() {
        // Pseudo-random requests (a fixed LCG: deterministic) with inactive lanes, every access width.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            state >> 33
        };
        let mut pairs = Vec::new();
        for round in 0..2000 {
            let bytes = [1u64, 2, 4, 8, 16][round % 5];
            let spread = [64u64, 512, 4096][round % 3];
            let lanes: Vec<Option<u64>> =
                (0..32).map(|_| if next() % 5 == 0 { None } else { Some((next() % spread) / bytes * bytes) }).collect();
            let per_phase = memcost::lanes_per_phase(bytes).unwrap();
            let expected = memcost::bank_conflict_degree_of_lanes(&lanes, bytes, 32).unwrap().degree;
            assert_eq!(fast_degree(&lanes, bytes, 32, per_phase, &mut pairs), expected, "{lanes:?} {bytes}");
        }
    }

    #[test]
    fn fp32_transpose_swizzle_is_conflict_free() {
        // Column j of the 32×32 tile under Swizzle<5, 0, 5>: word 32·i + (j ^ i), bank j ^ i: all distinct.
        let s = Candidate::Swizzle { b: 5, m: 0, s: 5 };
        let column: Vec<u64> = (0..32).map(|i| s.offset(32, i, 7) * 4).collect();
        assert_eq!(memcost::bank_conflict_degree(&column, 4, 32).unwrap().degree, 1);
        let plain: Vec<u64> = (0..32).map(|i| Candidate::Pad(0).offset(32, i, 7) * 4).collect();
        assert_eq!(memcost::bank_conflict_degree(&plain, 4, 32).unwrap().degree, 32);
    }
}
