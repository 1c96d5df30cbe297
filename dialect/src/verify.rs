//! The dialect's verifier: every rule of `docs/reference/verifier.md` that IRDL cannot express (IRDL already
//! checks operand/result types and counts). Runs after parsing and after every pass (`lego-opt` inserts it);
//! each failure is an `error:` at the op, worded `'lego.<op>' op <reason>` like MLIR's own op verifiers.

use crate::ops::{
    layout_op, layout_shape, walk_ops, yielded_values, AccessError, Dim, LayoutFactsCache, LayoutOp, OpKind,
    REGION_TERMINATOR,
};
use melior::ir::{
    block::BlockLike,
    operation::OperationLike,
    r#type::{Type, TypeLike},
    Location, OperationRef, RegionLike, RegionRef, ValueLike,
};

/// One verifier failure.
#[derive(Clone, Debug)]
pub struct VerifyError<'c> {
    pub location: Location<'c>,
    /// Full message, including the `'lego.<op>' op ` prefix.
    pub message: String,
}

/// Verifies every lego op nested in `root` (and `root` itself). Returns the failures in IR order.
pub fn verify<'c: 'a, 'a>(root: &impl OperationLike<'c, 'a>) -> Vec<VerifyError<'c>> {
    let mut errors = Vec::new();
    let root = unsafe { OperationRef::from_raw(root.to_raw()) };
    // One cache for the whole walk: each op asks about its operand layouts, and a chain of N layouts must
    // cost O(N), not O(N²).
    let mut facts = LayoutFactsCache::default();
    walk_ops(root, &mut |op| {
        if let Some(kind) = OpKind::of(&op) {
            if let Err(reason) = verify_op(kind, op, &mut facts) {
                errors.push(VerifyError { location: op.location(), message: format!("'{}' op {reason}", kind.name()) });
            }
        }
    });
    errors
}

/// [`verify_and_emit`] given the lego ops under the root (with their kinds, in walk order) instead of the
/// root: the same checks in the same order, for a pass that has just walked the module for them anyway.
pub fn verify_ops_and_emit<'c: 'a, 'a>(ops: &[(OperationRef<'c, 'a>, OpKind)]) -> bool {
    let mut facts = LayoutFactsCache::default();
    let mut valid = true;
    for &(op, kind) in ops {
        if let Err(reason) = verify_op(kind, op, &mut facts) {
            emit_error(op.location(), &format!("'{}' op {reason}", kind.name()));
            valid = false;
        }
    }
    valid
}

/// Verifies and reports each failure through the context's diagnostic engine (so `--verify-diagnostics` and
/// embedders' handlers see them). Returns whether the IR is valid.
pub fn verify_and_emit<'c: 'a, 'a>(root: &impl OperationLike<'c, 'a>) -> bool {
    let errors = verify(root);
    for error in &errors {
        emit_error(error.location, &error.message);
    }
    errors.is_empty()
}

/// Emits an error diagnostic at `location` through MLIR's diagnostic engine.
pub fn emit_error(location: Location, message: &str) {
    // The C API takes a NUL-terminated string; interior NULs cannot come from our messages but are stripped
    // rather than trusted.
    let message = std::ffi::CString::new(message.replace('\0', "")).unwrap_or_default();
    unsafe { mlir_sys::mlirEmitError(location.to_raw(), message.as_ptr()) }
}

type Check = Result<(), String>;

