//! Small internal passes the target pipelines need around upstream MLIR:
//!
//! - `lego-require-gpu-code`: first element of every GPU pipeline. A module without GPU code would otherwise
//!   run through the whole pipeline and come out unchanged (or fail deep inside a conversion), which hides
//!   the user's real mistake (wrong pipeline, or a `func.func` that was meant to contain a `gpu.launch`).
//!   `lego-reject-gpu-code` is the converse for `lego-to-llvm`, where GPU code would otherwise fail with an
//!   obscure memory-space conversion error. Both also reject undischarged bounds obligations
//!   (`lego.assert_apply_bounds` / `assert_inv_bounds`): no target can compile them, and left in place they
//!   would come out of the pipeline inside otherwise-lowered code.
//! - `lego-spirv-entry-point-abi`: `convert-gpu-to-spirv` only converts kernels that carry a
//!   `spirv.entry_point_abi` (the workgroup size becomes the SPIR-V `LocalSize` execution mode); upstream has
//!   no non-test pass deriving it. `gpu-kernel-outlining` records the launch's constant block size as the
//!   kernel's `known_block_size`, so we copy it over.
//! - `lego-spirv-nest-modules`: for shader (Vulkan) targets `convert-gpu-to-spirv` puts the `spirv.module`
//!   next to its `gpu.module`, but `gpu-module-to-binary` serializes the `spirv.module` found *inside* the
//!   `gpu.module` (which is where the pass puts it for OpenCL kernels). We move it inside.
//! - `lego-numeric-gpu-address-spaces`: the SPIR-V conversions (`convert-gpu-to-spirv`, and the memref
//!   lowering after `convert-gpu-to-llvm-spv`) map only numeric memref memory spaces; shared memory written as
//!   `#gpu.address_space<workgroup>` (what `gpu.launch ... workgroup(...)` users write, and what NVVM/ROCDL
//!   accept) becomes the numeric `3` (and `private` becomes `5`), the GPU dialect's own numbering.
//! - `lego-workgroup-attributions-to-alloc`: `convert-gpu-to-spirv` cannot lower a kernel's workgroup
//!   attributions, but lowers a workgroup-space `memref.alloc` to a `Workgroup` global variable; each
//!   attribution becomes such an alloc at the top of the kernel.
//! - `lego-align-workgroup-attributions`: `convert-gpu-to-nvvm` (and ROCDL's) gives a workgroup attribution's
//!   global the alignment of its element type unless the attribution carries `llvm.align`, which a `gpu.launch`
//!   cannot express. A kernel that moves 16 bytes a lane through an fp16 tile (`vector.store … {alignment = 16}`)
//!   then addresses a `.shared .align 2` array with 16-byte instructions: correct only while the array happens to
//!   sit at an aligned offset. After outlining, each attribution gets `llvm.align` = the largest `alignment` of
//!   the `vector.load/store` ops that use it directly (none: the attribution is left as it is).
//! - `lego-spirv-binary-attribute`: the published `lego-to-spirv` hands its SPIR-V to its users (a Python
//!   frontend reads it with the regex `lego\.spirv_binary\s*=\s*"([^"]*)"`) as the top module's string
//!   attribute `lego.spirv_binary`: the words of the serialized module in decimal, comma-separated. We copy
//!   them from the `gpu.binary` that `gpu-module-to-binary` made (which stays, for MLIR's own runtimes).
//! - `lego-require-rocm-device-libs`: ROCDL kernels that call ROCm's device library (`__ockl_*`, `__ocml_*`)
//!   cannot be serialized, not even to assembly, without ROCm installed; MLIR then fails with a message about
//!   a bitcode directory, located at the launch. We name the op that needs the library instead.

use crate::external::{into_mlir_pass, LegoPass, PassFailure, PassId};
use crate::registry::{Entry, OptionSpec, Options, PassInfo, RegistryError};
use lego_dialect::{ops::walk_ops, verify::emit_error};
use melior::{
    ir::{
        attribute::AttributeLike, block::BlockLike, operation::OperationLike, r#type::TypeLike, Attribute, ValueLike,
        OperationRef, RegionLike,
    },
    StringRef,
};

/// Registry entries of the passes of this file.
/// The registry entry of a pass without options: `pass` (a value of a [`LegoPass`] type) wrapped as an MLIR pass
/// with a type id of its own (the `static` is one per expansion).
macro_rules! optionless_pass {
    ($pass:expr) => {
        Entry::Pass(|_: &Options| -> Result<melior::pass::Pass, RegistryError> {
            static ID: PassId = PassId::new();
            Ok(into_mlir_pass($pass, &ID))
        })
    };
}

