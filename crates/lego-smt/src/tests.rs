use super::*;

fn q<'a>(goal: &'a Term, facts: &'a [Term]) -> Query<'a> {
    Query { goal, facts, observe: &[], timeout_ms: 20_000 }
}

fn idx(v: u64) -> Term {
    Term::index(v)
}

#[test]
fn proves_a_range_fact_and_refutes_without_it() {
    let i = Term::index_var("i");
    let goal = i.mul(&idx(4)).udiv(&idx(4)).eq(&i);
    assert!(prove(&q(&goal, &[i.ult(&idx(1 << 40))])).is_proved());
    // Without the fact, i·4 wraps for i ≥ 2^62.
    match prove(&q(&goal, &[])) {
        Outcome::Refuted(cex) => {
            let i = cex.value_of("i").unwrap();
            assert!(i >= 1 << 62, "i = {i}");
            assert_eq!(cex.violation, Violation::Goal);
        }
        other => panic!("expected a counterexample, got {other:?}"),
    }
}

#[test]
fn counterexample_reports_observed_values() {
    let x = Term::index_var("x");
    let goal = x.urem(&idx(4)).eq(&idx(0));
    let observed = [x.add(&idx(100))];
    let facts = [x.ult(&idx(4)), x.ugt(&idx(2))];
    match prove(&Query { goal: &goal, facts: &facts, observe: &observed, timeout_ms: 10_000 }) {
        Outcome::Refuted(cex) => {
            assert_eq!(cex.value_of("x"), Some(3));
            assert_eq!(cex.observed, vec![Value::Bits(103)]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn division_by_zero_is_a_violation_but_not_under_an_untaken_branch() {
    let (x, d) = (Term::index_var("x"), Term::index_var("d"));
    // (x divu d) == (x divu d) is trivially true, but undefined for d = 0.
    let q1 = x.udiv(&d);
    let goal = q1.eq(&q1);
    match prove(&q(&goal, &[])) {
        Outcome::Refuted(cex) => {
            assert_eq!(cex.value_of("d"), Some(0));
            assert!(matches!(cex.violation, Violation::Undefined(ref what) if what.contains("division by zero")));
        }
        other => panic!("{other:?}"),
    }
    // scf.if (d != 0) { x divu d } else { 0 }: defined everywhere.
    let guarded = Term::select_lazy(&d.ne(&idx(0)), &x.udiv(&d), &idx(0));
    let outcome = prove(&q(&guarded.ule(&x), &[]));
    assert!(outcome.is_proved(), "{outcome:?}");
    // arith.select evaluates both operands: still undefined at d = 0.
    let eager = Term::select(&d.ne(&idx(0)), &x.udiv(&d), &idx(0));
    assert!(matches!(prove(&q(&eager.ule(&x), &[])), Outcome::Refuted(_)));
}

#[test]
fn narrow_widths_and_casts() {
    let a = Term::var("a", 8);
    // (a + 1) as i8 wraps at 255; zext to 64 is then 0.
    let goal = a.add(&Term::constant(1, 8)).zext_or_trunc(64).ugt(&a.zext_or_trunc(64));
    match prove(&q(&goal, &[])) {
        Outcome::Refuted(cex) => assert_eq!(cex.value_of("a"), Some(255)),
        other => panic!("{other:?}"),
    }
    // sext of -1 (i8) is all ones.
    let minus_one = Term::constant(0xff, 8).sext_or_trunc(64);
    assert!(prove(&q(&minus_one.eq(&idx(u64::MAX)), &[])).is_proved());
}

#[test]
fn floats_are_unknown_to_z3_but_evaluated_exhaustively() {
    // isqrt through f64: floor(sqrt(uitofp(x))) == r where r*r <= x < (r+1)^2.
    let x = Term::index_var("x");
    let root = Term::float_to_int(
        false,
        64,
        &Term::fun(FUnOp::Floor, &Term::fun(FUnOp::Sqrt, &Term::int_to_float(false, FloatKind::F64, &x))),
    );
    let next = root.add(&idx(1));
    let goal = root.mul(&root).ule(&x).and(&x.ult(&next.mul(&next)));
    match prove(&q(&goal, &[x.ult(&idx(1000))])) {
        Outcome::Unknown(unknown) => assert_eq!(unknown.kind, UnknownKind::Unsupported),
        other => panic!("{other:?}"),
    }
    let domain = [Domain { name: "x".into(), lo: 0, hi: 1 << 16 }];
    assert!(exhaustive(&goal, &[], &[], &domain, 1 << 20).is_proved());
    // f32 loses precision for large x: exhaustive search finds it.
    let root32 = Term::float_to_int(
        false,
        64,
        &Term::fun(FUnOp::Floor, &Term::fun(FUnOp::Sqrt, &Term::int_to_float(false, FloatKind::F32, &x))),
    );
    let next32 = root32.add(&idx(1));
    let goal32 = root32.mul(&root32).ule(&x).and(&x.ult(&next32.mul(&next32)));
    let domain = [Domain { name: "x".into(), lo: 16_000_000, hi: 16_000_000 + (1 << 20) }];
    assert!(matches!(exhaustive(&goal32, &[], &[], &domain, 1 << 20), Outcome::Refuted(_)));
    let too_big = [Domain { name: "x".into(), lo: 0, hi: 1 << 30 }];
    assert!(matches!(
        exhaustive(&goal, &[], &[], &too_big, 1 << 20),
        Outcome::Unknown(Unknown { kind: UnknownKind::DomainTooLarge, .. })
    ));
}

/// rev(n1, n2) for all sizes below 2^16 (symbolic): inv(y) is in range and apply(inv(y)) = y for every
/// y < n1·n2, which (finite sets of equal size) makes apply and inv mutually inverse bijections.
#[test]
fn rev_is_bijective_for_all_sizes_up_to_2_pow_16() {
    let (n1, n2, y) = (Term::index_var("n1"), Term::index_var("n2"), Term::index_var("y"));
    let one = idx(1);
    let apply = |i: &Term, j: &Term| n1.sub(&one).sub(i).mul(&n2).add(&n2.sub(&one).sub(j));
    let gi = n1.sub(&one).sub(&y.udiv(&n2));
    let gj = n2.sub(&one).sub(&y.urem(&n2));
    let bound = idx(1 << 16);
    let facts = [n1.in_range(&one, &bound), n2.in_range(&one, &bound), y.ult(&n1.mul(&n2))];
    let in_range = gi.ult(&n1).and(&gj.ult(&n2));
    let round_trip = apply(&gi, &gj).eq(&y);
    for (what, goal) in [("in range", in_range), ("round trip", round_trip)] {
        let start = std::time::Instant::now();
        let outcome = prove(&q(&goal, &facts));
        eprintln!("rev symbolic {what}: {outcome:?} in {:?}", start.elapsed());
        assert!(outcome.is_proved());
    }
}

#[test]
fn timeouts_are_unknown() {
    // Factoring a 62-bit semiprime-like product is hard for bit-blasting with a 1 ms limit.
    let (a, b) = (Term::index_var("a"), Term::index_var("b"));
    let goal = a.mul(&b).ne(&idx(4611686014132420609)); // (2^31 - 1)^2
    let facts = [a.ugt(&idx(1)), b.ugt(&idx(1)), a.ult(&idx(1 << 32)), b.ult(&idx(1 << 32))];
    match prove(&Query { goal: &goal, facts: &facts, observe: &[], timeout_ms: 1 }) {
        Outcome::Unknown(unknown) => assert_eq!(unknown.kind, UnknownKind::Timeout, "{}", unknown.detail),
        // A very fast machine may still find a = b = 2^31 - 1 within the limit.
        Outcome::Refuted(cex) => assert_eq!(cex.value_of("a"), Some((1 << 31) - 1)),
        Outcome::Proved => panic!("proved a false goal"),
    }
}

/// A goal bit-blasting cannot settle quickly: no 62-bit product of two 32-bit factors > 1 equals (2^31 − 1)^2
/// (false: a = b = 2^31 − 1).
fn hard_factoring() -> (Term, Vec<Term>) {
    let (a, b) = (Term::index_var("a"), Term::index_var("b"));
    let goal = a.mul(&b).ne(&idx(4611686014132420609));
    let facts = vec![a.ugt(&idx(1)), b.ugt(&idx(1)), a.ult(&idx(1 << 32)), b.ult(&idx(1 << 32))];
    (goal, facts)
}

#[test]
fn resource_limit_answers_the_same_every_time() {
    // With a small rlimit and no wall-clock limit the answer is Z3's deterministic give-up, every run.
    let (goal, facts) = hard_factoring();
    let answers: Vec<String> = (0..3)
        .map(|_| match lego_smt_prove_limited(&goal, &facts, 2_000) {
            Outcome::Unknown(unknown) => {
                assert_eq!(unknown.kind, UnknownKind::Solver, "{}", unknown.detail);
                unknown.detail
            }
            other => panic!("a resource limit of 2000 should not settle factoring: {other:?}"),
        })
        .collect();
    assert!(answers.iter().all(|answer| answer == &answers[0]), "{answers:?}");
    // An easy goal is unaffected by the same limit.
    let x = Term::index_var("x");
    let easy = x.mul(&idx(4)).udiv(&idx(4)).eq(&x);
    assert!(lego_smt_prove_limited(&easy, &[x.ult(&idx(8))], 2_000).is_proved());
}

fn lego_smt_prove_limited(goal: &Term, facts: &[Term], rlimit: u64) -> Outcome {
    crate::prove_limited(&Query { goal, facts, observe: &[], timeout_ms: 0 }, rlimit)
}

#[test]
fn budget_bounds_all_calls_together() {
    // 50 ms for the whole "pass": the first hard call uses it up, every later call answers at once.
    let (goal, facts) = hard_factoring();
    let mut budget = crate::Budget::new(50);
    let start = std::time::Instant::now();
    let outcomes: Vec<Outcome> =
        (0..20).map(|_| budget.prove(&Query { goal: &goal, facts: &facts, observe: &[], timeout_ms: 10_000 })).collect();
    // Generous (loaded machines): 20 calls of a 10 s limit each would take minutes.
    assert!(start.elapsed() < std::time::Duration::from_secs(20), "{:?}", start.elapsed());
    assert!(budget.exhausted());
    assert!(budget.refused() >= 1, "calls {} refused {}", budget.calls(), budget.refused());
    match outcomes.last() {
        Some(Outcome::Unknown(unknown)) => {
            assert_eq!(unknown.kind, UnknownKind::Timeout);
            assert!(unknown.detail.contains("after 50 ms") && unknown.detail.contains("whole pass"), "{}", unknown.detail);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn evaluator_matches_z3_on_mixed_operations() {
    // A few identities mixing every integer operation, proved by Z3 and spot-checked by evaluation.
    let (x, y) = (Term::index_var("x"), Term::index_var("y"));
    let ops = [
        (x.shl(&idx(3)), x.mul(&idx(8))),
        (x.lshr(&idx(2)), x.udiv(&idx(4))),
        (x.bitand(&idx(15)), x.urem(&idx(16))),
        (Term::bin(BinOp::MinU, &x, &y), Term::select(&x.ult(&y), &x, &y)),
        (Term::bin(BinOp::MaxS, &x, &y), Term::select(&Term::cmp(Pred::Sgt, &x, &y), &x, &y)),
        (x.bitxor(&x), idx(0)),
    ];
    for (lhs, rhs) in ops {
        let goal = lhs.eq(&rhs);
        assert!(prove(&q(&goal, &[])).is_proved(), "{goal}");
        let program = Program::new(&[goal.clone()]).unwrap();
        for (a, b) in [(0u64, 0u64), (5, 9), (u64::MAX, 3), (1 << 63, 1)] {
            let inputs: Vec<Value> = program
                .variables()
                .iter()
                .map(|(name, _)| Value::Bits(if name == "x" { a } else { b }))
                .collect();
            assert_eq!(program.run(&inputs).roots[0], Value::Bits(1), "{goal} at x={a}, y={b}");
        }
    }
}

#[test]
fn overflow_flags_make_poison() {
    let x = Term::index_var("x");
    let add = Term::bin_flags(BinOp::Add, Flags { nsw: false, nuw: true }, &x, &idx(1));
    let goal = add.ugt(&x);
    // With nuw the add is poison at x = MAX: a violation, not a proof.
    match prove(&q(&goal, &[])) {
        Outcome::Refuted(cex) => {
            assert_eq!(cex.value_of("x"), Some(u64::MAX));
            assert!(matches!(cex.violation, Violation::Undefined(_)));
        }
        other => panic!("{other:?}"),
    }
    assert!(prove(&q(&goal, &[x.ult(&idx(1000))])).is_proved());
}

#[test]
fn substitute_replaces_variables() {
    let (t, c) = (Term::index_var("t"), Term::index_var("c"));
    let addr = t.mul(&idx(33)).add(&c);
    let mut map = std::collections::HashMap::new();
    map.insert("t".to_string(), t.add(&idx(1)));
    let next = addr.substitute(&map);
    assert!(prove(&q(&next.sub(&addr).eq(&idx(33)), &[])).is_proved());
}

#[test]
fn ill_formed_terms_are_unknown_not_panics() {
    let a = Term::var("a", 8);
    let b = Term::index_var("b");
    let goal = a.add(&b).eq(&b);
    assert!(matches!(prove(&q(&goal, &[])), Outcome::Unknown(Unknown { kind: UnknownKind::Unsupported, .. })));
    let wide = Term::var("w", 128);
    assert!(matches!(prove(&q(&wide.eq(&wide), &[])), Outcome::Unknown(_)));
}

/// Nonlinear but wrap-tolerant goals (a symbolic row length `n` with `n mod 32 = 0`): the bit-vector
/// encoding decides them while the integer one cannot show its no-wrap side conditions; the portfolio
/// returns the first conclusive answer.
#[test]
fn symbolic_row_length_alignment() {
    let (r, n, t) = (Term::index_var("r"), Term::index_var("n"), Term::index_var("t"));
    let addr = |t: &Term| r.mul(&n).add(t);
    let c32 = idx(32);
    let facts = [n.urem(&c32).eq(&idx(0)), t.urem(&c32).eq(&idx(0))];
    assert!(prove(&q(&addr(&t).urem(&c32).eq(&idx(0)), &facts)).is_proved());
    let facts = [t.urem(&c32).ne(&idx(31))];
    assert!(prove(&q(&addr(&t.add(&idx(1))).eq(&addr(&t).add(&idx(1))), &facts)).is_proved());
    // Without the fact on n, alignment is refuted.
    let facts = [t.urem(&c32).eq(&idx(0))];
    assert!(matches!(prove(&q(&addr(&t).urem(&c32).eq(&idx(0)), &facts)), Outcome::Refuted(_)));
    join_background();
}

/// A fact the encodings cannot express (float math) is dropped for the proof (sound), but a model that
/// violates it must not be reported as a counterexample.
#[test]
fn dropped_facts_never_yield_false_counterexamples() {
    let x = Term::index_var("x");
    // Fact (float math): floor(sqrt(x)) == 3, i.e. 9 <= x < 16. Goal: x >= 9.
    let root = Term::float_to_int(
        false,
        64,
        &Term::fun(FUnOp::Floor, &Term::fun(FUnOp::Sqrt, &Term::int_to_float(false, FloatKind::F64, &x))),
    );
    let facts = [root.eq(&idx(3))];
    let goal = x.uge(&idx(9));
    match prove(&q(&goal, &facts)) {
        Outcome::Unknown(_) => {}
        other => panic!("expected unknown, got {other:?}"),
    }
    // The same goal is still refuted when the point also satisfies the dropped fact.
    let goal = x.uge(&idx(12));
    match prove(&q(&goal, &facts)) {
        Outcome::Refuted(cex) => assert!((9..12).contains(&cex.value_of("x").unwrap())),
        Outcome::Unknown(_) => {} // the solver may pick a point outside [9, 16) first: then unknown, never wrong
        Outcome::Proved => panic!("proved a false goal"),
    }
}

#[test]
#[ignore = "calibration aid, prints how long a resource limit takes on this machine"]
fn rlimit_calibration() {
    let (goal, facts) = hard_factoring();
    for rlimit in [10_000u64, 100_000, 1_000_000, 5_000_000, 20_000_000] {
        let start = std::time::Instant::now();
        let outcome = lego_smt_prove_limited(&goal, &facts, rlimit);
        eprintln!("rlimit {rlimit}: {:?} in {:?}", matches!(outcome, Outcome::Unknown(_)), start.elapsed());
    }
}

fn refuted(outcome: Outcome) -> Counterexample {
    match outcome {
        Outcome::Refuted(cex) => cex,
        other => panic!("expected a counterexample, got {other:?}"),
    }
}

#[test]
fn minimize_finds_the_lexicographically_smallest_counterexample() {
    let (x, y) = (Term::index_var("x"), Term::index_var("y"));
    // x + y ≠ 10 for x, y < 100: refuted by every pair summing to 10; the smallest in (x, y) order is (0, 10),
    // in (y, x) order (10, 0).
    let goal = x.add(&y).ne(&idx(10));
    let facts = [x.ult(&idx(100)), y.ult(&idx(100))];
    let query = q(&goal, &facts);
    let mut calls = 0;
    let mut prove_counting = |query: &Query| {
        calls += 1;
        prove(query)
    };
    let found = refuted(prove_counting(&query));
    let smallest = minimize(&query, found.clone(), &["x", "y"], 200, &mut prove_counting);
    assert_eq!((smallest.value_of("x"), smallest.value_of("y")), (Some(0), Some(10)));
    let smallest = minimize(&query, found, &["y"], 200, &mut prove);
    assert_eq!((smallest.value_of("y"), smallest.value_of("x")), (Some(0), Some(10)));
    assert!(calls <= 1 + 2 * 66, "binary search: {calls} calls");
}

#[test]
fn minimize_narrows_a_large_witness_and_keeps_the_observed_values() {
    // The least t ≥ 0 with t mod 7 = 3 and t div 7 ≥ 2 is 17 (checked by hand: 3 and 10 have t div 7 < 2).
    let t = Term::index_var("t");
    let goal = t.urem(&idx(7)).ne(&idx(3)).or(&t.udiv(&idx(7)).ult(&idx(2)));
    let facts = [t.ult(&idx(1 << 40))];
    let observe = [t.udiv(&idx(7))];
    let query = Query { goal: &goal, facts: &facts, observe: &observe, timeout_ms: 20_000 };
    // Start from a deliberately large witness.
    let large = refuted(prove(&Query { facts: &[t.ult(&idx(1 << 40)), t.ugt(&idx(1 << 30))], ..query }));
    assert!(large.value_of("t").unwrap() > 1 << 30);
    let smallest = minimize(&query, large, &[], 200, &mut prove);
    assert_eq!(smallest.value_of("t"), Some(17));
    assert_eq!(smallest.observed, vec![Value::Bits(2)]);
}

#[test]
fn minimize_stops_at_its_call_limit_and_at_an_unknown() {
    let t = Term::index_var("t");
    let goal = t.ult(&idx(1000));
    let query = q(&goal, &[]);
    let found = refuted(prove(&Query { facts: &[t.ugt(&idx(1 << 50))], ..query }));
    let start = found.value_of("t").unwrap();
    // No calls allowed: the witness is returned unchanged.
    assert_eq!(minimize(&query, found.clone(), &["t"], 0, &mut prove).value_of("t"), Some(start));
    // A solver that cannot decide: unchanged too, after one call.
    let mut calls = 0;
    let mut unknown = |_: &Query| {
        calls += 1;
        Outcome::Unknown(Unknown { kind: UnknownKind::Timeout, detail: "spent".into() })
    };
    assert_eq!(minimize(&query, found.clone(), &["t"], 10, &mut unknown).value_of("t"), Some(start));
    assert_eq!(calls, 1);
    // Enough calls: the least counterexample, 1000.
    assert_eq!(minimize(&query, found, &["t"], 200, &mut prove).value_of("t"), Some(1000));
}

#[test]
fn nonlinear_goals_are_those_with_symbolic_products_or_divisors() {
    let (a, b) = (Term::index_var("a"), Term::index_var("b"));
    assert!(!is_nonlinear(&a.mul(&idx(4)).add(&b).ult(&idx(100))), "a constant factor is linear");
    assert!(!is_nonlinear(&a.udiv(&idx(8)).ult(&b)), "a constant divisor is linear");
    assert!(is_nonlinear(&a.mul(&b).ult(&idx(100))), "a product of two symbols");
    assert!(is_nonlinear(&idx(100).udiv(&b).ult(&a)), "a symbolic divisor");
    assert!(is_nonlinear(&a.urem(&b).ult(&b)), "a symbolic modulus");
}
