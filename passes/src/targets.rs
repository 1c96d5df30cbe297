//! Target pipelines of docs/reference/passes.md: `lego-to-llvm` (CPU), `lego-to-wasm` (the CPU path, then LLVM's WebAssembly
//! backend: [`wasm`]) and `lego-to-{nvvm,rocdl,spirv,xevm,llvmspirv}` (GPU).
//!
//! Every GPU pipeline has the same three phases, built by [`gpu_pipeline`]:
//! 1. **lower + outline** (shared): `lego-require-gpu-code`, `lego-lower`,
//!    `lego-materialize-assume-bounds{cleanup=true}` (lego-lower has consumed the user's `lego.assume*`
//!    facts; this strips any `remui {lego.materialized}` left in the input),
//!    `lego-gpu-launch-sink-index-computations` (upstream's `gpu-launch-sink-index-computations` in linear
//!    time: constants the launch body uses are cloned into it, so they do not become kernel parameters: the
//!    kernel's parameters are exactly the buffers and runtime values it needs), `gpu-kernel-outlining`,
//!    `lego-kernel-parameters-in-argument-order` (outlining orders a kernel's parameters by first use; callers
//!    pass the function's arguments in signature order: [`kernel_parameter_order`]), and
//!    `lower-affine` (for the user's own affine ops — lego-lower emits none; every target wants plain arith,
//!    and lowering them before any `scf` → `cf` conversion keeps loops structured);
//! 2. **target conversion** (per target): attach the target attribute, convert the kernels' `gpu.module`s to
//!    the target dialect (NVVM, ROCDL, SPIR-V, LLVM for SPIR-V);
//! 3. **host lowering + binary** (per target): `gpu-to-llvm` for the host side and `gpu-module-to-binary`.
//!
//! so a new target is one small function returning its phase-2 and phase-3 text. The upstream reference is
//! MLIR's `gpu-lower-to-nvvm-pipeline` / `gpu-lower-to-xevm-pipeline`; we spell their pass sequences out so the
//! phases are ours (and `lego-lower` comes first).
//!
//! Kernels use the *bare-pointer* calling convention wherever upstream offers it (NVVM, ROCDL, SPIR-V): each
//! statically shaped memref parameter is a single pointer, so a kernel outlined from
//! `func.func @transpose(%in: memref<Nxf32>, %out: memref<Nxf32>)` is `transpose_kernel(float *in, float *out)`.
//! (`convert-gpu-to-llvm-spv`, used by XeVM and LLVM SPIR-V, has no such option: memrefs stay descriptors.)
//!
//! Where upstream leaves a gap, a small lego pass of [`gpu_passes`] fills it: the GPU-code checks; for SPIR-V
//! the entry-point ABI (workgroup size from the launch), numeric memory spaces, workgroup attributions as
//! workgroup allocations, and the `spirv.module` moved where `gpu-module-to-binary` looks for it.
//!
//! Options are validated here, when the pipeline is expanded and before any MLIR pass runs: LLVM aborts the
//! process on some bad combinations (a PTX ISA too old for the chip), and missing external tools (`ptxas`,
//! ROCm's `ld.lld`) should be reported as such, not as a failure deep in `gpu-module-to-binary`.

mod gpu_passes;
mod kernel_parameter_order;
mod sink_index_computations;
mod wasm;

use crate::registry::{Entry, OptionSpec, Options, PassInfo, RegistryError};
use std::path::{Path, PathBuf};

/// Every target pipeline, and the small passes they use.
pub fn target_pipelines() -> Vec<PassInfo> {
    let mut entries = vec![
        PassInfo {
            name: "lego-to-llvm",
            description: "lego-lower, then the upstream CPU path to the LLVM dialect (for mlir-translate --mlir-to-llvmir or a JIT)",
            options: &[],
            entry: Entry::Pipeline(lego_to_llvm),
        },
        PassInfo {
            name: "lego-to-nvvm",
            description: "lego-lower, kernel outlining, NVVM target, convert-gpu-to-nvvm (bare pointers), host lowering, gpu-module-to-binary",
            options: NVVM_OPTIONS,
            entry: Entry::Pipeline(lego_to_nvvm),
        },
        PassInfo {
            name: "lego-to-rocdl",
            description: "lego-lower, kernel outlining, ROCDL target, convert-gpu-to-rocdl (bare pointers), host lowering, gpu-module-to-binary",
            options: ROCDL_OPTIONS,
            entry: Entry::Pipeline(lego_to_rocdl),
        },
        PassInfo {
            name: "lego-to-spirv",
            description: "lego-lower, kernel outlining, SPIR-V target, convert-gpu-to-spirv, host lowering, serialized SPIR-V binary",
            options: SPIRV_OPTIONS,
            entry: Entry::Pipeline(lego_to_spirv),
        },
        PassInfo {
            name: "lego-to-xevm",
            description: "lego-lower, kernel outlining, Intel XeVM target, convert-gpu-to-llvm-spv, host lowering, SPIR-V binary",
            options: XEVM_OPTIONS,
            entry: Entry::Pipeline(lego_to_xevm),
        },
        PassInfo {
            name: "lego-to-llvmspirv",
            description: "lego-lower, kernel outlining, OpenCL-flavoured LLVM (convert-gpu-to-llvm-spv), host lowering, SPIR-V binary from LLVM's SPIR-V backend",
            options: LLVMSPIRV_OPTIONS,
            entry: Entry::Pipeline(lego_to_llvmspirv),
        },
    ];
    entries.extend(wasm::passes());
    entries.extend(gpu_passes::passes());
    entries
}

