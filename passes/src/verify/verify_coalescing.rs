//! `lego-verify-coalescing{warp-size=32}` (published legacy pass): `lego-verify`'s coalescing check, in the
//! published model, on every `lego.apply` of a function with a `{lego.thread_id}` argument — the apply's
//! result is the address. A refutation or an undecided check is a warning on the apply; the pass never fails
//! and changes nothing.

use crate::{
    external::{LegoPass, PassFailure, PassId},
    registry::{OptionSpec, Options, RegistryError},
    verify_checks::{check_applies, Properties},
    verify_common::VerifyOptions,
};
use melior::ir::OperationRef;

static ID: PassId = PassId::new();

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "warp-size", default: "32", description: "threads per warp (a positive integer)" },
    crate::verify_common::OPTIONS[0],
    crate::verify_common::OPTIONS[1],
];

#[derive(Clone)]
struct VerifyCoalescing {
    warp_size: u64,
    options: VerifyOptions,
}

pub fn create(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    let pass = VerifyCoalescing { warp_size: positive(options, "warp-size")?, options: VerifyOptions::parse(options)? };
    Ok(crate::external::into_mlir_pass(pass, &ID))
}

/// A positive integer option of at most 2^20 (the range `lego.check`'s attributes allow).
pub fn positive(options: &Options, name: &str) -> Result<u64, RegistryError> {
    match options.u64(name) {
        Ok(value) if (1..=1 << 20).contains(&value) => Ok(value),
        _ => Err(options.bad_value(name, options.string(name), "a positive integer (at most 2^20)")),
    }
}

impl LegoPass for VerifyCoalescing {
    fn name(&self) -> &'static str {
        "lego-verify-coalescing"
    }

    fn description(&self) -> &'static str {
        "(legacy) Warn on every lego.apply whose result is not a coalesced warp access"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        let properties = Properties {
            coalescing: true,
            bank_conflict_free: false,
            warp_size: self.warp_size,
            num_banks: 32,
            element_size: 4,
        };
        check_applies(root, properties, self.options);
        Ok(())
    }
}
