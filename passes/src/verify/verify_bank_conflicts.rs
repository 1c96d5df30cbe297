//! `lego-verify-bank-conflicts{warp-size=32 num-banks=32 element-size=4}` (published legacy pass):
//! `lego-verify`'s bank-conflict check, in the published model, on every `lego.apply` of a function with a
//! `{lego.thread_id}` argument — the apply's result is the address. A refutation or an undecided check is a
//! warning on the apply; the pass never fails and changes nothing.

use crate::{
    external::{LegoPass, PassFailure, PassId},
    registry::{OptionSpec, Options, RegistryError},
    verify_checks::{check_applies, Properties},
    verify_coalescing::positive,
    verify_common::VerifyOptions,
};
use melior::ir::OperationRef;

static ID: PassId = PassId::new();

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "warp-size", default: "32", description: "threads per warp (a positive integer)" },
    OptionSpec { name: "num-banks", default: "32", description: "shared-memory banks (a positive integer)" },
    OptionSpec {
        name: "element-size",
        default: "4",
        description: "bytes per element: 1, 2, 4, 8 or 16",
    },
    crate::verify_common::OPTIONS[0],
    crate::verify_common::OPTIONS[1],
];

#[derive(Clone)]
struct VerifyBankConflicts {
    properties: Properties,
    options: VerifyOptions,
}

pub fn create(options: &Options) -> Result<melior::pass::Pass, RegistryError> {
    let element_size = match options.u64("element-size") {
        Ok(size @ (1 | 2 | 4 | 8 | 16)) => size,
        _ => return Err(options.bad_value("element-size", options.string("element-size"), "1, 2, 4, 8 or 16")),
    };
    let properties = Properties {
        coalescing: false,
        bank_conflict_free: true,
        warp_size: positive(options, "warp-size")?,
        num_banks: positive(options, "num-banks")?,
        element_size,
    };
    Ok(crate::external::into_mlir_pass(VerifyBankConflicts { properties, options: VerifyOptions::parse(options)? }, &ID))
}

impl LegoPass for VerifyBankConflicts {
    fn name(&self) -> &'static str {
        "lego-verify-bank-conflicts"
    }

    fn description(&self) -> &'static str {
        "(legacy) Warn on every lego.apply whose result may cause shared-memory bank conflicts"
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailure> {
        check_applies(root, self.properties, self.options);
        Ok(())
    }
}
