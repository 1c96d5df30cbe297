//! Differential test of the lowering against the reference algebra (`lego-algebra`).
//!
//! Random layouts (all ops, random nesting, literal and symbolic sizes, the paper's rev and antidiag gen_p's)
//! are emitted as lego MLIR, parsed through the custom syntax, lowered by a pipeline (`lego-to-arith` plus the
//! upstream CPU path, or the whole `lego-lower`), JIT-compiled, and run: `apply` on every index of small
//! layouts and random indices of large ones, `apply_inverse` likewise, each compared with the algebra.
//!
//! Seeded and reproducible. The normal run checks ≥ 10 000 (layout, index) pairs per pipeline; set
//! `LEGO_DIFF_CASES=1000000` (with `--release`) for a soak run, `LEGO_DIFF_SEED` to vary the layouts,
//! `LEGO_DIFF_SYMBOLIC` for the percentage of symbolic sizes (default 25).

use crate::{build_pass_manager, pipeline_text, Registry};
use lego_algebra::{
    mlir::emit_module,
    random::{random_flat, random_index, random_layout, RandomConfig, SplitMix64},
    Layout, NO_ELEMENT,
};
use melior::{
    ir::{attribute::Attribute, block::BlockLike, operation::OperationLike, operation::OperationMutLike, Module},
    pass::PassManager,
    Context, ExecutionEngine,
};

/// Layouts JIT-compiled together (one module per batch keeps compile time down).
const BATCH: usize = 40;
/// Layouts with at most this many elements are checked exhaustively.
const EXHAUSTIVE_LIMIT: u64 = 256;
/// Random indices per larger layout.
const SAMPLES: usize = 64;

const TO_LLVM: &str = "canonicalize, affine-expand-index-ops, lower-affine, convert-scf-to-cf, \
                       convert-to-llvm, reconcile-unrealized-casts";

fn requested_cases() -> usize {
    std::env::var("LEGO_DIFF_CASES").ok().and_then(|text| text.parse().ok()).unwrap_or(10_000)
}

/// Chance (percent) that a size is symbolic (an SSA function argument) rather than a literal.
fn symbolic_percent() -> u32 {
    std::env::var("LEGO_DIFF_SYMBOLIC").ok().and_then(|text| text.parse().ok()).unwrap_or(25)
}

fn seed() -> u64 {
    std::env::var("LEGO_DIFF_SEED").ok().and_then(|text| text.parse().ok()).unwrap_or(0x1e60_2026)
}

struct Case {
    layout: Layout,
    symbolic: Vec<u64>,
}

/// Marks every function for the packed C interface the ExecutionEngine calls through.
fn emit_c_interfaces(context: &Context, module: &Module) {
    let unit = Attribute::parse(context, "unit").expect("the unit attribute parses");
    let mut op = module.body().first_operation_mut();
    while let Some(mut current) = op {
        current.set_discardable_attribute("llvm.emit_c_interface", unit);
        op = current.next_in_block_mut();
    }
}

/// Parses `text` (lego-opt's parser), marks its functions for the C interface and runs `pipeline` on it.
pub(crate) fn parse_and_run<'c>(
    context: &'c Context,
    registry: &Registry,
    text: &str,
    pipeline: &str,
) -> Result<Module<'c>, String> {
    let mut module = lego_dialect::source::parse(context, "differential.mlir", text)
        .map_err(|error| format!("{error}\n{text}"))?;
    emit_c_interfaces(context, &module);
    let elements = pipeline_text::parse_element_list(pipeline).map_err(|e| e.to_string())?;
    let manager = PassManager::new(context);
    build_pass_manager(registry, manager.as_operation_pass_manager(), &elements, false).map_err(|e| e.to_string())?;
    manager.run(&mut module).map_err(|_| format!("pipeline failed for:\n{text}"))?;
    Ok(module)
}

fn compile(context: &Context, registry: &Registry, text: &str, lowering: &str) -> Result<ExecutionEngine, String> {
    let module = parse_and_run(context, registry, text, &format!("{lowering}, {TO_LLVM}"))?;
    Ok(ExecutionEngine::new(&module, 0, &[], false, false))
}

fn call_apply(engine: &ExecutionEngine, name: &str, index: &[u64], symbolic: &[u64]) -> u64 {
    let mut arguments: Vec<u64> = index.iter().chain(symbolic).copied().collect();
    let mut result = 0u64;
    let mut pointers: Vec<*mut ()> = arguments.iter_mut().map(|value| value as *mut u64 as *mut ()).collect();
    pointers.push(&mut result as *mut u64 as *mut ());
    // SAFETY: every argument is an `index` (64-bit) and the single result is one `index`.
    unsafe { engine.invoke_packed(name, &mut pointers) }.expect("the JIT-compiled function exists");
    result
}

