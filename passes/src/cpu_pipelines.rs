//! The CPU vector family (docs/passes/lego-vectorize.md, docs/passes/lego-to-x86-vector.md,
//! docs/passes/lego-to-arm-neon.md, docs/passes/lego-to-arm-sve.md): the registry entries of `lego-vectorize`,
//! its pattern passes and `convert-lego-to-linalg`, and the three pipelines that run them between `lego-lower`
//! and the upstream path to the LLVM dialect.

use crate::registry::{Entry, OptionSpec, Options, PassInfo, RegistryError};

const X86_OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "cpu", default: "skx", description: "Target CPU: skx|znver3|... (sets LLVM target features)" },
    OptionSpec {
        name: "reassoc-fp",
        default: "true",
        description: "Allow FP reduction reordering (fast-math reassoc); default true; set false for strict IEEE-754 reproducibility",
    },
    OptionSpec {
        name: "use-vec-alignment",
        default: "false",
        description: "Emit aligned load/store hints (64-byte for AVX-512); default false; only safe when ALL buffers are 64-byte aligned",
    },
    OptionSpec {
        name: "use-linalg-vectorize",
        default: "true",
        description: "Use convert-lego-to-linalg + upstream linalg::vectorize for affine loops; falls through to custom lego-vectorize for non-affine loops (Z-Morton et al). Default: true.",
    },
    OptionSpec {
        name: "isa",
        default: "host",
        description: "ours: vector width, avx512 | avx2 | host (AVX-512 if the machine running lego-opt has it, else AVX2)",
    },
];

const NEON_OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "cpu",
    default: "cortex-a76",
    description: "Target CPU (for the llc step; the MLIR stages do not depend on it)",
}];

const SVE_OPTIONS: &[OptionSpec] = &[OptionSpec {
    name: "cpu",
    default: "neoverse-v1",
    description: "Target CPU (for the llc step; the MLIR stages do not depend on it)",
}];

pub fn cpu_passes() -> Vec<PassInfo> {
    vec![
        PassInfo {
            name: "lego-vectorize",
            description: "Strip-mine and vectorize innermost scf.for loops after lego-lower: unit, strided, broadcast and gather/scatter accesses, masked stores, reductions, scalar remainder for any trip count",
            options: crate::vectorize::OPTIONS,
            entry: Entry::Pass(crate::vectorize::create),
        },
        PassInfo {
            name: "lego-vectorize-compact",
            description: "Vectorize stream compaction (if cond[i] <pred> t: out[k++] = A[i]) with vector.compressstore and a popcount",
            options: crate::vectorize::patterns::OPTIONS,
            entry: Entry::Pass(crate::vectorize::patterns::create_compact),
        },
        PassInfo {
            name: "lego-vectorize-argmin",
            description: "Vectorize argmin/argmax (if A[i] < val: val = A[i], idx = i) with per-lane value and index accumulators; the first index of the extreme wins",
            options: crate::vectorize::patterns::OPTIONS,
            entry: Entry::Pass(crate::vectorize::argmin::create),
        },
        PassInfo {
            name: "lego-vectorize-scan",
            description: "Vectorize an inclusive prefix sum (acc = acc + A[i]; B[i] = acc) with log2(L) shuffle-and-add stages per strip",
            options: crate::vectorize::patterns::OPTIONS,
            entry: Entry::Pass(crate::vectorize::scan::create),
        },
        PassInfo {
            name: "lego-vectorize-rle",
            description: "Vectorize run-length/edge-detect compaction (if A[i] != prev: out[k++] = A[i]; prev = A[i]) with a lane shift and vector.compressstore",
            options: crate::vectorize::patterns::OPTIONS,
            entry: Entry::Pass(crate::vectorize::rle::create),
        },
        PassInfo {
            name: "lego-vectorize-scatter-add",
            description: "Vectorize a histogram/scatter-add (hist[bin[i]] += delta) with gather + scatter and a per-strip conflict test (in no pipeline)",
            options: crate::vectorize::patterns::OPTIONS,
            entry: Entry::Pass(crate::vectorize::scatter_add::create),
        },
        PassInfo {
            name: "lego-vectorize-filtered-reduce",
            description: "Vectorize a predicated reduction (if cond[i] <pred> t: acc = acc op A[i], op add/mul/max/min) with a select of the identity",
            options: crate::vectorize::patterns::OPTIONS,
            entry: Entry::Pass(crate::vectorize::patterns::create_filtered_reduce),
        },
        PassInfo {
            name: "convert-lego-to-linalg",
            description: "Raise trivially affine scf.for loops (identity-indexed, trip count a constant multiple of 64) to linalg.generic; vectorize=true tiles by 64 and vectorizes them with upstream linalg vectorization",
            options: crate::to_linalg::OPTIONS,
            entry: Entry::Pass(crate::to_linalg::create),
        },
        PassInfo {
            name: "lego-to-x86-vector",
            description: "lego-lower, convert-lego-to-linalg{vectorize=true}, the pattern passes, lego-vectorize (AVX-512 or AVX2), then the upstream CPU path to the LLVM dialect",
            options: X86_OPTIONS,
            entry: Entry::Pipeline(lego_to_x86_vector),
        },
        PassInfo {
            name: "lego-to-arm-neon",
            description: "lego-lower, lego-vectorize{target=neon} (128-bit vectors), then the upstream CPU path to the LLVM dialect",
            options: NEON_OPTIONS,
            entry: Entry::Pipeline(lego_to_arm_neon),
        },
        PassInfo {
            name: "lego-to-arm-sve",
            description: "lego-lower, lego-vectorize{target=sve} (scalable vectors, vector<[4]xf32>, vscale), then the upstream CPU path to the LLVM dialect",
            options: SVE_OPTIONS,
            entry: Entry::Pipeline(lego_to_arm_sve),
        },
    ]
}

