//! `convert-lego-to-linalg` (docs/passes/convert-lego-to-linalg.md): raises the trivially affine loops of
//! lowered code — `for i in [0, N): out[i] = f(A[i], B[i], …)` with N a constant multiple of 64 — to one
//! `linalg.generic` each, so that upstream's structured transforms can tile and vectorize them; with
//! `vectorize=true` each raised op is tiled by 64 and vectorized with upstream's `linalg` vectorizer (through
//! the transform dialect's interpreter). Every other loop stays an `scf.for` for `lego-vectorize`.

use crate::external::{LegoPass, PassFailure, PassId};
use crate::registry::{OptionSpec, Options, RegistryError};
use crate::simplify::ir;
use crate::vectorize::build::{Builder, Place};
use melior::ir::{operation::OperationLike, Location, Module, OperationRef};
use mlir_sys::{
    mlirBlockGetArgument, mlirOperationClone, mlirOperationRemoveAttributeByName,
    mlirOperationSetOperand, mlirShapedTypeGetDimSize,
    mlirShapedTypeGetElementType, mlirShapedTypeGetRank, mlirShapedTypeHasStaticShape, mlirTypeIsAFloat,
    mlirTypeIsAInteger, mlirTypeIsAMemRef, MlirOperation, MlirType, MlirValue,
};
use std::collections::HashMap;

static ID: PassId = PassId::new();

pub const OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "vectorize",
    default: "false",
    description: "Tile each raised linalg.generic by 64 and vectorize it with upstream linalg vectorization (vector size 64)",
}];

/// The tile (and vector) size of the published pass, for every element type.
const TILE: i64 = 64;

/// Marks the ops this run raised, so the transform script touches no other `linalg.generic`.
const RAISED: &str = "lego.linalg_raised";

/// Tile by 64, vectorize the tile (the transform dialect's spelling of `tileLinalgOp` + `linalg::vectorize`).
const SCRIPT: &str = r#"module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %raised = transform.structured.match ops{["linalg.generic"]} attributes {lego.linalg_raised} in %root : (!transform.any_op) -> !transform.any_op
    %tile, %loop = transform.structured.tile_using_for %raised tile_sizes [64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.structured.vectorize %tile vector_sizes [64] : !transform.any_op
    transform.yield
  }
}"#;

#[derive(Clone)]
pub struct ToLinalg {
    vectorize: bool,
}

pub fn create(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    Ok(crate::external::into_mlir_pass(ToLinalg { vectorize: options.bool("vectorize")? }, &ID))
}

impl LegoPass for ToLinalg {
    fn name(&self) -> &'static str {
        "convert-lego-to-linalg"
    }

    fn description(&self) -> &'static str {
        "Raise trivially affine scf.for loops (identity-indexed, trip count a constant multiple of 64) to linalg.generic; vectorize=true tiles by 64 and vectorizes them upstream"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let _span = tracing::debug_span!(target: "lego", "convert-lego-to-linalg", vectorize = self.vectorize).entered();
        let mut loops = Vec::new();
        ir::walk(root.to_raw(), &mut |op| {
            if ir::op_name(op) == "scf.for" {
                loops.push(op);
            }
        });
        let mut raised = 0;
        for op in loops {
            if let Some(m) = match_loop(op) {
                raise(op, &m, self.vectorize);
                raised += 1;
            }
        }
        tracing::debug!(target: "lego", "raised {raised} loop(s)");
        if self.vectorize && raised > 0 {
            vectorize(root)?;
        }
        Ok(())
    }

    fn may_leave_lego_ops(&self) -> bool {
        false
    }
}

struct Raise {
    /// Distinct loaded memrefs, in the order of their first load.
    inputs: Vec<MlirValue>,
    /// The stored memref and value.
    output: MlirValue,
    stored: MlirValue,
    /// The ops computing the stored value from the loads, in body order.
    cone: Vec<MlirOperation>,
    /// Each load's result → the position of its memref in `inputs`.
    loads: HashMap<ir::Key, usize>,
    trip: i64,
}