fn call_inverse(engine: &ExecutionEngine, name: &str, flat: u64, symbolic: &[u64], rank: usize) -> Vec<u64> {
    let mut arguments: Vec<u64> = std::iter::once(flat).chain(symbolic.iter().copied()).collect();
    if rank == 1 {
        // One result: returned directly, its slot is the last packed pointer.
        return vec![call_apply(engine, name, &[flat], symbolic)];
    }
    // Several results: the C interface returns them through a pointer to a struct of `index` fields (laid out
    // like an array) passed as the *first* argument, and returns nothing.
    let mut results = vec![0u64; rank];
    let mut result_pointer = results.as_mut_ptr();
    let mut pointers: Vec<*mut ()> = vec![&mut result_pointer as *mut *mut u64 as *mut ()];
    pointers.extend(arguments.iter_mut().map(|value| value as *mut u64 as *mut ()));
    // SAFETY: arguments are `index` values; the result buffer holds `rank` 64-bit fields.
    unsafe { engine.invoke_packed(name, &mut pointers) }.expect("the JIT-compiled function exists");
    results
}

/// The indices checked for one layout: all of them when small, random ones otherwise.
fn indices(layout: &Layout, rng: &mut SplitMix64) -> Vec<Vec<u64>> {
    if layout.numel() <= EXHAUSTIVE_LIMIT {
        (0..layout.numel()).map(|flat| lego_algebra::mixed_radix_unflatten(layout.dims(), flat)).collect()
    } else {
        (0..SAMPLES).map(|_| random_index(layout, rng)).collect()
    }
}

fn flats(layout: &Layout, rng: &mut SplitMix64) -> Vec<u64> {
    if layout.codomain_size() <= EXHAUSTIVE_LIMIT {
        (0..layout.codomain_size()).collect()
    } else {
        (0..SAMPLES).map(|_| random_flat(layout, rng)).collect()
    }
}

/// One differential run. `decorate` may add text to each layout's functions before parsing (the simplifier's
/// tests add the range facts a lowering may state).
pub(crate) struct Run<'a> {
    /// Pipeline text before the upstream CPU path.
    pub lowering: &'a str,
    pub wanted: usize,
    pub seed: u64,
    pub config: RandomConfig,
    /// `(functions of one layout, the layout, its position in the batch) -> text`.
    pub decorate: &'a dyn Fn(&str, &Layout, usize) -> String,
}

/// The default run through `lowering`: seed, symbolic share and case count from the environment.
fn run_differential(lowering: &str, wanted: usize) -> usize {
    run_differential_with(&Run {
        lowering,
        wanted,
        seed: seed(),
        config: RandomConfig { symbolic_percent: symbolic_percent(), ..RandomConfig::default() },
        decorate: &|functions, _, _| functions.to_string(),
    })
}

/// Runs the differential test. Returns the number of (layout, index) pairs checked; panics with a
/// reproducible description on the first mismatch.
pub(crate) fn run_differential_with(run: &Run<'_>) -> usize {
    let (lowering, wanted, config) = (run.lowering, run.wanted, &run.config);
    let context = lego_dialect::create_context().expect("the lego dialect registers");
    melior::utility::register_all_llvm_translations(&context);
    let registry = Registry::default();
    let mut rng = SplitMix64::new(run.seed);
    let mut checked = 0usize;
    let mut batch_number = 0;
    while checked < wanted {
        let cases: Vec<Case> = (0..BATCH)
            .map(|_| {
                let layout = random_layout(&mut rng, config);
                Case { symbolic: layout.symbolic_sizes(), layout }
            })
            .collect();
        let mut text = String::from("module {\n");
        for (position, case) in cases.iter().enumerate() {
            let module = emit_module(&case.layout, &format!("b{batch_number}_{position}"))
                .unwrap_or_else(|error| panic!("cannot emit {}: {error}", case.layout));
            // emit_module wraps in `module { ... }`: keep the functions only.
            let body = module.trim_end().strip_prefix("module {\n").and_then(|t| t.strip_suffix('}')).unwrap_or(&module);
            text.push_str(&(run.decorate)(body, &case.layout, position));
        }
        text.push_str("}\n");
        let engine = compile(&context, &registry, &text, lowering).unwrap_or_else(|error| panic!("{error}"));
        for (position, case) in cases.iter().enumerate() {
            let layout = &case.layout;
            let apply_name = format!("apply_b{batch_number}_{position}");
            for index in indices(layout, &mut rng) {
                let expected = layout.apply(&index).expect("random indices are in range");
                let got = call_apply(&engine, &apply_name, &index, &case.symbolic);
                // The lowering's "no element" is -1 in `index`, i.e. all ones.
                let expected = if expected == NO_ELEMENT { u64::MAX } else { expected };
                assert_eq!(got, expected, "apply{index:?} of {layout} (symbolic sizes {:?}) via `{lowering}`", case.symbolic);
                checked += 1;
            }
            if layout.is_invertible() {
                let inverse_name = format!("apply_inverse_b{batch_number}_{position}");
                for flat in flats(layout, &mut rng) {
                    let expected = layout.apply_inverse(flat).expect("random flats are in range");
                    let got = call_inverse(&engine, &inverse_name, flat, &case.symbolic, layout.rank());
                    assert_eq!(got, expected, "apply_inverse({flat}) of {layout} via `{lowering}`");
                    checked += 1;
                }
            }
        }
        batch_number += 1;
    }
    checked
}