/// Whether the machine running us has AVX-512 (the `host` choice of `lego-to-x86-vector`).
fn host_has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The vector phase and the lowering to LLVM, shared by the three pipelines.
fn cpu_vector(pipeline: &str, target: &str, reassoc: bool, alignment: bool, patterns: bool, linalg: bool) -> String {
    // The published x86 pipeline runs the pattern passes before lego-vectorize, in this order (its NEON/SVE
    // ones do not; scatter-add is in none).
    let patterns = if patterns {
        ["compact", "argmin", "scan", "filtered-reduce", "rle"]
            .iter()
            .map(|name| format!("func.func(lego-vectorize-{name}{{target={target}}}), canonicalize, cse, "))
            .collect()
    } else {
        String::new()
    };
    // Affine loops to linalg and upstream's vectorizer first (x86 only, as published); the rest stays scf.for.
    let linalg = if linalg { "func.func(convert-lego-to-linalg{vectorize=true}), canonicalize, cse, " } else { "" };
    format!(
        "lego-reject-gpu-code{{pipeline={pipeline}}}, lego-lower, lego-materialize-assume-bounds{{cleanup=true}}, \
         canonicalize, cse, {linalg}{patterns}func.func(lego-vectorize{{target={target}}}), canonicalize, cse, \
         convert-vector-to-scf, lower-affine, convert-scf-to-cf, canonicalize, cse, \
         convert-vector-to-llvm{{reassociate-fp-reductions={reassoc} use-vector-alignment={alignment}}}, \
         convert-math-to-llvm, expand-strided-metadata, lower-affine, \
         finalize-memref-to-llvm, convert-func-to-llvm, convert-arith-to-llvm, convert-index-to-llvm, \
         convert-cf-to-llvm, convert-ub-to-llvm, reconcile-unrealized-casts"
    )
}

fn lego_to_x86_vector(options: &Options) -> Result<String, RegistryError> {
    let isa = match options.string("isa") {
        "host" => {
            if host_has_avx512() {
                "avx512"
            } else {
                "avx2"
            }
        }
        "avx512" => "avx512",
        "avx2" => "avx2",
        other => return Err(options.bad_value("isa", other, "avx512, avx2 or host")),
    };
    if options.string("cpu").is_empty() {
        return Err(options.bad_value("cpu", "", "a CPU name"));
    }
    let linalg = options.bool("use-linalg-vectorize")?;
    Ok(cpu_vector(options.pass_name(), isa, options.bool("reassoc-fp")?, options.bool("use-vec-alignment")?, true, linalg))
}

fn lego_to_arm_neon(options: &Options) -> Result<String, RegistryError> {
    Ok(cpu_vector(options.pass_name(), "neon", true, false, false, false))
}

fn lego_to_arm_sve(options: &Options) -> Result<String, RegistryError> {
    Ok(cpu_vector(options.pass_name(), "sve", true, false, false, false))
}
