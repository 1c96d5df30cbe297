//! Replaying a round's work on a function that is structurally the same as one already simplified.
//!
//! A module of many small functions (one per layout use: `bench/compile-time/gen.py functions`) holds a few
//! distinct function bodies many times over; each copy was read, proved and planned again (issue 25: the same
//! eight bodies 10 000 times). A `func.func` is isolated from above, so what a round does to it depends only on
//! the function itself:
//! - its roots, facts, intervals and reuse candidates are its own values (a candidate of another function
//!   never dominates one of its roots, so `known` entries of other functions are never taken);
//! - every side condition is answered the same way for a structurally equal cone: the condition cache is
//!   keyed by value identities (so it only answers the function's own repeated questions), the sampler reads
//!   the engine's atoms in reading order, and a solver query's text names leaves by that order too, so a
//!   copy's query is found in the solver's query cache (no solver call, no budget spent) with the answer the
//!   first copy got — unless the wall-clock safety net decided one (then the memo is off, see below);
//! - hash-map iteration order never decides output (the maps were randomly seeded before).
//!
//! The key ([`structure`]) is the function's whole structure: every op (its name, its operands by position
//! in the function, its result and block-argument types, every attribute but the function's `sym_name`,
//! its regions, blocks and successors), whether the simplifier counts it as dead, and each value's use list in
//! use order (the emitter looks for an op it may keep among a value's users in that order). Names, types and
//! attributes are uniqued by the MLIR context, so their addresses compare them. Equal keys are two copies of
//! one function up to the identity of its values.
//!
//! A round records what it did to a function ([`Action`]: the unproved conditions of each planned root, and
//! each plan it emitted — the expression, the ops it frees, the rules that fired — with values and ops
//! numbered within the function, ops the round creates numbered after the existing ones in creation order).
//! On a copy the same emission runs ([`super::apply_plan`]), so it creates the same ops in the same order
//! with the same locations (the root's) as planning it would have: the output is byte-identical.
//!
//! Off with `verify-rewrites` (each rewrite is validated, and reported, exactly as without the memo), under
//! `RUST_LOG=lego=debug` (its log names each rule as it fires) and once the solver's wall-clock safety net
//! decided a condition (its answers are then not cached, so a copy could be answered differently).

use super::{
    cost::Expr,
    ir::{self, HashMap, HashSet, Key},
};
use mlir_sys::{MlirBlock, MlirOperation, MlirValue};

/// What a round did to one function, in order.
#[derive(Clone, Debug)]
pub enum Action {
    /// Side conditions a planned root could not prove (its plan's `unproved`, for the summary).
    Unproved(Vec<String>),
    /// A plan that was emitted for the root `root`: `expr` with [`Expr::Value`] naming values by number,
    /// `freed` the ops the replaced root frees (by number), `rules` the rules that fired.
    Emit { root: u32, expr: Expr, freed: Vec<u32>, rules: Vec<&'static str> },
}

/// A function's round, recorded.
pub struct Entry {
    pub actions: Vec<Action>,
}

/// Values and ops of one function by number (walk order; ops a round creates appended in creation order).
#[derive(Default)]
pub struct Numbering {
    values: Vec<MlirValue>,
    value_ids: HashMap<Key, u32>,
    ops: Vec<MlirOperation>,
    op_ids: HashMap<Key, u32>,
    blocks: HashMap<Key, u32>,
}

impl Numbering {
    fn add_value(&mut self, value: MlirValue) {
        self.value_ids.insert(ir::key(value), self.values.len() as u32);
        self.values.push(value);
    }

    fn add_op(&mut self, op: MlirOperation) {
        self.op_ids.insert(ir::op_key(op), self.ops.len() as u32);
        self.ops.push(op);
        for index in 0..ir::result_count(op) {
            if let Some(value) = ir::result(op, index) {
                self.add_value(value);
            }
        }
    }

    /// Numbers the ops a rewrite created (after everything numbered so far, in creation order).
    pub fn add_created(&mut self, created: &[MlirOperation]) {
        for op in created {
            self.add_op(*op);
        }
    }