fn verify_op(kind: OpKind, op: OperationRef, facts: &mut LayoutFactsCache) -> Check {
    if kind.is_layout_constructor() {
        // In a graph region layout ops can name each other in a cycle; every walk over layouts assumes a DAG.
        if let Ok(result) = op.result(0) {
            if facts.facts(result.into()).cyclic {
                return Err("layout is defined in terms of itself (a cycle of layout ops)".into());
            }
        }
        let layout = layout_op(op).map_err(|error: AccessError| error.to_string())?;
        return match layout {
            Some(layout) => {
                // The op's own rules first (a zero size is reported as such, not as a count).
                let count = check_element_count(&layout, facts);
                verify_layout(layout, facts)?;
                count
            }
            None => Ok(()),
        };
    }
    match kind {
        OpKind::Apply | OpKind::AssertApplyBounds => {
            let layout = op.operand(0).map_err(|e| e.to_string())?;
            check_index_count(facts.facts(layout).rank, op.operand_count() - 1)
        }
        OpKind::ApplyInverse | OpKind::AssertInvBounds => {
            let layout = op.operand(0).map_err(|e| e.to_string())?;
            let shape = facts.facts(layout);
            if kind == OpKind::ApplyInverse {
                if let Some(rank) = shape.rank {
                    if rank != op.result_count() {
                        return Err(format!(
                            "number of results ({}) does not match layout rank ({rank})",
                            op.result_count(),
                        ));
                    }
                }
            }
            // Invertibility is only judged where the layout's dims are visible (as before the facts cache).
            check_invertible(shape.rank.is_none() || shape.invertible, layout)
        }
        OpKind::CastView => verify_cast_view(op, facts),
        OpKind::Load | OpKind::Store => verify_access(kind, op, facts),
        OpKind::Check => verify_check(op),
        _ => Ok(()),
    }
}

fn check_index_count(rank: Option<usize>, indices: usize) -> Check {
    match rank {
        Some(rank) if rank != indices => {
            Err(format!("number of indices ({indices}) does not match layout rank ({rank})"))
        }
        _ => Ok(()),
    }
}

fn check_invertible(invertible: bool, layout: melior::ir::Value) -> Check {
    if invertible {
        Ok(())
    } else {
        Err(format!("layout is not invertible: it is built from {}", crate::ops::apply_only_piece(layout)))
    }
}

fn check_positive(dims: &[Dim], what: &str) -> Check {
    if dims.is_empty() {
        return Err("expected at least one dimension".into());
    }
    for dim in dims {
        if let Some(size) = dim.known() {
            if size < 1 {
                return Err(format!("{what} {size} must be strictly positive"));
            }
        }
    }
    Ok(())
}

/// The element-count bound (docs/sizes.md): a layout has at most `lego_algebra::MAX_ELEMENTS` =
/// 2^63 − 1 elements, so that every index, stride and flat position fits in `index` read as signed or as
/// unsigned. Counted exactly (a product that wraps modulo 2^64 never passes), and reported at the op that
/// makes the count: an op with a size list by the product of its known sizes (a lower bound where some are
/// symbolic, as sizes are ≥ 1), an `order_by` by the product of its parts' counts when each part fits
/// (a part that does not is reported at the part).
fn check_element_count(layout: &LayoutOp, facts: &mut LayoutFactsCache) -> Check {
    use lego_algebra::{too_many_elements, ElementCount, MAX_ELEMENTS};
    let of_sizes = |lists: &[&[Dim]]| {
        let count = ElementCount::of(lists.iter().flat_map(|dims| crate::ops::known_sizes(dims)));
        let unknown = lists.iter().flat_map(|dims| dims.iter()).any(|dim| dim.known().is_none());
        (count, unknown)
    };
    let (count, at_least) = match layout {
        LayoutOp::Row { dims }
        | LayoutOp::Col { dims }
        | LayoutOp::RegP { dims, .. }
        | LayoutOp::GenP { dims, .. }
        | LayoutOp::Swizzle { dims, .. }
        | LayoutOp::GroupBy { dims, .. } => of_sizes(&[dims]),
        LayoutOp::TileBy { levels, .. } => {
            let tiles: Vec<Dim> = levels.iter().flatten().copied().collect();
            of_sizes(&[&tiles])
        }
        // Π n⃗ ≤ Π m⃗ holds only when the sizes are right; both lists are this op's own sizes.
        LayoutOp::ExpandBy { dims, to_dims, .. } => {
            let (real, real_unknown) = of_sizes(&[dims]);
            let (expanded, expanded_unknown) = of_sizes(&[to_dims]);
            if real.fits() {
                (expanded, expanded_unknown)
            } else {
                (real, real_unknown)
            }
        }
        // The count of an operand, checked at the operand.
        // Checked exactly by verify_layout (lego_algebra::check_strided).
        LayoutOp::Compose { .. } | LayoutOp::Inverse { .. } | LayoutOp::Strided { .. } => return Ok(()),
        LayoutOp::OrderBy { objects } => {
            let parts: Vec<_> = objects.iter().map(|object| facts.facts(*object)).collect();
            if parts.iter().any(|part| part.known_volume > MAX_ELEMENTS) {
                return Ok(());
            }
            let count = ElementCount::of(parts.iter().map(|part| part.known_volume));
            (count, parts.iter().any(|part| part.volume.is_none()))
        }
    };
    if count.fits() {
        Ok(())
    } else {
        Err(too_many_elements(&count, at_least))
    }
}

