//! Thin, lifetime-free access to the IR the simplifier reads and writes (raw MLIR C API handles).
//!
//! The simplifier keys values and ops by their handle addresses while one analysis is alive. It never erases
//! an op while an analysis that may have seen it is alive (erasure is deferred to the end of a round), so a
//! freed address is never reused under a live key.

use mlir_sys::{
    mlirAttributeIsADenseI32Array, mlirAttributeIsADenseI64Array, mlirAttributeIsAInteger, mlirAttributeIsAUnit,
    mlirBlockArgumentGetArgNumber, mlirBlockArgumentGetOwner, mlirBlockGetParentOperation, mlirDenseArrayGetNumElements,
    mlirDenseI32ArrayGetElement, mlirDenseI64ArrayGetElement, mlirIdentifierStr, mlirIntegerAttrGetValueInt,
    mlirIntegerTypeGetWidth, mlirOpOperandGetNextUse, mlirOpOperandGetOwner, mlirOpOperandIsNull, mlirOpResultGetOwner,
    mlirOperationGetAttributeByName, mlirOperationGetBlock, mlirOperationGetName, mlirOperationGetNumOperands,
    mlirOperationGetNumResults, mlirOperationGetOperand, mlirOperationGetParentOperation, mlirOperationGetResult,
    mlirOperationIsBeforeInBlock, mlirTypeIsAIndex, mlirTypeIsAInteger, mlirValueGetFirstUse, mlirValueGetType,
    mlirValueIsABlockArgument, mlirValueIsAOpResult, MlirAttribute, MlirBlock, MlirOperation, MlirStringRef, MlirType,
    MlirValue,
};

/// Identity of a value while the IR holding it is not modified in a way that frees it.
pub type Key = usize;

pub fn key(value: MlirValue) -> Key {
    value.ptr as usize
}

pub fn op_key(op: MlirOperation) -> Key {
    op.ptr as usize
}

pub fn block_key(block: MlirBlock) -> Key {
    block.ptr as usize
}

fn string(text: MlirStringRef) -> &'static str {
    if text.data.is_null() {
        return "";
    }
    // SAFETY: MLIR string refs point at uniqued, context-owned storage that outlives every analysis here.
    let bytes = unsafe { std::slice::from_raw_parts(text.data as *const u8, text.length) };
    std::str::from_utf8(bytes).unwrap_or("")
}

/// The text of an identifier (uniqued by the context).
pub fn identifier_str(identifier: mlir_sys::MlirIdentifier) -> &'static str {
    // SAFETY: `identifier` is a live identifier handle.
    string(unsafe { mlirIdentifierStr(identifier) })
}

pub fn op_name(op: MlirOperation) -> &'static str {
    // SAFETY: `op` is a live operation handle.
    string(unsafe { mlirIdentifierStr(mlirOperationGetName(op)) })
}

pub fn is_null_op(op: MlirOperation) -> bool {
    op.ptr.is_null()
}

pub fn operand_count(op: MlirOperation) -> usize {
    unsafe { mlirOperationGetNumOperands(op) as usize }
}

pub fn operand(op: MlirOperation, index: usize) -> Option<MlirValue> {
    (index < operand_count(op)).then(|| unsafe { mlirOperationGetOperand(op, index as isize) })
}

pub fn operands(op: MlirOperation) -> Vec<MlirValue> {
    (0..operand_count(op)).map(|index| unsafe { mlirOperationGetOperand(op, index as isize) }).collect()
}

pub fn result_count(op: MlirOperation) -> usize {
    unsafe { mlirOperationGetNumResults(op) as usize }
}

pub fn result(op: MlirOperation, index: usize) -> Option<MlirValue> {
    (index < result_count(op)).then(|| unsafe { mlirOperationGetResult(op, index as isize) })
}

/// The op defining `value`, when it is an op result.
pub fn defining_op(value: MlirValue) -> Option<MlirOperation> {
    unsafe { mlirValueIsAOpResult(value) }.then(|| unsafe { mlirOpResultGetOwner(value) })
}

/// `(owner block, argument number)` when `value` is a block argument.
pub fn block_argument(value: MlirValue) -> Option<(MlirBlock, usize)> {
    unsafe { mlirValueIsABlockArgument(value) }
        .then(|| unsafe { (mlirBlockArgumentGetOwner(value), mlirBlockArgumentGetArgNumber(value) as usize) })
}