// ---------------------------------------------------------------------------------------------------------
// The shared shape.

/// Upstream `gpu-launch-sink-index-computations`, in linear time where the C++ shim is built
/// ([`sink_index_computations`]).
#[cfg(not(lego_no_diagnostic_shim))]
const SINK_INDEX_COMPUTATIONS: &str = "lego-gpu-launch-sink-index-computations";
#[cfg(lego_no_diagnostic_shim)]
const SINK_INDEX_COMPUTATIONS: &str = "gpu-launch-sink-index-computations";

/// Phase 1 + the target's phases 2 and 3. `name` is the pipeline's registered name (for messages).
fn gpu_pipeline(name: &str, target_conversion: &str, host_and_binary: &str) -> String {
    format!(
        "lego-require-gpu-code{{pipeline={name}}}, lego-lower, lego-materialize-assume-bounds{{cleanup=true}}, \
         {SINK_INDEX_COMPUTATIONS}, \
         gpu-kernel-outlining, lego-kernel-parameters-in-argument-order, lower-affine, {target_conversion}, {host_and_binary}"
    )
}

/// Host side shared by the LLVM-based GPU targets (NVVM, ROCDL): launches become runtime calls; kernels are
/// called with bare pointers, matching the kernels' conversion.
fn llvm_host_and_binary(binary_options: &str) -> String {
    format!(
        "gpu-to-llvm{{use-bare-pointers-for-kernels=true}}, gpu-module-to-binary{{{binary_options}}}, \
         convert-math-to-llvm, canonicalize, cse, reconcile-unrealized-casts"
    )
}

// ---------------------------------------------------------------------------------------------------------
// lego-to-llvm (CPU).

fn lego_to_llvm(options: &Options) -> Result<String, RegistryError> {
    Ok(cpu_to_llvm(options.pass_name()))
}

/// The CPU path, shared by `lego-to-llvm` and `lego-to-wasm` (`pipeline`: the name for the GPU-code message).
/// Phase 1 is `lego-lower` alone (nothing to outline; GPU code is rejected with a clear message); phase 2
/// is the usual upstream CPU path (mlir-opt's test-lower-to-llvm, minus linalg); there is no binary phase:
/// the result is LLVM dialect.
fn cpu_to_llvm(pipeline: &str) -> String {
    format!(
        "lego-reject-gpu-code{{pipeline={pipeline}}}, lego-lower, lego-materialize-assume-bounds{{cleanup=true}}, \
         convert-vector-to-scf, lower-affine, \
         convert-scf-to-cf, canonicalize, cse, \
         convert-vector-to-llvm, convert-math-to-llvm, expand-strided-metadata, lower-affine, \
         finalize-memref-to-llvm, convert-func-to-llvm, convert-arith-to-llvm, convert-index-to-llvm, \
         convert-cf-to-llvm, convert-ub-to-llvm, reconcile-unrealized-casts"
    )
}

// ---------------------------------------------------------------------------------------------------------
// NVVM.

const NVVM_OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "chip", default: "sm_70", description: "GPU architecture (sm_50 … sm_121f)" },
    OptionSpec {
        name: "features",
        default: "+ptx60",
        description: "PTX ISA version as +ptxNN (empty: the chip's minimum); must be new enough for the chip",
    },
    OptionSpec { name: "opt-level", default: "2", description: "LLVM optimization level (0-3)" },
    OptionSpec {
        name: "format",
        default: "fatbin",
        description: "offloading (LLVM bitcode), assembly/isa (PTX), binary/bin (cubin, needs ptxas), fatbin (needs ptxas and fatbinary)",
    },
];

