//! What `lego-vectorize` decides about one `scf.for` before touching it (docs/passes/lego-vectorize.md):
//! whether its body is made of ops it can widen, how each memory access moves with the induction variable
//! (unit stride, constant stride, broadcast, anything else), which iteration-carried values are reductions,
//! how far apart two accesses to one buffer are in iterations, and from that the number of lanes.
//!
//! Strides are read from the index arithmetic that `lego-lower` left, after our simplifier: a tiled or blocked
//! layout whose div/mod the simplifier removed is a plain `tile·T + i` here, so it is a unit access.

use super::affine::{Affine, AffineCache};
use crate::simplify::ir::{self, HashSet, Key};
use mlir_sys::{
    mlirAffineMapIsIdentity, mlirFloatTypeGetWidth, mlirMemRefTypeGetAffineMap, mlirShapedTypeGetElementType,
    mlirShapedTypeGetRank, mlirTypeIsAFloat, mlirTypeIsAIndex, mlirTypeIsAInteger, mlirTypeIsAMemRef, mlirTypeIsAVector,
    MlirBlock, MlirOperation, MlirType, MlirValue,
};

/// A `target` of `lego-vectorize`: how many bytes one vector register holds, and whether registers are scalable
/// (SVE: `vscale` × 16 bytes, decided by the hardware at run time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub name: &'static str,
    pub register_bytes: u32,
    pub scalable: bool,
}

pub const TARGETS: [Target; 4] = [
    Target { name: "avx512", register_bytes: 64, scalable: false },
    Target { name: "avx2", register_bytes: 32, scalable: false },
    Target { name: "neon", register_bytes: 16, scalable: false },
    Target { name: "sve", register_bytes: 16, scalable: true },
];

pub fn target(name: &str) -> Option<Target> {
    TARGETS.iter().copied().find(|target| target.name == name)
}

/// How an access's address moves from one iteration to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The same address in every iteration.
    Broadcast,
    /// The next element.
    Unit,
    /// A constant number of elements (not 0 or 1): a gather or scatter with a computed index vector.
    Strided(i64),
    /// Anything else (bit interleavings, swizzles, indirections): a gather or scatter.
    Gather,
}

impl Kind {
    pub fn describe(self) -> String {
        match self {
            Kind::Broadcast => "broadcast".into(),
            Kind::Unit => "unit".into(),
            Kind::Strided(stride) => format!("stride {stride}"),
            Kind::Gather => "non-affine".into(),
        }
    }
}

/// One `memref.load` / `memref.store` of the loop body.
#[derive(Clone)]
pub struct Access {
    pub op: MlirOperation,
    pub store: bool,
    /// The memref operand, with `memref.cast`s looked through (same coordinates).
    pub memref: MlirValue,
    /// The allocation or argument it is a view of (for aliasing).
    pub root: Key,
    pub index: MlirValue,
    pub kind: Kind,
    pub affine: Option<Affine>,
    /// Position in the body (walk order): which access runs first in one iteration.
    pub position: usize,
    /// Under an `scf.if` (a masked store).
    pub guarded: bool,
}

/// An iteration-carried value that is an associative reduction.
#[derive(Clone, Copy)]
pub struct Reduction {
    /// Index among the loop's iter_args.
    pub arg: usize,
    /// The `arith` op that combines the carried value with the iteration's contribution.
    pub combine: MlirOperation,
    /// The `vector.reduction` kind.
    pub kind: &'static str,
}

/// The decision to vectorize a loop.
pub struct Plan {
    pub lanes: u32,
    pub scalable: bool,
    pub accesses: Vec<Access>,
    pub reductions: Vec<Reduction>,
    /// Values of the body that differ between iterations (the rest is computed once per vector iteration).
    pub varying: HashSet<Key>,
    pub step: Option<i64>,
}

/// What became of a loop.
pub enum Verdict {
    /// No memory access: not a candidate (no remark).
    NotCandidate,
    Vectorize(Plan),
    /// Stays scalar, because of this.
    Scalar(String),
}

