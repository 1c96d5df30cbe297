//! MLIR → [`lego_smt::Term`]: the def-use slice of an SSA value, encoded exactly.
//!
//! Understood: `arith` integer ops (constant, addi/subi/muli with overflow flags, divui/remui/divsi/remsi/
//! ceildivui/ceildivsi/floordivsi, shli/shrui/shrsi, andi/ori/xori, min/max (u and s), cmpi, select,
//! index_cast/index_castui/extui/extsi/trunci), `arith`/`math` float ops (for exhaustive evaluation only:
//! sitofp/uitofp/fptosi/fptoui, addf/subf/mulf/divf/negf, cmpf, minimumf/maximumf/minnumf/maxnumf,
//! extf/truncf, sqrt/floor/ceil/absf/round/roundeven/trunc), `scf.if` results (only the taken branch
//! counts), and the layout ops `lego.apply` / `lego.apply_inverse`, encoded from the layout's constructors
//! exactly as in `docs/reference/semantics.md` (an independent reading of the reference, not the lowering's).
//!
//! Leaves: integer/index arguments of the enclosing function (universally quantified variables named
//! `%argN` like MLIR prints them), `scf.for` induction variables (variables with the fact
//! `lb ≤ iv < ub`), and values bound by the caller (gen_p region arguments, the thread id of a lane).
//! Anything else is an [`EncodeError`] (`cannot verify: unsupported op 'X'`): callers report it as a
//! warning and claim nothing.

use lego_dialect::ops::{self, Dim, LayoutOp, OpKind};
use lego_smt::{BinOp, FBinOp, FPred, FUnOp, Flags, FloatKind, Pred, Term, INDEX_WIDTH};
use melior::ir::{
    attribute::{DictionaryAttribute, FloatAttribute, IntegerAttribute},
    block::{BlockArgument, BlockLike},
    operation::{OperationLike, OperationResult},
    r#type::TypeLike,
    Attribute, Location, OperationRef, RegionLike, RegionRef, Type, Value, ValueLike,
};
use std::{
    cell::RefCell,
    collections::{HashMap, HashSet},
    rc::Rc,
};

/// CuTe's `Swizzle<B, M, S>` of docs/ops/swizzle.md on a flat index term: `x ^ ((x & yyy) >> S)`, `yyy =
/// (2^B − 1) << (M + S)` (its own inverse, so `apply` and `apply_inverse` share it).
fn swizzle_term<'c>([bits, base, shift]: [i64; 3], x: &Term, at: Location<'c>) -> Encoded<'c, Term> {
    let parameters = (u32::try_from(bits), u32::try_from(base), u32::try_from(shift));
    let (Ok(bits), Ok(base), Ok(shift)) = parameters else {
        return fail(at, "cannot verify: negative swizzle parameters");
    };
    if lego_algebra::check_swizzle_parameters(bits, base, shift).is_err() {
        return fail(at, "cannot verify: invalid swizzle parameters");
    }
    let mask = ((1u64 << bits) - 1) << (base + shift);
    let moved = Term::bin(BinOp::ShrU, &Term::bin(BinOp::And, x, &Term::index(mask)), &Term::index(u64::from(shift)));
    Ok(Term::bin(BinOp::Xor, x, &moved))
}

/// Why a value could not be encoded, located at the op (or value) responsible.
#[derive(Clone, Debug)]
pub struct EncodeError<'c> {
    pub location: Location<'c>,
    pub message: String,
}

pub type Encoded<'c, T> = Result<T, EncodeError<'c>>;

fn unsupported_op<'c, T>(op: &OperationRef<'c, '_>, detail: Option<&str>) -> Encoded<'c, T> {
    let name = op_name(op);
    Err(EncodeError {
        location: op.location(),
        message: match detail {
            Some(detail) => format!("cannot verify: unsupported op '{name}' ({detail})"),
            None => format!("cannot verify: unsupported op '{name}'"),
        },
    })
}

fn fail<'c, T>(location: Location<'c>, message: impl Into<String>) -> Encoded<'c, T> {
    Err(EncodeError { location, message: message.into() })
}

pub fn op_name(op: &OperationRef) -> String {
    op.name().as_string_ref().as_str().map(str::to_string).unwrap_or_else(|_| "?".into())
}

