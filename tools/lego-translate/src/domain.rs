//! The domain of each function, read from the module *before* lowering: the contract of every layout use in
//! the function's own block — each index of `lego.apply %l(…)` below its logical dim, the flat input of
//! `lego.apply_inverse %l(…)` below the inverse's domain size (the product of the logical dims; of the real
//! `dims` for `expand_by`, as `lego-to-arith` states it). `lego-lower` assumes these bounds (its simplifier
//! is told them), so outside them the generated code computes something else than the layout's own
//! arithmetic; the printers state them in a comment and, with `--assert-bounds`, check them.
//!
//! Indices and sizes are written over the function's parameters: a parameter, an `arith.constant`, or
//! `arith` integer ops of those. Anything else (a size read from a memref, say) is counted as unstated.

use crate::extract::{block_ops, op_name, string_attribute};
use crate::program::{BinOp, Bound, Domain, Expr, Extent, Origin};
use lego_dialect::ops::{layout_op, logical_dims, Dim, LayoutOp, OpKind};
use melior::ir::{operation::OperationLike, OperationRef, Value, ValueLike};
use mlir_sys::*;
use std::collections::HashMap;

/// How deep an index or size expression is followed through `arith` ops.
const MAX_DEPTH: usize = 32;

/// The domain of every `func.func` of `module`, by name. Locations of the uses go to `origins`.
pub fn analyze(module: MlirOperation, origins: &mut Vec<MlirLocation>) -> HashMap<String, Domain> {
    let mut domains = HashMap::new();
    let body = unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0)) };
    for func in block_ops(body) {
        if op_name(func) != "func.func" {
            continue;
        }
        let name = symbol_name(func);
        let entry = unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0)) };
        if entry.ptr.is_null() {
            continue;
        }
        domains.insert(name, function_domain(entry, origins));
    }
    domains
}

fn function_domain(entry: MlirBlock, origins: &mut Vec<MlirLocation>) -> Domain {
    let mut bounds: Vec<Bound> = Vec::new();
    let mut unstated = 0;
    let mut extents = Vec::new();
    for raw in block_ops(entry) {
        let op = unsafe { OperationRef::from_raw(raw) };
        let kind = OpKind::of(&op);
        if !matches!(kind, Some(OpKind::Apply | OpKind::ApplyInverse)) {
            // Uses inside regions (scf.if, …) bound their inputs only when reached.
            unstated += nested_uses(raw);
            continue;
        }
        origins.push(unsafe { mlirOperationGetLocation(raw) });
        let origin = origins.len() - 1;
        let Ok(layout) = op.operand(0) else { continue };
        let Some(dims) = logical_dims(layout) else {
            unstated += op.operand_count().saturating_sub(1);
            continue;
        };
        let numel = static_product(&dims);
        if kind == Some(OpKind::Apply) {
            if let Some(size) = numel {
                extents.push(Extent { origin, op: "lego.apply", size });
            }
            let indices: Vec<Value> = op.operands().skip(1).collect();
            if indices.len() != dims.len() {
                continue; // the verifier reports the rank mismatch
            }
            for (index, dim) in indices.into_iter().zip(&dims) {
                match (value_expr(index, entry, origin, 0), dim_expr(dim, entry, origin)) {
                    (Some(index), Some(limit)) => push_bound(&mut bounds, Bound { index, limit, origin }),
                    _ => unstated += 1,
                }
            }
        } else {
            let domain_dims = inverse_domain_dims(layout).unwrap_or(dims);
            let size = static_product(&domain_dims);
            if let Some(size) = size.into_iter().chain(numel).max() {
                extents.push(Extent { origin, op: "lego.apply_inverse", size });
            }
            let Ok(flat) = op.operand(1) else { continue };
            let limit = domain_dims.iter().map(|dim| dim_expr(dim, entry, origin)).collect::<Option<Vec<_>>>().map(|dims| product(dims, origin));
            match (value_expr(flat, entry, origin, 0), limit) {
                (Some(index), Some(limit)) => push_bound(&mut bounds, Bound { index, limit, origin }),
                _ => unstated += 1,
            }
        }
    }
    Domain::Known { bounds, unstated, extents }
}

fn push_bound(bounds: &mut Vec<Bound>, bound: Bound) {
    if !bounds.iter().any(|existing| same(existing, &bound)) {
        bounds.push(bound);
    }
}

/// Equal up to origins (two uses of one layout on the same parameters state one bound).
fn same(a: &Bound, b: &Bound) -> bool {
    strip(&a.index) == strip(&b.index) && strip(&a.limit) == strip(&b.limit)
}

