//! The descriptors the Python layer hands over: a layout, its sizes and the index expressions, as nested tuples
//! (`python/lego/_bridge.py` writes them). Parsed into Rust values first, so that a malformed descriptor is a
//! `LegoError` naming what is wrong before any IR exists.
//!
//! Expressions (`Expr`): `("int", v)`, `("arg", k)` (function argument k), `("barg", k)` (argument k of the
//! enclosing gen_p region), `("add", [e…])`, `("mul", [e…])`, `("sub", a, b)`, `("floordiv", a, b)`,
//! `("mod", a, b)`, `("ceildiv", a, b)`, `("max", [e…])`, `("min", [e…])`, `("select", c, a, b)`.
//! Conditions (`Cond`): `("cmp", pred, a, b)` with pred one of `eq ne lt le gt ge` (signed, as the published
//! package lowers relations), `("and", [c…])`, `("or", [c…])`, `("not", c)`, `("bool", b)`.
//! Layouts (`Layout`), each with `loc` = `(file, line)` or `None`: `("row", loc, dims)`, `("col", loc, dims)`,
//! `("reg_p", loc, dims, perm)`, `("gen_p", loc, dims, apply, inv)` (`apply` an expression over `barg`s,
//! `inv` a list of expressions over `barg 0`, or `None` for apply-only), `("order_by", loc, [layouts])`,
//! `("group_by", loc, dims, [layouts])`, `("tile_by", loc, inner, [[dims]…])`.

use pyo3::{
    prelude::*,
    types::{PyList, PyTuple},
};

use crate::LegoError;

#[derive(Debug, Clone)]
pub enum Expr {
    Int(i64),
    Arg(usize),
    BlockArg(usize),
    Add(Vec<Expr>),
    Mul(Vec<Expr>),
    Sub(Box<Expr>, Box<Expr>),
    FloorDiv(Box<Expr>, Box<Expr>),
    Mod(Box<Expr>, Box<Expr>),
    CeilDiv(Box<Expr>, Box<Expr>),
    Max(Vec<Expr>),
    Min(Vec<Expr>),
    Select(Box<Cond>, Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Predicate {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone)]
pub enum Cond {
    Cmp(Predicate, Expr, Expr),
    And(Vec<Cond>),
    Or(Vec<Cond>),
    Not(Box<Cond>),
    Bool(bool),
}

/// Where the user built a piece of the layout (the Python file and line of the constructor call).
#[derive(Debug, Clone)]
pub struct Loc {
    pub file: String,
    pub line: usize,
}

#[derive(Debug, Clone)]
pub enum Layout {
    Row { loc: Option<Loc>, dims: Vec<Expr> },
    Col { loc: Option<Loc>, dims: Vec<Expr> },
    RegP { loc: Option<Loc>, dims: Vec<Expr>, perm: Vec<i64> },
    GenP { loc: Option<Loc>, dims: Vec<Expr>, apply: Expr, inverse: Option<Vec<Expr>> },
    OrderBy { loc: Option<Loc>, parts: Vec<Layout> },
    GroupBy { loc: Option<Loc>, dims: Vec<Expr>, objects: Vec<Layout> },
    TileBy { loc: Option<Loc>, inner: Box<Layout>, levels: Vec<Vec<Expr>> },
}

fn bad(what: &str, object: &Bound<'_, PyAny>) -> PyErr {
    let shown = object.repr().map(|r| r.to_string()).unwrap_or_else(|_| "<unprintable>".to_string());
    LegoError::new_err(format!("malformed {what} descriptor: {shown}"))
}

/// The items of a tuple descriptor and its tag.
fn tagged<'py>(object: &Bound<'py, PyAny>, what: &str) -> PyResult<(String, Vec<Bound<'py, PyAny>>)> {
    let tuple = object.cast::<PyTuple>().map_err(|_| bad(what, object))?;
    let items: Vec<_> = tuple.iter().collect();
    let tag = items.first().ok_or_else(|| bad(what, object))?.extract::<String>().map_err(|_| bad(what, object))?;
    Ok((tag, items))
}

fn item<'a, 'py>(items: &'a [Bound<'py, PyAny>], index: usize, what: &str, object: &Bound<'py, PyAny>) -> PyResult<&'a Bound<'py, PyAny>> {
    items.get(index).ok_or_else(|| bad(what, object))
}

fn list<'py>(object: &Bound<'py, PyAny>, what: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if let Ok(list) = object.cast::<PyList>() {
        return Ok(list.iter().collect());
    }
    if let Ok(tuple) = object.cast::<PyTuple>() {
        return Ok(tuple.iter().collect());
    }
    Err(bad(what, object))
}

pub fn expr(object: &Bound<'_, PyAny>) -> PyResult<Expr> {
    let (tag, items) = tagged(object, "expression")?;
    let at = |index: usize| item(&items, index, "expression", object);
    let boxed = |index: usize| -> PyResult<Box<Expr>> { Ok(Box::new(expr(at(index)?)?)) };
    let many = |index: usize| -> PyResult<Vec<Expr>> { list(at(index)?, "expression")?.iter().map(expr).collect() };
    let index = |position: usize| -> PyResult<usize> { at(position)?.extract::<usize>().map_err(|_| bad("expression", object)) };
    Ok(match tag.as_str() {
        "int" => Expr::Int(at(1)?.extract::<i64>().map_err(|_| {
            LegoError::new_err(format!("integer out of the 64-bit range of index arithmetic: {}", at(1).map(|v| v.to_string()).unwrap_or_default()))
        })?),
        "arg" => Expr::Arg(index(1)?),
        "barg" => Expr::BlockArg(index(1)?),
        "add" => Expr::Add(many(1)?),
        "mul" => Expr::Mul(many(1)?),
        "max" => Expr::Max(many(1)?),
        "min" => Expr::Min(many(1)?),
        "sub" => Expr::Sub(boxed(1)?, boxed(2)?),
        "floordiv" => Expr::FloorDiv(boxed(1)?, boxed(2)?),
        "mod" => Expr::Mod(boxed(1)?, boxed(2)?),
        "ceildiv" => Expr::CeilDiv(boxed(1)?, boxed(2)?),
        "select" => Expr::Select(Box::new(cond(at(1)?)?), boxed(2)?, boxed(3)?),
        _ => return Err(bad("expression", object)),
    })
}

