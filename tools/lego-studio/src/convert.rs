//! A layout of a parsed lego module, read back into the reference algebra (`lego_algebra::Layout`), so it can
//! be drawn with the values semantics.md defines (not with what our lowering computes).
//!
//! Sizes must be known where the layout is built: literals, or SSA values defined by `arith.constant`; a
//! run-time size has no picture. A `gen_p`'s apply region is evaluated by a small interpreter of the `arith`
//! ops on `index` (64-bit, as semantics.md) at every point of its domain; the table it gives is the map, and
//! it is inverted for the physical view when it is a bijection onto `0..numel`.

use lego_algebra::{describe, mixed_radix_unflatten, GenFn, Layout};
use lego_dialect::ops::{constant_index_value, defining_layout, yielded_values, Dim, LayoutOp};
use melior::ir::{
    attribute::IntegerAttribute, block::BlockLike, operation::OperationLike, OperationRef, RegionLike, RegionRef, Value,
    ValueLike,
};
use std::collections::HashMap;

/// The most elements a gen_p may have here (its map is tabulated).
const MAX_GEN_P_ELEMENTS: u64 = describe::MAX_TABLE_ELEMENTS;

/// Why a layout cannot be read: the message, and the op to report it at.
pub struct ConvertError<'c, 'a> {
    pub op: OperationRef<'c, 'a>,
    pub message: String,
}

type Converted<'c, 'a, T> = Result<T, ConvertError<'c, 'a>>;

/// The algebra's layout for the layout constructor `op`.
pub fn layout<'c, 'a>(op: OperationRef<'c, 'a>) -> Converted<'c, 'a, Layout> {
    let error = |message: String| ConvertError { op, message };
    let Some(structure) = lego_dialect::ops::layout_op(op).map_err(|e| error(e.to_string()))? else {
        return Err(error("not a layout constructor".into()));
    };
    let algebra = |result: lego_algebra::Result<Layout>| result.map_err(|e| error(e.to_string()));
    match structure {
        LayoutOp::Row { dims } => algebra(Layout::row(sizes(op, &dims)?)),
        LayoutOp::Col { dims } => algebra(Layout::col(sizes(op, &dims)?)),
        LayoutOp::RegP { perm, dims } => {
            let perm: Vec<usize> = perm.iter().map(|p| usize::try_from(*p).unwrap_or(usize::MAX)).collect();
            algebra(Layout::reg_p(perm, sizes(op, &dims)?))
        }
        LayoutOp::GenP { dims, apply, .. } => {
            let dims = sizes(op, &dims)?;
            let gen = tabulate(op, apply, &dims)?;
            algebra(Layout::gen_p(dims, gen))
        }
        LayoutOp::OrderBy { objects } => {
            let parts = objects.into_iter().map(|value| operand(op, value)).collect::<Result<Vec<_>, _>>()?;
            algebra(Layout::order_by(parts))
        }
        LayoutOp::GroupBy { dims, objects } => {
            let objects = objects.into_iter().map(|value| operand(op, value)).collect::<Result<Vec<_>, _>>()?;
            algebra(Layout::group_by(sizes(op, &dims)?, objects))
        }
        LayoutOp::TileBy { inner, levels } => {
            let inner = operand(op, inner)?;
            let levels = levels.iter().map(|level| sizes(op, level)).collect::<Result<Vec<_>, _>>()?;
            algebra(Layout::tile_by(inner, levels))
        }
        LayoutOp::ExpandBy { inner, dims, to_dims } => {
            let inner = operand(op, inner)?;
            algebra(Layout::expand_by(inner, sizes(op, &dims)?, sizes(op, &to_dims)?))
        }
        LayoutOp::Compose { outer, inner } => algebra(Layout::compose(operand(op, outer)?, operand(op, inner)?)),
        LayoutOp::Inverse { inner } => algebra(Layout::inverse(operand(op, inner)?)),
        LayoutOp::Strided { modes } => match lego_dialect::ops::strided_leaves(&modes) {
            Ok(leaves) => algebra(Layout::strided(leaves)),
            Err(message) => Err(ConvertError { op, message }),
        },
        LayoutOp::Swizzle { swizzle: [bits, base, shift], dims } => {
            let parameter = |value: i64| {
                u32::try_from(value).map_err(|_| ConvertError { op, message: format!("swizzle parameter {value} is negative") })
            };
            algebra(Layout::swizzle(parameter(bits)?, parameter(base)?, parameter(shift)?, sizes(op, &dims)?))
        }
    }
}

/// A layout operand: it must be built in the same function (not a function argument).
fn operand<'c, 'a>(op: OperationRef<'c, 'a>, value: Value<'c, 'a>) -> Converted<'c, 'a, Layout> {
    match defining_layout(value) {
        Some((definition, _)) => layout(definition),
        None => Err(ConvertError { op, message: "a layout operand is not built by a layout op here (a function argument?): nothing to draw".into() }),
    }
}

fn sizes<'c, 'a>(op: OperationRef<'c, 'a>, dims: &[Dim]) -> Converted<'c, 'a, Vec<u64>> {
    dims.iter()
        .enumerate()
        .map(|(position, dim)| match dim.known() {
            Some(value) if value > 0 => Ok(value as u64),
            Some(value) => Err(ConvertError { op, message: format!("size {position} is {value}: sizes must be positive") }),
            None => Err(ConvertError {
                op,
                message: format!("size {position} is a run-time value: a layout can be drawn only when its sizes are constants"),
            }),
        })
        .collect()
}

