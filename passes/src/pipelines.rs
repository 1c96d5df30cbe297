//! Pipelines and the pass table (registered names of docs/reference/passes.md).
//!
//! A pipeline expands to pipeline text, so it can mix lego and upstream passes and nest freely.

use crate::{
    pipeline_text::{self, PassElement},
    registry::{Entry, OptionSpec, Options, PassInfo, RegistryError, UpstreamHook},
};
use melior::pass::OperationPassManager;

/// SMT verification passes (docs/verification.md): bijectivity of gen_p's, lego.check properties, bounds,
/// and the published legacy verification passes.
pub fn verification_passes() -> Vec<PassInfo> {
    vec![
        PassInfo {
            name: "lego-generate-bounds-checks",
            description: "Insert lego.assert_apply_bounds / assert_inv_bounds before apply / apply_inverse",
            options: &[],
            entry: Entry::Pass(crate::bounds_checks::create_generate),
        },
        PassInfo {
            name: "lego-verify",
            description: "Prove or refute every lego.check (coalescing, bank conflicts) with Z3",
            options: crate::verify_checks::OPTIONS,
            entry: Entry::Pass(crate::verify_checks::create),
        },
        PassInfo {
            name: "lego-analyze-memory",
            description: "Exact bank-conflict degree of every shared access and sectors per warp request of every global access in gpu.launch kernels (Z3)",
            options: crate::analyze_memory::OPTIONS,
            entry: Entry::Pass(crate::analyze_memory::create),
        },
        PassInfo {
            name: "lego-choose-smem-layout",
            description: "Choose each shared tile's layout (original, padding, XOR swizzle) with the least bank-conflict degree, proved with Z3",
            options: crate::choose_smem_layout::OPTIONS,
            entry: Entry::Pass(crate::choose_smem_layout::create),
        },
        PassInfo {
            name: "lego-verify-bijectivity",
            description: "Prove that each gen_p's inv inverts its apply (Z3)",
            options: crate::verify_bijectivity::OPTIONS,
            entry: Entry::Pass(crate::verify_bijectivity::create),
        },
        PassInfo {
            name: "lego-external-smt-verifier",
            description: "Prove or refute the lego.assert_* bounds obligations (Z3)",
            options: crate::bounds_checks::VERIFIER_OPTIONS,
            entry: Entry::Pass(crate::bounds_checks::create_verifier),
        },
        PassInfo {
            name: "lego-verify-coalescing",
            description: "(legacy) Warn on every lego.apply in a thread-id function whose result is not a coalesced warp access",
            options: crate::verify_coalescing::OPTIONS,
            entry: Entry::Pass(crate::verify_coalescing::create),
        },
        PassInfo {
            name: "lego-verify-bank-conflicts",
            description: "(legacy) Warn on every lego.apply in a thread-id function whose result may cause bank conflicts",
            options: crate::verify_bank_conflicts::OPTIONS,
            entry: Entry::Pass(crate::verify_bank_conflicts::create),
        },
        PassInfo {
            name: "lego-verify-consistency",
            description: "(legacy) Error 'Inconsistent GenP' once per gen_p whose inv does not invert apply; never fails",
            options: crate::verify_common::OPTIONS,
            entry: Entry::Pass(crate::verify_bijectivity::create_consistency),
        },
        PassInfo {
            name: "lego-verify-genp-consistency",
            description: "(legacy) The same as lego-verify-consistency",
            options: crate::verify_common::OPTIONS,
            entry: Entry::Pass(crate::verify_bijectivity::create_consistency),
        },
    ]
}

/// The lowering passes: `lego-normalization` and `lego-to-arith`.
pub fn lowering_passes() -> Vec<PassInfo> {
    vec![
        PassInfo {
            name: "lego-normalization",
            description: "row/col → reg_p, tile_by → its normal form, assume_bounds → cmpi + lego.assume (docs/reference/lowering.md §1)",
            options: &[OptionSpec {
                name: "fold",
                default: "false",
                description: "ours: fold identity pieces and nesting instead, leaving tile_by and assume_bounds to lego-to-arith (the form lego-lower starts from)",
            }],
            entry: Entry::Pass(|options| Ok(crate::normalization::create(options.bool("fold")?))),
        },
        PassInfo {
            name: "lego-to-arith",
            description: "Lower apply/apply_inverse/load/store/cast_view/gen_p to arith, scf, math and memref",
            options: &[
                OptionSpec {
                    name: "assume-bounds",
                    default: "false",
                    description: "state each layout input's range (index < dim, flat < size) as lego.assume_bounds for the simplifier",
                },
                crate::canonicalize::VERIFY_GEN_P,
            ],
            entry: Entry::Pass(|options| {
                // Inside lego-lower, which erases the facts again, each is stated once per block
                // (crate::lowering::uses::ContractFacts says why the output is the same).
                Ok(crate::to_arith::create(
                    options.bool("assume-bounds")?,
                    options.enclosing_pipeline() == Some(LEGO_LOWER),
                    options.bool("verify-gen-p")?,
                ))
            }),
        },
    ]
}