#[test]
fn lego_to_arith_matches_the_reference_algebra() {
    let started = std::time::Instant::now();
    let checked = run_differential("lego-to-arith", requested_cases());
    eprintln!("lego-to-arith: {checked} (layout, index) cases agree with lego-algebra in {:.1?}", started.elapsed());
    assert!(checked >= requested_cases());
}

#[test]
fn normalized_lowering_matches_the_reference_algebra() {
    let started = std::time::Instant::now();
    let checked = run_differential("lego-normalization, lego-to-arith", requested_cases());
    eprintln!("normalization + lego-to-arith: {checked} cases agree in {:.1?}", started.elapsed());
    assert!(checked >= requested_cases());
}

/// The whole `lego-lower` pipeline (simplification and strength reduction included) must compute the same
/// values: the simplifier's rewrites are exact, not just plausible.
#[test]
fn lego_lower_matches_the_reference_algebra() {
    let started = std::time::Instant::now();
    let checked = run_differential("lego-lower", requested_cases());
    eprintln!("lego-lower: {checked} cases agree in {:.1?}", started.elapsed());
    assert!(checked >= requested_cases());
}

/// Multi-block `tile_by` (docs/reference/semantics.md: d = rank of the first block, q_o blocks, q_t levels, the identity
/// shortcut) through each lowering path, static and symbolic sizes. Through `lego-normalization, lego-to-arith`
/// the normal form `group_by [t](O, OB_mid, OB_fin)` is what runs, through `lego-to-arith` and `lego-lower` the
/// direct form: both agree pointwise with the algebra's direct apply/inverse, hence with each other.
#[test]
fn multi_block_tile_by_matches_the_reference_algebra() {
    // lego-lower runs the Z3-backed simplifier per function: fewer cases keep `make test` modest on 2 cores.
    for (symbolic_percent, seed) in [(0, 0x7113_0001), (40, 0x7113_0002)] {
        for (lowering, wanted) in [
            ("lego-to-arith", requested_cases() / 4),
            ("lego-normalization, lego-to-arith", requested_cases() / 4),
            ("lego-lower", requested_cases() / 20),
        ] {
            let started = std::time::Instant::now();
            let checked = run_differential_with(&Run {
                lowering,
                wanted,
                seed,
                config: RandomConfig { only_tile_by: true, symbolic_percent, max_depth: 2, ..RandomConfig::default() },
                decorate: &|functions, _, _| functions.to_string(),
            });
            eprintln!("tile_by via `{lowering}` ({symbolic_percent}% symbolic): {checked} cases agree in {:.1?}", started.elapsed());
            assert!(checked >= wanted);
        }
    }
}

/// The ops added after the published dialect (`swizzle`, drawn with `new_ops_percent`), alone and as pieces of
/// order_by / group_by / tile_by chains, literal and symbolic sizes, through each lowering path.
#[test]
fn new_layout_ops_match_the_reference_algebra() {
    for (lowering, wanted) in [
        ("lego-to-arith", requested_cases() / 2),
        ("lego-normalization, lego-to-arith", requested_cases() / 4),
        ("lego-lower", requested_cases() / 4),
    ] {
        let started = std::time::Instant::now();
        let checked = run_differential_with(&Run {
            lowering,
            wanted,
            seed: seed() ^ 0x5e1e_c7ed,
            config: RandomConfig { new_ops_percent: 35, symbolic_percent: symbolic_percent(), ..RandomConfig::default() },
            decorate: &|functions, _, _| functions.to_string(),
        });
        eprintln!("new layout ops via `{lowering}`: {checked} cases agree in {:.1?}", started.elapsed());
        assert!(checked >= wanted);
    }
}

