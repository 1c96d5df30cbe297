//! `lego-to-arith`: lowers `apply` / `apply_inverse` / `load` / `store` (and with them `cast_view` and every
//! layout constructor, gen_p bodies inlined) to plain unsigned `arith` (+ `memref`, and whatever ops gen_p
//! bodies contain), exactly per docs/reference/semantics.md, in the published op form of docs/reference/lowering.md §2. Afterwards no `lego.` op remains except `check` / `assume*` / `assert*` and the layouts
//! those asserts refer to.
//!
//! Steps: (0) calls of functions returning `!lego.layout` are inlined and those functions erased
//! ([`crate::lowering::layout_functions`]); (1) functions taking `!lego.view` / `!lego.layout` arguments are rewritten to take the memref and
//! the layout's SSA values ([`crate::lowering::views`]); (2) every use op is replaced by the arithmetic of
//! its layout, inserted right before it ([`crate::lowering::emit`]), repeatedly while inlined gen_p bodies
//! bring in new lego uses; (3) the clean-up of §0 ([`crate::cleanup::greedy_cleanup`]): folding, constants
//! uniqued and hoisted, layout ops, `cast_view`s and other dead ops erased.
//!
//! **`assume-bounds=true`** also states the layout's contract on every input as `lego.assume_bounds` (marked
//! `lego.layout_contract`): each index of `apply`/`load`/`store` below its logical dim, the flat input of
//! `apply_inverse` below the layout's size, and for the `apply_inverse` of a `tile_by` with symbolic sizes
//! the size-consistency equations `Π_l t_{l,k} = Π_h o_{h,k}` (as a pair of `lb` facts). Out-of-range
//! inputs are unspecified (docs/reference/semantics.md), so this adds no behaviour; it keeps, past lowering, the fact that
//! a layout's dims bound the indices fed to it, which `lego-arith-simplification` needs (the outermost index
//! of a linearization has no bound of its own).
//! `lego-lower` turns it on and drops the facts again at its end.
//!
//! **`verify-gen-p=true`** (the default): `apply_inverse` is computed through the `inv` regions of the gen_p's
//! its layout is built from, so each such gen_p's inverse obligation (docs/ops/gen_p.md) is discharged first
//! ([`crate::genp_obligation`], memoized per gen_p): refuted → the published `Layout is not bijective` error
//! at the gen_p with its counterexample, and the pass fails; undecided → a warning, and the `inv` region is
//! lowered as written (there is nothing else to compute `apply_inverse` from). `false` trusts `inv`, as the
//! published tool does. `apply`, `load` and `store` use `apply` regions only and need no proof.
//!
//! Symbolic sizes are trusted: sizes that disagree at run time (a tile_by whose levels do not multiply to
//! the inner dims, a memref smaller than the layout, out-of-range indices) give unspecified results, as in
//! docs/reference/semantics.md, unless bounds checks are requested (`lego-generate-bounds-checks`).

use crate::{
    external::{LegoPass, PassFailure, PassId},
    genp_obligation::{self, GenPObligations, LayoutInverse},
    lowering::{
        cleanup,
        uses::{lower_use, ContractFacts},
        views,
    },
};
use lego_dialect::ops::{walk_ops, OpKind};
use melior::ir::{operation::OperationLike, OperationRef};

/// Rounds of lowering: each round lowers the uses present; inlined gen_p bodies may contain more.
const MAX_ROUNDS: usize = 64;

static ID: PassId = PassId::new();

#[derive(Clone)]
pub struct ToArith {
    /// State each input's range as a marked `lego.assume_bounds` (option `assume-bounds`).
    pub assume_bounds: bool,
    /// With `assume_bounds`: each fact once per block ([`ContractFacts::once_per_block`]), which only
    /// `lego-lower` asks for.
    pub facts_once_per_block: bool,
    /// Prove a gen_p's inverse before lowering an `apply_inverse` through it (option `verify-gen-p`).
    pub verify_gen_p: bool,
}

impl Default for ToArith {
    fn default() -> Self {
        ToArith { assume_bounds: false, facts_once_per_block: false, verify_gen_p: true }
    }
}

/// The pass, ready for a pass manager.
pub fn create(assume_bounds: bool, facts_once_per_block: bool, verify_gen_p: bool) -> melior::pass::Pass {
    crate::external::into_mlir_pass(ToArith { assume_bounds, facts_once_per_block, verify_gen_p }, &ID)
}

