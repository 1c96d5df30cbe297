//! The interpreter of a gen_p's apply region (`index` arith ops, 64-bit and wrapping as MLIR's `index`),
//! compiled once into a list of steps over numbered slots, then run at every point of the domain: the MLIR
//! ops are read once per gen_p, not once per point, so the cost of a table is known before it is computed
//! (points × [`Program::steps`]).

use crate::convert::ConvertError;
use lego_algebra::mixed_radix_unflatten;
use lego_dialect::ops::{constant_index_value, yielded_values};
use melior::ir::{attribute::IntegerAttribute, block::BlockLike, operation::OperationLike, OperationRef, RegionLike, RegionRef, Value, ValueLike};
use std::collections::HashMap;

/// An operand: a slot computed earlier (block arguments first), or a constant from outside the region.
#[derive(Clone, Copy)]
enum Operand {
    Slot(usize),
    Constant(u64),
}

#[derive(Clone, Copy)]
enum Code {
    Constant(u64),
    Add,
    Sub,
    Mul,
    DivU,
    RemU,
    And,
    Or,
    Xor,
    Shl,
    ShrU,
    MinU,
    MaxU,
    Select,
    Cmp(i64),
}

struct Step<'c, 'a> {
    code: Code,
    operands: Vec<Operand>,
    /// For errors found while running (a division by zero).
    op: OperationRef<'c, 'a>,
}

/// A compiled apply region.
pub struct Program<'c, 'a> {
    rank: usize,
    steps: Vec<Step<'c, 'a>>,
    result: Operand,
}

const SUPPORTED: &str = "only index arith ops: addi, subi, muli, divui, remui, andi, ori, xori, shli, shrui, minui, maxui, cmpi, select, constant";