/// The block in which `value` is defined (its op's block, or the block owning the argument).
pub fn defining_block(value: MlirValue) -> Option<MlirBlock> {
    if let Some(op) = defining_op(value) {
        return op_block(op);
    }
    block_argument(value).map(|(block, _)| block)
}

pub fn op_block(op: MlirOperation) -> Option<MlirBlock> {
    let block = unsafe { mlirOperationGetBlock(op) };
    (!block.ptr.is_null()).then_some(block)
}

pub fn block_parent_op(block: MlirBlock) -> Option<MlirOperation> {
    let op = unsafe { mlirBlockGetParentOperation(block) };
    (!op.ptr.is_null()).then_some(op)
}

pub fn parent_op(op: MlirOperation) -> Option<MlirOperation> {
    let parent = unsafe { mlirOperationGetParentOperation(op) };
    (!parent.ptr.is_null()).then_some(parent)
}

/// Nearest enclosing op (including `op` itself) named `name`.
pub fn enclosing(op: MlirOperation, name: &str) -> Option<MlirOperation> {
    let mut current = Some(op);
    while let Some(candidate) = current {
        if op_name(candidate) == name {
            return Some(candidate);
        }
        current = parent_op(candidate);
    }
    None
}

pub fn value_type(value: MlirValue) -> MlirType {
    unsafe { mlirValueGetType(value) }
}

