//! Tests of the simplifier: differential tests of `lego-lower` with the facts a user may add (symbolic sizes
//! within a range, or exactly known) and of its passes with no fact at all (not even the layout contract), and
//! unit tests of single rules through the pass on small functions.

use crate::{differential_tests::parse_and_run, Registry};
use lego_algebra::{random::RandomConfig, Layout};

/// `lego-lower`'s passes without the layout contract of `lego-to-arith{assume-bounds=true}`: the simplifier
/// sees only the facts the input states.
const LOWER_WITHOUT_CONTRACT: &str = "lego-normalization{fold=true}, lego-to-arith, canonicalize, cse, lego-arith-simplification, \
                                      lego-strength-reduction, canonicalize, cse";

/// Adds `lego.assume_bounds` for each function's inputs right after its header: indices below their dims,
/// the flat index below the codomain size, symbolic sizes between 1 and a bound (exactly their value when
/// `exact`, a loose range otherwise).
fn with_facts(module: &str, layout: &Layout, symbolic: &[u64], exact: bool) -> String {
    let mut out = String::new();
    let mut constant = 0usize;
    let mut fact = |out: &mut String, value: &str, lo: u64, hi: u64| {
        let (a, b) = (constant, constant + 1);
        constant += 2;
        out.push_str(&format!(
            "    %fact{a} = arith.constant {lo} : index\n    %fact{b} = arith.constant {hi} : index\n    \
             lego.assume_bounds {value} lb : %fact{a} ub : %fact{b}\n"
        ));
    };
    for line in module.lines() {
        out.push_str(line);
        out.push('\n');
        let trimmed = line.trim_start();
        if !trimmed.starts_with("func.func @") {
            continue;
        }
        if trimmed.starts_with("func.func @apply_inverse_") {
            fact(&mut out, "%x", 0, layout.codomain_size());
        } else {
            for (k, dim) in layout.dims().iter().enumerate() {
                fact(&mut out, &format!("%i{k}"), 0, *dim);
            }
        }
        for (k, size) in symbolic.iter().enumerate() {
            if exact {
                fact(&mut out, &format!("%s{k}"), *size, size + 1);
            } else {
                fact(&mut out, &format!("%s{k}"), 1, 1 << 16);
            }
        }
    }
    out
}

/// The differential harness through `lego-lower` with user facts on the inputs, or through its passes
/// without any fact.
fn differential(wanted: usize, seed: u64, facts: bool) -> usize {
    let config = RandomConfig { symbolic_percent: 30, ..RandomConfig::default() };
    let decorate = |functions: &str, layout: &Layout, position: usize| {
        if facts {
            with_facts(functions, layout, &layout.symbolic_sizes(), position % 2 == 0)
        } else {
            functions.to_string()
        }
    };
    // The user's facts are scaffolding: removed before the upstream CPU path, as the target pipelines do.
    let lowering = if facts {
        "lego-lower, lego-materialize-assume-bounds{cleanup=true}".to_string()
    } else {
        LOWER_WITHOUT_CONTRACT.to_string()
    };
    crate::differential_tests::run_differential_with(&crate::differential_tests::Run {
        lowering: &lowering,
        wanted,
        seed,
        config,
        decorate: &decorate,
    })
}

#[test]
fn lego_lower_with_facts_matches_the_reference_algebra() {
    let wanted = std::env::var("LEGO_SIMPLIFY_CASES").ok().and_then(|t| t.parse().ok()).unwrap_or(4_000);
    let seed = std::env::var("LEGO_DIFF_SEED").ok().and_then(|t| t.parse().ok()).unwrap_or(0x51_6d_70);
    let started = std::time::Instant::now();
    let checked = differential(wanted, seed, true);
    eprintln!("lego-lower with facts: {checked} cases agree with lego-algebra in {:.1?}", started.elapsed());
}

#[test]
fn lego_lower_without_facts_matches_the_reference_algebra() {
    let wanted = std::env::var("LEGO_SIMPLIFY_CASES").ok().and_then(|t| t.parse().ok()).unwrap_or(2_000);
    let seed = std::env::var("LEGO_DIFF_SEED").ok().and_then(|t| t.parse().ok()).unwrap_or(0x6e_6f_66);
    let started = std::time::Instant::now();
    let checked = differential(wanted, seed, false);
    eprintln!("lego-lower without facts: {checked} cases agree with lego-algebra in {:.1?}", started.elapsed());
}

/// Lowers `text` with `pipeline` and returns the printed module.
fn lowered(text: &str, pipeline: &str) -> String {
    let context = lego_dialect::create_context().expect("the lego dialect registers");
    let module = parse_and_run(&context, &Registry::default(), text, pipeline).unwrap_or_else(|e| panic!("{e}"));
    module.as_operation().to_string()
}

#[test]
fn tiled_matmul_lowers_to_shifts_and_adds() {
    let text = "func.func @a(%ti: index, %tk: index, %i: index, %k: index) -> index {
      %r = lego.row [1024, 512] : !lego.layout
      %o = lego.order_by(%r) : !lego.layout
      %l = lego.tile_by %o tile_dims [[64, 16], [16, 32]] : !lego.layout
      %f = lego.apply %l(%ti, %tk, %i, %k) : !lego.layout
      return %f : index
    }";
    let out = lowered(text, "lego-lower");
    for forbidden in ["divui", "remui", "muli", "affine."] {
        assert!(!out.contains(forbidden), "{forbidden} left in:\n{out}");
    }
    assert_eq!(out.matches("arith.shli").count(), 3, "{out}");
    assert_eq!(out.matches("arith.addi").count(), 3, "{out}");
}