/// The lego canonicalization patterns (docs/reference/passes.md, lego-canonicalize); `canonicalize` in lego-opt runs them too.
pub fn canonicalization_passes() -> Vec<PassInfo> {
    vec![PassInfo {
        name: "lego-canonicalize",
        description: "lego canonicalization: apply∘apply_inverse, apply_inverse∘apply, gen_p → reg_p, dead pure lego ops",
        options: &[crate::canonicalize::VERIFY_GEN_P_CANONICALIZE],
        entry: Entry::Pass(|options| Ok(crate::canonicalize::create(options.bool("verify-gen-p")?))),
    }]
}

/// Index-arithmetic optimization passes (issue: provably minimal index arithmetic).
pub fn arithmetic_passes() -> Vec<PassInfo> {
    vec![
        PassInfo {
            name: "lego-arith-simplification",
            description: "Table II div/mod rules with proved side conditions, factoring, folding",
            options: &[
                OptionSpec {
                    name: "assume-no-wrap",
                    default: "true",
                    description: "index arithmetic does not wrap (docs/reference/semantics.md); false proves every side condition under 64-bit wrap-around",
                },
                OptionSpec {
                    name: "verify-rewrites",
                    default: "false",
                    description: "prove every rewrite equivalent with Z3 (translation validation) under the model in force",
                },
            ],
            entry: Entry::Pass(|options| {
                Ok(crate::simplify::create(options.bool("verify-rewrites")?, options.bool("assume-no-wrap")?))
            }),
        },
        PassInfo {
            name: "lego-strength-reduction",
            description: "Power-of-two muli/divui/remui to shli/shrui/andi",
            options: &[],
            entry: Entry::Pass(|_| Ok(crate::strength_reduction::create())),
        },
        PassInfo {
            name: "lego-materialize-assume-bounds",
            description: "Turn lego.assume facts into range information upstream passes use",
            options: &[
                OptionSpec { name: "cleanup", default: "false", description: "remove the scaffolding again" },
                OptionSpec {
                    name: "clamp",
                    default: "false",
                    description: "our clamp form (minui/maxui tagged lego.assumed_bound) instead of remui {lego.materialized}",
                },
                OptionSpec {
                    name: "only-layout-contract",
                    default: "false",
                    description: "with cleanup: remove only the facts lego-to-arith{assume-bounds} stated for layout inputs",
                },
                OptionSpec {
                    name: "consume-facts",
                    default: "false",
                    description: "with cleanup: also erase every lego.assume / lego.assume_bounds (what lego-lower ends with)",
                },
            ],
            entry: Entry::Pass(|options| {
                Ok(crate::assume_bounds::create(crate::assume_bounds::MaterializeAssumeBounds {
                    cleanup: options.bool("cleanup")?,
                    clamp: options.bool("clamp")?,
                    only_layout_contract: options.bool("only-layout-contract")?,
                    consume_facts: options.bool("consume-facts")?,
                    defer_cleanup: cleanup_deferred(options),
                    ..Default::default()
                }))
            }),
        },
    ]
}

/// The name of the lowering pipeline (docs/reference/passes.md).
pub const LEGO_LOWER: &str = "lego-lower";

/// Whether a pass built with `options` is `lego-lower`'s own `lego-materialize-assume-bounds`: the next element
/// of the pipeline (`canonicalize`) runs the §0 clean-up, so it leaves it out (docs/reference/lowering.md §0 asks it of
/// each pass run alone; the pipeline's output is the same). Not the strength reduction: with its clean-up left to
/// the end, constants are hoisted in another order.
pub fn cleanup_deferred(options: &Options) -> bool {
    options.enclosing_pipeline() == Some(LEGO_LOWER)
}

