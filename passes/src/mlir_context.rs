//! A melior `&Context` borrowed from the IR a pass runs on.
//!
//! `ContextRef::to_ref` returns a reference *to the `ContextRef` value itself* (the two share a layout), typed
//! with the context's long lifetime `'c`. Called on a temporary (`location.context().to_ref()`) the reference
//! dangles as soon as the statement ends: the release build then reads garbage as the context and crashes
//! (issue 12: `lego-materialize-assume-bounds`). [`ContextHandle`] keeps the `ContextRef` alive and hands out
//! references that borrow from the handle, so the compiler rejects any use that outlives it. No other module
//! calls `to_ref` on a `ContextRef`.

use melior::{
    ir::{operation::OperationLike, Location},
    Context, ContextRef,
};
use mlir_sys::MlirOperation;

/// Owns a `ContextRef` so that the `&Context` it lends cannot outlive it.
#[derive(Clone, Copy)]
pub struct ContextHandle<'c>(ContextRef<'c>);

impl<'c> ContextHandle<'c> {
    pub fn new(context: ContextRef<'c>) -> Self {
        ContextHandle(context)
    }

    /// The context of an operation.
    pub fn of<'a>(op: &impl OperationLike<'c, 'a>) -> Self
    where
        'c: 'a,
    {
        ContextHandle(op.context())
    }

    /// The context of a raw operation.
    ///
    /// # Safety
    /// `op` must be a live operation whose context outlives `'c`.
    pub unsafe fn of_raw(op: MlirOperation) -> Self {
        ContextHandle(unsafe { ContextRef::from_raw(mlir_sys::mlirOperationGetContext(op)) })
    }

    /// The context of a location.
    pub fn of_location(location: Location<'c>) -> Self {
        ContextHandle(location.context())
    }

    /// The context, borrowed from this handle (not from `'c`): it lives exactly as long as the handle.
    pub fn get(&self) -> &Context {
        // SAFETY: the reference points at `self.0`, which lives as long as the returned borrow of `self`.
        unsafe { self.0.to_ref() }
    }
}
