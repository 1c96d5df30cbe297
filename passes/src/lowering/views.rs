//! Views and layouts across function calls.
//!
//! A `func.func` argument of type `!lego.view<T>` (or `!lego.layout`) has no memref or sizes at run time.
//! This step rewrites such a function to take the viewed memref plus the values its layout is built from
//! (symbolic sizes, values captured by gen_p regions), rebuilds the layout — and the `lego.cast_view` — at
//! the top of the callee, and updates every `func.call`. It needs every call site to pass a layout built by
//! ops of the same structure and static attributes (only SSA values may differ; an SSA value that is the
//! same constant at every call site is cloned into the callee instead of passed). Otherwise, and for
//! functions without call sites, it reports a located error.

use super::ir::{defining_op, key, op_key, op_name, replace_all_uses, Builder, Located, Result, ValueMap};
use lego_dialect::ops::{walk_ops, OpKind};
use melior::ir::{
    attribute::AttributeLike,
    attribute::{ArrayAttribute, DictionaryAttribute, FlatSymbolRefAttribute, TypeAttribute},
    block::BlockLike,
    operation::{OperationLike, OperationPrintingFlags},
    r#type::FunctionType,
    Attribute, BlockRef, OperationRef, RegionLike, Type, Value, ValueLike,
};
use melior::Context;
use std::collections::{HashMap, HashSet};

/// The ops building one layout (or view) passed at a call site.
struct Tree<'c, 'a> {
    /// Layout constructors, operands before users.
    ops: Vec<OperationRef<'c, 'a>>,
    /// The layout value (the `cast_view`'s layout operand for a view).
    layout: Value<'c, 'a>,
    /// The viewed memref, for a view.
    memref: Option<Value<'c, 'a>>,
    /// Values the ops use that are defined elsewhere, in a fixed order.
    free: Vec<Value<'c, 'a>>,
    /// Structure and static attributes; equal signatures give position-wise corresponding `free` lists.
    signature: String,
}

/// Why a tree could not be collected.
enum Unresolved<'c, 'a> {
    /// A lego-typed block argument (a caller's own parameter that is rewritten first, or an error).
    Argument(Value<'c, 'a>),
    /// A value produced by something else than a lego layout op.
    Other(String),
}

struct Collector<'c, 'a> {
    tree: Tree<'c, 'a>,
    visited: HashSet<usize>,
    free_index: HashMap<usize, usize>,
    tree_index: HashMap<usize, usize>,
}

impl<'c, 'a> Collector<'c, 'a> {
    fn reference(&mut self, value: Value<'c, 'a>) -> String {
        if let Some(index) = self.tree_index.get(&key(value)) {
            return format!("t{index}");
        }
        let next = self.tree.free.len();
        let index = *self.free_index.entry(key(value)).or_insert(next);
        if index == next {
            self.tree.free.push(value);
        }
        format!("f{index}")
    }

    fn layout(&mut self, value: Value<'c, 'a>) -> std::result::Result<(), Unresolved<'c, 'a>> {
        let Some(op) = defining_op(value) else { return Err(Unresolved::Argument(value)) };
        if !OpKind::of(&op).is_some_and(|kind| kind.is_layout_constructor()) {
            return Err(Unresolved::Other(format!("a layout produced by '{}'", op_name(&op))));
        }
        if !self.visited.insert(op_key(op)) {
            return Ok(());
        }
        for operand in op.operands() {
            if operand.r#type().to_string() == "!lego.layout" {
                self.layout(operand)?;
            }
        }
        let mut signature = String::new();
        for operand in op.operands() {
            signature.push_str(&self.reference(operand));
            signature.push(',');
        }
        // Values captured by regions (gen_p bodies) are free values too, in walk order.
        let inside = defined_inside(op);
        walk_ops(op, &mut |nested| {
            if op_key(nested) == op_key(op) {
                return;
            }
            for operand in nested.operands() {
                if !inside.contains(&key(operand)) {
                    let reference = self.reference(operand);
                    signature.push_str(&reference);
                    signature.push(',');
                }
            }
        });
        // The op printed alone (name, attributes, properties, region bodies), SSA names renamed in order of
        // appearance: the printer numbers values per function, so equal ops print alike only after that.
        let flags = OperationPrintingFlags::new().print_generic_operation_form().use_local_scope();
        signature.push_str(&canonical_names(&op.to_string_with_flags(flags).unwrap_or_default()));
        signature.push('\n');
        self.tree.signature.push_str(&signature);
        for result in op.results() {
            self.tree_index.insert(key(result.into()), self.tree.ops.len());
        }
        self.tree.ops.push(op);
        Ok(())
    }
}

