//! The NumPy path of the tensor API (`LegoLayout.transform`, docs/python.md): the layout's forward map,
//! lowered by `lego-lower` to index arithmetic (the DAG [`crate::readback`] hands to Python), run here over
//! the array's buffer. No per-element Python, and no O(numel) index table: offsets are computed chunk by
//! chunk and used at once.
//!
//! Speed comes from classifying every node of the DAG by the index arguments it depends on. The layout's
//! index space `d_0 × … × d_{r-1}` is split into *outer* dims and an *inner* suffix whose product is at most
//! [`INNER_CAP`] elements. A node that depends only on outer dims is a scalar per inner block; one that depends
//! only on inner dims is the same for every block, so it is computed once per program (a vector of the inner
//! block's length: O(inner block), not O(numel)); everything else is a vector evaluated per chunk of
//! [`CHUNK`] positions. Sums are reassociated by class first (wrapping `i64` addition is associative), so
//! `Σ bits(i) + Σ bits(j)` of a Z-order curve costs one vector addition per element, not one per term.
//! When the last dim alone exceeds [`INNER_CAP`] (a long 1-D layout), it is streamed: its index is a range
//! per chunk and nothing is cached.

use lego_translate::program::Pred;
use pyo3::prelude::*;

use crate::LegoError;

/// Largest inner block whose invariant vectors are cached (elements).
const INNER_CAP: u64 = 1 << 14;
/// Positions evaluated together (vectors of this length stay in L1).
const CHUNK: usize = 256;
/// Inner blocks (rows) visited together, chunk by chunk.
const GROUP: usize = 16;

#[derive(Clone, Debug)]
enum Op {
    Const(i64),
    /// The index of layout dim k.
    Dim(usize),
    /// A sum of several nodes (built by reassociation).
    Sum(Vec<usize>),
    Add(usize, usize),
    Sub(usize, usize),
    Mul(usize, usize),
    DivU(usize, usize),
    DivS(usize, usize),
    FloorDivS(usize, usize),
    CeilDivU(usize, usize),
    CeilDivS(usize, usize),
    RemU(usize, usize),
    RemS(usize, usize),
    MaxU(usize, usize),
    MaxS(usize, usize),
    MinU(usize, usize),
    MinS(usize, usize),
    Shl(usize, usize),
    ShrU(usize, usize),
    ShrS(usize, usize),
    And(usize, usize),
    Or(usize, usize),
    Xor(usize, usize),
    Cmp(Pred, usize, usize),
    Select(usize, usize, usize),
}

impl Op {
    fn operands(&self) -> Vec<usize> {
        use Op::*;
        match self {
            Const(_) | Dim(_) => Vec::new(),
            Sum(terms) => terms.clone(),
            Add(a, b) | Sub(a, b) | Mul(a, b) | DivU(a, b) | DivS(a, b) | FloorDivS(a, b) | CeilDivU(a, b)
            | CeilDivS(a, b) | RemU(a, b) | RemS(a, b) | MaxU(a, b) | MaxS(a, b) | MinU(a, b) | MinS(a, b)
            | Shl(a, b) | ShrU(a, b) | ShrS(a, b) | And(a, b) | Or(a, b) | Xor(a, b) | Cmp(_, a, b) => vec![*a, *b],
            Select(c, a, b) => vec![*c, *a, *b],
        }
    }
}

/// What a node's value is within one chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    /// The same value everywhere (constants and what depends on constants only).
    Const,
    /// One value per inner block (depends on outer dims and constants only).
    Scalar,
    /// The same vector for every inner block (depends on inner dims only): cached.
    Invariant,
    /// Computed per chunk.
    Vector,
}

/// Scalar semantics of every op (the `arith` dialect's, on `index` = 64-bit values); total: a zero divisor
/// gives 0 instead of trapping (layout arithmetic never divides by zero; this only keeps bad input from
/// crashing the interpreter).
#[inline(always)]
fn eval2(op: &Op, x: i64, y: i64) -> i64 {
    use Op::*;
    match op {
        Add(..) => x.wrapping_add(y),
        Sub(..) => x.wrapping_sub(y),
        Mul(..) => x.wrapping_mul(y),
        DivU(..) => if y == 0 { 0 } else { ((x as u64) / (y as u64)) as i64 },
        DivS(..) => if y == 0 { 0 } else { x.wrapping_div(y) },
        FloorDivS(..) => if y == 0 { 0 } else { x.wrapping_div_euclid(y) - if y < 0 && x.wrapping_rem_euclid(y) != 0 { 1 } else { 0 } },
        CeilDivU(..) => if y == 0 { 0 } else { (x as u64).div_ceil(y as u64) as i64 },
        CeilDivS(..) => {
            if y == 0 {
                0
            } else {
                let q = x.wrapping_div(y);
                if x.wrapping_rem(y) != 0 && ((x < 0) == (y < 0)) { q + 1 } else { q }
            }
        }
        RemU(..) => if y == 0 { 0 } else { ((x as u64) % (y as u64)) as i64 },
        RemS(..) => if y == 0 { 0 } else { x.wrapping_rem(y) },
        MaxU(..) => (x as u64).max(y as u64) as i64,
        MaxS(..) => x.max(y),
        MinU(..) => (x as u64).min(y as u64) as i64,
        MinS(..) => x.min(y),
        Shl(..) if (0..64).contains(&y) => x.wrapping_shl(y as u32),
        ShrU(..) if (0..64).contains(&y) => ((x as u64) >> y) as i64,
        Shl(..) | ShrU(..) => 0,
        ShrS(..) => if (0..64).contains(&y) { x >> y } else if x < 0 { -1 } else { 0 },
        And(..) => x & y,
        Or(..) => x | y,
        Xor(..) => x ^ y,
        Cmp(pred, ..) => i64::from(match pred {
            Pred::Eq => x == y,
            Pred::Ne => x != y,
            Pred::Slt => x < y,
            Pred::Sle => x <= y,
            Pred::Sgt => x > y,
            Pred::Sge => x >= y,
            Pred::Ult => (x as u64) < (y as u64),
            Pred::Ule => (x as u64) <= (y as u64),
            Pred::Ugt => (x as u64) > (y as u64),
            Pred::Uge => (x as u64) >= (y as u64),
        }),
        _ => 0,
    }
}