pub fn passes() -> Vec<PassInfo> {
    vec![
        PassInfo {
            name: "lego-require-gpu-code",
            description: "Fail with a clear error when the module has no gpu.launch, gpu.launch_func or gpu.module \
                          (first element of the GPU target pipelines)",
            options: &[
                OptionSpec {
                    name: "pipeline",
                    default: "",
                    description: "name of the pipeline this check belongs to, for the message",
                },
                OptionSpec {
                    name: "kernel-index-bitwidth",
                    default: "64",
                    description: "bit width of `index` in the kernels (32: index constants used in kernels must fit)",
                },
            ],
            entry: Entry::Pass(|options: &Options| {
                static ID: PassId = PassId::new();
                let pipeline = options.string("pipeline").to_string();
                let bits = options.string("kernel-index-bitwidth").trim();
                let kernel_index_bits = match bits {
                    "32" => 32,
                    "64" => 64,
                    _ => return Err(options.bad_value("kernel-index-bitwidth", bits, "32 or 64")),
                };
                Ok(into_mlir_pass(GpuCodeCheck { pipeline, require: true, kernel_index_bits }, &ID))
            }),
        },
        PassInfo {
            name: "lego-reject-gpu-code",
            description: "Fail with a clear error when the module has GPU code (first element of lego-to-llvm, which lowers \
                          CPU code only)",
            options: &[OptionSpec {
                name: "pipeline",
                default: "",
                description: "name of the pipeline this check belongs to, for the message",
            }],
            entry: Entry::Pass(|options: &Options| {
                static ID: PassId = PassId::new();
                let pipeline = options.string("pipeline").to_string();
                Ok(into_mlir_pass(GpuCodeCheck { pipeline, require: false, kernel_index_bits: 64 }, &ID))
            }),
        },
        PassInfo {
            name: "lego-gpu-launch-sink-index-computations",
            description: "Clone the constants, memref.dim, arith.select and arith.cmpi a gpu.launch body uses from above into it (upstream gpu-launch-sink-index-computations, in linear time)",
            options: &[],
            entry: optionless_pass!(super::sink_index_computations::SinkIndexComputations),
        },
        PassInfo {
            name: "lego-kernel-parameters-in-argument-order",
            description: "Give each outlined kernel the arguments of the function it is launched from, in argument order (gpu-kernel-outlining orders them by first use)",
            options: &[],
            entry: optionless_pass!(super::kernel_parameter_order::KernelParametersInArgumentOrder),
        },
        PassInfo {
            name: "lego-spirv-entry-point-abi",
            description: "Give each GPU kernel a spirv.entry_point_abi whose workgroup size is its known (constant) block size",
            options: &[],
            entry: optionless_pass!(SpirvEntryPointAbi),
        },
        PassInfo {
            name: "lego-numeric-gpu-address-spaces",
            description: "Rewrite #gpu.address_space<workgroup>/<private> memref memory spaces as 3/5 (for the SPIR-V conversions)",
            options: &[],
            entry: optionless_pass!(NumericGpuAddressSpaces),
        },
        PassInfo {
            name: "lego-workgroup-attributions-to-alloc",
            description: "Turn each GPU kernel's workgroup attributions into workgroup-space memref.alloc ops (for convert-gpu-to-spirv)",
            options: &[],
            entry: optionless_pass!(WorkgroupAttributionsToAlloc),
        },
        PassInfo {
            name: "lego-align-workgroup-attributions",
            description: "Give each outlined kernel's workgroup attribution the alignment (llvm.align) of its widest aligned vector.load/store",
            options: &[],
            entry: optionless_pass!(AlignWorkgroupAttributions),
        },
        PassInfo {
            name: "lego-spirv-binary-attribute",
            description: "Set the top module's lego.spirv_binary to the SPIR-V words (decimal, comma-separated) of the first SPIR-V gpu.binary",
            options: &[],
            entry: optionless_pass!(SpirvBinaryAttribute),
        },
        PassInfo {
            name: "lego-require-rocm-device-libs",
            description: "Fail with an error naming each op of a ROCDL kernel that needs ROCm's device library (a call to __ockl_* / __ocml_*), for use when ROCm is not installed",
            options: &[OptionSpec {
                name: "pipeline",
                default: "",
                description: "name of the pipeline this check belongs to, for the message",
            }],
            entry: Entry::Pass(|options: &Options| {
                static ID: PassId = PassId::new();
                Ok(into_mlir_pass(RequireRocmDeviceLibs { pipeline: options.string("pipeline").to_string() }, &ID))
            }),
        },
        PassInfo {
            name: "lego-spirv-nest-modules",
            description: "Move each spirv.module made by convert-gpu-to-spirv into its gpu.module, where gpu-module-to-binary looks for it",
            options: &[],
            entry: optionless_pass!(SpirvNestModules),
        },
    ]
}

pub(super) fn op_name(op: OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or_default().to_string()
}

/// The value of a string attribute (`sym_name`), if `op` has one.
pub(super) fn string_attribute(op: OperationRef, name: &str) -> Option<String> {
    let attribute = op.attribute(name).ok()?;
    if !attribute.is_string() {
        return None;
    }
    let value = unsafe { StringRef::from_raw(mlir_sys::mlirStringAttrGetValue(attribute.to_raw())) };
    value.as_str().ok().map(str::to_string)
}

/// The ops directly in the first block of `op`'s first region (a module's top level).
fn top_level_ops<'c, 'a>(op: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut out = Vec::new();
    let Ok(region) = op.region(0) else { return out };
    let Some(block) = region.first_block() else { return out };
    let mut current = block.first_operation();
    while let Some(nested) = current {
        out.push(nested);
        current = nested.next_in_block();
    }
    out
}

/// `lego-require-gpu-code` (`require`) and `lego-reject-gpu-code` (`!require`).
#[derive(Clone)]
struct GpuCodeCheck {
    pipeline: String,
    require: bool,
    /// `lego-require-gpu-code`: the width of `index` in the kernels the pipeline produces.
    kernel_index_bits: u32,
}