fn verify_layout(layout: LayoutOp, facts: &mut LayoutFactsCache) -> Check {
    match layout {
        LayoutOp::Row { dims } | LayoutOp::Col { dims } => check_positive(&dims, "Dimension"),
        LayoutOp::RegP { perm, dims } => {
            if perm.len() != dims.len() {
                return Err(format!(
                    "Permutation rank {} does not match dimensions rank {}",
                    perm.len(),
                    dims.len()
                ));
            }
            check_positive(&dims, "Dimension")?;
            let mut seen = vec![false; perm.len()];
            for entry in &perm {
                match usize::try_from(*entry).ok().filter(|index| *index < perm.len()) {
                    Some(index) if !seen[index] => seen[index] = true,
                    _ => {
                        return Err(format!(
                            "Invalid permutation: not a permutation of 0..{}",
                            perm.len().saturating_sub(1)
                        ))
                    }
                }
            }
            Ok(())
        }
        LayoutOp::GenP { dims, apply, inverse } => {
            check_positive(&dims, "Dimension")?;
            verify_region(apply, "apply", dims.len(), 1)?;
            if let Some(inverse) = inverse {
                verify_region(inverse, "inv", 1, dims.len())?;
            }
            Ok(())
        }
        LayoutOp::OrderBy { objects } => {
            if objects.is_empty() {
                return Err("expected at least one layout operand".into());
            }
            Ok(())
        }
        LayoutOp::GroupBy { dims, objects } => {
            check_positive(&dims, "Dimension")?;
            let Some(group) = crate::ops::known_product(&dims) else { return Ok(()) };
            for (position, object) in objects.iter().enumerate() {
                if let Some(volume) = facts.facts(*object).volume {
                    if volume != group {
                        return Err(format!(
                            "product of group dims ({group}) does not match the number of elements of object #{position} ({volume})"
                        ));
                    }
                }
            }
            Ok(())
        }
        LayoutOp::TileBy { inner, levels } => verify_tile_by(inner, &levels),
        LayoutOp::Swizzle { swizzle, dims } => verify_swizzle(swizzle, &dims),
        // docs/ops/strided.md: sizes ≥ 1, strides ≥ 0, bounded, injective (a colliding pair is the error).
        LayoutOp::Strided { modes } => {
            let leaves = crate::ops::strided_leaves(&modes)?;
            lego_algebra::check_strided(&leaves).map(|_| ()).map_err(|error| error.to_string())
        }
        LayoutOp::Compose { outer, inner } => {
            if let (Some(positions), Some(elements)) = (facts.codomain(inner), facts.facts(outer).volume) {
                if positions != elements {
                    return Err(format!(
                        "the inner layout (operand #1) maps to {positions} positions but the outer layout (operand #0) has {elements} elements"
                    ));
                }
            }
            Ok(())
        }
        LayoutOp::Inverse { inner } => {
            let inner_facts = facts.facts(inner);
            if inner_facts.rank.is_some() && !inner_facts.invertible {
                return Err(format!(
                    "layout (operand #0) is not invertible: it is built from {}",
                    crate::ops::apply_only_piece(inner)
                ));
            }
            if !crate::ops::maps_onto(inner) {
                return Err("layout (operand #0) is not a bijection: its last stage is a lego.expand_by, whose padding positions have no element".into());
            }
            Ok(())
        }
        LayoutOp::ExpandBy { inner, dims, to_dims } => {
            check_positive(&dims, "Dimension")?;
            check_positive(&to_dims, "Dimension")?;
            if dims.len() != to_dims.len() {
                return Err(format!(
                    "has {} dims but {} expanded ('to') dims",
                    dims.len(),
                    to_dims.len()
                ));
            }
            for (position, (dim, to)) in dims.iter().zip(&to_dims).enumerate() {
                if let (Some(dim), Some(to)) = (dim.known(), to.known()) {
                    if dim > to {
                        return Err(format!(
                            "dimension #{position} ({dim}) is larger than its expanded size ({to})"
                        ));
                    }
                }
            }
            {
                if let (Some(volume), Some(expanded)) = (facts.facts(inner).volume, crate::ops::known_product(&to_dims)) {
                    if volume != expanded {
                        return Err(format!(
                            "expanded shape has {expanded} elements but the input layout has {volume}"
                        ));
                    }
                }
            }
            Ok(())
        }
    }
}