/// An operand inside a chunk: a scalar, or a slice of the chunk's length.
#[derive(Clone, Copy)]
enum Val<'a> {
    S(i64),
    V(&'a [i64]),
}

impl Val<'_> {
    #[inline(always)]
    fn at(&self, t: usize) -> i64 {
        match self {
            Val::S(x) => *x,
            Val::V(v) => v[t],
        }
    }
}

/// `out[t] = f(a[t], b[t])`, each loop shape separately so the simple ops vectorise.
#[inline(always)]
fn map2(a: Val, b: Val, out: &mut [i64], f: impl Fn(i64, i64) -> i64) {
    match (a, b) {
        (Val::V(x), Val::V(y)) => out.iter_mut().zip(x).zip(y).for_each(|((o, x), y)| *o = f(*x, *y)),
        (Val::V(x), Val::S(y)) => out.iter_mut().zip(x).for_each(|(o, x)| *o = f(*x, y)),
        (Val::S(x), Val::V(y)) => out.iter_mut().zip(y).for_each(|(o, y)| *o = f(x, *y)),
        (Val::S(x), Val::S(y)) => out.fill(f(x, y)),
    }
}

#[inline(always)]
/// `op` over a chunk. Division and remainder by a scalar power of two become shifts and masks (unsigned
/// ops; the signed ones only for a non-negative dividend range, which the caller does not know, so not).
fn run2(op: &Op, a: Val, b: Val, out: &mut [i64]) {
    use Op::*;
    match op {
        Add(..) => map2(a, b, out, i64::wrapping_add),
        Sub(..) => map2(a, b, out, i64::wrapping_sub),
        Mul(..) => match (a, b) {
            (_, Val::S(y)) if y > 0 && (y as u64).is_power_of_two() => {
                let s = y.trailing_zeros();
                map2(a, b, out, |x, _| x.wrapping_shl(s))
            }
            (Val::S(x), _) if x > 0 && (x as u64).is_power_of_two() => {
                let s = x.trailing_zeros();
                map2(a, b, out, |_, y| y.wrapping_shl(s))
            }
            _ => map2(a, b, out, i64::wrapping_mul),
        },
        And(..) => map2(a, b, out, |x, y| x & y),
        Or(..) => map2(a, b, out, |x, y| x | y),
        Xor(..) => map2(a, b, out, |x, y| x ^ y),
        MaxS(..) => map2(a, b, out, i64::max),
        MinS(..) => map2(a, b, out, i64::min),
        DivU(..) | RemU(..) => match b {
            Val::S(y) if y > 0 && (y as u64).is_power_of_two() => {
                let shift = (y as u64).trailing_zeros();
                if matches!(op, DivU(..)) {
                    map2(a, b, out, |x, _| ((x as u64) >> shift) as i64)
                } else {
                    map2(a, b, out, |x, _| x & (y - 1))
                }
            }
            Val::S(y) if y > 0 => {
                // A loop-invariant divisor: the compiler cannot strength-reduce it, but the branch is hoisted.
                let y = y as u64;
                if matches!(op, DivU(..)) {
                    map2(a, b, out, |x, _| ((x as u64) / y) as i64)
                } else {
                    map2(a, b, out, |x, _| ((x as u64) % y) as i64)
                }
            }
            _ => map2(a, b, out, |x, y| eval2(op, x, y)),
        },
        Shl(..) | ShrU(..) | ShrS(..) => match b {
            Val::S(y) if (0..64).contains(&y) => {
                let s = y as u32;
                match op {
                    Shl(..) => map2(a, b, out, |x, _| x.wrapping_shl(s)),
                    ShrU(..) => map2(a, b, out, |x, _| ((x as u64) >> s) as i64),
                    _ => map2(a, b, out, |x, _| x >> s),
                }
            }
            _ => map2(a, b, out, |x, y| eval2(op, x, y)),
        },
        _ => map2(a, b, out, |x, y| eval2(op, x, y)),
    }
}

/// The forward map of one layout, ready to run over buffers.
#[pyclass(frozen, module = "lego._lego")]
pub struct IndexProgram {
    ops: Vec<Op>,
    class: Vec<Class>,
    result: usize,
    dims: Vec<u64>,
    numel: u64,
    /// Dims `split..` are inner.
    split: usize,
    /// Elements of one inner block.
    block: usize,
    /// The last dim is streamed (a range per chunk), nothing cached.
    streaming: bool,
    /// Invariant nodes' vectors over the inner block (only those a non-invariant node or the result reads).
    cache: Vec<Option<Vec<i64>>>,
    /// Values of the constant-class nodes.
    consts: Vec<i64>,
    /// Every offset is proved to lie in `[0, numel)` by interval arithmetic: no check per chunk.
    in_range: bool,
}