fn strip(expr: &Expr) -> Expr {
    match expr {
        Expr::Const(value, _) => Expr::Const(*value, 0),
        Expr::Bin(op, a, b, _) => Expr::Bin(*op, Box::new(strip(a)), Box::new(strip(b)), 0),
        other => other.clone(),
    }
}

/// The real dims of an `expand_by` (its inverse's domain); `None` for other layouts.
fn inverse_domain_dims<'c: 'a, 'a>(layout: Value<'c, 'a>) -> Option<Vec<Dim<'c, 'a>>> {
    let owner = lego_dialect::ops::op_result(layout)?.owner();
    match layout_op(owner).ok()?? {
        LayoutOp::ExpandBy { dims, .. } => Some(dims),
        _ => None,
    }
}

/// The product of the sizes when all are static (exact: `u128` of non-negative `i64`s, at most 2^126 per
/// step, saturating beyond).
fn static_product(dims: &[Dim]) -> Option<u128> {
    dims.iter().try_fold(1u128, |product, dim| {
        let size = u128::try_from(dim.known()?).ok()?;
        Some(product.saturating_mul(size))
    })
}

/// A product of limits, constants folded when it stays below 2^64.
fn product(dims: Vec<Expr>, origin: Origin) -> Expr {
    let mut iter = dims.into_iter();
    let Some(first) = iter.next() else { return Expr::Const(1, origin) };
    iter.fold(first, |acc, dim| match (&acc, &dim) {
        (Expr::Const(a, _), Expr::Const(b, _)) if a.checked_mul(*b).is_some() => Expr::Const(a * b, origin),
        _ => Expr::Bin(BinOp::Mul, Box::new(acc), Box::new(dim), origin),
    })
}

fn dim_expr(dim: &Dim, entry: MlirBlock, origin: Origin) -> Option<Expr> {
    match dim {
        Dim::Static(size) => Some(Expr::Const(u64::try_from(*size).ok()?, origin)),
        Dim::Dynamic(value) => value_expr(*value, entry, origin, 0),
    }
}

/// `value` over the parameters of the function whose entry block is `entry`, or `None`.
fn value_expr(value: Value, entry: MlirBlock, origin: Origin, depth: usize) -> Option<Expr> {
    if depth > MAX_DEPTH {
        return None;
    }
    let raw = value.to_raw();
    if unsafe { mlirValueIsABlockArgument(raw) } {
        let owner = unsafe { mlirBlockArgumentGetOwner(raw) };
        return (owner.ptr == entry.ptr).then(|| Expr::Param(unsafe { mlirBlockArgumentGetArgNumber(raw) } as usize));
    }
    if let Some(constant) = lego_dialect::ops::constant_index_value(value) {
        return Some(Expr::Const(constant as u64, origin));
    }
    let owner = lego_dialect::ops::op_result(value)?.owner();
    let op = match owner.name().as_string_ref().as_str().ok()? {
        "arith.addi" => BinOp::Add,
        "arith.subi" => BinOp::Sub,
        "arith.muli" => BinOp::Mul,
        "arith.divui" => BinOp::DivU,
        "arith.remui" => BinOp::RemU,
        "arith.ceildivui" => BinOp::CeilDivU,
        "arith.shli" => BinOp::Shl,
        "arith.shrui" => BinOp::ShrU,
        "arith.andi" => BinOp::And,
        "arith.ori" => BinOp::Or,
        "arith.xori" => BinOp::Xor,
        "arith.minui" => BinOp::MinU,
        "arith.maxui" => BinOp::MaxU,
        _ => return None,
    };
    if !unsafe { mlirTypeIsAIndex(mlirValueGetType(raw)) } {
        return None;
    }
    let a = value_expr(owner.operand(0).ok()?, entry, origin, depth + 1)?;
    let b = value_expr(owner.operand(1).ok()?, entry, origin, depth + 1)?;
    Some(Expr::Bin(op, Box::new(a), Box::new(b), origin))
}

/// The `apply` / `apply_inverse` ops nested in the regions of `op` (not in its own block).
fn nested_uses(op: MlirOperation) -> usize {
    let mut count = 0;
    let regions = unsafe { mlirOperationGetNumRegions(op) };
    for index in 0..regions {
        let mut block = unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(op, index)) };
        while !block.ptr.is_null() {
            for inner in block_ops(block) {
                let inner_ref = unsafe { OperationRef::from_raw(inner) };
                if matches!(OpKind::of(&inner_ref), Some(OpKind::Apply | OpKind::ApplyInverse)) {
                    count += 1;
                }
                count += nested_uses(inner);
            }
            block = unsafe { mlirBlockGetNextInRegion(block) };
        }
    }
    count
}

fn symbol_name(op: MlirOperation) -> String {
    string_attribute(op, "sym_name").unwrap_or_default()
}