impl<'c, 'a> Program<'c, 'a> {
    /// Reads the single-block `region` of `gen_p` (rank block arguments).
    pub fn compile(gen_p: OperationRef<'c, 'a>, region: RegionRef<'c, 'a>, rank: usize) -> Result<Self, ConvertError<'c, 'a>> {
        let Some(block) = region.first_block() else {
            return Err(ConvertError { op: gen_p, message: "the gen_p's apply region is empty".into() });
        };
        let key = |value: Value| value.to_raw().ptr as usize;
        let mut slots: HashMap<usize, usize> = HashMap::new();
        for position in 0..rank {
            if let Ok(argument) = block.argument(position) {
                slots.insert(key(argument.into()), position);
            }
        }
        let terminator = block.terminator();
        let mut steps = Vec::new();
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            if Some(op) == terminator {
                break;
            }
            let error = |message: String| ConvertError { op, message };
            let name = op.name().as_string_ref().as_str().unwrap_or_default().to_string();
            let code = match name.as_str() {
                "arith.constant" => {
                    let attribute = op.attribute("value").map_err(|_| error("constant without value".into()))?;
                    Code::Constant(IntegerAttribute::try_from(attribute).map_err(|_| error("not an integer constant".into()))?.value() as u64)
                }
                "arith.addi" => Code::Add,
                "arith.subi" => Code::Sub,
                "arith.muli" => Code::Mul,
                "arith.divui" => Code::DivU,
                "arith.remui" => Code::RemU,
                "arith.andi" => Code::And,
                "arith.ori" => Code::Or,
                "arith.xori" => Code::Xor,
                "arith.shli" => Code::Shl,
                "arith.shrui" => Code::ShrU,
                "arith.minui" => Code::MinU,
                "arith.maxui" => Code::MaxU,
                "arith.select" => Code::Select,
                "arith.cmpi" => {
                    let predicate = op
                        .attribute("predicate")
                        .ok()
                        .and_then(|a| IntegerAttribute::try_from(a).ok())
                        .map(|a| a.value())
                        .ok_or_else(|| error("cmpi without predicate".into()))?;
                    if !(0..=9).contains(&predicate) {
                        return Err(error(format!("unknown cmpi predicate {predicate}")));
                    }
                    Code::Cmp(predicate)
                }
                _ => return Err(error(format!("'{name}' in a gen_p body cannot be drawn ({SUPPORTED})"))),
            };
            let arity = match code {
                Code::Constant(_) => 0,
                Code::Select => 3,
                _ => 2,
            };
            let values: Vec<Value> = op.operands().collect();
            if values.len() < arity {
                return Err(error(format!("'{name}' has too few operands")));
            }
            let operands = values[..arity]
                .iter()
                .map(|value| match slots.get(&key(*value)) {
                    Some(slot) => Ok(Operand::Slot(*slot)),
                    // A value from outside the region: only constants have a value here.
                    None => constant_index_value(*value).map(|v| Operand::Constant(v as u64)).ok_or_else(|| {
                        error("uses a value from outside the gen_p that is not a constant: nothing to draw".into())
                    }),
                })
                .collect::<Result<Vec<_>, _>>()?;
            let result = op.result(0).map_err(|_| error(format!("'{name}' has no result")))?;
            slots.insert(key(result.into()), rank + steps.len());
            steps.push(Step { code, operands, op });
        }
        let yielded = yielded_values(region).unwrap_or_default();
        let [value] = yielded.as_slice() else {
            return Err(ConvertError { op: gen_p, message: format!("the gen_p's apply region yields {} values, not 1", yielded.len()) });
        };
        let result = match slots.get(&key(*value)) {
            Some(slot) => Operand::Slot(*slot),
            None => constant_index_value(*value).map(|v| Operand::Constant(v as u64)).ok_or_else(|| ConvertError {
                op: gen_p,
                message: "yields a value that is neither computed in the gen_p nor a constant".into(),
            })?,
        };
        Ok(Program { rank, steps, result })
    }

    /// The ops run at each point.
    pub fn steps(&self) -> u64 {
        self.steps.len() as u64
    }

    /// The map at every point of `dims`, row-major.
    pub fn tabulate(&self, dims: &[u64]) -> Result<Vec<u64>, ConvertError<'c, 'a>> {
        let numel: u64 = dims.iter().product();
        let mut table = Vec::with_capacity(numel as usize);
        let mut slots = vec![0u64; self.rank + self.steps.len()];
        for flat in 0..numel {
            for (slot, value) in slots.iter_mut().zip(mixed_radix_unflatten(dims, flat)) {
                *slot = value;
            }
            for (position, step) in self.steps.iter().enumerate() {
                let arg = |k: usize| match step.operands[k] {
                    Operand::Slot(slot) => slots[slot],
                    Operand::Constant(value) => value,
                };
                let division_by_zero = || ConvertError { op: step.op, message: "division by zero".into() };
                let value = match step.code {
                    Code::Constant(value) => value,
                    Code::Add => arg(0).wrapping_add(arg(1)),
                    Code::Sub => arg(0).wrapping_sub(arg(1)),
                    Code::Mul => arg(0).wrapping_mul(arg(1)),
                    Code::DivU => arg(0).checked_div(arg(1)).ok_or_else(division_by_zero)?,
                    Code::RemU => arg(0).checked_rem(arg(1)).ok_or_else(division_by_zero)?,
                    Code::And => arg(0) & arg(1),
                    Code::Or => arg(0) | arg(1),
                    Code::Xor => arg(0) ^ arg(1),
                    Code::Shl => arg(0).checked_shl(arg(1) as u32).unwrap_or(0),
                    Code::ShrU => arg(0).checked_shr(arg(1) as u32).unwrap_or(0),
                    Code::MinU => arg(0).min(arg(1)),
                    Code::MaxU => arg(0).max(arg(1)),
                    Code::Select => {
                        if arg(0) != 0 {
                            arg(1)
                        } else {
                            arg(2)
                        }
                    }
                    Code::Cmp(predicate) => {
                        let (a, b) = (arg(0), arg(1));
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
                            _ => a >= b,
                        })
                    }
                };
                slots[self.rank + position] = value;
            }
            table.push(match self.result {
                Operand::Slot(slot) => slots[slot],
                Operand::Constant(value) => value,
            });
        }
        Ok(table)
    }
}