/// NVPTX chips of LLVM 22 and the oldest PTX ISA version (×10) each needs, as measured with
/// `llc -mcpu=<chip> -mattr=+ptxNN` (LLVM aborts the process below these).
const NVPTX_CHIPS: &[(&str, u32)] = &[
    ("sm_50", 40), ("sm_52", 41), ("sm_53", 42),
    ("sm_60", 50), ("sm_61", 50), ("sm_62", 50),
    ("sm_70", 60), ("sm_72", 61), ("sm_75", 63),
    ("sm_80", 70), ("sm_86", 71), ("sm_87", 74), ("sm_88", 90), ("sm_89", 78),
    ("sm_90", 78), ("sm_90a", 80),
    ("sm_100", 86), ("sm_100a", 86), ("sm_100f", 88),
    ("sm_101", 86), ("sm_101a", 86), ("sm_101f", 88),
    ("sm_103", 88), ("sm_103a", 88), ("sm_103f", 88),
    ("sm_110", 90), ("sm_110a", 90), ("sm_110f", 90),
    ("sm_120", 87), ("sm_120a", 87), ("sm_120f", 88),
    ("sm_121", 88), ("sm_121a", 88), ("sm_121f", 88),
];

/// PTX ISA versions (×10) LLVM 22's NVPTX backend can emit (`+ptxNN` features).
const PTX_VERSIONS: &[u32] = &[
    32, 40, 41, 42, 43, 50, 60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74, 75, 76, 77, 78, 80, 81, 82, 83, 84, 85, 86,
    87, 88, 90,
];

fn ptx_version_text(version: u32) -> String {
    format!("{}.{}", version / 10, version % 10)
}

fn lego_to_nvvm(options: &Options) -> Result<String, RegistryError> {
    let pipeline = options.pass_name();
    let chip = options.string("chip").trim();
    let Some(&(_, needed)) = NVPTX_CHIPS.iter().find(|(name, _)| *name == chip) else {
        return Err(options.bad_value("chip", chip, &format!("an NVIDIA architecture, one of {}", names(NVPTX_CHIPS))));
    };
    let features = options.string("features").trim();
    let ptx = parse_ptx_features(options, features)?;
    if let Some(version) = ptx {
        if version < needed {
            let fix = PTX_VERSIONS.iter().find(|candidate| **candidate >= needed).copied().unwrap_or(needed);
            return Err(RegistryError::Other(format!(
                "{pipeline}: chip '{chip}' needs PTX ISA {} or newer, but features={features} selects PTX {}; \
                 use features=+ptx{fix} (or newer)",
                ptx_version_text(needed),
                ptx_version_text(version)
            )));
        }
    }
    // What LLVM sees is rebuilt from what was validated (no stray commas or spaces).
    let features = ptx.map(|version| format!("+ptx{version}")).unwrap_or_default();
    let opt_level = opt_level(options)?;
    let format = Format::parse(options, &[Format::Offload, Format::Assembly, Format::Binary, Format::Fatbin])?;
    let toolkit = match format {
        Format::Binary => Some(require_cuda_tools(pipeline, format, &["ptxas"])?),
        Format::Fatbin => Some(require_cuda_tools(pipeline, format, &["ptxas", "fatbinary"])?),
        Format::Offload | Format::Assembly => None,
    };
    let target_conversion = format!(
        "lego-align-workgroup-attributions, convert-vector-to-scf, convert-scf-to-cf, convert-nvgpu-to-nvvm, convert-nvvm-to-llvm, \
         convert-func-to-llvm, expand-strided-metadata, \
         nvvm-attach-target{{chip={chip} features={features} O={opt_level}}}, \
         lower-affine, convert-arith-to-llvm, convert-index-to-llvm{{index-bitwidth=64}}, canonicalize, cse, \
         gpu.module(convert-gpu-to-nvvm{{use-bare-ptr-memref-call-conv=true index-bitwidth=64}}, canonicalize, cse, \
         reconcile-unrealized-casts)"
    );
    let binary = binary_options(format, toolkit.flatten().as_deref());
    Ok(gpu_pipeline(pipeline, &target_conversion, &llvm_host_and_binary(&binary)))
}

/// `+ptxNN` (at most one; empty means "the chip's minimum", LLVM's default) → NN.
fn parse_ptx_features(options: &Options, features: &str) -> Result<Option<u32>, RegistryError> {
    let expected = "a PTX ISA feature +ptxNN (+ptx32 … +ptx90, e.g. features=+ptx80), or nothing";
    let mut version = None;
    for item in features.split(',').map(str::trim).filter(|item| !item.is_empty()) {
        let parsed = item.strip_prefix("+ptx").and_then(|digits| digits.parse::<u32>().ok());
        match parsed {
            Some(number) if PTX_VERSIONS.contains(&number) && version.is_none() => version = Some(number),
            _ => return Err(options.bad_value("features", features, expected)),
        }
    }
    Ok(version)
}