    pub fn value_id(&self, value: MlirValue) -> Option<u32> {
        self.value_ids.get(&ir::key(value)).copied()
    }

    pub fn op_id(&self, op: MlirOperation) -> Option<u32> {
        self.op_ids.get(&ir::op_key(op)).copied()
    }

    pub fn value(&self, id: u32) -> Option<MlirValue> {
        self.values.get(id as usize).copied()
    }

    pub fn op(&self, id: u32) -> Option<MlirOperation> {
        self.ops.get(id as usize).copied()
    }

    /// `expr` with each value named by its number (`None` when one is not numbered).
    pub fn to_local(&self, expr: &Expr, values: &HashMap<Key, MlirValue>) -> Option<Expr> {
        Some(match expr {
            Expr::Const(constant) => Expr::Const(*constant),
            Expr::Value(key) => Expr::Value(self.value_id(*values.get(key)?)? as Key),
            Expr::Bin(kind, a, b) => Expr::Bin(*kind, std::rc::Rc::new(self.to_local(a, values)?), std::rc::Rc::new(self.to_local(b, values)?)),
        })
    }

    /// `expr` (values by number) with the values of this function, and the map from their keys to them.
    pub fn from_local(&self, expr: &Expr, values: &mut HashMap<Key, MlirValue>) -> Option<Expr> {
        Some(match expr {
            Expr::Const(constant) => Expr::Const(*constant),
            Expr::Value(id) => {
                let value = self.value(*id as u32)?;
                values.insert(ir::key(value), value);
                Expr::Value(ir::key(value))
            }
            Expr::Bin(kind, a, b) => Expr::Bin(*kind, std::rc::Rc::new(self.from_local(a, values)?), std::rc::Rc::new(self.from_local(b, values)?)),
        })
    }
}

/// The recorded rounds by function structure (one run of the pass).
#[derive(Default)]
pub struct Memo {
    entries: HashMap<Vec<u64>, std::rc::Rc<Entry>>,
    /// Whether the memo may be used at all in this run (see the module comment).
    pub enabled: bool,
}

impl Memo {
    pub fn new(enabled: bool) -> Memo {
        Memo { entries: HashMap::default(), enabled }
    }

    pub fn get(&self, key: &[u64]) -> Option<std::rc::Rc<Entry>> {
        self.entries.get(key).cloned()
    }

    pub fn insert(&mut self, key: Vec<u64>, entry: Entry) {
        self.entries.insert(key, std::rc::Rc::new(entry));
    }
}

/// Records a round's actions on one function.
pub struct Recorder {
    pub numbering: Numbering,
    pub actions: Vec<Action>,
    /// False once something could not be numbered (the round is then not recorded).
    pub valid: bool,
}

impl Recorder {
    pub fn new(numbering: Numbering) -> Recorder {
        Recorder { numbering, actions: Vec::new(), valid: true }
    }

    pub fn unproved(&mut self, unproved: &[String]) {
        if !unproved.is_empty() {
            self.actions.push(Action::Unproved(unproved.to_vec()));
        }
    }