/// swizzle (docs/ops/swizzle.md): `bits`, `base`, `shift` ≥ 0 with `shift ≥ bits` and a sum ≤ 62 (the rules
/// of `lego_algebra::check_swizzle_parameters`), and, when every size is known, an element count that is a
/// multiple of the period `2^(bits+base+shift)` (then the map permutes `[0, n)`).
fn verify_swizzle(swizzle: [i64; 3], dims: &[Dim]) -> Check {
    check_positive(dims, "Dimension")?;
    let [bits, base, shift] = swizzle;
    let parameter = |value: i64, name: &str| {
        u32::try_from(value).map_err(|_| format!("swizzle '{name}' must be a non-negative integer, found {value}"))
    };
    let (bits, base, shift) = (parameter(bits, "bits")?, parameter(base, "base")?, parameter(shift, "shift")?);
    lego_algebra::check_swizzle_parameters(bits, base, shift).map_err(|error| error.to_string())?;
    let period = 1i64 << (bits + base + shift);
    if let Some(numel) = crate::ops::known_product(dims) {
        if numel % period != 0 {
            return Err(lego_algebra::AlgebraError::SwizzleSize {
                numel: numel as u64,
                bits,
                base,
                shift,
                period: period as u64,
            }
            .to_string());
        }
    }
    Ok(())
}

/// tile_by (docs/reference/verifier.md; d_o, q_o as in docs/reference/semantics.md). The input may be a function/block argument: its
/// structure is unknown, so only the levels themselves are checked (lowering reports what it cannot see).
fn verify_tile_by(inner: melior::ir::Value, levels: &[Vec<Dim>]) -> Check {
    let has_defining_op = crate::ops::op_result(inner).is_some();
    let blocks = match crate::ops::defining_layout(inner) {
        Some((_, LayoutOp::OrderBy { objects })) => Some(objects),
        // A plain row / col / reg_p is an order_by of that one block (d_o = its rank, q_o = 1), as published.
        Some((_, LayoutOp::Row { .. } | LayoutOp::Col { .. } | LayoutOp::RegP { .. })) => Some(vec![inner]),
        _ if has_defining_op => return Err("input must be an OrderBy layout".into()),
        _ => None,
    };
    let Some(first) = levels.first() else { return Err("expected at least one tiling level".into()) };
    for level in levels {
        if level.len() != first.len() {
            return Err(format!(
                "all tiling levels must have the same length, found {} and {}",
                first.len(),
                level.len()
            ));
        }
        for dim in level {
            if let Some(size) = dim.known() {
                if size < 1 {
                    return Err(format!("Tile dimension {size} must be strictly positive"));
                }
            }
        }
    }
    let Some(blocks) = blocks else { return Ok(()) };
    // Each block's logical dims, where its construction is visible.
    let block_dims: Vec<Option<Vec<Dim>>> = blocks.iter().map(|block| crate::ops::logical_dims(*block)).collect();
    let Some(Some(first_block)) = block_dims.first() else { return Ok(()) };
    let d_o = first_block.len();
    for (position, dims) in block_dims.iter().enumerate().skip(1) {
        if let Some(dims) = dims {
            if dims.len() != d_o {
                return Err(format!(
                    "Block {position} of the input layout has rank {}, but the tile rank (rank of block 0) is {d_o}",
                    dims.len()
                ));
            }
        }
    }
    if first.len() != d_o {
        return Err(format!("Inner tile dimension {} does not match input layout dimension {d_o}", first.len()));
    }
    let tiles: Vec<Dim> = levels.iter().flatten().copied().collect();
    let volume = layout_shape(inner).and_then(|shape| shape.volume());
    if let (Some(total), Some(volume)) = (crate::ops::known_product(&tiles), volume) {
        if total != volume {
            return Err(format!(
                "Total product of tile dims ({total}) does not match total product of input dims ({volume})"
            ));
        }
    }
    for axis in 0..d_o {
        let along: Vec<Dim> = levels.iter().map(|level| level[axis]).collect();
        let size = block_dims
            .iter()
            .map(|dims| dims.as_ref().map(|dims| dims[axis]))
            .collect::<Option<Vec<Dim>>>()
            .and_then(|sizes| crate::ops::known_product(&sizes));
        if let (Some(product), Some(size)) = (crate::ops::known_product(&along), size) {
            if product != size {
                return Err(format!(
                    "product of tile dims along dimension {axis} ({product}) does not match input dimension ({size})"
                ));
            }
        }
    }
    Ok(())
}