/// Finds the CUDA tools `gpu-module-to-binary` will run, where MLIR looks for them: the toolkit named by
/// `CUDA_ROOT`/`CUDA_HOME`/`CUDA_PATH`, `PATH`, `/usr/local/cuda`. Returns the toolkit root to hand to
/// `gpu-module-to-binary{toolkit=...}` (`None`: found on `PATH` outside a toolkit layout, MLIR finds it too).
fn require_cuda_tools(pipeline: &str, format: Format, tools: &[&str]) -> Result<Option<PathBuf>, RegistryError> {
    let mut candidates: Vec<PathBuf> = ["CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(|variable| std::env::var_os(variable))
        .filter(|value| !value.is_empty())
        .map(|root| PathBuf::from(root).join("bin"))
        .collect();
    candidates.extend(std::env::var_os("PATH").map(|path| std::env::split_paths(&path).collect::<Vec<_>>()).unwrap_or_default());
    candidates.push(PathBuf::from("/usr/local/cuda/bin"));
    for directory in &candidates {
        if tools.iter().all(|tool| is_executable(&directory.join(tool))) {
            tracing::debug!(target: "lego", "{pipeline}: found {} in {}", tools.join(", "), directory.display());
            let root = (directory.file_name().is_some_and(|name| name == "bin")).then(|| directory.parent().map(Path::to_path_buf));
            return Ok(root.flatten());
        }
    }
    Err(RegistryError::Other(format!(
        "{pipeline}: format={} needs the CUDA toolkit's {}, which {} not found (looked in $CUDA_ROOT/bin, \
         $CUDA_HOME/bin, $CUDA_PATH/bin, $PATH and /usr/local/cuda/bin); install the CUDA toolkit or set \
         CUDA_HOME, or use format=assembly to get PTX text (which needs no external tool)",
        format.name(),
        tools.iter().map(|tool| format!("`{tool}`")).collect::<Vec<_>>().join(" and "),
        if tools.len() == 1 { "was" } else { "were" },
    )))
}

fn is_executable(path: &Path) -> bool {
    let Ok(metadata) = std::fs::metadata(path) else { return false };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        metadata.is_file()
    }
}

// ---------------------------------------------------------------------------------------------------------
// ROCDL.

const ROCDL_OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "chip", default: "gfx900", description: "AMD GPU architecture (gfx9xx, gfx10xx, gfx11xx, gfx12xx)" },
    OptionSpec { name: "features", default: "", description: "AMDGPU target features, e.g. +wavefrontsize64,-xnack" },
    OptionSpec { name: "opt-level", default: "2", description: "LLVM optimization level (0-3)" },
    OptionSpec {
        name: "format",
        default: "fatbin",
        description: "offloading (LLVM bitcode), assembly/isa (AMDGCN assembly), binary/bin or fatbin (HSA code object, needs ROCm's ld.lld)",
    },
];

/// AMDGPU chips of LLVM 22 in the families convert-gpu-to-rocdl supports (`llc -march=amdgcn -mcpu=help`).
const AMDGPU_CHIPS: &[&str] = &[
    "gfx900", "gfx902", "gfx904", "gfx906", "gfx908", "gfx909", "gfx90a", "gfx90c", "gfx942", "gfx950",
    "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035",
    "gfx1036", "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153", "gfx1200",
    "gfx1201", "gfx1250", "gfx1251",
];

fn amdgpu_features() -> impl Iterator<Item = &'static str> {
    include_str!("targets/amdgpu_features.txt").lines().map(str::trim).filter(|line| !line.is_empty() && !line.starts_with('#'))
}