fn parse_op(kind: &str, operands: &[usize], extra: i64, len: usize) -> Result<Op, String> {
    if operands.iter().any(|&k| k >= len) {
        return Err(format!("node '{kind}' refers to a later node"));
    }
    let two = |build: fn(usize, usize) -> Op| -> Result<Op, String> {
        match operands {
            [a, b] => Ok(build(*a, *b)),
            _ => Err(format!("node '{kind}' wants 2 operands, got {}", operands.len())),
        }
    };
    Ok(match kind {
        "const" | "bool" => Op::Const(extra),
        "dim" => Op::Dim(usize::try_from(extra).map_err(|_| "negative dim".to_string())?),
        "addi" => two(Op::Add)?,
        "subi" => two(Op::Sub)?,
        "muli" => two(Op::Mul)?,
        "divui" => two(Op::DivU)?,
        "divsi" => two(Op::DivS)?,
        "floordivsi" => two(Op::FloorDivS)?,
        "ceildivui" => two(Op::CeilDivU)?,
        "ceildivsi" => two(Op::CeilDivS)?,
        "remui" => two(Op::RemU)?,
        "remsi" => two(Op::RemS)?,
        "maxui" => two(Op::MaxU)?,
        "maxsi" => two(Op::MaxS)?,
        "minui" => two(Op::MinU)?,
        "minsi" => two(Op::MinS)?,
        "shli" => two(Op::Shl)?,
        "shrui" => two(Op::ShrU)?,
        "shrsi" => two(Op::ShrS)?,
        "andi" => two(Op::And)?,
        "ori" => two(Op::Or)?,
        "xori" => two(Op::Xor)?,
        "cmpi" => match operands {
            [a, b] => Op::Cmp(Pred::from_mlir(extra).ok_or("cmpi with an unknown predicate")?, *a, *b),
            _ => return Err("cmpi wants 2 operands".to_string()),
        },
        "select" => match operands {
            [c, a, b] => Op::Select(*c, *a, *b),
            _ => return Err("select wants 3 operands".to_string()),
        },
        // Casts between index and integer types keep the value (layout arithmetic stays far below 2^31).
        "index_cast" | "index_castui" | "extui" | "extsi" | "trunci" => match operands {
            [a] => Op::Sum(vec![*a]),
            _ => return Err(format!("{kind} wants 1 operand")),
        },
        other => return Err(format!("the index arithmetic holds '{other}', which the transform cannot run")),
    })
}

