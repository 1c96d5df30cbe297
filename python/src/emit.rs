//! Builds the lego IR of one evaluation request through the dialect's typed builders (`lego_dialect::ops`):
//!
//! ```mlir
//! func.func @roundtrip(%a0: index, ..., %aN: index) -> index        // or -> (index × rank) for "inv"
//!   lego.assume_bounds %ak lb : ... ub : ...                          // the bounds of the published API, §1.4
//!   lego.assume %fact                                                 // divisibility and user relations
//!   %L = <the layout, sizes as arith over the arguments>
//!   %r = lego.apply %L(<index expressions>)   /  lego.apply_inverse %L(<flat>)
//!   return %r
//! ```
//!
//! No text is printed and re-parsed. Sizes and index expressions are arith over the function arguments;
//! floor division and remainder are `divui` / `remui`: the arithmetic of layouts is on non-negative indices
//! (sizes > 0, indices in range), the form lego-lower's simplifier reasons about. Comparisons are signed
//! (a gen_p body may compare a difference), as the published package lowers relations.

use lego_dialect::ops::{self, Dim, OpKind};
use melior::{
    dialect::{arith, func},
    ir::{
        attribute::{IntegerAttribute, StringAttribute, TypeAttribute},
        block::BlockLike,
        operation::OperationBuilder,
        r#type::{FunctionType, IntegerType},
        Block, BlockRef, Location, Module, Region, RegionLike, Type, Value,
    },
    Context,
};

use crate::desc::{Cond, Expr, Layout, Loc, Predicate};

/// What to compute: the forward map at `indices`, or the inverse at `flat`.
pub enum Mode {
    Apply(Vec<Expr>),
    Inverse(Expr),
}

pub struct Request {
    pub argument_count: usize,
    pub layout: Layout,
    pub mode: Mode,
    /// `(argument, lower bound, upper bound)`: lb inclusive, ub exclusive.
    pub bounds: Vec<(usize, Option<Expr>, Option<Expr>)>,
    pub facts: Vec<Cond>,
    /// Where the evaluation was asked for: the location of the apply / apply_inverse op.
    pub call_location: Option<Loc>,
}

/// Rank of a layout as the descriptor spells it (the `apply_inverse` result count).
pub fn rank(layout: &Layout) -> usize {
    match layout {
        Layout::Row { dims, .. } | Layout::Col { dims, .. } | Layout::RegP { dims, .. } | Layout::GenP { dims, .. } => dims.len(),
        Layout::GroupBy { dims, .. } => dims.len(),
        Layout::OrderBy { parts, .. } => parts.iter().map(rank).sum(),
        Layout::TileBy { levels, .. } => levels.iter().map(Vec::len).sum(),
    }
}

/// Emits arith into one block. `arguments` are the function's arguments, `block_arguments` those of the
/// gen_p region being filled (empty outside one).
struct Builder<'c, 'a> {
    context: &'c Context,
    block: &'a Block<'c>,
    arguments: &'a [Value<'c, 'a>],
    block_arguments: Vec<Value<'c, 'a>>,
    location: Location<'c>,
}

type Result<T> = std::result::Result<T, String>;

impl<'c, 'a> Builder<'c, 'a> {
    fn push(&self, operation: melior::ir::Operation<'c>) -> Result<Value<'c, 'a>> {
        let appended = self.block.append_operation(operation);
        appended.result(0).map(Into::into).map_err(|error| format!("internal error: {error}"))
    }

    fn constant(&self, value: i64) -> Result<Value<'c, 'a>> {
        let index = Type::index(self.context);
        self.push(arith::constant(self.context, IntegerAttribute::new(index, value).into(), self.location))
    }

    fn boolean(&self, value: bool) -> Result<Value<'c, 'a>> {
        let i1 = IntegerType::new(self.context, 1).into();
        self.push(arith::constant(self.context, IntegerAttribute::new(i1, i64::from(value)).into(), self.location))
    }

