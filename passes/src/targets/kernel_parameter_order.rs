//! `lego-kernel-parameters-in-argument-order`: the step of every GPU pipeline right after `gpu-kernel-outlining`.
//!
//! Upstream outlining gives a kernel one parameter per value its launch body uses from above, in the order the
//! body *first uses* them (it collects them in walk order). The host's `gpu.launch_func` passes them in that
//! order too, so MLIR's own runtimes are consistent; but whoever launches the compiled kernel (the PTX entry,
//! the HSACO symbol, the SPIR-V entry point) by hand — CuPy, the CUDA driver, the `@gpu_kernel` DSL's callers —
//! passes the function's arguments in the order of the function's signature. A body that touched a later
//! buffer first (a view made before the loads, an output zeroed first) then read its input from the output's
//! slot: puzzle 33's tensor-core matmul was wrong at every size but one on the H100 for this reason.
//!
//! The pass gives each outlined kernel the parameters of the function its launch is in, in argument order:
//! every argument of the enclosing `func.func` (one it does not use is still a parameter, so that positions
//! match the signature; unused arguments of a type a kernel cannot take — not a memref, index, integer or
//! float — are left out), then the other values the body uses from above (values computed on the host), in
//! their first-use order. The kernel's entry block, its `function_type` and `arg_attrs`, and the launch's
//! operands and `operandSegmentSizes` change together, so the module means what it meant.
//!
//! A kernel launched from more than one place, or whose launch is not inside a `func.func`, is left as it is:
//! it has no one signature to follow. A launch whose kernel is not in this module (a `gpu.binary`) has
//! nothing to reorder.

use super::gpu_passes::{op_name, string_attribute};
use crate::external::{LegoPass, PassFailure};
use lego_dialect::{ops::walk_ops, verify::emit_error};
use melior::ir::{attribute::AttributeLike, block::BlockLike, operation::OperationLike, OperationRef, RegionLike};
use melior::StringRef;
use std::collections::HashMap;

/// `gpu.launch_func`'s operand segments (asyncDependencies, grid x/y/z, block x/y/z, cluster x/y/z, dynamic
/// shared memory, kernelOperands, asyncObject) and the index of the kernel's operands among them.
const LAUNCH_SEGMENTS: usize = 13;
const KERNEL_OPERANDS: usize = 11;

#[derive(Clone)]
pub(super) struct KernelParametersInArgumentOrder;

impl LegoPass for KernelParametersInArgumentOrder {
    fn name(&self) -> &'static str {
        "lego-kernel-parameters-in-argument-order"
    }

    fn description(&self) -> &'static str {
        "Give each outlined kernel the arguments of the function it is launched from, in argument order"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let mut kernels: HashMap<(String, String), OperationRef> = HashMap::new();
        let mut launches = Vec::new();
        walk_ops(root, &mut |op| match op_name(op).as_str() {
            "gpu.func" if op.has_attribute("gpu.kernel") => {
                let module = op.parent_operation().filter(|parent| op_name(*parent) == "gpu.module");
                if let (Some(module), Some(name)) = (module.and_then(|m| string_attribute(m, "sym_name")), string_attribute(op, "sym_name")) {
                    kernels.insert((module, name), op);
                }
            }
            "gpu.launch_func" => launches.push(op),
            _ => {}
        });
        let mut references: HashMap<(String, String), usize> = HashMap::new();
        for launch in &launches {
            if let Some(kernel) = kernel_reference(*launch) {
                *references.entry(kernel).or_default() += 1;
            }
        }
        for launch in launches {
            let Some(reference) = kernel_reference(launch) else { continue };
            if references.get(&reference) != Some(&1) {
                continue;
            }
            let (Some(kernel), Some(function)) = (kernels.get(&reference), enclosing_function(launch)) else {
                continue;
            };
            reorder(launch, *kernel, function, &reference)?;
        }
        Ok(())
    }
}

/// `(@module, @kernel)` of a launch's `kernel` symbol reference.
fn kernel_reference(launch: OperationRef) -> Option<(String, String)> {
    let attribute = launch.attribute("kernel").ok()?.to_raw();
    unsafe {
        if !mlir_sys::mlirAttributeIsASymbolRef(attribute) || mlir_sys::mlirSymbolRefAttrGetNumNestedReferences(attribute) != 1 {
            return None;
        }
        let module = StringRef::from_raw(mlir_sys::mlirSymbolRefAttrGetRootReference(attribute));
        let kernel = StringRef::from_raw(mlir_sys::mlirSymbolRefAttrGetLeafReference(attribute));
        Some((module.as_str().ok()?.to_string(), kernel.as_str().ok()?.to_string()))
    }
}