impl IndexProgram {
    fn build(nodes: Vec<(String, Vec<usize>, i64)>, result: usize, dims: Vec<u64>) -> Result<Self, String> {
        if dims.is_empty() || dims.contains(&0) {
            return Err("the layout's dims must be positive".to_string());
        }
        let numel = dims.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d)).ok_or("the layout has more than 2^64 elements")?;
        if numel > i64::MAX as u64 {
            return Err("the layout is too large".to_string());
        }
        let mut ops = Vec::with_capacity(nodes.len());
        for (k, (kind, operands, extra)) in nodes.iter().enumerate() {
            let op = parse_op(kind, operands, *extra, k)?;
            if let Op::Dim(d) = op {
                if d >= dims.len() {
                    return Err(format!("node {k} reads dim {d} of a rank-{} layout", dims.len()));
                }
            }
            ops.push(op);
        }
        if result >= ops.len() {
            return Err("the result is not a node".to_string());
        }
        // Inner suffix: the longest one of at most INNER_CAP elements.
        let rank = dims.len();
        let mut split = rank;
        let mut block = 1u64;
        while split > 0 && block * dims[split - 1] <= INNER_CAP {
            split -= 1;
            block *= dims[split];
        }
        let streaming = split == rank;
        let (split, block) = if streaming { (rank - 1, dims[rank - 1]) } else { (split, block) };
        let mut program = IndexProgram {
            ops,
            class: Vec::new(),
            result,
            dims,
            numel,
            split,
            block: block as usize,
            streaming,
            cache: Vec::new(),
            consts: Vec::new(),
            in_range: false,
        };
        program.peephole();
        program.classify();
        program.reassociate();
        program.classify();
        program.fill_cache();
        program.in_range = program.result_interval().is_some_and(|(lo, hi)| lo >= 0 && hi < program.numel as i128);
        Ok(program)
    }

    fn classify(&mut self) {
        let mut class = Vec::with_capacity(self.ops.len());
        for op in &self.ops {
            let c = match op {
                Op::Const(_) => Class::Const,
                Op::Dim(d) if *d < self.split => Class::Scalar,
                Op::Dim(_) => if self.streaming { Class::Vector } else { Class::Invariant },
                other => {
                    let operands: Vec<Class> = other.operands().iter().map(|&k| class[k]).collect();
                    let has = |c: Class| operands.contains(&c);
                    if has(Class::Vector) || (has(Class::Invariant) && has(Class::Scalar)) {
                        Class::Vector
                    } else if has(Class::Invariant) {
                        Class::Invariant
                    } else if has(Class::Scalar) {
                        Class::Scalar
                    } else {
                        Class::Const
                    }
                }
            };
            class.push(c);
        }
        self.class = class;
        // Values of the constant nodes (outer index irrelevant).
        let mut consts = vec![0i64; self.ops.len()];
        self.scalars_of(Class::Const, &[], &mut consts);
        self.consts = consts;
    }

    fn constant(&self, k: usize) -> Option<i64> {
        match self.ops[k] {
            Op::Const(v) => Some(v),
            _ => None,
        }
    }

    fn push(&mut self, op: Op, class: Option<Class>) -> usize {
        self.ops.push(op);
        if let Some(class) = class {
            self.class.push(class);
        }
        self.ops.len() - 1
    }

    /// `x ^ y`, shared between requests; `(a >> s) ^ (b >> s)` becomes `(a ^ b) >> s`.
    fn xor_of(&mut self, x: usize, y: usize, shared: &mut std::collections::HashMap<(u8, usize, usize), usize>) -> usize {
        if let (Op::ShrU(a, s), Op::ShrU(b, t)) = (self.ops[x].clone(), self.ops[y].clone()) {
            if let (Some(u), Some(v)) = (self.constant(s), self.constant(t)) {
                if u == v {
                    let inner = self.xor_of(a, b, shared);
                    if let Some(&node) = shared.get(&(1, inner, s)) {
                        return node;
                    }
                    let node = self.push(Op::ShrU(inner, s), None);
                    shared.insert((1, inner, s), node);
                    return node;
                }
            }
        }
        let key = (0, x.min(y), x.max(y));
        if let Some(&node) = shared.get(&key) {
            return node;
        }
        let node = self.push(Op::Xor(key.1, key.2), None);
        shared.insert(key, node);
        node
    }

    /// lego-lower writes an XOR of bit fields (Swizzle's `j XOR (i mod 2^b)`, expressed with floor/Mod) as
    /// `Σ_k (((i >> k) + (j >> k)) & 1) << k`. The parity of a sum is the XOR of the low bits, so each term is
    /// rewritten to `((i ^ j) >> k) & 1`, sharing one `i ^ j`; [`Self::reassociate`] then sums the bits of one
    /// value back into a mask (`(i ^ j) & Σ 2^k`): one vector operation instead of three per bit.
    fn peephole(&mut self) {
        let mut shared = std::collections::HashMap::new();
        for k in 0..self.ops.len() {
            if let Op::And(a, b) = self.ops[k] {
                if self.constant(b) == Some(1) {
                    if let Op::Add(x, y) = self.ops[a] {
                        // Only the low bit of each addend matters: `x & odd` is `x` here.
                        let low = |n: usize| match self.ops[n] {
                            Op::And(inner, mask) if self.constant(mask).is_some_and(|m| m & 1 == 1) => inner,
                            _ => n,
                        };
                        let (x, y) = (low(x), low(y));
                        let xor = self.xor_of(x, y, &mut shared);
                        self.ops[k] = Op::And(xor, b);
                    }
                }
            }
        }
        self.topological_order();
    }

    /// `(X, mask)` when `node` is bits of `X` in place: `X & mask` (X not a shift), or
    /// `((X >> k) & 1) << k`.
    fn bits_in_place(&self, node: usize) -> Option<(usize, i64)> {
        match self.ops[node] {
            Op::Shl(a, s) => {
                let k = self.constant(s).filter(|k| (0..63).contains(k))?;
                match self.ops[a] {
                    Op::And(b, one) if self.constant(one) == Some(1) => match self.ops[b] {
                        Op::ShrU(x, t) if self.constant(t) == Some(k) => Some((x, 1i64 << k)),
                        _ => None,
                    },
                    _ => None,
                }
            }
            Op::And(x, c) => {
                let mask = self.constant(c)?;
                match self.ops[x] {
                    Op::ShrU(..) | Op::ShrS(..) => None,
                    _ => Some((x, mask)),
                }
            }
            _ => None,
        }
    }

    /// Rewrites each vector-class addition tree `t_1 + … + t_n` as (scalar terms) + (invariant terms) +
    /// (vector terms), the first two summed as new scalar / invariant nodes. Shifts and products by constants
    /// are distributed over the sums below them (wrapping arithmetic distributes), and bits of one value
    /// summed in place become one mask.
    fn reassociate(&mut self) {
        let original = self.ops.len();
        for k in 0..original {
            if self.class[k] != Class::Vector || !matches!(self.ops[k], Op::Add(..) | Op::Sum(_)) {
                continue;
            }
            let mut leaves: Vec<(usize, i64)> = Vec::new();
            let mut stack: Vec<(usize, i64)> = self.ops[k].operands().into_iter().map(|n| (n, 1)).collect();
            let is_sum = |ops: &Vec<Op>, n: usize| matches!(ops[n], Op::Add(..) | Op::Sum(_));
            while let Some((node, factor)) = stack.pop() {
                match self.ops[node].clone() {
                    Op::Add(a, b) => {
                        stack.push((a, factor));
                        stack.push((b, factor));
                    }
                    Op::Sum(terms) => stack.extend(terms.iter().map(|&t| (t, factor))),
                    Op::Shl(a, s) if is_sum(&self.ops, a) && self.class[s] == Class::Const && (0..63).contains(&self.consts[s]) => {
                        stack.push((a, factor.wrapping_mul(1i64 << self.consts[s])));
                    }
                    Op::Mul(a, c) if is_sum(&self.ops, a) && self.class[c] == Class::Const => {
                        stack.push((a, factor.wrapping_mul(self.consts[c])));
                    }
                    Op::Mul(c, a) if is_sum(&self.ops, a) && self.class[c] == Class::Const => {
                        stack.push((a, factor.wrapping_mul(self.consts[c])));
                    }
                    _ => leaves.push((node, factor)),
                }
            }
            // Bits of one value, each once, in place: one mask.
            // Disjoint masks of one value sum to their union (no carries).
            let mut bits: std::collections::HashMap<usize, (i64, Vec<usize>)> = std::collections::HashMap::new();
            for (position, &(leaf, factor)) in leaves.iter().enumerate() {
                if factor == 1 {
                    if let Some((x, mask)) = self.bits_in_place(leaf) {
                        let entry = bits.entry(x).or_insert((0, Vec::new()));
                        if entry.0 & mask == 0 {
                            entry.0 |= mask;
                            entry.1.push(position);
                        }
                    }
                }
            }
            let mut fused: Vec<(usize, i64)> = Vec::new();
            let mut dropped = vec![false; leaves.len()];
            for (x, (mask, positions)) in bits {
                if positions.len() < 2 {
                    continue;
                }
                for &position in &positions {
                    dropped[position] = true;
                }
                let class = self.class[x];
                let mask_node = self.push(Op::Const(mask), Some(Class::Const));
                self.consts.push(mask);
                let node = self.push(Op::And(x, mask_node), Some(class));
                self.consts.push(0);
                fused.push((node, 1));
            }
            let mut terms_with_factors: Vec<(usize, i64)> =
                leaves.iter().zip(&dropped).filter(|(_, &d)| !d).map(|(&l, _)| l).collect();
            terms_with_factors.extend(fused);
            // Scaled leaves become products by a constant.
            let mut terms_by_class: Vec<(usize, Class)> = Vec::new();
            for (leaf, factor) in terms_with_factors {
                let class = self.class[leaf];
                let node = if factor == 1 {
                    leaf
                } else {
                    let constant = self.push(Op::Const(factor), Some(Class::Const));
                    self.consts.push(factor);
                    let node = self.push(Op::Mul(leaf, constant), Some(class));
                    self.consts.push(0);
                    node
                };
                terms_by_class.push((node, class));
            }
            let pick = |c: Class| terms_by_class.iter().filter(|(_, class)| *class == c).map(|(n, _)| *n).collect::<Vec<_>>();
            let mut scalars = pick(Class::Scalar);
            scalars.extend(pick(Class::Const));
            let (invariants, vectors) = (pick(Class::Invariant), pick(Class::Vector));
            let mut terms = vectors;
            for group in [scalars, invariants] {
                match group.len() {
                    0 => {}
                    1 => terms.push(group[0]),
                    _ => {
                        let class = if group.iter().all(|&g| self.class[g] == Class::Const) { Class::Const } else { self.class[group[0]].max(Class::Scalar) };
                        let node = self.push(Op::Sum(group), Some(class));
                        self.consts.push(0);
                        terms.push(node);
                    }
                }
            }
            self.ops[k] = Op::Sum(terms);
        }
        // New nodes were appended after their users: move them before by re-ordering topologically.
        self.topological_order();
    }

    fn topological_order(&mut self) {
        let n = self.ops.len();
        let mut order = Vec::with_capacity(n);
        let mut state = vec![0u8; n]; // 0 new, 1 open, 2 done
        let mut stack = vec![(self.result, false)];
        while let Some((node, expanded)) = stack.pop() {
            if state[node] == 2 {
                continue;
            }
            if expanded {
                state[node] = 2;
                order.push(node);
                continue;
            }
            state[node] = 1;
            stack.push((node, true));
            for operand in self.ops[node].operands() {
                if state[operand] == 0 {
                    stack.push((operand, false));
                }
            }
        }
        let mut position = vec![usize::MAX; n];
        for (new, &old) in order.iter().enumerate() {
            position[old] = new;
        }
        let remap = |k: usize| position[k];
        let ops: Vec<Op> = order
            .iter()
            .map(|&old| {
                use Op::*;
                match &self.ops[old] {
                    Const(v) => Const(*v),
                    Dim(d) => Dim(*d),
                    Sum(terms) => Sum(terms.iter().map(|&t| remap(t)).collect()),
                    Select(c, a, b) => Select(remap(*c), remap(*a), remap(*b)),
                    Cmp(p, a, b) => Cmp(*p, remap(*a), remap(*b)),
                    other => {
                        let operands = other.operands();
                        let (a, b) = (remap(operands[0]), remap(operands[1]));
                        let mut op = other.clone();
                        match &mut op {
                            Add(x, y) | Sub(x, y) | Mul(x, y) | DivU(x, y) | DivS(x, y) | FloorDivS(x, y) | CeilDivU(x, y)
                            | CeilDivS(x, y) | RemU(x, y) | RemS(x, y) | MaxU(x, y) | MaxS(x, y) | MinU(x, y) | MinS(x, y)
                            | Shl(x, y) | ShrU(x, y) | ShrS(x, y) | And(x, y) | Or(x, y) | Xor(x, y) => {
                                *x = a;
                                *y = b;
                            }
                            _ => {}
                        }
                        op
                    }
                }
            })
            .collect();
        if self.class.len() == n {
            self.class = order.iter().map(|&old| self.class[old]).collect();
        }
        if self.consts.len() == n {
            self.consts = order.iter().map(|&old| self.consts[old]).collect();
        }
        self.result = position[self.result];
        self.ops = ops;
    }

    /// The interval of the result over the whole index space, when interval arithmetic bounds it within the
    /// 64-bit range of every intermediate value (so no wrap-around can occur); `None` otherwise.
    fn result_interval(&self) -> Option<(i128, i128)> {
        const LIMIT: i128 = i64::MAX as i128;
        let mut range: Vec<Option<(i128, i128)>> = Vec::with_capacity(self.ops.len());
        for op in &self.ops {
            let get = |k: usize| range[k];
            let nonneg = |k: usize| get(k).filter(|r| r.0 >= 0);
            let constant = |k: usize| get(k).filter(|r| r.0 == r.1).map(|r| r.0);
            let value = match op {
                Op::Const(v) => Some((*v as i128, *v as i128)),
                Op::Dim(d) => Some((0, self.dims[*d] as i128 - 1)),
                Op::Sum(terms) => terms.iter().try_fold((0i128, 0i128), |acc, &t| get(t).map(|r| (acc.0 + r.0, acc.1 + r.1))),
                Op::Add(a, b) => get(*a).zip(get(*b)).map(|(x, y)| (x.0 + y.0, x.1 + y.1)),
                Op::Sub(a, b) => get(*a).zip(get(*b)).map(|(x, y)| (x.0 - y.1, x.1 - y.0)),
                Op::Mul(a, b) => get(*a).zip(get(*b)).map(|(x, y)| {
                    let corners = [x.0 * y.0, x.0 * y.1, x.1 * y.0, x.1 * y.1];
                    (*corners.iter().min().unwrap_or(&0), *corners.iter().max().unwrap_or(&0))
                }),
                Op::DivU(a, b) => nonneg(*a).zip(nonneg(*b)).filter(|(_, y)| y.0 > 0).map(|(x, y)| (x.0 / y.1, x.1 / y.0)),
                Op::RemU(a, b) => nonneg(*a).zip(nonneg(*b)).filter(|(_, y)| y.0 > 0).map(|(x, y)| (0, x.1.min(y.1 - 1))),
                Op::Shl(a, s) => nonneg(*a).zip(constant(*s).filter(|s| (0..63).contains(s))).map(|(x, s)| (x.0 << s, x.1 << s)),
                Op::ShrU(a, s) | Op::ShrS(a, s) => {
                    nonneg(*a).zip(constant(*s).filter(|s| (0..63).contains(s))).map(|(x, s)| (x.0 >> s, x.1 >> s))
                }
                Op::And(a, b) => match (nonneg(*a), nonneg(*b)) {
                    (Some(x), Some(y)) => Some((0, x.1.min(y.1))),
                    (Some(x), None) | (None, Some(x)) => Some((0, x.1)),
                    _ => None,
                },
                Op::Or(a, b) | Op::Xor(a, b) => nonneg(*a).zip(nonneg(*b)).map(|(x, y)| {
                    let top = x.1.max(y.1);
                    (0, if top <= 0 { 0 } else { (1i128 << (128 - top.leading_zeros())) - 1 })
                }),
                Op::MaxS(a, b) => get(*a).zip(get(*b)).map(|(x, y)| (x.0.max(y.0), x.1.max(y.1))),
                Op::MinS(a, b) => get(*a).zip(get(*b)).map(|(x, y)| (x.0.min(y.0), x.1.min(y.1))),
                Op::MaxU(a, b) => nonneg(*a).zip(nonneg(*b)).map(|(x, y)| (x.0.max(y.0), x.1.max(y.1))),
                Op::MinU(a, b) => nonneg(*a).zip(nonneg(*b)).map(|(x, y)| (x.0.min(y.0), x.1.min(y.1))),
                Op::Cmp(..) => Some((0, 1)),
                Op::Select(_, a, b) => get(*a).zip(get(*b)).map(|(x, y)| (x.0.min(y.0), x.1.max(y.1))),
                _ => None,
            };
            range.push(value.filter(|r| r.0 >= -LIMIT - 1 && r.1 <= LIMIT));
        }
        range[self.result]
    }

    /// Evaluates the invariant nodes over the inner block; keeps those read by other classes (or the result).
    fn fill_cache(&mut self) {
        let n = self.ops.len();
        let mut needed = vec![false; n];
        for (k, op) in self.ops.iter().enumerate() {
            if self.class[k] != Class::Invariant {
                for operand in op.operands() {
                    if self.class[operand] == Class::Invariant {
                        needed[operand] = true;
                    }
                }
            }
        }
        if self.class[self.result] == Class::Invariant {
            needed[self.result] = true;
        }
        let mut values: Vec<Option<Vec<i64>>> = vec![None; n];
        if self.streaming || !needed.iter().any(|&x| x) {
            self.cache = values;
            return;
        }
        let inner: Vec<u64> = self.dims[self.split..].to_vec();
        let block = self.block;
        // Last use of each invariant node among invariant nodes, to free temporaries early.
        let mut last_use = vec![0usize; n];
        for (k, op) in self.ops.iter().enumerate() {
            for operand in op.operands() {
                last_use[operand] = k;
            }
        }
        for k in 0..n {
            if self.class[k] != Class::Invariant {
                continue;
            }
            let mut out = vec![0i64; block];
            match &self.ops[k] {
                Op::Dim(d) => {
                    let position = d - self.split;
                    let stride: u64 = inner[position + 1..].iter().product();
                    let size = inner[position];
                    for (t, o) in out.iter_mut().enumerate() {
                        *o = ((t as u64 / stride) % size) as i64;
                    }
                }
                op => {
                    let consts = &self.consts;
                    let get = |k: usize| -> Val { values[k].as_deref().map_or(Val::S(consts[k]), Val::V) };
                    eval_node(op, &get, &mut out);
                }
            }
            values[k] = Some(out);
            // Free invariant temporaries whose last reader is this node.
            for operand in self.ops[k].operands() {
                if !needed[operand] && last_use[operand] == k {
                    values[operand] = None;
                }
            }
        }
        for (k, value) in values.iter_mut().enumerate() {
            if !needed[k] {
                *value = None;
            }
        }
        self.cache = values;
    }

    #[inline(always)]
    /// Offsets of positions `[start, start + len)` of one inner block whose outer index is `outer` (scalar
    /// values per node given): the result node's vector (or `out` filled, for a scalar result).
    fn offsets<'v>(&'v self, scalars: &[i64], start: usize, vectors: &'v mut [Vec<i64>], out: &'v mut [i64]) -> &'v [i64] {
        let len = out.len();
        let n = self.ops.len();
        for k in 0..n {
            if self.class[k] != Class::Vector {
                continue;
            }
            let mut buffer = std::mem::take(&mut vectors[k]);
            buffer.resize(len, 0);
            {
                let get = |j: usize| -> Val {
                    match self.class[j] {
                        Class::Scalar | Class::Const => Val::S(scalars[j]),
                        Class::Invariant => Val::V(&self.cache[j].as_deref().unwrap_or(&[])[start..start + len]),
                        Class::Vector => Val::V(&vectors[j][..len]),
                    }
                };
                match &self.ops[k] {
                    Op::Dim(_) => {
                        // Streaming: the last dim's index over this chunk.
                        for (t, o) in buffer.iter_mut().enumerate() {
                            *o = (start + t) as i64;
                        }
                    }
                    op => eval_node(op, &get, &mut buffer),
                }
            }
            vectors[k] = buffer;
        }
        match self.class[self.result] {
            Class::Scalar | Class::Const => {
                out.fill(scalars[self.result]);
                out
            }
            Class::Invariant => &self.cache[self.result].as_deref().unwrap_or(&[])[start..start + len],
            Class::Vector => &vectors[self.result][..len],
        }
    }

    /// Values of the constant and scalar-class nodes for the outer index `outer`.
    fn scalars(&self, outer: &[u64], scalars: &mut [i64]) {
        scalars.copy_from_slice(&self.consts);
        self.scalars_of(Class::Scalar, outer, scalars);
    }

    /// Values of the nodes of class `which` (whose operands are constants or of that class).
    fn scalars_of(&self, which: Class, outer: &[u64], scalars: &mut [i64]) {
        for (k, op) in self.ops.iter().enumerate() {
            if self.class[k] != which {
                continue;
            }
            scalars[k] = match op {
                Op::Const(v) => *v,
                Op::Dim(d) => outer.get(*d).copied().unwrap_or(0) as i64,
                Op::Sum(terms) => terms.iter().fold(0i64, |acc, &t| acc.wrapping_add(scalars[t])),
                Op::Select(c, a, b) => if scalars[*c] != 0 { scalars[*a] } else { scalars[*b] },
                other => {
                    let operands = other.operands();
                    eval2(other, scalars[operands[0]], scalars[operands[1]])
                }
            };
        }
    }

    /// Calls `visit(chunk_start_flat, offsets)` for every chunk, in order of the output position; with AVX2
    /// where the CPU has it (the wheel targets baseline x86-64: the vector loops are compiled twice).
    fn for_each_chunk(&self, visit: impl FnMut(usize, &[i64]) -> Result<(), String>) -> Result<(), String> {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2 (checked just above).
                return unsafe { self.for_each_chunk_avx2(visit) };
            }
        }
        self.for_each_chunk_impl(visit)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn for_each_chunk_avx2(&self, visit: impl FnMut(usize, &[i64]) -> Result<(), String>) -> Result<(), String> {
        self.for_each_chunk_impl(visit)
    }

    #[inline(always)]
    fn for_each_chunk_impl(&self, mut visit: impl FnMut(usize, &[i64]) -> Result<(), String>) -> Result<(), String> {
        let n = self.ops.len();
        let mut vectors: Vec<Vec<i64>> = vec![Vec::new(); n];
        let mut offsets = vec![0i64; CHUNK.min(self.block)];
        let outer_rank = self.split;
        let mut outer = vec![0u64; self.dims.len()];
        let blocks = (self.numel / self.block as u64) as usize;
        // GROUP consecutive inner blocks are visited column chunk by column chunk: a layout that reads down
        // columns (ColMajor, a transpose) then reuses each cache line it loads for GROUP rows.
        let mut scalars = vec![vec![0i64; n]; GROUP.min(blocks)];
        let mut first = 0usize;
        while first < blocks {
            let count = GROUP.min(blocks - first);
            for row in scalars.iter_mut().take(count) {
                self.scalars(&outer, row);
                // Next outer index (row-major odometer).
                for d in (0..outer_rank).rev() {
                    outer[d] += 1;
                    if outer[d] < self.dims[d] {
                        break;
                    }
                    outer[d] = 0;
                }
            }
            let mut start = 0usize;
            while start < self.block {
                let len = CHUNK.min(self.block - start);
                for (g, row) in scalars.iter().take(count).enumerate() {
                    let chunk = self.offsets(row, start, &mut vectors, &mut offsets[..len]);
                    visit((first + g) * self.block + start, chunk)?;
                }
                start += len;
            }
            first += count;
        }
        Ok(())
    }
}

