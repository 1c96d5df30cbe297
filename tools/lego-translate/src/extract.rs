//! Lowered MLIR → [`program`](crate::program) form. Reads the ops `lego-lower` leaves (`arith` on `index`,
//! `scf.if`, `arith.select`, `affine.delinearize_index`/`linearize_index`) and rejects anything else with a
//! located error naming the op. Works on raw C API handles: the module outlives every handle used here.

use crate::program::{BinOp, Expr, Function, LogicOp, Origin, Pred, Stmt, Ty, UnOp};
use mlir_sys::*;
use std::collections::HashMap;

/// A located failure: the op (or function) that cannot be translated and why.
pub struct ExtractError {
    pub location: MlirLocation,
    pub message: String,
}

/// The functions of one module, and the locations [`Origin`]s point to.
pub struct Extracted {
    pub functions: Vec<Function>,
    pub origins: Vec<MlirLocation>,
}

/// An inlined value grows up to this many operations before it gets a variable of its own (readability).
const INLINE_LIMIT: usize = 6;

/// `origins` is the table the locations of the extracted ops are appended to (it may hold others already).
pub fn extract_module(module: MlirOperation, file_name: &str, source: &str, origins: Vec<MlirLocation>) -> Result<Extracted, ExtractError> {
    // Indexed once: looking a line up must not rescan the file for every argument.
    let mut extractor = Extractor { origins, file_name, lines: source.lines().collect() };
    let mut functions = Vec::new();
    let body = unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0)) };
    for op in block_ops(body) {
        let name = op_name(op);
        if name != "func.func" {
            return Err(ExtractError {
                location: unsafe { mlirOperationGetLocation(op) },
                message: format!("'{name}' op at module level: lego-translate translates func.func ops only"),
            });
        }
        functions.push(extractor.function(op)?);
    }
    Ok(Extracted { functions, origins: extractor.origins })
}

struct Extractor<'s> {
    origins: Vec<MlirLocation>,
    file_name: &'s str,
    lines: Vec<&'s str>,
}

struct FunctionState {
    entry: MlirBlock,
    values: HashMap<*const std::ffi::c_void, Expr>,
    vars: Vec<Ty>,
}

