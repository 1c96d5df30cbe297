//! Exact evaluation of terms on concrete inputs (integers wrap like MLIR's; floats are IEEE f32/f64), and
//! exhaustive checking over small boxes of inputs. This is the fallback for float math (which the Z3
//! translation does not model) and the cross-check of every Z3 counterexample.

use crate::{
    term::{mask, to_signed, BinOp, CastOp, FBinOp, FPred, FUnOp, FloatKind, Node, Pred, Sort, Term},
    Counterexample, Outcome, Unknown, UnknownKind, Violation,
};
use std::collections::{HashMap, HashSet};

/// A concrete value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A bit-vector value (truncated to its width).
    Bits(u64),
    F32(f32),
    F64(f64),
    /// The result of an operation MLIR defines as poison (overflow with `nsw`/`nuw`, over-wide shift,
    /// out-of-range float-to-int) or of undefined behaviour (division by zero); propagates.
    Poison,
}

impl Value {
    pub fn bits(self) -> Option<u64> {
        match self {
            Value::Bits(value) => Some(value),
            _ => None,
        }
    }

    fn is_true(self) -> bool {
        self == Value::Bits(1)
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Bits(value) => write!(f, "{value}"),
            Value::F32(value) => write!(f, "{value:?}"),
            Value::F64(value) => write!(f, "{value:?}"),
            Value::Poison => write!(f, "poison"),
        }
    }
}

/// Every node reachable from `roots`, children before parents, each once.
pub fn topo_order(roots: &[Term]) -> Vec<Term> {
    let mut order = Vec::new();
    let mut done: HashSet<usize> = HashSet::new();
    let mut stack: Vec<(Term, bool)> = roots.iter().rev().map(|term| (term.clone(), false)).collect();
    while let Some((term, expanded)) = stack.pop() {
        if done.contains(&term.id()) {
            continue;
        }
        if expanded {
            done.insert(term.id());
            order.push(term);
            continue;
        }
        let children: Vec<Term> = term.children().into_iter().cloned().collect();
        stack.push((term, true));
        for child in children.into_iter().rev() {
            if !done.contains(&child.id()) {
                stack.push((child, false));
            }
        }
    }
    order
}

/// Variables of `roots` (by name, first occurrence order).
pub fn variables(roots: &[Term]) -> Vec<(String, Sort)> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for term in topo_order(roots) {
        if let Node::Var { name, sort } = term.node() {
            if seen.insert(name.clone()) {
                out.push((name.clone(), *sort));
            }
        }
    }
    out
}

/// Terms compiled for repeated evaluation.
pub struct Program {
    nodes: Vec<Term>,
    children: Vec<Vec<usize>>,
    roots: Vec<usize>,
    /// Variable name → node slots holding it.
    variables: Vec<(String, Sort)>,
    var_slot: Vec<Option<usize>>,
}

/// The values of one evaluation.
pub struct Evaluation {
    /// One value per root.
    pub roots: Vec<Value>,
    /// Set when an operation with undefined behaviour (division by zero, signed `MIN / -1`) was executed on
    /// the way to a root: its description.
    pub undefined: Option<String>,
}

impl Program {
    /// Compiles `roots` (validated first).
    pub fn new(roots: &[Term]) -> Result<Program, String> {
        for root in roots {
            root.validate()?;
        }
        let nodes = topo_order(roots);
        let position: HashMap<usize, usize> = nodes.iter().enumerate().map(|(i, term)| (term.id(), i)).collect();
        let children = nodes
            .iter()
            .map(|term| term.children().into_iter().filter_map(|child| position.get(&child.id()).copied()).collect())
            .collect();
        let roots = roots.iter().filter_map(|root| position.get(&root.id()).copied()).collect();
        let variables = variables(&nodes);
        let names: HashMap<&str, usize> = variables.iter().enumerate().map(|(i, (name, _))| (name.as_str(), i)).collect();
        let var_slot = nodes
            .iter()
            .map(|term| match term.node() {
                Node::Var { name, .. } => names.get(name.as_str()).copied(),
                _ => None,
            })
            .collect();
        Ok(Program { nodes, children, roots, variables, var_slot })
    }

    /// The variables, in the order [`Program::run`] takes their values.
    pub fn variables(&self) -> &[(String, Sort)] {
        &self.variables
    }

