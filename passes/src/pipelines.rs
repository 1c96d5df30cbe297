//! Pipelines (registered names of passes.md) and the names of passes still to be written.
//!
//! A pipeline expands to pipeline text, so it can mix lego and upstream passes and nest freely.

use crate::registry::{Entry, OptionSpec, Options, PassInfo, RegistryError};

/// Passes of passes.md whose implementation has not landed yet: the names are registered so that pipeline
/// text using them parses and options are checked, and building them fails with a clear message.
pub fn planned_passes() -> Vec<PassInfo> {
    const PLANNED: &[(&str, &str, &[OptionSpec])] = &[
        ("lego-normalization", "Desugar row/col/tile_by (and expand_by where possible) into reg_p/gen_p/order_by/group_by", &[]),
        ("lego-to-arith", "Lower apply/apply_inverse/load/store/cast_view/gen_p to arith, scf, math, memref and affine", &[]),
        ("lego-arith-simplification", "Table II div/mod rules with proved side conditions, factoring, folding", &[
            OptionSpec { name: "verify-rewrites", default: "false", description: "prove every rewrite equivalent with Z3 (translation validation)" },
        ]),
        ("lego-materialize-assume-bounds", "Turn lego.assume facts into range information upstream passes use", &[
            OptionSpec { name: "cleanup", default: "false", description: "remove the scaffolding again" },
        ]),
        ("lego-generate-bounds-checks", "Insert lego.assert_apply_bounds / assert_inv_bounds before apply / apply_inverse", &[]),
        ("lego-verify", "Prove or refute every lego.check (coalescing, bank conflicts) with Z3", &[]),
        ("lego-verify-bijectivity", "Prove that each gen_p's inv inverts its apply (Z3)", &[]),
        ("lego-external-smt-verifier", "Prove or refute the lego.assert_* bounds obligations (Z3)", &[]),
    ];
    PLANNED
        .iter()
        .map(|(name, description, options)| PassInfo { name, description, options, entry: Entry::Pass(not_implemented) })
        .collect()
}

fn not_implemented(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    Err(RegistryError::Other(format!("pass '{}' is registered but not implemented yet", options.pass_name())))
}

/// Index-arithmetic optimization passes (issue: provably minimal index arithmetic).
pub fn arithmetic_passes() -> Vec<PassInfo> {
    vec![PassInfo {
        name: "lego-strength-reduction",
        description: "Power-of-two muli/divui/remui to shli/shrui/andi",
        options: &[],
        entry: Entry::Pass(|_| Ok(crate::strength_reduction::create())),
    }]
}

/// The pipelines of passes.md.
pub fn pipelines() -> Vec<PassInfo> {
    vec![PassInfo {
        name: "lego-lower",
        description: "normalization → to-arith → canonicalize/CSE → arith-simplification → verify → strength-reduction → canonicalize/CSE",
        options: &[],
        entry: Entry::Pipeline(lego_lower),
    }]
}

fn lego_lower(_: &Options) -> Result<String, RegistryError> {
    Ok("lego-normalization, lego-to-arith, canonicalize, cse, lego-arith-simplification, lego-verify, \
        lego-strength-reduction, canonicalize, cse"
        .into())
}