impl LegoPass for GpuCodeCheck {
    fn name(&self) -> &'static str {
        if self.require { "lego-require-gpu-code" } else { "lego-reject-gpu-code" }
    }

    fn description(&self) -> &'static str {
        if self.require { "Fail when the module has no GPU code" } else { "Fail when the module has GPU code" }
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let mut first_gpu_op = None;
        let mut obligations = Vec::new();
        walk_ops(root, &mut |op| {
            let name = op_name(op);
            if first_gpu_op.is_none() && matches!(name.as_str(), "gpu.launch" | "gpu.launch_func" | "gpu.module") {
                first_gpu_op = Some(op);
            }
            if matches!(name.as_str(), "lego.assert_apply_bounds" | "lego.assert_inv_bounds") {
                obligations.push((op.location(), name));
            }
        });
        tracing::debug!(target: "lego", "{}: GPU code found: {}", self.name(), first_gpu_op.is_some());
        let pipeline = if self.pipeline.is_empty() { "this pipeline".to_string() } else { format!("'{}'", self.pipeline) };
        if !obligations.is_empty() {
            for (location, name) in &obligations {
                emit_error(
                    *location,
                    &format!(
                        "'{name}' op is a bounds obligation that {pipeline} cannot compile: prove it with \
                         'lego-external-smt-verifier' first"
                    ),
                );
            }
            return Err(PassFailure(format!("{} undischarged bounds obligation(s)", obligations.len())));
        }
        if self.require && !kernels_not_lowered_for_spirv(root, &pipeline, &self.pipeline) {
            return Err(PassFailure("a gpu.module was already lowered for SPIR-V".into()));
        }
        if self.require && !kernel_abi_errors(root, &pipeline, &self.pipeline, self.kernel_index_bits) {
            return Err(PassFailure("a kernel's launch sizes, memrefs or index constants do not fit the target".into()));
        }
        let (location, message) = match (self.require, first_gpu_op) {
            (true, None) => (
                root.location(),
                format!(
                    "{pipeline} compiles GPU kernels, but the module has no GPU code (no gpu.launch, \
                     gpu.launch_func or gpu.module): put the kernel body in a gpu.launch, or use 'lego-to-llvm' \
                     for CPU code"
                ),
            ),
            (false, Some(op)) => (
                op.location(),
                format!(
                    "{pipeline} lowers CPU code, but the module has GPU code ('{}'): use a GPU pipeline \
                     ('lego-to-nvvm', 'lego-to-rocdl', 'lego-to-spirv', 'lego-to-xevm' or 'lego-to-llvmspirv')",
                    op_name(op)
                ),
            ),
            _ => return Ok(()),
        };
        emit_error(location, &message);
        Err(PassFailure(message))
    }
}

/// NVVM and ROCDL compile the LLVM functions of a `gpu.module` as they are: functions a SPIR-V pipeline
/// already lowered (`lego-to-llvmspirv`, `lego-to-xevm`: `spir_kernelcc` kernels calling `spir_funccc`
/// OpenCL built-ins) reach LLVM's AMDGPU backend, which stops the process with the unlocated fatal error
/// "unsupported calling convention" (fuzz finding eb05333905), and NVPTX, which compiles the kernel as a plain
/// device function. Each such function, and each call with a SPIR calling convention outside them, is an
/// error at its op. Returns false when it reported an error.
fn kernels_not_lowered_for_spirv(root: OperationRef<'_, '_>, pipeline_for_message: &str, pipeline: &str) -> bool {
    if !matches!(pipeline, "lego-to-nvvm" | "lego-to-rocdl") {
        return true;
    }
    let target = if pipeline == "lego-to-nvvm" { "NVPTX" } else { "AMDGPU" };
    let mut gpu_modules = Vec::new();
    walk_ops(root, &mut |op| {
        if op_name(op) == "gpu.module" {
            gpu_modules.push(op);
        }
    });
    let mut ok = true;
    for gpu_module in gpu_modules {
        let mut offending = Vec::new();
        walk_ops(gpu_module, &mut |op| {
            let name = op_name(op);
            if !matches!(name.as_str(), "llvm.func" | "llvm.call") {
                return;
            }
            let Some(convention) = spir_calling_convention(op) else { return };
            // A call inside a function reported already adds nothing.
            let in_reported = op.parent_operation().is_some_and(|parent| {
                offending.iter().any(|(reported, _): &(OperationRef, String)| *reported == parent)
            });
            if name == "llvm.func" || !in_reported {
                offending.push((op, convention));
            }
        });
        for (op, convention) in offending {
            let what = match string_attribute(op, "sym_name") {
                Some(symbol) => format!("'{}' op @{symbol}", op_name(op)),
                None => format!("'{}' op", op_name(op)),
            };
            emit_error(
                op.location(),
                &format!(
                    "{what} has the SPIR-V calling convention {convention}: this gpu.module was already lowered \
                     for SPIR-V (e.g. by 'lego-to-llvmspirv'), and {pipeline_for_message} cannot compile it for \
                     {target}; run one target pipeline on the unlowered input"
                ),
            );
            ok = false;
        }
    }
    ok
}

/// `spir_kernelcc` / `spir_funccc` when `op` (an `llvm.func` or `llvm.call`) has one of them as `CConv`.
fn spir_calling_convention(op: OperationRef) -> Option<String> {
    let attribute = op.attribute("CConv").ok()?;
    let text = attribute.to_string();
    let convention = text.strip_prefix("#llvm.cconv<")?.strip_suffix('>')?;
    convention.starts_with("spir_").then(|| convention.to_string())
}

