//! The SMT layer of lego-rs (no MLIR): a small term language over fixed-width bit-vectors, an exact
//! evaluator, and one question answered with Z3 — *prove P over these values, or give a counterexample*.
//!
//! - [`Term`]: variables, constants, `add sub mul divu remu divs rems shl shr and or xor min max`, comparisons,
//!   selects, casts; `index` is a 64-bit vector, so wrap-around and unsigned division are exact. A few IEEE
//!   float operations exist for evaluation only.
//! - [`prove`]: under facts (range facts are just `i1` terms such as `x.in_range(lo, hi)`), prove a goal for
//!   all values of the free variables, and prove every operation on the way defined (no division by zero,
//!   no poison). Answers [`Outcome::Proved`], [`Outcome::Refuted`] with a concrete assignment (re-checked by
//!   the exact evaluator), or [`Outcome::Unknown`] (time-out, unsupported float math, …).
//! - [`exhaustive`]: the same question answered by enumerating a small box of inputs (float math).
//! - [`minimize`]: a counterexample narrowed down to the lexicographically smallest one (what users read).
//!
//! ```
//! use lego_smt::{prove, Outcome, Query, Term};
//! let (i, n) = (Term::index_var("i"), Term::index(8));
//! // i < 8 ⇒ (i·4) div 4 = i
//! let goal = i.mul(&Term::index(4)).udiv(&Term::index(4)).eq(&i);
//! let facts = [i.ult(&n)];
//! assert!(matches!(prove(&Query { goal: &goal, facts: &facts, observe: &[], timeout_ms: 10_000 }), Outcome::Proved));
//! ```

mod budget;
mod eval;
mod minimize;
mod solver;
mod term;

pub use eval::{exhaustive, topo_order, variables, Domain, Evaluation, Program, Value};
pub use budget::Budget;
pub use minimize::minimize;
pub use solver::{is_nonlinear, join_background, prove, prove_limited, Query};
pub use term::{
    to_signed, BinOp, CastOp, FBinOp, FPred, FUnOp, Flags, FloatKind, Node, Pred, Sort, Term, INDEX_WIDTH,
};

/// What a proof attempt established.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The goal holds for every value of the variables that satisfies the facts.
    Proved,
    /// A concrete assignment where the facts hold and the goal fails (or an operation is undefined).
    Refuted(Counterexample),
    /// Neither: the reason says why (time-out, unsupported operation, solver gave up, domain too large).
    Unknown(Unknown),
}

impl Outcome {
    pub fn is_proved(&self) -> bool {
        matches!(self, Outcome::Proved)
    }
}

#[derive(Clone, Debug)]
pub struct Counterexample {
    /// Every free variable of the goal and facts, with its value.
    pub assignment: Vec<(String, u64)>,
    /// The values of the query's `observe` terms at this point, in order.
    pub observed: Vec<Value>,
    pub violation: Violation,
}

impl Counterexample {
    pub fn value_of(&self, name: &str) -> Option<u64> {
        self.assignment.iter().find(|(var, _)| var == name).map(|(_, value)| *value)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// The goal is false.
    Goal,
    /// An operation the goal depends on is undefined (division by zero, poison); the description names it.
    Undefined(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownKind {
    /// The solver hit the time limit.
    Timeout,
    /// The terms use something the encoding does not model (float math), or are ill-formed.
    Unsupported,
    /// Z3 answered unknown for another reason, or its model did not reproduce.
    Solver,
    /// [`exhaustive`]: more points than the limit.
    DomainTooLarge,
}

#[derive(Clone, Debug)]
pub struct Unknown {
    pub kind: UnknownKind,
    pub detail: String,
}

impl std::fmt::Display for Unknown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.detail)
    }
}

#[cfg(test)]
mod tests;
