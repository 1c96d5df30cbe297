//! A layout of a parsed lego module, read back into the reference algebra (`lego_algebra::Layout`), so it can
//! be drawn with the values semantics.md defines (not with what our lowering computes).
//!
//! Sizes must be known where the layout is built: literals, or SSA values defined by `arith.constant`; a
//! run-time size has no picture. A `gen_p`'s apply region is evaluated by a small interpreter of the `arith`
//! ops on `index` (64-bit, as semantics.md) at every point of its domain ([`crate::gen_eval`]); the table it
//! gives is the map, and it is inverted for the physical view when it is a bijection onto `0..numel`.
//!
//! Nothing here recurses on the input: the chain of constructors is walked with an explicit stack, each op
//! converted once (a value used twice is shared, as the algebra's `Layout` is an `Arc`). What the input may
//! make large is bounded before it is built — the nesting depth ([`MAX_DEPTH`]: the algebra's own evaluation
//! recurses once per level), the constructors of the tree with every use counted ([`MAX_NODES`]: a value used
//! twice is evaluated twice), and the interpreter's steps over all gen_p tables of one request
//! ([`MAX_GEN_P_STEPS`]) — each refused with an error at the op that crosses the bound.

use crate::gen_eval;
use lego_algebra::{describe, GenFn, Layout};
use lego_dialect::ops::{defining_layout, Dim, LayoutOp};
use melior::ir::{OperationRef, Value};
use std::collections::HashMap;

/// The most elements a gen_p may have here (its map is tabulated).
const MAX_GEN_P_ELEMENTS: u64 = describe::MAX_TABLE_ELEMENTS;

/// The deepest nesting of layout constructors read (lego-opt's own limit on nested brackets is the same
/// 1 000): the algebra's `apply`, printing and description recurse once per level.
pub const MAX_DEPTH: usize = 1000;

/// The most constructors a layout's tree may have, each use of a value counted (`compose(%a, %a)` counts
/// `%a` twice): evaluating an element visits every one of them.
pub const MAX_NODES: u64 = 10_000;

/// The most interpreter steps (arith ops evaluated) spent on gen_p tables by one [`Converter`] (one `draw`,
/// one API request).
pub const MAX_GEN_P_STEPS: u64 = 1 << 26;

/// Why a layout cannot be read: the message, and the op to report it at.
#[derive(Clone)]
pub struct ConvertError<'c, 'a> {
    pub op: OperationRef<'c, 'a>,
    pub message: String,
}

type Converted<'c, 'a, T> = Result<T, ConvertError<'c, 'a>>;

/// A converted op: its layout, nesting depth and tree size (constructors, every use counted).
#[derive(Clone)]
pub struct Shaped {
    pub layout: Layout,
    pub depth: usize,
    pub nodes: u64,
    /// Table elements of the gen_p tables in the tree, every use counted (what a description spells out).
    pub table_elements: u64,
}

/// Converts layout ops, remembering each op's result (one request's cache: the ops it refers to live in one
/// module).
pub struct Converter<'c, 'a> {
    done: HashMap<usize, Converted<'c, 'a, Shaped>>,
    steps_left: u64,
    /// The first op found nested deeper than [`MAX_DEPTH`], with its error: a request holding one is refused
    /// as a whole (`/api/parse` answers 400 located there), not only the layouts built on it.
    too_deep: Option<ConvertError<'c, 'a>>,
}

fn key(op: OperationRef) -> usize {
    op.to_raw().ptr as usize
}

/// The layout operands of `structure`, in order.
fn operands<'c, 'a>(structure: &LayoutOp<'c, 'a>) -> Vec<Value<'c, 'a>> {
    match structure {
        LayoutOp::OrderBy { objects } | LayoutOp::GroupBy { objects, .. } => objects.clone(),
        LayoutOp::TileBy { inner, .. } | LayoutOp::ExpandBy { inner, .. } | LayoutOp::Inverse { inner } => vec![*inner],
        LayoutOp::Compose { outer, inner } => vec![*outer, *inner],
        _ => Vec::new(),
    }
}