/// The six size operands of a `gpu.launch` (grid x, y, z, block x, y, z), after its async dependencies.
pub fn launch_size_operands<'c, 'a>(launch: &OperationRef<'c, 'a>) -> Vec<Value<'c, 'a>> {
    launch
        .operands()
        .filter(|operand| int_width(operand.r#type()).is_some())
        .take(6)
        .collect()
}

/// Identity of an SSA value for memo tables.
pub fn value_key(value: Value) -> usize {
    value.to_raw().ptr as usize
}

/// Bit width of an integer or index type (`index` is 64 bits).
pub fn int_width(r#type: Type) -> Option<u32> {
    unsafe {
        if mlir_sys::mlirTypeIsAIndex(r#type.to_raw()) {
            Some(INDEX_WIDTH)
        } else if mlir_sys::mlirTypeIsAInteger(r#type.to_raw()) {
            Some(mlir_sys::mlirIntegerTypeGetWidth(r#type.to_raw()))
        } else {
            None
        }
    }
}

fn float_kind(r#type: Type) -> Option<FloatKind> {
    unsafe {
        if mlir_sys::mlirTypeIsAF32(r#type.to_raw()) {
            Some(FloatKind::F32)
        } else if mlir_sys::mlirTypeIsAF64(r#type.to_raw()) {
            Some(FloatKind::F64)
        } else {
            None
        }
    }
}

#[derive(Default)]
struct Shared {
    names: HashMap<usize, String>,
    used: HashSet<String>,
    /// Facts discovered while encoding (ranges of loop induction variables), by the value they describe.
    facts: Vec<Term>,
    fact_keys: HashSet<usize>,
    fresh: usize,
}

/// Encodes SSA values as terms. Cheap to create; [`Encoder::sibling`] makes one that shares variable
/// names (so the same function argument is the same variable) but binds some values differently (another
/// lane's thread id).
pub struct Encoder {
    shared: Rc<RefCell<Shared>>,
    env: HashMap<usize, Term>,
    memo: HashMap<usize, Term>,
    depth: usize,
}

const MAX_DEPTH: usize = 2000;

impl Default for Encoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Encoder {
    pub fn new() -> Self {
        Encoder { shared: Rc::new(RefCell::new(Shared::default())), env: HashMap::new(), memo: HashMap::new(), depth: 0 }
    }

    /// A fresh encoder with the same variable names and facts store, the same bindings, and an empty memo.
    pub fn sibling(&self) -> Self {
        Encoder { shared: Rc::clone(&self.shared), env: self.env.clone(), memo: HashMap::new(), depth: self.depth }
    }

    /// Binds `value` (a block argument, usually) to `term`.
    pub fn bind(&mut self, value: Value, term: Term) {
        self.env.insert(value_key(value), term);
        self.memo.clear();
    }

    /// Facts discovered while encoding so far (loop ranges).
    pub fn discovered_facts(&self) -> Vec<Term> {
        self.shared.borrow().facts.clone()
    }

    /// A readable, unique variable name for `value`.
    pub fn name_of(&self, value: Value, preferred: &str) -> String {
        let key = value_key(value);
        let mut shared = self.shared.borrow_mut();
        if let Some(name) = shared.names.get(&key) {
            return name.clone();
        }
        let mut name = preferred.to_string();
        while shared.used.contains(&name) {
            shared.fresh += 1;
            name = format!("{preferred}#{}", shared.fresh);
        }
        shared.used.insert(name.clone());
        shared.names.insert(key, name.clone());
        name
    }

    /// Reserves a variable name not tied to any value (e.g. `y`, `i0` of a proof), unique in this family.
    pub fn fresh_name(&self, preferred: &str) -> String {
        let mut shared = self.shared.borrow_mut();
        let mut name = preferred.to_string();
        while shared.used.contains(&name) {
            shared.fresh += 1;
            name = format!("{preferred}#{}", shared.fresh);
        }
        shared.used.insert(name.clone());
        name
    }

    fn add_fact(&self, key: usize, fact: Term) {
        let mut shared = self.shared.borrow_mut();
        if shared.fact_keys.insert(key) {
            shared.facts.push(fact);
        }
    }

    /// The term of `value`.
    pub fn encode<'c>(&mut self, value: Value<'c, '_>) -> Encoded<'c, Term> {
        let key = value_key(value);
        if let Some(term) = self.env.get(&key).or_else(|| self.memo.get(&key)) {
            return Ok(term.clone());
        }
        if self.depth > MAX_DEPTH {
            return fail(value.location(), "cannot verify: expression too deep");
        }
        self.depth += 1;
        // Ask the kind first: melior's failing `try_from` prints the value (and with it the whole function) for
        // its error message, which made every encoded op cost as much as printing the module.
        let is_argument = unsafe { mlir_sys::mlirValueIsABlockArgument(value.to_raw()) };
        let result = if let Some(argument) = is_argument.then(|| BlockArgument::try_from(value).ok()).flatten() {
            self.block_argument(argument)
        } else if let Ok(result) = OperationResult::try_from(value) {
            self.op_result(result.owner(), result.result_number())
        } else {
            fail(value.location(), "cannot verify: value is neither an op result nor a block argument")
        };
        self.depth -= 1;
        let term = result?;
        self.memo.insert(key, term.clone());
        Ok(term)
    }

    /// The `i1` term of an `i1` value.
    pub fn encode_bool<'c>(&mut self, value: Value<'c, '_>) -> Encoded<'c, Term> {
        let term = self.encode(value)?;
        if term.width() == Some(1) {
            Ok(term)
        } else {
            fail(value.location(), "cannot verify: expected an i1 condition")
        }
    }

    fn block_argument<'c>(&mut self, argument: BlockArgument<'c, '_>) -> Encoded<'c, Term> {
        let value: Value = argument.into();
        let number = argument.argument_number();
        let block = argument.owner();
        let Some(parent) = block.parent_operation() else {
            return fail(value.location(), "cannot verify: block argument without a parent op");
        };
        let parent_name = op_name(&parent);
        let width = int_width(value.r#type());
        let is_entry = block.parent_region().and_then(|region| region.first_block()).is_some_and(|first| first == block);
        match (parent_name.as_str(), width) {
            ("func.func" | "gpu.func", Some(width)) if is_entry => {
                Ok(Term::var(self.name_of(value, &format!("%arg{number}")), width))
            }
            ("scf.for", Some(width)) if number == 0 => {
                let var = Term::var(self.name_of(value, "%iv"), width);
                // lb ≤ iv < ub (signed comparison unless `unsignedCmp`), and iv ≡ lb (mod step) for a
                // constant step.
                let (Ok(lb), Ok(ub), Ok(step)) = (parent.operand(0), parent.operand(1), parent.operand(2)) else {
                    return Ok(var);
                };
                let unsigned = parent.has_attribute("unsignedCmp");
                if let (Ok(lb), Ok(ub)) = (self.encode(lb), self.encode(ub)) {
                    let (le, lt) = if unsigned { (Pred::Ule, Pred::Ult) } else { (Pred::Sle, Pred::Slt) };
                    let mut fact = Term::cmp(le, &lb, &var).and(&Term::cmp(lt, &var, &ub));
                    if let Some(step) = ops::constant_index_value(step).filter(|step| *step > 1) {
                        fact = fact.and(&var.sub(&lb).urem(&Term::constant(step as u64, width)).eq(&Term::constant(0, width)));
                    }
                    self.add_fact(value_key(value), fact);
                }
                Ok(var)
            }
            ("scf.for", _) => fail(value.location(), "cannot verify: loop-carried value (scf.for iter_args)"),
            ("gpu.launch", Some(width)) if is_entry && number < 12 => self.launch_argument(parent, value, number, width),
            _ => fail(
                value.location(),
                format!("cannot verify: unsupported block argument #{number} of '{parent_name}'"),
            ),
        }
    }

    /// A `gpu.launch` body argument that the caller did not bind: block ids (0–2) and thread ids (3–5) are
    /// variables `block_id.x` … / `thread_id.x` … with `0 ≤ id < size` (the launch's size operand), the grid
    /// and block sizes (6–11) are those operands. Callers that model lanes bind the thread ids themselves.
    fn launch_argument<'c>(&mut self, launch: OperationRef<'c, '_>, value: Value<'c, '_>, number: usize, width: u32) -> Encoded<'c, Term> {
        let sizes = launch_size_operands(&launch);
        let Some(size) = sizes.get(number % 6).copied() else {
            return fail(value.location(), "cannot verify: gpu.launch without its six size operands");
        };
        if number >= 6 {
            return self.encode(size);
        }
        let axis = ["x", "y", "z"][number % 3];
        let prefix = if number < 3 { "block_id" } else { "thread_id" };
        let var = Term::var(self.name_of(value, &format!("{prefix}.{axis}")), width);
        if let Ok(size) = self.encode(size) {
            self.add_fact(value_key(value), var.ult(&size));
        }
        Ok(var)
    }

    fn operand<'c>(&mut self, op: &OperationRef<'c, '_>, index: usize) -> Encoded<'c, Term> {
        match op.operand(index) {
            Ok(value) => self.encode(value),
            Err(_) => fail(op.location(), format!("cannot verify: '{}' lacks operand #{index}", op_name(op))),
        }
    }

    fn op_result<'c>(&mut self, op: OperationRef<'c, '_>, number: usize) -> Encoded<'c, Term> {
        let name = op_name(&op);
        if let Some(kind) = OpKind::of(&op) {
            return self.lego_op(op, kind, number);
        }
        let result_type = match op.result(number) {
            Ok(result) => result.r#type(),
            Err(_) => return unsupported_op(&op, None),
        };
        let width = int_width(result_type);
        let label = format!("'{name}' at {}", op.location());
        let term = match name.as_str() {
            "arith.constant" => {
                let Ok(attribute) = op.attribute("value") else { return unsupported_op(&op, Some("no value")) };
                if let (Ok(integer), Some(width)) = (IntegerAttribute::try_from(attribute), width) {
                    if width > 64 {
                        return unsupported_op(&op, Some("integers wider than 64 bits"));
                    }
                    Term::constant(integer.value() as u64, width)
                } else if let (Ok(float), Some(kind)) = (FloatAttribute::try_from(attribute), float_kind(result_type)) {
                    Term::float(float.value(), kind)
                } else {
                    return unsupported_op(&op, Some("non-scalar or unsupported constant type"));
                }
            }
            "arith.addi" | "arith.subi" | "arith.muli" | "arith.shli" => {
                let flags = overflow_flags(&op);
                let operator = match name.as_str() {
                    "arith.addi" => BinOp::Add,
                    "arith.subi" => BinOp::Sub,
                    "arith.muli" => BinOp::Mul,
                    _ => BinOp::Shl,
                };
                let (a, b) = (self.operand(&op, 0)?, self.operand(&op, 1)?);
                Term::bin_flags(operator, flags, &a, &b)
            }
            "arith.divui" | "arith.remui" | "arith.divsi" | "arith.remsi" | "arith.shrui" | "arith.shrsi"
            | "arith.andi" | "arith.ori" | "arith.xori" | "arith.minui" | "arith.maxui" | "arith.minsi"
            | "arith.maxsi" => {
                let operator = match name.as_str() {
                    "arith.divui" => BinOp::DivU,
                    "arith.remui" => BinOp::RemU,
                    "arith.divsi" => BinOp::DivS,
                    "arith.remsi" => BinOp::RemS,
                    "arith.shrui" => BinOp::ShrU,
                    "arith.shrsi" => BinOp::ShrS,
                    "arith.andi" => BinOp::And,
                    "arith.ori" => BinOp::Or,
                    "arith.xori" => BinOp::Xor,
                    "arith.minui" => BinOp::MinU,
                    "arith.maxui" => BinOp::MaxU,
                    "arith.minsi" => BinOp::MinS,
                    _ => BinOp::MaxS,
                };
                let (a, b) = (self.operand(&op, 0)?, self.operand(&op, 1)?);
                Term::bin(operator, &a, &b)
            }
            "arith.ceildivui" => {
                // a == 0 ? 0 : (a - 1) / b + 1
                let (a, b) = (self.operand(&op, 0)?, self.operand(&op, 1)?);
                let Some(w) = width else { return unsupported_op(&op, None) };
                let (zero, one) = (Term::constant(0, w), Term::constant(1, w));
                Term::select(&a.eq(&zero), &zero, &a.sub(&one).udiv(&b).add(&one))
            }
            "arith.floordivsi" | "arith.ceildivsi" => {
                let (a, b) = (self.operand(&op, 0)?, self.operand(&op, 1)?);
                let Some(w) = width else { return unsupported_op(&op, None) };
                let (zero, one) = (Term::constant(0, w), Term::constant(1, w));
                let q = Term::bin(BinOp::DivS, &a, &b);
                let r = Term::bin(BinOp::RemS, &a, &b);
                let negative = |x: &Term| Term::cmp(Pred::Slt, x, &zero);
                let inexact = r.ne(&zero);
                if name == "arith.floordivsi" {
                    let adjust = inexact.and(&negative(&r).ne(&negative(&b)));
                    Term::select(&adjust, &q.sub(&one), &q)
                } else {
                    let adjust = inexact.and(&negative(&r).eq(&negative(&b)));
                    Term::select(&adjust, &q.add(&one), &q)
                }
            }
            "arith.cmpi" => {
                let predicate = integer_attribute(&op, "predicate");
                let pred = match predicate {
                    Some(0) => Pred::Eq,
                    Some(1) => Pred::Ne,
                    Some(2) => Pred::Slt,
                    Some(3) => Pred::Sle,
                    Some(4) => Pred::Sgt,
                    Some(5) => Pred::Sge,
                    Some(6) => Pred::Ult,
                    Some(7) => Pred::Ule,
                    Some(8) => Pred::Ugt,
                    Some(9) => Pred::Uge,
                    _ => return unsupported_op(&op, Some("unknown predicate")),
                };
                let (a, b) = (self.operand(&op, 0)?, self.operand(&op, 1)?);
                Term::cmp(pred, &a, &b)
            }
            "arith.select" => {
                let c = self.operand(&op, 0)?;
                if c.width() != Some(1) {
                    return unsupported_op(&op, Some("vector condition"));
                }
                let (a, b) = (self.operand(&op, 1)?, self.operand(&op, 2)?);
                Term::select(&c, &a, &b)
            }
            "arith.index_cast" | "arith.extsi" => {
                let Some(w) = width else { return unsupported_op(&op, None) };
                self.operand(&op, 0)?.sext_or_trunc(w)
            }
            "arith.index_castui" | "arith.extui" | "arith.trunci" => {
                let Some(w) = width else { return unsupported_op(&op, None) };
                self.operand(&op, 0)?.zext_or_trunc(w)
            }
            "arith.sitofp" | "arith.uitofp" => {
                let Some(kind) = float_kind(result_type) else { return unsupported_op(&op, Some("float type")) };
                Term::int_to_float(name == "arith.sitofp", kind, &self.operand(&op, 0)?)
            }
            "arith.fptosi" | "arith.fptoui" => {
                let Some(w) = width.filter(|w| *w <= 64) else { return unsupported_op(&op, None) };
                Term::float_to_int(name == "arith.fptosi", w, &self.operand(&op, 0)?)
            }
            "arith.addf" | "arith.subf" | "arith.mulf" | "arith.divf" | "arith.minimumf" | "arith.maximumf"
            | "arith.minnumf" | "arith.maxnumf" => {
                if float_kind(result_type).is_none() {
                    return unsupported_op(&op, Some("float type"));
                }
                let operator = match name.as_str() {
                    "arith.addf" => FBinOp::Add,
                    "arith.subf" => FBinOp::Sub,
                    "arith.mulf" => FBinOp::Mul,
                    "arith.divf" => FBinOp::Div,
                    "arith.minimumf" => FBinOp::Minimum,
                    "arith.maximumf" => FBinOp::Maximum,
                    "arith.minnumf" => FBinOp::MinNum,
                    _ => FBinOp::MaxNum,
                };
                let (a, b) = (self.operand(&op, 0)?, self.operand(&op, 1)?);
                Term::fbin(operator, &a, &b)
            }
            "arith.negf" | "math.sqrt" | "math.floor" | "math.ceil" | "math.absf" | "math.round"
            | "math.roundeven" | "math.trunc" => {
                if float_kind(result_type).is_none() {
                    return unsupported_op(&op, Some("float type"));
                }
                let operator = match name.as_str() {
                    "arith.negf" => FUnOp::Neg,
                    "math.sqrt" => FUnOp::Sqrt,
                    "math.floor" => FUnOp::Floor,
                    "math.ceil" => FUnOp::Ceil,
                    "math.absf" => FUnOp::Abs,
                    "math.round" => FUnOp::Round,
                    "math.roundeven" => FUnOp::RoundEven,
                    _ => FUnOp::Trunc,
                };
                Term::fun(operator, &self.operand(&op, 0)?)
            }
            "arith.extf" | "arith.truncf" => {
                let Some(kind) = float_kind(result_type) else { return unsupported_op(&op, Some("float type")) };
                Term::float_resize(kind, &self.operand(&op, 0)?)
            }
            "arith.cmpf" => {
                const PREDICATES: [FPred; 16] = [
                    FPred::False,
                    FPred::Oeq,
                    FPred::Ogt,
                    FPred::Oge,
                    FPred::Olt,
                    FPred::Ole,
                    FPred::One,
                    FPred::Ord,
                    FPred::Ueq,
                    FPred::Ugt,
                    FPred::Uge,
                    FPred::Ult,
                    FPred::Ule,
                    FPred::Une,
                    FPred::Uno,
                    FPred::True,
                ];
                let Some(pred) = integer_attribute(&op, "predicate").and_then(|p| PREDICATES.get(p as usize).copied())
                else {
                    return unsupported_op(&op, Some("unknown predicate"));
                };
                let (a, b) = (self.operand(&op, 0)?, self.operand(&op, 1)?);
                Term::fcmp(pred, &a, &b)
            }
            "affine.linearize_index" => {
                let (indices, basis) = self.affine_basis(&op, true)?;
                let n = indices.len();
                if basis.len() + 1 < n || basis.len() > n {
                    return unsupported_op(&op, Some("basis length"));
                }
                // linear = Σ_k idx_k · Π_{l>k} B_l, with the basis right-aligned to the indices.
                let offset = basis.len() + 1 - n.max(1);
                let mut acc = indices.first().cloned().unwrap_or_else(|| Term::index(0));
                for (k, index) in indices.iter().enumerate().skip(1) {
                    acc = acc.mul(&basis[offset + k - 1]).add(index);
                }
                acc
            }
            "affine.delinearize_index" => {
                let results = self.delinearize(&op)?;
                for (index, term) in results.iter().enumerate() {
                    if let Ok(result) = op.result(index) {
                        self.memo.insert(value_key(result.into()), term.clone());
                    }
                }
                match results.get(number) {
                    Some(term) => term.clone(),
                    None => return unsupported_op(&op, Some("result count")),
                }
            }
            "scf.if" => {
                let c = self.operand(&op, 0)?;
                let (Ok(then_region), Ok(else_region)) = (op.region(0), op.region(1)) else {
                    return unsupported_op(&op, Some("missing region"));
                };
                let then_value = self.region_result(&op, then_region, number)?;
                let else_value = self.region_result(&op, else_region, number)?;
                Term::select_lazy(&c, &then_value, &else_value)
            }
            _ => return unsupported_op(&op, None),
        };
        Ok(term.with_label(label))
    }

    /// The leading operands (indices, for linearize; none for delinearize besides the input) and the basis of
    /// an `affine.linearize_index` / `affine.delinearize_index` (static entries and `dynamic_basis`).
    fn affine_basis<'c>(&mut self, op: &OperationRef<'c, '_>, linearize: bool) -> Encoded<'c, (Vec<Term>, Vec<Term>)> {
        let Ok(attribute) = op.attribute("static_basis") else { return unsupported_op(op, Some("no static_basis")) };
        let Ok(array) = melior::ir::attribute::DenseI64ArrayAttribute::try_from(attribute) else {
            return unsupported_op(op, Some("static_basis"));
        };
        let statics: Vec<i64> = (0..array.len()).filter_map(|index| array.element(index).ok()).collect();
        let operands: Vec<Value> = op.operands().collect();
        let leading = if linearize {
            segment_sizes(op).and_then(|sizes| sizes.first().copied()).unwrap_or(operands.len())
        } else {
            1
        };
        let mut leading_terms = Vec::new();
        for value in operands.iter().take(leading) {
            leading_terms.push(self.encode(*value)?);
        }
        let mut dynamic = operands.iter().skip(leading);
        let mut basis = Vec::new();
        for value in statics {
            if value == ops::DYNAMIC {
                let Some(operand) = dynamic.next() else { return unsupported_op(op, Some("dynamic basis count")) };
                basis.push(self.encode(*operand)?);
            } else {
                basis.push(Term::index(value as u64));
            }
        }
        Ok((leading_terms, basis))
    }

    /// `affine.delinearize_index %x into (B…)`, exactly as MLIR lowers it (signed floor division, and a
    /// non-negative remainder): the last result is `x mod B_last`, result `k ≥ 1` is
    /// `(x floordiv Π_{l>k} B_l) mod B_k`, and the first is `x floordiv Π_{l>0} B_l` (not reduced).
    fn delinearize<'c>(&mut self, op: &OperationRef<'c, '_>) -> Encoded<'c, Vec<Term>> {
        let (inputs, basis) = self.affine_basis(op, false)?;
        let Some(x) = inputs.first().cloned() else { return unsupported_op(op, Some("no input")) };
        let n = op.result_count();
        if n == 0 || basis.len() + 1 < n || basis.len() > n {
            return unsupported_op(op, Some("basis length"));
        }
        let offset = basis.len() + 1 - n;
        // B_k for k = 1..n-1, right-aligned.
        let bound = |k: usize| basis[offset + k - 1].clone();
        let zero = Term::index(0);
        let floordiv = |a: &Term, b: &Term| {
            let q = Term::bin(BinOp::DivS, a, b);
            let r = Term::bin(BinOp::RemS, a, b);
            let negative = |t: &Term| Term::cmp(Pred::Slt, t, &zero);
            let adjust = r.ne(&zero).and(&negative(&r).ne(&negative(b)));
            Term::select(&adjust, &q.sub(&Term::index(1)), &q)
        };
        let modulo = |a: &Term, b: &Term| {
            let r = Term::bin(BinOp::RemS, a, b);
            Term::select(&Term::cmp(Pred::Slt, &r, &zero), &r.add(b), &r)
        };
        let mut results = vec![Term::index(0); n];
        let mut stride = Term::index(1);
        for k in (0..n).rev() {
            let scaled = if k + 1 == n { x.clone() } else { floordiv(&x, &stride) };
            results[k] = if k == 0 { scaled } else { modulo(&scaled, &bound(k)) };
            if k > 0 {
                stride = stride.mul(&bound(k)).fold_constants();
            }
        }
        Ok(results)
    }

    /// Operand `number` of the `scf.yield` ending a single-block region.
    fn region_result<'c>(&mut self, op: &OperationRef<'c, '_>, region: RegionRef<'c, '_>, number: usize) -> Encoded<'c, Term> {
        let Some(block) = region.first_block() else { return unsupported_op(op, Some("empty region")) };
        if block.next_in_region().is_some() {
            return unsupported_op(op, Some("multi-block region"));
        }
        let Some(terminator) = block.terminator() else { return unsupported_op(op, Some("no terminator")) };
        match terminator.operand(number) {
            Ok(value) => self.encode(value),
            Err(_) => unsupported_op(op, Some("yield arity")),
        }
    }

    fn lego_op<'c>(&mut self, op: OperationRef<'c, '_>, kind: OpKind, number: usize) -> Encoded<'c, Term> {
        let location = op.location();
        match kind {
            OpKind::Apply => {
                let Ok(layout) = op.operand(0) else { return unsupported_op(&op, None) };
                let indices = ops::index_operands(op)
                    .into_iter()
                    .map(|value| self.encode(value))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(self.layout_apply(layout, &indices, location)?.with_label(format!("'lego.apply' at {location}")))
            }
            OpKind::ApplyInverse => {
                let (Ok(layout), Ok(flat)) = (op.operand(0), op.operand(1)) else { return unsupported_op(&op, None) };
                let flat = self.encode(flat)?;
                let results = self.layout_inverse(layout, &flat, location)?;
                // Memoize every result, not only the one asked for.
                for (index, term) in results.iter().enumerate() {
                    if let Ok(result) = op.result(index) {
                        self.memo.insert(value_key(result.into()), term.clone());
                    }
                }
                match results.get(number) {
                    Some(term) => Ok(term.clone()),
                    None => unsupported_op(&op, Some("result count does not match the layout rank")),
                }
            }
            _ => unsupported_op(&op, None),
        }
    }

    // ---- layouts (docs/reference/semantics.md) ------------------------------------------------------------------------

    fn layout<'c, 'a>(&self, layout: Value<'c, 'a>, at: Location<'c>) -> Encoded<'c, (OperationRef<'c, 'a>, LayoutOp<'c, 'a>)> {
        if let Some(result) = lego_dialect::ops::op_result(layout) {
            let owner = result.owner();
            return match ops::layout_op(owner) {
                Ok(Some(layout)) => Ok((owner, layout)),
                Ok(None) => unsupported_op(&owner, Some("not a layout constructor")),
                Err(error) => fail(owner.location(), format!("cannot verify: malformed layout: {error}")),
            };
        }
        fail(at, "cannot verify: the layout is defined outside the checked function (block argument)")
    }

    /// The terms of a dimension list (literals are constants, SSA sizes are encoded).
    pub fn dim_terms<'c>(&mut self, dims: &[Dim<'c, '_>]) -> Encoded<'c, Vec<Term>> {
        dims.iter()
            .map(|dim| match dim {
                Dim::Static(value) => Ok(Term::index(*value as u64)),
                Dim::Dynamic(value) => self.encode(*value),
            })
            .collect()
    }

    /// The logical dims of a layout value.
    pub fn layout_dims<'c>(&mut self, layout: Value<'c, '_>, at: Location<'c>) -> Encoded<'c, Vec<Term>> {
        self.nested_layout(at, |this| this.layout_dims_unguarded(layout, at))
    }

    /// One more level of a layout chain: the recursive encoders below share `encode`'s depth bound, so a
    /// chain of any depth costs bounded stack (deeper chains cannot be verified, and say so).
    fn nested_layout<'c, T>(&mut self, at: Location<'c>, encode: impl FnOnce(&mut Self) -> Encoded<'c, T>) -> Encoded<'c, T> {
        if self.depth > MAX_DEPTH {
            return fail(at, format!("cannot verify: layout nested more than {MAX_DEPTH} constructors deep"));
        }
        self.depth += 1;
        let result = encode(self);
        self.depth -= 1;
        result
    }

    fn layout_dims_unguarded<'c>(&mut self, layout: Value<'c, '_>, at: Location<'c>) -> Encoded<'c, Vec<Term>> {
        let (_, layout) = self.layout(layout, at)?;
        match layout {
            LayoutOp::Row { dims }
            | LayoutOp::Col { dims }
            | LayoutOp::RegP { dims, .. }
            | LayoutOp::GenP { dims, .. }
            | LayoutOp::Swizzle { dims, .. }
            | LayoutOp::GroupBy { dims, .. } => self.dim_terms(&dims),
            // expand_by takes its input layout's indices (docs/reference/semantics.md: apply(s⃗) starts with apply(L, s⃗)).
            LayoutOp::ExpandBy { inner, .. } | LayoutOp::Compose { inner, .. } => self.layout_dims(inner, at),
            LayoutOp::Inverse { inner } => Ok(vec![product(&self.layout_dims(inner, at)?)]),
            LayoutOp::Strided { modes } => match ops::strided_dims(&modes) {
                Some(dims) => Ok(dims.into_iter().map(|d| Term::index(d as u64)).collect()),
                None => fail(at, "cannot verify: strided sizes overflow"),
            },
            LayoutOp::OrderBy { objects } => {
                let mut all = Vec::new();
                for object in objects {
                    all.extend(self.layout_dims(object, at)?);
                }
                Ok(all)
            }
            LayoutOp::TileBy { levels, .. } => {
                let mut all = Vec::new();
                for level in levels {
                    all.extend(self.dim_terms(&level)?);
                }
                Ok(all)
            }
        }
    }

    /// Number of logical indices of a layout value (`Π dims`).
    pub fn layout_numel<'c>(&mut self, layout: Value<'c, '_>, at: Location<'c>) -> Encoded<'c, Term> {
        let dims = self.layout_dims(layout, at)?;
        // Constant sizes are counted exactly: a 64-bit product could wrap to a small count (2^64 + 4 → 4).
        // The dialect verifier rejects such layouts; this keeps the encoding honest for IR that skipped it.
        if let Some(sizes) = dims.iter().map(Term::as_const).collect::<Option<Vec<u64>>>() {
            let count = lego_algebra::ElementCount::of(sizes);
            if !count.fits() {
                return fail(at, format!("cannot verify: the layout {}", lego_algebra::too_many_elements(&count, false)));
            }
        }
        Ok(product(&dims))
    }

    /// Exclusive bound of valid `apply_inverse` inputs: `Π n⃗` for an `expand_by … dims n⃗`, the number of
    /// elements otherwise.
    pub fn layout_codomain<'c>(&mut self, layout: Value<'c, '_>, at: Location<'c>) -> Encoded<'c, Term> {
        match self.layout(layout, at)? {
            (_, LayoutOp::ExpandBy { dims, .. }) => return Ok(product(&self.dim_terms(&dims)?)),
            (_, LayoutOp::Compose { outer, .. }) => return self.nested_layout(at, |this| this.layout_codomain(outer, at)),
            (_, LayoutOp::Strided { modes }) => {
                let info = ops::strided_leaves(&modes).ok().and_then(|leaves| lego_algebra::check_strided(&leaves).ok());
                return match info {
                    Some(info) => Ok(Term::index(info.extent)),
                    None => fail(at, "cannot verify: invalid strided layout"),
                };
            }
            _ => {}
        }
        self.layout_numel(layout, at)
    }

    /// `apply(layout, indices)`.
    pub fn layout_apply<'c>(&mut self, layout: Value<'c, '_>, indices: &[Term], at: Location<'c>) -> Encoded<'c, Term> {
        self.nested_layout(at, |this| this.layout_apply_unguarded(layout, indices, at))
    }

    fn layout_apply_unguarded<'c>(&mut self, layout: Value<'c, '_>, indices: &[Term], at: Location<'c>) -> Encoded<'c, Term> {
        let (owner, node) = self.layout(layout, at)?;
        let location = owner.location();
        let rank_error = |expected: usize| {
            fail(location, format!("cannot verify: {} indices for a layout of rank {expected}", indices.len()))
        };
        match node {
            LayoutOp::Row { dims } | LayoutOp::Col { dims } | LayoutOp::RegP { dims, .. } => {
                let n = self.dim_terms(&dims)?;
                if indices.len() != n.len() {
                    return rank_error(n.len());
                }
                let perm = self.permutation(&owner, n.len())?;
                let phys_dims: Vec<Term> = perm.iter().map(|&k| n[k].clone()).collect();
                let phys_index: Vec<Term> = perm.iter().map(|&k| indices[k].clone()).collect();
                Ok(flatten(&phys_dims, &phys_index))
            }
            LayoutOp::GenP { dims, apply, .. } => {
                if indices.len() != dims.len() {
                    return rank_error(dims.len());
                }
                let results = self.region(apply, indices, location)?;
                match results.as_slice() {
                    [flat] => Ok(flat.clone()),
                    _ => fail(location, "cannot verify: gen_p apply region must yield one index"),
                }
            }
            LayoutOp::OrderBy { objects } => {
                let mut x = Term::index(0);
                let mut offset = 0;
                for object in objects {
                    let dims = self.layout_dims(object, at)?;
                    let Some(slice) = indices.get(offset..offset + dims.len()) else { return rank_error(offset + dims.len()) };
                    offset += dims.len();
                    let inner = self.layout_apply(object, slice, at)?;
                    x = x.mul(&product(&dims)).add(&inner);
                }
                if offset != indices.len() {
                    return rank_error(offset);
                }
                Ok(x)
            }
            LayoutOp::GroupBy { dims, objects } => {
                let g = self.dim_terms(&dims)?;
                if indices.len() != g.len() {
                    return rank_error(g.len());
                }
                let mut x = flatten(&g, indices);
                for object in objects.iter().rev() {
                    let object_dims = self.layout_dims(*object, at)?;
                    let unflat = unflatten(&object_dims, &x);
                    x = self.layout_apply(*object, &unflat, at)?;
                }
                Ok(x)
            }
            LayoutOp::TileBy { inner, levels } => {
                // docs/reference/semantics.md tile_by: identity shortcut, else combine levels per dim and split over blocks.
                let blocks = self.tile_blocks(inner, at)?;
                if tile_is_identity(&levels, &blocks) {
                    return self.layout_apply(inner, indices, at);
                }
                let coordinates = self.tile_coordinates(&levels, indices, location)?;
                if blocks.len() == 1 {
                    return self.layout_apply(inner, &coordinates, at);
                }
                let block_dims = self.tile_block_dims(&blocks, coordinates.len(), at)?;
                let d = coordinates.len();
                let mut split = vec![Term::index(0); d * blocks.len()];
                for (k, coordinate) in coordinates.iter().enumerate() {
                    let radix: Vec<Term> = block_dims.iter().map(|dims| dims[k].clone()).collect();
                    for (h, digit) in unflatten(&radix, coordinate).into_iter().enumerate() {
                        split[h * d + k] = digit;
                    }
                }
                self.layout_apply(inner, &split, at)
            }
            LayoutOp::Swizzle { swizzle, dims } => {
                let n = self.dim_terms(&dims)?;
                if indices.len() != n.len() {
                    return rank_error(n.len());
                }
                swizzle_term(swizzle, &flatten(&n, indices), location)
            }
            LayoutOp::Strided { modes } => {
                if indices.len() != modes.len() {
                    return rank_error(modes.len());
                }
                // docs/ops/strided.md: each index split over its mode's leaves first leaf fastest.
                let mut sum = Term::index(0);
                for (mode, index) in modes.iter().zip(indices) {
                    let mut rest = index.clone();
                    for (position, &(size, stride)) in mode.iter().enumerate() {
                        let size = Term::index(size as u64);
                        let digit = if position + 1 == mode.len() { rest.clone() } else { rest.urem(&size) };
                        rest = rest.udiv(&size);
                        sum = sum.add(&digit.mul(&Term::index(stride as u64)));
                    }
                }
                Ok(sum)
            }
            LayoutOp::Compose { outer, inner } => {
                let x = self.layout_apply(inner, indices, at)?;
                let outer_dims = self.layout_dims(outer, at)?;
                self.layout_apply(outer, &unflatten(&outer_dims, &x), at)
            }
            LayoutOp::Inverse { inner } => {
                let [x] = indices else { return rank_error(1) };
                let index = self.layout_inverse(inner, x, at)?;
                Ok(flatten(&self.layout_dims(inner, at)?, &index))
            }
            LayoutOp::ExpandBy { inner, dims, to_dims } => {
                let (n, m) = (self.dim_terms(&dims)?, self.dim_terms(&to_dims)?);
                if m.len() != n.len() {
                    return fail(location, "cannot verify: expand_by dims and to have different ranks");
                }
                let x = self.layout_apply(inner, indices, at)?;
                let j = unflatten(&m, &x);
                let inside = Term::all(j.iter().zip(&n).map(|(j, n)| j.ult(n)));
                Ok(Term::select(&inside, &flatten(&n, &j), &Term::index(u64::MAX)))
            }
        }
    }

    /// `apply_inverse(layout, flat)`.
    pub fn layout_inverse<'c>(&mut self, layout: Value<'c, '_>, flat: &Term, at: Location<'c>) -> Encoded<'c, Vec<Term>> {
        self.nested_layout(at, |this| this.layout_inverse_unguarded(layout, flat, at))
    }

    fn layout_inverse_unguarded<'c>(&mut self, layout: Value<'c, '_>, flat: &Term, at: Location<'c>) -> Encoded<'c, Vec<Term>> {
        let (owner, node) = self.layout(layout, at)?;
        let location = owner.location();
        match node {
            LayoutOp::Row { dims } | LayoutOp::Col { dims } | LayoutOp::RegP { dims, .. } => {
                let n = self.dim_terms(&dims)?;
                let perm = self.permutation(&owner, n.len())?;
                let phys_dims: Vec<Term> = perm.iter().map(|&k| n[k].clone()).collect();
                let phys = unflatten(&phys_dims, flat);
                let mut result = vec![Term::index(0); n.len()];
                for (k, &target) in perm.iter().enumerate() {
                    result[target] = phys[k].clone();
                }
                Ok(result)
            }
            LayoutOp::GenP { dims, inverse, .. } => {
                let Some(inverse) = inverse else {
                    return fail(location, "cannot verify: apply_inverse of an apply-only gen_p");
                };
                let results = self.region(inverse, std::slice::from_ref(flat), location)?;
                if results.len() != dims.len() {
                    return fail(location, "cannot verify: gen_p inv region must yield one index per dim");
                }
                Ok(results)
            }
            LayoutOp::OrderBy { objects } => {
                let mut x = flat.clone();
                let mut slices = Vec::new();
                for object in objects.iter().rev() {
                    let dims = self.layout_dims(*object, at)?;
                    let numel = product(&dims);
                    let c = x.urem(&numel);
                    x = x.udiv(&numel);
                    slices.push(self.layout_inverse(*object, &c, at)?);
                }
                Ok(slices.into_iter().rev().flatten().collect())
            }
            LayoutOp::GroupBy { dims, objects } => {
                let g = self.dim_terms(&dims)?;
                let mut x = flat.clone();
                for object in objects {
                    let object_dims = self.layout_dims(object, at)?;
                    let indices = self.layout_inverse(object, &x, at)?;
                    x = flatten(&object_dims, &indices);
                }
                Ok(unflatten(&g, &x))
            }
            LayoutOp::TileBy { inner, levels } => {
                let blocks = self.tile_blocks(inner, at)?;
                let split = self.layout_inverse(inner, flat, at)?;
                if tile_is_identity(&levels, &blocks) {
                    return Ok(split);
                }
                let d = levels.first().map_or(0, Vec::len);
                let coordinates = if blocks.len() == 1 {
                    split
                } else {
                    let block_dims = self.tile_block_dims(&blocks, d, at)?;
                    if split.len() != d * blocks.len() {
                        return fail(location, "cannot verify: tile_by input's inverse does not match its blocks");
                    }
                    (0..d)
                        .map(|k| {
                            let radix: Vec<Term> = block_dims.iter().map(|dims| dims[k].clone()).collect();
                            let digits: Vec<Term> = (0..blocks.len()).map(|h| split[h * d + k].clone()).collect();
                            flatten(&radix, &digits)
                        })
                        .collect()
                };
                if coordinates.len() != d {
                    return fail(location, "cannot verify: tile_by level length does not match the input's tile rank");
                }
                let sizes: Vec<Vec<Term>> = levels.iter().map(|level| self.dim_terms(level)).collect::<Result<_, _>>()?;
                if sizes.iter().any(|level| level.len() != d) {
                    return fail(location, "cannot verify: tile_by level length does not match the input rank");
                }
                let mut result = vec![Term::index(0); d * sizes.len()];
                for (k, coordinate) in coordinates.iter().enumerate() {
                    let radix: Vec<Term> = sizes.iter().map(|level| level[k].clone()).collect();
                    for (l, part) in unflatten(&radix, coordinate).into_iter().enumerate() {
                        result[l * d + k] = part;
                    }
                }
                Ok(result)
            }
            LayoutOp::Swizzle { swizzle, dims } => {
                let n = self.dim_terms(&dims)?;
                Ok(unflatten(&n, &swizzle_term(swizzle, flat, location)?))
            }
            LayoutOp::Strided { modes } => {
                let compact = ops::strided_leaves(&modes)
                    .ok()
                    .and_then(|leaves| lego_algebra::check_strided(&leaves).ok())
                    .is_some_and(|info| info.compact);
                if !compact {
                    return fail(location, "cannot verify: apply_inverse of a padded strided layout");
                }
                Ok(modes
                    .iter()
                    .map(|mode| {
                        let mut index = Term::index(0);
                        let mut weight = 1u64;
                        for &(size, stride) in mode {
                            let digit = flat.udiv(&Term::index(stride.max(1) as u64)).urem(&Term::index(size as u64));
                            index = index.add(&digit.mul(&Term::index(weight)));
                            weight = weight.saturating_mul(size as u64);
                        }
                        index
                    })
                    .collect())
            }
            LayoutOp::Compose { outer, inner } => {
                let index = self.layout_inverse(outer, flat, at)?;
                let outer_dims = self.layout_dims(outer, at)?;
                self.layout_inverse(inner, &flatten(&outer_dims, &index), at)
            }
            LayoutOp::Inverse { inner } => {
                let inner_dims = self.layout_dims(inner, at)?;
                Ok(vec![self.layout_apply(inner, &unflatten(&inner_dims, flat), at)?])
            }
            LayoutOp::ExpandBy { inner, dims, to_dims } => {
                let (n, m) = (self.dim_terms(&dims)?, self.dim_terms(&to_dims)?);
                let padded = flatten(&m, &unflatten(&n, flat));
                self.layout_inverse(inner, &padded, at)
            }
        }
    }

    /// The blocks of a tile_by's input `order_by` (docs/reference/semantics.md: d_o = rank of the first block).
    fn tile_blocks<'c: 'a, 'a>(&self, inner: Value<'c, 'a>, at: Location<'c>) -> Encoded<'c, Vec<Value<'c, 'a>>> {
        match self.layout(inner, at)? {
            (_, LayoutOp::OrderBy { objects }) if !objects.is_empty() => Ok(objects),
            // A plain row / col / reg_p: an order_by of that one block (semantics.md: q_o = 1).
            (_, LayoutOp::Row { .. } | LayoutOp::Col { .. } | LayoutOp::RegP { .. }) => Ok(vec![inner]),
            (owner, _) => fail(owner.location(), "cannot verify: tile_by input must be an OrderBy layout"),
        }
    }

    /// Each block's dims as terms, checked to have the tile rank `d`.
    fn tile_block_dims<'c>(&mut self, blocks: &[Value<'c, '_>], d: usize, at: Location<'c>) -> Encoded<'c, Vec<Vec<Term>>> {
        let mut all = Vec::with_capacity(blocks.len());
        for block in blocks {
            let dims = self.layout_dims(*block, at)?;
            if dims.len() != d {
                return fail(at, format!("cannot verify: a tile_by block has rank {}, the tile rank is {d}", dims.len()));
            }
            all.push(dims);
        }
        Ok(all)
    }

    fn tile_coordinates<'c>(&mut self, levels: &[Vec<Dim<'c, '_>>], indices: &[Term], location: Location<'c>) -> Encoded<'c, Vec<Term>> {
        let sizes: Vec<Vec<Term>> = levels.iter().map(|level| self.dim_terms(level)).collect::<Result<_, _>>()?;
        let d = sizes.first().map_or(0, Vec::len);
        if sizes.iter().any(|level| level.len() != d) || indices.len() != d * sizes.len() {
            return fail(location, format!("cannot verify: {} indices for a tile_by of {} levels of {d}", indices.len(), sizes.len()));
        }
        Ok((0..d)
            .map(|k| {
                let radix: Vec<Term> = sizes.iter().map(|level| level[k].clone()).collect();
                let digits: Vec<Term> = (0..sizes.len()).map(|l| indices[l * d + k].clone()).collect();
                flatten(&radix, &digits)
            })
            .collect())
    }

    /// `perm` of a reg_p (identity for row, reversed for col), validated.
    fn permutation<'c>(&self, owner: &OperationRef<'c, '_>, rank: usize) -> Encoded<'c, Vec<usize>> {
        match OpKind::of(owner) {
            Some(OpKind::Row) => Ok((0..rank).collect()),
            Some(OpKind::Col) => Ok((0..rank).rev().collect()),
            _ => {
                let Ok(Some(LayoutOp::RegP { perm, .. })) = ops::layout_op(*owner) else {
                    return unsupported_op(owner, Some("not a permutation layout"));
                };
                let perm: Vec<usize> = perm.iter().filter_map(|&p| usize::try_from(p).ok()).collect();
                let mut seen = vec![false; rank];
                let valid = perm.len() == rank && perm.iter().all(|&p| p < rank && !std::mem::replace(&mut seen[p], true));
                if valid {
                    Ok(perm)
                } else {
                    fail(owner.location(), "cannot verify: invalid permutation")
                }
            }
        }
    }

    /// Encodes the values a gen_p region yields, with its block arguments bound to `arguments`.
    pub fn region<'c>(&mut self, region: RegionRef<'c, '_>, arguments: &[Term], location: Location<'c>) -> Encoded<'c, Vec<Term>> {
        let Some(block) = region.first_block() else { return fail(location, "cannot verify: empty gen_p region") };
        if block.argument_count() != arguments.len() {
            return fail(
                location,
                format!("cannot verify: region takes {} arguments, {} given", block.argument_count(), arguments.len()),
            );
        }
        let mut inner = self.sibling();
        for (index, term) in arguments.iter().enumerate() {
            if let Ok(argument) = block.argument(index) {
                inner.env.insert(value_key(argument.into()), term.clone());
            }
        }
        let Some(values) = ops::yielded_values(region) else {
            return fail(location, "cannot verify: gen_p region does not end in a yield");
        };
        let mut results = Vec::with_capacity(values.len());
        for value in values {
            results.push(inner.encode(value)?);
        }
        Ok(results)
    }

    /// The facts of `lego.assume` / `lego.assume_bounds` ops in `scope` (a function), encoded with this
    /// encoder's bindings. Facts that cannot be encoded are returned as errors (callers may mention them; a
    /// missing fact only weakens a proof).
    ///
    /// The layout-contract facts of `lego-to-arith{assume-bounds=true}` are left out: they restate what a
    /// bounds obligation asks to prove, and as premises would make it hold vacuously.
    pub fn assumptions<'c>(&mut self, scope: OperationRef<'c, '_>) -> (Vec<Term>, Vec<EncodeError<'c>>) {
        let mut assume_ops = Vec::new();
        ops::walk_ops(scope, &mut |op| {
            if matches!(OpKind::of(&op), Some(OpKind::Assume | OpKind::AssumeBounds))
                && !crate::simplify::ir::is_layout_contract_fact(op.to_raw())
            {
                assume_ops.push(op);
            }
        });
        let mut facts = Vec::new();
        let mut skipped = Vec::new();
        for op in assume_ops {
            match self.assumption(op) {
                Ok(fact) => facts.push(fact),
                Err(error) => skipped.push(error),
            }
        }
        (facts, skipped)
    }

    fn assumption<'c>(&mut self, op: OperationRef<'c, '_>) -> Encoded<'c, Term> {
        match OpKind::of(&op) {
            Some(OpKind::Assume) => {
                let Ok(condition) = op.operand(0) else { return unsupported_op(&op, None) };
                self.encode_bool(condition)
            }
            Some(OpKind::AssumeBounds) => {
                let sizes = segment_sizes(&op).unwrap_or_else(|| vec![1, op.operand_count().saturating_sub(1).min(1), 0]);
                let operands: Vec<Value> = op.operands().collect();
                let Some(x) = operands.first() else { return unsupported_op(&op, None) };
                let x = self.encode(*x)?;
                let mut fact = Term::bool(true);
                let mut next = 1;
                if sizes.get(1).copied().unwrap_or(0) > 0 {
                    let Some(lo) = operands.get(next) else { return unsupported_op(&op, None) };
                    fact = fact.and(&self.encode(*lo)?.ule(&x));
                    next += 1;
                }
                if sizes.get(2).copied().unwrap_or(0) > 0 {
                    let Some(hi) = operands.get(next) else { return unsupported_op(&op, None) };
                    fact = fact.and(&x.ult(&self.encode(*hi)?));
                }
                Ok(fact)
            }
            _ => unsupported_op(&op, None),
        }
    }
}