/// `text` with every SSA name (`%arg3`, `%12`, `%c4_0`) replaced by `%v<k>`, `k` counting distinct names in
/// order of first appearance (result-group suffixes `#1` / `:2` are kept).
fn canonical_names(text: &str) -> String {
    let mut names: HashMap<&str, usize> = HashMap::new();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(position) = rest.find('%') {
        out.push_str(&rest[..position]);
        let after = &rest[position + 1..];
        let length = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.' | '-')))
            .unwrap_or(after.len());
        let next = names.len();
        let index = *names.entry(&after[..length]).or_insert(next);
        out.push_str(&format!("%v{index}"));
        rest = &after[length..];
    }
    out.push_str(rest);
    out
}

/// Block arguments and op results defined within `op`'s regions.
fn defined_inside(op: OperationRef) -> HashSet<usize> {
    let mut inside = HashSet::new();
    walk_ops(op, &mut |nested| {
        for result in nested.results() {
            inside.insert(key(result.into()));
        }
        for region in nested.regions() {
            let mut block = region.first_block();
            while let Some(current) = block {
                for index in 0..current.argument_count() {
                    if let Ok(argument) = current.argument(index) {
                        inside.insert(key(argument.into()));
                    }
                }
                block = current.next_in_region();
            }
        }
    });
    inside
}

/// The tree behind a view or layout value passed at a call.
fn collect<'c, 'a>(value: Value<'c, 'a>) -> std::result::Result<Tree<'c, 'a>, Unresolved<'c, 'a>> {
    let (layout, memref) = if super::ir::is_view_type(value.r#type()) {
        let Some(cast) = defining_op(value) else { return Err(Unresolved::Argument(value)) };
        if OpKind::of(&cast) != Some(OpKind::CastView) {
            return Err(Unresolved::Other(format!("a view produced by '{}'", op_name(&cast))));
        }
        match (cast.operand(0), cast.operand(1)) {
            (Ok(memref), Ok(layout)) => (layout, Some(memref)),
            _ => return Err(Unresolved::Other("a malformed lego.cast_view".into())),
        }
    } else {
        (value, None)
    };
    let mut collector = Collector {
        tree: Tree { ops: Vec::new(), layout, memref, free: Vec::new(), signature: String::new() },
        visited: HashSet::new(),
        free_index: HashMap::new(),
        tree_index: HashMap::new(),
    };
    collector.layout(layout)?;
    Ok(collector.tree)
}

