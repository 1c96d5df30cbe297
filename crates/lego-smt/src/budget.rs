//! A whole-pass limit on solver work: the `timeout-ms` option of a pass bounds the pass, not each call.
//!
//! A pass makes one [`Budget`] and asks every question through it. Each call gets what is left of the
//! pass's time (never more than its own limit); once the time is spent every further call answers unknown
//! at once (kind [`UnknownKind::Timeout`]), so a pass with many or slow obligations ends in about
//! `timeout-ms` plus the cost of its cheap work, with `unknown` warnings instead of a hang.
//!
//! A budget may also carry a deterministic Z3 resource limit per call ([`Budget::with_rlimit`]); then the
//! wall clock only stops a run that went badly wrong, and [`Budget::wall_clock_hits`] says whether it did.

use crate::{solver::prove_limited, Outcome, Query, Unknown, UnknownKind};
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct Budget {
    total_ms: u64,
    deadline: Option<Instant>,
    rlimit: u64,
    calls: usize,
    refused: usize,
    wall_clock_hits: usize,
}

impl Budget {
    /// `total_ms` for every call together (0: no limit), starting now.
    pub fn new(total_ms: u64) -> Budget {
        Budget {
            total_ms,
            deadline: (total_ms > 0).then(|| Instant::now() + Duration::from_millis(total_ms)),
            rlimit: 0,
            calls: 0,
            refused: 0,
            wall_clock_hits: 0,
        }
    }

    /// A budget of `total_ms` that ends at `deadline` (`None`: no limit): the same budget seen from a copy
    /// of the pass's options that only kept the deadline.
    pub fn until(total_ms: u64, deadline: Option<Instant>) -> Budget {
        Budget { deadline, ..Budget::new(0) }.with_total(total_ms)
    }

    fn with_total(mut self, total_ms: u64) -> Budget {
        self.total_ms = total_ms;
        self
    }

    /// The instant the budget ends (`None`: no limit).
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Each call also stops after `rlimit` units of Z3's own work count (0: none).
    pub fn with_rlimit(mut self, rlimit: u64) -> Budget {
        self.rlimit = rlimit;
        self
    }

    /// Milliseconds left (`None`: no limit).
    pub fn remaining_ms(&self) -> Option<u64> {
        self.deadline.map(|deadline| deadline.saturating_duration_since(Instant::now()).as_millis() as u64)
    }

    pub fn exhausted(&self) -> bool {
        self.remaining_ms() == Some(0)
    }

    /// Calls made, calls refused because the budget was spent, and checks the wall clock (not the resource
    /// limit) ended.
    pub fn calls(&self) -> usize {
        self.calls
    }
    pub fn refused(&self) -> usize {
        self.refused
    }
    pub fn wall_clock_hits(&self) -> usize {
        self.wall_clock_hits
    }

    /// The answer of an exhausted budget.
    pub fn spent(&self) -> Outcome {
        Outcome::Unknown(Unknown {
            kind: UnknownKind::Timeout,
            detail: format!(
                "Z3 timed out after {} ms while proving this pass's obligations (timeout-ms bounds the whole pass)",
                self.total_ms
            ),
        })
    }

    /// [`crate::prove`] within what is left: the query's own `timeout_ms` (0: none) capped by the remaining
    /// time of the pass.
    pub fn prove(&mut self, query: &Query) -> Outcome {
        let timeout_ms = match (self.remaining_ms(), query.timeout_ms) {
            (Some(0), _) => {
                self.refused += 1;
                return self.spent();
            }
            (Some(left), 0) => left,
            (Some(left), own) => left.min(own),
            (None, own) => own,
        };
        self.calls += 1;
        let outcome = prove_limited(&Query { timeout_ms, ..*query }, self.rlimit);
        if let Outcome::Unknown(Unknown { kind: UnknownKind::Timeout, .. }) = &outcome {
            self.wall_clock_hits += 1;
        }
        outcome
    }
}