fn segment_sizes(op: &OperationRef) -> Option<Vec<usize>> {
    let attribute = op.attribute("operandSegmentSizes").ok()?;
    let array = melior::ir::attribute::DenseI32ArrayAttribute::try_from(attribute).ok()?;
    (0..array.len()).map(|index| array.element(index).ok().and_then(|v| usize::try_from(v).ok())).collect()
}

fn integer_attribute(op: &OperationRef, name: &str) -> Option<i64> {
    IntegerAttribute::try_from(op.attribute(name).ok()?).ok().map(|attribute| attribute.value())
}

/// `nsw`/`nuw` of an `#arith.overflow<...>` attribute.
fn overflow_flags(op: &OperationRef) -> Flags {
    let Ok(attribute) = op.attribute("overflowFlags") else { return Flags::default() };
    let text = attribute.to_string();
    Flags { nsw: text.contains("nsw"), nuw: text.contains("nuw") }
}

/// `Π terms` (1 when empty).
pub fn product(terms: &[Term]) -> Term {
    let mut iter = terms.iter();
    match iter.next() {
        None => Term::index(1),
        Some(first) => iter.fold(first.clone(), |acc, term| acc.mul(term)).fold_constants(),
    }
}

/// `B(n⃗, i⃗) = (((i1·n2 + i2)·n3 + i3)…)·nq + iq`.
pub fn flatten(dims: &[Term], indices: &[Term]) -> Term {
    let mut iter = indices.iter();
    let Some(first) = iter.next() else { return Term::index(0) };
    iter.zip(dims.iter().skip(1)).fold(first.clone(), |acc, (index, dim)| acc.mul(dim).add(index))
}

