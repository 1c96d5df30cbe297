//! Smallest counterexamples: a solver's model is *some* point that refutes a goal (lanes 15 and 16, an index
//! of 2^40); a user reads the lowest one best (lanes 0 and 1). [`minimize`] narrows a counterexample down to
//! the lexicographically smallest one, variable by variable, by asking the same question again with an upper
//! bound on the variable (binary search; each model found lowers the bound to its own value).

use crate::{eval::variables, term::Sort, Counterexample, Outcome, Query, Term};

/// The lexicographically smallest counterexample of `query`, starting from `found` (which refutes it): the
/// variables named in `priority` first, in that order, then every other variable in `found`'s order; each
/// takes the least value that still refutes `query` with the variables before it fixed.
///
/// Every narrowing step is one call of `prove` (the caller's budget and solver); after `max_calls` of them,
/// or at the first answer that is neither proved nor refuted (a spent budget), the smallest counterexample
/// found so far is returned. Every counterexample returned came from `prove`, so it is as checked as `found`.
pub fn minimize(
    query: &Query,
    found: Counterexample,
    priority: &[&str],
    max_calls: usize,
    prove: &mut dyn FnMut(&Query) -> Outcome,
) -> Counterexample {
    let mut roots = vec![query.goal.clone()];
    roots.extend(query.facts.iter().cloned());
    let widths: Vec<(String, u32)> = variables(&roots)
        .into_iter()
        .filter_map(|(name, sort)| match sort {
            Sort::Bits(width) => Some((name, width)),
            _ => None,
        })
        .collect();
    let width_of = |name: &str| widths.iter().find(|(var, _)| var == name).map(|(_, width)| *width);
    let mut order: Vec<String> = priority.iter().map(|name| name.to_string()).collect();
    for (name, _) in &found.assignment {
        if !order.contains(name) {
            order.push(name.clone());
        }
    }

    let mut best = found;
    let mut fixed: Vec<Term> = Vec::new();
    let mut calls = 0;
    for name in order {
        let (Some(width), Some(mut high)) = (width_of(&name), best.value_of(&name)) else { continue };
        let var = Term::var(name.as_str(), width);
        // Invariant: `high` refutes (with the earlier variables fixed); no value below `low` does.
        let mut low = 0u64;
        let mut first = true;
        while low < high {
            if calls >= max_calls {
                return best;
            }
            calls += 1;
            // The lowest value first (most counterexamples start at 0), then halving.
            let bound = if first { low } else { low + (high - low) / 2 };
            first = false;
            let mut facts = query.facts.to_vec();
            facts.extend(fixed.iter().cloned());
            facts.push(var.ule(&Term::constant(bound, width)));
            match prove(&Query { facts: &facts, ..*query }) {
                Outcome::Refuted(smaller) => match smaller.value_of(&name) {
                    Some(value) if value <= bound => {
                        high = value;
                        best = smaller;
                    }
                    // Not below the bound after all (cannot happen for a checked model): stop narrowing it.
                    _ => break,
                },
                Outcome::Proved => low = bound + 1,
                Outcome::Unknown(_) => return best,
            }
        }
        fixed.push(var.eq(&Term::constant(high, width)));
    }
    best
}