fn lego_to_rocdl(options: &Options) -> Result<String, RegistryError> {
    let pipeline = options.pass_name();
    let chip = options.string("chip").trim();
    if !AMDGPU_CHIPS.contains(&chip) {
        return Err(options.bad_value("chip", chip, &format!("an AMD GPU architecture, one of {}", AMDGPU_CHIPS.join(", "))));
    }
    let features = options.string("features").trim();
    let items: Vec<&str> = features.split(',').map(str::trim).filter(|item| !item.is_empty()).collect();
    for item in &items {
        let name = item.strip_prefix('+').or_else(|| item.strip_prefix('-'));
        if !name.is_some_and(|name| amdgpu_features().any(|known| known == name)) {
            return Err(options.bad_value(
                "features",
                features,
                &format!("a comma-separated list of +feature/-feature with AMDGPU features of LLVM (e.g. +wavefrontsize64,-xnack); '{item}' is not one"),
            ));
        }
    }
    // What LLVM sees is rebuilt from what was validated (no stray commas or spaces).
    let features = items.join(",");
    let opt_level = opt_level(options)?;
    let format = Format::parse(options, &[Format::Offload, Format::Assembly, Format::Binary, Format::Fatbin])?;
    let toolkit = match format {
        Format::Binary | Format::Fatbin => Some(require_rocm_lld(pipeline, format)?),
        Format::Offload | Format::Assembly => None,
    };
    // Inside kernels launched with constant sizes (outlining records them as known_block_size /
    // known_grid_size), int-range-optimizations folds gpu.block_dim / gpu.grid_dim to constants: otherwise
    // they become __ockl_get_local_size / __ockl_get_num_groups calls, which force linking ROCm's device
    // library even for format=assembly. What still needs the library without ROCm installed is reported,
    // naming the op, by lego-require-rocm-device-libs.
    let device_libs_check = if rocm_device_libs().is_none() {
        format!("lego-require-rocm-device-libs{{pipeline={pipeline}}}, ")
    } else {
        String::new()
    };
    let target_conversion = format!(
        "gpu.module(int-range-optimizations), lego-align-workgroup-attributions, \
         convert-vector-to-scf, convert-scf-to-cf, convert-func-to-llvm, expand-strided-metadata, \
         rocdl-attach-target{{chip={chip} features={features} O={opt_level}}}, \
         lower-affine, convert-arith-to-llvm, convert-index-to-llvm{{index-bitwidth=64}}, canonicalize, cse, \
         gpu.module(convert-gpu-to-rocdl{{chipset={chip} runtime=HIP use-bare-ptr-memref-call-conv=true index-bitwidth=64}}, \
         canonicalize, cse, reconcile-unrealized-casts), {device_libs_check}"
    );
    let binary = binary_options(format, toolkit.as_deref());
    Ok(gpu_pipeline(pipeline, target_conversion.trim_end_matches(", "), &llvm_host_and_binary(&binary)))
}

/// ROCm's device library bitcode directory (`<ROCm>/amdgcn/bitcode`), where MLIR's ROCDL target looks for
/// `ocml`/`ockl` when a kernel calls them; the ROCm root as in [`require_rocm_lld`].
fn rocm_device_libs() -> Option<PathBuf> {
    rocm_roots().into_iter().map(|root| root.join("amdgcn/bitcode")).find(|path| path.is_dir())
}

fn rocm_roots() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["ROCM_PATH", "ROCM_ROOT", "ROCM_HOME"]
        .iter()
        .filter_map(|variable| std::env::var_os(variable))
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .collect();
    roots.push(PathBuf::from("/opt/rocm"));
    roots
}

/// ROCDL links HSA code objects with `<ROCm>/llvm/bin/ld.lld`; the ROCm root comes from `ROCM_PATH`,
/// `ROCM_ROOT`, `ROCM_HOME` or `/opt/rocm`, as in MLIR.
fn require_rocm_lld(pipeline: &str, format: Format) -> Result<PathBuf, RegistryError> {
    rocm_roots()
        .into_iter()
        .find(|root| is_executable(&root.join("llvm/bin/ld.lld")))
        .ok_or_else(|| {
            RegistryError::Other(format!(
                "{pipeline}: format={} needs ROCm's linker `ld.lld`, which was not found (looked in \
                 $ROCM_PATH/llvm/bin, $ROCM_ROOT/llvm/bin, $ROCM_HOME/llvm/bin and /opt/rocm/llvm/bin); install \
                 ROCm or set ROCM_PATH, or use format=assembly to get AMDGCN assembly (which needs no external tool)",
                format.name()
            ))
        })
}

// ---------------------------------------------------------------------------------------------------------
// SPIR-V (upstream's SPIR-V dialect and serializer).

const SPIRV_OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "spirv-version", default: "1.5", description: "SPIR-V version of the target environment (1.0-1.6)" },
    OptionSpec { name: "version", default: "", description: "alias of spirv-version (kept for compatibility)" },
    OptionSpec { name: "client-api", default: "vulkan", description: "vulkan (Shader, storage buffers) or opencl (Kernel, physical addressing)" },
];