#[inline(always)]
fn eval_node<'a>(op: &Op, get: &impl Fn(usize) -> Val<'a>, out: &mut [i64]) {
    match op {
        Op::Const(v) => out.fill(*v),
        Op::Dim(_) => {}
        Op::Sum(terms) => {
            let mut scalar = 0i64;
            let mut first = true;
            for &t in terms {
                match get(t) {
                    Val::S(x) => scalar = scalar.wrapping_add(x),
                    Val::V(v) => {
                        if first {
                            out.copy_from_slice(v);
                            first = false;
                        } else {
                            out.iter_mut().zip(v).for_each(|(o, x)| *o = o.wrapping_add(*x));
                        }
                    }
                }
            }
            if first {
                out.fill(scalar);
            } else if scalar != 0 {
                out.iter_mut().for_each(|o| *o = o.wrapping_add(scalar));
            }
        }
        Op::Select(c, a, b) => {
            let (c, a, b) = (get(*c), get(*a), get(*b));
            for (t, o) in out.iter_mut().enumerate() {
                *o = if c.at(t) != 0 { a.at(t) } else { b.at(t) };
            }
        }
        other => {
            let operands = other.operands();
            run2(other, get(operands[0]), get(operands[1]), out);
        }
    }
}

/// Copies `count` elements of `itemsize` bytes.
#[inline(always)]
unsafe fn move_items<T: Copy>(src: *const u8, dst: *mut u8, offsets: &[i64], base: usize, gather: bool) {
    let src = src as *const T;
    let dst = dst as *mut T;
    if gather {
        for (t, &o) in offsets.iter().enumerate() {
            dst.add(base + t).write_unaligned(src.add(o as usize).read_unaligned());
        }
    } else {
        for (t, &o) in offsets.iter().enumerate() {
            dst.add(o as usize).write_unaligned(src.add(base + t).read_unaligned());
        }
    }
}