pub fn cond(object: &Bound<'_, PyAny>) -> PyResult<Cond> {
    let (tag, items) = tagged(object, "condition")?;
    let at = |index: usize| item(&items, index, "condition", object);
    let many = |index: usize| -> PyResult<Vec<Cond>> { list(at(index)?, "condition")?.iter().map(cond).collect() };
    Ok(match tag.as_str() {
        "cmp" => {
            let predicate = match at(1)?.extract::<String>().map_err(|_| bad("condition", object))?.as_str() {
                "eq" => Predicate::Eq,
                "ne" => Predicate::Ne,
                "lt" => Predicate::Lt,
                "le" => Predicate::Le,
                "gt" => Predicate::Gt,
                "ge" => Predicate::Ge,
                _ => return Err(bad("condition", object)),
            };
            Cond::Cmp(predicate, expr(at(2)?)?, expr(at(3)?)?)
        }
        "and" => Cond::And(many(1)?),
        "or" => Cond::Or(many(1)?),
        "not" => Cond::Not(Box::new(cond(at(1)?)?)),
        "bool" => Cond::Bool(at(1)?.extract::<bool>().map_err(|_| bad("condition", object))?),
        _ => return Err(bad("condition", object)),
    })
}

fn loc(object: &Bound<'_, PyAny>) -> PyResult<Option<Loc>> {
    if object.is_none() {
        return Ok(None);
    }
    let (file, line) = object.extract::<(String, usize)>().map_err(|_| bad("location", object))?;
    Ok(Some(Loc { file, line }))
}

fn exprs(object: &Bound<'_, PyAny>) -> PyResult<Vec<Expr>> {
    list(object, "size list")?.iter().map(expr).collect()
}

pub fn layout(object: &Bound<'_, PyAny>) -> PyResult<Layout> {
    let (tag, items) = tagged(object, "layout")?;
    let at = |index: usize| item(&items, index, "layout", object);
    let loc = loc(at(1)?)?;
    let layouts = |index: usize| -> PyResult<Vec<Layout>> { list(at(index)?, "layout")?.iter().map(layout).collect() };
    Ok(match tag.as_str() {
        "row" => Layout::Row { loc, dims: exprs(at(2)?)? },
        "col" => Layout::Col { loc, dims: exprs(at(2)?)? },
        "reg_p" => Layout::RegP {
            loc,
            dims: exprs(at(2)?)?,
            perm: at(3)?.extract::<Vec<i64>>().map_err(|_| bad("permutation", object))?,
        },
        "gen_p" => {
            let inverse = at(4)?;
            Layout::GenP {
                loc,
                dims: exprs(at(2)?)?,
                apply: expr(at(3)?)?,
                inverse: if inverse.is_none() { None } else { Some(exprs(inverse)?) },
            }
        }
        "order_by" => Layout::OrderBy { loc, parts: layouts(2)? },
        "group_by" => Layout::GroupBy { loc, dims: exprs(at(2)?)?, objects: layouts(3)? },
        "tile_by" => Layout::TileBy {
            loc,
            inner: Box::new(layout(at(2)?)?),
            levels: list(at(3)?, "tile dims")?.iter().map(exprs).collect::<PyResult<_>>()?,
        },
        _ => return Err(bad("layout", object)),
    })
}

/// The lowering request of one evaluation, from the pieces the Python layer passes (`Session.evaluate` and
/// `lego.translate` take the same ones): `mode` is `"apply"` (`operand` a list of index expressions) or `"inv"`
/// (`operand` the flat expression); `bounds` a list of `(argument, lb or None, ub or None)`; `facts` conditions.
pub fn request(
    layout: &Bound<'_, PyAny>,
    argument_count: usize,
    mode: &str,
    operand: &Bound<'_, PyAny>,
    bounds: &Bound<'_, PyList>,
    facts: &Bound<'_, PyList>,
    call_location: Option<Loc>,
) -> PyResult<crate::emit::Request> {
    let layout = self::layout(layout)?;
    let mode = match mode {
        "apply" => {
            let list = operand.cast::<PyList>().map_err(|_| LegoError::new_err("apply wants a list of index expressions"))?;
            crate::emit::Mode::Apply(list.iter().map(|item| expr(&item)).collect::<PyResult<_>>()?)
        }
        "inv" => crate::emit::Mode::Inverse(expr(operand)?),
        other => return Err(LegoError::new_err(format!("unknown evaluation mode '{other}' (apply or inv)"))),
    };
    let bounds = bounds
        .iter()
        .map(|item| {
            let (argument, lower, upper) = item.extract::<(usize, Bound<PyAny>, Bound<PyAny>)>()?;
            let optional = |bound: Bound<PyAny>| if bound.is_none() { Ok(None) } else { expr(&bound).map(Some) };
            Ok((argument, optional(lower)?, optional(upper)?))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let facts = facts.iter().map(|item| cond(&item)).collect::<PyResult<Vec<_>>>()?;
    Ok(crate::emit::Request { argument_count, layout, mode, bounds, facts, call_location })
}