/// A gen_p region: one block, `arguments` index arguments, ending in `smt.yield` of `yields` index values.
fn verify_region(region: RegionRef, name: &str, arguments: usize, yields: usize) -> Check {
    let Some(block) = region.first_block() else {
        return Err(format!("'{name}' region must have one block"));
    };
    if block.next_in_region().is_some() {
        return Err(format!("'{name}' region must have exactly one block"));
    }
    if block.argument_count() != arguments {
        return Err(format!(
            "'{name}' region must have {arguments} index argument(s), found {}",
            block.argument_count()
        ));
    }
    for index in 0..block.argument_count() {
        let argument = block.argument(index).map_err(|e| e.to_string())?;
        if !argument.r#type().is_index() {
            return Err(format!(
                "'{name}' region argument #{index} must be 'index', found '{}'",
                argument.r#type()
            ));
        }
    }
    let Some(values) = yielded_values(region) else {
        return Err(format!("'{name}' region must end in 'lego.yield' ('{REGION_TERMINATOR}' in generic form)"));
    };
    if values.len() != yields {
        return Err(format!("'{name}' region must yield {yields} index value(s), found {}", values.len()));
    }
    if let Some(value) = values.iter().find(|value| !value.r#type().is_index()) {
        return Err(format!("'{name}' region must yield 'index' values, found '{}'", value.r#type()));
    }
    Ok(())
}

fn view_element_type(view: Type, facts: &mut LayoutFactsCache) -> Option<String> {
    // `!lego.view<T>`: IRDL types have no C accessor for parameters, so read T off the printed form.
    let text = facts.type_text(view);
    let inner = text.strip_prefix("!lego.view<")?.strip_suffix('>')?;
    Some(inner.to_string())
}

fn memref_element_and_count(memref: Type, facts: &mut LayoutFactsCache) -> (Option<String>, Option<i64>) {
    let raw = memref.to_raw();
    unsafe {
        if !mlir_sys::mlirTypeIsAMemRef(raw) {
            return (None, None);
        }
        let element = facts.type_text(Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(raw))).to_string();
        if !mlir_sys::mlirShapedTypeHasStaticShape(raw) {
            return (Some(element), None);
        }
        let rank = mlir_sys::mlirShapedTypeGetRank(raw);
        let count = (0..rank).try_fold(1i64, |product, axis| product.checked_mul(mlir_sys::mlirShapedTypeGetDimSize(raw, axis as isize)));
        (Some(element), count)
    }
}

