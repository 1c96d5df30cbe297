//! `lego-gpu-launch-sink-index-computations`: upstream `gpu-launch-sink-index-computations` in linear time, the
//! step of every GPU pipeline before `gpu-kernel-outlining`. The constants (and `memref.dim`, `arith.select`,
//! `arith.cmpi` of values the launch has anyway) a launch body uses from above are cloned into the body, so
//! they do not become kernel parameters: each kernel's parameters are exactly the buffers and runtime values
//! it needs.
//!
//! Upstream replaces each sunk value's uses inside one launch by going through every use of the value; after
//! `lego-lower` a constant is defined once per function and used by all its launches, so n launches cost
//! O(n²) (the kernels benchmark at 20 000 applications, 5 000 launches: 16 s of a 60 s `lego-to-nvvm`).
//! `csrc/sink_index_computations.cpp` makes the same clones in the same places and the same order, and then
//! goes through each sunk value's uses once; it says why every use list ends as upstream leaves it. The
//! output is upstream's (lit test `test/targets/sink-index-computations.mlir` checks the IR of both), except
//! that a clone with an unknown location (a constant MLIR's folder hoisted) takes its first located user's, so
//! a target that cannot convert it names a line of the user's file.

use crate::external::{LegoPass, PassFailure};
use melior::ir::{operation::OperationLike, OperationRef};

#[derive(Clone)]
pub(super) struct SinkIndexComputations;

#[cfg(not(lego_no_diagnostic_shim))]
extern "C" {
    /// csrc/sink_index_computations.cpp. False only where upstream's function, used for a launch nested in
    /// another, fails.
    fn legoSinkIndexComputationsIntoLaunches(root: mlir_sys::MlirOperation) -> bool;
}

impl LegoPass for SinkIndexComputations {
    fn name(&self) -> &'static str {
        "lego-gpu-launch-sink-index-computations"
    }

    fn description(&self) -> &'static str {
        "Clone the constants, memref.dim, arith.select and arith.cmpi a gpu.launch body uses from above into it (upstream gpu-launch-sink-index-computations, in linear time)"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        #[cfg(not(lego_no_diagnostic_shim))]
        {
            // SAFETY: `root` is the live op the pass runs on; the shim changes only what is nested in it.
            if unsafe { legoSinkIndexComputationsIntoLaunches(root.to_raw()) } {
                return Ok(());
            }
            lego_dialect::verify::emit_error(root.location(), "sinking index computations into a nested gpu.launch failed");
            Err(PassFailure("gpu-launch sinking failed".into()))
        }
        #[cfg(lego_no_diagnostic_shim)]
        {
            let message = "lego-gpu-launch-sink-index-computations needs the C++ shim this build was made without; use gpu-launch-sink-index-computations";
            lego_dialect::verify::emit_error(root.location(), message);
            Err(PassFailure(message.into()))
        }
    }

    /// It clones only arith, memref and gpu ops.
    fn may_leave_lego_ops(&self) -> bool {
        false
    }
}