#[pymethods]
impl IndexProgram {
    /// `nodes`: `(kind, operands, extra)` with the kinds of python/src/readback.rs, the function arguments
    /// already resolved to `("dim", [], k)` or `("const", [], value)`, cmpi's predicate as its index in
    /// `eq ne slt sle sgt sge ult ule ugt uge`; `result` the node of the flat offset; `dims` the layout's
    /// index space.
    #[new]
    fn new(nodes: Vec<(String, Vec<usize>, i64)>, result: usize, dims: Vec<u64>) -> PyResult<Self> {
        crate::guarded(|| IndexProgram::build(nodes, result, dims).map_err(LegoError::new_err))
    }

    #[getter]
    fn numel(&self) -> u64 {
        self.numel
    }

    /// Bytes held by the cached invariant vectors (O(inner block), never O(numel)).
    #[getter]
    fn cache_bytes(&self) -> usize {
        self.cache.iter().flatten().map(|v| v.len() * 8).sum()
    }

    /// The optimised program, one line per node (`index class op`), for inspection.
    fn dump(&self) -> Vec<String> {
        self.ops.iter().enumerate().map(|(k, op)| format!("{k} {:?} {op:?}", self.class[k])).collect()
    }

    /// Whether every offset is proved in range (no per-chunk check).
    #[getter]
    fn in_range(&self) -> bool {
        self.in_range
    }