impl<'c, 'a> Default for Converter<'c, 'a> {
    fn default() -> Self {
        Converter { done: HashMap::new(), steps_left: MAX_GEN_P_STEPS, too_deep: None }
    }
}

impl<'c, 'a> Converter<'c, 'a> {
    /// The first op met nested deeper than [`MAX_DEPTH`], and why.
    pub fn too_deep(&self) -> Option<&ConvertError<'c, 'a>> {
        self.too_deep.as_ref()
    }

    /// The algebra's layout for the layout constructor `root`, with its depth and size.
    pub fn shaped(&mut self, root: OperationRef<'c, 'a>) -> Converted<'c, 'a, Shaped> {
        // Post-order with an explicit stack: an op is converted once every operand's defining op is.
        // `expanded` marks ops whose operands have been pushed; meeting one again before it is done is a
        // cycle (possible only in a graph region).
        let mut stack: Vec<(OperationRef<'c, 'a>, bool)> = vec![(root, false)];
        let mut expanded: HashMap<usize, ()> = HashMap::new();
        while let Some((op, children_done)) = stack.pop() {
            if self.done.contains_key(&key(op)) {
                continue;
            }
            let error = |message: String| ConvertError { op, message };
            let structure = match lego_dialect::ops::layout_op(op) {
                Ok(Some(structure)) => structure,
                Ok(None) => {
                    self.done.insert(key(op), Err(error("not a layout constructor".into())));
                    continue;
                }
                Err(access) => {
                    self.done.insert(key(op), Err(error(access.to_string())));
                    continue;
                }
            };
            let values = operands(&structure);
            if !children_done {
                if expanded.insert(key(op), ()).is_some() {
                    self.done.insert(key(op), Err(error("the layout is defined in terms of itself: nothing to draw".into())));
                    continue;
                }
                stack.push((op, true));
                for value in values.iter().rev() {
                    if let Some((definition, _)) = defining_layout(*value) {
                        if !self.done.contains_key(&key(definition)) {
                            stack.push((definition, false));
                        }
                    }
                }
                continue;
            }
            let result = self.build(op, structure, &values);
            self.done.insert(key(op), result);
        }
        self.done.get(&key(root)).cloned().unwrap_or_else(|| Err(ConvertError { op: root, message: "not converted".into() }))
    }