/// `B⁻¹(n⃗, x)`: for k = q down to 1: `i_k = x mod n_k; x = x div n_k`.
pub fn unflatten(dims: &[Term], flat: &Term) -> Vec<Term> {
    let mut x = flat.clone();
    let mut result = vec![Term::index(0); dims.len()];
    for (k, dim) in dims.iter().enumerate().rev() {
        result[k] = x.urem(dim);
        x = x.udiv(dim);
    }
    result
}

/// The function-like op enclosing `op` (`func.func`, `gpu.func`, or any op with a `function_type`).
pub fn enclosing_function<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let mut current = op.parent_operation();
    while let Some(parent) = current {
        let name = op_name(&parent);
        if name == "func.func" || name == "gpu.func" || parent.has_attribute("function_type") {
            return Some(parent);
        }
        current = parent.parent_operation();
    }
    None
}

/// docs/reference/semantics.md's identity shortcut: as many levels as blocks, every tile dim the same value (same SSA value or
/// equal constants) as the block's dim.
fn tile_is_identity(levels: &[Vec<Dim>], blocks: &[Value]) -> bool {
    levels.len() == blocks.len()
        && levels.iter().zip(blocks).all(|(level, block)| {
            ops::logical_dims(*block).is_some_and(|dims| {
                dims.len() == level.len()
                    && level.iter().zip(&dims).all(|(t, o)| crate::lowering::emit::same_dim(t, o))
            })
        })
}