/// Morton-shaped inputs (docs/reference/lowering.md §5): `apply(row [2, …, 2], bits)` where the indices are single
/// bits of S sources (S = 2 or 3), level by level, extracted as `andi(shrui(x, b), 1)` or
/// `remui(divui(x, 2^b), 2)`. Lowered, the flat index is an `addi` tree of `shli(bit, S·level + offset)` —
/// exactly a bit spread of stride S — which `lego-strength-reduction` turns into shifts, masks and `ori`.
/// The reference is lego-algebra's `row [2, …, 2]` on the same bits.
struct MortonCase {
    name: String,
    sources: usize,
    bits: usize,
    layout: Layout,
}

fn morton_function(case: &MortonCase, rng: &mut SplitMix64) -> String {
    let arguments: Vec<String> = (0..case.sources).map(|s| format!("%x{s}: index")).collect();
    let mut body = String::new();
    let mut indices = Vec::new();
    for level in (0..case.bits).rev() {
        for source in 0..case.sources {
            let bit = format!("%b{source}_{level}");
            if rng.below(2) == 0 {
                body.push_str(&format!(
                    "  %s{source}_{level} = arith.shrui %x{source}, %c{level} : index\n  {bit} = arith.andi %s{source}_{level}, %c1 : index\n"
                ));
            } else {
                body.push_str(&format!(
                    "  %s{source}_{level} = arith.divui %x{source}, %p{level} : index\n  {bit} = arith.remui %s{source}_{level}, %c2 : index\n"
                ));
            }
            indices.push(bit);
        }
    }
    let mut constants = String::from("  %c1 = arith.constant 1 : index\n  %c2 = arith.constant 2 : index\n");
    for level in 0..case.bits {
        if level > 2 || level == 0 {
            constants.push_str(&format!("  %c{level} = arith.constant {level} : index\n"));
        }
        constants.push_str(&format!("  %p{level} = arith.constant {} : index\n", 1u64 << level));
    }
    let dims = vec!["2"; case.sources * case.bits].join(", ");
    format!(
        "func.func @{name}({arguments}) -> index {{\n{constants}{body}  %l = lego.row [{dims}] : !lego.layout\n  %f = lego.apply %l({indices}) : !lego.layout\n  return %f : index\n}}\n",
        name = case.name,
        arguments = arguments.join(", "),
        indices = indices.join(", "),
    )
}

/// Runs the Morton-shaped differential test through `lowering`; returns the cases checked. With
/// `expect_spreads`, the lowered module must contain the `ori` of recognized spreads.
fn run_morton(lowering: &str, wanted: usize, expect_spreads: bool) -> usize {
    let context = lego_dialect::create_context().expect("the lego dialect registers");
    melior::utility::register_all_llvm_translations(&context);
    let registry = Registry::default();
    let mut rng = SplitMix64::new(seed() ^ 0x3030);
    let mut checked = 0usize;
    let mut batch = 0usize;
    while checked < wanted {
        let cases: Vec<MortonCase> = (0..BATCH)
            .map(|position| {
                let sources = 2 + rng.below(2) as usize;
                let bits = 2 + rng.below(if sources == 2 { 7 } else { 5 }) as usize;
                let layout = Layout::row(vec![2u64; sources * bits]).expect("a row of 2s is a layout");
                MortonCase { name: format!("morton_{batch}_{position}"), sources, bits, layout }
            })
            .collect();
        let mut text = String::from("module {\n");
        for case in &cases {
            text.push_str(&morton_function(case, &mut rng));
        }
        text.push_str("}\n");
        if expect_spreads && batch == 0 {
            let lowered = parse_and_run(&context, &registry, &text, lowering).unwrap_or_else(|error| panic!("{error}"));
            let printed = lowered.as_operation().to_string();
            assert!(printed.contains("arith.ori"), "no Morton spread recognized via `{lowering}`:\n{printed}");
            assert!(!printed.contains("lego."), "lego ops left via `{lowering}`:\n{printed}");
        }
        let engine = compile(&context, &registry, &text, lowering).unwrap_or_else(|error| panic!("{error}"));
        for case in &cases {
            for _ in 0..SAMPLES {
                let inputs: Vec<u64> = (0..case.sources).map(|_| rng.next_u64()).collect();
                let mut bits = Vec::with_capacity(case.sources * case.bits);
                for level in (0..case.bits).rev() {
                    for input in &inputs {
                        bits.push((input >> level) & 1);
                    }
                }
                let expected = case.layout.apply(&bits).expect("bits are in range");
                let got = call_apply(&engine, &case.name, &inputs, &[]);
                assert_eq!(got, expected, "{} on {inputs:?} via `{lowering}`", case.name);
                checked += 1;
            }
        }
        batch += 1;
    }
    checked
}