    /// A description of the program (node counts per class, inner block), for tests and docs.
    fn summary(&self) -> (usize, usize, usize, usize, bool) {
        let count = |c: Class| self.class.iter().filter(|&&x| x == c).count();
        (count(Class::Scalar) + count(Class::Const), count(Class::Invariant), count(Class::Vector), self.block, self.streaming)
    }

    /// Runs the map over `batch` consecutive arrays of `numel` elements of `itemsize` bytes at `src` (an
    /// address) into `dst`: a gather (`dst[k] = src[L(B⁻¹(k))]`) when `gather`, else the scatter
    /// `dst[L(B⁻¹(k))] = src[k]`. The caller (lego.backend.compiler) keeps both buffers alive, C-contiguous,
    /// distinct and of the right size. Every offset is checked against numel before it is used.
    #[pyo3(signature = (src, dst, itemsize, gather = true, batch = 1))]
    fn run(&self, py: Python<'_>, src: usize, dst: usize, itemsize: usize, gather: bool, batch: usize) -> PyResult<()> {
        if src == 0 || dst == 0 {
            return Err(LegoError::new_err("null buffer"));
        }
        if itemsize == 0 {
            return Err(LegoError::new_err("element size 0"));
        }
        let numel = self.numel;
        let stride = numel as usize * itemsize;
        let outcome = py.detach(|| {
            catch(|| {
                self.for_each_chunk(|base, offsets| {
                    // Unless interval arithmetic proved every offset in range: one vectorisable pass (max as
                    // unsigned: a negative offset is huge) before any access.
                    if !self.in_range && offsets.iter().fold(0u64, |m, &o| m.max(o as u64)) >= numel {
                        let bad = offsets.iter().copied().find(|&o| (o as u64) >= numel).unwrap_or(-1);
                        return Err(format!(
                            "the layout maps a position to offset {bad}, outside the {numel} elements: it is not a bijection on this shape"
                        ));
                    }
                    for b in 0..batch {
                        let (s, d) = ((src + b * stride) as *const u8, (dst + b * stride) as *mut u8);
                        // SAFETY: offsets < numel (checked above), base + len <= numel, buffers of batch·numel
                        // items (the caller's contract).
                        unsafe {
                            match itemsize {
                                1 => move_items::<u8>(s, d, offsets, base, gather),
                                2 => move_items::<u16>(s, d, offsets, base, gather),
                                4 => move_items::<u32>(s, d, offsets, base, gather),
                                8 => move_items::<u64>(s, d, offsets, base, gather),
                                16 => move_items::<u128>(s, d, offsets, base, gather),
                                size => {
                                    for (t, &o) in offsets.iter().enumerate() {
                                        let (from, to) = if gather { (o as usize, base + t) } else { (base + t, o as usize) };
                                        std::ptr::copy_nonoverlapping(s.add(from * size), d.add(to * size), size);
                                    }
                                }
                            }
                        }
                    }
                    Ok(())
                })
            })
        });
        outcome.map_err(pyo3::exceptions::PyValueError::new_err)
    }

