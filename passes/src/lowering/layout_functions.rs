//! Layouts built once and used by many functions: a `func.func` that returns `!lego.layout` (docs/reference/reuse.md).
//!
//! Such a function is a compile-time definition: its body builds the layout (from its arguments, e.g. sizes),
//! and each `func.call` of it stands for that layout. A layout has no run-time representation, so before
//! anything else `lego-to-arith` inlines every call of such a function — the callee's single block cloned at
//! the call, its arguments bound to the call's operands, the call's results replaced by the returned values —
//! until no call is left (calls in the inlined bodies included), then erases the functions, which cannot
//! survive lowering. A body of more than one block, a call that cannot be resolved in its symbol table and
//! recursion are located errors.

use super::ir::{erase, op_key, op_name, replace_all_uses, Builder, Located, ValueMap};
use super::views::{callee_name, same_symbol_table, symbol_name};
use lego_dialect::ops::walk_ops;
use melior::ir::{block::BlockLike, operation::OperationLike, OperationRef, RegionLike, ValueLike};
use melior::Context;

/// Rounds of inlining: each inlines the calls present; inlined bodies may call other layout functions.
const MAX_ROUNDS: usize = 64;

/// Whether `function` (a `func.func`) returns a `!lego.layout`.
fn returns_layout(function: OperationRef) -> bool {
    let Ok(attribute) = function.attribute("function_type") else { return false };
    let Ok(type_attribute) = melior::ir::attribute::TypeAttribute::try_from(attribute) else { return false };
    let Ok(function_type) = melior::ir::r#type::FunctionType::try_from(type_attribute.value()) else { return false };
    (0..function_type.result_count()).any(|k| {
        function_type.result(k).is_ok_and(|ty| super::ir::is_lego_type(ty) && !super::ir::is_view_type(ty))
    })
}

/// Inlines every call of a function returning `!lego.layout` under `root` and erases those functions (module
/// doc). Errors are emitted; returns whether all went well.
///
/// `functions`: every `func.func` under `root` (itself included), in walk order, as
/// [`crate::lowering::views::FunctionsAndCalls`] collects them for this step and the next. Returns `Some(false)`
/// on error, `Some(true)` when the IR changed, `None` when there was nothing to inline (the IR is untouched).
pub fn inline_layout_functions<'c, 'a>(
    context: &'c Context,
    root: OperationRef<'c, 'a>,
    functions: &[OperationRef<'c, 'a>],
) -> Option<bool> {
    let functions: Vec<OperationRef> = functions.iter().copied().filter(|op| returns_layout(*op)).collect();
    if functions.is_empty() {
        return None;
    }
    Some(inline_functions(context, root, functions))
}

fn inline_functions<'c, 'a>(context: &'c Context, root: OperationRef<'c, 'a>, functions: Vec<OperationRef<'c, 'a>>) -> bool {
    for round in 0..=MAX_ROUNDS {
        let mut calls = Vec::new();
        walk_ops(root, &mut |op| {
            if op_name(&op) != "func.call" {
                return;
            }
            let Some(callee) = callee_name(&op) else { return };
            if let Some(function) = functions
                .iter()
                .copied()
                .find(|function| symbol_name(function).as_deref() == Some(callee.as_str()) && same_symbol_table(op, *function))
            {
                calls.push((op, function));
            }
        });
        if calls.is_empty() {
            break;
        }
        if round == MAX_ROUNDS {
            // Inlined copies keep the original call's location: one error per call written in the source.
            let mut reported = std::collections::HashSet::new();
            for (call, _) in calls {
                if reported.insert(call.location().to_string()) {
                    Located::new(
                        call.location(),
                        "'func.call' op calls a function returning !lego.layout recursively: it cannot be inlined",
                    )
                    .emit();
                }
            }
            return false;
        }
        for (call, function) in calls {
            if let Err(error) = inline_call(context, call, function) {
                error.emit();
                return false;
            }
        }
    }
    // Every call is gone; the definitions go too (a layout has no run-time form). A function that is still
    // referenced otherwise (not by a direct call) is left for the lowering to report.
    for function in functions {
        if !referenced(root, function) {
            erase(function);
        }
    }
    true
}

/// Whether some op under `root` other than `function` itself names `function`'s symbol in an attribute.
fn referenced(root: OperationRef, function: OperationRef) -> bool {
    let Some(name) = symbol_name(&function) else { return false };
    let needle = format!("@{name}");
    let mut found = false;
    walk_ops(root, &mut |op| {
        if found || op_key(op) == op_key(function) || op_name(&op) == "func.func" {
            return;
        }
        // Attribute dictionaries only: symbol references are attributes.
        found = op.attributes().any(|(_, attribute)| attribute.to_string().contains(&needle));
    });
    found
}

fn inline_call<'c, 'a>(
    context: &'c Context,
    call: OperationRef<'c, 'a>,
    function: OperationRef<'c, 'a>,
) -> super::ir::Result<'c, ()> {
    let name = symbol_name(&function).unwrap_or_default();
    let error = |message: String| Located::new(call.location(), format!("'func.call' op {message}"));
    let body = function.region(0).map_err(|_| error(format!("cannot inline @{name}: it has no body")))?;
    let block = body.first_block().ok_or_else(|| error(format!("cannot inline @{name}: it has no body")))?;
    if block.next_in_region().is_some() {
        return Err(error(format!("cannot inline @{name}: a function returning !lego.layout must have a single block")));
    }
    if block.argument_count() != call.operand_count() {
        return Err(error(format!(
            "passes {} operands to @{name}, which takes {}",
            call.operand_count(),
            block.argument_count()
        )));
    }
    let b = Builder::before(context, call).ok_or_else(|| error("is not in a block".into()))?;
    let mut mapping = ValueMap::default();
    for (position, operand) in call.operands().enumerate() {
        let argument = block.argument(position).map_err(|_| error(format!("cannot inline @{name}")))?;
        mapping.insert(argument.into(), operand);
    }
    let mut op = block.first_operation();
    let mut returned = None;
    while let Some(current) = op {
        op = current.next_in_block();
        if op.is_none() && op_name(&current) == "func.return" {
            returned = Some(current.operands().map(|value| mapping.lookup(value)).collect::<Vec<_>>());
            break;
        }
        b.clone_mapped(current, &mut mapping);
    }
    let returned = returned.ok_or_else(|| error(format!("cannot inline @{name}: its body does not end in func.return")))?;
    if returned.len() != call.result_count() {
        return Err(error(format!("expects {} results from @{name}, which returns {}", call.result_count(), returned.len())));
    }
    for (result, value) in call.results().zip(returned) {
        if result.r#type() != value.r#type() {
            return Err(error(format!("result types do not match @{name}'s")));
        }
        replace_all_uses(result.into(), value);
    }
    erase(call);
    Ok(())
}