/// What upstream's GPU conversions fail on deep inside the pipeline, with an unlocated message or none (issue
/// 15, findings 11a-c), checked on the user's IR before lowering and reported at the op that causes it:
/// - a constant launch size outside 1 .. 2^31-1 (kernels record it as an i32 `known_block_size`, NVVM's
///   `maxntid`, SPIR-V's `LocalSize`): at the launch;
/// - a memref a kernel uses without a static shape and identity layout, where the pipeline passes kernel
///   memrefs as bare pointers (NVVM, ROCDL, SPIR-V): at the memref's definition (a function argument);
/// - with 32-bit kernel indices (SPIR-V for Vulkan), an index constant used in a kernel that does not fit.
///
/// Returns false when it reported an error.
fn kernel_abi_errors(root: OperationRef<'_, '_>, pipeline_for_message: &str, pipeline: &str, index_bits: u32) -> bool {
    let bare_pointers = matches!(pipeline, "lego-to-nvvm" | "lego-to-rocdl" | "lego-to-spirv");
    let mut launches = Vec::new();
    walk_ops(root, &mut |op| {
        if op_name(op) == "gpu.launch" {
            launches.push(op);
        }
    });
    let mut ok = true;
    let mut reported = std::collections::HashSet::new();
    for launch in launches {
        ok &= launch_sizes_fit(launch);
        let mut inside = std::collections::HashSet::new();
        let mut nested = Vec::new();
        walk_ops(launch, &mut |op| {
            inside.insert(op.to_raw().ptr as usize);
            nested.push(op);
        });
        let defined_inside = |value: melior::ir::Value| -> bool {
            if let Some(result) = lego_dialect::ops::op_result(value) {
                return inside.contains(&(result.owner().to_raw().ptr as usize));
            }
            let Some(argument) = lego_dialect::ops::block_argument(value) else { return false };
            let owner = argument.owner().parent_operation();
            owner.is_some_and(|owner| inside.contains(&(owner.to_raw().ptr as usize)))
        };
        for op in nested {
            let mut values: Vec<melior::ir::Value> = op.operands().filter(|value| !defined_inside(*value)).collect();
            if index_bits == 32 && op_name(op) == "arith.constant" {
                values.extend(op.results().map(melior::ir::Value::from));
            }
            for value in values {
                let key = melior::ir::ValueLike::to_raw(&value).ptr as usize;
                if reported.contains(&key) {
                    continue;
                }
                let r#type = melior::ir::ValueLike::r#type(&value);
                let raw = r#type.to_raw();
                let message = if bare_pointers && unsafe { mlir_sys::mlirTypeIsAMemRef(raw) } && !is_bare_pointer_memref(raw) {
                    format!(
                        "{type} is used in a GPU kernel, but {pipeline_for_message} passes kernel memrefs as bare                          pointers, which needs a static shape and the identity layout"
                    )
                } else if index_bits == 32 && r#type.is_index() {
                    match lego_dialect::ops::constant_index_value(value) {
                        Some(constant) if i32::try_from(constant).is_err() => format!(
                            "index constant {constant} does not fit the 32-bit index of {pipeline_for_message}'s                              kernels"
                        ),
                        _ => continue,
                    }
                } else {
                    continue;
                };
                reported.insert(key);
                let location = match melior::ir::operation::OperationResult::try_from(value) {
                    Ok(result) => result.owner().location(),
                    Err(_) => melior::ir::ValueLike::location(&value),
                };
                emit_error(location, &message);
                ok = false;
            }
        }
    }
    ok
}

/// Constant grid and block sizes of a `gpu.launch` are in 1 .. 2^31-1; each bad one is an error at the launch.
fn launch_sizes_fit(launch: OperationRef<'_, '_>) -> bool {
    // operandSegmentSizes: async dependencies, grid x/y/z, block x/y/z, (cluster x/y/z), dynamic shared memory.
    let dependencies = launch
        .attribute("operandSegmentSizes")
        .ok()
        .and_then(|attribute| melior::ir::attribute::DenseI32ArrayAttribute::try_from(attribute).ok())
        .and_then(|segments| segments.element(0).ok())
        .unwrap_or(0) as usize;
    let mut ok = true;
    for (offset, what) in ["grid size x", "grid size y", "grid size z", "block size x", "block size y", "block size z"]
        .iter()
        .enumerate()
    {
        let Ok(operand) = launch.operand(dependencies + offset) else { continue };
        let Some(size) = lego_dialect::ops::constant_index_value(operand) else { continue };
        if !(1..=i64::from(i32::MAX)).contains(&size) {
            emit_error(
                launch.location(),
                &format!("'gpu.launch' op {what} is {size}; constant launch sizes must be between 1 and 2147483647"),
            );
            ok = false;
        }
    }
    ok
}

/// A memref the bare-pointer calling convention can pass: static shape, identity layout.
fn is_bare_pointer_memref(memref: mlir_sys::MlirType) -> bool {
    unsafe {
        if !mlir_sys::mlirShapedTypeHasStaticShape(memref) {
            return false;
        }
        let layout = mlir_sys::mlirMemRefTypeGetLayout(memref);
        layout.ptr.is_null()
            || (mlir_sys::mlirAttributeIsAAffineMap(layout)
                && mlir_sys::mlirAffineMapIsIdentity(mlir_sys::mlirAffineMapAttrGetValue(layout)))
    }
}

#[derive(Clone)]
struct SpirvEntryPointAbi;