/// A rank-1 memref of int or float elements, with at least `trip` elements when its size is static.
fn plain_memref(memref: MlirValue, trip: i64) -> bool {
    let r#type = ir::value_type(memref);
    // SAFETY: type queries on a live type, in the order their preconditions need.
    unsafe {
        if !mlirTypeIsAMemRef(r#type) || mlirShapedTypeGetRank(r#type) != 1 {
            return false;
        }
        let element = mlirShapedTypeGetElementType(r#type);
        if !(mlirTypeIsAFloat(element) || mlirTypeIsAInteger(element)) {
            return false;
        }
        if mlir_sys::mlirMemRefTypeGetLayout(r#type).ptr.is_null() {
            return false;
        }
        // An identity layout only: the subview of [0, N) is then `strided<[1]>`.
        if !mlir_sys::mlirAffineMapIsIdentity(mlir_sys::mlirMemRefTypeGetAffineMap(r#type)) {
            return false;
        }
        !mlirShapedTypeHasStaticShape(r#type) || mlirShapedTypeGetDimSize(r#type, 0) >= trip
    }
}

/// The allocation or argument a memref view is taken from (casts, subviews and views stripped).
fn root(mut memref: MlirValue) -> ir::Key {
    // Bounded: each step goes to an operand of a defining op, so a chain of views ends; 64 is far beyond any
    // real one (an unknown answer keeps the view itself, which only makes the alias test stricter).
    for _ in 0..64 {
        match ir::defining_op(memref) {
            Some(op) if matches!(ir::op_name(op), "memref.cast" | "memref.subview" | "memref.reinterpret_cast" | "memref.view") => {
                match ir::operand(op, 0) {
                    Some(source) => memref = source,
                    None => break,
                }
            }
            _ => break,
        }
    }
    ir::key(memref)
}

fn match_loop(op: MlirOperation) -> Option<Raise> {
    // No iter_args; lower bound 0, step 1, a constant trip count that is a positive multiple of 64.
    if ir::operand_count(op) != 3 || ir::result_count(op) != 0 {
        return None;
    }
    if ir::constant_value(ir::operand(op, 0)?) != Some(0) || ir::constant_value(ir::operand(op, 2)?) != Some(1) {
        return None;
    }
    let trip = i64::try_from(ir::constant_value(ir::operand(op, 1)?)?).ok()?;
    if trip < TILE || trip % TILE != 0 {
        return None;
    }
    let body = *ir::region_blocks(op).first()?.first()?;
    // SAFETY: an scf.for body's first argument is the IV.
    let iv = unsafe { mlirBlockGetArgument(body, 0) };
    let ops: Vec<MlirOperation> = ir::block_ops(body).collect();
    let mut inputs: Vec<MlirValue> = Vec::new();
    let mut loads = HashMap::new();
    let mut store = None;
    let mut computed = Vec::new();
    for &inner in &ops[..ops.len().checked_sub(1)?] {
        let name = ir::op_name(inner);
        match name {
            "memref.load" | "memref.store" => {
                // One index, exactly the IV.
                let operands = ir::operands(inner);
                let (memref, index) = if name == "memref.load" { (operands.first()?, operands.get(1)?) } else { (operands.get(1)?, operands.get(2)?) };
                if operands.len() != if name == "memref.load" { 2 } else { 3 } || ir::key(*index) != ir::key(iv) {
                    return None;
                }
                if !plain_memref(*memref, trip) {
                    return None;
                }
                if name == "memref.store" {
                    if store.is_some() {
                        return None;
                    }
                    store = Some(inner);
                } else {
                    let position = match inputs.iter().position(|m| ir::key(*m) == ir::key(*memref)) {
                        Some(position) => position,
                        None => {
                            inputs.push(*memref);
                            inputs.len() - 1
                        }
                    };
                    loads.insert(ir::key(ir::result(inner, 0)?), position);
                }
            }
            _ => {
                // Element-wise arithmetic only: no regions, no other side effects, no use of the IV itself.
                let dialect = name.split('.').next().unwrap_or("");
                if !(dialect == "arith" || dialect == "math") || !ir::region_blocks(inner).is_empty() {
                    return None;
                }
                if ir::operands(inner).iter().any(|v| ir::key(*v) == ir::key(iv)) {
                    return None;
                }
                computed.push(inner);
            }
        }
    }
    let store = store?;
    let output = ir::operand(store, 1)?;
    let stored = ir::operand(store, 0)?;
    // Element-wise only if no other view of the output's buffer is read: out[i] = A[i − 1] through a subview
    // would be a recurrence.
    let output_root = root(output);
    if inputs.iter().any(|m| ir::key(*m) != ir::key(output) && root(*m) == output_root) {
        return None;
    }
    // The backward cone of the stored value within the body.
    let mut needed: std::collections::HashSet<ir::Key> = std::collections::HashSet::new();
    needed.insert(ir::key(stored));
    let mut cone = Vec::new();
    for &inner in computed.iter().rev() {
        let results: Vec<MlirValue> = (0..ir::result_count(inner)).filter_map(|i| ir::result(inner, i)).collect();
        if results.iter().any(|r| needed.contains(&ir::key(*r))) {
            for operand in ir::operands(inner) {
                needed.insert(ir::key(operand));
            }
            cone.push(inner);
        }
    }
    cone.reverse();
    Some(Raise { inputs, output, stored, cone, loads, trip })
}

/// `memref` itself if it has exactly `trip` elements, else its subview `[0, trip)`.
fn window(builder: &mut Builder, memref: MlirValue, trip: i64) -> MlirValue {
    let r#type = ir::value_type(memref);
    // SAFETY: a rank-1 memref (checked by the matcher).
    if unsafe { mlirShapedTypeHasStaticShape(r#type) && mlirShapedTypeGetDimSize(r#type, 0) == trip } {
        return memref;
    }
    // SAFETY: type construction from a live element type and memory space.
    let view = unsafe {
        let element = mlirShapedTypeGetElementType(r#type);
        let layout = builder.attribute("strided<[1]>");
        let space = mlir_sys::mlirMemRefTypeGetMemorySpace(r#type);
        mlir_sys::mlirMemRefTypeGet(element, 1, [trip].as_ptr(), layout, space)
    };
    let offsets = builder.attribute("array<i64: 0>");
    let sizes = builder.attribute(&format!("array<i64: {trip}>"));
    let strides = builder.attribute("array<i64: 1>");
    let segments = builder.attribute("array<i32: 1, 0, 0, 0>");
    builder.value(
        "memref.subview",
        &[memref],
        view,
        &[("static_offsets", offsets), ("static_sizes", sizes), ("static_strides", strides), ("operandSegmentSizes", segments)],
    )
}

fn element(memref: MlirValue) -> MlirType {
    // SAFETY: a memref (checked by the matcher).
    unsafe { mlirShapedTypeGetElementType(ir::value_type(memref)) }
}

fn raise(for_op: MlirOperation, m: &Raise, mark: bool) {
    let mut pre = Builder::before(for_op);
    let inputs: Vec<MlirValue> = m.inputs.iter().map(|memref| window(&mut pre, *memref, m.trip)).collect();
    // The output read as an input too (y[i] = … y[i] …) shares its view.
    let output = match m.inputs.iter().position(|memref| ir::key(*memref) == ir::key(m.output)) {
        Some(position) => inputs[position],
        None => window(&mut pre, m.output, m.trip),
    };
    let mut types: Vec<MlirType> = m.inputs.iter().map(|memref| element(*memref)).collect();
    types.push(element(m.output));
    let (region, block) = pre.region_with_block(&types);
    // Loads become the block arguments of their memrefs; the cone is cloned with its operands mapped.
    let mut map: HashMap<ir::Key, MlirValue> = HashMap::new();
    for (load, position) in &m.loads {
        // SAFETY: one block argument per input.
        map.insert(*load, unsafe { mlirBlockGetArgument(block, *position as isize) });
    }
    let mut body = Builder { context: pre.context, location: pre.location, place: Place::End(block), created: Vec::new() };
    for &op in &m.cone {
        // SAFETY: a detached copy, operands replaced by their mapped values (same types), then inserted.
        let clone = unsafe { mlirOperationClone(op) };
        for (index, operand) in ir::operands(op).iter().enumerate() {
            if let Some(mapped) = map.get(&ir::key(*operand)) {
                unsafe { mlirOperationSetOperand(clone, index as isize, *mapped) };
            }
        }
        body.insert(clone);
        for index in 0..ir::result_count(op) {
            if let (Some(from), Some(to)) = (ir::result(op, index), ir::result(clone, index)) {
                map.insert(ir::key(from), to);
            }
        }
    }
    let yielded = map.get(&ir::key(m.stored)).copied().unwrap_or(m.stored);
    body.op("linalg.yield", &[yielded], &[], &[], &[]);
    let identity = vec!["affine_map<(d0) -> (d0)>"; inputs.len() + 1].join(", ");
    let maps = pre.attribute(&format!("[{identity}]"));
    let iterators = pre.attribute("[#linalg.iterator_type<parallel>]");
    let segments = pre.attribute(&format!("array<i32: {}, 1>", inputs.len()));
    let mut attributes = vec![("indexing_maps", maps), ("iterator_types", iterators), ("operandSegmentSizes", segments)];
    if mark {
        attributes.push((RAISED, pre.attribute("unit")));
    }
    let mut operands = inputs;
    operands.push(output);
    pre.op("linalg.generic", &operands, &[], &attributes, &[region]);
    ir::erase(for_op);
}

/// Tiles and vectorizes the ops `raise` marked, with the transform script, then drops the marks it left.
fn vectorize(root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
    let context = crate::mlir_context::ContextHandle::of(&root);
    let location = root.location();
    let Some(script) = Module::parse(context.get(), SCRIPT) else {
        emit(location, "convert-lego-to-linalg: the tile-and-vectorize transform script does not parse (is the transform dialect registered?)");
        return Err(PassFailure("transform script".into()));
    };
    let script_op = script.as_operation().to_raw();
    let Some(sequence) = ir::child_ops(script_op).into_iter().find(|op| ir::op_name(*op) == "transform.named_sequence") else {
        return Err(PassFailure("no named sequence".into()));
    };
    // SAFETY: live payload, script ops and options; the options are destroyed after the call.
    let applied = unsafe {
        let options = mlir_sys::mlirTransformOptionsCreate();
        let result = mlir_sys::mlirTransformApplyNamedSequence(root.to_raw(), sequence, script_op, options);
        mlir_sys::mlirTransformOptionsDestroy(options);
        result.value != 0
    };
    if !applied {
        emit(location, "convert-lego-to-linalg: tiling and vectorizing the raised linalg.generic ops failed");
        return Err(PassFailure("transform interpreter".into()));
    }
    ir::walk(root.to_raw(), &mut |op| {
        if ir::attribute(op, RAISED).is_some() {
            // SAFETY: live op; the name is copied.
            unsafe {
                mlirOperationRemoveAttributeByName(op, mlir_sys::MlirStringRef { data: RAISED.as_ptr() as *const _, length: RAISED.len() });
            }
        }
    });
    Ok(())
}

fn emit(location: Location, message: &str) {
    crate::diagnostics::error(location, message);
}