    pub fn emit(
        &mut self,
        root: MlirValue,
        expr: &Expr,
        values: &HashMap<Key, MlirValue>,
        freed: &[MlirOperation],
        rules: &[&'static str],
    ) {
        let root = self.numbering.value_id(root);
        let expr = self.numbering.to_local(expr, values);
        let freed: Option<Vec<u32>> = freed.iter().map(|op| self.numbering.op_id(*op)).collect();
        match (root, expr, freed) {
            (Some(root), Some(expr), Some(freed)) => self.actions.push(Action::Emit { root, expr, freed, rules: rules.to_vec() }),
            _ => self.valid = false,
        }
    }
}

const OP: u64 = 1;
const REGION: u64 = 2;
const BLOCK: u64 = 3;
const END: u64 = 4;

/// The structural key of `unit` (a `func.func`) and its numbering; `None` when an operand or successor lies
/// outside it (not a function isolated from above).
pub fn structure(unit: MlirOperation, dead: &HashSet<Key>) -> Option<(Vec<u64>, Numbering)> {
    let mut numbering = Numbering::default();
    number(unit, &mut numbering);
    let mut words = Vec::with_capacity(numbering.ops.len() * 12);
    emit_op(unit, true, dead, &numbering, &mut words)?;
    Some((words, numbering))
}

fn block_arguments(block: MlirBlock) -> impl Iterator<Item = MlirValue> {
    let count = unsafe { mlir_sys::mlirBlockGetNumArguments(block) };
    (0..count).map(move |index| unsafe { mlir_sys::mlirBlockGetArgument(block, index) })
}

fn number(op: MlirOperation, numbering: &mut Numbering) {
    numbering.add_op(op);
    for blocks in ir::region_blocks(op) {
        for block in blocks {
            numbering.blocks.insert(ir::block_key(block), numbering.blocks.len() as u32);
            for argument in block_arguments(block) {
                numbering.add_value(argument);
            }
            for nested in ir::block_ops(block) {
                number(nested, numbering);
            }
        }
    }
}

/// A value's type and its uses in use-list order (user by number, operand position).
fn emit_value(value: MlirValue, numbering: &Numbering, words: &mut Vec<u64>) -> Option<()> {
    words.push(ir::value_type(value).ptr as u64);
    let mut operand = unsafe { mlir_sys::mlirValueGetFirstUse(value) };
    let mark = words.len();
    words.push(0);
    let mut uses = 0;
    while !unsafe { mlir_sys::mlirOpOperandIsNull(operand) } {
        let owner = unsafe { mlir_sys::mlirOpOperandGetOwner(operand) };
        words.push(numbering.op_id(owner)? as u64);
        words.push(unsafe { mlir_sys::mlirOpOperandGetOperandNumber(operand) } as u64);
        uses += 1;
        operand = unsafe { mlir_sys::mlirOpOperandGetNextUse(operand) };
    }
    words[mark] = uses;
    Some(())
}

fn emit_op(op: MlirOperation, is_unit: bool, dead: &HashSet<Key>, numbering: &Numbering, words: &mut Vec<u64>) -> Option<()> {
    words.push(OP);
    words.push(unsafe { mlir_sys::mlirOperationGetName(op) }.ptr as u64);
    words.push(dead.contains(&ir::op_key(op)) as u64);
    let operands = ir::operand_count(op);
    words.push(operands as u64);
    for index in 0..operands {
        let value = unsafe { mlir_sys::mlirOperationGetOperand(op, index as isize) };
        words.push(numbering.value_id(value)? as u64);
    }
    let results = ir::result_count(op);
    words.push(results as u64);
    for index in 0..results {
        emit_value(unsafe { mlir_sys::mlirOperationGetResult(op, index as isize) }, numbering, words)?;
    }
    let attributes = unsafe { mlir_sys::mlirOperationGetNumAttributes(op) };
    let mark = words.len();
    words.push(0);
    let mut kept = 0;
    for index in 0..attributes {
        let named = unsafe { mlir_sys::mlirOperationGetAttribute(op, index) };
        // The function's own name is no part of what the simplifier reads.
        if is_unit && ir::identifier_str(named.name) == "sym_name" {
            continue;
        }
        words.push(named.name.ptr as u64);
        words.push(named.attribute.ptr as u64);
        kept += 1;
    }
    words[mark] = kept;
    let successors = unsafe { mlir_sys::mlirOperationGetNumSuccessors(op) };
    words.push(successors as u64);
    for index in 0..successors {
        let block = unsafe { mlir_sys::mlirOperationGetSuccessor(op, index) };
        words.push(*numbering.blocks.get(&ir::block_key(block))? as u64);
    }
    for blocks in ir::region_blocks(op) {
        words.push(REGION);
        words.push(blocks.len() as u64);
        for block in blocks {
            words.push(BLOCK);
            let arguments = unsafe { mlir_sys::mlirBlockGetNumArguments(block) };
            words.push(arguments as u64);
            for argument in block_arguments(block) {
                emit_value(argument, numbering, words)?;
            }
            for nested in ir::block_ops(block) {
                emit_op(nested, false, dead, numbering, words)?;
            }
            words.push(END);
        }
    }
    words.push(END);
    Some(())
}