/// Bit width of an integer-like type (`index` is 64 bits on every target we lower to).
pub fn type_width(r#type: MlirType) -> Option<u32> {
    unsafe {
        if mlirTypeIsAIndex(r#type) {
            Some(64)
        } else if mlirTypeIsAInteger(r#type) {
            Some(mlirIntegerTypeGetWidth(r#type))
        } else {
            None
        }
    }
}

pub fn width(value: MlirValue) -> Option<u32> {
    type_width(value_type(value))
}

pub fn attribute(op: MlirOperation, name: &str) -> Option<MlirAttribute> {
    let name = melior::StringRef::new(name);
    let attribute = unsafe { mlirOperationGetAttributeByName(op, name.to_raw()) };
    (!attribute.ptr.is_null()).then_some(attribute)
}

/// Whether `op` carries `name` as an attribute or a (unit) property, such as `disjoint` of
/// `affine.linearize_index`.
pub fn has_flag(op: MlirOperation, name: &str) -> bool {
    if attribute(op, name).is_some() {
        return true;
    }
    let text = melior::StringRef::new(name);
    let inherent = unsafe { mlir_sys::mlirOperationGetInherentAttributeByName(op, text.to_raw()) };
    if !inherent.ptr.is_null() {
        return true;
    }
    // Unit properties may not convert to an attribute: read the printed properties. Printed from a detached
    // clone: printing the op in place numbers every value of its enclosing function (an AsmState per call,
    // quadratic over a large function), a lone clone costs its own size. Only region-free ops (affine index
    // ops) are read this way.
    if unsafe { mlir_sys::mlirOperationGetNumRegions(op) } != 0 {
        return false;
    }
    let clone = unsafe { mlir_sys::mlirOperationClone(op) };
    let printed = unsafe { melior::ir::OperationRef::from_raw(clone) };
    use melior::ir::operation::OperationLike;
    let flags = melior::ir::operation::OperationPrintingFlags::new().print_generic_operation_form().use_local_scope();
    let found = printed
        .to_string_with_flags(flags)
        .ok()
        .and_then(|text| text.split_once("<{").map(|(_, rest)| rest.split("}>").next().unwrap_or("").to_string()))
        .is_some_and(|properties| properties.split(',').any(|entry| entry.trim() == name));
    unsafe { mlir_sys::mlirOperationDestroy(clone) };
    found
}

pub fn has_unit_attribute(op: MlirOperation, name: &str) -> bool {
    attribute(op, name).is_some_and(|attribute| unsafe { mlirAttributeIsAUnit(attribute) })
}

pub fn integer_attribute(op: MlirOperation, name: &str) -> Option<i64> {
    let attribute = attribute(op, name)?;
    unsafe { mlirAttributeIsAInteger(attribute) }.then(|| unsafe { mlirIntegerAttrGetValueInt(attribute) })
}

/// Elements of a `array<i32: ...>` or `array<i64: ...>` attribute.
pub fn dense_array(op: MlirOperation, name: &str) -> Option<Vec<i64>> {
    let attribute = attribute(op, name)?;
    unsafe {
        if mlirAttributeIsADenseI32Array(attribute) {
            let count = mlirDenseArrayGetNumElements(attribute);
            Some((0..count).map(|index| mlirDenseI32ArrayGetElement(attribute, index) as i64).collect())
        } else if mlirAttributeIsADenseI64Array(attribute) {
            let count = mlirDenseArrayGetNumElements(attribute);
            Some((0..count).map(|index| mlirDenseI64ArrayGetElement(attribute, index)).collect())
        } else {
            None
        }
    }
}

/// Printed form of an attribute (for enum attributes the C API cannot read, e.g. `#gpu<dim x>`).
pub fn attribute_text(attribute: MlirAttribute) -> String {
    unsafe { melior::ir::Attribute::from_raw(attribute) }.to_string()
}

/// The value of an integer `arith.constant`, as an unsigned number of the value's width.
pub fn constant_value(value: MlirValue) -> Option<u64> {
    let op = defining_op(value)?;
    if op_name(op) != "arith.constant" {
        return None;
    }
    let width = width(value)?;
    let raw = integer_attribute(op, "value")? as u64;
    Some(if width >= 64 { raw } else { raw & ((1u64 << width) - 1) })
}

/// The ops using `value` (with repetition when it is used several times by one op).
pub fn users(value: MlirValue) -> Vec<MlirOperation> {
    let mut users = Vec::new();
    let mut operand = unsafe { mlirValueGetFirstUse(value) };
    while !unsafe { mlirOpOperandIsNull(operand) } {
        users.push(unsafe { mlirOpOperandGetOwner(operand) });
        operand = unsafe { mlirOpOperandGetNextUse(operand) };
    }
    users
}

/// The first `limit` users of `value`, or `None` when it has more (bounded work for widely shared values).
pub fn users_up_to(value: MlirValue, limit: usize) -> Option<Vec<MlirOperation>> {
    let mut users = Vec::new();
    let mut operand = unsafe { mlirValueGetFirstUse(value) };
    while !unsafe { mlirOpOperandIsNull(operand) } {
        if users.len() == limit {
            return None;
        }
        users.push(unsafe { mlirOpOperandGetOwner(operand) });
        operand = unsafe { mlirOpOperandGetNextUse(operand) };
    }
    Some(users)
}

pub fn has_uses(value: MlirValue) -> bool {
    !unsafe { mlirOpOperandIsNull(mlirValueGetFirstUse(value)) }
}

/// Whether `value` is available at `op` (defined before it in the same block, or in an enclosing block:
/// structured-region dominance, conservative for multi-block regions).
pub fn dominates(value: MlirValue, op: MlirOperation) -> bool {
    let Some(def_block) = defining_block(value) else { return false };
    let def_op = defining_op(value);
    let mut current = op;
    loop {
        let Some(block) = op_block(current) else { return false };
        if block_key(block) == block_key(def_block) {
            return match def_op {
                None => true,
                Some(def) => op_key(def) != op_key(current) && unsafe { mlirOperationIsBeforeInBlock(def, current) },
            };
        }
        match block_parent_op(block) {
            Some(parent) => current = parent,
            None => return false,
        }
    }
}

/// Whether `block` is `op`'s block or encloses it.
pub fn block_encloses(block: MlirBlock, op: MlirOperation) -> bool {
    let mut current = op;
    loop {
        let Some(inner) = op_block(current) else { return false };
        if block_key(inner) == block_key(block) {
            return true;
        }
        match block_parent_op(inner) {
            Some(parent) => current = parent,
            None => return false,
        }
    }
}

/// Whether `op` is a fact `lego-to-arith{assume-bounds=true}` stated from a layout's contract.
pub fn is_layout_contract_fact(op: MlirOperation) -> bool {
    op_name(op) == "lego.assume_bounds" && attribute(op, lego_dialect::ops::LAYOUT_CONTRACT_ATTR).is_some()
}

/// Removes `op` from its block and destroys it.
pub fn erase(op: MlirOperation) {
    unsafe {
        mlir_sys::mlirOperationRemoveFromParent(op);
        mlir_sys::mlirOperationDestroy(op);
    }
}

/// Erases the ops of `ops` that `erasable` accepts once their results are unused, repeatedly, so that users
/// go before their operands whatever the order of `ops`. An op listed twice (two `lego.assume`s of one
/// condition, merged by CSE) is erased once: erasing it again would free it twice.
pub fn erase_unused(ops: &[MlirOperation], erasable: impl Fn(MlirOperation) -> bool) {
    let mut seen = std::collections::HashSet::new();
    let mut remaining: Vec<MlirOperation> = ops.iter().copied().filter(|op| seen.insert(op_key(*op))).collect();
    loop {
        let before = remaining.len();
        remaining.retain(|op| {
            let unused = (0..result_count(*op)).all(|index| result(*op, index).map_or(true, |v| !has_uses(v)));
            if unused && erasable(*op) {
                erase(*op);
                false
            } else {
                true
            }
        });
        if remaining.len() == before {
            break;
        }
    }
}

/// The blocks of each region of `op`, regions and blocks in order.
pub fn region_blocks(op: MlirOperation) -> Vec<Vec<MlirBlock>> {
    let count = unsafe { mlir_sys::mlirOperationGetNumRegions(op) };
    (0..count)
        .map(|index| {
            let region = unsafe { mlir_sys::mlirOperationGetRegion(op, index) };
            let mut blocks = Vec::new();
            let mut block = unsafe { mlir_sys::mlirRegionGetFirstBlock(region) };
            while !block.ptr.is_null() {
                blocks.push(block);
                block = unsafe { mlir_sys::mlirBlockGetNextInRegion(block) };
            }
            blocks
        })
        .collect()
}

/// The ops of `block`, in order.
pub fn block_ops(block: MlirBlock) -> impl Iterator<Item = MlirOperation> {
    let mut op = unsafe { mlir_sys::mlirBlockGetFirstOperation(block) };
    std::iter::from_fn(move || {
        if op.ptr.is_null() {
            return None;
        }
        let current = op;
        op = unsafe { mlir_sys::mlirOperationGetNextInBlock(op) };
        Some(current)
    })
}

/// The ops directly in the regions of `op` (not nested deeper), in IR order.
pub fn child_ops(op: MlirOperation) -> Vec<MlirOperation> {
    region_blocks(op).into_iter().flatten().flat_map(block_ops).collect()
}

/// Visits every op nested in `root` (not `root` itself), parents before children, in IR order.
pub fn walk(root: MlirOperation, visit: &mut dyn FnMut(MlirOperation)) {
    let root = unsafe { melior::ir::OperationRef::from_raw(root) };
    lego_dialect::ops::walk_ops(root, &mut |op| {
        if op.to_raw().ptr != root.to_raw().ptr {
            visit(op.to_raw());
        }
    });
}

/// Whether op `a` dominates op `b` in structured code: `a` is in a block enclosing `b`, before the op of that
/// block that holds `b`.
pub fn op_dominates(a: MlirOperation, b: MlirOperation) -> bool {
    let Some(block) = op_block(a) else { return false };
    let mut current = b;
    loop {
        let Some(inner) = op_block(current) else { return false };
        if block_key(inner) == block_key(block) {
            return op_key(current) != op_key(a) && unsafe { mlirOperationIsBeforeInBlock(a, current) };
        }
        match block_parent_op(inner) {
            Some(parent) => current = parent,
            None => return false,
        }
    }
}

/// Hash maps and sets of the simplifier. Its keys are handle addresses, atom ids and small polynomials, hashed
/// millions of times per module: std's SipHash (DoS-resistant, slow on short keys) showed up in profiles. The
/// inputs are the user's own IR, so a fast multiplicative hash is enough; iteration order never decides output
/// (it was random per run before).
pub type HashMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<FastHasher>>;
pub type HashSet<K> = std::collections::HashSet<K, std::hash::BuildHasherDefault<FastHasher>>;

/// A word-at-a-time multiplicative hash (the Fx construction: rotate, xor, multiply by an odd constant).
#[derive(Clone, Copy, Default)]
pub struct FastHasher {
    hash: u64,
}

impl FastHasher {
    const MULTIPLIER: u64 = 0xf135_7aea_2e62_a9c5;

    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(Self::MULTIPLIER);
    }
}

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
        }
    }
    fn write_u8(&mut self, value: u8) {
        self.add(value as u64);
    }
    fn write_u16(&mut self, value: u16) {
        self.add(value as u64);
    }
    fn write_u32(&mut self, value: u32) {
        self.add(value as u64);
    }
    fn write_u64(&mut self, value: u64) {
        self.add(value);
    }
    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }
    fn finish(&self) -> u64 {
        // The product's entropy is in its high bits; the table indexes buckets by the low ones (addresses as
        // keys have zero low bits).
        self.hash.rotate_left(26)
    }
}