/// Parses `text`, runs `pipeline` (may be empty) and then the simplifier itself; returns what it did and the
/// printed result.
fn simplified(text: &str, pipeline: &str) -> (super::Summary, String) {
    let context = lego_dialect::create_context().expect("the lego dialect registers");
    let module = if pipeline.is_empty() {
        lego_dialect::source::parse(&context, "test.mlir", text).unwrap_or_else(|e| panic!("{e}"))
    } else {
        parse_and_run(&context, &Registry::default(), text, pipeline).unwrap_or_else(|e| panic!("{e}"))
    };
    let summary = super::simplify(module.as_operation().to_raw(), false, false);
    (summary, module.as_operation().to_string())
}

/// `a mod b → a` needs `a < b`, false here (a = 1, b = 1 is a counterexample at the corner of the intervals). The
/// `x < 2^63` bound of the layout contract (`ub` = -9223372036854775808, i.e. 2^63 as an unsigned index) read
/// as a signed number made every sample break a fact, so Z3 was asked (~30 ms to refute); the sampler's exact
/// reading refutes it without the solver, and the remainder stays.
#[test]
fn a_false_side_condition_under_the_contract_bound_is_refuted_without_the_solver() {
    let text = "func.func @f(%a: index, %b: index) -> index {
      %c1 = arith.constant 1 : index
      %top = arith.constant -9223372036854775808 : index
      lego.assume_bounds %a lb : %c1 ub : %top
      lego.assume_bounds %b lb : %c1 ub : %top
      %r = arith.remui %a, %b : index
      return %r : index
    }";
    let (summary, out) = simplified(text, "");
    assert_eq!(summary.solver_calls, 0, "{summary:?}");
    assert_eq!(summary.rewrites, 0, "{summary:?}");
    assert_eq!(summary.unproved, ["v0 < v1"], "{summary:?}");
    assert!(out.contains("arith.remui"), "{out}");
}

/// Twin: the same shape with `a < c < b` (and the same contract bound) is true, no sample refutes it, and Z3
/// still proves it: the remainder goes.
#[test]
fn a_true_side_condition_under_the_contract_bound_is_still_proved_by_the_solver() {
    let text = "func.func @f(%a: index, %b: index, %c: index) -> index {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %top = arith.constant -9223372036854775808 : index
      lego.assume_bounds %b lb : %c1 ub : %top
      lego.assume_bounds %c lb : %c0 ub : %b
      lego.assume_bounds %a lb : %c0 ub : %c
      %r = arith.remui %a, %b : index
      return %r : index
    }";
    let (summary, out) = simplified(text, "");
    assert_eq!(summary.solver_calls, 1, "{summary:?}");
    assert_eq!(summary.rules, ["x mod a → x (0 ≤ x < a)"], "{summary:?}");
    assert!(!out.contains("arith.remui"), "{out}");
}

/// The Python package's symbolic `OrderBy(Row(M, N)).TileBy((M // BM, N // BN), (BM, BN))[pid_m, pid_n, i, j]`
/// (its lego IR as `LEGO_DEBUG=1` prints it): lowered without a single solver call (it made one, ~30 ms, that
/// Z3 refuted); nothing is rewritten, as before.
#[test]
fn the_python_symbolic_tile_by_needs_no_solver_call() {
    let text = "func.func @roundtrip(%bm: index, %bn: index, %m: index, %n: index, %pm: index, %pn: index, %i: index, %j: index) -> index {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      lego.assume_bounds %bm lb : %c1
      lego.assume_bounds %bn lb : %c1
      lego.assume_bounds %m lb : %c1
      lego.assume_bounds %n lb : %c1
      %0 = arith.divui %m, %bm : index
      lego.assume_bounds %pm lb : %c0 ub : %0
      %1 = arith.divui %n, %bn : index
      lego.assume_bounds %pn lb : %c0 ub : %1
      lego.assume_bounds %i lb : %c0 ub : %bm
      lego.assume_bounds %j lb : %c0 ub : %bn
      %2 = arith.remui %m, %bm : index
      %3 = arith.cmpi eq, %2, %c0 : index
      lego.assume %3
      %4 = arith.remui %n, %bn : index
      %5 = arith.cmpi eq, %4, %c0 : index
      lego.assume %5
      %6 = lego.row[%m, %n] : !lego.layout
      %7 = lego.order_by(%6) : !lego.layout
      %8 = arith.divui %m, %bm : index
      %9 = arith.divui %n, %bn : index
      %10 = lego.tile_by %7 tile_dims [[%8, %9], [%bm, %bn]] : !lego.layout
      %11 = lego.apply %10(%pm, %pn, %i, %j) : !lego.layout
      return %11 : index
    }";
    let (summary, _) =
        simplified(text, "lego-normalization{fold=true}, lego-to-arith{assume-bounds=true}, canonicalize, cse");
    assert_eq!(summary.solver_calls, 0, "{summary:?}");
    assert_eq!(summary.rewrites, 0, "{summary:?}");
}