/// The pipelines of docs/reference/passes.md.
pub fn pipelines() -> Vec<PassInfo> {
    vec![PassInfo {
        name: LEGO_LOWER,
        description: "normalization → to-arith → canonicalize/CSE → arith-simplification → verify → strength-reduction → canonicalize/CSE (layout input ranges and user facts inform the simplifier, then are consumed)",
        options: &[crate::canonicalize::VERIFY_GEN_P],
        entry: Entry::Pipeline(lego_lower),
    }]
}

fn lego_lower(options: &Options) -> Result<String, RegistryError> {
    // to-arith states the layouts' input ranges for the simplifier; those facts and the user's own
    // (docs/reference/lowering.md §3: lego-lower consumes them) are erased before the last clean-up (which then removes
    // the sizes only they used), so the output holds no lego op. Normalization runs in its fold form: tile_by
    // is lowered directly by lego-to-arith (§3), not through the normal form. verify-gen-p goes to every
    // element that could rely on a gen_p's inverse (the default expansion is unchanged).
    let (to_arith, canonicalize) = if options.bool("verify-gen-p")? {
        ("lego-to-arith{assume-bounds=true}", "canonicalize")
    } else {
        ("lego-to-arith{assume-bounds=true verify-gen-p=false}", "canonicalize{verify-gen-p=false}")
    };
    Ok(format!(
        "lego-normalization{{fold=true}}, {to_arith}, {canonicalize}, cse, lego-arith-simplification, \
         lego-verify, lego-strength-reduction, lego-materialize-assume-bounds{{cleanup=true consume-facts=true}}, \
         {canonicalize}, cse"
    ))
}

/// Upstream names that lego passes ride along: `canonicalize` also runs the lego patterns, since upstream's
/// knows nothing of IRDL ops (docs/reference/passes.md, lego-canonicalize).
pub fn upstream_hooks() -> Vec<UpstreamHook> {
    vec![UpstreamHook { name: "canonicalize", add: canonicalize_with_lego_patterns }]
}

fn canonicalize_with_lego_patterns(
    manager: OperationPassManager,
    element: &PassElement,
    enclosing: Option<&'static str>,
) -> Result<Option<PassElement>, RegistryError> {
    // Inside lego-lower, upstream canonicalize (the next pass) does the greedy driver's part of the clean-up.
    // The lego patterns' own option is taken out before MLIR sees the element.
    let in_lego_lower = enclosing == Some(LEGO_LOWER);
    let (verify_gen_p, upstream) = split_canonicalize_options(element)?;
    manager.add_pass(crate::canonicalize::create_followed_by_canonicalize(in_lego_lower, verify_gen_p));
    // lego-lower's own canonicalize: upstream's, with region simplification only where it can change
    // something (same output; csrc/canonicalize.cpp).
    if in_lego_lower && upstream.options.is_none() {
        if let Some(pass) = crate::lazy_canonicalizer::lazy_region_canonicalizer() {
            manager.add_pass(pass);
            return Ok(None);
        }
    }
    Ok(Some(upstream))
}

/// `canonicalize{verify-gen-p=false max-iterations=3}` → (false, `canonicalize{max-iterations=3}`): the lego
/// canonicalization's option (see [`crate::canonicalize::VERIFY_GEN_P`]) and the element MLIR gets. An element
/// without it is handed over unchanged.
fn split_canonicalize_options(element: &PassElement) -> Result<(bool, PassElement), RegistryError> {
    let option = crate::canonicalize::VERIFY_GEN_P.name;
    let Some(text) = element.options.as_deref() else { return Ok((true, element.clone())) };
    let options = pipeline_text::parse_pass_options(text).map_err(RegistryError::Pipeline)?;
    if !options.iter().any(|(key, _)| key == option) {
        return Ok((true, element.clone()));
    }
    let mut verify = true;
    let mut rest = Vec::new();
    for (key, value) in options {
        if key == option {
            verify = match value.as_str() {
                "true" | "1" | "" => true,
                "false" | "0" => false,
                other => {
                    return Err(RegistryError::BadOptionValue {
                        pass: element.name.clone(),
                        option: key,
                        value: other.to_string(),
                        expected: "true or false".into(),
                    })
                }
            };
        } else {
            rest.push(format!("{key}={value}"));
        }
    }
    let options = (!rest.is_empty()).then(|| rest.join(" "));
    Ok((verify, PassElement { name: element.name.clone(), options, offset: element.offset }))
}