impl Extractor<'_> {
    fn origin(&mut self, op: MlirOperation) -> Origin {
        self.origins.push(unsafe { mlirOperationGetLocation(op) });
        self.origins.len() - 1
    }

    fn function(&mut self, func: MlirOperation) -> Result<Function, ExtractError> {
        let location = unsafe { mlirOperationGetLocation(func) };
        let origin = self.origin(func);
        let name = string_attribute(func, "sym_name").unwrap_or_default();
        let fail = |message: String| ExtractError { location, message };
        let region = unsafe { mlirOperationGetRegion(func, 0) };
        let entry = unsafe { mlirRegionGetFirstBlock(region) };
        if entry.ptr.is_null() {
            return Err(fail(format!("function @{name} has no body (a declaration cannot be translated)")));
        }
        if !unsafe { mlirBlockGetNextInRegion(entry) }.ptr.is_null() {
            return Err(fail(format!(
                "function @{name} has several blocks: lego-translate prints structured code (scf.if), not branches"
            )));
        }
        let count = unsafe { mlirBlockGetNumArguments(entry) } as usize;
        let mut params = Vec::with_capacity(count);
        for index in 0..count {
            let argument = unsafe { mlirBlockGetArgument(entry, index as isize) };
            let r#type = unsafe { mlirValueGetType(argument) };
            if !unsafe { mlirTypeIsAIndex(r#type) } {
                return Err(fail(format!(
                    "function @{name}: argument #{index} has type '{}'; only 'index' arguments and results can be translated",
                    type_text(r#type)
                )));
            }
            params.push(self.argument_name(argument).unwrap_or_else(|| format!("arg{index}")));
        }
        let mut state = FunctionState { entry, values: HashMap::new(), vars: Vec::new() };
        let (body, results) = self.block(&mut state, entry, &name)?;
        let Some(results) = results else {
            return Err(fail(format!("function @{name} does not end in func.return")));
        };
        let result_count = results.len();
        let mut body = body;
        body.push(Stmt::Return(results));
        Ok(Function { name, origin, params, results: result_count, body, domain: Default::default() })
    }

    /// The user's SSA name of a function argument (`%i` → `i`), read at the argument's location in the source.
    fn argument_name(&self, argument: MlirValue) -> Option<String> {
        let location = unsafe { melior::ir::Location::from_raw(mlirValueGetLocation(argument)) };
        let (file, line, column) = crate::diagnostics::file_line_column(location)?;
        // Locations printed into an intermediate file point at another text.
        if file != self.file_name {
            return None;
        }
        let text = self.lines.get(line.checked_sub(1)?)?;
        let rest = text.get(column.checked_sub(1)?..)?.strip_prefix('%')?;
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        (!name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit())).then_some(name)
    }

    /// Translates the ops of `block`; returns the statements and the operands of its terminator
    /// (`func.return` / `scf.yield`).
    fn block(&mut self, state: &mut FunctionState, block: MlirBlock, function: &str) -> Result<(Vec<Stmt>, Option<Vec<Expr>>), ExtractError> {
        let mut body = Vec::new();
        for op in block_ops(block) {
            let name = op_name(op);
            let location = unsafe { mlirOperationGetLocation(op) };
            let fail = |message: String| ExtractError { location, message };
            match name.as_str() {
                "func.return" => {
                    for (index, value) in operands(op).into_iter().enumerate() {
                        let r#type = unsafe { mlirValueGetType(value) };
                        if !unsafe { mlirTypeIsAIndex(r#type) } {
                            return Err(fail(format!(
                                "function @{function}: result #{index} has type '{}'; only 'index' arguments and results can be translated",
                                type_text(r#type)
                            )));
                        }
                    }
                    let values = operands(op).into_iter().map(|v| self.operand(state, v, op)).collect::<Result<Vec<_>, _>>()?;
                    return Ok((body, Some(values)));
                }
                "scf.yield" => {
                    let values = operands(op).into_iter().map(|v| self.operand(state, v, op)).collect::<Result<Vec<_>, _>>()?;
                    return Ok((body, Some(values)));
                }
                "arith.constant" => {
                    let result = result(op, 0);
                    let attribute = unsafe { mlirOperationGetAttributeByName(op, string_ref("value")) };
                    let r#type = unsafe { mlirValueGetType(result) };
                    let value = if unsafe { mlirTypeIsAIndex(r#type) } && unsafe { mlirAttributeIsAInteger(attribute) } {
                        let origin = self.origin(op);
                        Expr::Const(unsafe { mlirIntegerAttrGetValueInt(attribute) } as u64, origin)
                    } else if is_i1(r#type) && unsafe { mlirAttributeIsAInteger(attribute) } {
                        Expr::Bool(unsafe { mlirIntegerAttrGetValueInt(attribute) } != 0)
                    } else {
                        return Err(fail(format!(
                            "'arith.constant' of type '{}': only 'index' (and 'i1') values can be translated",
                            type_text(r#type)
                        )));
                    };
                    state.values.insert(result.ptr, value);
                }
                "scf.if" => self.scf_if(state, op, function, &mut body)?,
                "affine.delinearize_index" => self.delinearize(state, op, &mut body)?,
                "affine.linearize_index" => {
                    let value = self.linearize(state, op)?;
                    self.define(state, op, 0, value, &mut body)?;
                }
                _ => {
                    let value = self.simple_op(state, op, &name)?;
                    self.define(state, op, 0, value, &mut body)?;
                }
            }
        }
        Ok((body, None))
    }

    fn simple_op(&mut self, state: &mut FunctionState, op: MlirOperation, name: &str) -> Result<Expr, ExtractError> {
        let location = unsafe { mlirOperationGetLocation(op) };
        let fail = |message: String| ExtractError { location, message };
        if unsafe { mlirOperationGetNumResults(op) } != 1 {
            return Err(fail(unsupported(name)));
        }
        let result_type = unsafe { mlirValueGetType(result(op, 0)) };
        let values = operands(op);
        let binary = match name {
            "arith.addi" => Some(BinOp::Add),
            "arith.subi" => Some(BinOp::Sub),
            "arith.muli" => Some(BinOp::Mul),
            "arith.divui" => Some(BinOp::DivU),
            "arith.remui" => Some(BinOp::RemU),
            "arith.ceildivui" => Some(BinOp::CeilDivU),
            "arith.divsi" => Some(BinOp::DivS),
            "arith.remsi" => Some(BinOp::RemS),
            "arith.floordivsi" => Some(BinOp::FloorDivS),
            "arith.ceildivsi" => Some(BinOp::CeilDivS),
            "arith.shli" => Some(BinOp::Shl),
            "arith.shrui" => Some(BinOp::ShrU),
            "arith.shrsi" => Some(BinOp::ShrS),
            "arith.andi" => Some(BinOp::And),
            "arith.ori" => Some(BinOp::Or),
            "arith.xori" => Some(BinOp::Xor),
            "arith.minui" => Some(BinOp::MinU),
            "arith.maxui" => Some(BinOp::MaxU),
            "arith.minsi" => Some(BinOp::MinS),
            "arith.maxsi" => Some(BinOp::MaxS),
            _ => None,
        };
        if let Some(binary) = binary {
            let a = self.operand(state, values[0], op)?;
            let b = self.operand(state, values[1], op)?;
            if is_i1(result_type) {
                let logic = match binary {
                    BinOp::And => LogicOp::And,
                    BinOp::Or => LogicOp::Or,
                    BinOp::Xor => LogicOp::Xor,
                    _ => return Err(fail(format!("'{name}' on 'i1' values cannot be translated"))),
                };
                return Ok(Expr::Logic(logic, Box::new(a), Box::new(b)));
            }
            if !unsafe { mlirTypeIsAIndex(result_type) } {
                return Err(fail(wrong_type(name, result_type)));
            }
            let origin = self.origin(op);
            // `addi x, -c` reads better as `x - c` (equal in every language: modular or exact integers).
            let (binary, b) = match (binary, &b) {
                (BinOp::Add | BinOp::Sub, Expr::Const(value, at)) if (*value as i64) < 0 && *value != i64::MIN as u64 => {
                    let flipped = if binary == BinOp::Add { BinOp::Sub } else { BinOp::Add };
                    (flipped, Expr::Const(value.wrapping_neg(), *at))
                }
                _ => (binary, b),
            };
            return Ok(Expr::Bin(binary, Box::new(a), Box::new(b), origin));
        }
        let unary = match name {
            "math.ctlz" => Some(UnOp::Ctlz),
            "math.cttz" => Some(UnOp::Cttz),
            "math.ctpop" => Some(UnOp::Ctpop),
            _ => None,
        };
        if let Some(unary) = unary {
            if !unsafe { mlirTypeIsAIndex(result_type) } {
                return Err(fail(wrong_type(name, result_type)));
            }
            let a = self.operand(state, values[0], op)?;
            let origin = self.origin(op);
            return Ok(Expr::Unary(unary, Box::new(a), origin));
        }
        match name {
            "arith.cmpi" => {
                if !unsafe { mlirTypeIsAIndex(mlirValueGetType(values[0])) } {
                    return Err(fail(wrong_type(name, unsafe { mlirValueGetType(values[0]) })));
                }
                let attribute = unsafe { mlirOperationGetAttributeByName(op, string_ref("predicate")) };
                let predicate = unsafe { mlirAttributeIsAInteger(attribute) }
                    .then(|| Pred::from_mlir(unsafe { mlirIntegerAttrGetValueInt(attribute) }))
                    .flatten()
                    .ok_or_else(|| fail("'arith.cmpi' with an unknown predicate".to_string()))?;
                let a = self.operand(state, values[0], op)?;
                let b = self.operand(state, values[1], op)?;
                let origin = self.origin(op);
                Ok(Expr::Cmp(predicate, Box::new(a), Box::new(b), origin))
            }
            "arith.select" => {
                if !(unsafe { mlirTypeIsAIndex(result_type) } || is_i1(result_type)) || !is_i1(unsafe { mlirValueGetType(values[0]) }) {
                    return Err(fail(wrong_type(name, result_type)));
                }
                let c = self.operand(state, values[0], op)?;
                let a = self.operand(state, values[1], op)?;
                let b = self.operand(state, values[2], op)?;
                Ok(Expr::Select(Box::new(c), Box::new(a), Box::new(b)))
            }
            _ => Err(fail(unsupported(name))),
        }
    }

    /// Records result `index` of `op`: inlined into its only user when that user is in the same block and the
    /// expression is small; otherwise a `let` of its own.
    fn define(&mut self, state: &mut FunctionState, op: MlirOperation, index: usize, value: Expr, body: &mut Vec<Stmt>) -> Result<(), ExtractError> {
        let result = result(op, index);
        let r#type = unsafe { mlirValueGetType(result) };
        let ty = if is_i1(r#type) { Ty::Bool } else { Ty::Index };
        let block = unsafe { mlirOperationGetBlock(op) };
        let users = users(result);
        let inline = match users.as_slice() {
            [user] => unsafe { mlirOperationGetBlock(*user) }.ptr == block.ptr && size(&value) <= INLINE_LIMIT,
            _ => false,
        };
        if users.is_empty() {
            return Ok(());
        }
        if inline || matches!(value, Expr::Param(_) | Expr::Var(_) | Expr::Const(..) | Expr::Bool(_)) {
            state.values.insert(result.ptr, value);
        } else {
            let var = state.vars.len();
            state.vars.push(ty);
            body.push(Stmt::Let { var, ty, value });
            state.values.insert(result.ptr, Expr::Var(var));
        }
        Ok(())
    }

    fn operand(&mut self, state: &mut FunctionState, value: MlirValue, user: MlirOperation) -> Result<Expr, ExtractError> {
        if unsafe { mlirValueIsABlockArgument(value) } {
            let owner = unsafe { mlirBlockArgumentGetOwner(value) };
            if owner.ptr == state.entry.ptr {
                return Ok(Expr::Param(unsafe { mlirBlockArgumentGetArgNumber(value) } as usize));
            }
        }
        state.values.get(&value.ptr).cloned().ok_or_else(|| ExtractError {
            location: unsafe { mlirOperationGetLocation(user) },
            message: format!("'{}' uses a value lego-translate could not translate", op_name(user)),
        })
    }

    fn scf_if(&mut self, state: &mut FunctionState, op: MlirOperation, function: &str, body: &mut Vec<Stmt>) -> Result<(), ExtractError> {
        let count = unsafe { mlirOperationGetNumResults(op) } as usize;
        if count == 0 {
            // Without results an scf.if of pure index arithmetic computes nothing.
            return Ok(());
        }
        let cond = self.operand(state, operands(op)[0], op)?;
        let mut vars = Vec::with_capacity(count);
        for index in 0..count {
            let r#type = unsafe { mlirValueGetType(result(op, index)) };
            if !unsafe { mlirTypeIsAIndex(r#type) } && !is_i1(r#type) {
                return Err(ExtractError { location: unsafe { mlirOperationGetLocation(op) }, message: wrong_type("scf.if", r#type) });
            }
            let var = state.vars.len();
            let ty = if is_i1(r#type) { Ty::Bool } else { Ty::Index };
            state.vars.push(ty);
            vars.push((var, ty));
        }
        let then_block = unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)) };
        let else_block = unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 1)) };
        let (then_body, then_values) = self.block(state, then_block, function)?;
        let (else_body, else_values) = self.block(state, else_block, function)?;
        for (index, (var, _)) in vars.iter().enumerate() {
            state.values.insert(result(op, index).ptr, Expr::Var(*var));
        }
        body.push(Stmt::If {
            vars,
            cond,
            then_body,
            then_values: then_values.unwrap_or_default(),
            else_body,
            else_values: else_values.unwrap_or_default(),
        });
        Ok(())
    }

    /// The basis of an affine index op: static entries as constants, dynamic ones from the trailing operands.
    fn basis(&mut self, state: &mut FunctionState, op: MlirOperation, dynamic: &[MlirValue]) -> Result<Vec<Expr>, ExtractError> {
        let attribute = unsafe { mlirOperationGetAttributeByName(op, string_ref("static_basis")) };
        if attribute.ptr.is_null() || !unsafe { mlirAttributeIsADenseI64Array(attribute) } {
            return Err(ExtractError {
                location: unsafe { mlirOperationGetLocation(op) },
                message: format!("'{}' without a static_basis cannot be translated", op_name(op)),
            });
        }
        let count = unsafe { mlirDenseArrayGetNumElements(attribute) } as usize;
        let mut dynamic = dynamic.iter();
        let mut basis = Vec::with_capacity(count);
        for index in 0..count {
            let entry = unsafe { mlirDenseI64ArrayGetElement(attribute, index as isize) };
            if entry == i64::MIN {
                let value = *dynamic.next().ok_or_else(|| ExtractError {
                    location: unsafe { mlirOperationGetLocation(op) },
                    message: "malformed basis".to_string(),
                })?;
                basis.push(self.operand(state, value, op)?);
            } else {
                let origin = self.origin(op);
                basis.push(Expr::Const(entry as u64, origin));
            }
        }
        Ok(basis)
    }

    /// `affine.delinearize_index %x into (b0, …, bn)`: result k = (x div Π b_{k+1..}) mod b_k, the first result
    /// without the `mod` (for the non-negative indices of the arithmetic model, floordiv/mod are divui/remui).
    fn delinearize(&mut self, state: &mut FunctionState, op: MlirOperation, body: &mut Vec<Stmt>) -> Result<(), ExtractError> {
        let values = operands(op);
        let x = self.operand(state, values[0], op)?;
        let x = self.materialize(state, x, body);
        let basis = self.basis(state, op, &values[1..])?;
        let results = unsafe { mlirOperationGetNumResults(op) } as usize;
        // Without an outer bound the basis has one entry less than there are results.
        let basis: Vec<Option<Expr>> = if basis.len() == results {
            basis.into_iter().map(Some).collect()
        } else {
            std::iter::once(None).chain(basis.into_iter().map(Some)).collect()
        };
        let origin = self.origin(op);
        let mut stride: Option<Expr> = None;
        let mut exprs = vec![Expr::Const(0, origin); results];
        for k in (0..results).rev() {
            let quotient = match &stride {
                None => x.clone(),
                Some(stride) => Expr::Bin(BinOp::DivU, Box::new(x.clone()), Box::new(stride.clone()), origin),
            };
            exprs[k] = match (&basis[k], k) {
                (Some(size), k) if k > 0 => Expr::Bin(BinOp::RemU, Box::new(quotient), Box::new(size.clone()), origin),
                _ => quotient,
            };
            if let Some(size) = &basis[k] {
                stride = Some(match stride {
                    None => size.clone(),
                    Some(stride) => multiply(stride, size.clone(), origin),
                });
            }
        }
        for (index, expr) in exprs.into_iter().enumerate() {
            self.define(state, op, index, expr, body)?;
        }
        Ok(())
    }

    /// `affine.linearize_index [i0, …, in] by (b0, …, bn)` = Σ i_k · Π b_{k+1..}.
    fn linearize(&mut self, state: &mut FunctionState, op: MlirOperation) -> Result<Expr, ExtractError> {
        let values = operands(op);
        let attribute = unsafe { mlirOperationGetAttributeByName(op, string_ref("operandSegmentSizes")) };
        let indices = if attribute.ptr.is_null() {
            values.len()
        } else {
            (unsafe { mlirDenseI32ArrayGetElement(attribute, 0) }) as usize
        };
        let basis = self.basis(state, op, &values[indices.min(values.len())..])?;
        let origin = self.origin(op);
        let mut sum: Option<Expr> = None;
        let mut stride: Option<Expr> = None;
        for k in (0..indices).rev() {
            let index = self.operand(state, values[k], op)?;
            let term = match &stride {
                None => index,
                Some(stride) => Expr::Bin(BinOp::Mul, Box::new(index), Box::new(stride.clone()), origin),
            };
            sum = Some(match sum {
                None => term,
                Some(sum) => Expr::Bin(BinOp::Add, Box::new(sum), Box::new(term), origin),
            });
            // basis is aligned with the indices at the end (it may lack the outer bound).
            let basis_index = basis.len() as isize - (indices - k) as isize;
            if basis_index >= 0 {
                let size = basis[basis_index as usize].clone();
                stride = Some(match stride {
                    None => size,
                    Some(stride) => multiply(stride, size, origin),
                });
            }
        }
        Ok(sum.unwrap_or(Expr::Const(0, origin)))
    }

    /// A non-trivial expression used several times gets a variable.
    fn materialize(&mut self, state: &mut FunctionState, value: Expr, body: &mut Vec<Stmt>) -> Expr {
        if matches!(value, Expr::Param(_) | Expr::Var(_) | Expr::Const(..)) {
            return value;
        }
        let var = state.vars.len();
        state.vars.push(Ty::Index);
        body.push(Stmt::Let { var, ty: Ty::Index, value });
        Expr::Var(var)
    }
}

/// A product, folded when both sides are constants.
fn multiply(a: Expr, b: Expr, origin: Origin) -> Expr {
    match (&a, &b) {
        (Expr::Const(x, _), Expr::Const(y, _)) => Expr::Const(x.wrapping_mul(*y), origin),
        _ => Expr::Bin(BinOp::Mul, Box::new(a), Box::new(b), origin),
    }
}

fn size(expr: &Expr) -> usize {
    match expr {
        Expr::Param(_) | Expr::Var(_) | Expr::Const(..) | Expr::Bool(_) => 0,
        Expr::Bin(_, a, b, _) | Expr::Cmp(_, a, b, _) | Expr::Logic(_, a, b) => 1 + size(a) + size(b),
        Expr::Unary(_, a, _) => 1 + size(a),
        Expr::Select(c, a, b) => 1 + size(c) + size(a) + size(b),
    }
}

fn unsupported(name: &str) -> String {
    format!(
        "'{name}' op cannot be translated: lego-translate prints arith integer ops, arith.select, scf.if, \
         math.ctlz/cttz/ctpop and affine.(de)linearize_index on 'index' values"
    )
}

fn wrong_type(name: &str, r#type: MlirType) -> String {
    format!("'{name}' on values of type '{}': only 'index' (and 'i1') values can be translated", type_text(r#type))
}

fn is_i1(r#type: MlirType) -> bool {
    unsafe { mlirTypeIsAInteger(r#type) && mlirIntegerTypeGetWidth(r#type) == 1 }
}

fn string_ref(text: &'static str) -> MlirStringRef {
    MlirStringRef { data: text.as_ptr().cast(), length: text.len() }
}

fn to_string(text: MlirStringRef) -> String {
    if text.data.is_null() {
        return String::new();
    }
    let bytes = unsafe { std::slice::from_raw_parts(text.data.cast::<u8>(), text.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

pub(crate) fn op_name(op: MlirOperation) -> String {
    to_string(unsafe { mlirIdentifierStr(mlirOperationGetName(op)) })
}

pub(crate) fn string_attribute(op: MlirOperation, name: &'static str) -> Option<String> {
    let attribute = unsafe { mlirOperationGetAttributeByName(op, string_ref(name)) };
    (!attribute.ptr.is_null() && unsafe { mlirAttributeIsAString(attribute) })
        .then(|| to_string(unsafe { mlirStringAttrGetValue(attribute) }))
}

fn type_text(r#type: MlirType) -> String {
    unsafe { melior::ir::Type::from_raw(r#type) }.to_string()
}

pub(crate) fn block_ops(block: MlirBlock) -> Vec<MlirOperation> {
    let mut ops = Vec::new();
    if block.ptr.is_null() {
        return ops;
    }
    let mut op = unsafe { mlirBlockGetFirstOperation(block) };
    while !op.ptr.is_null() {
        ops.push(op);
        op = unsafe { mlirOperationGetNextInBlock(op) };
    }
    ops
}

fn operands(op: MlirOperation) -> Vec<MlirValue> {
    let count = unsafe { mlirOperationGetNumOperands(op) };
    (0..count).map(|index| unsafe { mlirOperationGetOperand(op, index) }).collect()
}

fn result(op: MlirOperation, index: usize) -> MlirValue {
    unsafe { mlirOperationGetResult(op, index as isize) }
}

fn users(value: MlirValue) -> Vec<MlirOperation> {
    let mut users = Vec::new();
    let mut use_ = unsafe { mlirValueGetFirstUse(value) };
    while !unsafe { mlirOpOperandIsNull(use_) } {
        users.push(unsafe { mlirOpOperandGetOwner(use_) });
        use_ = unsafe { mlirOpOperandGetNextUse(use_) };
    }
    users
}