    /// Evaluates with `inputs[k]` the value of `variables()[k]`.
    pub fn run(&self, inputs: &[Value]) -> Evaluation {
        let mut values: Vec<Value> = Vec::with_capacity(self.nodes.len());
        for (index, term) in self.nodes.iter().enumerate() {
            let args: Vec<Value> = self.children[index].iter().map(|&child| values[child]).collect();
            let value = match term.node() {
                Node::Var { .. } => self.var_slot[index].and_then(|slot| inputs.get(slot).copied()).unwrap_or(Value::Poison),
                _ => eval_node(term, &args),
            };
            values.push(value);
        }
        let undefined = self.find_undefined(&values);
        Evaluation { roots: self.roots.iter().map(|&root| values[root]).collect(), undefined }
    }

    /// Evaluates with a name → value map; unassigned variables are poison.
    pub fn run_named(&self, inputs: &HashMap<String, Value>) -> Evaluation {
        let slots: Vec<Value> =
            self.variables.iter().map(|(name, _)| inputs.get(name).copied().unwrap_or(Value::Poison)).collect();
        self.run(&slots)
    }

    /// Walks from the roots, following only the taken branch of lazy selects, looking for executed
    /// operations with undefined behaviour.
    fn find_undefined(&self, values: &[Value]) -> Option<String> {
        let mut reached = vec![false; self.nodes.len()];
        for &root in &self.roots {
            reached[root] = true;
        }
        for index in (0..self.nodes.len()).rev() {
            if !reached[index] {
                continue;
            }
            let term = &self.nodes[index];
            let children = &self.children[index];
            match term.node() {
                Node::Select { lazy: true, .. } if children.len() == 3 => {
                    reached[children[0]] = true;
                    match values[children[0]] {
                        Value::Bits(1) => reached[children[1]] = true,
                        Value::Bits(_) => reached[children[2]] = true,
                        _ => {}
                    }
                }
                _ => {
                    for &child in children {
                        reached[child] = true;
                    }
                }
            }
            if let Node::Bin { op: op @ (BinOp::DivU | BinOp::RemU | BinOp::DivS | BinOp::RemS), lhs, .. } = term.node() {
                if let (Some(&a), Some(&b)) = (children.first(), children.get(1)) {
                    let width = lhs.width().unwrap_or(64);
                    let what = match (values[a], values[b]) {
                        (_, Value::Bits(0)) => Some("division by zero"),
                        (Value::Bits(x), Value::Bits(y))
                            if matches!(op, BinOp::DivS)
                                && x == 1u64 << (width - 1)
                                && y == mask(width) =>
                        {
                            Some("signed division overflow (MIN / -1)")
                        }
                        _ => None,
                    };
                    if let Some(what) = what {
                        return Some(match term.label() {
                            Some(label) => format!("{what} in {label}"),
                            None => format!("{what} in {term}"),
                        });
                    }
                }
            }
        }
        None
    }
}

fn float_of(value: Value) -> Option<f64> {
    match value {
        Value::F32(v) => Some(v as f64),
        Value::F64(v) => Some(v),
        _ => None,
    }
}

fn make_float(kind: FloatKind, value: f64) -> Value {
    match kind {
        FloatKind::F32 => Value::F32(value as f32),
        FloatKind::F64 => Value::F64(value),
    }
}