fn lego_to_spirv(options: &Options) -> Result<String, RegistryError> {
    let pipeline = options.pass_name();
    const VERSIONS: &[&str] = &["1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6"];
    let spirv_version = options.string("spirv-version").trim();
    let alias = options.string("version").trim();
    if !VERSIONS.contains(&spirv_version) {
        return Err(options.bad_value("spirv-version", spirv_version, "a SPIR-V version from 1.0 to 1.6"));
    }
    if !alias.is_empty() && !VERSIONS.contains(&alias) {
        return Err(options.bad_value("version", alias, "a SPIR-V version from 1.0 to 1.6"));
    }
    // `version` (the old name) is an alias: given, it wins (an explicit spirv-version=1.5 cannot be told
    // apart from the default).
    let version = if alias.is_empty() { spirv_version } else { alias };
    let client_api = options.string("client-api").trim().to_ascii_lowercase();
    // Vulkan: shader capability, buffers are StorageBuffer (32-bit indices, as Vulkan drivers expect);
    // the host passes each buffer's size after its pointer, as MLIR's Vulkan runtime wrappers need.
    // OpenCL: kernel capability, physical 64-bit addressing.
    let (target_env, index64, intersperse) = match client_api.as_str() {
        "vulkan" => ("caps=Shader exts=SPV_KHR_storage_buffer_storage_class client_api=Vulkan", false, true),
        "opencl" => ("caps=Addresses,Kernel,Int64 client_api=OpenCL", true, false),
        _ => return Err(options.bad_value("client-api", options.string("client-api"), "vulkan or opencl")),
    };
    // arith-expand first: the SPIR-V conversion has no pattern for floordivsi / ceildivsi / ceildivui (from
    // user code or from affine expansion) and friends.
    let target_conversion = format!(
        "arith-expand, fold-memref-alias-ops, lego-numeric-gpu-address-spaces, lego-workgroup-attributions-to-alloc, \
         spirv-attach-target{{ver=v{version} {target_env}}}, lego-spirv-entry-point-abi, \
         convert-gpu-to-spirv{{use-64bit-index={index64}}}, lego-spirv-nest-modules, \
         gpu.module(spirv.module(spirv-lower-abi-attrs, spirv-update-vce))"
    );
    // SPIR-V has a single binary form; gpu-module-to-binary writes the serialized module's words, and
    // lego-spirv-binary-attribute copies them (decimal, comma-separated) into the top module's
    // lego.spirv_binary, the published pipeline's output.
    let host_and_binary = format!(
        "gpu-module-to-binary{{format=bin}}, lego-spirv-binary-attribute, convert-scf-to-cf, convert-arith-to-llvm, convert-index-to-llvm, \
         convert-func-to-llvm, finalize-memref-to-llvm, \
         gpu-to-llvm{{use-bare-pointers-for-kernels=true intersperse-sizes-for-kernels={intersperse}}}, \
         reconcile-unrealized-casts"
    );
    let text = gpu_pipeline(pipeline, &target_conversion, &host_and_binary);
    // Vulkan kernels index with 32 bits: the first check reports index constants that do not fit, at the constant.
    let check = format!("lego-require-gpu-code{{pipeline={pipeline}}}");
    Ok(if index64 { text } else { text.replacen(&check, &format!("lego-require-gpu-code{{pipeline={pipeline} kernel-index-bitwidth=32}}"), 1) })
}

// ---------------------------------------------------------------------------------------------------------
// XeVM and OpenCL-flavoured LLVM SPIR-V (both LLVM-dialect kernels serialized by LLVM's SPIR-V backend).

const XEVM_OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "chip", default: "bmg", description: "Intel GPU (bmg, pvc)" },
    OptionSpec { name: "opt-level", default: "2", description: "LLVM optimization level (0-3)" },
    OptionSpec {
        name: "format",
        default: "fatbin",
        description: "offloading (LLVM bitcode), assembly/isa (SPIR-V text), binary/bin or fatbin (SPIR-V binary)",
    },
];

const LLVMSPIRV_OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "chip", default: "generic", description: "target device (published: unused); 'generic' is the plain spirv64 target" },
    OptionSpec {
        name: "format",
        default: "assembly",
        description: "assembly/isa: stop after host lowering (the gpu.module keeps its spir_kernelcc LLVM functions); binary/bin: serialize with LLVM's SPIR-V backend into a gpu.binary; offloading: LLVM bitcode in a gpu.binary",
    },
    OptionSpec { name: "opt-level", default: "2", description: "LLVM optimization level (0-3), used when serializing" },
];

/// Host side of the SPIR-V-via-LLVM targets (upstream's gpu-lower-to-xevm-pipeline host phase). Kernels keep
/// memref descriptors: convert-gpu-to-llvm-spv has no bare-pointer option.
fn spirv_llvm_host_and_binary(format: Format) -> String {
    format!("{}, gpu-module-to-binary{{{}}}", spirv_llvm_host_lowering(), binary_options(format, None))
}

fn spirv_llvm_host_lowering() -> String {
    "convert-scf-to-cf, expand-strided-metadata, gpu-to-llvm, lower-affine, convert-vector-to-llvm, \
     convert-to-llvm, reconcile-unrealized-casts, gpu.module(canonicalize, cse)"
        .into()
}

