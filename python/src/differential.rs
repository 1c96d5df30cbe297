//! A test hook: random layouts of the reference algebra (`lego_algebra::random`) with reference values, for
//! the differential tests of `python/tests/test_differential.py`. The test rebuilds each layout with the
//! public Python classes and compares `L[...]` / `L.inv(...)` (our pipeline) with the values computed here
//! by the algebra's interpreter.
//!
//! A layout is described as `("row", dims)`, `("col", dims)`, `("reg_p", dims, perm)`, `("rev", n1, n2)`
//! (the `gen_p` reversing both axes), `("order_by", [parts])`, `("group_by", dims, [objects])`,
//! `("tile_by", inner, [[level dims]])`. Layouts using `antidiag` (a square root in its inverse, no SymPy
//! form yet) are drawn again; `expand_by` has no Python API (the published API, §1.3) and is not generated.

use lego_algebra::{
    random::{random_flat, random_index, random_layout, RandomConfig, SplitMix64},
    GenFn, Layout, LayoutNode,
};
use pyo3::{prelude::*, types::PyTuple, IntoPyObjectExt};

use crate::LegoError;

fn values(dims: &[lego_algebra::Dim]) -> Vec<u64> {
    dims.iter().map(|dim| dim.value).collect()
}

/// The description of `layout`, or `None` when it holds a piece the Python layer cannot rebuild.
pub(crate) fn describe<'py>(py: Python<'py>, layout: &Layout) -> PyResult<Option<Bound<'py, PyAny>>> {
    let tuple = |items: Vec<Bound<'py, PyAny>>| -> PyResult<Option<Bound<'py, PyAny>>> { Ok(Some(PyTuple::new(py, items)?.into_any())) };
    let all = |layouts: &[Layout]| -> PyResult<Option<Vec<Bound<'py, PyAny>>>> {
        let mut out = Vec::new();
        for layout in layouts {
            match describe(py, layout)? {
                Some(described) => out.push(described),
                None => return Ok(None),
            }
        }
        Ok(Some(out))
    };
    match layout.node() {
        LayoutNode::Row { dims } => tuple(vec!["row".into_bound_py_any(py)?, values(dims).into_bound_py_any(py)?]),
        LayoutNode::Col { dims } => tuple(vec!["col".into_bound_py_any(py)?, values(dims).into_bound_py_any(py)?]),
        LayoutNode::RegP { perm, dims } => tuple(vec![
            "reg_p".into_bound_py_any(py)?,
            values(dims).into_bound_py_any(py)?,
            perm.clone().into_bound_py_any(py)?,
        ]),
        LayoutNode::GenP { gen: GenFn::Rev { n1, n2 }, .. } => {
            tuple(vec!["rev".into_bound_py_any(py)?, n1.into_bound_py_any(py)?, n2.into_bound_py_any(py)?])
        }
        LayoutNode::GenP { .. }
        | LayoutNode::ExpandBy { .. }
        | LayoutNode::Swizzle { .. }
        | LayoutNode::Compose { .. }
        | LayoutNode::Inverse { .. }
        | LayoutNode::Strided { .. } => Ok(None),
        LayoutNode::OrderBy { parts } => match all(parts)? {
            Some(parts) => tuple(vec!["order_by".into_bound_py_any(py)?, parts.into_bound_py_any(py)?]),
            None => Ok(None),
        },
        LayoutNode::GroupBy { dims, objects } => match all(objects)? {
            Some(objects) => tuple(vec![
                "group_by".into_bound_py_any(py)?,
                values(dims).into_bound_py_any(py)?,
                objects.into_bound_py_any(py)?,
            ]),
            None => Ok(None),
        },
        LayoutNode::TileBy { inner, tile_dims } => match describe(py, inner)? {
            Some(inner) => {
                let levels: Vec<Vec<u64>> = tile_dims.iter().map(|level| values(level)).collect();
                tuple(vec!["tile_by".into_bound_py_any(py)?, inner, levels.into_bound_py_any(py)?])
            }
            None => Ok(None),
        },
    }
}

/// `count` random layouts from `seed` (at most `max_numel` elements, nesting depth `max_depth`), each as
/// `(description, dims, [(index, flat)], [(flat, index)])` with `samples` reference evaluations of `apply`
/// and of `apply_inverse` each.
#[pyfunction]
#[pyo3(signature = (seed, count, max_numel = 512, max_depth = 2, samples = 4))]
pub fn random_layouts<'py>(
    py: Python<'py>,
    seed: u64,
    count: usize,
    max_numel: u64,
    max_depth: usize,
    samples: usize,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    describable_random_layouts(py, seed, count, max_numel, max_depth, "random_layouts", |layout, description, rng| {
        let mut forward = Vec::with_capacity(samples);
        let mut backward = Vec::with_capacity(samples);
        for _ in 0..samples {
            let index = random_index(layout, rng);
            let flat = layout.apply(&index).map_err(|error| LegoError::new_err(error.to_string()))?;
            forward.push((index, flat));
            let flat = random_flat(layout, rng);
            let index = layout.apply_inverse(flat).map_err(|error| LegoError::new_err(error.to_string()))?;
            backward.push((flat, index));
        }
        (description, layout.dims().to_vec(), forward, backward).into_bound_py_any(py)
    })
}

/// Draws layouts of lego-algebra's generator from `seed` (literal sizes, no `expand_by`, none of the newer ops)
/// until `count` of them have a description the Python layer can rebuild; `each` gets the layout, its
/// description and the generator (samples drawn right after their layout). `hook` names the caller in the error
/// when too many draws cannot be described.
pub(crate) fn describable_random_layouts<'py, T>(
    py: Python<'py>,
    seed: u64,
    count: usize,
    max_numel: u64,
    max_depth: usize,
    hook: &str,
    mut each: impl FnMut(&Layout, Bound<'py, PyAny>, &mut SplitMix64) -> PyResult<T>,
) -> PyResult<Vec<T>> {
    let config = RandomConfig { max_numel, max_depth, symbolic_percent: 0, allow_expand_by: false, only_tile_by: false, new_ops_percent: 0 };
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::with_capacity(count);
    let mut draws = 0usize;
    while out.len() < count {
        draws += 1;
        if draws > count * 20 + 100 {
            return Err(LegoError::new_err(format!("{hook}: too many layouts the Python layer cannot rebuild")));
        }
        let layout = random_layout(&mut rng, &config);
        let Some(description) = describe(py, &layout)? else { continue };
        out.push(each(&layout, description, &mut rng)?);
    }
    Ok(out)
}