fn eval_node(term: &Term, args: &[Value]) -> Value {
    if args.contains(&Value::Poison) {
        // Lazy selects may still pick a defined branch.
        if let Node::Select { lazy: true, .. } = term.node() {
            return match (args.first(), args.get(1), args.get(2)) {
                (Some(Value::Bits(1)), Some(v), _) => *v,
                (Some(Value::Bits(_)), _, Some(v)) => *v,
                _ => Value::Poison,
            };
        }
        if let Node::Select { lazy: false, .. } = term.node() {
            // arith.select yields the chosen operand; poison in the other one does not propagate.
            return match (args.first(), args.get(1), args.get(2)) {
                (Some(Value::Bits(1)), Some(v), _) => *v,
                (Some(Value::Bits(_)), _, Some(v)) => *v,
                _ => Value::Poison,
            };
        }
        return Value::Poison;
    }
    let bits = |i: usize| args.get(i).and_then(|v| v.bits());
    match term.node() {
        Node::Var { .. } => Value::Poison,
        Node::Const { value, .. } => Value::Bits(*value),
        Node::FConst { value, kind } => make_float(*kind, *value),
        Node::Not(arg) => match (bits(0), arg.width()) {
            (Some(a), Some(w)) => Value::Bits(!a & mask(w)),
            _ => Value::Poison,
        },
        Node::Bin { op, flags, lhs, .. } => {
            let (Some(a), Some(b), Some(w)) = (bits(0), bits(1), lhs.width()) else { return Value::Poison };
            eval_bin(*op, flags.nsw, flags.nuw, a, b, w)
        }
        Node::Cmp { pred, lhs, .. } => {
            let (Some(a), Some(b), Some(w)) = (bits(0), bits(1), lhs.width()) else { return Value::Poison };
            let (sa, sb) = (to_signed(a, w), to_signed(b, w));
            let r = match pred {
                Pred::Eq => a == b,
                Pred::Ne => a != b,
                Pred::Ult => a < b,
                Pred::Ule => a <= b,
                Pred::Ugt => a > b,
                Pred::Uge => a >= b,
                Pred::Slt => sa < sb,
                Pred::Sle => sa <= sb,
                Pred::Sgt => sa > sb,
                Pred::Sge => sa >= sb,
            };
            Value::Bits(r as u64)
        }
        Node::Select { .. } => match args {
            [Value::Bits(1), then, _] => *then,
            [Value::Bits(_), _, otherwise] => *otherwise,
            _ => Value::Poison,
        },
        Node::Cast { op, width, arg } => {
            let (Some(a), Some(from)) = (bits(0), arg.width()) else { return Value::Poison };
            let w = *width;
            match op {
                CastOp::ZeroExtend | CastOp::Truncate => Value::Bits(a & mask(w)),
                CastOp::SignExtend => Value::Bits(to_signed(a, from) as u64 & mask(w)),
            }
        }
        Node::FBin { op, lhs, .. } => {
            let (Some(a), Some(b), Sort::Float(kind)) = (float_of(args[0]), float_of(args[1]), lhs.sort()) else {
                return Value::Poison;
            };
            eval_fbin(*op, kind, a, b)
        }
        Node::FUn { op, arg } => {
            let (Some(a), Sort::Float(kind)) = (float_of(args[0]), arg.sort()) else { return Value::Poison };
            match kind {
                FloatKind::F32 => {
                    let a = a as f32;
                    Value::F32(match op {
                        FUnOp::Sqrt => a.sqrt(),
                        FUnOp::Floor => a.floor(),
                        FUnOp::Ceil => a.ceil(),
                        FUnOp::Abs => a.abs(),
                        FUnOp::Neg => -a,
                        FUnOp::Round => a.round(),
                        FUnOp::RoundEven => a.round_ties_even(),
                        FUnOp::Trunc => a.trunc(),
                    })
                }
                FloatKind::F64 => Value::F64(match op {
                    FUnOp::Sqrt => a.sqrt(),
                    FUnOp::Floor => a.floor(),
                    FUnOp::Ceil => a.ceil(),
                    FUnOp::Abs => a.abs(),
                    FUnOp::Neg => -a,
                    FUnOp::Round => a.round(),
                    FUnOp::RoundEven => a.round_ties_even(),
                    FUnOp::Trunc => a.trunc(),
                }),
            }
        }
        Node::FCmp { pred, .. } => {
            let (Some(a), Some(b)) = (float_of(args[0]), float_of(args[1])) else { return Value::Poison };
            let ordered = !a.is_nan() && !b.is_nan();
            let r = match pred {
                FPred::False => false,
                FPred::True => true,
                FPred::Ord => ordered,
                FPred::Uno => !ordered,
                FPred::Oeq => ordered && a == b,
                FPred::Ogt => ordered && a > b,
                FPred::Oge => ordered && a >= b,
                FPred::Olt => ordered && a < b,
                FPred::Ole => ordered && a <= b,
                FPred::One => ordered && a != b,
                FPred::Ueq => !ordered || a == b,
                FPred::Ugt => !ordered || a > b,
                FPred::Uge => !ordered || a >= b,
                FPred::Ult => !ordered || a < b,
                FPred::Ule => !ordered || a <= b,
                FPred::Une => !ordered || a != b,
            };
            Value::Bits(r as u64)
        }
        Node::IntToFloat { signed, kind, arg } => {
            let (Some(a), Some(w)) = (bits(0), arg.width()) else { return Value::Poison };
            match (kind, signed) {
                (FloatKind::F32, false) => Value::F32(a as f32),
                (FloatKind::F32, true) => Value::F32(to_signed(a, w) as f32),
                (FloatKind::F64, false) => Value::F64(a as f64),
                (FloatKind::F64, true) => Value::F64(to_signed(a, w) as f64),
            }
        }
        Node::FloatToInt { signed, width, .. } => {
            let Some(a) = float_of(args[0]) else { return Value::Poison };
            if a.is_nan() {
                return Value::Poison;
            }
            let t = a.trunc();
            let w = *width as i32;
            if *signed {
                let (lo, hi) = (-(2f64.powi(w - 1)), 2f64.powi(w - 1));
                if t < lo || t >= hi {
                    return Value::Poison;
                }
                Value::Bits((t as i64) as u64 & mask(*width))
            } else {
                if t < 0.0 || t >= 2f64.powi(w) {
                    return Value::Poison;
                }
                Value::Bits(t as u64)
            }
        }
        Node::FloatResize { kind, .. } => {
            let Some(a) = float_of(args[0]) else { return Value::Poison };
            make_float(*kind, a)
        }
    }
}