fn verify_cast_view(op: OperationRef, facts: &mut LayoutFactsCache) -> Check {
    let memref = op.operand(0).map_err(|e| e.to_string())?;
    let layout = op.operand(1).map_err(|e| e.to_string())?;
    let view = op.result(0).map_err(|e| e.to_string())?;
    let (memref_element, count) = memref_element_and_count(memref.r#type(), facts);
    if let (Some(memref_element), Some(view_element)) = (memref_element, view_element_type(view.r#type(), facts)) {
        if memref_element != view_element {
            return Err(format!(
                "memref element type '{memref_element}' does not match view element type '{view_element}'"
            ));
        }
    }
    if let (Some(count), Some(volume)) = (count, facts.codomain(layout)) {
        if count != volume {
            return Err(format!(
                "MemRef total number of elements ({count}) does not match layout volume ({volume})"
            ));
        }
    }
    Ok(())
}

/// The rank of the layout behind a view value, when the view comes from a visible `cast_view`.
fn view_layout_rank(view: melior::ir::Value, facts: &mut LayoutFactsCache) -> Option<usize> {
    let owner = crate::ops::op_result(view)?.owner();
    if OpKind::of(&owner)? != OpKind::CastView {
        return None;
    }
    facts.facts(owner.operand(1).ok()?).rank
}

fn verify_access(kind: OpKind, op: OperationRef, facts: &mut LayoutFactsCache) -> Check {
    let (view_position, value_type) = match kind {
        OpKind::Load => (0, op.result(0).ok().map(|result| result.r#type())),
        _ => (1, op.operand(0).ok().map(|value| value.r#type())),
    };
    let view = op.operand(view_position).map_err(|e| e.to_string())?;
    if let (Some(value_type), Some(element)) = (value_type, view_element_type(view.r#type(), facts)) {
        if *facts.type_text(value_type) != *element {
            let what = if kind == OpKind::Load { "result" } else { "stored value" };
            return Err(format!("{what} type '{value_type}' does not match view element type '{element}'"));
        }
    }
    check_index_count(view_layout_rank(view, facts), op.operand_count() - view_position - 1)
}

/// Whether `op` is nested in a `gpu.launch`.
fn inside_launch(op: OperationRef) -> bool {
    let mut current = op.parent_operation();
    while let Some(parent) = current {
        if parent.name().as_string_ref().as_str() == Ok("gpu.launch") {
            return true;
        }
        current = parent.parent_operation();
    }
    false
}

fn verify_check(op: OperationRef) -> Check {
    let coalescing = op.has_attribute("coalescing");
    let bank = op.has_attribute("bank_conflict_free");
    if !coalescing && !bank {
        return Err("must request at least one property (coalescing or bank_conflict_free)".into());
    }
    let Some(function) = enclosing_function(op) else { return Err("must be inside a function".into()) };
    // Inside a kernel (gpu.launch) the thread id is the launch's own.
    if !has_argument_with_attribute(&function, "lego.thread_id") && !inside_launch(op) {
        return Err("parent function must have a {lego.thread_id} argument".into());
    }
    for name in ["warp_size", "num_banks", "element_size"] {
        if let Ok(attribute) = op.attribute(name) {
            let value = melior::ir::attribute::IntegerAttribute::try_from(attribute)
                .map_err(|_| format!("'{name}' must be an integer attribute"))?
                .value();
            if value <= 0 {
                return Err(format!("'{name}' must be positive, found {value}"));
            }
        }
    }
    Ok(())
}

/// The function-like op enclosing `op` (`func.func`, `gpu.func`, or any op with a `function_type`).
fn enclosing_function<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let mut current = op.parent_operation();
    while let Some(parent) = current {
        let name = parent.name();
        let name = name.as_string_ref().as_str().unwrap_or_default();
        if name == "func.func" || name == "gpu.func" || parent.has_attribute("function_type") {
            return Some(parent);
        }
        current = parent.parent_operation();
    }
    None
}

/// Whether some argument of `function` carries the attribute `name` in its `arg_attrs` dictionary.
fn has_argument_with_attribute(function: &OperationRef, name: &str) -> bool {
    use melior::ir::attribute::{ArrayAttribute, DictionaryAttribute};
    let Ok(arg_attrs) = function.attribute("arg_attrs") else { return false };
    let Ok(array) = ArrayAttribute::try_from(arg_attrs) else { return false };
    (0..array.len()).any(|index| {
        array
            .element(index)
            .ok()
            .and_then(|element| DictionaryAttribute::try_from(element).ok())
            .is_some_and(|dictionary| dictionary.element_by_name(name).is_some())
    })
}
