//! lego passes and pipelines, and the pass registry that `lego-opt`, the C API and embedders share.
//!
//! Each pass lives in its own module as a small [`external::LegoPass`] implementation; [`all_passes`] is the
//! one list of registered names. Pipelines are in [`pipelines`].

pub mod canonicalize;
pub mod choose_smem_layout;
pub mod cleanup;
pub mod compact;
pub mod constant_inputs;
pub mod diagnostics;
pub mod external;
pub mod lazy_canonicalizer;
pub mod lowering;
pub mod mlir_context;
pub mod normalization;
pub mod pipeline_text;
pub mod pipelines;
pub mod registry;
pub mod simplify;
pub mod assume_bounds;
pub mod to_arith;
pub mod strength_reduction;
pub mod targets;
pub mod verify;
pub mod vectorize;
pub mod cpu_pipelines;
pub mod to_linalg;
pub use verify::{
    analyze_memory, bounds_checks, genp_obligation, smt_encode, verify_bank_conflicts, verify_bijectivity, verify_checks, verify_coalescing, verify_common,
};

pub use registry::{build_pass_manager, Entry, OptionSpec, Options, PassInfo, Registry, RegistryError};

pub use registry::register_upstream_passes;

/// The crate root fills the registry, so that the registry module imports none of the passes it holds.
impl Default for Registry {
    fn default() -> Self {
        let mut registry = Registry::with_entries(all_passes());
        for hook in pipelines::upstream_hooks() {
            registry.add_upstream_hook(hook);
        }
        registry
    }
}

/// Every lego pass and pipeline, in the order `--list-passes` shows them.
pub fn all_passes() -> Vec<PassInfo> {
    let mut passes = Vec::new();
    passes.extend(pipelines::lowering_passes());
    passes.extend(pipelines::canonicalization_passes());
    passes.extend(pipelines::verification_passes());
    passes.extend(pipelines::arithmetic_passes());
    passes.extend(pipelines::pipelines());
    passes.extend(targets::target_pipelines());
    passes.extend(cpu_pipelines::cpu_passes());
    passes
}

#[cfg(test)]
mod differential_tests;