fn lego_to_xevm(options: &Options) -> Result<String, RegistryError> {
    let pipeline = options.pass_name();
    let chip = options.string("chip").trim();
    // The chips MLIR 22 knows (its Intel GPU uArch table).
    if !["bmg", "pvc"].contains(&chip) {
        return Err(options.bad_value("chip", chip, "an Intel GPU known to MLIR's XeVM target: bmg or pvc"));
    }
    let opt_level = opt_level(options)?;
    let format = Format::parse(options, &[Format::Offload, Format::Assembly, Format::Binary, Format::Fatbin])?;
    let target_conversion = format!(
        "convert-vector-to-scf, lego-numeric-gpu-address-spaces, xevm-attach-target{{chip={chip} O={opt_level}}}, \
         lower-affine, \
         gpu.module(convert-math-to-xevm, convert-xegpu-to-xevm, convert-gpu-to-llvm-spv{{use-64bit-index=true}}, \
         cse, reconcile-unrealized-casts)"
    );
    Ok(gpu_pipeline(pipeline, &target_conversion, &spirv_llvm_host_and_binary(format)))
}

fn lego_to_llvmspirv(options: &Options) -> Result<String, RegistryError> {
    let pipeline = options.pass_name();
    let opt_level = opt_level(options)?;
    let format = Format::parse(options, &[Format::Offload, Format::Assembly, Format::Binary])?;
    let chip = options.string("chip").trim();
    if chip.is_empty() || !chip.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Err(options.bad_value("chip", chip, "'generic' or a device name (letters, digits, '_', '-')"));
    }
    let chip = if chip == "generic" { "" } else { chip };
    // Only generic conversions (OpenCL built-ins, spir_kernel): no XeVM/XeGPU ops. As published, the pipeline
    // stops after host lowering: the gpu.module keeps `llvm.func spir_kernelcc` kernels for the user's own
    // SPIR-V toolchain. Serializing is an opt-in (format=bin / offloading): upstream's one serializer for
    // LLVM-dialect SPIR-V kernels is the XeVM target's; with the generic spirv64 triple and no chip it emits
    // plain OpenCL SPIR-V (Kernel capability, OpenCL.std) through LLVM's SPIR-V backend.
    let attach = match format {
        Format::Assembly => String::new(),
        _ => format!("xevm-attach-target{{triple=spirv64-unknown-unknown chip={chip} O={opt_level}}}, "),
    };
    let target_conversion = format!(
        "convert-vector-to-scf, lego-numeric-gpu-address-spaces, {attach}\
         lower-affine, gpu.module(convert-gpu-to-llvm-spv{{use-64bit-index=true}}, cse, reconcile-unrealized-casts)"
    );
    let host_and_binary = match format {
        Format::Assembly => spirv_llvm_host_lowering(),
        _ => spirv_llvm_host_and_binary(format),
    };
    Ok(gpu_pipeline(pipeline, &target_conversion, &host_and_binary))
}

// ---------------------------------------------------------------------------------------------------------
// Shared option parsing.

/// `gpu-module-to-binary` formats (upstream names and aliases).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Offload,
    Assembly,
    Binary,
    Fatbin,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::Offload => "offloading",
            Format::Assembly => "assembly",
            Format::Binary => "binary",
            Format::Fatbin => "fatbin",
        }
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            Format::Offload => &["offloading", "offload", "llvm"],
            Format::Assembly => &["assembly", "isa"],
            Format::Binary => &["binary", "bin"],
            Format::Fatbin => &["fatbin", "fatbinary"],
        }
    }

    /// The `format` option, restricted to what the target supports.
    fn parse(options: &Options, allowed: &[Format]) -> Result<Format, RegistryError> {
        let text = options.string("format").trim();
        allowed.iter().copied().find(|format| format.aliases().contains(&text)).ok_or_else(|| {
            let names: Vec<String> = allowed.iter().map(|format| format.aliases().join("/")).collect();
            options.bad_value("format", text, &format!("one of {}", names.join(", ")))
        })
    }
}

/// Options of `gpu-module-to-binary`.
fn binary_options(format: Format, toolkit: Option<&Path>) -> String {
    let mut text = format!("format={}", format.name());
    if let Some(toolkit) = toolkit {
        // Pipeline option values may be quoted; paths with spaces or braces would otherwise split the text.
        let path = toolkit.to_string_lossy();
        if path.contains('"') {
            tracing::debug!(target: "lego", "toolkit path {path} contains a quote; leaving it to MLIR's search");
        } else {
            text.push_str(&format!(" toolkit=\"{path}\""));
        }
    }
    text
}

fn opt_level(options: &Options) -> Result<u64, RegistryError> {
    let text = options.string("opt-level").trim();
    match text.parse::<u64>() {
        Ok(level) if level <= 3 => Ok(level),
        _ => Err(options.bad_value("opt-level", text, "an optimization level from 0 to 3")),
    }
}

