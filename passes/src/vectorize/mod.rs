//! `lego-vectorize` (docs/passes/lego-vectorize.md): strip-mines and vectorizes the innermost `scf.for` loops of
//! lowered code (memref loads/stores over index arithmetic), with a scalar remainder loop for any trip count.
//!
//! - [`affine`]: an index as `coeff·iv + constant + Σ cᵢ·tᵢ`;
//! - [`analysis`]: body legality, access kinds (unit, stride, broadcast, gather), reductions, dependence
//!   distances, lanes — or why the loop stays scalar;
//! - [`rewrite`]: the vector loop and the remainder;
//! - [`build`]: raw C API op construction;
//! - [`patterns`], [`argmin`], [`scan`], [`rle`], [`scatter_add`]: the specialised pattern passes.

pub mod affine;
pub mod analysis;
pub mod argmin;
pub mod build;
pub mod patterns;
pub mod rewrite;
pub mod rle;
pub mod scan;
pub mod scatter_add;

use crate::external::{LegoPass, PassFailure, PassId};
use crate::registry::{OptionSpec, Options, RegistryError};
use crate::simplify::ir;
use analysis::{ForLoop, Target, Verdict};
use melior::ir::{Location, OperationRef};

static ID: PassId = PassId::new();

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "target",
        default: "avx512",
        description: "Target backend: avx512 | avx2 | neon | sve (controls vector register lane width)",
    },
    OptionSpec {
        name: "report",
        default: "false",
        description: "ours: a remark on every candidate loop, saying how it was vectorized or why it stays scalar",
    },
];

/// Marker attributes of the published pattern passes: loops they rewrote are left alone.
const PATTERN_MARKERS: [&str; 6] = [
    "lego.compact_done",
    "lego.argmin_done",
    "lego.scatter_add_done",
    "lego.scan_done",
    "lego.filtered_reduce_done",
    "lego.rle_done",
];

#[derive(Clone)]
pub struct Vectorize {
    target: Target,
    report: bool,
}

pub fn create(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    let name = options.string("target");
    let target = analysis::target(name)
        .ok_or_else(|| options.bad_value("target", name, "one of avx512, avx2, neon, sve"))?;
    Ok(crate::external::into_mlir_pass(Vectorize { target, report: options.bool("report")? }, &ID))
}

impl LegoPass for Vectorize {
    fn name(&self) -> &'static str {
        "lego-vectorize"
    }

    fn description(&self) -> &'static str {
        "Strip-mine and vectorize innermost scf.for loops (unit, strided, broadcast, gather accesses; reductions; scalar remainder)"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let mut loops = Vec::new();
        ir::walk(root.to_raw(), &mut |op| {
            if ir::op_name(op) == "scf.for" && !PATTERN_MARKERS.iter().any(|marker| ir::attribute(op, marker).is_some()) {
                loops.push(op);
            }
        });
        // Innermost first (a walk visits parents first): once an inner loop is vectorized its parent holds a
        // loop and is refused, so the innermost vectorizable loop wins.
        for op in loops.into_iter().rev() {
            let Some(for_loop) = ForLoop::new(op) else { continue };
            match analysis::analyze(&for_loop, self.target) {
                Verdict::NotCandidate => {}
                Verdict::Scalar(reason) => {
                    if self.report {
                        remark(op, &format!("lego-vectorize: loop not vectorized: {reason}"));
                    }
                }
                Verdict::Vectorize(plan) => {
                    rewrite::vectorize(&for_loop, &plan);
                    if self.report {
                        let lanes = if plan.scalable { format!("[{}]", plan.lanes) } else { plan.lanes.to_string() };
                        let kinds: Vec<String> = plan
                            .accesses
                            .iter()
                            .map(|a| format!("{} {}", if a.store { "store" } else { "load" }, a.kind.describe()))
                            .collect();
                        let reductions = if plan.reductions.is_empty() {
                            String::new()
                        } else {
                            let kinds: Vec<&str> = plan.reductions.iter().map(|r| r.kind).collect();
                            format!("; reductions: {}", kinds.join(", "))
                        };
                        remark(op, &format!("lego-vectorize: vectorized with {lanes} lanes ({}){reductions}", kinds.join(", ")));
                    }
                }
            }
        }
        Ok(())
    }

    fn may_leave_lego_ops(&self) -> bool {
        false
    }
}

fn remark(op: mlir_sys::MlirOperation, message: &str) {
    // SAFETY: `op` is live; its location lives in the context.
    let location = unsafe { Location::from_raw(mlir_sys::mlirOperationGetLocation(op)) };
    crate::diagnostics::remark(location, message);
}