impl LegoPass for SpirvEntryPointAbi {
    fn name(&self) -> &'static str {
        "lego-spirv-entry-point-abi"
    }

    fn description(&self) -> &'static str {
        "Derive spirv.entry_point_abi from known_block_size"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let mut kernels = Vec::new();
        walk_ops(root, &mut |op| {
            if op_name(op) == "gpu.func" && op.has_attribute("gpu.kernel") && !op.has_attribute("spirv.entry_point_abi") {
                kernels.push(op);
            }
        });
        let context = crate::mlir_context::ContextHandle::of(&root);
        let mut failure = None;
        for kernel in kernels {
            let name = string_attribute(kernel, "sym_name").unwrap_or_else(|| "<unnamed>".into());
            let Some(size) = known_block_size(kernel) else {
                let message = format!(
                    "SPIR-V needs a fixed workgroup size, but kernel '{name}' has no known block size: launch it \
                     with constant thread counts (gpu.launch ... threads(...) in (%x = <constant>, ...)) or give \
                     the gpu.func a spirv.entry_point_abi attribute"
                );
                emit_error(kernel.location(), &message);
                failure = Some(message);
                continue;
            };
            let text = format!("#spirv.entry_point_abi<workgroup_size = [{}, {}, {}]>", size[0], size[1], size[2]);
            let Some(attribute) = Attribute::parse(context.get(), &text) else {
                let message = format!("internal error: could not build '{text}'");
                emit_error(kernel.location(), &message);
                return Err(PassFailure(message));
            };
            tracing::debug!(target: "lego", "kernel {name}: {text}");
            let name = StringRef::new("spirv.entry_point_abi");
            unsafe { mlir_sys::mlirOperationSetDiscardableAttributeByName(kernel.to_raw(), name.to_raw(), attribute.to_raw()) };
        }
        failure.map_or(Ok(()), |message| Err(PassFailure(message)))
    }
}

/// `known_block_size = array<i32: x, y, z>` of an outlined kernel (set from a launch with constant sizes).
fn known_block_size(kernel: OperationRef) -> Option<[i32; 3]> {
    let attribute = kernel.attribute("known_block_size").ok()?;
    let raw = attribute.to_raw();
    if !unsafe { mlir_sys::mlirAttributeIsADenseI32Array(raw) } || unsafe { mlir_sys::mlirDenseArrayGetNumElements(raw) } != 3 {
        return None;
    }
    let element = |index| unsafe { mlir_sys::mlirDenseI32ArrayGetElement(raw, index) };
    let size = [element(0), element(1), element(2)];
    size.iter().all(|extent| *extent > 0).then_some(size)
}

#[derive(Clone)]
struct SpirvNestModules;

/// Prefix `convert-gpu-to-spirv` gives the `spirv.module` converted from `gpu.module @name`.
const SPIRV_MODULE_PREFIX: &str = "__spv__";

impl LegoPass for SpirvNestModules {
    fn name(&self) -> &'static str {
        "lego-spirv-nest-modules"
    }

    fn description(&self) -> &'static str {
        "Move spirv.module ops into their gpu.module"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let top = top_level_ops(root);
        let gpu_modules: Vec<(String, OperationRef)> = top
            .iter()
            .filter(|op| op_name(**op) == "gpu.module")
            .filter_map(|op| Some((string_attribute(*op, "sym_name")?, *op)))
            .collect();
        for spirv_module in top.iter().filter(|op| op_name(**op) == "spirv.module") {
            let Some(name) = string_attribute(*spirv_module, "sym_name") else { continue };
            let Some(gpu_name) = name.strip_prefix(SPIRV_MODULE_PREFIX) else { continue };
            let Some((_, gpu_module)) = gpu_modules.iter().find(|(candidate, _)| candidate == gpu_name) else {
                continue;
            };
            let Some(body) = gpu_module.region(0).ok().and_then(|region| region.first_block()) else {
                let message = format!("gpu.module @{gpu_name} has no body to receive its SPIR-V module");
                emit_error(gpu_module.location(), &message);
                return Err(PassFailure(message));
            };
            tracing::debug!(target: "lego", "moving spirv.module @{name} into gpu.module @{gpu_name}");
            // The spirv.module becomes the first op of the gpu.module's body (a gpu.module may or may not
            // end in a terminator; the start is always valid).
            unsafe {
                mlir_sys::mlirOperationRemoveFromParent(spirv_module.to_raw());
                mlir_sys::mlirBlockInsertOwnedOperation(body.to_raw(), 0, spirv_module.to_raw());
            }
        }
        Ok(())
    }
}

/// `#gpu.address_space<...>` spellings and the numeric memory spaces the GPU dialect gives them (global is
/// left alone: numeric 1 would mean `Generic` to the Vulkan storage-class mapping).
const NUMERIC_ADDRESS_SPACES: &[(&str, &str)] = &[("#gpu.address_space<workgroup>", "3"), ("#gpu.address_space<private>", "5")];

fn renumber(text: &str) -> Option<String> {
    if !text.contains("#gpu.address_space<") {
        return None;
    }
    let mut out = text.to_string();
    for (spelling, number) in NUMERIC_ADDRESS_SPACES {
        out = out.replace(spelling, number);
    }
    (out != text).then_some(out)
}

#[derive(Clone)]
struct NumericGpuAddressSpaces;