#[test]
fn morton_shaped_strength_reduction_matches_the_reference_algebra() {
    let started = std::time::Instant::now();
    let checked = run_morton("lego-to-arith, lego-strength-reduction", requested_cases(), true);
    eprintln!("Morton-shaped, lego-to-arith + lego-strength-reduction: {checked} cases agree in {:.1?}", started.elapsed());
    assert!(checked >= requested_cases());
}

#[test]
fn morton_shaped_lego_lower_matches_the_reference_algebra() {
    let started = std::time::Instant::now();
    let checked = run_morton("lego-lower", requested_cases(), false);
    eprintln!("Morton-shaped, lego-lower: {checked} cases agree in {:.1?}", started.elapsed());
    assert!(checked >= requested_cases());
}

/// Issue 14: `lego-lower` on one large module (default 2 000 functions: an apply and, where the layout is
/// invertible, an apply_inverse for each of ~1 000 random layouts) computes what the reference algebra does.
/// A correctness test over a module of realistic size (whole-module passes, shared caches, solver budgets
/// spent early), not timed. `LEGO_BIG_FUNCTIONS` changes the size.
#[test]
fn lego_lower_on_a_large_module_matches_the_reference_algebra() {
    let wanted: usize = std::env::var("LEGO_BIG_FUNCTIONS").ok().and_then(|text| text.parse().ok()).unwrap_or(2_000);
    let context = lego_dialect::create_context().expect("the lego dialect registers");
    melior::utility::register_all_llvm_translations(&context);
    let registry = Registry::default();
    let mut rng = SplitMix64::new(seed() ^ 0x14);
    let config = RandomConfig { symbolic_percent: symbolic_percent(), ..RandomConfig::default() };
    let mut cases = Vec::new();
    let mut text = String::from("module {\n");
    let mut functions = 0;
    while functions < wanted {
        let layout = random_layout(&mut rng, &config);
        let position = cases.len();
        let module = emit_module(&layout, &format!("big{position}")).unwrap_or_else(|error| panic!("cannot emit {layout}: {error}"));
        let body = module.trim_end().strip_prefix("module {\n").and_then(|t| t.strip_suffix('}')).unwrap_or(&module);
        text.push_str(body);
        functions += if layout.is_invertible() { 2 } else { 1 };
        cases.push(Case { symbolic: layout.symbolic_sizes(), layout });
    }
    text.push_str("}\n");
    let engine = compile(&context, &registry, &text, "lego-lower").unwrap_or_else(|error| panic!("{error}"));
    let mut checked = 0;
    for (position, case) in cases.iter().enumerate() {
        let layout = &case.layout;
        for _ in 0..4 {
            let index = random_index(layout, &mut rng);
            let expected = layout.apply(&index).expect("random indices are in range");
            let expected = if expected == NO_ELEMENT { u64::MAX } else { expected };
            let got = call_apply(&engine, &format!("apply_big{position}"), &index, &case.symbolic);
            assert_eq!(got, expected, "apply{index:?} of {layout} (symbolic sizes {:?}), function {position} of {functions}", case.symbolic);
            checked += 1;
            if layout.is_invertible() {
                let flat = random_flat(layout, &mut rng);
                let expected = layout.apply_inverse(flat).expect("random flats are in range");
                let got = call_inverse(&engine, &format!("apply_inverse_big{position}"), flat, &case.symbolic, layout.rank());
                assert_eq!(got, expected, "apply_inverse({flat}) of {layout}, function {position} of {functions}");
                checked += 1;
            }
        }
    }
    eprintln!("lego-lower on {functions} functions ({} layouts): {checked} values agree with lego-algebra", cases.len());
    assert!(functions >= wanted && checked >= 4 * cases.len());
}