/// Index of the function argument carrying the unit attribute `name` (e.g. `lego.thread_id`).
pub fn argument_with_attribute(function: &OperationRef, name: &str) -> Vec<usize> {
    let Ok(arg_attrs) = function.attribute("arg_attrs") else { return Vec::new() };
    let Ok(array) = melior::ir::attribute::ArrayAttribute::try_from(arg_attrs) else { return Vec::new() };
    (0..array.len())
        .filter(|&index| {
            array
                .element(index)
                .ok()
                .and_then(|element: Attribute| DictionaryAttribute::try_from(element).ok())
                .is_some_and(|dictionary| dictionary.element_by_name(name).is_some())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    //! The encoder's reading of docs/reference/semantics.md (`lego.apply` / `lego.apply_inverse` from the constructors) is
    //! checked against lego-algebra on seeded random layouts: every op, nesting, symbolic sizes, and the
    //! paper's rev/antidiag gen_p's. The terms are evaluated exactly (lego_smt's evaluator).
    use super::*;
    use lego_algebra::{
        mlir::emit_module,
        random::{random_flat, random_index, random_layout, RandomConfig, SplitMix64},
        NO_ELEMENT,
    };
    use lego_smt::{Program, Value as SmtValue};
    use melior::ir::{block::BlockLike, operation::OperationLike, RegionLike};

    /// Encodes the first `lego.apply` / `lego.apply_inverse` results of `function` with its arguments as
    /// variables `%argN`, and evaluates them at `arguments`.
    fn evaluate(function: OperationRef, kind: OpKind, arguments: &[u64]) -> Vec<u64> {
        let text = function.to_string();
        let mut target = None;
        ops::walk_ops(function, &mut |op| {
            if target.is_none() && OpKind::of(&op) == Some(kind) {
                target = Some(op);
            }
        });
        let op = target.expect("the emitted function uses the layout");
        let mut encoder = Encoder::new();
        let terms: Vec<Term> = op
            .results()
            .map(|result| encoder.encode(result.into()).unwrap_or_else(|error| panic!("{}\n{text}", error.message)))
            .collect();
        let program = Program::new(&terms).expect("well-formed terms");
        let inputs: std::collections::HashMap<String, SmtValue> =
            arguments.iter().enumerate().map(|(k, v)| (format!("%arg{k}"), SmtValue::Bits(*v))).collect();
        let evaluation = program.run_named(&inputs);
        assert!(evaluation.undefined.is_none(), "{:?}", evaluation.undefined);
        evaluation.roots.iter().map(|value| value.bits().expect("a defined index")).collect()
    }

    #[test]
    fn layout_encoding_matches_the_reference_algebra() {
        let context = lego_dialect::create_context().expect("the lego dialect registers");
        let mut rng = SplitMix64::new(0x5eed_0f_5a7);
        let config = RandomConfig::default();
        let mut checked = 0;
        for case in 0..120 {
            let layout = random_layout(&mut rng, &config);
            let symbolic = layout.symbolic_sizes();
            let text = emit_module(&layout, &format!("c{case}")).expect("emits");
            let module = lego_dialect::source::parse(&context, "encode.mlir", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            let body = module.body();
            let mut functions = Vec::new();
            let mut op = body.first_operation();
            while let Some(current) = op {
                functions.push(current);
                op = current.next_in_block();
            }
            for _ in 0..16 {
                let index = random_index(&layout, &mut rng);
                let expected = layout.apply(&index).expect("in range");
                let expected = if expected == NO_ELEMENT { u64::MAX } else { expected };
                let arguments: Vec<u64> = index.iter().chain(&symbolic).copied().collect();
                let got = evaluate(functions[0], OpKind::Apply, &arguments);
                assert_eq!(got, vec![expected], "apply{index:?} of {layout} (sizes {symbolic:?})");
                checked += 1;
            }
            if layout.is_invertible() {
                for _ in 0..16 {
                    let flat = random_flat(&layout, &mut rng);
                    let expected = layout.apply_inverse(flat).expect("in range");
                    let arguments: Vec<u64> = std::iter::once(flat).chain(symbolic.iter().copied()).collect();
                    let got = evaluate(functions[1], OpKind::ApplyInverse, &arguments);
                    assert_eq!(got, expected, "apply_inverse({flat}) of {layout} (sizes {symbolic:?})");
                    checked += 1;
                }
            }
            let _ = body.argument_count();
            let _ = module.as_operation().region(0).map(|region| region.first_block().is_some());
        }
        assert!(checked > 2000, "{checked}");
    }
}