fn eval_bin(op: BinOp, nsw: bool, nuw: bool, a: u64, b: u64, w: u32) -> Value {
    let m = mask(w);
    let (sa, sb) = (to_signed(a, w) as i128, to_signed(b, w) as i128);
    let (ua, ub) = (a as u128, b as u128);
    let smin = -(1i128 << (w - 1));
    let smax = (1i128 << (w - 1)) - 1;
    let umax = m as u128;
    let signed_ok = |r: i128| !nsw || (smin..=smax).contains(&r);
    let result = match op {
        BinOp::Add => {
            if !signed_ok(sa + sb) || (nuw && ua + ub > umax) {
                return Value::Poison;
            }
            a.wrapping_add(b)
        }
        BinOp::Sub => {
            if !signed_ok(sa - sb) || (nuw && ua < ub) {
                return Value::Poison;
            }
            a.wrapping_sub(b)
        }
        BinOp::Mul => {
            if !signed_ok(sa * sb) || (nuw && ua * ub > umax) {
                return Value::Poison;
            }
            a.wrapping_mul(b)
        }
        BinOp::DivU => {
            if b == 0 {
                return Value::Poison;
            }
            a / b
        }
        BinOp::RemU => {
            if b == 0 {
                return Value::Poison;
            }
            a % b
        }
        BinOp::DivS => {
            if sb == 0 || (sa == smin && sb == -1) {
                return Value::Poison;
            }
            (sa / sb) as u64
        }
        BinOp::RemS => {
            if sb == 0 {
                return Value::Poison;
            }
            if sb == -1 {
                0
            } else {
                (sa % sb) as u64
            }
        }
        BinOp::Shl => {
            if b >= w as u64 {
                return Value::Poison;
            }
            let r = a << b;
            if nuw && (r & m) >> b != a {
                return Value::Poison;
            }
            if nsw && to_signed(r & m, w) >> b != to_signed(a, w) {
                return Value::Poison;
            }
            r
        }
        BinOp::ShrU => {
            if b >= w as u64 {
                return Value::Poison;
            }
            a >> b
        }
        BinOp::ShrS => {
            if b >= w as u64 {
                return Value::Poison;
            }
            (to_signed(a, w) >> b) as u64
        }
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::MinU => a.min(b),
        BinOp::MaxU => a.max(b),
        BinOp::MinS => {
            if sa <= sb {
                a
            } else {
                b
            }
        }
        BinOp::MaxS => {
            if sa >= sb {
                a
            } else {
                b
            }
        }
    };
    Value::Bits(result & m)
}

fn eval_fbin(op: FBinOp, kind: FloatKind, a: f64, b: f64) -> Value {
    match kind {
        FloatKind::F32 => {
            let (a, b) = (a as f32, b as f32);
            Value::F32(match op {
                FBinOp::Add => a + b,
                FBinOp::Sub => a - b,
                FBinOp::Mul => a * b,
                FBinOp::Div => a / b,
                FBinOp::Minimum => minimum(a as f64, b as f64) as f32,
                FBinOp::Maximum => maximum(a as f64, b as f64) as f32,
                FBinOp::MinNum => a.min(b),
                FBinOp::MaxNum => a.max(b),
            })
        }
        FloatKind::F64 => Value::F64(match op {
            FBinOp::Add => a + b,
            FBinOp::Sub => a - b,
            FBinOp::Mul => a * b,
            FBinOp::Div => a / b,
            FBinOp::Minimum => minimum(a, b),
            FBinOp::Maximum => maximum(a, b),
            FBinOp::MinNum => a.min(b),
            FBinOp::MaxNum => a.max(b),
        }),
    }
}

