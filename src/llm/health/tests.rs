use super::*;

fn s(secs: u64) -> Duration {
    Duration::from_secs(secs)
}

fn status(code: u16) -> LlmError {
    LlmError::Status {
        status: code,
        body: String::new(),
        retry_after: None,
    }
}

#[test]
fn which_errors_fail_over() {
    let cases = [
        (LlmError::Timeout, true),
        (LlmError::Connect("refused".into()), true),
        (status(500), true),
        (status(503), true),
        (status(429), true),
        (status(408), true),
        (status(400), false),
        (status(401), false),
        (status(404), false),
        (LlmError::BadResponse("x".into()), false),
        (LlmError::Empty, false),
        (LlmError::Setup("x".into()), false),
    ];
    for (error, expect) in cases {
        assert_eq!(fails_over(&error), expect, "{error}");
    }
}

/// One step of a health table test.
enum Step {
    Fail(LlmError),
    Ok,
    Probe(bool),
}

/// Runs `steps` one second apart; after each, whether the server is usable and when its
/// probe is due (seconds after the start).
fn check(steps: Vec<Step>, expect: &[(bool, Option<u64>)]) {
    let t0 = Instant::now();
    let mut h = Health::new(s(60));
    let mut got = Vec::new();
    for (i, step) in steps.into_iter().enumerate() {
        let now = t0 + s(i as u64);
        match step {
            Step::Fail(e) => {
                h.failed(&e, now);
            }
            Step::Ok => h.succeeded(),
            Step::Probe(ok) => h.probed(ok, now),
        }
        got.push((h.usable(), h.probe_at().map(|at| (at - t0).as_secs())));
    }
    assert_eq!(got, expect);
}

fn fail() -> Step {
    Step::Fail(status(500))
}

#[test]
fn three_failures_in_a_row_skip_the_server() {
    check(
        vec![fail(), fail(), fail()],
        &[(true, None), (true, None), (false, Some(62))],
    );
}

#[test]
fn a_good_answer_resets_the_count() {
    check(
        vec![fail(), fail(), Step::Ok, fail(), fail()],
        &[
            (true, None),
            (true, None),
            (true, None),
            (true, None),
            (true, None),
        ],
    );
}

#[test]
fn config_errors_never_skip() {
    check(
        vec![
            Step::Fail(status(400)),
            Step::Fail(status(401)),
            Step::Fail(status(400)),
            Step::Fail(LlmError::Empty),
        ],
        &[(true, None), (true, None), (true, None), (true, None)],
    );
}

#[test]
fn failed_probes_double_the_skip_up_to_the_cap() {
    let mut steps = vec![fail(), fail(), fail()];
    steps.extend((0..6).map(|_| Step::Probe(false)));
    check(
        steps,
        &[
            (true, None),
            (true, None),
            (false, Some(2 + 60)),
            (false, Some(3 + 120)),
            (false, Some(4 + 240)),
            (false, Some(5 + 480)),
            (false, Some(6 + 600)),
            (false, Some(7 + 600)),
            (false, Some(8 + 600)),
        ],
    );
}

#[test]
fn a_good_probe_leaves_the_server_on_probation() {
    check(
        vec![fail(), fail(), fail(), Step::Probe(true), fail()],
        &[
            (true, None),
            (true, None),
            (false, Some(62)),
            (true, None),
            // One failure after the probe: skipped again, twice as long.
            (false, Some(4 + 120)),
        ],
    );
}

#[test]
fn a_good_answer_after_probation_starts_the_wait_over() {
    check(
        vec![
            fail(),
            fail(),
            fail(),
            Step::Probe(true),
            Step::Ok,
            fail(),
            fail(),
            fail(),
        ],
        &[
            (true, None),
            (true, None),
            (false, Some(62)),
            (true, None),
            (true, None),
            (true, None),
            (true, None),
            (false, Some(7 + 60)),
        ],
    );
}

#[test]
fn failures_while_skipped_and_probes_while_healthy_change_nothing() {
    check(
        vec![fail(), fail(), fail(), fail(), Step::Ok, Step::Probe(false)],
        &[
            (true, None),
            (true, None),
            (false, Some(62)),
            (false, Some(62)),
            (true, None),
            (true, None),
        ],
    );
}