impl LegoPass for NumericGpuAddressSpaces {
    fn name(&self) -> &'static str {
        "lego-numeric-gpu-address-spaces"
    }

    fn description(&self) -> &'static str {
        "Rewrite #gpu.address_space memory spaces as numbers"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let handle = crate::mlir_context::ContextHandle::of(&root);
        let context = handle.get();
        // Types are rewritten through their text: the memory space can sit anywhere inside a type (a memref
        // in a function type), and the text form is the one stable way to rebuild any of them.
        let retype = |value: mlir_sys::MlirValue, location| -> Result<(), PassFailure> {
            let r#type = unsafe { melior::ir::Type::from_raw(mlir_sys::mlirValueGetType(value)) };
            let Some(text) = renumber(&r#type.to_string()) else { return Ok(()) };
            let Some(new_type) = melior::ir::Type::parse(context, &text) else {
                let message = format!("internal error: could not rebuild type '{text}'");
                emit_error(location, &message);
                return Err(PassFailure(message));
            };
            unsafe { mlir_sys::mlirValueSetType(value, new_type.to_raw()) };
            Ok(())
        };
        let mut ops = Vec::new();
        walk_ops(root, &mut |op| ops.push(op));
        let mut changed = 0usize;
        for op in ops {
            let location = op.location();
            for index in 0..op.result_count() {
                let value = unsafe { mlir_sys::mlirOperationGetResult(op.to_raw(), index as isize) };
                retype(value, location)?;
            }
            for region in op.regions() {
                let mut block = region.first_block();
                while let Some(current) = block {
                    let count = unsafe { mlir_sys::mlirBlockGetNumArguments(current.to_raw()) };
                    for index in 0..count {
                        retype(unsafe { mlir_sys::mlirBlockGetArgument(current.to_raw(), index) }, location)?;
                    }
                    block = current.next_in_region();
                }
            }
            // Type attributes: function types of func.func / gpu.func, memref.global types.
            let count = unsafe { mlir_sys::mlirOperationGetNumAttributes(op.to_raw()) };
            let mut updates = Vec::new();
            for index in 0..count {
                let named = unsafe { mlir_sys::mlirOperationGetAttribute(op.to_raw(), index) };
                if !unsafe { mlir_sys::mlirAttributeIsAType(named.attribute) } {
                    continue;
                }
                let value = unsafe { melior::ir::Type::from_raw(mlir_sys::mlirTypeAttrGetValue(named.attribute)) };
                let Some(text) = renumber(&value.to_string()) else { continue };
                let Some(new_type) = melior::ir::Type::parse(context, &text) else {
                    let message = format!("internal error: could not rebuild type '{text}'");
                    emit_error(location, &message);
                    return Err(PassFailure(message));
                };
                let name = unsafe { mlir_sys::mlirIdentifierStr(named.name) };
                updates.push((name, unsafe { mlir_sys::mlirTypeAttrGet(new_type.to_raw()) }));
            }
            for (name, attribute) in updates {
                unsafe { mlir_sys::mlirOperationSetAttributeByName(op.to_raw(), name, attribute) };
                changed += 1;
            }
        }
        tracing::debug!(target: "lego", "lego-numeric-gpu-address-spaces: {changed} type attributes rewritten");
        Ok(())
    }
}

#[derive(Clone)]
struct WorkgroupAttributionsToAlloc;