/// The gen_p's apply map at every point of `dims`, as a table (`describe::gen_table`: the form the API hands
/// the page, invertible exactly when the table is a permutation).
fn tabulate<'c, 'a>(op: OperationRef<'c, 'a>, apply: RegionRef<'c, 'a>, dims: &[u64]) -> Converted<'c, 'a, GenFn> {
    let numel = dims.iter().try_fold(1u64, |n, d| n.checked_mul(*d)).filter(|n| *n <= MAX_GEN_P_ELEMENTS).ok_or_else(|| {
        ConvertError { op, message: format!("the gen_p has more than {MAX_GEN_P_ELEMENTS} elements: too many to draw") }
    })?;
    let mut table = Vec::with_capacity(numel as usize);
    for flat in 0..numel {
        let index = mixed_radix_unflatten(dims, flat);
        let results = interpret(op, apply, &index)?;
        match results.as_slice() {
            [value] => table.push(*value),
            _ => return Err(ConvertError { op, message: format!("the gen_p's apply region yields {} values, not 1", results.len()) }),
        }
    }
    describe::gen_table(dims, table).map_err(|error| ConvertError { op, message: error.to_string() })
}

/// Runs the single-block region of `gen_p` (an op of it, for errors) on `index` values: 64-bit, wrapping as
/// MLIR's `index`.
fn interpret<'c, 'a>(gen_p: OperationRef<'c, 'a>, region: RegionRef<'c, 'a>, args: &[u64]) -> Converted<'c, 'a, Vec<u64>> {
    let Some(block) = region.first_block() else {
        return Err(ConvertError { op: gen_p, message: "the gen_p's apply region is empty".into() });
    };
    let key = |value: Value| value.to_raw().ptr as usize;
    let mut values: HashMap<usize, u64> = HashMap::new();
    for (position, arg) in args.iter().enumerate() {
        if let Ok(argument) = block.argument(position) {
            values.insert(key(argument.into()), *arg);
        }
    }
    let terminator = block.terminator();
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if Some(op) == terminator {
            break;
        }
        let error = |message: String| ConvertError { op, message };
        let name = op.name().as_string_ref().as_str().unwrap_or_default().to_string();
        let read = |value: Value<'c, 'a>| -> Converted<'c, 'a, u64> {
            if let Some(known) = values.get(&key(value)) {
                return Ok(*known);
            }
            // A value from outside the region: only constants have a value here.
            constant_index_value(value).map(|v| v as u64).ok_or_else(|| ConvertError {
                op,
                message: "uses a value from outside the gen_p that is not a constant: nothing to draw".into(),
            })
        };
        let operands: Vec<Value> = op.operands().collect();
        let arg = |k: usize| operands.get(k).copied().ok_or_else(|| error(format!("'{name}' has too few operands"))).and_then(read);
        let value = match name.as_str() {
            "arith.constant" => {
                let attribute = op.attribute("value").map_err(|_| error("constant without value".into()))?;
                IntegerAttribute::try_from(attribute).map_err(|_| error("not an integer constant".into()))?.value() as u64
            }
            "arith.addi" => arg(0)?.wrapping_add(arg(1)?),
            "arith.subi" => arg(0)?.wrapping_sub(arg(1)?),
            "arith.muli" => arg(0)?.wrapping_mul(arg(1)?),
            "arith.divui" => arg(0)?.checked_div(arg(1)?).ok_or_else(|| error("division by zero".into()))?,
            "arith.remui" => arg(0)?.checked_rem(arg(1)?).ok_or_else(|| error("division by zero".into()))?,
            "arith.andi" => arg(0)? & arg(1)?,
            "arith.ori" => arg(0)? | arg(1)?,
            "arith.xori" => arg(0)? ^ arg(1)?,
            "arith.shli" => arg(0)?.checked_shl(arg(1)? as u32).unwrap_or(0),
            "arith.shrui" => arg(0)?.checked_shr(arg(1)? as u32).unwrap_or(0),
            "arith.minui" => arg(0)?.min(arg(1)?),
            "arith.maxui" => arg(0)?.max(arg(1)?),
            "arith.select" => {
                if arg(0)? != 0 {
                    arg(1)?
                } else {
                    arg(2)?
                }
            }
            "arith.cmpi" => {
                let predicate = op
                    .attribute("predicate")
                    .ok()
                    .and_then(|a| IntegerAttribute::try_from(a).ok())
                    .map(|a| a.value())
                    .ok_or_else(|| error("cmpi without predicate".into()))?;
                let (a, b) = (arg(0)?, arg(1)?);
                let (sa, sb) = (a as i64, b as i64);
                // arith::CmpIPredicate: eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge.
                u64::from(match predicate {
                    0 => a == b,
                    1 => a != b,
                    2 => sa < sb,
                    3 => sa <= sb,
                    4 => sa > sb,
                    5 => sa >= sb,
                    6 => a < b,
                    7 => a <= b,
                    8 => a > b,
                    9 => a >= b,
                    _ => return Err(error(format!("unknown cmpi predicate {predicate}"))),
                })
            }
            _ => return Err(error(format!("'{name}' in a gen_p body cannot be drawn (only index arith ops: addi, subi, muli, divui, remui, andi, ori, xori, shli, shrui, minui, maxui, cmpi, select, constant)"))),
        };
        let result = op.result(0).map_err(|_| error(format!("'{name}' has no result")))?;
        values.insert(key(result.into()), value);
    }
    let yielded = yielded_values(region).unwrap_or_default();
    yielded
        .into_iter()
        .map(|value| {
            values.get(&key(value)).copied().or_else(|| constant_index_value(value).map(|v| v as u64)).ok_or_else(|| ConvertError {
                op: gen_p,
                message: "yields a value that is neither computed in the gen_p nor a constant".into(),
            })
        })
        .collect()
}
