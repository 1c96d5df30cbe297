//! `canonicalize` as `lego-lower` runs it: upstream's pass with its region simplification skipped where it
//! provably changes nothing (csrc/canonicalize.cpp); the registry adds it in place of upstream's.

#[cfg(not(lego_no_diagnostic_shim))]
extern "C" {
    fn legoCreateLazyRegionCanonicalizer() -> mlir_sys::MlirPass;
}

/// Upstream `canonicalize` (its patterns, driver and options) with the region simplification after each
/// iteration skipped where it provably changes nothing (csrc/canonicalize.cpp says when); `None` without the
/// shim (then upstream's pass is used). The output is the same as upstream's.
pub fn lazy_region_canonicalizer() -> Option<melior::pass::Pass> {
    #[cfg(not(lego_no_diagnostic_shim))]
    {
        // SAFETY: the shim returns a fresh, owned mlir::Pass; the pass manager takes ownership when it is added.
        Some(unsafe { melior::pass::Pass::from_raw(legoCreateLazyRegionCanonicalizer()) })
    }
    #[cfg(lego_no_diagnostic_shim)]
    None
}

/// The lazy region simplification of `lazy_region_canonicalizer` against upstream's `canonicalize`: the same
/// printed IR (locations included: the folder moves constants and gives them unknown locations) on inputs that
/// take each path — single-block regions where region DCE finds nothing, an in-place fold that leaves a dead
/// op (only region DCE erases it within the iteration), regions inlined by a pattern (blocks inserted), and
/// multi-block regions with unreachable blocks and dead block arguments (upstream's run, unchanged).
#[cfg(all(test, not(lego_no_diagnostic_shim)))]
mod lazy_canonicalizer_tests {
    use melior::{
        ir::{operation::{OperationLike, OperationPrintingFlags}, Module},
        pass::PassManager,
    };

    const CASES: &[(&str, &str)] = &[
        (
            "folding and dead ops in single-block regions",
            r#"func.func @f(%a: index, %b: index) -> index {
  %c2 = arith.constant 2 : index
  %x = arith.muli %a, %c2 : index
  %c0 = arith.constant 0 : index
  %y = arith.addi %x, %c0 : index
  %dead = arith.divui %y, %b : index
  %c2b = arith.constant 2 : index
  %z = arith.muli %y, %c2b : index
  %r = scf.for %i = %c0 to %b step %c2 iter_args(%acc = %z) -> (index) {
    %c0i = arith.constant 0 : index
    %s = arith.addi %acc, %c0i : index
    %unused = arith.muli %s, %i : index
    scf.yield %s : index
  }
  return %r : index
}"#,
        ),
        (
            "an in-place fold leaves the cast it looked through dead",
            r#"func.func @g(%m: memref<8xf32>, %i: index) -> f32 {
  %c = memref.cast %m : memref<8xf32> to memref<?xf32>
  %v = memref.load %c[%i] : memref<?xf32>
  %c1 = arith.constant 1 : index
  %w = memref.load %c[%c1] : memref<?xf32>
  %s = arith.addf %v, %w : f32
  return %s : f32
}"#,
        ),
        (
            "a pattern inlines regions",
            r#"func.func @h(%a: index, %b: index) -> index {
  %true = arith.constant true
  %r = scf.if %true -> (index) {
    %s = arith.addi %a, %b : index
    scf.yield %s : index
  } else {
    scf.yield %a : index
  }
  %e = scf.execute_region -> index {
    %t = arith.muli %r, %b : index
    scf.yield %t : index
  }
  return %e : index
}"#,
        ),
        (
            "multi-block regions: unreachable blocks and dead block arguments",
            r#"func.func @k(%a: index, %p: i1) -> index {
  %c1 = arith.constant 1 : index
  cf.cond_br %p, ^bb1(%a : index), ^bb2(%c1 : index)
^bb1(%x: index):
  %y = arith.addi %x, %c1 : index
  cf.br ^bb3(%y, %x : index, index)
^bb2(%z: index):
  cf.br ^bb3(%z, %z : index, index)
^bb3(%r: index, %unused: index):
  return %r : index
^bb4:
  %d = arith.addi %a, %a : index
  cf.br ^bb3(%d, %d : index, index)
}"#,
        ),
    ];

    fn canonicalized(module_text: &str, lazy: bool) -> String {
        let context = lego_dialect::create_context().expect("context");
        let mut module = Module::parse(&context, module_text).expect("parses");
        let manager = PassManager::new(&context);
        let pass = if lazy {
            super::lazy_region_canonicalizer().expect("the shim is built")
        } else {
            melior::pass::transform::create_canonicalizer()
        };
        manager.add_pass(pass);
        manager.run(&mut module).expect("runs");
        module
            .as_operation()
            .to_string_with_flags(OperationPrintingFlags::new().enable_debug_info(true, false))
            .expect("prints")
    }

    #[test]
    fn same_output_as_upstream_canonicalize() {
        for (what, text) in CASES {
            let upstream = canonicalized(text, false);
            assert_eq!(canonicalized(text, true), upstream, "{what}");
        }
        // All cases in one module, and with another top-level op beside the functions.
        let functions: Vec<&str> = CASES.iter().map(|(_, text)| *text).collect();
        let module_of_functions = functions.join("\n");
        assert_eq!(canonicalized(&module_of_functions, true), canonicalized(&module_of_functions, false));
        let with_global =
            format!("memref.global \"private\" constant @table : memref<2xindex> = dense<[1, 2]>\n{module_of_functions}");
        assert_eq!(canonicalized(&with_global, true), canonicalized(&with_global, false));
        // The cases do exercise what they say (upstream's output, checked by hand).
        let folded = canonicalized(CASES[0].1, false);
        assert!(!folded.contains("divui"), "{folded}");
        let cast = canonicalized(CASES[1].1, false);
        assert!(!cast.contains("memref.cast"), "{cast}");
        let inlined = canonicalized(CASES[2].1, false);
        assert!(!inlined.contains("scf.if") && !inlined.contains("scf.execute_region"), "{inlined}");
        let blocks = canonicalized(CASES[3].1, false);
        assert!(!blocks.contains("index, index"), "region DCE drops the dead block argument: {blocks}");
    }
}