impl LegoPass for WorkgroupAttributionsToAlloc {
    fn name(&self) -> &'static str {
        "lego-workgroup-attributions-to-alloc"
    }

    fn description(&self) -> &'static str {
        "Workgroup attributions to memref.alloc"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let mut kernels = Vec::new();
        walk_ops(root, &mut |op| {
            if op_name(op) == "gpu.func" && workgroup_attribution_count(op).is_some_and(|count| count > 0) {
                kernels.push(op);
            }
        });
        let handle = crate::mlir_context::ContextHandle::of(&root);
        let context = handle.get();
        for kernel in kernels {
            let (Some(count), Some(inputs)) = (workgroup_attribution_count(kernel), function_input_count(kernel)) else {
                continue;
            };
            let Some(entry) = kernel.region(0).ok().and_then(|region| region.first_block()) else { continue };
            let location = kernel.location();
            // Attributions follow the function arguments; replace them last to first so indices stay valid.
            for index in (inputs..inputs + count).rev() {
                let argument = unsafe { mlir_sys::mlirBlockGetArgument(entry.to_raw(), index as isize) };
                let r#type = unsafe { melior::ir::Type::from_raw(mlir_sys::mlirValueGetType(argument)) };
                let alloc = melior::ir::operation::OperationBuilder::new("memref.alloc", location)
                    .add_attributes(&[(
                        melior::ir::Identifier::new(context, "operandSegmentSizes"),
                        melior::ir::attribute::DenseI32ArrayAttribute::new(context, &[0, 0]).into(),
                    )])
                    .add_results(&[r#type])
                    .build()
                    .map_err(|error| PassFailure(format!("could not build memref.alloc: {error}")))?;
                let alloc = entry.insert_operation(0, alloc);
                let value = unsafe { mlir_sys::mlirOperationGetResult(alloc.to_raw(), 0) };
                unsafe {
                    mlir_sys::mlirValueReplaceAllUsesOfWith(argument, value);
                    mlir_sys::mlirBlockEraseArgument(entry.to_raw(), index as u32);
                }
            }
            let zero = melior::ir::attribute::IntegerAttribute::new(melior::ir::r#type::IntegerType::new(context, 64).into(), 0);
            let name = StringRef::new("workgroup_attributions");
            unsafe { mlir_sys::mlirOperationSetAttributeByName(kernel.to_raw(), name.to_raw(), zero.to_raw()) };
            tracing::debug!(target: "lego", "kernel {:?}: {count} workgroup attributions became memref.alloc", string_attribute(kernel, "sym_name"));
        }
        Ok(())
    }
}

#[derive(Clone)]
struct AlignWorkgroupAttributions;

/// The `alignment` attribute of a `vector.load/store` whose memref operand is `value`, if any.
fn vector_alignment_on(user: OperationRef, value: mlir_sys::MlirValue) -> Option<u64> {
    let memref_operand = match op_name(user).as_str() {
        "vector.load" => 0,
        "vector.store" => 1,
        _ => return None,
    };
    let operand = user.operand(memref_operand).ok()?;
    if operand.to_raw().ptr != value.ptr {
        return None;
    }
    let attribute = user.attribute("alignment").ok()?;
    if !unsafe { mlir_sys::mlirAttributeIsAInteger(attribute.to_raw()) } {
        return None;
    }
    u64::try_from(unsafe { mlir_sys::mlirIntegerAttrGetValueInt(attribute.to_raw()) }).ok()
}

impl LegoPass for AlignWorkgroupAttributions {
    fn name(&self) -> &'static str {
        "lego-align-workgroup-attributions"
    }

    fn description(&self) -> &'static str {
        "Workgroup attributions aligned for their vector accesses"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let mut kernels = Vec::new();
        walk_ops(root, &mut |op| {
            // A gpu.func that already has attribution attributes was written by hand: its author decides.
            if op_name(op) == "gpu.func"
                && workgroup_attribution_count(op).is_some_and(|count| count > 0)
                && !op.has_attribute("workgroup_attrib_attrs")
            {
                kernels.push(op);
            }
        });
        let handle = crate::mlir_context::ContextHandle::of(&root);
        for kernel in kernels {
            let (Some(count), Some(inputs)) = (workgroup_attribution_count(kernel), function_input_count(kernel)) else {
                continue;
            };
            let Some(entry) = kernel.region(0).ok().and_then(|region| region.first_block()) else { continue };
            let mut aligns = Vec::with_capacity(count);
            for index in inputs..inputs + count {
                let argument = unsafe { mlir_sys::mlirBlockGetArgument(entry.to_raw(), index as isize) };
                let mut widest = 0u64;
                let mut using = unsafe { mlir_sys::mlirValueGetFirstUse(argument) };
                while !unsafe { mlir_sys::mlirOpOperandIsNull(using) } {
                    let owner = unsafe { OperationRef::from_raw(mlir_sys::mlirOpOperandGetOwner(using)) };
                    if let Some(alignment) = vector_alignment_on(owner, argument) {
                        widest = widest.max(alignment);
                    }
                    using = unsafe { mlir_sys::mlirOpOperandGetNextUse(using) };
                }
                aligns.push(widest);
            }
            if aligns.iter().all(|a| *a == 0) {
                continue;
            }
            let dictionaries: Vec<String> =
                aligns.iter().map(|a| if *a == 0 { "{}".to_string() } else { format!("{{llvm.align = {a} : i64}}") }).collect();
            let text = format!("[{}]", dictionaries.join(", "));
            let Some(attribute) = Attribute::parse(handle.get(), &text) else {
                let message = format!("internal error: could not build '{text}'");
                emit_error(kernel.location(), &message);
                return Err(PassFailure(message));
            };
            tracing::debug!(target: "lego", "kernel {:?}: workgroup_attrib_attrs = {text}", string_attribute(kernel, "sym_name"));
            let name = StringRef::new("workgroup_attrib_attrs");
            unsafe { mlir_sys::mlirOperationSetAttributeByName(kernel.to_raw(), name.to_raw(), attribute.to_raw()) };
        }
        Ok(())
    }
}

fn workgroup_attribution_count(op: OperationRef) -> Option<usize> {
    let attribute = op.attribute("workgroup_attributions").ok()?;
    if !unsafe { mlir_sys::mlirAttributeIsAInteger(attribute.to_raw()) } {
        return None;
    }
    usize::try_from(unsafe { mlir_sys::mlirIntegerAttrGetValueInt(attribute.to_raw()) }).ok()
}