    fn fold(
        &self,
        items: &[Expr],
        combine: fn(Value<'c, '_>, Value<'c, '_>, Location<'c>) -> melior::ir::Operation<'c>,
        what: &str,
    ) -> Result<Value<'c, 'a>> {
        let mut iter = items.iter();
        let first = iter.next().ok_or_else(|| format!("malformed expression: empty {what}"))?;
        let mut value = self.expr(first)?;
        for item in iter {
            let next = self.expr(item)?;
            value = self.push(combine(value, next, self.location))?;
        }
        Ok(value)
    }

    fn expr(&self, expr: &Expr) -> Result<Value<'c, 'a>> {
        let location = self.location;
        Ok(match expr {
            Expr::Int(value) => self.constant(*value)?,
            Expr::Arg(k) => *self.arguments.get(*k).ok_or_else(|| format!("malformed expression: argument {k} out of range"))?,
            Expr::BlockArg(k) => *self
                .block_arguments
                .get(*k)
                .ok_or_else(|| format!("malformed expression: gen_p region argument {k} out of range"))?,
            Expr::Add(items) => self.fold(items, arith::addi, "sum")?,
            Expr::Mul(items) => self.fold(items, arith::muli, "product")?,
            Expr::Max(items) => self.fold(items, arith::maxsi, "Max")?,
            Expr::Min(items) => self.fold(items, arith::minsi, "Min")?,
            Expr::Sub(a, b) => self.push(arith::subi(self.expr(a)?, self.expr(b)?, location))?,
            Expr::FloorDiv(a, b) => self.push(arith::divui(self.expr(a)?, self.expr(b)?, location))?,
            Expr::Mod(a, b) => self.push(arith::remui(self.expr(a)?, self.expr(b)?, location))?,
            Expr::CeilDiv(a, b) => self.push(arith::ceildivui(self.expr(a)?, self.expr(b)?, location))?,
            Expr::Select(c, a, b) => {
                let condition = self.cond(c)?;
                self.push(arith::select(condition, self.expr(a)?, self.expr(b)?, location))?
            }
        })
    }

    fn cond(&self, cond: &Cond) -> Result<Value<'c, 'a>> {
        let location = self.location;
        Ok(match cond {
            Cond::Bool(value) => self.boolean(*value)?,
            Cond::Cmp(predicate, a, b) => {
                let predicate = match predicate {
                    Predicate::Eq => arith::CmpiPredicate::Eq,
                    Predicate::Ne => arith::CmpiPredicate::Ne,
                    Predicate::Lt => arith::CmpiPredicate::Slt,
                    Predicate::Le => arith::CmpiPredicate::Sle,
                    Predicate::Gt => arith::CmpiPredicate::Sgt,
                    Predicate::Ge => arith::CmpiPredicate::Sge,
                };
                self.push(arith::cmpi(self.context, predicate, self.expr(a)?, self.expr(b)?, location))?
            }
            Cond::And(items) | Cond::Or(items) => {
                let combine = if matches!(cond, Cond::And(_)) { arith::andi } else { arith::ori };
                let mut value = self.boolean(matches!(cond, Cond::And(_)))?;
                for item in items {
                    let next = self.cond(item)?;
                    value = self.push(combine(value, next, location))?;
                }
                value
            }
            Cond::Not(inner) => {
                let value = self.cond(inner)?;
                let one = self.boolean(true)?;
                self.push(arith::xori(value, one, location))?
            }
        })
    }

    fn dims(&self, dims: &[Expr]) -> Result<Vec<Dim<'c, 'a>>> {
        dims.iter()
            .map(|dim| match dim {
                Expr::Int(value) => Ok(Dim::Static(*value)),
                other => self.expr(other).map(Dim::Dynamic),
            })
            .collect()
    }

    fn located(&self, loc: &Option<Loc>) -> Location<'c> {
        match loc {
            Some(Loc { file, line }) => Location::new(self.context, file, *line, 1),
            None => self.location,
        }
    }