/// How the callee gets one free value.
enum Source<'c, 'a> {
    /// The same `arith.constant` at every call site: cloned into the callee.
    Constant(OperationRef<'c, 'a>),
    /// A new function argument of this type.
    Argument(Type<'c>),
}

fn same_constant(values: &[Value]) -> bool {
    let describe = |value: &Value| {
        let op = defining_op(*value)?;
        (op_name(&op) == "arith.constant" && op.operand_count() == 0).then(|| {
            let attribute = op.attribute("value").map(|a| a.to_string()).unwrap_or_default();
            (attribute, value.r#type().to_string())
        })
    };
    let first = values.first().and_then(describe);
    first.is_some() && values.iter().all(|value| describe(value) == first)
}

struct Function<'c, 'a> {
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    name: String,
    entry: BlockRef<'c, 'a>,
    /// Positions of lego-typed arguments.
    lego_args: Vec<usize>,
}

pub(crate) fn callee_name(call: &OperationRef) -> Option<String> {
    let attribute = call.attribute("callee").ok()?;
    FlatSymbolRefAttribute::try_from(attribute).ok().map(|symbol| symbol.value().to_string())
}

pub(crate) fn symbol_name(op: &OperationRef) -> Option<String> {
    let attribute = op.attribute("sym_name").ok()?;
    melior::ir::attribute::StringAttribute::try_from(attribute).ok().map(|name| name.value().to_string())
}

/// Rewrites every function with `!lego.view` / `!lego.layout` arguments under `root` (see the module doc).
/// Errors are emitted as they are found; returns whether all went well.
///
/// `scanned`: the functions and calls under `root` as they are now (see [`FunctionsAndCalls::of`]).
pub fn thread_through_calls<'c, 'a>(
    context: &'c Context,
    root: OperationRef<'c, 'a>,
    scanned: FunctionsAndCalls<'c, 'a>,
) -> bool {
    let mut functions = Vec::new();
    let calls = scanned.calls;
    let mut ok = true;
    for op in scanned.functions {
        match inspect_function(context, op) {
            Ok(Some(function)) => functions.push(function),
            Ok(None) => {}
            Err(error) => {
                error.emit();
                ok = false;
            }
        }
    }
    if functions.is_empty() {
        return ok;
    }
    if op_name(&root) == "func.func" {
        for function in &functions {
            Located::new(
                function.op.location(),
                "'func.func' op has !lego.view / !lego.layout arguments: run lego-to-arith on the enclosing module so that the calls can be rewritten too",
            )
            .emit();
        }
        return false;
    }
    let mut pending: Vec<Function> = functions;
    loop {
        let pending_args: HashSet<usize> = pending
            .iter()
            .flat_map(|function| {
                function.lego_args.iter().filter_map(|&k| function.entry.argument(k).ok().map(|a| key(a.into())))
            })
            .collect();
        let mut progress = false;
        let mut still = Vec::new();
        for function in pending {
            let sites: Vec<OperationRef> = calls
                .iter()
                .copied()
                .filter(|call| {
                    callee_name(call).as_deref() == Some(function.name.as_str())
                        && same_symbol_table(*call, function.op)
                })
                .collect();
            match rewrite_function(&function, &sites, &pending_args) {
                Ok(true) => progress = true,
                Ok(false) => still.push(function),
                Err(error) => {
                    error.emit();
                    ok = false;
                    progress = true;
                }
            }
        }
        pending = still;
        if pending.is_empty() {
            return ok;
        }
        if !progress {
            for function in &pending {
                Located::new(
                    function.op.location(),
                    format!(
                        "'func.func' op cannot thread its !lego.view / !lego.layout arguments: the calls to @{} pass them on \
                         recursively (a function's own view or layout parameter passed back to it, directly or through other calls)",
                        function.name
                    ),
                )
                .emit();
            }
            return false;
        }
    }
}

/// Every `func.func` and `func.call` under a root (the root included), each list in walk order: what both
/// [`crate::lowering::layout_functions::inline_layout_functions`] and [`thread_through_calls`] look at, collected
/// in one walk of the module (a walk costs a cache miss per op; lego-to-arith used to make one per step).
pub struct FunctionsAndCalls<'c, 'a> {
    pub functions: Vec<OperationRef<'c, 'a>>,
    pub calls: Vec<OperationRef<'c, 'a>>,
}

impl<'c, 'a> FunctionsAndCalls<'c, 'a> {
    pub fn of(root: OperationRef<'c, 'a>) -> Self {
        let mut scanned = FunctionsAndCalls { functions: Vec::new(), calls: Vec::new() };
        walk_ops(root, &mut |op| match crate::simplify::ir::op_name(op.to_raw()) {
            "func.func" => scanned.functions.push(op),
            "func.call" => scanned.calls.push(op),
            _ => {}
        });
        scanned
    }
}

/// Whether the call resolves in the symbol table that holds `function` (the nearest one enclosing the call).
pub(crate) fn same_symbol_table(call: OperationRef, function: OperationRef) -> bool {
    let Some(table) = function.parent_operation() else { return false };
    let mut current = call.parent_operation();
    while let Some(op) = current {
        if op_key(op) == op_key(table) {
            return true;
        }
        // A nested symbol table (module, gpu.module, ...) shadows outer ones.
        if op.has_attribute("sym_name") && op_name(&op) != "func.func" {
            return false;
        }
        current = op.parent_operation();
    }
    false
}

fn inspect_function<'c, 'a>(context: &'c Context, op: OperationRef<'c, 'a>) -> Result<'c, Option<Function<'c, 'a>>> {
    let name = symbol_name(&op).unwrap_or_default();
    let function_type = op
        .attribute("function_type")
        .ok()
        .and_then(|attribute| TypeAttribute::try_from(attribute).ok())
        .and_then(|attribute| FunctionType::try_from(attribute.value()).ok());
    let Some(function_type) = function_type else { return Ok(None) };
    for index in 0..function_type.result_count() {
        if let Ok(result) = function_type.result(index) {
            if super::ir::is_lego_type(result) {
                return Err(Located::new(
                    op.location(),
                    format!("'func.func' op @{name} returns a '{result}': lego-to-arith can thread views and layouts into functions (as arguments) but not out of them"),
                ));
            }
        }
    }
    let lego_args: Vec<usize> = (0..function_type.input_count())
        .filter(|&index| function_type.input(index).is_ok_and(super::ir::is_lego_type))
        .collect();
    if lego_args.is_empty() {
        return Ok(None);
    }
    let entry = op.region(0).ok().and_then(|region| region.first_block());
    let Some(entry) = entry else {
        return Err(Located::new(
            op.location(),
            format!("'func.func' op @{name} is a declaration with !lego.view / !lego.layout arguments: the layout behind them cannot be passed to code lego-to-arith does not see"),
        ));
    };
    Ok(Some(Function { context, op, name, entry, lego_args }))
}

/// Rewrites one function and its calls. `Ok(false)`: some call passes a parameter of a function that is still
/// pending; try again after that one.
fn rewrite_function<'c, 'a>(
    function: &Function<'c, 'a>,
    sites: &[OperationRef<'c, 'a>],
    pending_args: &HashSet<usize>,
) -> Result<'c, bool> {
    let name = &function.name;
    if sites.is_empty() {
        return Err(Located::new(
            function.op.location(),
            format!(
                "'func.func' op @{name} takes a !lego.view / !lego.layout argument but has no func.call site in this module to take the layout from"
            ),
        ));
    }
    // trees[site][j]: the tree passed for lego argument j at that site.
    let mut trees: Vec<Vec<Tree>> = Vec::with_capacity(sites.len());
    for call in sites {
        let mut per_call = Vec::new();
        for &position in &function.lego_args {
            let Ok(value) = call.operand(position) else {
                return Err(Located::new(call.location(), format!("'func.call' op to @{name} has too few operands")));
            };
            match collect(value) {
                Ok(tree) => per_call.push(tree),
                Err(Unresolved::Argument(argument)) if pending_args.contains(&key(argument)) => return Ok(false),
                Err(Unresolved::Argument(_)) => {
                    return Err(Located::new(
                        call.location(),
                        format!("'func.call' op passes to @{name} (argument #{position}) a view or layout that is a block argument, not built by visible lego ops"),
                    ))
                }
                Err(Unresolved::Other(what)) => {
                    return Err(Located::new(
                        call.location(),
                        format!("'func.call' op passes to @{name} (argument #{position}) {what}; lego-to-arith needs it built by lego ops visible in the caller"),
                    ))
                }
            }
        }
        trees.push(per_call);
    }
    let plans = plan(function, sites, &trees)?;
    tracing::debug!(target: "lego", "threading views/layouts into @{name} ({} call sites)", sites.len());
    rewrite_callee(function, &trees[0], &plans)?;
    for (call, per_call) in sites.iter().zip(&trees) {
        rewrite_call(*call, function, per_call, &plans);
    }
    Ok(true)
}

/// Checks that all call sites agree and decides, per free value, constant clone or argument.
fn plan<'c, 'a>(
    function: &Function<'c, 'a>,
    sites: &[OperationRef<'c, 'a>],
    trees: &[Vec<Tree<'c, 'a>>],
) -> Result<'c, Vec<Vec<Source<'c, 'a>>>> {
    let mut plans = Vec::new();
    for (j, &position) in function.lego_args.iter().enumerate() {
        let first = &trees[0][j];
        for (call, per_call) in sites.iter().zip(trees).skip(1) {
            let tree = &per_call[j];
            if tree.signature != first.signature || tree.free.len() != first.free.len() {
                return Err(Located::new(
                    call.location(),
                    format!(
                        "'func.call' op passes to @{} (argument #{position}) a layout whose structure or static attributes differ from the one passed at {}; lego-to-arith needs the same layout structure at every call site (only SSA sizes may differ)",
                        function.name,
                        sites[0].location()
                    ),
                ));
            }
            let memref_types = (tree.memref.map(|m| m.r#type()), first.memref.map(|m| m.r#type()));
            if memref_types.0 != memref_types.1 {
                return Err(Located::new(
                    call.location(),
                    format!(
                        "'func.call' op passes to @{} (argument #{position}) a view of a '{}' but the call at {} views a '{}'; the threaded memref argument needs one type",
                        function.name,
                        memref_types.0.map(|t| t.to_string()).unwrap_or_default(),
                        sites[0].location(),
                        memref_types.1.map(|t| t.to_string()).unwrap_or_default()
                    ),
                ));
            }
        }
        let sources = (0..first.free.len())
            .map(|f| {
                let values: Vec<Value> = trees.iter().map(|per_call| per_call[j].free[f]).collect();
                match defining_op(first.free[f]) {
                    Some(op) if same_constant(&values) => Source::Constant(op),
                    _ => Source::Argument(first.free[f].r#type()),
                }
            })
            .collect();
        plans.push(sources);
    }
    Ok(plans)
}

fn rewrite_callee<'c, 'a>(
    function: &Function<'c, 'a>,
    trees: &[Tree<'c, 'a>],
    plans: &[Vec<Source<'c, 'a>>],
) -> Result<'c, ()> {
    let entry = function.entry;
    let Some(first) = entry.first_operation() else {
        return Err(Located::new(function.op.location(), "'func.func' op has an empty entry block"));
    };
    let Some(b) = Builder::before(function.context, first) else {
        return Err(Located::new(function.op.location(), "'func.func' op has an empty entry block"));
    };
    let b = b.at(function.op.location());
    let old_arg_count = entry.argument_count();
    // Last lego argument first, so earlier positions stay valid.
    for (j, &position) in function.lego_args.iter().enumerate().rev() {
        let tree = &trees[j];
        let Ok(old) = entry.argument(position) else { continue };
        let old: Value = old.into();
        let location = old.location();
        let mut insert_at = position + 1;
        let memref = tree.memref.map(|memref| {
            let argument = entry.insert_argument(insert_at, memref.r#type(), location);
            insert_at += 1;
            argument
        });
        let mut mapping = ValueMap::default();
        for (free, source) in tree.free.iter().zip(&plans[j]) {
            match source {
                Source::Constant(op) => {
                    let clone = b.clone_mapped(*op, &mut ValueMap::default());
                    mapping.insert(*free, super::ir::first_result(clone));
                }
                Source::Argument(ty) => {
                    mapping.insert(*free, entry.insert_argument(insert_at, *ty, location));
                    insert_at += 1;
                }
            }
        }
        for op in &tree.ops {
            b.clone_mapped(*op, &mut mapping);
        }
        let layout = mapping.lookup(tree.layout);
        let rebuilt = match memref {
            Some(memref) => super::ir::first_result(b.op("lego.cast_view", &[memref, layout], &[old.r#type()], &[])),
            None => layout,
        };
        // The old argument is still at `position` (new ones were inserted after it).
        let Ok(old) = entry.argument(position) else { continue };
        replace_all_uses(old.into(), rebuilt);
        // SAFETY: the argument has no uses left and no handle to it is used afterwards.
        unsafe { entry.erase_argument(position) };
    }
    update_signature(function, old_arg_count, trees, plans);
    Ok(())
}

/// Number of arguments that replace lego argument `j`.
fn expansion(trees: &[Tree], plans: &[Vec<Source>], j: usize) -> usize {
    usize::from(trees[j].memref.is_some())
        + plans[j].iter().filter(|source| matches!(source, Source::Argument(_))).count()
}

fn update_signature<'c, 'a>(
    function: &Function<'c, 'a>,
    old_arg_count: usize,
    trees: &[Tree<'c, 'a>],
    plans: &[Vec<Source<'c, 'a>>],
) {
    let context = function.context;
    let inputs: Vec<Type> = (0..function.entry.argument_count())
        .filter_map(|index| function.entry.argument(index).ok().map(|argument| argument.r#type()))
        .collect();
    let function_type = function
        .op
        .attribute("function_type")
        .ok()
        .and_then(|attribute| TypeAttribute::try_from(attribute).ok())
        .and_then(|attribute| FunctionType::try_from(attribute.value()).ok());
    let results: Vec<Type> = function_type
        .map(|ty| (0..ty.result_count()).filter_map(|index| ty.result(index).ok()).collect())
        .unwrap_or_default();
    let new_type = TypeAttribute::new(FunctionType::new(context, &inputs, &results).into());
    set_attribute(function.op, "function_type", new_type.into());
    expand_arg_attrs(function.op, function, old_arg_count, trees, plans);
}

/// Rewrites an `arg_attrs` array (of a func.func or func.call) for the new argument list: each lego argument
/// becomes as many empty dictionaries as the arguments replacing it.
fn expand_arg_attrs<'c, 'a>(
    op: OperationRef<'c, 'a>,
    function: &Function<'c, 'a>,
    old_arg_count: usize,
    trees: &[Tree<'c, 'a>],
    plans: &[Vec<Source<'c, 'a>>],
) {
    let Some(old) = op.attribute("arg_attrs").ok().and_then(|a| ArrayAttribute::try_from(a).ok()) else { return };
    let context = function.context;
    let empty: Attribute = DictionaryAttribute::new(context, &[]).into();
    let mut entries = Vec::new();
    for index in 0..old_arg_count {
        match function.lego_args.iter().position(|&k| k == index) {
            Some(j) => entries.extend(std::iter::repeat_n(empty, expansion(trees, plans, j))),
            None => entries.push(old.element(index).unwrap_or(empty)),
        }
    }
    set_attribute(op, "arg_attrs", ArrayAttribute::new(context, &entries).into());
}

fn set_attribute(op: OperationRef, name: &str, attribute: Attribute) {
    let name = melior::StringRef::new(name);
    // SAFETY: live op and attribute; sets the inherent attribute (property) of that name.
    unsafe { mlir_sys::mlirOperationSetAttributeByName(op.to_raw(), name.to_raw(), attribute.to_raw()) }
}

fn rewrite_call<'c, 'a>(
    call: OperationRef<'c, 'a>,
    function: &Function<'c, 'a>,
    trees: &[Tree<'c, 'a>],
    plans: &[Vec<Source<'c, 'a>>],
) {
    let old_count = call.operand_count();
    let mut operands: Vec<Value> = Vec::new();
    for (index, operand) in call.operands().enumerate() {
        let Some(j) = function.lego_args.iter().position(|&k| k == index) else {
            operands.push(operand);
            continue;
        };
        let tree = &trees[j];
        operands.extend(tree.memref);
        for (free, source) in tree.free.iter().zip(&plans[j]) {
            if matches!(source, Source::Argument(_)) {
                operands.push(*free);
            }
        }
    }
    let raw: Vec<mlir_sys::MlirValue> = operands.iter().map(|value| value.to_raw()).collect();
    // SAFETY: live call op and values; func.call has a single variadic operand group.
    unsafe { mlir_sys::mlirOperationSetOperands(call.to_raw(), raw.len() as isize, raw.as_ptr()) };
    expand_arg_attrs(call, function, old_count, trees, plans);
}

#[cfg(test)]
mod tests {
    use super::canonical_names;

    #[test]
    fn canonical_names_number_values_by_first_appearance() {
        let a = canonical_names("%4 = \"lego.row\"(%arg2, %0) : (index, index) -> !lego.layout");
        let b = canonical_names("%7 = \"lego.row\"(%arg3, %c4_0) : (index, index) -> !lego.layout");
        assert_eq!(a, b);
        assert_eq!(a, "%v0 = \"lego.row\"(%v1, %v2) : (index, index) -> !lego.layout");
        // Reuse patterns and result-group suffixes are kept.
        assert_eq!(canonical_names("%x:2 = f(%a, %a) g(%x#1)"), "%v0:2 = f(%v1, %v1) g(%v0#1)");
        assert_ne!(canonical_names("f(%a, %a)"), canonical_names("f(%a, %b)"));
    }
}