    /// The offsets `L(B⁻¹(k))` for k in `[0, numel)` written as int64 to `dst` (the permutation table, built
    /// only when asked for).
    fn table(&self, py: Python<'_>, dst: usize) -> PyResult<()> {
        if dst == 0 {
            return Err(LegoError::new_err("null buffer"));
        }
        py.detach(|| {
            catch(|| {
                self.for_each_chunk(|base, offsets| {
                    // SAFETY: dst holds numel int64 (the caller's contract); base + len <= numel.
                    unsafe { std::ptr::copy_nonoverlapping(offsets.as_ptr(), (dst as *mut i64).add(base), offsets.len()) };
                    Ok(())
                })
            })
        })
        .map_err(LegoError::new_err)
    }
}

fn catch(body: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(result) => result,
        Err(_) => Err("internal error in lego's transform (a bug: please report it)".to_string()),
    }
}

/// A layout's description with its dims and its full table.
type LayoutTable<'py> = (Bound<'py, PyAny>, Vec<u64>, Vec<u64>);

/// Test hook: the full table `[L(B⁻¹(k)) for k]` of `count` random layouts of lego-algebra's generator,
/// computed by the algebra's interpreter, with their descriptions (python/src/differential.rs).
#[pyfunction]
#[pyo3(signature = (seed, count, max_numel = 256, max_depth = 2))]
pub fn random_layout_tables<'py>(
    py: Python<'py>,
    seed: u64,
    count: usize,
    max_numel: u64,
    max_depth: usize,
) -> PyResult<Vec<LayoutTable<'py>>> {
    crate::differential::describable_random_layouts(py, seed, count, max_numel, max_depth, "random_layout_tables", |layout, description, _| {
        let dims = layout.dims().to_vec();
        let table = (0..layout.numel())
            .map(|flat| layout.apply(&lego_algebra::mixed_radix_unflatten(&dims, flat)))
            .collect::<Result<Vec<u64>, _>>()
            .map_err(|error| LegoError::new_err(error.to_string()))?;
        Ok((description, dims, table))
    })
}