/// The parts of an `scf.for`.
pub struct ForLoop {
    pub op: MlirOperation,
    pub body: MlirBlock,
    pub iv: MlirValue,
    pub lower: MlirValue,
    pub upper: MlirValue,
    pub step: MlirValue,
}

impl ForLoop {
    pub fn new(op: MlirOperation) -> Option<ForLoop> {
        let body = *ir::region_blocks(op).first()?.first()?;
        // SAFETY: `body` is the loop's live entry block.
        let iv = unsafe { mlir_sys::mlirBlockGetArgument(body, 0) };
        if iv.ptr.is_null() {
            return None;
        }
        Some(ForLoop { op, body, iv, lower: ir::operand(op, 0)?, upper: ir::operand(op, 1)?, step: ir::operand(op, 2)? })
    }

    pub fn iter_arg(&self, index: usize) -> Option<MlirValue> {
        // SAFETY: the body block is live; the index is checked against its argument count.
        unsafe {
            if index + 1 >= mlir_sys::mlirBlockGetNumArguments(self.body) as usize {
                return None;
            }
            Some(mlir_sys::mlirBlockGetArgument(self.body, (index + 1) as isize))
        }
    }

    pub fn iter_arg_count(&self) -> usize {
        ir::operand_count(self.op).saturating_sub(3)
    }

    pub fn ops(&self) -> Vec<MlirOperation> {
        ir::block_ops(self.body).collect()
    }
}

fn signed_constant(value: MlirValue) -> Option<i64> {
    let op = ir::defining_op(value)?;
    (ir::op_name(op) == "arith.constant").then(|| ir::integer_attribute(op, "value")).flatten()
}