    /// A gen_p region: one block with `count` index arguments whose body computes `results`.
    fn region(&self, count: usize, results: &[Expr], location: Location<'c>) -> Result<Region<'c>> {
        let index = Type::index(self.context);
        let block = Block::new(&vec![(index, location); count]);
        {
            let block_arguments =
                (0..count).map(|k| block.argument(k).map(Value::from)).collect::<std::result::Result<Vec<_>, _>>().map_err(|e| e.to_string())?;
            let inner = Builder { context: self.context, block: &block, arguments: self.arguments, block_arguments, location };
            let values = results.iter().map(|result| inner.expr(result)).collect::<Result<Vec<_>>>()?;
            let terminator = OperationBuilder::new(ops::REGION_TERMINATOR, location)
                .add_operands(&values)
                .build()
                .map_err(|error| format!("internal error: {error}"))?;
            block.append_operation(terminator);
        }
        let region = Region::new();
        region.append_block(block);
        Ok(region)
    }

    fn layout(&self, layout: &Layout) -> Result<Value<'c, 'a>> {
        let context = self.context;
        match layout {
            Layout::Row { loc, dims } | Layout::Col { loc, dims } => {
                let kind = if matches!(layout, Layout::Row { .. }) { OpKind::Row } else { OpKind::Col };
                let dims = self.dims(dims)?;
                self.push(ops::build_permutation_layout(context, self.located(loc), kind, None, &dims))
            }
            Layout::RegP { loc, dims, perm } => {
                let dims = self.dims(dims)?;
                self.push(ops::build_permutation_layout(context, self.located(loc), OpKind::RegP, Some(perm), &dims))
            }
            Layout::GenP { loc, dims, apply, inverse } => {
                let location = self.located(loc);
                let built_dims = self.dims(dims)?;
                let apply = self.region(dims.len(), std::slice::from_ref(apply), location)?;
                let inverse = match inverse {
                    Some(results) => self.region(1, results, location)?,
                    None => Region::new(),
                };
                self.push(ops::build_gen_p(context, location, &built_dims, apply, inverse))
            }
            Layout::OrderBy { loc, parts } => {
                let parts = parts.iter().map(|part| self.layout(part)).collect::<Result<Vec<_>>>()?;
                self.push(ops::build_order_by(context, self.located(loc), &parts))
            }
            Layout::GroupBy { loc, dims, objects } => {
                let dims = self.dims(dims)?;
                let objects = objects.iter().map(|object| self.layout(object)).collect::<Result<Vec<_>>>()?;
                self.push(ops::build_group_by(context, self.located(loc), &dims, &objects))
            }
            Layout::TileBy { loc, inner, levels } => {
                let inner = self.layout(inner)?;
                let levels = levels.iter().map(|level| self.dims(level)).collect::<Result<Vec<_>>>()?;
                self.push(ops::build_tile_by(context, self.located(loc), inner, &levels))
            }
        }
    }
}

/// The module of `request` (not yet verified).
pub fn build<'c>(context: &'c Context, request: &Request) -> Result<Module<'c>> {
    let location = Location::new(context, "<lego>", 1, 1);
    let index = Type::index(context);
    let module = Module::new(location);
    let region = Region::new();
    let block: BlockRef = region.append_block(Block::new(&vec![(index, location); request.argument_count]));
    let result_count = match &request.mode {
        Mode::Apply(_) => 1,
        Mode::Inverse(_) => rank(&request.layout),
    };
    {
        let arguments = (0..request.argument_count)
            .map(|k| block.argument(k).map(Value::from))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        let builder = Builder { context, block: &block, arguments: &arguments, block_arguments: Vec::new(), location };
        for (argument, lower, upper) in &request.bounds {
            let value = *arguments.get(*argument).ok_or_else(|| format!("malformed bound: argument {argument} out of range"))?;
            let lower = lower.as_ref().map(|e| builder.expr(e)).transpose()?;
            let upper = upper.as_ref().map(|e| builder.expr(e)).transpose()?;
            block.append_operation(ops::build_assume_bounds(context, location, value, lower, upper, false));
        }
        for fact in &request.facts {
            let condition = builder.cond(fact)?;
            let assume = OperationBuilder::new(OpKind::Assume.name(), location)
                .add_operands(&[condition])
                .build()
                .map_err(|error| format!("internal error: {error}"))?;
            block.append_operation(assume);
        }
        let layout = builder.layout(&request.layout)?;
        let location = builder.located(&request.call_location);
        let results: Vec<Value> = match &request.mode {
            Mode::Apply(indices) => {
                let indices = indices.iter().map(|e| builder.expr(e)).collect::<Result<Vec<_>>>()?;
                let apply = block.append_operation(ops::build_apply(context, location, layout, &indices));
                vec![apply.result(0).map_err(|e| e.to_string())?.into()]
            }
            Mode::Inverse(flat) => {
                let flat = builder.expr(flat)?;
                let inverse = block.append_operation(ops::build_apply_inverse(context, location, layout, flat, result_count));
                (0..result_count).map(|k| inverse.result(k).map(Value::from)).collect::<std::result::Result<_, _>>().map_err(|e| e.to_string())?
            }
        };
        block.append_operation(func::r#return(&results, location));
    }
    let signature = FunctionType::new(context, &vec![index; request.argument_count], &vec![index; result_count]);
    module.body().append_operation(func::func(
        context,
        StringAttribute::new(context, "roundtrip"),
        TypeAttribute::new(signature.into()),
        region,
        &[],
        location,
    ));
    Ok(module)
}
