//! The `lego` MLIR dialect.
//!
//! A layout maps a logical N-d index to a flat physical position and back. This crate defines the dialect's
//! types and ops (through IRDL, see `lego.irdl.mlir`), registers them on a melior [`Context`], gives typed
//! accessors and builders for each op ([`ops`]), checks every rule IRDL cannot express ([`verify`]) and
//! converts between the custom syntax users write and the generic form MLIR parses and prints ([`syntax`],
//! contract in `docs/generic-form.md`). [`source`] ties these together: text in, verified module out, and back.

pub mod ops;
pub mod source;
pub mod syntax;
pub mod verify;

use melior::{
    dialect::DialectRegistry,
    ir::{Module, operation::OperationLike},
    utility::{load_irdl_dialects, register_all_dialects},
    Context,
};

/// The IRDL definition of the dialect; loaded once per context.
pub const IRDL_DEFINITION: &str = include_str!("lego.irdl.mlir");

/// Dialect namespace, as it appears in op names (`lego.apply`) and types (`!lego.layout`).
pub const NAMESPACE: &str = "lego";

#[derive(Debug, thiserror::Error)]
pub enum DialectError {
    #[error("internal error: the lego IRDL definition does not parse")]
    IrdlParse,
    #[error("internal error: mlirLoadIRDLDialects rejected the lego IRDL definition")]
    IrdlLoad,
}

/// Registers the `lego` dialect on `context`. Idempotent: a context that already knows `lego.apply` is left
/// alone, so embedders may call this from several places.
pub fn register(context: &Context) -> Result<(), DialectError> {
    if is_registered(context) {
        return Ok(());
    }
    // The IRDL module only lives long enough to be loaded: the dialect definitions are copied into the context.
    let definition = Module::parse(context, IRDL_DEFINITION).ok_or(DialectError::IrdlParse)?;
    if !load_irdl_dialects(&definition) {
        return Err(DialectError::IrdlLoad);
    }
    tracing::debug!(target: "lego", "registered the lego dialect");
    Ok(())
}

/// Whether [`register`] already ran on this context.
pub fn is_registered(context: &Context) -> bool {
    context.is_registered_operation("lego.apply")
}

/// A context with every upstream dialect loaded and `lego` registered: what `lego-opt` uses. Upstream
/// dialects are loaded eagerly because gen_p regions are terminated by `smt.yield` (see docs/generic-form.md)
/// and lowering creates `arith`/`affine`/`memref` ops on demand.
pub fn create_context() -> Result<Context, DialectError> {
    let context = Context::new();
    prepare_context(&context)?;
    Ok(context)
}

/// Makes an existing context (an embedder's) ready for lego exactly as [`create_context`] makes a new one:
/// every upstream dialect registered and loaded, LLVM IR translations registered, `lego` registered.
/// Idempotent; the C API's `legoRegisterDialect` calls this.
pub fn prepare_context(context: &Context) -> Result<(), DialectError> {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    context.append_dialect_registry(&registry);
    // `gpu-module-to-binary` (the lego-to-{nvvm,rocdl,xevm,llvmspirv} pipelines) translates kernels to LLVM
    // IR inside the pass; that needs every dialect's LLVM IR translation interface on the context.
    melior::utility::register_all_llvm_translations(context);
    context.load_all_available_dialects();
    register(context)
}

/// True for ops of this dialect (by name).
pub fn is_lego_op<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> bool {
    op.name().as_string_ref().as_str().is_ok_and(|name| name.starts_with("lego."))
}