fn minimum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        if a.is_sign_negative() {
            a
        } else {
            b
        }
    } else {
        a.min(b)
    }
}

fn maximum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        if a.is_sign_positive() {
            a
        } else {
            b
        }
    } else {
        a.max(b)
    }
}

/// One variable's finite domain `[lo, hi)` for [`exhaustive`].
#[derive(Clone, Debug)]
pub struct Domain {
    pub name: String,
    pub lo: u64,
    pub hi: u64,
}

/// Checks `facts → goal` (all `i1`) at every point of the box `domains` (at most `limit` points). Undefined
/// behaviour or poison on the way to the goal, where the facts hold, is a violation too.
pub fn exhaustive(goal: &Term, facts: &[Term], observe: &[Term], domains: &[Domain], limit: u64) -> Outcome {
    let fact = Term::all(facts.iter().cloned());
    let mut roots = vec![goal.clone(), fact];
    roots.extend(observe.iter().cloned());
    let program = match Program::new(&roots) {
        Ok(program) => program,
        Err(why) => return Outcome::Unknown(Unknown { kind: UnknownKind::Unsupported, detail: why }),
    };
    let mut slots = Vec::new();
    for (name, sort) in program.variables() {
        if *sort != Sort::Bits(crate::term::INDEX_WIDTH) && !matches!(sort, Sort::Bits(_)) {
            return Outcome::Unknown(Unknown {
                kind: UnknownKind::Unsupported,
                detail: format!("variable '{name}' of sort {sort} cannot be enumerated"),
            });
        }
        match domains.iter().find(|domain| &domain.name == name) {
            Some(domain) => slots.push(domain.clone()),
            None => {
                return Outcome::Unknown(Unknown {
                    kind: UnknownKind::Unsupported,
                    detail: format!("variable '{name}' has no finite domain to enumerate"),
                })
            }
        }
    }
    let mut points: u64 = 1;
    for domain in &slots {
        let size = domain.hi.saturating_sub(domain.lo);
        if size == 0 {
            return Outcome::Proved;
        }
        points = match points.checked_mul(size) {
            Some(points) if points <= limit => points,
            _ => {
                return Outcome::Unknown(Unknown {
                    kind: UnknownKind::DomainTooLarge,
                    detail: format!("the domain has more than {limit} points"),
                })
            }
        };
    }
    let mut current: Vec<u64> = slots.iter().map(|domain| domain.lo).collect();
    let mut inputs: Vec<Value> = current.iter().map(|&v| Value::Bits(v)).collect();
    loop {
        for (input, value) in inputs.iter_mut().zip(&current) {
            *input = Value::Bits(*value);
        }
        let evaluation = program.run(&inputs);
        let holds = evaluation.roots.get(1).is_some_and(|v| v.is_true());
        if holds {
            let goal_value = evaluation.roots.first().copied().unwrap_or(Value::Poison);
            let violation = match (&evaluation.undefined, goal_value) {
                (Some(what), _) => Some(Violation::Undefined(what.clone())),
                (None, Value::Bits(1)) => None,
                (None, Value::Poison) => Some(Violation::Undefined("the goal evaluates to poison".into())),
                (None, _) => Some(Violation::Goal),
            };
            if let Some(violation) = violation {
                return Outcome::Refuted(Counterexample {
                    assignment: program.variables().iter().map(|(name, _)| name.clone()).zip(current.clone()).collect(),
                    observed: evaluation.roots[2..].to_vec(),
                    violation,
                });
            }
        }
        // Next point (odometer, last variable fastest).
        let mut k = current.len();
        loop {
            if k == 0 {
                return Outcome::Proved;
            }
            k -= 1;
            current[k] += 1;
            if current[k] < slots[k].hi {
                break;
            }
            current[k] = slots[k].lo;
        }
    }
}
