//! Issue 17's flood: a user who talked before over PKI asks again, with and without a flood of
//! 50 never-heard ids × 3 DMs (ids that never ACK, as forged ones), and this measures her DM →
//! the first part of her answer on air; also with the flood, a user who talked before in the
//! clear (known, not proven). And issue 25's silent destination: a known node stops ACKing
//! right after its DM, and another known node's DM → its first part (`silent_scenario`).
//!
//! The scenario is `tests/it/flood.rs`'s: the whole daemon (`meshai::run`) in-process, an
//! instant fake model answering three parts, the simulated node paced like the firmware (2 s
//! between texts, ACKs after 1.5 s, the 45 s ACK timeout), the flood's DMs 20 ms apart, hers 5 s
//! after the first of them. Times are virtual (paused tokio time paced by
//! `harness::VirtualPace`): a run is first tried with 10 ms steps (the database thread's work
//! counts at most 10× its real time) and, if her answer is not on air within 10 minutes, again
//! with 10 ms steps for its first 10 minutes and 1 s steps after, up to 12 h: what the code
//! before issue 17 needs, whose hours are ACK timeouts.
//!
//! Issue 25's cases are `tests/it/fair.rs`'s scenarios, in the same conditions: 40 fresh ids
//! with keys of their own × 4 PKI DMs (a pinned user's and a known user's DM → first part),
//! 2,000 silent ids × 1 DM (the pinned user's), 500 DMs stored from one rate-limited id (the
//! largest model request after them, in characters of its messages), and 60 fresh-id mentions
//! (a known node's mention → its answer on the channel). Their runs use 10 ms steps, capped.
//!
//! Run: `cargo bench --bench flood` (numbers in docs/benchmarks.md). `MESHAI_BENCH_ROUNDS` sets
//! the runs per case (default 3).

// A test, bench or example: its unwraps and panics are its assertions, and it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../tests/it/fair.rs"]
#[allow(dead_code)]
mod fair;
#[path = "../tests/it/flood.rs"]
#[allow(dead_code)]
mod flood;
#[path = "../tests/it/harness.rs"]
#[allow(dead_code)]
mod harness;
#[path = "../tests/it/support/mod.rs"]
#[allow(unused_imports)]
mod support;

use std::time::{Duration, Instant};

use harness::Steps;

/// One run: her wait (virtual), the texts on air before her first part, the flood ids answered
/// by then, and the run's wall time.
struct Run {
    first: Option<Duration>,
    texts_before: usize,
    flood_answered: usize,
    wall: Duration,
}

/// A case of the bench: a scenario of `tests/it/flood.rs`.
#[derive(Debug, Clone, Copy)]
enum Case {
    /// `scenario(flood, pki)`.
    Flood { flood: bool, pki: bool },
    /// `silent_scenario`.
    Silent,
}

async fn run(case: Case, steps: Steps, cap: Duration) -> Run {
    let wall = Instant::now();
    let out = match case {
        Case::Flood { flood, pki } => flood::scenario(flood, pki, steps, cap).await,
        Case::Silent => flood::silent_scenario(steps, cap).await,
    };
    let pace = harness::VirtualPace::start(Steps::even(steps.coarse));
    let (result, ..) = out.daemon.stop().await;
    drop(pace);
    if let Err(e) = result {
        println!("  (the daemon stopped with an error: {e:#})");
    }
    Run {
        first: out.first_part,
        texts_before: out.texts_before,
        flood_answered: out.flood_answered,
        wall: wall.elapsed(),
    }
}

/// A run with fine steps, or, when her answer takes longer than that allows, one whose steps
/// grow after 10 minutes.
async fn measure(case: Case) -> (Run, &'static str) {
    let fine = Duration::from_millis(10);
    let ten_minutes = Duration::from_secs(600);
    let first = run(case, Steps::even(fine), ten_minutes).await;
    if first.first.is_some() {
        return (first, "10 ms");
    }
    let steps = Steps {
        fine,
        fine_for: ten_minutes,
        coarse: Duration::from_secs(1),
    };
    let long = run(case, steps, Duration::from_secs(12 * 3600)).await;
    (long, "10 ms, then 1 s")
}

fn show(d: Option<Duration>) -> String {
    match d {
        Some(d) if d >= Duration::from_secs(3600) => format!("{:.2} h", d.as_secs_f64() / 3600.0),
        Some(d) => format!("{:.2} s", d.as_secs_f64()),
        None => "none by the cap".into(),
    }
}