fn names(chips: &[(&str, u32)]) -> String {
    chips.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Registry;

    fn expand(name: &str, options: &str) -> Result<String, RegistryError> {
        let registry = Registry::default();
        let info = registry.lookup(name).expect("registered");
        let options = Options::parse(info, Some(options))?;
        match info.entry {
            Entry::Pipeline(expand) => expand(&options),
            Entry::Pass(_) => panic!("{name} is not a pipeline"),
        }
    }

    #[test]
    fn every_pipeline_starts_with_lego_lower() {
        for name in ["lego-to-llvm", "lego-to-wasm", "lego-to-nvvm", "lego-to-rocdl", "lego-to-spirv", "lego-to-xevm", "lego-to-llvmspirv"] {
            let options = if matches!(name, "lego-to-nvvm" | "lego-to-rocdl") { "format=assembly" } else { "" };
            let text = expand(name, options).expect(name);
            // First the GPU-code check (require or reject), then lego-lower.
            let check = if matches!(name, "lego-to-llvm" | "lego-to-wasm") { "lego-reject-gpu-code" } else { "lego-require-gpu-code" };
            // (lego-to-spirv for Vulkan also gives the check the kernels' 32-bit index width.)
            let extra = if name == "lego-to-spirv" { " kernel-index-bitwidth=32" } else { "" };
            let expected = format!("{check}{{pipeline={name}{extra}}}, lego-lower,");
            assert!(text.starts_with(&expected), "{name}: {text}");
        }
    }

    #[test]
    fn nvvm_chip_needs_new_enough_ptx() {
        let error = expand("lego-to-nvvm", "chip=sm_90 format=assembly").unwrap_err().to_string();
        assert!(error.contains("chip 'sm_90' needs PTX ISA 7.8 or newer"), "{error}");
        assert!(error.contains("features=+ptx78"), "{error}");
        let text = expand("lego-to-nvvm", "chip=sm_90 features=+ptx80 format=assembly").unwrap();
        assert!(text.contains("nvvm-attach-target{chip=sm_90 features=+ptx80 O=2}"), "{text}");
        assert!(text.contains("use-bare-ptr-memref-call-conv=true"), "{text}");
        // No features: LLVM's default is the chip's minimum PTX version.
        assert!(expand("lego-to-nvvm", "chip=sm_90 features= format=isa").is_ok());
    }

    #[test]
    fn nvvm_rejects_unknown_chip_and_features() {
        let error = expand("lego-to-nvvm", "chip=sm_91 format=assembly").unwrap_err().to_string();
        assert!(error.contains("invalid value 'sm_91' for option 'chip'"), "{error}");
        let error = expand("lego-to-nvvm", "features=+ptx99 format=assembly").unwrap_err().to_string();
        assert!(error.contains("option 'features'"), "{error}");
        let error = expand("lego-to-nvvm", "features=ptx80 format=assembly").unwrap_err().to_string();
        assert!(error.contains("option 'features'"), "{error}");
        let error = expand("lego-to-nvvm", "format=cubin").unwrap_err().to_string();
        assert!(error.contains("option 'format'"), "{error}");
        let error = expand("lego-to-nvvm", "opt-level=4 format=isa").unwrap_err().to_string();
        assert!(error.contains("option 'opt-level'"), "{error}");
    }

    #[test]
    fn rocdl_validates_chip_and_features() {
        assert!(expand("lego-to-rocdl", "chip=gfx942 features=+wavefrontsize64,-xnack format=isa").is_ok());
        let error = expand("lego-to-rocdl", "chip=gfx1 format=isa").unwrap_err().to_string();
        assert!(error.contains("option 'chip'"), "{error}");
        let error = expand("lego-to-rocdl", "features=+nonsense format=isa").unwrap_err().to_string();
        assert!(error.contains("'+nonsense' is not one"), "{error}");
    }

    #[test]
    fn spirv_options() {
        let text = expand("lego-to-spirv", "").unwrap();
        assert!(text.contains("spirv-attach-target{ver=v1.5 caps=Shader"), "{text}");
        let text = expand("lego-to-spirv", "version=1.3 client-api=opencl").unwrap();
        assert!(text.contains("ver=v1.3 caps=Addresses,Kernel,Int64 client_api=OpenCL"), "{text}");
        let text = expand("lego-to-spirv", "spirv-version=1.6").unwrap();
        assert!(text.contains("ver=v1.6 caps=Shader"), "{text}");
        assert!(text.contains("arith-expand"), "{text}");
        assert!(text.contains("gpu-module-to-binary{format=bin}, lego-spirv-binary-attribute"), "{text}");
        let error = expand("lego-to-spirv", "spirv-version=9.9").unwrap_err().to_string();
        assert!(error.contains("invalid value '9.9' for option 'spirv-version'"), "{error}");
        assert!(expand("lego-to-spirv", "version=2.0").is_err());
        assert!(expand("lego-to-spirv", "client-api=metal").is_err());
    }
}