fn function_input_count(op: OperationRef) -> Option<usize> {
    let attribute = op.attribute("function_type").ok()?;
    if !unsafe { mlir_sys::mlirAttributeIsAType(attribute.to_raw()) } {
        return None;
    }
    let r#type = unsafe { mlir_sys::mlirTypeAttrGetValue(attribute.to_raw()) };
    if !unsafe { mlir_sys::mlirTypeIsAFunction(r#type) } {
        return None;
    }
    usize::try_from(unsafe { mlir_sys::mlirFunctionTypeGetNumInputs(r#type) }).ok()
}

/// Name of the top module's attribute holding the SPIR-V words (the published pipeline's output).
pub const SPIRV_BINARY_ATTRIBUTE: &str = "lego.spirv_binary";

#[derive(Clone)]
struct SpirvBinaryAttribute;

impl LegoPass for SpirvBinaryAttribute {
    fn name(&self) -> &'static str {
        "lego-spirv-binary-attribute"
    }

    fn description(&self) -> &'static str {
        "SPIR-V words of the gpu.binary as lego.spirv_binary"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let binaries: Vec<OperationRef> = top_level_ops(root).into_iter().filter(|op| op_name(*op) == "gpu.binary").collect();
        let mut words = None;
        for binary in &binaries {
            let Ok(objects) = binary.attribute("objects") else { continue };
            let raw = objects.to_raw();
            if !unsafe { mlir_sys::mlirAttributeIsAArray(raw) } {
                continue;
            }
            for index in 0..unsafe { mlir_sys::mlirArrayAttrGetNumElements(raw) } {
                let object = unsafe { mlir_sys::mlirArrayAttrGetElement(raw, index) };
                if !unsafe { mlir_sys::mlirAttributeIsAGPUObjectAttr(object) } {
                    continue;
                }
                let target = unsafe { Attribute::from_raw(mlir_sys::mlirGPUObjectAttrGetTarget(object)) };
                if !target.to_string().starts_with("#spirv.target_env") {
                    continue;
                }
                let bytes = unsafe {
                    let data = mlir_sys::mlirGPUObjectAttrGetObject(object);
                    std::slice::from_raw_parts(data.data as *const u8, data.length)
                };
                if bytes.len() % 4 != 0 || bytes.is_empty() {
                    let message = format!("the SPIR-V binary has {} bytes, not a whole number of 32-bit words", bytes.len());
                    emit_error(binary.location(), &message);
                    return Err(PassFailure(message));
                }
                // gpu-module-to-binary writes the words in host byte order (SPIR-V's magic number tells a
                // reader which); decoding them the same way gives the words the serializer produced.
                let text = bytes
                    .chunks_exact(4)
                    .map(|word| u32::from_ne_bytes([word[0], word[1], word[2], word[3]]).to_string())
                    .collect::<Vec<_>>()
                    .join(",");
                words = Some(text);
                break;
            }
            if words.is_some() {
                break;
            }
        }
        let Some(words) = words else {
            tracing::debug!(target: "lego", "lego-spirv-binary-attribute: no SPIR-V gpu.binary");
            return Ok(());
        };
        if binaries.len() > 1 {
            tracing::debug!(target: "lego", "lego-spirv-binary-attribute: {} binaries; the first is published", binaries.len());
        }
        let context = crate::mlir_context::ContextHandle::of(&root);
        let attribute = melior::ir::attribute::StringAttribute::new(context.get(), &words);
        let name = StringRef::new(SPIRV_BINARY_ATTRIBUTE);
        unsafe { mlir_sys::mlirOperationSetDiscardableAttributeByName(root.to_raw(), name.to_raw(), attribute.to_raw()) };
        Ok(())
    }
}

#[derive(Clone)]
struct RequireRocmDeviceLibs {
    pipeline: String,
}

/// The GPU op a device-library function stands for, when one does (for the message).
fn device_library_source(callee: &str) -> Option<&'static str> {
    match callee {
        "__ockl_get_local_size" => Some("gpu.block_dim"),
        "__ockl_get_num_groups" => Some("gpu.grid_dim"),
        "__ockl_get_global_size" => Some("gpu.global_id"),
        _ if callee.starts_with("__ocml_") => Some("a math op"),
        _ => None,
    }
}

impl LegoPass for RequireRocmDeviceLibs {
    fn name(&self) -> &'static str {
        "lego-require-rocm-device-libs"
    }

    fn description(&self) -> &'static str {
        "Name the ops that need ROCm's device library"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let mut calls = Vec::new();
        walk_ops(root, &mut |op| {
            let name = op_name(op);
            // ROCDL's workgroup/grid size ops become __ockl calls when translated to LLVM IR.
            if name.starts_with("rocdl.workgroup.dim.") {
                calls.push((op.location(), "__ockl_get_local_size".to_string()));
                return;
            }
            if name.starts_with("rocdl.grid.dim.") {
                calls.push((op.location(), "__ockl_get_num_groups".to_string()));
                return;
            }
            if name != "llvm.call" {
                return;
            }
            let Ok(callee) = op.attribute("callee") else { return };
            if !unsafe { mlir_sys::mlirAttributeIsAFlatSymbolRef(callee.to_raw()) } {
                return;
            }
            let name = unsafe { StringRef::from_raw(mlir_sys::mlirFlatSymbolRefAttrGetValue(callee.to_raw())) };
            let name = name.as_str().unwrap_or_default().to_string();
            if name.starts_with("__ockl_") || name.starts_with("__ocml_") {
                calls.push((op.location(), name));
            }
        });
        if calls.is_empty() {
            return Ok(());
        }
        let pipeline = if self.pipeline.is_empty() { "this pipeline".to_string() } else { format!("'{}'", self.pipeline) };
        for (location, callee) in &calls {
            let what = match device_library_source(callee) {
                Some("gpu.block_dim") => "'gpu.block_dim' op (a block size that is not a launch constant)".to_string(),
                Some("gpu.grid_dim") => "'gpu.grid_dim' op (a grid size that is not a launch constant)".to_string(),
                Some(source) if source.starts_with("gpu.") => format!("'{source}' op"),
                Some(source) => source.to_string(),
                None => "this op".to_string(),
            };
            emit_error(
                *location,
                &format!(
                    "{what} needs ROCm's device library (it becomes a call to '{callee}'), which was not found \
                     (looked for amdgcn/bitcode in $ROCM_PATH, $ROCM_ROOT, $ROCM_HOME and /opt/rocm): install ROCm \
                     or set ROCM_PATH to compile it with {pipeline}; launch sizes that are constants need no library"
                ),
            );
        }
        Err(PassFailure(format!("{} op(s) need ROCm's device library", calls.len())))
    }
}