/// Bytes of a scalar element type (int, float, index), or None.
pub fn scalar_bytes(r#type: MlirType) -> Option<u32> {
    // SAFETY: type queries on a live type.
    unsafe {
        if mlirTypeIsAIndex(r#type) {
            Some(8)
        } else if mlirTypeIsAInteger(r#type) {
            Some(mlir_sys::mlirIntegerTypeGetWidth(r#type).div_ceil(8).max(1))
        } else if mlirTypeIsAFloat(r#type) {
            Some(mlirFloatTypeGetWidth(r#type).div_ceil(8).max(1))
        } else {
            None
        }
    }
}

fn is_scalar(r#type: MlirType) -> bool {
    scalar_bytes(r#type).is_some()
}

/// The element type of a rank-1 memref with the identity layout (what vector.load and gathers address).
fn plain_memref_element(memref: MlirValue) -> Option<MlirType> {
    let r#type = ir::value_type(memref);
    // SAFETY: type queries on a live type.
    unsafe {
        if !mlirTypeIsAMemRef(r#type) || mlirShapedTypeGetRank(r#type) != 1 {
            return None;
        }
        if !mlirAffineMapIsIdentity(mlirMemRefTypeGetAffineMap(r#type)) {
            return None;
        }
        let element = mlirShapedTypeGetElementType(r#type);
        is_scalar(element).then_some(element)
    }
}

/// `memref.cast` keeps coordinates: look through it. Other views change them: their source is the root.
fn strip_casts(mut memref: MlirValue) -> MlirValue {
    for _ in 0..64 {
        match ir::defining_op(memref) {
            Some(op) if ir::op_name(op) == "memref.cast" => match ir::operand(op, 0) {
                Some(source) => memref = source,
                None => break,
            },
            _ => break,
        }
    }
    memref
}

fn root_of(memref: MlirValue) -> Key {
    let mut value = memref;
    for _ in 0..64 {
        match ir::defining_op(value) {
            Some(op)
                if matches!(
                    ir::op_name(op),
                    "memref.cast" | "memref.subview" | "memref.reinterpret_cast" | "memref.view" | "memref.expand_shape" | "memref.collapse_shape"
                ) =>
            {
                match ir::operand(op, 0) {
                    Some(source) => value = source,
                    None => break,
                }
            }
            _ => break,
        }
    }
    ir::key(value)
}

/// The reduction kind of a combining op and whether it is one.
fn reduction_kind(op: MlirOperation) -> Option<&'static str> {
    Some(match ir::op_name(op) {
        "arith.addf" | "arith.addi" => "add",
        "arith.mulf" | "arith.muli" => "mul",
        "arith.andi" => "and",
        "arith.ori" => "or",
        "arith.xori" => "xor",
        "arith.maxsi" => "maxsi",
        "arith.minsi" => "minsi",
        "arith.maxui" => "maxui",
        "arith.minui" => "minui",
        "arith.maximumf" => "maximumf",
        "arith.minimumf" => "minimumf",
        _ => return None,
    })
}

/// Decides about `for_loop` for `target`.
pub fn analyze(for_loop: &ForLoop, target: Target) -> Verdict {
    let ops = for_loop.ops();
    // Candidates hold a memory access (nested regions included).
    let mut has_access = false;
    ir::walk(for_loop.op, &mut |op| has_access |= matches!(ir::op_name(op), "memref.load" | "memref.store"));
    if !has_access {
        return Verdict::NotCandidate;
    }
    match plan(for_loop, target, &ops) {
        Ok(plan) => Verdict::Vectorize(plan),
        Err(reason) => Verdict::Scalar(reason),
    }
}

fn plan(for_loop: &ForLoop, target: Target, ops: &[MlirOperation]) -> Result<Plan, String> {
    let body_key = ir::block_key(for_loop.body);
    let defined_inside = |value: MlirValue| ir::defining_block(value).is_some_and(|block| ir::block_key(block) == body_key);

    // Reductions first: each iter_arg must be one (exactly one use, by an associative op whose result is
    // used only by the yield at the same position).
    let yield_op = *ops.last().ok_or("empty loop body")?;
    if ir::op_name(yield_op) != "scf.yield" {
        return Err("loop body does not end in scf.yield".into());
    }
    let mut reductions = Vec::new();
    for arg in 0..for_loop.iter_arg_count() {
        let carried = for_loop.iter_arg(arg).ok_or("missing iter_arg")?;
        let yielded = ir::operand(yield_op, arg).ok_or("missing yielded value")?;
        let combine = ir::defining_op(yielded).filter(|op| defined_inside(ir::result(*op, 0).unwrap_or(yielded)));
        let Some(combine) = combine else {
            return Err(format!("iter_arg #{arg} is not a reduction (the yielded value is not computed in the body)"));
        };
        let kind = reduction_kind(combine)
            .ok_or_else(|| format!("iter_arg #{arg} is not an associative reduction ('{}')", ir::op_name(combine)))?;
        let uses_carried = ir::operands(combine).iter().filter(|v| ir::key(**v) == ir::key(carried)).count();
        if uses_carried != 1 || ir::users(carried).len() != 1 || ir::users(yielded).len() != 1 {
            return Err(format!(
                "iter_arg #{arg} is read or its running value used other than by one '{}' (a scan, not a reduction)",
                ir::op_name(combine)
            ));
        }
        if !is_scalar(ir::value_type(carried)) {
            return Err(format!("iter_arg #{arg} is not a scalar"));
        }
        reductions.push(Reduction { arg, combine, kind });
    }

    // Body legality and the varying values.
    let mut varying: HashSet<Key> = HashSet::default();
    varying.insert(ir::key(for_loop.iv));
    for reduction in &reductions {
        if let Some(carried) = for_loop.iter_arg(reduction.arg) {
            varying.insert(ir::key(carried));
        }
    }
    let mut memory_ops: Vec<(MlirOperation, bool)> = Vec::new();
    for &op in &ops[..ops.len() - 1] {
        let name = ir::op_name(op);
        match name {
            "memref.load" | "memref.store" => memory_ops.push((op, false)),
            "scf.if" => {
                if ir::result_count(op) != 0 {
                    return Err("body contains an scf.if with results".into());
                }
                let regions = ir::region_blocks(op);
                if regions.get(1).is_some_and(|blocks| blocks.iter().any(|b| ir::block_ops(*b).count() > 1)) {
                    return Err("body contains an scf.if with an else branch".into());
                }
                let then_ops: Vec<MlirOperation> = regions.first().into_iter().flatten().flat_map(|b| ir::block_ops(*b)).collect();
                for inner in then_ops {
                    match ir::op_name(inner) {
                        "memref.store" => memory_ops.push((inner, true)),
                        "scf.yield" => {}
                        other => return Err(format!("scf.if then-block holds '{other}' (only stores can be masked)")),
                    }
                }
            }
            _ if name.starts_with("arith.") => {}
            "scf.for" | "scf.while" | "scf.parallel" => return Err("body contains a nested loop (inner loops are vectorized instead)".into()),
            other => return Err(format!("body contains '{other}'")),
        }
        for value in ir::operands(op).into_iter().chain((0..ir::result_count(op)).filter_map(|i| ir::result(op, i))) {
            // SAFETY: type query on a live value's type.
            if unsafe { mlirTypeIsAVector(ir::value_type(value)) } {
                return Err("body already holds vector values".into());
            }
        }
        if ir::operands(op).iter().any(|v| varying.contains(&ir::key(*v))) {
            for index in 0..ir::result_count(op) {
                if let Some(result) = ir::result(op, index) {
                    varying.insert(ir::key(result));
                }
            }
        }
    }

    // Accesses.
    let step = signed_constant(for_loop.step).filter(|step| *step > 0);
    let mut cache = AffineCache::new(for_loop.iv);
    let mut accesses = Vec::new();
    let mut min_bytes = u32::MAX;
    for (position, (op, guarded)) in memory_ops.into_iter().enumerate() {
        let store = ir::op_name(op) == "memref.store";
        let (memref_operand, index_operand) = if store { (1, 2) } else { (0, 1) };
        if ir::operand_count(op) != index_operand + 1 {
            return Err(format!("'{}' is not a one-index access", ir::op_name(op)));
        }
        let memref = ir::operand(op, memref_operand).ok_or("access without memref")?;
        let index = ir::operand(op, index_operand).ok_or("access without index")?;
        let element = plain_memref_element(memref).ok_or_else(|| {
            format!("'{}' reads a memref that is not rank 1 with the identity layout", ir::op_name(op))
        })?;
        min_bytes = min_bytes.min(scalar_bytes(element).unwrap_or(8));
        let affine = cache.get(index);
        let kind = match (&affine, step) {
            _ if !varying.contains(&ir::key(index)) => Kind::Broadcast,
            (Some(affine), Some(step)) => match affine.coeff.checked_mul(step) {
                Some(0) => Kind::Broadcast,
                Some(1) => Kind::Unit,
                Some(stride) => Kind::Strided(stride),
                None => Kind::Gather,
            },
            _ => Kind::Gather,
        };
        if store && kind == Kind::Broadcast {
            return Err("a store writes the same address in every iteration (a reduction through memory)".into());
        }
        if !store && varying.contains(&ir::key(index)) {
            if let Some(result) = ir::result(op, 0) {
                varying.insert(ir::key(result));
            }
        }
        accesses.push(Access {
            op,
            store,
            memref: strip_casts(memref),
            root: root_of(memref),
            index,
            kind,
            affine,
            position,
            guarded,
        });
    }
    // Loads on a varying index make their users varying: propagate again in body order.
    for &op in &ops[..ops.len() - 1] {
        if ir::operands(op).iter().any(|v| varying.contains(&ir::key(*v))) {
            for index in 0..ir::result_count(op) {
                if let Some(result) = ir::result(op, index) {
                    varying.insert(ir::key(result));
                }
            }
        }
    }

    // Dependences between iterations (distinct roots are assumed not to alias, like `restrict` pointers).
    let mut max_lanes = u64::MAX;
    for store in accesses.iter().filter(|a| a.store) {
        for other in accesses.iter().filter(|a| a.root == store.root && a.op.ptr != store.op.ptr) {
            match dependence_limit(store, other, step) {
                Ok(Some(limit)) => max_lanes = max_lanes.min(limit),
                Ok(None) => {}
                Err(reason) => return Err(reason),
            }
        }
    }

    // Lanes: one register of the narrowest element, at most the dependence distance and the trip count.
    let register_lanes = (target.register_bytes / min_bytes.max(1)).max(1) as u64;
    let mut lanes = register_lanes.min(max_lanes);
    let mut scalable = target.scalable;
    if max_lanes != u64::MAX {
        // A dependence distance bounds the lanes: scalable registers (vscale × the minimum) could exceed it
        // even when the minimum does not (found by the differential test: distance 4, 4 × i32 lanes at
        // vscale 4 wrote a[i + 4] before reading it).
        scalable = false;
    }
    let trip = match (signed_constant(for_loop.lower), signed_constant(for_loop.upper), step) {
        (Some(lower), Some(upper), Some(step)) => Some(((upper - lower).max(0) + step - 1) / step),
        _ => None,
    };
    if let (Some(trip), false) = (trip, scalable) {
        lanes = lanes.min(trip.max(0) as u64);
    }
    // A power of two (register-friendly, and never above the limits found).
    let lanes = if lanes >= 2 { 1u64 << (63 - lanes.leading_zeros()) } else { lanes };
    if lanes < 2 {
        return Err(if max_lanes < 2 {
            "a store and another access to the same buffer are one iteration apart".into()
        } else {
            "the loop runs fewer than 2 iterations".into()
        });
    }

    // Cost: a loop made only of gathers and scatters gains nothing with few lanes (the published constants:
    // constant strides cost 5, other gathers 10 scalar accesses).
    let has_unit = accesses.iter().any(|a| a.kind == Kind::Unit);
    let penalty = accesses
        .iter()
        .map(|a| match a.kind {
            Kind::Strided(_) => 5.0,
            Kind::Gather => 10.0,
            _ => 0.0,
        })
        .fold(0.0f64, f64::max);
    if !has_unit && penalty > 0.0 && (lanes as f64) / penalty <= 1.0 {
        return Err(format!(
            "cost model: only gathers/scatters and {lanes} lanes (score {:.2} <= 1.0)",
            lanes as f64 / penalty
        ));
    }
    Ok(Plan { lanes: lanes as u32, scalable, accesses, reductions, varying, step })
}

/// The most lanes that keep the order of `store` and `other` (same root) as in the scalar loop: `None` for
/// no limit, an error when the distance between them is unknown.
fn dependence_limit(store: &Access, other: &Access, step: Option<i64>) -> Result<Option<u64>, String> {
    let unknown = || {
        Err(format!(
            "cannot prove the distance between a store ({}) and another access ({}) to the same buffer",
            store.kind.describe(),
            other.kind.describe()
        ))
    };
    if ir::key(store.memref) != ir::key(other.memref) {
        return unknown();
    }
    let (Some(a), Some(b)) = (&store.affine, &other.affine) else { return unknown() };
    if a.terms != b.terms || a.coeff != b.coeff {
        return unknown();
    }
    let Some(difference) = a.constant.checked_sub(b.constant) else { return unknown() };
    if difference == 0 {
        // The same address in the same iteration: each lane keeps the scalar order.
        return Ok(None);
    }
    let Some(per_iteration) = step.and_then(|step| a.coeff.checked_mul(step)) else { return unknown() };
    if per_iteration == 0 || difference % per_iteration != 0 {
        return Ok(None);
    }
    // `other` in iteration n + d touches what `store` touches in iteration n.
    let distance = difference / per_iteration;
    let other_first = other.position < store.position;
    if (distance > 0 && other_first) || (distance < 0 && !other_first) {
        Ok(Some(distance.unsigned_abs()))
    } else {
        Ok(None)
    }
}
