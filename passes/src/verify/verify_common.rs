//! What the verification passes (`lego-verify-bijectivity`, `lego-verify`, `lego-external-smt-verifier`)
//! share: options, and the wording of "cannot verify" / "unknown" diagnostics and counterexamples.

use crate::{
    diagnostics::{self, Severity},
    registry::{OptionSpec, Options, RegistryError},
    smt_encode::EncodeError,
};
use lego_smt::{Budget, Counterexample, Outcome, Query, Unknown, UnknownKind, Value};
use melior::ir::Location;

/// Options every verification pass takes.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "timeout-ms", default: "10000", description: "Z3 time budget of the whole pass, in milliseconds (0: none); what the budget cannot decide is reported as unknown" },
    OptionSpec { name: "verbose", default: "false", description: "emit a remark for every proved property, with the time it took" },
];

#[derive(Clone, Copy, Debug)]
pub struct VerifyOptions {
    pub timeout_ms: u64,
    pub verbose: bool,
    /// When this run's Z3 budget (`timeout-ms` for the whole pass) ends; set by [`VerifyOptions::started`].
    pub deadline: Option<std::time::Instant>,
}

impl VerifyOptions {
    pub fn parse(options: &Options) -> Result<Self, RegistryError> {
        Ok(VerifyOptions { timeout_ms: options.u64("timeout-ms")?, verbose: options.bool("verbose")?, deadline: None })
    }

    /// The options of one run of a pass: its Z3 budget starts now.
    pub fn started(self) -> Self {
        VerifyOptions { deadline: Budget::new(self.timeout_ms).deadline(), ..self }
    }

    /// Proves `query` within what is left of the pass's budget (each call gets at most the rest; once it is
    /// spent, an unknown of kind time-out at once). The query's own `timeout_ms` is ignored.
    pub fn prove(&self, query: &Query) -> Outcome {
        let deadline = self.deadline.or_else(|| Budget::new(self.timeout_ms).deadline());
        Budget::until(self.timeout_ms, deadline).prove(&Query { timeout_ms: 0, ..*query })
    }

    /// [`VerifyOptions::prove`], and a counterexample narrowed down to the lowest witness a person can check by
    /// hand: the variables named in `priority` first (e.g. the thread ids: lanes 0 and 1 rather than 15 and 16),
    /// then the others, each as small as it can be (lexicographically smallest; see [`lego_smt::minimize`]).
    /// The narrowing takes at most [`MINIMIZE_CALLS`] solver calls and [`MINIMIZE_MS`], within the pass's
    /// budget; what it cannot narrow further is reported as found.
    pub fn prove_minimal(&self, query: &Query, priority: &[&str]) -> Outcome {
        match self.prove(query) {
            Outcome::Refuted(found) => {
                let minimizing = VerifyOptions {
                    deadline: Budget::new(MINIMIZE_MS).deadline().into_iter().chain(self.deadline).min(),
                    timeout_ms: self.timeout_ms.min(MINIMIZE_MS).max(1),
                    ..*self
                };
                Outcome::Refuted(lego_smt::minimize(query, found, priority, MINIMIZE_CALLS, &mut |query| {
                    minimizing.prove(query)
                }))
            }
            other => other,
        }
    }
}

/// Solver calls [`VerifyOptions::prove_minimal`] may spend narrowing one counterexample (a binary search takes
/// at most 65 per 64-bit variable; most witnesses are small, and a thread id narrows in a few).
pub const MINIMIZE_CALLS: usize = 96;

/// Time [`VerifyOptions::prove_minimal`] may spend narrowing one counterexample (never beyond the pass's own
/// budget). Its queries are the refuted one with one more bound, usually milliseconds each.
pub const MINIMIZE_MS: u64 = 2_000;

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions { timeout_ms: 10_000, verbose: false, deadline: None }
    }
}

/// `unknown: Z3 timed out after 10000 ms` / `cannot verify: float math ...`.
pub fn describe_unknown(unknown: &Unknown) -> String {
    match unknown.kind {
        UnknownKind::Timeout => format!("unknown: {} (raise timeout-ms)", unknown.detail),
        UnknownKind::Solver => format!("unknown: {}", unknown.detail),
        UnknownKind::Unsupported | UnknownKind::DomainTooLarge => format!("cannot verify: {}", unknown.detail),
    }
}

/// Warns at `at` that `what` (e.g. `bijectivity`) could not be verified because of `error`
/// (`cannot verify: unsupported op 'X'; bijectivity is unverified`), with a note at the op responsible when
/// that is elsewhere.
pub fn warn_encode_error(at: Location, what: &str, error: &EncodeError) {
    let message = format!("{}; {what} is unverified", error.message);
    if error.location == at {
        diagnostics::warning(at, &message);
    } else {
        diagnostics::emit_with_note(at, Severity::Warning, &message, Some((error.location, "in the slice of this value")));
    }
}

/// Warns at `at` with the published `headline` (e.g. `Coalescing check returned unknown`) and, on the next
/// line, why (`cannot verify: unsupported op 'X'`), with a note at the op responsible when that is elsewhere.
pub fn warn_encode_error_as(at: Location, headline: &str, error: &EncodeError) {
    let message = format!("{headline}\n{}", error.message);
    if error.location == at {
        diagnostics::warning(at, &message);
    } else {
        diagnostics::emit_with_note(at, Severity::Warning, &message, Some((error.location, "in the slice of this value")));
    }
}

/// `%arg1 = 3, %arg2 = 0` for the counterexample's variables except `hidden` (the proof's own variables,
/// reported in the message itself). Empty when nothing is left.
pub fn other_variables(counterexample: &Counterexample, hidden: &[&str]) -> String {
    counterexample
        .assignment
        .iter()
        .filter(|(name, _)| !hidden.contains(&name.as_str()))
        .map(|(name, value)| format!("{name} = {}", signed_if_negative(*value)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// ` (with %arg1 = 3)` or empty.
pub fn with_clause(counterexample: &Counterexample, hidden: &[&str]) -> String {
    let others = other_variables(counterexample, hidden);
    if others.is_empty() {
        String::new()
    } else {
        format!(" (with {others})")
    }
}

/// Index values near 2^64 are almost always wrapped negatives; show them as such.
pub fn signed_if_negative(value: u64) -> String {
    if value > (1u64 << 63) {
        format!("{} (= -{})", value, value.wrapping_neg())
    } else {
        value.to_string()
    }
}

pub fn show(value: Option<&Value>) -> String {
    match value {
        Some(Value::Bits(bits)) => signed_if_negative(*bits),
        Some(other) => other.to_string(),
        None => "?".into(),
    }
}

pub fn show_list(values: &[Value]) -> String {
    values.iter().map(|value| show(Some(value))).collect::<Vec<_>>().join(", ")
}

/// `3 ms` / `1.2 s`.
pub fn elapsed(start: std::time::Instant) -> String {
    let millis = start.elapsed().as_secs_f64() * 1000.0;
    if millis < 1000.0 {
        format!("{millis:.0} ms")
    } else {
        format!("{:.1} s", millis / 1000.0)
    }
}