fn enclosing_function<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let mut current = op.parent_operation();
    while let Some(parent) = current {
        if op_name(parent) == "func.func" {
            return Some(parent);
        }
        current = parent.parent_operation();
    }
    None
}

/// A type the kernel calling conventions take as a parameter (what an unused argument may be padded with).
fn kernel_parameter_type(value: mlir_sys::MlirValue) -> bool {
    let kind = unsafe { mlir_sys::mlirValueGetType(value) };
    unsafe {
        mlir_sys::mlirTypeIsAMemRef(kind)
            || mlir_sys::mlirTypeIsAIndex(kind)
            || mlir_sys::mlirTypeIsAInteger(kind)
            || mlir_sys::mlirTypeIsAFloat(kind)
    }
}

fn same(a: mlir_sys::MlirValue, b: mlir_sys::MlirValue) -> bool {
    a.ptr == b.ptr
}

fn fail(op: OperationRef, message: String) -> Result<(), PassFailure> {
    emit_error(op.location(), &message);
    Err(PassFailure(message))
}

fn reorder(
    launch: OperationRef,
    kernel: OperationRef,
    function: OperationRef,
    (module, name): &(String, String),
) -> Result<(), PassFailure> {
    let Some(segments) = operand_segments(launch) else {
        return fail(launch, format!(
            "'gpu.launch_func' op of kernel @{module}::@{name} has operand segments this pass does not know (expected {LAUNCH_SEGMENTS})"
        ));
    };
    let start = segments[..KERNEL_OPERANDS].iter().sum::<i32>() as usize;
    let count = segments[KERNEL_OPERANDS] as usize;
    let operands: Vec<mlir_sys::MlirValue> =
        (0..launch.operand_count()).map(|i| unsafe { mlir_sys::mlirOperationGetOperand(launch.to_raw(), i as isize) }).collect();
    if start + count > operands.len() {
        return fail(launch, format!("'gpu.launch_func' op of kernel @{module}::@{name}: operand segments exceed its operands"));
    }
    let passed = &operands[start..start + count];
    // A value passed twice (hand-written IR; outlining passes each once) has no one position to move to.
    if passed.iter().enumerate().any(|(i, value)| passed[..i].iter().any(|earlier| same(*earlier, *value))) {
        return Ok(());
    }
    let Some(entry) = function.region(0).ok().and_then(|region| region.first_block()) else { return Ok(()) };
    let arguments: Vec<mlir_sys::MlirValue> = (0..entry.argument_count())
        .map(|i| unsafe { mlir_sys::mlirBlockGetArgument(entry.to_raw(), i as isize) })
        .collect();

    let mut wanted: Vec<mlir_sys::MlirValue> = arguments
        .iter()
        .copied()
        .filter(|argument| passed.iter().any(|value| same(*value, *argument)) || kernel_parameter_type(*argument))
        .collect();
    wanted.extend(passed.iter().copied().filter(|value| !arguments.iter().any(|argument| same(*argument, *value))));
    if wanted.len() == passed.len() && wanted.iter().zip(passed).all(|(a, b)| same(*a, *b)) {
        return Ok(());
    }

    let Some(body) = kernel.region(0).ok().and_then(|region| region.first_block()) else { return Ok(()) };
    let function_type = match kernel.attribute("function_type") {
        Ok(attribute) if unsafe { mlir_sys::mlirAttributeIsAType(attribute.to_raw()) } => unsafe {
            mlir_sys::mlirTypeAttrGetValue(attribute.to_raw())
        },
        _ => return fail(kernel, format!("'gpu.func' op @{name} has no function type")),
    };
    let inputs = unsafe { mlir_sys::mlirFunctionTypeGetNumInputs(function_type) } as usize;
    if inputs != count || body.argument_count() < inputs {
        return fail(launch, format!(
            "'gpu.launch_func' op passes {count} operands to kernel @{module}::@{name}, which takes {inputs}"
        ));
    }
    // old parameter index of each new parameter (None: an argument the body does not use)
    let old_index: Vec<Option<usize>> =
        wanted.iter().map(|value| passed.iter().position(|old| same(*old, *value))).collect();
    let kernel_location = kernel.location().to_raw();
    unsafe {
        // New parameters go after the old ones and before the workgroup/private attributions, which follow the
        // parameters in the entry block; the old ones are then replaced and erased.
        for (position, value) in wanted.iter().enumerate() {
            let location = match old_index[position] {
                Some(old) => mlir_sys::mlirValueGetLocation(mlir_sys::mlirBlockGetArgument(body.to_raw(), old as isize)),
                None => kernel_location,
            };
            mlir_sys::mlirBlockInsertArgument(body.to_raw(), (count + position) as isize, mlir_sys::mlirValueGetType(*value), location);
        }
        for (position, old) in old_index.iter().enumerate() {
            if let Some(old) = old {
                let previous = mlir_sys::mlirBlockGetArgument(body.to_raw(), *old as isize);
                let replacement = mlir_sys::mlirBlockGetArgument(body.to_raw(), (count + position) as isize);
                mlir_sys::mlirValueReplaceAllUsesOfWith(previous, replacement);
            }
        }
        for _ in 0..count {
            mlir_sys::mlirBlockEraseArgument(body.to_raw(), 0);
        }

        let context = mlir_sys::mlirOperationGetContext(kernel.to_raw());
        let types: Vec<mlir_sys::MlirType> = wanted.iter().map(|value| mlir_sys::mlirValueGetType(*value)).collect();
        let results: Vec<mlir_sys::MlirType> = (0..mlir_sys::mlirFunctionTypeGetNumResults(function_type))
            .map(|i| mlir_sys::mlirFunctionTypeGetResult(function_type, i))
            .collect();
        let reordered_type = mlir_sys::mlirFunctionTypeGet(
            context,
            types.len() as isize,
            types.as_ptr(),
            results.len() as isize,
            results.as_ptr(),
        );
        set_attribute(kernel, "function_type", mlir_sys::mlirTypeAttrGet(reordered_type));
        if let Ok(attributes) = kernel.attribute("arg_attrs") {
            let attributes = attributes.to_raw();
            if mlir_sys::mlirAttributeIsAArray(attributes) && mlir_sys::mlirArrayAttrGetNumElements(attributes) as usize == count {
                let empty = mlir_sys::mlirDictionaryAttrGet(context, 0, std::ptr::null());
                let reordered: Vec<mlir_sys::MlirAttribute> = old_index
                    .iter()
                    .map(|old| old.map_or(empty, |old| mlir_sys::mlirArrayAttrGetElement(attributes, old as isize)))
                    .collect();
                set_attribute(kernel, "arg_attrs", mlir_sys::mlirArrayAttrGet(context, reordered.len() as isize, reordered.as_ptr()));
            }
        }

        let mut all: Vec<mlir_sys::MlirValue> = operands[..start].to_vec();
        all.extend_from_slice(&wanted);
        all.extend_from_slice(&operands[start + count..]);
        mlir_sys::mlirOperationSetOperands(launch.to_raw(), all.len() as isize, all.as_ptr());
        let mut sizes = segments;
        sizes[KERNEL_OPERANDS] = wanted.len() as i32;
        set_attribute(launch, "operandSegmentSizes", mlir_sys::mlirDenseI32ArrayGet(context, sizes.len() as isize, sizes.as_ptr()));
    }
    tracing::debug!(target: "lego", "kernel @{module}::@{name}: {count} parameters in first-use order -> {} in argument order", wanted.len());
    Ok(())
}

fn operand_segments(launch: OperationRef) -> Option<Vec<i32>> {
    let attribute = launch.attribute("operandSegmentSizes").ok()?.to_raw();
    unsafe {
        if !mlir_sys::mlirAttributeIsADenseI32Array(attribute) || mlir_sys::mlirDenseArrayGetNumElements(attribute) as usize != LAUNCH_SEGMENTS {
            return None;
        }
        let sizes: Vec<i32> = (0..LAUNCH_SEGMENTS).map(|i| mlir_sys::mlirDenseI32ArrayGetElement(attribute, i as isize)).collect();
        sizes.iter().all(|size| *size >= 0).then_some(sizes)
    }
}

fn set_attribute(op: OperationRef, name: &str, value: mlir_sys::MlirAttribute) {
    let name = StringRef::new(name);
    unsafe { mlir_sys::mlirOperationSetAttributeByName(op.to_raw(), name.to_raw(), value) };
}