impl LegoPass for ToArith {
    fn name(&self) -> &'static str {
        "lego-to-arith"
    }

    fn description(&self) -> &'static str {
        "Lower apply/apply_inverse/load/store/cast_view/gen_p to arith, scf, math and memref"
    }

    fn run(&mut self, op: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let contract = self.assume_bounds.then(|| {
            if self.facts_once_per_block {
                ContractFacts::once_per_block()
            } else {
                ContractFacts::every()
            }
        });
        let result = lower(op, contract, self.verify_gen_p);
        lego_smt::join_background();
        result
    }

    /// [`lower`] runs the lego dialect verifier on the ops it left itself.
    fn may_leave_lego_ops(&self) -> bool {
        false
    }
}

/// Runs the whole lowering on `root`.
pub fn lower(root: OperationRef, mut contract: Option<ContractFacts>, verify_gen_p: bool) -> Result<(), PassFailure> {
    let handle = crate::mlir_context::ContextHandle::of(&root);
    let context = handle.get();
    // Layouts built once by a function returning !lego.layout: inlined at each call first (their bodies may
    // pass layouts on to functions with layout arguments, which the threading below then handles).
    // One walk finds the functions and calls of both steps; a second only when the first step changed the IR.
    let mut scanned = views::FunctionsAndCalls::of(root);
    match crate::lowering::layout_functions::inline_layout_functions(context, root, &scanned.functions) {
        Some(false) => return Err(PassFailure("calls of functions returning !lego.layout could not be inlined".into())),
        Some(true) => scanned = views::FunctionsAndCalls::of(root),
        None => {}
    }
    if !views::thread_through_calls(context, root, scanned) {
        return Err(PassFailure("views or layouts could not be threaded through calls".into()));
    }
    let mut obligations = verify_gen_p.then(|| GenPObligations::new(genp_obligation::BUDGET_MS));
    // Constant inputs outside the layout's domain (crate::constant_inputs): reported once per op and message.
    // The same walk finds the first round's uses.
    let crate::constant_inputs::Uses { uses, feeding_checks, under_bounds_checks } =
        crate::constant_inputs::Uses::of(root);
    let mut first_round = Some(uses);
    let mut reported = std::collections::HashSet::new();
    let mut failed = false;
    for round in 0.. {
        let pending = first_round.take().unwrap_or_else(|| {
            let mut pending = Vec::new();
            walk_ops(root, &mut |op| {
                if let Some(kind @ (OpKind::Apply | OpKind::ApplyInverse | OpKind::Load | OpKind::Store)) =
                    OpKind::of(&op)
                {
                    pending.push((op, kind));
                }
            });
            pending
        });
        if pending.is_empty() {
            break;
        }
        if round == MAX_ROUNDS {
            for (op, kind) in pending {
                crate::lowering::ir::Located::new(
                    op.location(),
                    format!("'{}' op was not lowered after {MAX_ROUNDS} rounds of gen_p inlining", kind.name()),
                )
                .emit();
            }
            return Err(PassFailure("lowering did not converge".into()));
        }
        tracing::debug!(target: "lego", "lego-to-arith round {round}: {} ops to lower", pending.len());
        if let Some(obligations) = obligations.as_mut() {
            // Before anything is lowered, so a refuted inverse leaves the IR as it was.
            for (op, kind) in &pending {
                let (OpKind::ApplyInverse, Ok(layout)) = (kind, op.operand(0)) else { continue };
                // A hidden layout is one lowering cannot compute either (it reports that itself).
                if let LayoutInverse::Fails(gen_p, obligation) = obligations.layout(layout) {
                    failed |= obligations.report(
                        gen_p,
                        &obligation,
                        op.location(),
                        genp_obligation::USED_HERE,
                        "apply_inverse is lowered through the inv region as written",
                    );
                }
            }
            if failed {
                return Err(PassFailure("a gen_p's inv region does not invert its apply region".into()));
            }
        }
        // Every use found is lowered and erased; new ones can only come with a cloned gen_p body.
        let mut any_inlined = false;
        if let Some(contract) = contract.as_mut() {
            contract.new_round();
        }
        for (op, kind) in pending {
            let mut facts = lego_dialect::ops::LayoutFactsCache::default();
            if let Some(reason) = crate::constant_inputs::constant_input_outside(op, &mut facts) {
                let key = crate::constant_inputs::key(op);
                let message = format!("'{}' op {reason}", kind.name());
                let why = if feeding_checks.contains(&key) {
                    Some(crate::constant_inputs::FEEDS_CHECK)
                } else if under_bounds_checks.contains(&key) {
                    Some(crate::constant_inputs::UNDER_BOUNDS_CHECKS)
                } else {
                    None
                };
                if let Some(why) = why {
                    crate::diagnostics::error(op.location(), &format!("{message}{why}"));
                    failed = true;
                    continue;
                }
                let message = format!("{message}{}", crate::constant_inputs::UNSPECIFIED);
                if reported.insert((op.location().to_string(), message.clone())) {
                    crate::diagnostics::warning(op.location(), &message);
                }
            }
            match lower_use(context, op, kind, contract.as_mut()) {
                Ok(inlined) => any_inlined |= inlined,
                Err(error) => {
                    error.emit();
                    failed = true;
                }
            }
        }
        if failed {
            return Err(PassFailure("some lego ops could not be lowered".into()));
        }
        if !any_inlined {
            break;
        }
    }
    // docs/reference/lowering.md §0: folding, constants uniqued and hoisted per function, dead ops (layouts and
    // cast_views included) erased.
    // The lego ops left, which both the leftover report and the lego dialect verifier that a pass ends with
    // (crate::external) look at: the pass verifies them itself (`may_leave_lego_ops`). The clean-up lists them
    // where it can; otherwise one walk.
    let lego_ops = cleanup::cleanup_listing(root).unwrap_or_else(|| {
        let mut lego_ops = Vec::new();
        walk_ops(root, &mut |op| {
            if let Some(kind) = OpKind::of(&op) {
                lego_ops.push((op, kind));
            }
        });
        lego_ops
    });
    if !cleanup::report_leftovers(&lego_ops) {
        return Err(PassFailure("lego ops remain that lego-to-arith cannot lower".into()));
    }
    if !lego_dialect::verify::verify_ops_and_emit(&lego_ops) {
        return Err(PassFailure("the lowered IR breaks the lego dialect's rules".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use melior::ir::Module;

    /// Two applies of one layout on the same indices and one on other indices in a function's block, and one
    /// more on the same indices in a nested block.
    const SHARED_INDICES: &str = r#"
func.func @f(%i: index, %j: index, %k: index, %n: index) -> (index, index, index, index) {
  %l = lego.row [%n, 8] : !lego.layout
  %a = lego.apply %l(%i, %j) : !lego.layout
  %b = lego.apply %l(%i, %j) : !lego.layout
  %c = lego.apply %l(%k, %j) : !lego.layout
  %d = scf.execute_region -> index {
    %e = lego.apply %l(%i, %j) : !lego.layout
    scf.yield %e : index
  }
  return %a, %b, %c, %d : index, index, index, index
}
"#;

    /// The printed `lego.assume_bounds` ops of `module`, in order.
    fn facts(module: &Module) -> Vec<String> {
        let mut facts = Vec::new();
        walk_ops(module.as_operation(), &mut |op| {
            if OpKind::of(&op) == Some(OpKind::AssumeBounds) {
                facts.push(op.to_string());
            }
        });
        facts
    }

    fn lowered(contract: ContractFacts) -> Vec<String> {
        let context = lego_dialect::create_context().expect("context");
        let module = lego_dialect::source::parse(&context, "shared.mlir", SHARED_INDICES).expect("parses");
        lower(module.as_operation(), Some(contract), false).expect("lowers");
        facts(&module)
    }

    #[test]
    fn inside_lego_lower_a_fact_is_stated_once_per_block() {
        // Each apply states `1 ≤ %n < 2^63` (a size), `%i < %n` (or `%k < %n`) and `%j < 8`; lego-to-arith
        // run alone states every copy.
        let every = lowered(ContractFacts::every());
        assert_eq!(every.len(), 12, "{every:#?}");
        // Inside lego-lower the second apply on (%i, %j) in the same block states nothing new; the apply on
        // (%k, %j) states only `%k < %n`; the nested block states its own three.
        let once = lowered(ContractFacts::once_per_block());
        assert_eq!(once.len(), 3 + 1 + 3, "{once:#?}");
        let mut distinct = every.clone();
        distinct.sort();
        distinct.dedup();
        let mut kept = once.clone();
        kept.sort();
        kept.dedup();
        assert_eq!(kept, distinct, "no fact is lost, only copies");
    }
}
