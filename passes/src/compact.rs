//! Re-allocating long straight-line bodies in block order (issue 25, growth of compile time with the input).
//!
//! MLIR keeps an op's operands, results and links in one allocation, placed wherever the allocator had room
//! when the op was made. Ops parsed from text are made in block order, so a walk over a block reads memory
//! mostly forwards; a pass that rewrites most of a body (lego-to-arith, the clean-ups, the simplifier) leaves
//! the new ops in the holes its erased ops left, and a walk in block order then jumps through memory: one
//! cache miss per op, in every later sweep (each pass, and MLIR's verifier after each pass). Once a body no
//! longer fits the caches this is what grows faster than the body: on a function of 40 000 applications
//! (`bench/compile-time/gen.py applies`), the passes after the simplifier took 2.3–3× their time on the same
//! function re-parsed from text.
//!
//! [`compact_long_bodies`] clones such a body (MLIR's clone makes the ops in block order) and moves the clone's
//! blocks into the op, dropping the old ones: the op itself stays (handles to it stay valid), the printed IR
//! is the same to the byte (same ops, attributes, locations and order; values are numbered by position). It
//! costs about one sweep, so it is done only where sweeps over one long block dominate: a body with at least
//! [`LONG_BODY`] ops directly in its blocks, few of which hold regions (a body of many small regions, such as
//! one `gpu.launch` per kernel, keeps each region's ops together and measured no gain).

use crate::simplify::ir;
use mlir_sys::{
    mlirOperationClone, mlirOperationDestroy, mlirOperationGetNumRegions, mlirOperationGetRegion, mlirRegionTakeBody,
    MlirOperation,
};

/// Ops directly in an op's blocks from which a body counts as long.
pub const LONG_BODY: usize = 4096;

/// At most one op in this many of a long body may hold regions.
const REGION_HOLDERS_PER_OP: usize = 8;

/// Ops directly in the blocks of `op`'s regions, and how many of them hold regions.
fn direct_ops(op: MlirOperation) -> (usize, usize) {
    let (mut ops, mut holders) = (0, 0);
    for child in ir::region_blocks(op).into_iter().flatten().flat_map(ir::block_ops) {
        ops += 1;
        // SAFETY: `child` is a live op of `op`'s body.
        if unsafe { mlirOperationGetNumRegions(child) } > 0 {
            holders += 1;
        }
    }
    (ops, holders)
}

/// Whether `op`'s body is long and straight-line enough for [`compact_long_bodies`].
fn is_long_body(op: MlirOperation) -> bool {
    let (ops, holders) = direct_ops(op);
    ops >= LONG_BODY && holders * REGION_HOLDERS_PER_OP <= ops
}

/// Re-allocates, in block order, the bodies of the ops directly under `root` that are long straight-line
/// bodies (see the module documentation). Returns how many bodies it re-allocated. The ops must not use
/// values defined outside them that the clone would not see (any op directly under a module or function:
/// a clone keeps using the outer values it used).
pub fn compact_long_bodies(root: MlirOperation) -> usize {
    let _span = tracing::debug_span!(target: "lego", "compact").entered();
    let mut compacted = 0;
    for op in ir::child_ops(root) {
        if !is_long_body(op) {
            continue;
        }
        // SAFETY: `op` is live and attached; the clone is a new, unattached op whose regions are moved into
        // `op` (replacing the old blocks, which are destroyed with their ops: all their uses are in them, or
        // in the clone's, which are gone with them) before the emptied clone is destroyed.
        unsafe {
            let copy = mlirOperationClone(op);
            for index in 0..mlirOperationGetNumRegions(op) {
                mlirRegionTakeBody(mlirOperationGetRegion(op, index), mlirOperationGetRegion(copy, index));
            }
            mlirOperationDestroy(copy);
        }
        compacted += 1;
    }
    tracing::debug!(target: "lego", "compacted {compacted} bodies");
    compacted
}

#[cfg(test)]
mod tests {
    use super::*;
    use melior::ir::{
        operation::{OperationLike, OperationPrintingFlags},
        Module,
    };

    /// A function of `n` index computations in one block, with a nested region and attributes to carry.
    fn long_function(n: usize) -> String {
        let mut text = String::from("func.func @long(%a: index, %b: index) -> index attributes {lego.keep = 3 : i32} {\n");
        text += "  %acc0 = arith.constant 0 : index loc(\"start\"(\"f.mlir\":1:2))\n";
        for k in 0..n {
            text += &format!("  %x{k} = arith.muli %a, %b : index loc(\"f.mlir\":{}:5)\n", k + 2);
            text += &format!("  %acc{} = arith.addi %acc{k}, %x{k} overflow<nsw> : index\n", k + 1);
        }
        text += &format!(
            "  %r = scf.execute_region -> index {{\n    %s = arith.addi %acc{n}, %b : index\n    scf.yield %s : index\n  }}\n"
        );
        text += "  return %r : index\n}\n";
        text
    }

    fn printed(module: &Module) -> String {
        module
            .as_operation()
            .to_string_with_flags(OperationPrintingFlags::new().enable_debug_info(true, false).print_generic_operation_form())
            .expect("prints")
    }

    /// The first op in the function's body (its address tells whether the body was re-allocated).
    fn first_body_op(module: &Module) -> (MlirOperation, MlirOperation) {
        let function = ir::child_ops(module.as_operation().to_raw())[0];
        (function, ir::child_ops(function)[0])
    }

    #[test]
    fn long_bodies_are_reallocated_and_print_the_same() {
        let context = lego_dialect::create_context().expect("context");
        let module = Module::parse(&context, &long_function(LONG_BODY)).expect("parses");
        let before = printed(&module);
        let (function, first) = first_body_op(&module);
        assert_eq!(compact_long_bodies(module.as_operation().to_raw()), 1);
        let (function_after, first_after) = first_body_op(&module);
        assert_eq!(function_after.ptr, function.ptr, "the function op itself stays");
        assert_ne!(first_after.ptr, first.ptr, "its body is new");
        assert_eq!(printed(&module), before);
        assert!(module.as_operation().verify());
        // The printed form carries what a clone could lose: locations, attributes, the nested region.
        for kept in ["\"start\"", "\"f.mlir\":4097:5", "lego.keep = 3 : i32", "scf.execute_region", "nsw"] {
            assert!(before.contains(kept), "{kept}");
        }
    }

    #[test]
    fn short_bodies_and_bodies_of_regions_are_left() {
        let context = lego_dialect::create_context().expect("context");
        let short = Module::parse(&context, &long_function(LONG_BODY / 2 - 2)).expect("parses");
        let (_, first) = first_body_op(&short);
        assert_eq!(compact_long_bodies(short.as_operation().to_raw()), 0);
        assert_eq!(first_body_op(&short).1.ptr, first.ptr);

        let mut regions = String::from("func.func @regions(%a: index) {\n");
        for _ in 0..LONG_BODY {
            regions += "  scf.execute_region {\n    scf.yield\n  }\n";
        }
        regions += "  return\n}\n";
        let regions = Module::parse(&context, &regions).expect("parses");
        assert_eq!(compact_long_bodies(regions.as_operation().to_raw()), 0);
    }
}
