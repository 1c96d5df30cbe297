//! The browser test's reference for the GPU view (test/studio/browser_test.py): one warp request per stdin
//! line, `ELEM_BYTES ADDR ADDR …` (byte addresses of the active lanes), answered with `DEGREE SECTORS IDEAL`
//! straight from `lego_algebra::memcost` — the test builds the requests from `lego-studio draw`'s values,
//! not from the page's code.
use std::io::{BufRead, Write};

use lego_algebra::memcost::{bank_conflict_degree, sectors_per_request};

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { std::process::exit(1) };
        let numbers: Result<Vec<u64>, _> = line.split_whitespace().map(str::parse).collect();
        let answer = match numbers.as_deref() {
            Ok([bytes, addrs @ ..]) => bank_conflict_degree(addrs, *bytes, 32)
                .and_then(|c| sectors_per_request(addrs, *bytes).map(|(s, i)| format!("{} {s} {i}", c.degree)))
                .unwrap_or_else(|e| format!("error {e}")),
            _ => format!("error: not a request line: {line}"),
        };
        let _ = writeln!(out, "{answer}");
    }
}
