//! Shared machinery of `lego-normalization` and `lego-to-arith`: IR editing helpers ([`ir`]), the apply /
//! inverse generators ([`emit`]), lowering of the ops that use layouts ([`uses`]), threading views and
//! layouts through function calls ([`views`]) and dead-op cleanup ([`cleanup`]).

pub mod cleanup;
pub mod emit;
pub mod ir;
pub mod layout_functions;
pub mod tile_by;
pub mod uses;
pub mod views;
