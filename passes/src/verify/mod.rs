//! The verification passes, together: one file per pass plus the shared SMT encoder and diagnostics helpers.

pub mod analyze_memory;
pub mod bounds_checks;
pub mod genp_obligation;
pub mod smt_encode;
pub mod verify_bank_conflicts;
pub mod verify_bijectivity;
pub mod verify_checks;
pub mod verify_coalescing;
pub mod verify_common;