fn main() {
    let rounds: usize = std::env::var("MESHAI_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("a tokio runtime");
    println!(
        "flood bench: {} never-heard ids x {} DMs, {} ms apart; her DM {:?} after the first; \
         silent: the other DM {:?} after the silent node's first part; \
         send gap {} ms, ACK after {:?}; {rounds} run(s) per case",
        flood::FLOOD_IDS,
        flood::FLOOD_DMS,
        flood::FLOOD_EVERY.as_millis(),
        flood::ALICE_AFTER,
        flood::HOME_AFTER,
        harness::BENCH_GAP_MS,
        harness::BENCH_ACK_DELAY,
    );
    let cases = [
        (
            "without flood, proven",
            Case::Flood {
                flood: false,
                pki: true,
            },
        ),
        (
            "with flood, proven",
            Case::Flood {
                flood: true,
                pki: true,
            },
        ),
        (
            "with flood, known (no PKI)",
            Case::Flood {
                flood: true,
                pki: false,
            },
        ),
        ("one known destination silent, known", Case::Silent),
    ];
    fair_cases(&runtime, rounds);
    for (name, case) in cases {
        let mut firsts = Vec::new();
        for i in 0..rounds {
            let (r, step) = runtime.block_on(measure(case));
            println!(
                "{name} #{}: DM -> first part {} (virtual, {step} steps), {} texts on air before it, \
                 {} flood ids answered by then; wall {:.1} s",
                i + 1,
                show(r.first),
                r.texts_before,
                r.flood_answered,
                r.wall.as_secs_f64()
            );
            firsts.push(r.first);
        }
        let mut known: Vec<Duration> = firsts.iter().flatten().copied().collect();
        known.sort();
        let median = known.get(known.len() / 2).copied();
        let max = if known.len() == firsts.len() {
            known.last().copied()
        } else {
            None
        };
        println!(
            "{name}: DM -> first part, median {}, max {}",
            show(median),
            show(max)
        );
    }
}

/// Issue 25's cases (`tests/it/fair.rs`), `rounds` runs each.
fn fair_cases(runtime: &tokio::runtime::Runtime, rounds: usize) {
    let steps = Steps::even(Duration::from_millis(10));
    for i in 0..rounds {
        let wall = Instant::now();
        let (pinned, known) = runtime.block_on(async {
            let out = fair::keys_scenario(steps, Duration::from_secs(600)).await;
            stop(out.daemon).await;
            (out.pinned, out.known)
        });
        println!(
            "40 fresh keys x 4 PKI DMs #{}: pinned user DM -> first part {}, known user {} \
             (virtual); wall {:.1} s",
            i + 1,
            show(pinned),
            show(known),
            wall.elapsed().as_secs_f64()
        );
        let wall = Instant::now();
        let pinned = runtime.block_on(async {
            let out = fair::silent_ids_scenario(steps, Duration::from_secs(600)).await;
            stop(out.daemon).await;
            out.pinned
        });
        println!(
            "2000 silent ids x 1 DM #{}: pinned user DM -> first part {} (virtual); wall {:.1} s",
            i + 1,
            show(pinned),
            wall.elapsed().as_secs_f64()
        );
        let wall = Instant::now();
        let (largest, requests) = runtime.block_on(async {
            let out = fair::stored_flood_scenario(steps).await;
            stop(out.daemon).await;
            (out.largest, out.requests)
        });
        println!(
            "500 stored DMs from one id #{}: largest model request {largest} characters of \
             messages ({requests} requests); wall {:.1} s",
            i + 1,
            wall.elapsed().as_secs_f64()
        );
        let wall = Instant::now();
        let (answered, fresh) = runtime.block_on(async {
            let out = fair::mentions_scenario(steps, Duration::from_secs(600)).await;
            stop(out.daemon).await;
            (out.answered, out.fresh_answered)
        });
        println!(
            "60 fresh-id mentions in 3 s #{}: known node's mention -> answer {} (virtual), {fresh} \
             fresh mentions answered; wall {:.1} s",
            i + 1,
            show(answered),
            wall.elapsed().as_secs_f64()
        );
    }
}

/// Stops a scenario's daemon, paced so its shutdown can run.
async fn stop(daemon: harness::Daemon) {
    let pace = harness::VirtualPace::start(Steps::even(Duration::from_millis(10)));
    let (result, ..) = daemon.stop().await;
    drop(pace);
    if let Err(e) = result {
        println!("  (the daemon stopped with an error: {e:#})");
    }
}