    /// Builds `op` from its already converted operands.
    fn build(&mut self, op: OperationRef<'c, 'a>, structure: LayoutOp<'c, 'a>, values: &[Value<'c, 'a>]) -> Converted<'c, 'a, Shaped> {
        let error = |message: String| ConvertError { op, message };
        let mut children = Vec::with_capacity(values.len());
        for value in values {
            let Some((definition, _)) = defining_layout(*value) else {
                return Err(error(
                    "a layout operand is not built by a layout op here (a function argument?): nothing to draw".into(),
                ));
            };
            match self.done.get(&key(definition)) {
                Some(Ok(shaped)) => children.push(shaped.clone()),
                Some(Err(failure)) => return Err(failure.clone()),
                None => return Err(error("an operand was not converted".into())),
            }
        }
        let depth = 1 + children.iter().map(|child| child.depth).max().unwrap_or(0);
        if depth > MAX_DEPTH {
            let failure = error(format!(
                "layout constructors nested more than {MAX_DEPTH} deep: too deep to draw (at most {MAX_DEPTH} levels)"
            ));
            self.too_deep.get_or_insert_with(|| failure.clone());
            return Err(failure);
        }
        let nodes = children.iter().fold(1u64, |total, child| total.saturating_add(child.nodes));
        if nodes > MAX_NODES {
            return Err(error(format!(
                "a tree of {} layout constructors (each use of a value counted): too large to draw (at most {MAX_NODES})",
                if nodes == u64::MAX { "more than 2^64".to_string() } else { nodes.to_string() }
            )));
        }
        let mut table_elements = children.iter().fold(0u64, |total, child| total.saturating_add(child.table_elements));
        let mut layouts = children.into_iter().map(|child| child.layout);
        let mut next = || layouts.next().ok_or_else(|| error("an operand is missing".into()));
        let algebra = |result: lego_algebra::Result<Layout>| result.map_err(|e| error(e.to_string()));
        let layout = match structure {
            LayoutOp::Row { dims } => algebra(Layout::row(sizes(op, &dims)?)),
            LayoutOp::Col { dims } => algebra(Layout::col(sizes(op, &dims)?)),
            LayoutOp::RegP { perm, dims } => {
                let perm: Vec<usize> = perm.iter().map(|p| usize::try_from(*p).unwrap_or(usize::MAX)).collect();
                algebra(Layout::reg_p(perm, sizes(op, &dims)?))
            }
            LayoutOp::GenP { dims, apply, .. } => {
                let dims = sizes(op, &dims)?;
                let gen = self.tabulate(op, apply, &dims)?;
                table_elements = dims.iter().product();
                algebra(Layout::gen_p(dims, gen))
            }
            LayoutOp::OrderBy { objects } => {
                let parts = objects.iter().map(|_| next()).collect::<Result<Vec<_>, _>>()?;
                algebra(Layout::order_by(parts))
            }
            LayoutOp::GroupBy { dims, objects } => {
                let objects = objects.iter().map(|_| next()).collect::<Result<Vec<_>, _>>()?;
                algebra(Layout::group_by(sizes(op, &dims)?, objects))
            }
            LayoutOp::TileBy { levels, .. } => {
                let inner = next()?;
                let levels = levels.iter().map(|level| sizes(op, level)).collect::<Result<Vec<_>, _>>()?;
                algebra(Layout::tile_by(inner, levels))
            }
            LayoutOp::ExpandBy { dims, to_dims, .. } => {
                let inner = next()?;
                algebra(Layout::expand_by(inner, sizes(op, &dims)?, sizes(op, &to_dims)?))
            }
            LayoutOp::Compose { .. } => {
                let (outer, inner) = (next()?, next()?);
                algebra(Layout::compose(outer, inner))
            }
            LayoutOp::Inverse { .. } => algebra(Layout::inverse(next()?)),
            LayoutOp::Strided { modes } => match lego_dialect::ops::strided_leaves(&modes) {
                Ok(leaves) => algebra(Layout::strided(leaves)),
                Err(message) => Err(error(message)),
            },
            LayoutOp::Swizzle { swizzle: [bits, base, shift], dims } => {
                let parameter = |value: i64| {
                    u32::try_from(value).map_err(|_| error(format!("swizzle parameter {value} is negative")))
                };
                algebra(Layout::swizzle(parameter(bits)?, parameter(base)?, parameter(shift)?, sizes(op, &dims)?))
            }
        }?;
        Ok(Shaped { layout, depth, nodes, table_elements })
    }

    /// The gen_p's apply map at every point of `dims`, as a table (`describe::gen_table`: the form the API
    /// hands the page, invertible exactly when the table is a permutation). Its cost is checked before any
    /// point is evaluated or any memory is taken for the table.
    fn tabulate(&mut self, op: OperationRef<'c, 'a>, apply: melior::ir::RegionRef<'c, 'a>, dims: &[u64]) -> Converted<'c, 'a, GenFn> {
        let numel = dims.iter().try_fold(1u64, |n, d| n.checked_mul(*d)).filter(|n| *n <= MAX_GEN_P_ELEMENTS).ok_or_else(|| {
            ConvertError { op, message: format!("the gen_p has more than {MAX_GEN_P_ELEMENTS} elements: too many to draw") }
        })?;
        let program = gen_eval::Program::compile(op, apply, dims.len())?;
        let steps = numel.saturating_mul(program.steps().max(1));
        if steps > self.steps_left {
            return Err(ConvertError {
                op,
                message: format!(
                    "tabulating the gen_p takes {steps} interpreter steps ({numel} points × {} ops): more than the {} left of {MAX_GEN_P_STEPS}",
                    program.steps(),
                    self.steps_left
                ),
            });
        }
        self.steps_left -= steps;
        let table = program.tabulate(dims)?;
        describe::gen_table(dims, table).map_err(|error| ConvertError { op, message: error.to_string() })
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
